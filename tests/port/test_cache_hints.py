"""Cache-hinted loads and stores (issue 25): what the port's helpers compile to on gfx942 and gfx950.

``PORT/cache-hints-types`` instantiates one kernel per CUDA function (``__ldcs`` … ``__stwt``) for every
type CUDA declares them for. ROCm 7.2.4's hipcc writes the assembly of its port, and each kernel's
memory instructions must be what :mod:`vado.port.cache_hints` promises: the ``nt`` bit on the
streaming accesses (``__ldcs``, ``__ldlu``, ``__stcs``), ``sc0 sc1`` (uncached, system scope) on
``__ldcv``'s load, neither on the plain ones.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
from _compile_fixtures import ROCM_ARCHS, require_compiler

from vado.port.cache_hints import ACCESS, CACHE_HINTS, helper_code, prelude

FIXED = Path(__file__).resolve().parents[1] / "fixtures" / "PORT" / "cache-hints-types.fixed.hip"
TYPES = 34  # CUDA's list: 11 scalars, 14 vector types, float/float2/float4/double/double2, 2 half and 2 bfloat16 types
_SYMBOL = re.compile(r"^(_Z\w+):")
_MEMORY = re.compile(r"^\s+(?:global|flat|buffer)_(load|store)\w*\s+(.*)$")


def test_every_hint_has_an_access():
    assert set(ACCESS) == set(CACHE_HINTS)
    for name, access in ACCESS.items():
        code = helper_code(name)
        assert ("vado_cache::" in code) is (access != "plain"), name
        assert bool(prelude(name)) is (access != "plain"), name
        if access != "plain":  # HIP on NVIDIA (nvcc has no such builtins): the plain access
            assert code.startswith("#if defined(__HIP_PLATFORM_NVIDIA__)\n"), name


def _kernels(asm: str) -> dict[str, list[tuple[str, str]]]:
    """``{symbol: [(load|store, operands)]}`` of each function in the assembly."""
    out: dict[str, list[tuple[str, str]]] = {}
    current = None
    for line in asm.splitlines():
        m = _SYMBOL.match(line)
        if m:
            current = m.group(1)
            out[current] = []
            continue
        m = _MEMORY.match(line)
        if m and current is not None:
            out[current].append((m.group(1), m.group(2)))
    return out


@pytest.mark.hipcc
@pytest.mark.parametrize("arch", ROCM_ARCHS)
def test_helpers_compile_to_the_access_each_hint_asks_for(arch: str, tmp_path: Path):
    compiler = require_compiler("rocm-7.2")
    out = tmp_path / f"hints-{arch}.s"
    proc = subprocess.run([compiler.path, "-x", "hip", f"--offload-arch={arch}", "--cuda-device-only", "-O3", "-S",
                           str(FIXED), "-o", str(out)], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-4000:]
    kernels = _kernels(out.read_text())
    for name, access in ACCESS.items():
        mine = {s: ops for s, ops in kernels.items() if f"k{name}I" in s}
        assert len(mine) == TYPES, (name, sorted(mine))
        for symbol, ops in mine.items():
            side = "load" if name.startswith("__ld") else "store"
            hinted = [o for kind, o in ops if kind == side]
            others = [o for kind, o in ops if kind != side]
            assert hinted and others, (symbol, ops)
            for operands in hinted:
                words = operands.replace(",", " ").split()
                if access == "nontemporal":
                    assert "nt" in words, (symbol, operands)
                elif access == "volatile":
                    assert {"sc0", "sc1"} <= set(words), (symbol, operands)
                else:
                    assert not {"nt", "sc0", "sc1"} & set(words), (symbol, operands)
            for operands in others:  # the kernel's other access is a plain one
                assert not {"nt", "sc0", "sc1"} & set(operands.replace(",", " ").split()), (symbol, operands)
    # __ldcv in a polling loop stays in the loop: a load before the branch back, uncached.
    (wait,) = [ops for s, ops in kernels.items() if "wait_flag" in s]
    assert any(kind == "load" and {"sc0", "sc1"} <= set(o.replace(",", " ").split()) for kind, o in wait)
