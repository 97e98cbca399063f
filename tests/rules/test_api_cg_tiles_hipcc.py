"""API009's tiles whose size is a name, against ROCm 7.2.4's hipcc (fixture ``tests/fixtures/API/API009-tile-size.cu``):

vado's port of the fixture fails to compile at exactly the tiles vado reports with a size over 64 threads
(``static_assert``: "Tiled partition with size > wavefront size", or no ``tiled_partition`` for the instantiation),
at none of its ``ok`` lines; the one reported tile whose size vado cannot read (a template with no instantiation in
the file) compiles here but is reported, as its size is known only where it is instantiated."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
from _compile_fixtures import require_compiler

from vado.knowledge.targets import get_target
from vado.port.tree import port_tree

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "API" / "API009-tile-size.cu"


def _marked(lines: list[str], kind: str) -> set[int]:
    """1-based numbers of the lines after a ``// KIND: API009`` marker."""
    return {n + 2 for n, line in enumerate(lines) if re.search(rf"//\s*{kind}:\s*API009\b", line)}


@pytest.mark.hipcc
def test_hipcc_rejects_the_wide_tiles_vado_reports_and_no_ok_line(tmp_path: Path):
    compiler = require_compiler("rocm-7.2")
    src = tmp_path / "src"
    src.mkdir()
    (src / FIXTURE.name).write_bytes(FIXTURE.read_bytes())
    result = port_tree(src, tmp_path / "port", get_target("rocm-7.2"))
    ported = tmp_path / "port" / FIXTURE.name
    lines = ported.read_text(encoding="latin-1").splitlines()
    ruleid, ok = _marked(lines, "ruleid"), _marked(lines, "ok")
    assert len(ruleid) == 5 and len(ok) == 7
    left = [f for f in result.remaining if f.code == "API009"]
    assert {f.span.line for f in left} == ruleid  # the port claims nothing it cannot compile
    wide = {f.span.line for f in left if "threads (" in f.message}
    unread = {f.span.line for f in left if "could not read the size" in f.message}
    assert len(wide) == 4 and len(unread) == 1 and wide | unread == ruleid
    # WARP_SIZE comes from the build (lightseq's -I header), which vado does not read: 32, as CUDA's warp
    proc = subprocess.run([compiler.path, f"--offload-arch={compiler.archs[0]}", "-DWARP_SIZE=32", "-x", "hip", "-c", str(ported),
                           "-o", str(tmp_path / "k.o")], capture_output=True, text=True, timeout=900)
    assert proc.returncode != 0
    name = re.escape(FIXTURE.name)
    rejected = {int(m.group(1)) for m in re.finditer(
        rf"{name}:(\d+):\d+: (?:note: in instantiation of function template specialization "
        rf"'cooperative_groups::tiled_partition<|error: no matching function for call to 'tiled_partition')",
        proc.stderr)}
    assert rejected == wide and not rejected & ok, proc.stderr
