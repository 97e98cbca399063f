"""A realistic audit result built by hand, shared by the report tests (fixtures in conftest.py).

The sources below are small but real-looking files of a CUDA project with a
serving container. Spans are computed from the text (so lines, columns and byte
offsets agree), file and repository verdicts are aggregated the way the audit
stage does (worst finding verdict per target, deciding codes counted).
"""

from __future__ import annotations

from collections import Counter

from vado.model import Applicability, Edit, Effort, Finding, Fix, Severity, Skip, SkipReason, Span, Verdict
from vado.model.audit import AuditResult, AuditStats, BuildSummary, FileReport, RuleInfo, WorkloadReport
from vado.model.text import LineIndex
from vado.model.verdict import TargetVerdict

TARGETS = ("rocm-7.2", "hip-5.2", "oneapi")

AS_IS, AUTO, MANUAL, BLOCKED = Verdict.MOVES_AS_IS, Verdict.AUTOMATIC, Verdict.MANUAL, Verdict.BLOCKED

SOURCES: dict[str, tuple[str, str]] = {
    "CMakeLists.txt": (
        "cmake",
        "cmake_minimum_required(VERSION 3.24)\n"
        "project(llm_kernels LANGUAGES CXX CUDA)\n"
        "set(CMAKE_CUDA_ARCHITECTURES 80 90)\n"
        "add_library(kernels kernels/attention.cu src/gemm.cpp)\n",
    ),
    "kernels/attention.cu": (
        "cuda-source",
        '#include <cuda_runtime.h>\n#include "attention.cuh"\n\n'
        "__device__ float warp_sum(float v) {\n"
        "  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffff, v, o);\n"
        "  return v;\n}\n\n"
        "__global__ void softmax(const float* x, float* y, int n) {\n"
        "  unsigned r;\n"
        '  asm volatile("mov.u32 %0, %%laneid;" : "=r"(r));\n'
        "  y[threadIdx.x] = warp_sum(x[threadIdx.x]) + r;\n}\n\n"
        "void run(int n) {\n"
        "  float* d;\n"
        "  cudaMalloc(&d, n * sizeof(float));\n"
        "  softmax<<<1, 32>>>(d, d, n);\n"
        "  cudaFree(d);\n}\n",
    ),
    "kernels/attention.cuh": (
        "cuda-header",
        "#pragma once\n#include <mma.h>\n"
        "using namespace nvcuda;\n"
        "typedef wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> frag_a;\n",
    ),
    "src/gemm.cpp": (
        "cxx-source",
        "#include <cublas_v2.h>\n\n"
        "void gemm(cublasHandle_t h, int n, const float* a, const float* b, float* c) {\n"
        "  const float one = 1.0f, zero = 0.0f;\n"
        "  cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, a, n, b, n, &zero, c, n);\n}\n",
    ),
    "serving/Dockerfile": (
        "dockerfile",
        "FROM nvidia/cuda:12.1.0-devel-ubuntu22.04\n"
        "COPY requirements.txt /app/\n"
        "RUN pip install -r /app/requirements.txt\n",
    ),
    "serving/requirements.txt": (
        "requirements",
        "--extra-index-url https://download.pytorch.org/whl/cu121\ntorch==2.3.0+cu121\nnumpy>=1.26\n",
    ),
    "serving/app.py": ("python", "import numpy as np\n\n\ndef handler(x):\n    return np.asarray(x).sum()\n"),
}

