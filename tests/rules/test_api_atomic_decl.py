"""API008: a program's own __device__ atomics that HIP's amd_hip_atomic.h already defines."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from vado.knowledge.targets import get_target
from vado.model import Verdict
from vado.model.text import decode_source, encode_source
from vado.port.apply import apply_edits
from vado.rules.api_decl import HIP_ATOMIC_OVERLOADS
from vado.rules.engine import check_text

ROCM72 = get_target("rocm-7.2")
HIP52 = get_target("hip-5.2")
ROCM72_INCLUDE = Path(os.environ.get("VADO_ROCM72_INCLUDE", "/var/cache/vado/rocm-7.2.4/root/usr/include"))
HIP52_ATOMIC = Path("/usr/include/hip/amd_detail/amd_hip_atomic.h")
_DEF = re.compile(r"^(?:__device__\s+inline\s+)?([a-z ]+?)\s+(atomic(?:Add|Sub|Exch|Min|Max))\(\s*([a-z ]+?)\s*\*\s*\w+,"
                  r"\s*([a-z ]+?)\s+\w+\)\s*\{", re.M)


def api008(text: str, targets=(ROCM72,)):
    return [f for f in check_text("k.cu", text, targets) if f.code == "API008"]


def _header_overloads(path: Path) -> set[tuple[str, str]]:
    text = path.read_text(encoding="latin-1")
    return {(m.group(2), m.group(3)) for m in _DEF.finditer(text) if m.group(3) == m.group(4)}


@pytest.mark.skipif(not (ROCM72_INCLUDE / "hip/amd_detail/amd_hip_atomic.h").is_file(), reason="ROCm 7.2.4 headers not present")
def test_table_is_what_rocm_724_defines():
    assert set(HIP_ATOMIC_OVERLOADS) == _header_overloads(ROCM72_INCLUDE / "hip/amd_detail/amd_hip_atomic.h")


@pytest.mark.skipif(not HIP52_ATOMIC.is_file(), reason="HIP 5.2 headers not present")
def test_rows_since_52_are_in_hip_52():
    in_52 = _header_overloads(HIP52_ATOMIC)
    assert {k for k, since in HIP_ATOMIC_OVERLOADS.items() if since == "5.2"} <= in_52
    assert {k for k, since in HIP_ATOMIC_OVERLOADS.items() if since != "5.2"}.isdisjoint(in_52)


MIN_FLOAT = ("__device__ __forceinline__\nfloat atomicMin(float *addr, float value)\n{\n"
             "  unsigned *p = (unsigned *)addr; unsigned r = *p;\n"
             "  while (value < __uint_as_float(r)) { unsigned o = r; if ((r = atomicCAS(p, o, __float_as_uint(value))) == o) break; }\n"
             "  return __uint_as_float(r);\n}\n")


def test_guard_fix_keeps_the_definition_for_other_platforms_and_is_stable():
    found = api008(MIN_FLOAT)
    assert len(found) == 1 and found[0].fix is not None
    assert found[0].verdicts == {"rocm-7.2": Verdict.AUTOMATIC}
    out = decode_source(apply_edits(encode_source(MIN_FLOAT), list(found[0].fix.edits)))
    assert out.startswith("// vado: HIP already defines atomicMin(float*, float)")
    assert "#if !defined(__HIP_PLATFORM_AMD__)\n__device__ __forceinline__\nfloat atomicMin" in out
    assert out.endswith("return __uint_as_float(r);\n}\n#endif\n")
    assert api008(out) == []


def test_long_long_minimum_only_where_hip_defines_it():
    code = "__device__ long long atomicMin(long long* a, long long v) { return *a; }\n"
    assert len(api008(code, (ROCM72,))) == 1
    assert api008(code, (HIP52,)) == []
    assert len(api008(MIN_FLOAT, (HIP52,))) == 1


@pytest.mark.parametrize("code", [
    "__device__ float atomicMin(const float* a, float v) { return v; }",
    "__device__ float atomicMin(float* a, double v) { return v; }",
    "__device__ float atomicMin(float** a, float v) { return v; }",
    "template <class T> __device__ T atomicMin(T* a, T v) { return v; }",
    "struct S { __device__ float atomicMin(float* a, float v) { return v; } };",
    "__device__ float atomicAnd(float* a, float v) { return v; }",
])
def test_other_signatures_are_not_reported(code):
    assert api008(code) == []


def test_no_finding_without_a_rocm_target():
    assert api008(MIN_FLOAT, (get_target("scale"),)) == []
