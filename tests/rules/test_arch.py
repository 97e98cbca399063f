"""Unit tests of the ARCH rules."""

from __future__ import annotations

import pytest

from vado.model import Severity, Target, Verdict
from vado.rules import arch
from vado.rules.engine import check_text

RULES = [arch.WarpMatrixApi, arch.HopperBlackwellFeature, arch.LowPrecisionFloatTypes, arch.DeviceSideKernelLaunch,
         arch.ManagedMemoryAssumption, arch.VersionDependentWarpIntrinsic]
ROCM = Target(name="rocm-7.2", family="rocm", version="7.2", hip_version="7.2", wavefront={"gfx942": 64})
HIP52 = Target(name="hip-5.2", family="rocm", version="5.2", hip_version="5.2", wavefront={"gfx90a": 64})
SCALE = Target(name="scale", family="scale", version="1.7.1", wavefront={"gfx942": 64})
ZLUDA = Target(name="zluda", family="zluda", version="6", wavefront={"gfx1100": 32})


def found(src: str, targets=(ROCM, SCALE, ZLUDA), name="k.cu"):
    return check_text(name, src, targets, rules=RULES)


def test_wmma_verdicts_per_target():
    (f,) = found("#include <mma.h>\n")
    assert f.code == "ARCH001"
    assert f.verdicts == {"rocm-7.2": Verdict.MANUAL, "scale": Verdict.MOVES_AS_IS, "zluda": Verdict.BLOCKED}


def test_clusters_block_everywhere_but_std_barrier_is_fine():
    fs = found("__global__ void __cluster_dims__(2,1,1) k() {}\nstd::barrier<> b(2); int pipeline;\n")
    assert [(f.code, f.severity) for f in fs] == [("ARCH002", Severity.CRITICAL)]
    assert set(fs[0].verdicts.values()) == {Verdict.BLOCKED}


def test_fp8_type_reported_once_per_file():
    fs = found("__device__ void f() { __nv_fp8_e4m3 a; __nv_fp8_e4m3 b; }\n")
    assert [f.code for f in fs] == ["ARCH003"]
    assert fs[0].verdicts["scale"] is Verdict.BLOCKED


def test_launch_only_in_device_code():
    src = ("__global__ void c() {}\n__global__ void p() { c<<<1, 1>>>(); }\n"
           "void h() { c<<<1, 1>>>(); cudaDeviceSynchronize(); }\n")
    fs = found(src, targets=(ROCM,))
    assert [(f.code, f.span.line, f.verdicts["rocm-7.2"]) for f in fs] == [("ARCH004", 2, Verdict.BLOCKED)]


def test_managed_memory_moves_as_is_on_rocm():
    (f,) = found("__managed__ int x;\n", targets=(ROCM,))
    assert f.code == "ARCH005" and f.verdicts["rocm-7.2"] is Verdict.MOVES_AS_IS


def test_version_dependent_intrinsics():
    src = "__device__ void f(unsigned long long m, int v) { __syncwarp(); __match_any_sync(m, v); }\n"
    fs = found(src, targets=(ROCM, HIP52))
    assert [(f.data["name"], f.verdicts["rocm-7.2"], f.verdicts["hip-5.2"]) for f in fs] == [
        ("__syncwarp", Verdict.MOVES_AS_IS, Verdict.MANUAL), ("__match_any_sync", Verdict.MOVES_AS_IS, Verdict.MANUAL)]
    assert found("__device__ void f() { __syncwarp(); }\n", targets=(ROCM,)) == []


# --- ARCH007: __CUDA_ARCH__ comparisons, evaluated for the host pass and an sm_75..sm_89-level device pass


def _arch_fix(cond: str) -> tuple[str, str | None]:
    src = f"#if {cond}\nint x;\n#endif\n"
    (f,) = [f for f in check_text("k.cu", src, (ROCM,), rules=[arch.CudaArchMacroTest])]
    if f.fix is None:
        return "none", None
    e = f.fix.edits[0]
    return f.fix.applicability.value, src[:e.start] + e.content + src[e.end:]



