"""API006 (hipBLAS half arguments) and API007 (operators HIP's vector types already declare)."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from vado.knowledge.targets import get_target
from vado.model import Applicability, Verdict
from vado.model.text import decode_source, encode_source
from vado.port.apply import apply_edits
from vado.port.translate import rename_map
from vado.rules.api_decl import (
    CUBLAS_HALF_FUNCTIONS,
    HIP_FRIEND_BINARY,
    HIP_MEMBER_COMPOUND,
    HIPBLAS_HALF_FUNCTIONS,
    PREFERRED,
    operator_defs,
    vector_type,
)
from vado.rules.cuda_syntax import DeviceView
from vado.rules.engine import check_text
from vado.scan.lexer import Kind, lex

ROCM72 = get_target("rocm-7.2")
HIP52 = get_target("hip-5.2")
SCALE = get_target("scale")
ROCM72_INCLUDE = Path(os.environ.get("VADO_ROCM72_INCLUDE", "/var/cache/vado/rocm-7.2.4/root/usr/include"))


def findings(code: str, text: str, targets=(ROCM72,), name: str = "k.cu"):
    return [f for f in check_text(name, text, targets) if f.code == code]


def fixed(text: str, found) -> str:
    edits = [e for f in found if f.fix is not None for e in f.fix.edits]
    return decode_source(apply_edits(encode_source(text), edits))


# --------------------------------------------------------------------------- API006

def test_half_names_follow_the_api_table():
    names = rename_map(ROCM72)
    assert {k for k, r in names.items() if r.new in HIPBLAS_HALF_FUNCTIONS} == CUBLAS_HALF_FUNCTIONS


@pytest.mark.skipif(not (ROCM72_INCLUDE / "hipblas" / "hipblas.h").is_file(), reason="ROCm 7.2.4 headers not present")
def test_half_functions_are_those_rocm_724_declares_with_hipblasHalf():
    text = (ROCM72_INCLUDE / "hipblas" / "hipblas.h").read_text(encoding="latin-1")
    declared = {m.group(1) for m in re.finditer(r"HIPBLAS_EXPORT\s+hipblasStatus_t\s+(\w+)\s*\(([^;]*)\);", text)
                if "hipblasHalf" in m.group(2)}
    assert declared == HIPBLAS_HALF_FUNCTIONS
    assert re.search(r"#if __cplusplus < 201103L \|\| !defined\(HIPBLAS_USE_HIP_HALF\)\s+typedef uint16_t hipblasHalf;", text)


HGEMM = "cublasHgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &al, a, n, b, n, &be, c, n);"


def test_half_define_goes_before_the_first_include():
    text = f'#include <cstdio>\n#include "util.h"\n#include <cublas_v2.h>\nvoid f() {{ {HGEMM} }}\n'
    (f,) = findings("API006", text)
    assert f.fix.applicability is Applicability.SAFE and f.verdicts == {"rocm-7.2": Verdict.AUTOMATIC}
    out = fixed(text, [f])
    assert out.startswith("// vado: hipBLAS takes __half")
    assert out.index("#define HIPBLAS_USE_HIP_HALF") < out.index("#include <cstdio>")
    assert findings("API006", out) == []  # the define is there: nothing left


def test_half_define_follows_the_conditions_of_the_blas_include():
    text = f'#ifdef USE_BLAS\n#include <cstdio>\n#endif\n  #include <cublas_v2.h>\nvoid f() {{ {HGEMM} }}\n'
    out = fixed(text, findings("API006", text))
    assert out.index("#endif\n") < out.index("#ifndef HIPBLAS_USE_HIP_HALF") < out.index("  #include <cublas_v2.h>")
    guarded = f'#ifndef LIB_H\n#define LIB_H\n#include <cstdio>\n#include <hipblas/hipblas.h>\nvoid f() {{ hipblasHgemm(h); }}\n#endif\n'
    out = fixed(guarded, findings("API006", guarded, name="lib.cuh"))
    assert out.index("#include <cstdio>") < out.index("#define HIPBLAS_USE_HIP_HALF") < out.index("#include <hipblas/hipblas.h>")


def test_half_without_a_blas_include_or_an_old_target_gets_no_fix():
    (f,) = findings("API006", f"void f() {{ {HGEMM} }}\n", name="lib.cuh")
    assert f.fix is None and "-DHIPBLAS_USE_HIP_HALF" in f.message and f.verdicts == {"rocm-7.2": Verdict.MANUAL}
    (old,) = findings("API006", f"#include <cublas_v2.h>\nvoid f() {{ {HGEMM} }}\n", targets=(HIP52,))
    assert old.fix is None and "cast the arguments" in old.message


def test_half_is_silent_where_nothing_changes():
    assert findings("API006", f"#define HIPBLAS_USE_HIP_HALF\n#include <cublas_v2.h>\nvoid f() {{ {HGEMM} }}\n") == []
    assert findings("API006", f"#include <cublas_v2.h>\nvoid f() {{ {HGEMM} }}\n", targets=(SCALE,)) == []
    assert findings("API006", "#include <cublas_v2.h>\nvoid f(W& w) { w.cublasHgemm(1); }\n") == []


# --------------------------------------------------------------------------- API007

def _defs(text: str):
    return operator_defs(DeviceView(text, [t for t in lex(text) if t[0] is not Kind.COMMENT]))


def test_vector_type_names():
    assert vector_type("float4") == ("float", 4) and vector_type("ulonglong2") == ("ulonglong", 2)
    assert vector_type("float5") is None and vector_type("Vec4") is None and vector_type("float") is None


def test_operator_defs_tell_duplicates_from_other_meanings():
    text = """
