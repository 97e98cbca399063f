"""`vado audit` parsed without the Typer application gives what the Typer application gives."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from vado.cli import fastpath
from vado.cli.app import app
from vado.cli.audit import audit as audit_command

KERNEL = """#include <cuda_runtime.h>
__global__ void k(float* a) {
  int lane = threadIdx.x & 31;
  a[lane] += __shfl_down_sync(0xffffffff, a[lane], 16);
}
"""


@pytest.fixture
def src(tmp_path: Path) -> Path:
    (tmp_path / "k.cu").write_text(KERNEL)
    (tmp_path / "CMakeLists.txt").write_text("project(x LANGUAGES CXX CUDA)\n")
    return tmp_path


@pytest.mark.parametrize(
    "args",
    [
        ["{src}", "-f", "json"],
        ["{src}/k.cu", "--format=json", "--select", "WARP", "--fail-on", "high"],
        ["{src}", "-f", "sarif", "-t", "rocm-7.2", "--target", "oneapi", "--isolated"],
        ["{src}", "-f", "markdown", "--ignore", "WARP002", "--jobs", "1", "--no-suppressions"],
        ["{src}", "-f", "json", "--fail-on", "rocm-7.2:blocked", "--per-file-ignores", "*.cu:API"],
        ["{src}/nope.cu"],
        ["{src}", "-t", "rocm-99"],
        ["-f", "json", "--", "{src}/k.cu"],
    ],
)
def test_same_output_and_exit_code_as_typer(src: Path, args: list[str], capsys):
    argv = [a.format(src=src) for a in args]
    kwargs = fastpath.parse(audit_command, argv)
    assert kwargs["paths"] and kwargs["quiet"] is False
    code = fastpath.run("audit", ["-q", *argv])
    fast = capsys.readouterr()
    slow = CliRunner().invoke(app, ["audit", "-q", *argv])
    assert code == slow.exit_code
    out = fast.out
    if "-f" in argv and argv[argv.index("-f") + 1] in ("json", "sarif") or "--format=json" in argv:
        a, b = json.loads(out), json.loads(slow.stdout)
        for doc in (a, b):
            if "stats" in doc:
                doc["stats"].pop("duration_s")
            for run in doc.get("runs", ()):
                run["properties"]["stats"].pop("duration_s")
        assert a == b
    else:
        # The text report's first line holds the duration; the rest is the same.
        assert out.split("\n", 2)[2:] == slow.stdout.split("\n", 2)[2:]
    assert fast.err == slow.stderr


@pytest.mark.parametrize(
    "argv",
    [
        ["-h"],
        ["x.cu", "--help"],
        ["x.cu", "--unknown"],
        ["x.cu", "-f", "xml"],
        ["x.cu", "--jobs", "-1"],
        ["x.cu", "--jobs", "two"],
        ["x.cu", "-f", "json", "-f", "text"],
        ["x.cu", "--quiet=yes"],
        ["x.cu", "-o"],
        [],
    ],
)
def test_declines_what_typer_should_answer(argv: list[str]):
    assert fastpath.run("audit", argv) is None


def test_other_commands_are_left_to_typer():
    assert fastpath.run("port", ["x.cu"]) is None


def test_the_script_takes_the_fast_path_and_never_imports_pydantic(src: Path):
    code = ("import sys; from vado.cli.app import main; sys.argv = ['vado', 'audit', '-q', '-f', 'json', sys.argv[1]]\n"
            "try:\n    main()\nexcept SystemExit as e:\n    print('pydantic' in sys.modules, e.code, file=sys.stderr)")
    proc = subprocess.run([sys.executable, "-c", code, str(src / "k.cu")], capture_output=True, text=True)
    assert proc.stderr.strip().splitlines()[-1] == "False 1", proc.stderr
    assert json.loads(proc.stdout)["findings"]


def test_one_file_runs_with_the_collector_paused(src: Path, monkeypatch):
    import functools
    import gc

    from vado.cli import audit as audit_module

    seen: list[bool] = []
    real = audit_module.audit

    @functools.wraps(real)  # the same signature: the fast parser reads it
    def spy(**kwargs):
        seen.append(gc.isenabled())
        return real(**kwargs)

    monkeypatch.setattr(audit_module, "audit", spy)
    assert gc.isenabled()
    assert fastpath.run("audit", ["-q", "-f", "json", str(src / "k.cu")]) == 1
    assert fastpath.run("audit", ["-q", "-f", "json", str(src)]) == 1
    assert seen == [False, True]  # a directory may be large: its run keeps the collector
    assert gc.isenabled()
