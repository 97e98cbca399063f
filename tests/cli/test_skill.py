"""`vado skill`: the Claude Code skill ships with vado, names only real tools and arguments, and installs in one command."""

from __future__ import annotations

import json
import re
from pathlib import Path

import anyio
import pytest
import yaml
from typer.testing import CliRunner

from vado.assistant import MCP_ENTRY, mcp_entry, skill_text
from vado.cli.skill import vado_command
from vado.cli.app import app

pytest.importorskip("mcp")


def _frontmatter(text: str) -> tuple[dict, str]:
    m = re.match(r"\A---\n(.*?)\n---\n(.*)\Z", text, re.DOTALL)
    assert m, "SKILL.md starts with YAML front matter"
    return yaml.safe_load(m.group(1)), m.group(2)


def test_skill_front_matter():
    meta, body = _frontmatter(skill_text())
    assert meta["name"] == "vado-port" and re.fullmatch(r"[a-z0-9-]{1,64}", meta["name"])
    assert 100 < len(meta["description"]) <= 1024
    assert "Use when" in meta["description"]
    for step in ("Audit", "Port into a new directory", "Verify", "Fix what remains"):
        assert f"**{step}" in body


def test_skill_names_only_real_tools_arguments_and_verdicts(tmp_path: Path):
    from vado.mcp.root import Root
    from vado.mcp.server import build_server
    from vado.model import Verdict

    tools = {t.name: t for t in anyio.run(build_server(Root(str(tmp_path))).list_tools)}
    text = skill_text()
    meta, body = _frontmatter(text)
    allowed = [t for t in meta["allowed-tools"].split() if t.startswith("mcp__vado__")]
    assert {t.removeprefix("mcp__vado__") for t in allowed} == set(tools)
    calls = re.findall(r"mcp__vado__(\w+)\(([^)]*)\)", body)
    assert {name for name, _ in calls} == set(tools)
    for name, args in calls:
        for arg in re.findall(r"(\w+)=", args):
            assert arg in tools[name].input_schema["properties"], f"{name}({arg}=…) is not an argument"
    # Every argument named in backquotes as `name=` is an argument of some tool.
    every = {p for t in tools.values() for p in t.input_schema["properties"]}
    for arg in re.findall(r"`(\w+)=(?!=)", body):
        assert arg in every, arg
    for v in Verdict:
        assert f"`{v.value}`" in body


def test_install_writes_the_skill_and_the_mcp_entry_once(tmp_path: Path):
    res = CliRunner().invoke(app, ["skill", "install", str(tmp_path)])
    assert res.exit_code == 0, res.output
    skill = tmp_path / ".claude" / "skills" / "vado-port" / "SKILL.md"
    assert skill.read_text() == skill_text()
    assert json.loads((tmp_path / ".mcp.json").read_text()) == {"mcpServers": {"vado": mcp_entry(vado_command())}}
    again = CliRunner().invoke(app, ["skill", "install", str(tmp_path)])
    assert again.exit_code == 0 and again.stderr.count("unchanged") == 2


def test_install_keeps_other_servers_and_refuses_to_overwrite_without_force(tmp_path: Path):
    (tmp_path / ".mcp.json").write_text(json.dumps({"mcpServers": {"other": {"command": "x"}, "vado": {"command": "old"}}}))
    res = CliRunner().invoke(app, ["skill", "install", str(tmp_path)])
    assert res.exit_code == 2 and "already has a different 'vado' server" in " ".join(res.stderr.split())
    assert not (tmp_path / ".claude").exists()  # a refusal writes nothing
    res = CliRunner().invoke(app, ["skill", "install", str(tmp_path), "--force"])
    assert res.exit_code == 0, res.output
    assert json.loads((tmp_path / ".mcp.json").read_text())["mcpServers"] == {"other": {"command": "x"},
                                                                             "vado": mcp_entry(vado_command())}
    skill = tmp_path / ".claude" / "skills" / "vado-port" / "SKILL.md"
    skill.write_text("local edits\n")
    assert CliRunner().invoke(app, ["skill", "install", str(tmp_path)]).exit_code == 2
    assert skill.read_text() == "local edits\n"
    assert CliRunner().invoke(app, ["skill", "install", str(tmp_path), "--no-mcp", "--force"]).exit_code == 0
    assert skill.read_text() == skill_text()


