"""WARP015's class is c10::Half only: c10::complex<float>/<double> and c10::BFloat16 given to HIP's shuffles, measured.

Measured with ROCm 7.2.4's hipcc for gfx942 against torch 2.13.0's assembled ROCm headers
(tools/torch_rocm_headers.py), 2026-12-05, each call alone in a kernel:

- ``c10::complex<float>`` and ``c10::complex<double>`` given to ``__shfl``, ``__shfl_up``, ``__shfl_down``,
  ``__shfl_xor`` and to ``__shfl_sync``/``__shfl_down_sync``/``__shfl_xor_sync`` (64-bit mask): "no
  matching function" (c10::complex converts to no scalar). nvcc 13 rejects the same calls on CUDA
  (``__shfl_down_sync``/``__shfl_xor_sync``: "no instance of overloaded function"): a CUDA source that
  compiles never gives c10::complex to a shuffle (PyTorch's own ``WARP_SHFL_DOWN`` splits it into
  ``real_``/``imag_``), so there is nothing for a port to fix and WARP015 reports nothing.
- ``c10::BFloat16`` to every one of them: compiles (its conversion to ``__hip_bfloat16`` is explicit,
  so only ``float`` is one user conversion away).
- ``c10::Half`` to the mask-less four: "call to '__shfl_down' is ambiguous" (WARP015's case); to the
  ``_sync`` templates: compiles.

The compile checks skip without ROCm 7.2.4's hipcc (root) or the assembled headers; the nvcc one also
without a torch include directory (``VADO_TORCH_INCLUDE``, a CPU wheel's ``torch/include``).
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from vado.knowledge.targets import get_target
from vado.rules.engine import check_text

HIPCC = "/var/cache/vado/rocm-7.2.4/bin/hipcc"
NVCC = "/usr/local/bin/nvcc"
MASKLESS = ("__shfl(v, 1)", "__shfl_up(v, 1)", "__shfl_down(v, 1)", "__shfl_xor(v, 1)")
SYNC = ("__shfl_sync(0xffffffffffffffffull, v, 1)", "__shfl_down_sync(0xffffffffffffffffull, v, 1)",
        "__shfl_xor_sync(0xffffffffffffffffull, v, 1)")

SOURCE = """#include <ATen/ATen.h>
#include <ATen/Dispatch.h>
#include <c10/util/complex.h>
#include <c10/util/BFloat16.h>

__global__ void shuffle_complex(c10::complex<float>* p, c10::BFloat16* q) {
  c10::complex<float> v = p[threadIdx.x];
  // ok: WARP015
  p[threadIdx.x] = c10::complex<float>(__shfl_down(v.real(), 1), __shfl_down(v.imag(), 1));
  c10::BFloat16 b = q[threadIdx.x];
  // ok: WARP015
  q[threadIdx.x] = __shfl_xor(b, 1);
}

template <typename scalar_t>
__global__ void reduce(scalar_t* out) {
  scalar_t val = out[threadIdx.x];
  // ok: WARP015
  val += __shfl_down(val, 1);
  out[threadIdx.x] = val;
}

void launch(const at::Tensor& t) {
  AT_DISPATCH_COMPLEX_TYPES(t.scalar_type(), "reduce", [&] { reduce<scalar_t><<<1, 64>>>(t.data_ptr<scalar_t>()); });
}
"""


def test_warp015_reports_no_complex_or_bfloat16_shuffle():
    findings = check_text("k.cu", SOURCE, [get_target("rocm-7.2")])
    assert [f for f in findings if f.code == "WARP015"] == []


def _headers():
    from vado.verify.torch_headers import find_assembled

    return find_assembled("2.13.0")


needs_rocm = pytest.mark.skipif(not os.access(HIPCC, os.X_OK) or _headers() is None or os.geteuid() != 0,
                                reason="needs ROCm 7.2.4's hipcc (root) and the assembled torch ROCm headers")


def _kernel(type_: str, call: str) -> str:
    return ("#include <c10/util/complex.h>\n#include <c10/util/Half.h>\n#include <c10/util/BFloat16.h>\n"
            "#include <hip/hip_runtime.h>\n"
            f"__global__ void k({type_}* p) {{ {type_} v = p[threadIdx.x]; p[threadIdx.x] = {call}; }}\n")


def _hipcc(tmp_path: Path, name: str, text: str) -> subprocess.CompletedProcess:
    src = tmp_path / f"{name}.hip"
    src.write_text(text)
    incs = [f"-I{d}" for d in _headers().include_dirs()]
    cmd = [HIPCC, "-x", "hip", "--offload-arch=gfx942", "-std=c++17", "-D__HIP_PLATFORM_AMD__=1", "-DUSE_ROCM=1",
           "-DCUDA_HAS_FP16=1", "-D__HIP_NO_HALF_OPERATORS__=1", "-U__HIP_NO_HALF_CONVERSIONS__",
           "-DHIP_ENABLE_WARP_SYNC_BUILTINS=1", *incs, "-fsyntax-only", str(src)]
    return subprocess.run(cmd, capture_output=True, text=True, cwd=tmp_path, timeout=600)


@needs_rocm
@pytest.mark.parametrize("type_", ["c10::complex<float>", "c10::complex<double>"])
def test_rocm_rejects_c10_complex_in_every_shuffle(tmp_path, type_):
    for i, call in enumerate(MASKLESS + SYNC):
        proc = _hipcc(tmp_path, f"c{i}", _kernel(type_, call))
        assert proc.returncode != 0 and "no matching function for call to '__shfl" in proc.stderr, call


@needs_rocm
def test_rocm_takes_c10_bfloat16_in_every_shuffle(tmp_path):
    body = "".join(f"__global__ void k{i}(c10::BFloat16* p) {{ c10::BFloat16 v = p[0]; p[0] = {c}; }}\n"
                   for i, c in enumerate(MASKLESS + SYNC))
    proc = _hipcc(tmp_path, "bf16", _kernel("c10::BFloat16", "v") + body)
    assert proc.returncode == 0, proc.stderr[-3000:]


def _torch_include() -> str | None:
    for d in (os.environ.get("VADO_TORCH_INCLUDE", ""), "/tmp/torchext/wheel/torch/include"):
        if d and os.path.isfile(os.path.join(d, "c10", "util", "complex.h")):
            return d
    return None


@pytest.mark.skipif(not os.access(NVCC, os.X_OK) or _torch_include() is None,
                    reason="needs nvcc and a torch include directory (VADO_TORCH_INCLUDE)")
def test_cuda_rejects_c10_complex_in_shuffles_too(tmp_path):
    src = tmp_path / "k.cu"
    src.write_text("#include <c10/util/complex.h>\n"
                   "__global__ void k(c10::complex<float>* p) { c10::complex<float> v = p[0];\n"
                   "  p[0] = __shfl_down_sync(0xffffffffu, v, 1); }\n")
    proc = subprocess.run([NVCC, "-std=c++17", "-arch=sm_90", f"-I{_torch_include()}", "-c", str(src), "-o",
                           str(tmp_path / "k.o")], capture_output=True, text=True, timeout=600)
    assert proc.returncode != 0 and 'no instance of overloaded function "__shfl_down_sync"' in proc.stdout + proc.stderr
