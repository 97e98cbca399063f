"""Local definitions for CUDA functions a HIP target lacks (vado.port.compat): placement, gating, semantics."""

from __future__ import annotations

import random
import shutil
import subprocess
from pathlib import Path

import pytest

from vado.knowledge.targets import get_target
from vado.model import Applicability
from vado.port.apply import fixpoint
from vado.port.compat import (
    SIMD_MINMAX,
    cg_reduce_fixes,
    insertion_offsets,
    local_helper_fixes,
    local_helpers,
    scale_type_fixes,
    solve_buffer_fixes,
)
from vado.scan.lexer import tokenize

ROCM = get_target("rocm-7.2")
HIP52 = get_target("hip-5.2")


def port(src: str, target=HIP52) -> str:
    return fixpoint(src, lambda t: local_helper_fixes("k.cu", t, tokenize(t), target)).text


def offsets_of(src: str, name: str) -> list[int]:
    toks = tokenize(src)
    return insertion_offsets(src, toks, [i for i, t in enumerate(toks) if t[3] == name])


def test_helper_goes_before_the_top_level_construct_of_the_first_use():
    src = "#include <x.h>\nint g;\nnamespace n {\nvoid f() { use(); }\nvoid h() { use(); }\n}\n"
    assert offsets_of(src, "use") == [src.index("namespace")]


def test_a_use_in_a_macro_body_puts_the_helper_before_the_define():
    src = "#include <x.h>\n#define CHECK(x) do { use(x); } while (0)\nint f() { CHECK(1); return 0; }\n"
    assert offsets_of(src, "use") == [src.index("#define")]


def test_a_define_inside_a_function_keeps_the_helper_at_file_scope():
    src = "int f() {\n#define CHECK(x) use(x)\n  return CHECK(1);\n}\n"
    assert offsets_of(src, "use") == [0]


def test_struct_declarator_after_the_brace_stays_in_one_construct():
    src = "struct S { int a; } s;\nint f() { return use(); }\ntypedef struct { int b; } T;\nint g() { return use(); }\n"
    assert offsets_of(src, "use") == [src.index("int f")]


def test_each_if_branch_gets_its_own_copy_and_an_enclosing_one_covers_nested_uses():
    src = ("#if A\nint f() { return use(); }\n#else\nint g() { return use(); }\n#endif\n"
           "int h() { return use(); }\n")
    assert offsets_of(src, "use") == [src.index("int f"), src.index("int g"), src.index("int h")]
    src2 = "int f() { return use(); }\n#if A\nint g() { return use(); }\n#endif\n"
    assert offsets_of(src2, "use") == [0]


def test_error_string_helper_only_where_hipsparse_lacks_it():
    src = '#include <cusparse.h>\nvoid f(cusparseStatus_t s) { puts(cusparseGetErrorString(s)); }\n'
    assert local_helper_fixes("k.cu", src, tokenize(src), ROCM) == []
    (fix,) = local_helper_fixes("k.cu", src, tokenize(src), HIP52)
    assert fix.applicability is Applicability.SAFE
    out = port(src)
    assert "puts(vado_hipsparseGetErrorString(s))" in out
    assert out.index("#ifndef VADO_HIPSPARSEGETERRORSTRING") > out.index("#include <cusparse.h>")
    assert 'case HIPSPARSE_STATUS_ZERO_PIVOT: return "Zero pivot was computed";' in out
    assert port(out) == out  # a second port changes nothing


def test_members_declarations_macros_comments_and_strings_are_not_uses():
    src = ('// __vmaxs4(a, b)\nconst char* s = "__vmaxs4(1, 2)";\nunsigned __vmaxs4(unsigned a, unsigned b);\n'
           "int f(S x) { return x.__vmaxs4(1, 2); }\n#define __vminu4(a, b) my_min(a, b)\n")
    assert local_helper_fixes("k.cu", src, tokenize(src), HIP52) == []


def test_simd_helpers_on_every_rocm_target():
    src = "__global__ void k(unsigned* o, const unsigned* a) { o[0] = __vmaxs4(a[0], 0) | __vminu2(a[1], a[2]); }\n"
    for target in (ROCM, HIP52):
        out = port(src, target)
        assert "o[0] = vado_vmaxs4(a[0], 0) | vado_vminu2(a[1], a[2]);" in out
        assert out.count("#ifndef VADO_VMAXS4") == 1 and out.count("#ifndef VADO_VMINU2") == 1
    assert local_helper_fixes("k.cu", src, tokenize(src), get_target("scale")) == []


