"""Regressions found by running HIPIFY's unit tests (``benchmarks/hipify_unit_tests.py``).

Each case is a CUDA snippet, ported with :func:`vado.port.file.port_bytes` for
rocm-7.2, and the exact text expected (HIPIFY's CHECK line where HIPIFY is right).
Every case is also ported a second time to check that the port is a fixpoint.
One case is compiled with Debian's hipcc when it is installed.
"""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest
from pathlib import Path

from vado.knowledge.targets import get_target
from vado.port.file import PortOptions, port_bytes
from vado.port.translate import legacy_cublas, runtime_include_fix
from vado.scan.classify import classify
from vado.scan.lexer import tokenize

ROCM = get_target("rocm-7.2")


def port(src: str, path: str = "t.cu", **options) -> str:
    data = src.encode("latin-1")
    once = port_bytes(path, classify(path), data, ROCM, PortOptions(**options)).after
    twice = port_bytes(path, classify(path), once, ROCM, PortOptions(**options)).after
    assert twice == once, "porting the port changed it again"
    return once.decode("latin-1")


def body(src: str) -> str:
    """The port without the runtime include vado adds to .cu files."""
    return port("#include <cuda_runtime.h>\n" + src).split("\n", 1)[1]


# --------------------------------------------------------------------------- kernel pointers


@pytest.mark.parametrize(
    ("cuda", "hip"),
    [
        # HIPIFY tests/unit_tests/synthetic/runtime_functions.cu
        ("cudaFuncGetAttributes(&attr, func);", "hipFuncGetAttributes(&attr, reinterpret_cast<const void*>(func));"),
        ("cudaFuncSetCacheConfig(func, cfg);", "hipFuncSetCacheConfig(reinterpret_cast<const void*>(func), cfg);"),
        ("cudaFuncSetSharedMemConfig(func, c);", "hipFuncSetSharedMemConfig(reinterpret_cast<const void*>(func), c);"),
        ("cudaFuncSetAttribute(func, a, 1);", "hipFuncSetAttribute(reinterpret_cast<const void*>(func), a, 1);"),
        (
            "cudaLaunchKernel(func, g, b, &args, 0, s);",
            "hipLaunchKernel(reinterpret_cast<const void*>(func), g, b, &args, 0, s);",
        ),
        (
            "cudaLaunchCooperativeKernel(&k, g, b, args, 0, s);",
            "hipLaunchCooperativeKernel(reinterpret_cast<const void*>(&k), g, b, args, 0, s);",
        ),
        # A template kernel's comma is not an argument separator.
        ("cudaFuncSetCacheConfig(k<float, 4>, cfg);", "hipFuncSetCacheConfig(reinterpret_cast<const void*>(k<float, 4>), cfg);"),
        # Already cast: nothing added.
        ("cudaFuncSetCacheConfig((const void*)k, cfg);", "hipFuncSetCacheConfig((const void*)k, cfg);"),
        (
            "cudaFuncSetCacheConfig(reinterpret_cast<const void*>(k), cfg);",
            "hipFuncSetCacheConfig(reinterpret_cast<const void*>(k), cfg);",
        ),
        # Unbalanced '<' (a comparison, or a template we cannot read): left alone.
        ("cudaFuncSetCacheConfig(a < b, cfg);", "hipFuncSetCacheConfig(a < b, cfg);"),
        # Not a call: the name alone is renamed.
        ("auto p = &cudaFuncSetCacheConfig;", "auto p = &hipFuncSetCacheConfig;"),
    ],
)
def test_kernel_pointer_argument_is_cast(cuda: str, hip: str) -> None:
    assert body(cuda + "\n") == hip + "\n"


# --------------------------------------------------------------------------- argument count


def test_cuda12_graph_instantiate_becomes_with_flags() -> None:
    # HIPIFY tests/unit_tests/synthetic/runtime_functions_12000.cu
    assert body("cudaGraphInstantiate(&e, g, 0);\n") == "hipGraphInstantiateWithFlags(&e, g, 0);\n"
    assert body("cudaGraphInstantiate(&e, g, nullptr, nullptr, 0);\n") == "hipGraphInstantiate(&e, g, nullptr, nullptr, 0);\n"


