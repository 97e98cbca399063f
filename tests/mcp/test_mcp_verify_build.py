"""The MCP verify tool reads the root's compile database for each file's flags, and runs no build
logic unless asked (``build="make"``)."""

import json

from vado.agent import verify as agent_verify
from vado.mcp import tools
from vado.mcp.root import Root
from vado.model import Evidence


def _capture(monkeypatch):
    seen = []

    def fake(src, **kw):
        seen.append((src.name, kw.get("tu")))
        return Evidence(kind="compile", subject=src.name, passed=True)

    monkeypatch.setattr(agent_verify, "compile_hip", fake)
    return seen


def test_compile_db_flags_are_used_and_nothing_runs(tmp_path, monkeypatch):
    seen = _capture(monkeypatch)
    (tmp_path / "k.hip").write_text("__global__ void k() {}\n")
    (tmp_path / "Makefile").write_text("$(shell touch ran-make)\nall:\n\thipcc -DFROM_MAKE -c k.hip\n")
    answer = tools.verify(Root(tmp_path), "k.hip", archs=["gfx942"])  # one compile per arch
    assert seen == [("k.hip", None)] and answer["build"]["guessed"] and answer["build"]["ran"] == []
    assert not (tmp_path / "ran-make").exists()
    (tmp_path / "compile_commands.json").write_text(json.dumps(
        [{"directory": str(tmp_path), "file": "k.hip", "command": "hipcc -DFROM_DB -c k.hip -o k.o"}]))
    seen.clear()
    answer = tools.verify(Root(tmp_path), "k.hip", archs=["gfx942"])  # one compile per arch
    ((name, tu),) = seen
    assert tu is not None and tu.defines == ("FROM_DB",) and answer["build"]["reader"] == "compile-db"


def test_make_only_when_asked(tmp_path, monkeypatch):
    seen = _capture(monkeypatch)
    (tmp_path / "k.hip").write_text("__global__ void k() {}\n")
    (tmp_path / "Makefile").write_text("all:\n\thipcc -DFROM_MAKE -c k.hip -o k.o\n")
    answer = tools.verify(Root(tmp_path), "k.hip", archs=["gfx942"], build="make")
    ((_, tu),) = seen
    assert tu.defines == ("FROM_MAKE",) and answer["build"]["ran"] == ["make -n -B -k in ."]
