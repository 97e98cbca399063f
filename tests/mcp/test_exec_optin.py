"""MCP tools say what they execute: building and running the project's code needs --allow-exec."""

from __future__ import annotations

import anyio
import pytest

pytest.importorskip("mcp")

from vado.mcp.root import Root  # noqa: E402
from vado.mcp.server import build_server  # noqa: E402


def _tools(root, allow_exec):
    return {t.name: t for t in anyio.run(build_server(Root(str(root)), allow_exec=allow_exec).list_tools)}


def test_without_allow_exec_verify_is_compile_only_and_says_so(tmp_path):
    tools = _tools(tmp_path, False)
    v = tools["verify"]
    assert v.annotations.read_only_hint is True and v.annotations.idempotent_hint is True
    assert "confined" in v.description and "no build system and no project code runs" in v.description
    assert "--allow-exec" in v.description and "bench_kernel" not in tools
    (tmp_path / "port").mkdir()
    (tmp_path / "orig").mkdir()
    (tmp_path / "port" / "a.hip").write_text("int main() { return 0; }\n")

    async def call():
        return await build_server(Root(str(tmp_path))).call_tool(
            "verify", {"path": "port", "original": "orig", "run_args": "1"})

    from mcp.server.mcpserver.exceptions import ToolError

    with pytest.raises(ToolError, match="--allow-exec"):
        anyio.run(call)


def test_with_allow_exec_verify_is_not_read_only_and_says_it_runs_programs(tmp_path):
    v = _tools(tmp_path, True)["verify"]
    assert v.annotations.read_only_hint is False and v.annotations.idempotent_hint is False
    assert "RUNS both programs" in v.description and v.annotations.open_world_hint is False