def test_event_create_with_flags_by_cuda_cpp_overload_becomes_with_flags() -> None:
    # cuda_runtime.h's C++ overload cudaEventCreate(event, flags); HIP declares hipEventCreate(hipEvent_t*) only
    # (ROCm 7.2.4 hip_runtime_api.h), so the two-argument call is HIP's hipEventCreateWithFlags.
    assert body("cudaEventCreate(&e, cudaEventBlockingSync);\n") == "hipEventCreateWithFlags(&e, hipEventBlockingSync);\n"
    assert body("cudaEventCreate(&e);\n") == "hipEventCreate(&e);\n"
    assert body("cudaEventCreateWithFlags(&e, 0);\n") == "hipEventCreateWithFlags(&e, 0);\n"


def test_malloc_host_gets_the_default_flag() -> None:
    # HIPIFY tests/unit_tests/synthetic/transforming_matchers.cu
    assert body("cudaMallocHost(&p, n * 2);\n") == "hipHostMalloc(&p, n * 2, hipHostMallocDefault);\n"
    assert body("cudaMallocHost((void**)&p, sizeof(T<a, b>));\n") == "hipHostMalloc((void**)&p, sizeof(T<a, b>), hipHostMallocDefault);\n"


# --------------------------------------------------------------------------- legacy cuBLAS


LEGACY = '#include "cublas.h"\nvoid f(float* m, int n) {\n  cublasStatus_t s;\n  cublasSscal(n, 2.0f, m, 1);\n}\n'


def test_legacy_cublas_calls_are_not_renamed() -> None:
    # HIPIFY tests/unit_tests/libraries/cuBLAS/cublas_v1.cu: CHECK-NOT hipblasSscal(...)
    out = port(LEGACY)
    assert "cublasSscal(n, 2.0f, m, 1);" in out
    assert '#include "cublas.h"' in out
    assert "hipblasStatus_t s;" in out  # names without a legacy twin still move


def test_v2_cublas_calls_are_renamed() -> None:
    out = port(LEGACY.replace('"cublas.h"', '"cublas_v2.h"').replace("cublasSscal(n,", "cublasSscal(h, n,"))
    assert "hipblasSscal(h, n, 2.0f, m, 1);" in out
    assert '#include "hipblas/hipblas.h"' in out


def test_legacy_cublas_detection() -> None:
    assert legacy_cublas(tokenize('#include "cublas.h"\n'))
    assert not legacy_cublas(tokenize('#include "cublas.h"\n#include <cublas_v2.h>\n'))
    assert not legacy_cublas(tokenize("int cublasSscal;\n"))


# --------------------------------------------------------------------------- runtime include placement


def _insert(src: str) -> str:
    fix = runtime_include_fix("t.cu", src, tokenize(src))
    assert fix is not None
    (edit,) = fix.edits
    return src[: edit.start] + edit.content + src[edit.end :]


INC = "#include <hip/hip_runtime.h>\n"


@pytest.mark.parametrize(
    ("src", "expected"),
    [
        # HIPIFY tests/unit_tests/headers/headers_test_03.cu
        ("#pragma once\nint main() { return 0; }\n", "#pragma once\n" + INC + "int main() { return 0; }\n"),
        ("// l\n#ifndef A_H\n#define A_H\nint x;\n#endif\n", "// l\n#ifndef A_H\n#define A_H\n" + INC + "int x;\n#endif\n"),
        (
            "/* a */\n#pragma once\n// b\n#ifndef G\n#define G\n#include <x.h>\n#endif\n",
            "/* a */\n#pragma once\n// b\n#ifndef G\n#define G\n" + INC + "#include <x.h>\n#endif\n",
        ),
        # An #ifndef that is not a guard is a conditional: insert above it.
        ("// c\n#ifndef A\n#define B\n#include <x.h>\n#endif\n", INC + "// c\n#ifndef A\n#define B\n#include <x.h>\n#endif\n"),
        ("// l\n#include <stdio.h>\n", "// l\n" + INC + "#include <stdio.h>\n"),
        ("#pragma once", "#pragma once\n" + INC),
        ("__global__ void k() {}\n", INC + "__global__ void k() {}\n"),
    ],
)
def test_runtime_include_placement(src: str, expected: str) -> None:
    assert _insert(src) == expected