RULES = (
    RuleInfo("API001", "cuda-runtime-call", "API", "low", "CUDA runtime call with a HIP equivalent",
             "## What it does\nFinds CUDA runtime calls such as `cudaMalloc`.\n\n## Use instead\n`hipMalloc`."),
    RuleInfo("WARP001", "full-warp-mask", "WARP", "medium", "Warp shuffle with a 32-lane mask",
             "## What it does\nFinds `__shfl_*_sync(0xffffffff, …)`.\n\n## Why is this bad?\n"
             "CDNA wavefronts have 64 lanes; the mask covers half of them."),
    RuleInfo("PTX001", "inline-ptx-asm", "PTX", "critical", "Inline PTX assembly",
             "## What it does\nFinds `asm(...)` blocks with PTX.\n\n## Why is this bad?\n"
             "No target but NVIDIA's understands PTX."),
    RuleInfo("ARCH001", "wmma-fragment", "ARCH", "high", "Tensor-core WMMA fragments",
             "## What it does\nFinds `nvcuda::wmma` types.\n\n## Use instead\n`rocwmma::fragment`."),
    RuleInfo("LIB001", "cublas-call", "LIB", "medium", "cuBLAS call",
             "## What it does\nFinds cuBLAS calls.\n\n## Use instead\nhipBLAS (`hipblasSgemm`)."),
    RuleInfo("DEP001", "cuda-torch-wheel", "DEP", "high", "PyTorch pinned to a CUDA build",
             "## What it does\nFinds `+cuXXX` torch pins.\n\n## Use instead\nA ROCm wheel index."),
    RuleInfo("IMG001", "cuda-base-image", "IMG", "medium", "CUDA base image", ""),
    RuleInfo("BLD001", "cmake-cuda-language", "BLD", "medium", "CMake project enables CUDA",
             "## What it does\nFinds `LANGUAGES CUDA`.\n\n## Use instead\n`LANGUAGES HIP`."),
)


def span_of(path: str, needle: str, nth: int = 0) -> Span:
    """The span of the ``nth`` occurrence of ``needle`` in the sample file ``path``."""
    text = SOURCES[path][1]
    start = -1
    for _ in range(nth + 1):
        start = text.index(needle, start + 1)
    end = start + len(needle)
    idx = LineIndex(text)
    (line, col), (end_line, end_col) = idx.position(start), idx.position(end)
    return Span(path, start, end, line, col, end_line, end_col)


def replace(path: str, needle: str, content: str, nth: int = 0) -> Edit:
    s = span_of(path, needle, nth)
    return Edit(path, s.start, s.end, content)