def _simd_reference(name: str, a: int, b: int) -> int:
    """CUDA's definition: per-halfword (…2) or per-byte (…4) signed/unsigned maximum or minimum."""
    op, sign, lanes = name[3:6], name[6], int(name[7])
    bits = 32 // lanes
    out = 0
    for s in range(0, 32, bits):
        x, y = (a >> s) & ((1 << bits) - 1), (b >> s) & ((1 << bits) - 1)
        if sign == "s":
            x -= (x >> (bits - 1)) << bits
            y -= (y >> (bits - 1)) << bits
        r = max(x, y) if op == "max" else min(x, y)
        out |= (r & ((1 << bits) - 1)) << s
    return out


def test_simd_helpers_compute_what_cuda_defines(tmp_path: Path):
    cxx = shutil.which("g++") or shutil.which("clang++")
    if cxx is None:
        pytest.skip("no host C++ compiler")
    rng = random.Random(7)
    edge = [0, 1, 0x7F, 0x80, 0xFF, 0x7FFF, 0x8000, 0xFFFF, 0x80808080, 0x7F7F7F7F, 0xFFFFFFFF, 0x12345678]
    pairs = [(a, b) for a in edge for b in edge] + [(rng.getrandbits(32), rng.getrandbits(32)) for _ in range(200)]
    helpers = local_helpers()
    body = "".join(helpers[n].code for n in SIMD_MINMAX)
    calls = "".join(
        f'  std::printf("%u\\n", {helpers[n].helper}({a}u, {b}u));\n' for n in SIMD_MINMAX for a, b in pairs
    )
    src = tmp_path / "simd.cpp"
    src.write_text("#include <cstdio>\n#define __device__\n#define __forceinline__ inline\n" + body
                   + "int main() {\n" + calls + "  return 0;\n}\n")
    exe = tmp_path / "simd"
    subprocess.run([cxx, "-O1", "-o", str(exe), str(src)], check=True, capture_output=True)
    got = [int(x) for x in subprocess.run([str(exe)], check=True, capture_output=True, text=True).stdout.split()]
    want = [_simd_reference(n, a, b) for n in SIMD_MINMAX for a, b in pairs]
    assert got == want


def test_cg_reduce_only_where_the_profile_says_it_is_missing():
    import dataclasses

    src = "#include <cooperative_groups.h>\n#include <cooperative_groups/reduce.h>\n"
    has_it = dataclasses.replace(ROCM, features={**ROCM.features, "cg_reduce": True})
    assert cg_reduce_fixes("k.cu", src, tokenize(src), has_it) == []
    # Measured: ROCm 7.2.4 has no cooperative_groups::reduce either.
    assert ROCM.features["cg_reduce"] is False and len(cg_reduce_fixes("k.cu", src, tokenize(src), ROCM)) == 1
    (fix,) = cg_reduce_fixes("k.cu", src, tokenize(src), HIP52)
    out = fixpoint(src, lambda t: cg_reduce_fixes("k.cu", t, tokenize(t), HIP52)).text
    assert fix.applicability is Applicability.SAFE
    assert "#include <cooperative_groups/reduce.h>" not in out and out.startswith("#include <cooperative_groups.h>\n// vado:")
    assert "auto reduce(const thread_block_tile<Size, Parent>& tile" in out
    assert fixpoint(out, lambda t: cg_reduce_fixes("k.cu", t, tokenize(t), HIP52)).text == out