@pytest.mark.parametrize("cond, level, want", [
    ("__CUDA_ARCH__ >= 700", "safe", "#if defined(__HIP_DEVICE_COMPILE__)\n"),
    ("__CUDA_ARCH__ >= 750", "safe", "#if defined(__HIP_DEVICE_COMPILE__)\n"),
    ("__CUDA_ARCH__ > 750", "safe", "#if defined(__HIP_DEVICE_COMPILE__)\n"),
    ("__CUDA_ARCH__ >= 800", "safe", "#if defined(__HIP_DEVICE_COMPILE__)\n"),
    ("__CUDA_ARCH__ >= 900", "safe", "#if 0\n"),
    ("__CUDA_ARCH__ < 600", "safe", "#if !defined(__HIP_DEVICE_COMPILE__)\n"),
    ("__CUDA_ARCH__ < 900", "safe", "#if 1\n"),
    ("__CUDA_ARCH__ < 800", "safe", "#if !defined(__HIP_DEVICE_COMPILE__)\n"),
    ("__CUDA_ARCH__", "safe", "#if defined(__HIP_DEVICE_COMPILE__)\n"),
    ("defined(__CUDA_ARCH__)", "safe", "#if defined(__HIP_DEVICE_COMPILE__)\n"),
    ("__CUDA_ARCH__ == 800", "none", None),
])
def test_cuda_arch_comparisons(cond, level, want):
    got_level, text = _arch_fix(cond)
    assert got_level == level
    if want is not None:
        assert text.startswith(want)


def _arch_port(src: str) -> list[tuple[str, str]]:
    """(applicability, replacement) of each ARCH007 comparison fix in ``src``."""
    return [(f.fix.applicability.value, f.fix.edits[0].content)
            for f in check_text("k.cu", src, (ROCM,), rules=[arch.CudaArchMacroTest])
            if f.fix is not None and any(op in f.fix.description.split("→")[0] for op in "<>")]


# An exact-level test (`==`/`!=`) is no fix in general (`== 800` above: an sm_86 answers otherwise), but where
# every branch of its group only gives the same macros or constants other numbers (llm.c's
# MAX_1024_THREADS_BLOCKS), it picks a tuning value: a low note with AMD's value, fixed to hipcc's answer.
def _arch_all(src: str):
    return check_text("k.cu", src, (ROCM,), rules=[arch.CudaArchMacroTest])


@pytest.mark.parametrize("branches, tuned, amd", [
    ("#define B 2\n#else\n#define B 1\n", True, ["1"]),
    ("#define B (2)\n#define T 256\n#else\n#define B (1)\n#define T 256\n", True, ["(1)"]),
    ("static constexpr int kB = 2;\n#else\nstatic constexpr int kB = 1;\n", True, ["1"]),
    ("#define B 2\n#elif __CUDA_ARCH__ == 700\n#define B 3\n#else\n#define B 1\n", True, ["1"]),
    ("#define B 2\n", False, None),                                         # no #else: B undefined on AMD
    ("#define B 2\n#else\n#define C 1\n", False, None),                    # other names
    ("#define B() 2\n#else\n#define B() 1\n", False, None),                # function-like macros
    ("int b = f(2);\n#else\nint b = f(1);\n", False, None),                # an argument, not a constant's value
    ("#define B __ldg(p)\n#else\n#define B (*p)\n", False, None),          # different code
    ("#define B 2\n#else\n#define B 2\n", False, None),                    # the same text: nothing chosen
])
def test_exact_arch_test_that_only_picks_a_tuning_value(branches, tuned, amd):
    src = f"#if __CUDA_ARCH__ == 800\n{branches}#endif\n"
    f, *elif_test = _arch_all(src)
    assert all(g.data.get("tuning") == f.data.get("tuning") for g in elif_test)  # an #elif's test: the same group
    if not tuned:
        assert f.fix is None and f.verdicts["rocm-7.2"] is Verdict.MANUAL and "tuning" not in f.data
        return
    assert f.severity is Severity.LOW and f.verdicts["rocm-7.2"] is Verdict.AUTOMATIC
    assert f.fix.applicability.value == "safe" and f.fix.edits[0].content == "0"
    assert f.data["tuning"]["amd"] == amd and "not a correctness question" in f.message