@pytest.mark.parametrize(
    "src",
    [
        # tiny-cuda-nn's common_host.cu: a project header (it uses threadIdx/atomicCAS through nvcc's implicit
        # runtime include) ahead of the file's own runtime include.
        "// c\n#include <proj/common_device.h>\n#include <cuda.h>\n",
        '#include "kernels.h"\n#include <cuda_runtime.h>\n',
    ],
)
def test_runtime_include_goes_first_when_a_project_header_precedes_the_files_own(src: str) -> None:
    out = _insert(src)
    assert out.index(INC) < out.index("#include <proj/" if "proj" in src else '#include "kernels.h"')


@pytest.mark.parametrize(
    ("path", "src"),
    [
        # Standard and system headers before the runtime include: they use no CUDA name; nothing is added.
        ("t.cu", "#include <stdio.h>\n#include <vector>\n#include <sys/time.h>\n#include <cuda_runtime.h>\n"),
        # The runtime include first already.
        ("t.cu", '#include <cuda_runtime.h>\n#include "kernels.h"\n'),
        # A header is no translation unit: its includer's order decides.
        ("t.cuh", '#include "kernels.h"\n#include <cuda_runtime.h>\n'),
    ],
)
def test_runtime_include_left_alone(path: str, src: str) -> None:
    assert runtime_include_fix(path, src, tokenize(src)) is None


# --------------------------------------------------------------------------- compiles


@pytest.mark.skipif(shutil.which("hipcc") is None, reason="hipcc is not installed")
def test_kernel_pointer_casts_compile(tmp_path) -> None:
    src = (
        "#include <cuda_runtime.h>\n"
        "__global__ void k(int* p) { p[threadIdx.x] = 1; }\n"
        "template <typename T, int N> __global__ void kt(T* p) { p[threadIdx.x] = N; }\n"
        "int main() {\n"
        "  cudaFuncAttributes attr;\n"
        "  cudaFuncGetAttributes(&attr, k);\n"
        "  cudaFuncSetCacheConfig(kt<float, 4>, cudaFuncCachePreferL1);\n"
        "  int* h; cudaMallocHost(&h, 4);\n"
        "  void* args[] = {&h};\n"
        "  cudaLaunchKernel(k, dim3(1), dim3(1), args, 0, 0);\n"
        "  return 0;\n"
        "}\n"
    )
    out = tmp_path / "t.hip"
    out.write_text(port(src), encoding="latin-1")
    proc = subprocess.run(
        ["hipcc", "--offload-arch=gfx90a", "-c", "-x", "hip", str(out), "-o", os.devnull],
        capture_output=True,
        text=True,
        env=dict(os.environ, HIP_PLATFORM="amd"),
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr


def test_legacy_header_without_legacy_calls_is_renamed() -> None:
    # HIPIFY tests/unit_tests/headers/headers_test_06_12000.cu: <cublas.h> alone → hipBLAS.
    out = port('#include <cublas.h>\ncublasStatus_t s;\n')
    assert "#include <hipblas/hipblas.h>" in out
    assert "hipblasStatus_t s;" in out


def test_a_cuda13_emulation_type_hipify_lacks_leaves_a_finding() -> None:
    # CUDALibrarySamples cuBLAS/utils/cublas_utils.h: hipcc (ROCm 7.2.4) fails on the type; the port says why.
    src = (b"#include <cublas_v2.h>\nsize_t ws(cudaEmulationMantissaControl c) { return c == "
           b"CUDA_EMULATION_MANTISSA_CONTROL_FIXED; }\n")
    path = Path("u.h")
    result = port_bytes(path, classify(path), src, ROCM, PortOptions())
    codes = sorted((f.code, f.message.split("`")[1]) for f in result.remaining)
    assert codes == [("API001", "CUDA_EMULATION_MANTISSA_CONTROL_FIXED"), ("API001", "cudaEmulationMantissaControl")]