def test_cg_reduce_covers_the_groups_hip_has_and_leaves_the_others_open():
    from vado.port.file import port_bytes
    from vado.scan.classify import classify

    head = "#include <cooperative_groups.h>\n#include <cooperative_groups/reduce.h>\nnamespace cg = cooperative_groups;\n"
    covered = head + (
        "__global__ void k(int* o) {\n  auto b = cg::this_thread_block();\n"
        "  auto w = cg::tiled_partition<64>(b);\n  auto p = cg::binary_partition(w, o[0] > 0);\n"
        "  o[1] = cg::reduce(p, 1, cg::plus<int>()) + cg::reduce(w, 1, cg::plus<int>())\n"
        "       + cg::reduce(cg::coalesced_threads(), 1, cg::plus<int>());\n}\n")
    out = port_bytes("k.cu", classify("k.cu"), covered.encode(), ROCM)
    assert "auto reduce(const coalesced_group& group" in out.after.decode()
    assert out.remaining == ()  # every group kind above compiles with ROCm 7.2.4 (PORT cg-reduce-groups-rocm72)
    # A group HIP has no type for: the helper cannot cover it, and the port says so.
    def port_group(call: str):
        src = head + (f"__global__ void k(int* o) {{\n  auto b = cg::this_thread_block();\n  auto g = {call};\n"
                      "  o[1] = cg::reduce(g, 1, cg::plus<int>());\n}\n")
        return port_bytes("k.cu", classify("k.cu"), src.encode(), ROCM)

    left = port_group("cg::tiled_partition<128>(b)").remaining
    assert [f.code for f in left] == ["API009"] and "128 threads" in left[0].message
    # labeled_partition: the port writes a local one (a coalesced_group, which the local reduce covers), and
    # on a HIP without binary_partition (5.2) it stays open work (PORT cg-labeled-partition-rocm72 compiles it).
    out = port_group("cg::labeled_partition(cg::tiled_partition<32>(b), o[0])")
    assert out.remaining == () and "coalesced_group labeled_partition(const Group& parent" in out.after.decode()
    src = head + "__global__ void k(int* o) {\n  auto g = cg::labeled_partition(cg::tiled_partition<32>(cg::this_thread_block()), o[0]);\n}\n"
    left = port_bytes("k.cu", classify("k.cu"), src.encode(), HIP52).remaining
    assert any(f.code == "API009" and "labeled_partition" in f.message for f in left)


def solve_port(src: str, target=HIP52) -> str:
    return fixpoint(src, lambda t: solve_buffer_fixes("k.cu", t, tokenize(t), target), unsafe=True).text


ANALYSIS = "cusparseSpSM_analysis(h, a, b, &al, A, B, C, t, alg, d, buf);\n"
SOLVE = "cusparseSpSM_solve(h, a, b, &al, A, B, C, t, alg, d);\n"


def test_solve_gets_the_analysis_buffer_of_its_descriptor():
    src = "void f() {\n" + ANALYSIS + SOLVE + "}\n"
    (fix,) = solve_buffer_fixes("k.cu", src, tokenize(src), HIP52)
    assert fix.applicability is Applicability.SAFE
    assert solve_port(src).endswith("cusparseSpSM_solve(h, a, b, &al, A, B, C, t, alg, d, buf);\n}\n")
    assert solve_port(solve_port(src)) == solve_port(src)
    # Every ROCm target: hipSPARSE's solve always has the buffer parameter.
    assert len(solve_buffer_fixes("k.cu", src, tokenize(src), ROCM)) == 1
    assert solve_buffer_fixes("k.cu", src, tokenize(src), get_target("scale")) == []


def test_spsv_solve_gets_no_buffer_where_hipsparse_dropped_it():
    # ROCm 7.2.4's hipSPARSE 4.2.0: hipsparseSpSV_solve has CUDA's nine arguments (HeCBench bicgstab failed
    # with the buffer added); hipsparseSpSM_solve keeps its buffer.
    spsv = ("void f() {\ncusparseSpSV_analysis(h, op, &al, A, x, y, t, alg, d, buf);\n"
            "cusparseSpSV_solve(h, op, &al, A, x, y, t, alg, d);\n}\n")
    assert solve_buffer_fixes("k.cu", spsv, tokenize(spsv), ROCM) == []
    assert len(solve_buffer_fixes("k.cu", spsv, tokenize(spsv), HIP52)) == 1
    spsm = "void f() {\n" + ANALYSIS + SOLVE + "}\n"
    assert len(solve_buffer_fixes("k.cu", spsm, tokenize(spsm), ROCM)) == 1


def test_solve_buffer_is_unsafe_when_the_buffer_may_change_and_absent_without_analysis():
    def applicability(src):
        return [f.applicability for f in solve_buffer_fixes("k.cu", src, tokenize(src), HIP52)]

    assert applicability("void f() {\n" + ANALYSIS + "buf = other;\n" + SOLVE + "}\n") == [Applicability.UNSAFE]
    assert applicability("void f() {\n" + ANALYSIS + "}\nvoid g() {\n" + SOLVE + "}\n") == [Applicability.UNSAFE]
    assert applicability("void g() {\n" + SOLVE + "}\n") == []
    other = ANALYSIS.replace("buf", "buf2")
    assert applicability("void f() {\n" + ANALYSIS + other + SOLVE + "}\n") == []
    # A call that already passes a buffer (HIP spelling or the old form) is left alone.
    assert applicability("void f() {\n" + ANALYSIS + SOLVE.replace("d);", "d, buf);") + "}\n") == []