def test_tuning_value_where_the_other_tests_of_the_group_depend_on_the_pass():
    # `>= 800` becomes defined(__HIP_DEVICE_COMPILE__) in the port: the branch differs per pass, so no value is claimed
    src = "#if __CUDA_ARCH__ == 800 || __CUDA_ARCH__ >= 800\n#define B 2\n#else\n#define B 1\n#endif\n"
    tuned = [f for f in _arch_all(src) if "tuning" in f.data]
    assert len(tuned) == 1 and tuned[0].data["tuning"]["amd"] is None and "depends on" in tuned[0].message
    # `!= 800` is true under hipcc: the first branch
    src = "#if __CUDA_ARCH__ != 800\n#define B 2\n#else\n#define B 1\n#endif\n"
    (f,) = _arch_all(src)
    assert f.fix.edits[0].content == "1" and f.data["tuning"]["amd"] == ["2"]


def test_tuning_value_names_its_launch_bounds_use():
    src = ("#if __CUDA_ARCH__ == 800\n#define B 2\n#else\n#define B 1\n#endif\n"
           "__global__ void __launch_bounds__(1024, B) k() {}\n")
    (f,) = _arch_all(src)
    assert "__launch_bounds__'s minimum blocks per multiprocessor" in f.message and "(line 6)" in f.message


# Between sm_75 and sm_90 the answer depends on the GPU. The port takes the Ampere-class branch (what
# A100/L40 run: bf16 and fp8 types HIP has) unless that branch is inline PTX, which no AMD GPU runs.
def test_cuda_arch_between_levels_takes_the_newer_branch_unless_it_is_ptx():
    legacy_assert = ("__device__ float2 f(__nv_bfloat162 v) {\n#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800\n"
                     "  assert(false);\n#else\n  return __bfloat1622float2(v);\n#endif\n}\n")
    assert _arch_port(legacy_assert) == [("safe", "!defined(__HIP_DEVICE_COMPILE__)")]
    cp_async = ("__device__ void g(int* s, const int* p) {\n#if __CUDA_ARCH__ >= 800\n"
                "  asm volatile(\"cp.async.ca.shared.global [%0], [%1], 4;\" :: \"r\"(0), \"l\"(p));\n"
                "#else\n  *s = *p;\n#endif\n}\n")
    assert _arch_port(cp_async) == [("safe", "0")]
    # the same with the test turned around: the PTX branch is the one taken when the test is false
    flipped = cp_async.replace("__CUDA_ARCH__ >= 800", "__CUDA_ARCH__ < 800").replace(
        "asm volatile(\"cp.async.ca.shared.global [%0], [%1], 4;\" :: \"r\"(0), \"l\"(p));\n#else\n  *s = *p;",
        "*s = *p;\n#else\n  asm volatile(\"cp.async.ca.shared.global [%0], [%1], 4;\" :: \"r\"(0), \"l\"(p));")
    assert _arch_port(flipped) == [("safe", "1")]
    # negated: `!(... >= 800)` selects the PTX in its #else, the newer branch
    negated = cp_async.replace("#if __CUDA_ARCH__ >= 800", "#if !(__CUDA_ARCH__ >= 800)").replace(
        "asm volatile(\"cp.async.ca.shared.global [%0], [%1], 4;\" :: \"r\"(0), \"l\"(p));\n#else\n  *s = *p;",
        "*s = *p;\n#else\n  asm volatile(\"cp.async.ca.shared.global [%0], [%1], 4;\" :: \"r\"(0), \"l\"(p));")
    assert _arch_port(negated) == [("safe", "0")]
    # nested conditionals inside the branches are part of them
    nested = cp_async.replace("  asm volatile", "#ifdef USE_PTX\n  asm volatile").replace("(p));\n#else", "(p));\n#endif\n#else")
    assert _arch_port(nested) == [("safe", "0")]
    # PTX and no other branch: dropping it would lose what it does; kept (a compile error), for a human
    alone = cp_async.replace("#else\n  *s = *p;\n", "")
    assert _arch_port(alone) == [("unsafe", "defined(__HIP_DEVICE_COMPILE__)")]
    # PTX in both branches: neither runs on AMD; the newer one is assumed and a human checks it
    both = cp_async.replace("*s = *p;", "asm volatile(\"ld.global.u32 %0, [%1];\" : \"=r\"(*s) : \"l\"(p));")
    assert _arch_port(both) == [("unsafe", "defined(__HIP_DEVICE_COMPILE__)")]
    # an #elif's own branch ends at the next #else
    elif_chain = ("#if defined(USE_X)\nint a;\n#elif __CUDA_ARCH__ >= 800\nint b;\n#else\n"
                  "__device__ void h() { asm(\"trap;\"); }\n#endif\n")
    assert _arch_port(elif_chain) == [("safe", "defined(__HIP_DEVICE_COMPILE__)")]


