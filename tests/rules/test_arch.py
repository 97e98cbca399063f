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


def test_cuda_version_comparison_says_which_branch_the_port_takes():
    src = "#if CUDART_VERSION >= 11000\nint x;\n#endif\n#ifdef CUDA_VERSION\nint y;\n#endif\n"
    a, b = check_text("k.cu", src, (ROCM,), rules=[arch.CudaVersionMacroTest])
    assert a.fix is None and "is false in the port" in a.message
    assert b.fix.edits[0].content == "HIP_VERSION" and b.fix.applicability.value == "safe"


def test_header_guard_of_a_library_is_unsafe_and_none_with_roc():
    src = "#ifdef CUBLAS_API_H_\nint x;\n#endif\n#ifdef __DRIVER_TYPES_H__\nint y;\n#endif\n"
    lib, core = check_text("k.cu", src, (ROCM,), rules=[arch.CudaHeaderGuardTest])
    assert lib.fix.applicability.value == "unsafe" and lib.fix.edits[0].content == "HIPBLAS_H"
    assert core.fix.applicability.value == "safe" and core.fix.edits[0].content == "HIP_INCLUDE_HIP_DRIVER_TYPES_H"
    lib_roc, _ = check_text("k.cu", src, (ROCM,), rules=[arch.CudaHeaderGuardTest], options={"roc": True})
    assert lib_roc.fix is None