def _findings() -> list[Finding]:
    cu, cuh, cpp = "kernels/attention.cu", "kernels/attention.cuh", "src/gemm.cpp"
    return [
        Finding("API001", "cuda-runtime-call", Severity.LOW, span_of(cu, "cudaMalloc"),
                "cudaMalloc is hipMalloc on HIP",
                {"rocm-7.2": AUTO, "hip-5.2": AUTO, "oneapi": MANUAL}, Effort(1, 1, 0.0),
                Fix((replace(cu, "cudaMalloc", "hipMalloc"),), Applicability.SAFE, "rename to hipMalloc"),
                {"cuda": "cudaMalloc", "hip": "hipMalloc"}),
        Finding("API001", "cuda-runtime-call", Severity.LOW, span_of(cu, "cudaFree"),
                "cudaFree is hipFree on HIP",
                {"rocm-7.2": AUTO, "hip-5.2": AUTO, "oneapi": MANUAL}, Effort(1, 1, 0.0),
                Fix((replace(cu, "cudaFree", "hipFree"),), Applicability.SAFE, "rename to hipFree"),
                {"cuda": "cudaFree", "hip": "hipFree"}),
        Finding("API001", "cuda-runtime-call", Severity.LOW, span_of(cu, "cuda_runtime.h"),
                "<cuda_runtime.h> is <hip/hip_runtime.h>",
                {"rocm-7.2": AUTO, "hip-5.2": AUTO, "oneapi": MANUAL}, Effort(1, 1, 0.0),
                Fix((replace(cu, "cuda_runtime.h", "hip/hip_runtime.h"),), Applicability.SAFE,
                    "include <hip/hip_runtime.h>")),
        Finding("WARP001", "full-warp-mask", Severity.MEDIUM, span_of(cu, "__shfl_down_sync(0xffffffff, v, o)"),
                "__shfl_down_sync with mask 0xffffffff and offsets from 16 assume 32-lane warps; "
                "on CDNA (wavefront 64) the reduction covers half the wavefront",
                {"rocm-7.2": MANUAL, "hip-5.2": MANUAL, "oneapi": MANUAL}, Effort(2, 1, 1.5),
                Fix((replace(cu, "0xffffffff", "0xffffffffffffffffull"),), Applicability.DISPLAY_ONLY,
                    "widen the mask and start the loop at warpSize / 2"),
                {"mask": "0xffffffff", "first_offset": 16}),
        Finding("PTX001", "inline-ptx-asm", Severity.CRITICAL, span_of(cu, 'asm volatile("mov.u32 %0, %%laneid;" : "=r"(r))'),
                'inline PTX "mov.u32 %0, %%laneid;" has no HIP equivalent; use __lane_id() & (warpSize - 1)',
                {"rocm-7.2": MANUAL, "hip-5.2": BLOCKED, "oneapi": BLOCKED}, Effort(1, 1, 2.0), None,
                {"instructions": ["mov.u32"], "registers": ["%laneid"]}),
        Finding("ARCH001", "wmma-fragment", Severity.HIGH, span_of(cuh, "wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major>"),
                "wmma::fragment<matrix_a, 16, 16, 16, half> needs rocWMMA on AMD & has no SYCL mapping",
                {"rocm-7.2": MANUAL, "hip-5.2": BLOCKED, "oneapi": BLOCKED}, Effort(1, 1, 4.0), None,
                {"shape": [16, 16, 16], "type": "half"}),
        Finding("LIB001", "cublas-call", Severity.MEDIUM, span_of(cpp, "cublasSgemm"),
                "cublasSgemm → hipblasSgemm (hipBLAS); CUBLAS_OP_N → HIPBLAS_OP_N",
                {"rocm-7.2": AUTO, "hip-5.2": AUTO, "oneapi": MANUAL}, Effort(1, 1, 0.25),
                Fix((replace(cpp, "cublasSgemm", "hipblasSgemm"),
                     replace(cpp, "CUBLAS_OP_N", "HIPBLAS_OP_N", 0),
                     replace(cpp, "CUBLAS_OP_N", "HIPBLAS_OP_N", 1)),
                    Applicability.UNSAFE, "call hipBLAS", ("library",)),
                {"library": "cublas", "replacement": "hipblas"}),
        Finding("DEP001", "cuda-torch-wheel", Severity.HIGH, span_of("serving/requirements.txt", "torch==2.3.0+cu121"),
                "torch==2.3.0+cu121 is a CUDA build; ROCm builds come from the rocm6.0 index",
                {"rocm-7.2": AUTO, "hip-5.2": AUTO, "oneapi": MANUAL}, Effort(2, 1, 0.0),
                Fix((replace("serving/requirements.txt", "https://download.pytorch.org/whl/cu121",
                             "https://download.pytorch.org/whl/rocm6.0"),
                     replace("serving/requirements.txt", "torch==2.3.0+cu121", "torch==2.3.0+rocm6.0")),
                    Applicability.SAFE, "use the ROCm wheel index"),
                {"package": "torch", "version": "2.3.0"}),
        Finding("IMG001", "cuda-base-image", Severity.MEDIUM, span_of("serving/Dockerfile", "nvidia/cuda:12.1.0-devel-ubuntu22.04"),
                "nvidia/cuda:12.1.0-devel-ubuntu22.04 → rocm/dev-ubuntu-22.04:6.0",
                {"rocm-7.2": AUTO, "hip-5.2": AUTO, "oneapi": MANUAL}, Effort(1, 1, 0.5),
                Fix((replace("serving/Dockerfile", "nvidia/cuda:12.1.0-devel-ubuntu22.04", "rocm/dev-ubuntu-22.04:6.0"),),
                    Applicability.UNSAFE, "")),
        Finding("BLD001", "cmake-cuda-language", Severity.MEDIUM, span_of("CMakeLists.txt", "LANGUAGES CXX CUDA"),
                "project() enables CUDA; HIP builds need LANGUAGES HIP and CMAKE_HIP_ARCHITECTURES",
                {"rocm-7.2": MANUAL, "hip-5.2": MANUAL, "oneapi": MANUAL}, Effort(2, 2, 1.0), None, {}),
    ]


