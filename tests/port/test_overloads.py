"""vado.port.overloads: CUDA 12/13 location overloads and ``dim3 = make_uint3(...)``."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from vado.knowledge.targets import get_target
from vado.port.file import port_bytes
from vado.port.overloads import LOCATION_OVERLOADS, dim3_assign_fixes, location_overload_fixes, yield_to
from vado.model import Applicability, Edit, Fix
from vado.scan.classify import FileKind
from vado.scan.lexer import lex

ROCM72 = get_target("rocm-7.2")
HIP52 = get_target("hip-5.2")
ROCM72_INCLUDE = Path(os.environ.get("VADO_ROCM72_INCLUDE", "/var/cache/vado/rocm-7.2.4/root/usr/include"))


def port(code: str, target=ROCM72) -> str:
    return port_bytes("k.cu", FileKind.CUDA_SOURCE, code.encode(), target).after.decode()


def body(code: str, target=ROCM72) -> str:
    """The ported function body only (without the inserted helpers)."""
    out = port(code, target)
    return out[out.index("void f("):]


HEAD = "#include <cuda_runtime.h>\n"


@pytest.mark.parametrize("call, expected", [
    ("cudaMemPrefetchAsync(p, n, dev);", "hipMemPrefetchAsync(p, n, dev);"),
    ("cudaMemPrefetchAsync(p, n, dev, s);", "hipMemPrefetchAsync(p, n, dev, s);"),
    ("cudaMemPrefetchAsync(p, n, 0, s);", "hipMemPrefetchAsync(p, n, 0, s);"),
    ("cudaMemPrefetchAsync(p, n, cudaCpuDeviceId, s);", "hipMemPrefetchAsync(p, n, hipCpuDeviceId, s);"),
    ("cudaMemPrefetchAsync(p, n, loc, 0);", "hipMemPrefetchAsync_v2(p, n, loc, 0);"),
    ("cudaMemPrefetchAsync(p, n, loc, 0, s);", "hipMemPrefetchAsync_v2(p, n, loc, 0, s);"),
    ("cudaMemPrefetchAsync(p, n, b.l, 0);", "vado_hipMemPrefetchAsync(p, n, b.l, 0);"),
    ("cudaMemAdvise(p, n, cudaMemAdviseSetReadMostly, dev);", "hipMemAdvise(p, n, hipMemAdviseSetReadMostly, dev);"),
    ("cudaMemAdvise(p, n, cudaMemAdviseSetAccessedBy, loc);", "hipMemAdvise_v2(p, n, hipMemAdviseSetAccessedBy, loc);"),
    ("cudaMemAdvise(p, n, cudaMemAdviseSetAccessedBy, b.l);", "vado_hipMemAdvise(p, n, hipMemAdviseSetAccessedBy, b.l);"),
])
def test_each_call_gets_the_hip_function_of_its_form(call, expected):
    code = HEAD + ("struct B { cudaMemLocation l; };\n"
                   "void f(float* p, size_t n, int dev, cudaStream_t s, B b) {\n"
                   "  cudaMemLocation loc = {cudaMemLocationTypeDevice, dev};\n  " + call + "\n}\n")
    assert expected in body(code)


def test_helper_is_inserted_once_only_when_a_call_needs_it_and_porting_again_changes_nothing():
    code = HEAD + ("void f(float* p, size_t n, cudaMemLocation* l, int* d) {\n"
                   "  cudaMemPrefetchAsync(p, n, *l, 0);\n  cudaMemPrefetchAsync(p, n, *d, 0);\n}\n")
    out = port(code)
    assert out.count("#define VADO_HIPMEMPREFETCHASYNC") == 1
    assert out.count("vado_hipMemPrefetchAsync(p, n,") == 2
    assert "VADO_HIPMEMADVISE" not in out
    assert port(out) == out
    plain = port(HEAD + "void f(float* p, size_t n, int dev) { cudaMemPrefetchAsync(p, n, dev); }\n")
    assert "vado_" not in plain and "hipMemPrefetchAsync(p, n, dev)" in plain


def test_hip_name_with_five_arguments_becomes_v2_and_four_stay():
    code = ("#include <hip/hip_runtime.h>\nvoid f(float* p, size_t n, int dev, hipMemLocation loc, hipStream_t s) {\n"
            "  hipMemPrefetchAsync(p, n, loc, 0, s);\n  hipMemPrefetchAsync(p, n, dev, s);\n}\n")
    out = port(code)
    assert "hipMemPrefetchAsync_v2(p, n, loc, 0, s);" in out
    assert "hipMemPrefetchAsync(p, n, dev, s);" in out


def test_targets_without_the_location_forms_are_left_to_the_rename():
    code = HEAD + "void f(float* p, size_t n, cudaMemLocation loc) { cudaMemPrefetchAsync(p, n, loc, 0); }\n"
    assert location_overload_fixes("k.cu", code, lex(code), HIP52) == []
    assert location_overload_fixes("k.cu", code, lex(code), get_target("scale")) == []


def test_members_and_declarations_are_not_calls():
    code = ("struct S { int cudaMemAdvise(int, int, int, int); };\n"
            "void f(S s, S* t) { s.cudaMemAdvise(1, 2, 3, 4); t->cudaMemAdvise(1, 2, 3, 4); }\n")
    assert location_overload_fixes("k.cu", code, lex(code), ROCM72) == []


def test_yield_to_drops_only_renames_of_claimed_tokens():
    mine = Fix((Edit("k.cu", 0, 0, "helper\n"), Edit("k.cu", 10, 22, "vado_x")), Applicability.SAFE, "o", ("overload",))
    rename = Fix((Edit("k.cu", 10, 22, "hipX"),), Applicability.SAFE, "r", ("rename", "runtime"))
    other_rename = Fix((Edit("k.cu", 30, 35, "hipY"),), Applicability.SAFE, "r2", ("rename", "runtime"))
    not_rename = Fix((Edit("k.cu", 10, 22, "z"),), Applicability.SAFE, "h", ("helper",))
    assert yield_to([rename, other_rename, not_rename], [mine]) == [other_rename, not_rename]
    assert yield_to([rename], []) == [rename]


@pytest.mark.skipif(not (ROCM72_INCLUDE / "hip" / "hip_runtime_api.h").is_file(), reason="ROCm 7.2.4 headers not present")
def test_helpers_call_functions_rocm_724_declares_with_these_parameters():
    text = (ROCM72_INCLUDE / "hip" / "hip_runtime_api.h").read_text(encoding="latin-1")
    flat = re.sub(r"\s+", " ", text)
    assert "hipError_t hipMemPrefetchAsync(const void* dev_ptr, size_t count, int device, hipStream_t stream __dparm(0));" in flat
    assert ("hipError_t hipMemPrefetchAsync_v2(const void* dev_ptr, size_t count, hipMemLocation location, "
            "unsigned int flags, hipStream_t stream __dparm(0));") in flat
    assert "hipError_t hipMemAdvise(const void* dev_ptr, size_t count, hipMemoryAdvise advice, int device);" in flat
    assert ("hipError_t hipMemAdvise_v2(const void* dev_ptr, size_t count, hipMemoryAdvise advice, "
            "hipMemLocation location);") in flat
    for o in LOCATION_OVERLOADS.values():
        assert f"return {o.device_form}(" in o.code and f"return {o.location_form}(" in o.code


# --------------------------------------------------------------------------- dim3

def test_make_uint3_into_a_dim3_or_a_launch_becomes_dim3():
    code = HEAD + ("__global__ void k() {}\n"
                   "void f(unsigned b) {\n  dim3 grid, block(64);\n  grid = make_uint3(b, 1, 1);\n"
                   "  const dim3 g2 = make_uint3(2, 1, 1);\n  k<<<make_uint3(b, 1, 1), make_uint3(32, 1, 1), 0>>>();\n"
                   "  k<<<grid, block>>>();\n}\n")
    out = port(code)
    assert "grid = dim3(b, 1, 1);" in out
    assert "const dim3 g2 = dim3(2, 1, 1);" in out
    assert "k<<<dim3(b, 1, 1), dim3(32, 1, 1), 0>>>();" in out
    assert port(out) == out


def test_make_uint3_elsewhere_is_left_alone():
    code = HEAD + ("struct P { uint3 grid; };\n__global__ void k(uint3 u) {}\n"
                   "void f(P* p, unsigned b) {\n  dim3 grid;\n  uint3 u = make_uint3(b, 1, 1);\n"
                   "  u = make_uint3(1, 2, 3);\n  p->grid = make_uint3(1, 1, 1);\n"
                   "  k<<<grid, 64>>>(make_uint3(1, 2, 3));\n}\n")
    assert dim3_assign_fixes("k.cu", code, lex(code), ROCM72) == []
    assert dim3_assign_fixes("k.cu", code, lex(code), get_target("scale")) == []


def test_a_name_also_declared_as_a_reference_decides_nothing():
    code = HEAD + ("void g(const cudaMemLocation& loc, float* p, size_t n) { cudaMemPrefetchAsync(p, n, loc, 0); }\n"
                   "void f(float* p, size_t n, int loc) { cudaMemPrefetchAsync(p, n, loc, 0); }\n")
    out = port(code)
    assert out.count("vado_hipMemPrefetchAsync(p, n, loc, 0);") == 2