def test_cuda_arch_in_code_is_reported_without_a_fix():
    src = "__device__ int a() { return __CUDA_ARCH__; }\n"
    (f,) = check_text("k.cu", src, (ROCM,), rules=[arch.CudaArchMacroTest])
    assert f.fix is None and f.verdicts["rocm-7.2"] is Verdict.MANUAL


# CUDA version tests are decided for the target (issue 25): a CMake-built sample used to take its legacy
# branch silently, since HIP defines no CUDART_VERSION; now the comparison is answered for the CUDA release
# whose API the target's HIP follows (arch.cuda_api_level, from HIPIFY's tables).
def test_cuda_version_comparison_is_decided_for_the_target():
    src = "#if CUDART_VERSION >= 11000\nint x;\n#endif\n#ifdef CUDA_VERSION\nint y;\n#endif\n"
    a, b = check_text("k.cu", src, (ROCM,), rules=[arch.CudaVersionMacroTest])
    assert a.fix.applicability.value == "safe" and a.fix.edits[0].content == "1" and "CUDA 11.7" in a.message
    assert a.verdicts["rocm-7.2"] is Verdict.AUTOMATIC
    assert b.fix.edits[0].content == "HIP_VERSION" and b.fix.applicability.value == "safe"


def test_cuda_api_level_of_the_targets():
    from vado.knowledge.targets import get_target

    assert arch.cuda_api_level(get_target("rocm-7.2")) == (11, 7)
    assert arch.cuda_api_level(get_target("hip-5.2")) == (11, 2)
    assert arch.cuda_api_level(get_target("oneapi")) is None


@pytest.mark.parametrize("cond, want", [
    ("CUDART_VERSION >= 12000", "0"), ("CUDART_VERSION >= 11000", "1"), ("CUDA_VERSION < 11070", "0"),
    ("CUDA_VERSION <= 11070", "1"), ("__CUDACC_VER_MAJOR__ >= 12", "0"), ("__CUDACC_VER_MAJOR__ > 10", "1"),
])
def test_cuda_version_answers(cond, want):
    (f,) = check_text("k.cu", f"#if {cond}\nint x;\n#else\nint y;\n#endif\n", (ROCM,), rules=[arch.CudaVersionMacroTest])
    assert f.fix.edits[0].content == want


def test_cuda_version_prefers_the_branch_whose_apis_the_target_has_and_never_an_error():
    api = ("#if CUDART_VERSION >= 12030\nvoid f(cudaStream_t s) { cudaStreamGetCaptureInfo_v3(s, 0, 0, 0, 0, 0, 0); }\n"
           "#else\nvoid f(cudaStream_t s) { cudaStreamGetCaptureInfo(s, 0, 0); }\n#endif\n")
    (f,) = check_text("k.cu", api, (ROCM,), rules=[arch.CudaVersionMacroTest])
    assert f.fix.edits[0].content == "0"  # the level's own answer: CUDA 11.7 is older than 12.3
    flipped = api.replace(">= 12030", "< 12030")
    (g,) = check_text("k.cu", flipped, (ROCM,), rules=[arch.CudaVersionMacroTest])
    # the level says true (11.7 < 12.3), whose branch calls what ROCm 7.2 lacks: the other is taken
    assert g.fix.edits[0].content == "0" and "cudaStreamGetCaptureInfo_v3" in g.message
    both = api.replace("cudaStreamGetCaptureInfo(s, 0, 0)", "cudaStreamGetCaptureInfo_v3(s, 0, 0, 0, 0, 0, 0)")
    (h,) = check_text("k.cu", both.replace(">= 12030", "< 12030"), (ROCM,), rules=[arch.CudaVersionMacroTest])
    assert h.fix.edits[0].content == "1"  # both branches lack it: the level decides, the API rule reports the call
    error = "#if CUDART_VERSION < 12000\n#error \"needs CUDA 12\"\n#endif\n"
    (e,) = check_text("k.cu", error, (ROCM,), rules=[arch.CudaVersionMacroTest])
    assert e.fix.edits[0].content == "0" and "#error" in e.message
    # no ROCm target: no answer, the old report
    (o,) = check_text("k.cu", api, (get_target_named("oneapi"),), rules=[arch.CudaVersionMacroTest])
    assert o.fix is None


