"""The concise report: a line per finding (path:line:col: CODE …), a line per target, without rich."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from vado.audit import audit
from vado.knowledge.targets import get_target
from vado.report import FORMATS, render
from vado.report.concise import display_path

SRC = """#include <cuda_runtime.h>
__global__ void k(int* out, int v) {
  out[threadIdx.x] = __any_sync(0xffffffff, v);
}
"""


def test_a_line_per_finding_then_a_line_per_target(tmp_path: Path, monkeypatch):
    (tmp_path / "k.cu").write_text(SRC)
    monkeypatch.chdir(tmp_path)
    result = audit("k.cu", [get_target("rocm-7.2"), get_target("scale")])
    lines = render(result, "concise").splitlines()
    assert "concise" in FORMATS
    found = [line for line in lines if line.startswith("k.cu:")]
    assert len(found) == len(result.findings) >= 2
    include = next(line for line in found if line.startswith("k.cu:1:10: API005 info <cuda_runtime.h>"))
    assert include.endswith("[rocm-7.2: moves with automatic edits]")  # SCALE takes it as is: not named
    assert any(" WARP" in line and "(fix: safe)" in line for line in found)
    assert lines[-3].startswith("rocm-7.2: ") and lines[-2].startswith("scale: moves as is")
    assert lines[-1] == f"1 files, {len(result.findings)} findings, 0 skipped"


def test_paths_are_the_files_as_given():
    assert display_path("src/k.cu", "k.cu") == "src/k.cu"  # a one-file audit: the root is the file
    assert display_path("src", "a/k.cu") == os.path.join("src", "a/k.cu")
    here = os.getcwd()
    assert display_path(here, "a/k.cu") == os.path.join("a", "k.cu")  # several files: relative to the root
    assert display_path("/elsewhere/x", "k.cu") == "/elsewhere/x/k.cu"
    # `vado audit .` (outside a git repository, where CI formats fall back to these paths): no `./` before them.
    assert display_path(".", "k.cu") == "k.cu" and display_path("./src", "a/k.cu") == os.path.join("src", "a", "k.cu")
    assert display_path("..", "k.cu") == os.path.join("..", "k.cu")


def test_the_concise_audit_does_not_import_rich(tmp_path: Path):
    (tmp_path / "k.cu").write_text(SRC)
    code = ("import sys, runpy; sys.argv = ['vado', 'audit', sys.argv[1], '-q', '-f', 'concise']\n"
            "try:\n    runpy.run_module('vado', run_name='__main__')\nexcept SystemExit as e:\n    code = e.code\n"
            "assert 'rich' not in sys.modules, 'rich imported'\nprint('exit', code)\n")
    done = subprocess.run([sys.executable, "-c", code, str(tmp_path / "k.cu")], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.rstrip().endswith("exit 1") and ": API005 info" in done.stdout
