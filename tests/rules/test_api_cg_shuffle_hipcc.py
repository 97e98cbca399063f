"""API009's group shuffles of a vector type or a struct, against ROCm 7.2.4's hipcc: vado's port of the fixture
``tests/fixtures/API/API009-shuffle.cu`` fails to compile at exactly the lines its ``ruleid`` markers name
(HIP's ``thread_block_tile::shfl*`` pass the value to ``__shfl*``, which has no overload for it) and at none of
its ``ok`` lines (scalars, ``__half2``, a vector's component, a struct's scalar member)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
from _compile_fixtures import require_compiler

from vado.knowledge.targets import get_target
from vado.port.tree import port_tree

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "API" / "API009-shuffle.cu"


def _marked(lines: list[str], kind: str) -> set[int]:
    """1-based numbers of the lines after a ``// KIND: API009`` marker."""
    return {n + 2 for n, line in enumerate(lines) if re.search(rf"//\s*{kind}:\s*API009\b", line)}


@pytest.mark.hipcc
def test_hipcc_rejects_the_ruleid_lines_and_only_those(tmp_path: Path):
    compiler = require_compiler("rocm-7.2")
    src = tmp_path / "src"
    src.mkdir()
    (src / FIXTURE.name).write_bytes(FIXTURE.read_bytes())
    port_tree(src, tmp_path / "port", get_target("rocm-7.2"))
    ported = tmp_path / "port" / FIXTURE.name
    lines = ported.read_text(encoding="latin-1").splitlines()
    rejected, accepted = _marked(lines, "ruleid"), _marked(lines, "ok")
    assert len(rejected) == 5 and len(accepted) == 7
    proc = subprocess.run([compiler.path, f"--offload-arch={compiler.archs[0]}", "-x", "hip", "-c", str(ported),
                           "-o", str(tmp_path / "k.o")], capture_output=True, text=True, timeout=600)
    assert proc.returncode != 0
    # Each rejected shuffle: "no matching function for call to '__shfl…'" in HIP's header, "requested here" at the call.
    failing = {int(m.group(1)) for m in re.finditer(rf"{re.escape(FIXTURE.name)}:(\d+):\d+: note: in instantiation of "
                                                     r"function template specialization '[^']*::shfl\w*<", proc.stderr)}
    assert proc.stderr.count("no matching function for call to '__shfl") == len(rejected)
    assert failing == rejected