def _aggregate(findings: list[Finding], target: str) -> TargetVerdict:
    verdicts = [f.verdicts[target] for f in findings if target in f.verdicts]
    worst = Verdict.worst(verdicts)
    if worst is AS_IS:
        return TargetVerdict(target, AS_IS)
    deciding = Counter(f.code for f in findings if f.verdicts.get(target) is worst)
    return TargetVerdict(target, worst, tuple(sorted(deciding.items())))


def _sum(findings: list[Finding]) -> Effort:
    total = Effort()
    for f in findings:
        total = total + f.effort
    return total


def build_sample() -> AuditResult:
    """The sample audit result (deterministic: same object every call)."""
    findings = sorted(_findings(), key=Finding.sort_key)
    files = []
    for path in sorted(SOURCES):
        kind, text = SOURCES[path]
        mine = [f for f in findings if f.span.path == path]
        files.append(
            FileReport(path, kind, len(text.encode()), tuple(_aggregate(mine, t) for t in TARGETS), _sum(mine), len(mine))
        )
    core = ("CMakeLists.txt", "kernels/attention.cu", "kernels/attention.cuh", "src/gemm.cpp")
    serving = ("serving/Dockerfile", "serving/app.py", "serving/requirements.txt")
    workloads = tuple(
        WorkloadReport(name, path, files_, tuple(_aggregate([f for f in findings if f.span.path in files_], t)
                                                 for t in TARGETS), _sum([f for f in findings if f.span.path in files_]))
        for name, path, files_ in (("llm_kernels", ".", core), ("serving", "serving", serving))
    )
    repo = tuple(_aggregate(findings, t) for t in TARGETS)
    repo = (repo[0], TargetVerdict(repo[1].target, repo[1].verdict, repo[1].deciding,
                                   "hip-5.2 lacks rocWMMA and PTX has no HIP form"), repo[2])
    skips = (
        Skip("assets/tokenizer.bin", SkipReason.BINARY, "NUL byte in the first 8 KiB"),
        Skip("data/weights_table.cu", SkipReason.TOO_LARGE, "12.4 MiB > 4 MiB limit"),
        Skip("third_party/cutlass", SkipReason.VENDORED, "vendored library (cutlass)"),
    )
    errors = (
        {"type": "KnowledgeError", "what": "no HIP mapping table for cuDNN 9",
         "why": "knowledge/data/cudnn.yaml has no entry for version 9.1", "tip": "update vado or pass --target rocm-7.2"},
    )
    return AuditResult(
        root="/src/llm-kernels",
        targets=TARGETS,
        verdicts=repo,
        files=tuple(files),
        workloads=workloads,
        findings=tuple(findings),
        skips=skips,
        rules=tuple(sorted(RULES, key=lambda r: r.code)),
        stats=AuditStats(files_scanned=len(SOURCES), files_skipped=len(skips),
                         bytes_scanned=sum(fr.size for fr in files), duration_s=0.42, jobs=2),
        errors=errors,
        build=BuildSummary("compile-db", "build/compile_commands.json", "default", units=len(SOURCES) - 1,
                           not_built=("tools/unused.cu",)),
        tool_version="0.1.0",
    )


def build_empty() -> AuditResult:
    """An audit of an empty directory: nothing found, nothing skipped."""
    return AuditResult(root=".", targets=(), verdicts=(), files=(), workloads=(), findings=(), tool_version="0.1.0")