def test_match_any_helper_only_before_hip_6_2():
    src = "__device__ unsigned long long f(int v) { return __match_any_sync(__activemask(), v); }\n"
    assert local_helper_fixes("k.cu", src, tokenize(src), ROCM) == []
    out = port(src)
    assert "return vado_match_any_sync(__activemask(), v);" in out
    assert "static_assert(sizeof(MaskT) == 8" in out and out.count("#ifndef VADO_MATCH_ANY_SYNC") == 1


def test_a_directive_inside_a_declaration_does_not_split_it():
    src = "int f(int a,\n#ifdef X\n      int b\n#endif\n) { return use(); }\n"
    assert offsets_of(src, "use") == [0]


def test_a_template_parameter_class_starts_no_aggregate():
    # ``template <class T>``'s ``class`` is a parameter: the function's ``}`` ends the construct.
    src = "template <class T> __device__ T id(T v) { return v; }\n__global__ void k() { use(); }\n"
    assert offsets_of(src, "use") == [src.index("__global__")]
    src = "template <class T> struct S { T v; };\nvoid f() { use(); }\n"
    assert offsets_of(src, "use") == [src.index("void f")]


def test_cache_hint_helpers_on_rocm():
    """Streaming hints become non-temporal accesses through one shared prelude (issue 25; the assembly is
    checked in test_cache_hints.py), the others plain accesses (the hint never changes the value)."""
    src = ("#include <cuda_runtime.h>\n__global__ void k(int4* o, const int4* i, float* f) {\n"
           "  __stcs(o, __ldcs(i)); o->x = 0; __stcg(f, __ldcg(f + 1));\n}\n")
    out = port(src, ROCM)
    assert "vado_stcs(o, vado_ldcs(i))" in out and "vado_stcg(f, vado_ldcg(f + 1))" in out
    assert "T vado_ldcs(const T* p) { return vado_cache::load<vado_cache::nontemporal>(p, vado_cache::vector()); }" in out
    assert "vado_cache::store<vado_cache::nontemporal>(p, t, vado_cache::vector());" in out
    assert "static __device__ __forceinline__ T vado_ldcg(const T* p) { return *p; }" in out
    assert "static __device__ __forceinline__ void vado_stcg(T* p, V v) { *p = v; }" in out
    # One copy of the shared words, before the helpers; the definitions stand outside each other's guards.
    assert out.count("#ifndef VADO_CACHE_ACCESS") == 1
    assert out.index("#ifndef VADO_CACHE_ACCESS") < out.index("#ifndef VADO_STCS") < out.index("vado_stcs(T* p") \
        < out.index("#ifndef VADO_LDCS") < out.index("vado_ldcs(const T* p")


def test_scale_type_set_to_the_creation_type_becomes_success_and_other_cases_stay():
    base = ("void f() {{\n  cublasLtMatmulDesc_t d;\n  cublasLtMatmulDescCreate(&d, CUBLAS_COMPUTE_32F, CUDA_R_32F);\n"
            "  cudaDataType_t t = {value};\n{between}"
            "  cublasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_SCALE_TYPE, &t, sizeof(t));\n}}\n")

    def fixes(src: str):
        return scale_type_fixes("k.cu", src, tokenize(src), ROCM)

    same = base.format(value="CUDA_R_32F", between="")
    (fix,) = fixes(same)
    assert fix.applicability is Applicability.SAFE
    assert fix.edits[0].content.startswith("HIPBLAS_STATUS_SUCCESS /* vado: ")
    assert same[fix.edits[0].start:fix.edits[0].end].startswith("cublasLtMatmulDescSetAttribute(d,")
    assert fixes(base.format(value="CUDA_R_16F", between="")) == []  # another type: hipBLASLt cannot change it
    assert fixes(base.format(value="CUDA_R_32F", between="  pick(&t);\n")) == []  # may be written in between
    assert fixes(same.replace("cublasLtMatmulDescCreate(&d", "cublasLtMatmulDescCreate(&e")) == []  # no creation seen
    assert scale_type_fixes("k.cu", same, tokenize(same), HIP52) == []  # target without hipBLASLt's facts: untouched
