"""`vado skill mcp-config CLIENT`: what registers this vado's MCP server with Claude Code, Codex or Cursor."""

from __future__ import annotations

import json
import shlex
import tomllib
from pathlib import Path

from typer.testing import CliRunner

from vado.cli.app import app
from vado.cli.skill import vado_command


def _run(*args: str):
    return CliRunner().invoke(app, ["skill", "mcp-config", *args])


def test_codex_table_names_vado_and_an_absolute_root(tmp_path: Path):
    res = _run("codex", "--root", str(tmp_path))
    assert res.exit_code == 0, res.output
    doc = tomllib.loads(res.stdout)["mcp_servers"]["vado"]
    assert doc == {"command": vado_command(), "args": ["mcp", "--root", str(tmp_path.resolve())]}


def test_codex_default_root_is_the_current_directory(tmp_path: Path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    doc = tomllib.loads(_run("codex").stdout)["mcp_servers"]["vado"]
    assert doc["args"] == ["mcp", "--root", str(tmp_path)]


def test_cursor_json_and_claude_command():
    doc = json.loads(_run("cursor").stdout)
    assert doc == {"mcpServers": {"vado": {"command": vado_command(), "args": ["mcp", "--root", "."]}}}
    words = shlex.split(_run("claude").stdout)
    assert words == ["claude", "mcp", "add", "vado", "--", vado_command(), "mcp", "--root", "."]


def test_unknown_assistant_is_a_usage_error():
    res = _run("vscode")
    assert res.exit_code == 2 and "unknown assistant 'vscode'" in res.output
