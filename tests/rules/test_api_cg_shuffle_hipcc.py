"""API009's group shuffles of a vector type or a struct, against ROCm 7.2.4's hipcc (fixture
``tests/fixtures/API/API009-shuffle.cu``):

- HIP without vado's rewrite (the port with each ``vado_cg_shfl*(g, …)`` turned back into ``g.shfl*(…)``) fails
  to compile at exactly the lines the fixture's ``ruleid`` markers name (HIP's ``thread_block_tile::shfl*`` pass
  the value to ``__shfl*``, which has no overload for it) and at none of its ``ok`` lines;
- vado's port compiles except at the one call it reports and does not rewrite (a group that is not a plain name)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
from _compile_fixtures import require_compiler

from vado.knowledge.targets import get_target
from vado.port.compat.cg_shuffle import CG_SHUFFLE
from vado.port.tree import port_tree

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "API" / "API009-shuffle.cu"
_REJECTED = re.compile(rf"{re.escape(FIXTURE.name)}:(\d+):\d+: note: in instantiation of function template "
                       r"specialization '[^']*::shfl\w*<")


def _marked(lines: list[str], kind: str) -> set[int]:
    """1-based numbers of the lines after a ``// KIND: API009`` marker."""
    return {n + 2 for n, line in enumerate(lines) if re.search(rf"//\s*{kind}:\s*API009\b", line)}


def _rejected(compiler, source: Path, tmp_path: Path) -> tuple[set[int], str]:
    proc = subprocess.run([compiler.path, f"--offload-arch={compiler.archs[0]}", "-x", "hip", "-c", str(source),
                           "-o", str(tmp_path / f"{source.stem}.o")], capture_output=True, text=True, timeout=900)
    return {int(m.group(1)) for m in _REJECTED.finditer(proc.stderr)}, proc.stderr


@pytest.mark.hipcc
def test_hipcc_rejects_the_ruleid_lines_and_vados_port_only_the_one_it_reports(tmp_path: Path):
    compiler = require_compiler("rocm-7.2")
    src = tmp_path / "src"
    src.mkdir()
    (src / FIXTURE.name).write_bytes(FIXTURE.read_bytes())
    port_tree(src, tmp_path / "port", get_target("rocm-7.2"))
    ported = (tmp_path / "port" / FIXTURE.name).read_text(encoding="latin-1")
    assert len(re.findall(r"\bvado_cg_shfl\w*\(\w+, ", ported)) == 5 and CG_SHUFFLE in ported  # five calls, one block
    # The port without its rewrite: the block gone (as many lines kept), each call back on its group.
    undone = ported.replace(CG_SHUFFLE, "\n" * CG_SHUFFLE.count("\n"))
    undone = re.sub(r"\bvado_cg_(shfl\w*)\((\w+), ", r"\2.\1(", undone)
    bare = tmp_path / "bare" / FIXTURE.name
    bare.parent.mkdir()
    bare.write_text(undone, encoding="latin-1")
    lines = undone.splitlines()
    ruleid, ok = _marked(lines, "ruleid"), _marked(lines, "ok")
    assert len(ruleid) == 6 and len(ok) == 7
    failing, stderr = _rejected(compiler, bare, tmp_path)
    assert failing == ruleid and stderr.count("no matching function for call to '__shfl") == 6
    failing, stderr = _rejected(compiler, tmp_path / "port" / FIXTURE.name, tmp_path)
    assert failing == {n for n in ruleid if "hold.t.shfl_xor" in lines[n - 1]}
    assert stderr.count("error:") == 1