inline __device__ void operator+=(float4 &a, float4 b) { a.x += b.x; a.y += b.y; a.z += b.z; a.w += b.w; }
inline __device__ void operator+=(float4 &a, float4 b, int c) { }
inline __device__ void operator-=(float3 &a, float3 b) { a.x -= b.x; a.y -= b.y; }
inline __device__ float2 operator*(float2 a, float2 b) { return make_float2(b.x * a.x, a.y * b.y); }
inline __device__ float2 operator/(float2 a, float2 b) { return make_float2(b.x / a.x, b.y / a.y); }
inline __device__ int2 operator*(int2 a, int2 b) { return make_float2(a.x * b.x, a.y * b.y); }
inline __device__ void operator*=(uint2 &a, uint2 &b) { a.x *= b.x; a.y *= b.y; }
inline __device__ void operator/=(const double2 &a, double2 b) { }
template <typename T> inline __device__ float4 operator*(float4 a, float4 b) { return a; }
namespace ops { inline __device__ void operator*=(float2 &a, float2 b) { a.x *= b.x; a.y *= b.y; } }
inline __device__ ulong2 operator*(const ulong2 &a, const ulong2 &b) { return {a.x * b.x, a.y * b.y}; }
inline __device__ int2 operator/(int2 a, int2 b) { if (b.x) { return make_int2(a.x / b.x, a.y / b.y); } return a; }
struct S { float4 v; __device__ void operator+=(float4 b) { v.x += b.x; } };
"""
    got = [(d.op, d.vtype, d.duplicate) for d in _defs(text)]
    assert got == [
        ("+=", "float4", True),
        ("-=", "float3", False),   # misses z: not what HIP computes
        ("*", "float2", True),     # IEEE multiplication commutes
        ("/", "float2", False),    # b / a is another quotient
        ("*", "int2", False),      # make_float2 builds another type
        ("*=", "float2", True),    # inside a namespace: still a free function
        ("*", "ulong2", True),     # a braced initialiser of the return type
        ("/", "int2", False),      # a block statement: not a plain copy
    ]
    assert set(HIP_MEMBER_COMPOUND) == {"+=", "-=", "*=", "/="} and HIP_FRIEND_BINARY == {"*", "/"}


def test_guard_is_idempotent_and_groups_neighbours():
    text = """#include <cuda_runtime.h>