def test_install_refuses_bad_targets(tmp_path: Path):
    assert CliRunner().invoke(app, ["skill", "install", str(tmp_path / "missing")]).exit_code == 2
    (tmp_path / ".mcp.json").write_text("[1, 2]")
    res = CliRunner().invoke(app, ["skill", "install", str(tmp_path)])
    assert res.exit_code == 2 and "is not an MCP configuration" in " ".join(res.stderr.split())


def test_plugin_directory(tmp_path: Path):
    res = CliRunner().invoke(app, ["skill", "install", "--plugin", str(tmp_path / "plugin")])
    assert res.exit_code == 0, res.output
    manifest = json.loads((tmp_path / "plugin" / ".claude-plugin" / "plugin.json").read_text())
    assert manifest["name"] == "vado" and manifest["version"]
    assert (tmp_path / "plugin" / "skills" / "vado-port" / "SKILL.md").read_text() == skill_text()
    assert json.loads((tmp_path / "plugin" / ".mcp.json").read_text())["mcpServers"]["vado"]["command"] == "vado"


def test_show_prints_the_skill():
    res = CliRunner().invoke(app, ["skill", "show"])
    assert res.exit_code == 0 and res.stdout == skill_text() + ("" if skill_text().endswith("\n") else "\n")


def test_the_mcp_entry_names_the_running_vado_by_its_absolute_path(tmp_path: Path, monkeypatch):
    exe = tmp_path / "venv" / "bin" / "vado"
    exe.parent.mkdir(parents=True)
    exe.write_text("#!/bin/sh\n")
    exe.chmod(0o755)
    monkeypatch.setattr("sys.argv", [str(exe), "skill", "install"])
    assert vado_command() == str(exe.resolve())
    monkeypatch.setattr("sys.argv", ["/somewhere/pytest"])
    monkeypatch.setenv("PATH", str(exe.parent))
    assert vado_command() == str(exe.resolve())  # not the running script: the one on PATH, absolute
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    assert vado_command() == "vado"
    monkeypatch.setattr("sys.argv", [str(exe)])
    repo = tmp_path / "repo"
    repo.mkdir()
    res = CliRunner().invoke(app, ["skill", "install", str(repo)])
    assert res.exit_code == 0, res.output
    entry = json.loads((repo / ".mcp.json").read_text())["mcpServers"]["vado"]
    assert entry == {"command": str(exe.resolve()), "args": ["mcp", "--root", "."]}


def test_an_entry_vado_wrote_before_is_brought_up_to_date_without_force(tmp_path: Path):
    (tmp_path / ".mcp.json").write_text(json.dumps({"mcpServers": {"vado": MCP_ENTRY}}))  # a plain `vado`
    res = CliRunner().invoke(app, ["skill", "install", str(tmp_path)])
    assert res.exit_code == 0, res.output
    assert json.loads((tmp_path / ".mcp.json").read_text())["mcpServers"]["vado"] == mcp_entry(vado_command())


def test_the_skill_agrees_with_the_cli_defaults():
    from vado.knowledge.targets import get_target
    from vado.port.file import PortOptions

    text = skill_text()
    assert PortOptions().wave == "warp32"
    assert "do not rewrite them for 64 lanes" in text and "vado_shfl_down_sync32" in text
    assert "gfx90a" not in text
    archs = get_target("rocm-7.2").default_arch
    assert archs == ("gfx942", "gfx950") and "gfx942 and gfx950" in text


def test_without_the_mcp_extra_vado_says_how_to_install_it(tmp_path: Path, monkeypatch):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "mcp" else real(name, *a))
    res = CliRunner().invoke(app, ["mcp", "--root", str(tmp_path)])
    assert res.exit_code == 3
    assert "pip install 'vado[mcp]'" in " ".join(res.stderr.split())
    res = CliRunner().invoke(app, ["skill", "install", str(tmp_path)])
    assert res.exit_code == 0 and "vado[mcp]" in " ".join(res.stderr.split())


def test_the_mcp_sdk_is_an_extra():
    import tomllib

    meta = tomllib.loads((Path(__file__).resolve().parents[2] / "pyproject.toml").read_text())["project"]
    assert not any(d.startswith("mcp") for d in meta["dependencies"])
    assert any(d.startswith("mcp>=") for d in meta["optional-dependencies"]["mcp"])