def test_cuda_version_prefers_the_portable_branch_over_inline_ptx():
    # A toolkit-version test around inline PTX beside a portable branch: HIP's CUDA API level (11.7) answered
    # `CUDA_VERSION >= 11000` true and the port took the PTX branch (then "lowered" or left for a person), where
    # the program's own portable branch is right there.
    ptx = ("__device__ void f(unsigned* b) {\n#if CUDA_VERSION >= 11000\n"
           "  asm volatile(\"red.release.gpu.global.add.s32 [%0], 1;\" :: \"l\"(b));\n#else\n  atomicAdd(b, 1);\n#endif\n}\n")
    (f,) = check_text("k.cu", ptx, (ROCM,), rules=[arch.CudaVersionMacroTest])
    assert f.fix.edits[0].content == "0" and "takes the portable branch" in f.message
    # older-toolkit PTX beside a newer portable branch: the answer (true) is the portable one already
    older = ptx.replace(">= 11000", "< 11000")
    (g,) = check_text("k.cu", older.replace("#else\n  atomicAdd(b, 1);\n", "#else\n  atomicAdd(b, 2);\n"), (ROCM,),
                      rules=[arch.CudaVersionMacroTest])
    assert g.fix.edits[0].content == "0"
    # PTX in both branches, or no other branch: the level decides as before
    both = ptx.replace("  atomicAdd(b, 1);\n", "  asm volatile(\"red.relaxed.gpu.global.add.s32 [%0], 1;\" :: \"l\"(b));\n")
    (h,) = check_text("k.cu", both, (ROCM,), rules=[arch.CudaVersionMacroTest])
    assert h.fix.edits[0].content == "1"
    alone = ptx.replace("#else\n  atomicAdd(b, 1);\n", "")
    (k,) = check_text("k.cu", alone, (ROCM,), rules=[arch.CudaVersionMacroTest])
    assert k.fix.edits[0].content == "1"


def test_cudacc_in_a_torch_extension_is_hipifys_to_rename():
    # pytorch3d 9381c40 (pulsar/global.h): `#ifdef __CUDACC__` got "hipcc defines __HIPCC__, not __CUDACC__: the test
    # is false in every pass" (high); PyTorch's build-time hipify writes __HIPCC__ there itself.
    src = "#ifdef __CUDACC__\n#define HD __host__ __device__\n#endif\n#ifndef __NVCC__\nint host_only;\n#endif\n"
    plain = [f.data.get("replacement") for f in check_text("g.h", src, (ROCM,), rules=[arch.CudaArchMacroTest])]
    torch = [f.span.line for f in check_text("g.h", src, (ROCM,), rules=[arch.CudaArchMacroTest],
                                             options={"torch_extension": True})]
    assert len(plain) == 2 and torch == [4]  # __NVCC__ is no key of hipify's: still reported


def get_target_named(name):
    from vado.knowledge.targets import get_target

    return get_target(name)


def test_cuda_arch_one_level_prefers_portable_code_and_never_an_error():
    red = ("__device__ void f(__half2* a, __half2 v) {\n#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700\n"
           "  asm(\"red.relaxed.gpu.global.add.noftz.f16x2 [%0], %1;\" :: \"l\"(a), \"r\"(0));\n#else\n"
           "  atomicAdd(a, v);\n#endif\n}\n")
    assert _arch_port(red) == [("safe", "0")]
    error = "#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900\n#error \"needs sm_90\"\n#endif\n"
    assert _arch_port(error) == [("safe", "!defined(__HIP_DEVICE_COMPILE__)")]  # false in the device pass
    hopper = "#if __CUDA_ARCH__ >= 900\nint fast;\n#else\n#error \"needs sm_90\"\n#endif\n"
    assert _arch_port(hopper) == [("safe", "defined(__HIP_DEVICE_COMPILE__)")]
    (f,) = check_text("k.cu", "__global__ void k() { static_assert(__CUDA_ARCH__ >= 800, \"sm80\"); }\n", (ROCM,),
                      rules=[arch.CudaArchMacroTest])
    assert f.fix.edits[0].content == "true" and f.fix.applicability.value == "safe"
    assert f.fix.edits[0].end - f.fix.edits[0].start == len("__CUDA_ARCH__ >= 800")