inline __device__ void operator+=(float4 &a, float4 b) { a.x += b.x; a.y += b.y; a.z += b.z; a.w += b.w; }
// between two definitions
inline __device__ float4 operator/(float4 a, float4 b) { return make_float4(a.x / b.x, a.y / b.y, a.z / b.z, a.w / b.w); }
inline __device__ float4 operator+(float4 a, float4 b) { return make_float4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w); }
inline __device__ void operator/=(short2 &a, short2 b) { a.x /= b.x; a.y /= b.y; }
"""
    first, second = findings("API007", text)
    assert first.fix.applicability is Applicability.SAFE and first.data["definitions"] == 2
    assert second.fix.applicability is Applicability.UNSAFE  # 16-bit division
    assert second.verdicts == {"rocm-7.2": Verdict.MANUAL}
    out = fixed(text, [first, second])
    assert out.count("#if !defined(__HIP_PLATFORM_AMD__)") == 2 and out.count("#endif") == 2
    assert "#endif\ninline __device__ float4 operator+" in out  # the template-dominated + stays outside
    assert findings("API007", out) == []


def test_operators_on_one_line_get_their_own_lines():
    text = "int x; inline void operator*=(float2 &a, float2 b) { a.x *= b.x; a.y *= b.y; } int y;\n"
    out = fixed(text, findings("API007", text))
    assert out == ("int x; \n// vado: HIP's vector types already define float2 operator*= with this meaning\n"
                   "#if !defined(__HIP_PLATFORM_AMD__)\ninline void operator*=(float2 &a, float2 b) { a.x *= b.x; a.y *= b.y; }"
                   "\n#endif\n int y;\n")


def test_other_meanings_keep_the_programs_operator_marked_preferred():
    # tgvnn's complex product on float2: kept, marked with clang's enable_if (through a macro), which
    # wins every tie with HIP's friend (HIP_vector_type, const HIP_vector_type&), const operands too.
    text = ("#include <cuda_runtime.h>\n"
            "inline __host__ __device__ float2 operator*(const float2 a, const float2 b)\n"
            "{\n    return make_float2(a.x*b.x - a.y*b.y, a.x*b.y + a.y*b.x);\n}\n"
            "inline __device__ void operator*=(float2 &a, const float2 b) { a = a * b; }\n"
            "inline __device__ float2 conj(float2 a) { return make_float2(a.x, -a.y); }\n"
            "inline __device__ float2 operator/(float2 a, float2 b) { return a * conj(b) * (1.0f / (b.x*b.x + b.y*b.y)); }\n")
    first, second = findings("API007", text)
    assert first.fix.applicability is Applicability.SAFE and first.verdicts == {"rocm-7.2": Verdict.AUTOMATIC}
    assert first.data["operators"] == ["float2 operator*", "float2 operator*="]  # neighbours: one finding
    assert second.data["operators"] == ["float2 operator/"]
    out = fixed(text, [first, second])
    assert out.count(f"#define {PREFERRED} __attribute__((enable_if(true,") == 2  # each fix stands alone
    assert out.count(f"#ifndef {PREFERRED}") == 2
    assert "inline __host__ __device__ float2 operator*(const float2 a, const float2 b) VADO_PREFERRED_OVER_HIP\n{" in out
    assert "inline __device__ void operator*=(float2 &a, const float2 b) VADO_PREFERRED_OVER_HIP { a = a * b; }" in out
    assert "operator/(float2 a, float2 b) VADO_PREFERRED_OVER_HIP {" in out
    assert out.index("// vado: HIP's vector types declare float2 operator*, float2 operator*=") < out.index("operator*(")
    assert findings("API007", out) == []  # the next round leaves marked definitions alone
    # Output of earlier releases (renamed, with vado_rhs forwarders) is left alone too.
    old = ("inline __device__ float2 vado_operator_mul_float2(const float2 a, const float2 b) { return a; }\n"
           "inline __device__ float2 operator*(const float2 a, float2& vado_rhs) { return vado_operator_mul_float2(a, vado_rhs); }\n")
    assert findings("API007", old) == []


def test_only_hip_targets_hear_about_it():
    text = "inline void operator+=(int2 &a, int2 b) { a.x += b.x; a.y += b.y; }\n"
    assert findings("API007", text, targets=(SCALE,)) == []
    assert len(findings("API007", text, targets=(HIP52,))) == 1


@pytest.mark.skipif(not (ROCM72_INCLUDE / "hip" / "amd_detail" / "amd_hip_vector_types.h").is_file(),
                    reason="ROCm 7.2.4 headers not present")
def test_non_template_operators_are_those_rocm_724_declares():
    text = (ROCM72_INCLUDE / "hip" / "amd_detail" / "amd_hip_vector_types.h").read_text(encoding="latin-1")
    body = text[text.index("struct HIP_vector_type : public HIP_vector_base"):]
    body = body[:body.index("\n};")]
    # Members taking the vector whose declaration has no template header: += -= *= /=.
    plain = set()
    for m in re.finditer(r"__HOST_DEVICE__ HIP_vector_type& operator(\S+?)\(const HIP_vector_type& x\)", body):
        head = body[body.rfind("\n\n", 0, m.start()):m.start()]  # the declaration's own lines
        if "template" not in head:
            plain.add(m.group(1))
    assert plain == set(HIP_MEMBER_COMPOUND)
    assert set(re.findall(r"friend __HOST_DEVICE__ inline constexpr HIP_vector_type operator(\S)\(", body)) == HIP_FRIEND_BINARY
