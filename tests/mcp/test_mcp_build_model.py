"""MCP audit and port judge the configuration of the root's build: by default only what the tree holds
(compile_commands.json …); the executing modes need --allow-exec, as verify's do."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import anyio
import pytest

pytest.importorskip("mcp")

from vado.mcp import tools  # noqa: E402
from vado.mcp.root import Root  # noqa: E402
from vado.mcp.server import build_server  # noqa: E402

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "buildmodel"


def _fastpath(tmp_path: Path, flags: list[str]) -> Path:
    root = tmp_path / "fastpath"
    shutil.copytree(FIXTURES / "fastpath", root)
    (root / "compile_commands.json").write_text(json.dumps(
        [{"directory": str(root), "file": "kernel.cu", "arguments": ["nvcc", *flags, "-c", "kernel.cu"]}]))
    return root


def test_audit_says_which_configuration_it_judged(tmp_path):
    _fastpath(tmp_path, [])
    answer = tools.audit(Root(tmp_path), "fastpath", detail="full", codes=["PTX001"])
    assert answer["build"]["reader"] == "compile-db" and answer["build"]["source"] == "compile_commands.json"
    assert answer["build"]["not_built"] == ["fastpath/unused.cu"]
    inactive = [f for f in answer["findings"] if f["path"] == "fastpath/kernel.cu"]
    assert inactive and all(f.get("inactive") for f in inactive)


def test_port_says_which_configuration_it_judged(tmp_path):
    _fastpath(tmp_path, ["-DUSE_FAST_PATH"])
    answer = tools.port(Root(tmp_path), "fastpath")
    assert answer["build"]["reader"] == "compile-db" and not answer["build"]["guessed"]


@pytest.mark.parametrize("tool,args", [("audit", {"path": "."}), ("port", {"path": "."})])
def test_executing_build_modes_need_allow_exec(tmp_path, tool, args):
    (tmp_path / "k.cu").write_text("__global__ void k() {}\n")
    (tmp_path / "Makefile").write_text("$(shell touch ran-make)\nall:\n\tnvcc -DX -c k.cu\n")

    async def call():
        return await build_server(Root(str(tmp_path))).call_tool(tool, {**args, "build": "make"})

    from mcp.server.mcpserver.exceptions import ToolError

    with pytest.raises(ToolError, match="--allow-exec"):
        anyio.run(call)
    assert not (tmp_path / "ran-make").exists()


def test_unknown_build_mode_is_a_usage_error(tmp_path):
    from vado.errors import UsageError

    with pytest.raises(UsageError, match="unknown build mode"):
        tools.audit(Root(tmp_path), ".", build="ninja")