def test_nvcc_tests_beside_a_hip_test_are_left_alone():
    src = "#if defined(__NVCC__)\nint a;\n#elif defined(__HIP_PLATFORM_AMD__)\nint b;\n#endif\n#ifdef __CUDACC__\nint c;\n#endif\n"
    fs = check_text("k.cu", src, (ROCM,), rules=[arch.CudaArchMacroTest])
    assert [f.span.line for f in fs] == [6]
    own = "#if defined(__CUDACC__) && !defined(MY_USE_HIP)\nint a;\n#endif\n"
    assert len(check_text("k.cu", own, (ROCM,), rules=[arch.CudaArchMacroTest])) == 1
    assert check_text("k.cu", own, (ROCM,), rules=[arch.CudaArchMacroTest], options={"amd_defines": ("MY_USE_HIP",)}) == []


def test_header_guard_of_a_library_is_unsafe_and_none_with_roc():
    src = "#ifdef CUBLAS_API_H_\nint x;\n#endif\n#ifdef __DRIVER_TYPES_H__\nint y;\n#endif\n"
    lib, core = check_text("k.cu", src, (ROCM,), rules=[arch.CudaHeaderGuardTest])
    assert lib.fix.applicability.value == "unsafe" and lib.fix.edits[0].content == "HIPBLAS_H"
    assert core.fix.applicability.value == "safe" and core.fix.edits[0].content == "HIP_INCLUDE_HIP_DRIVER_TYPES_H"
    lib_roc, _ = check_text("k.cu", src, (ROCM,), rules=[arch.CudaHeaderGuardTest], options={"roc": True})
    assert lib_roc.fix is None


def _guard_fix(body: str, guard: str = "CURAND_H_"):
    from vado.knowledge.targets import get_target
    src = f"#include <curand.h>\n#ifdef {guard}\n{body}\n#endif\n"
    (f,) = check_text("helper.h", src, (get_target("rocm-7.2"),), rules=[arch.CudaHeaderGuardTest])
    return f.fix.applicability.value, list(f.verdicts.values())[0].value


def test_a_library_guards_code_that_moves_gets_the_safe_fix():
    # cuda-samples helper_cuda.h: the curand error strings under #ifdef CURAND_H_ name statuses hipRAND has, one
    # each: CURAND_H_ -> HIPRAND_H_ brings them back and compiles (ROCm 7.2.4, gfx942: MC_EstimatePiP's port).
    body = ("static const char* e(curandStatus_t s) { switch (s) { case CURAND_STATUS_SUCCESS: return \"ok\";\n"
            "case CURAND_STATUS_ARCH_MISMATCH: return \"arch\"; } return \"?\"; }")
    assert _guard_fix(body) == ("safe", "moves-with-automatic-edits")


def test_a_library_guards_code_that_may_not_compile_keeps_the_unsafe_fix():
    # a name HIP lacks, a library name the tables do not know (CUDA 13's CUFFT_NVSHMEM_FAILURE: hipcc 'undeclared
    # identifier' in helper_cuda.h's cufft block, measured), two CUDA names that become one HIP name (two case labels)
    assert _guard_fix("int a = CUSOLVER_STATUS_INVALID_LICENSE;", "CUSOLVER_COMMON_H_")[0] == "unsafe"
    assert _guard_fix("int a = CUFFT_NVSHMEM_FAILURE;", "_CUFFT_H_")[0] == "unsafe"
    collide = "switch (op) { case CUBLAS_OP_C: return 1; case CUBLAS_OP_HERMITAN: return 2; }"
    assert _guard_fix(collide, "CUBLAS_API_H_") == ("unsafe", "needs-manual-work")
    # a negated test (#ifndef) is not judged by its body
    from vado.knowledge.targets import get_target
    src = "#ifndef CURAND_H_\nint a = CURAND_STATUS_SUCCESS;\n#endif\n"
    (f,) = check_text("helper.h", src, (get_target("rocm-7.2"),), rules=[arch.CudaHeaderGuardTest])
    assert f.fix.applicability.value == "unsafe"
