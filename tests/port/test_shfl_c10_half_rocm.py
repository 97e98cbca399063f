"""WARP015 against PyTorch's real c10::Half: a torch extension's kernel that shuffles a scalar_t instantiated
with c10::Half does not compile for gfx942 (ROCm 7.2.4: "call to '__shfl_down' is ambiguous"); its torch-mode
port does. Skips without ROCm 7.2.4's hipcc or the assembled torch ROCm headers (tools/torch_rocm_headers.py)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from vado.knowledge.targets import get_target
from vado.port.file import PortOptions, port_bytes
from vado.scan.classify import FileKind

HIPCC = "/var/cache/vado/rocm-7.2.4/bin/hipcc"
SRC = """#include <c10/util/Half.h>

#ifdef USE_ROCM
#define SHFL_DOWN_SYNC(mask, var, delta) __shfl_down(var, delta)
#else
#define SHFL_DOWN_SYNC __shfl_down_sync
#endif

template <typename scalar_t>
__global__ void row_sum(scalar_t* out) {
  scalar_t val = out[threadIdx.x];
  for (int i = 16; i > 0; i /= 2) val = val + SHFL_DOWN_SYNC(0xffffffff, val, i);
  if (threadIdx.x % 32 == 0) out[threadIdx.x / 32] = val;
}

template __global__ void row_sum<c10::Half>(c10::Half*);
template __global__ void row_sum<float>(float*);
"""


def _headers():
    from vado.verify.torch_headers import find_assembled

    return find_assembled("2.13.0")


needs_rocm = pytest.mark.skipif(not os.access(HIPCC, os.X_OK) or _headers() is None or os.geteuid() != 0,
                                reason="needs ROCm 7.2.4's hipcc (root) and the assembled torch ROCm headers")


def _compile(tmp_path: Path, name: str, text: str) -> subprocess.CompletedProcess:
    src = tmp_path / f"{name}.hip"
    src.write_text(text)
    incs = [f"-I{d}" for d in _headers().include_dirs()]
    cmd = [HIPCC, "-x", "hip", "--offload-arch=gfx942", "-std=c++17", "-D__HIP_PLATFORM_AMD__=1", "-DUSE_ROCM=1",
           "-DCUDA_HAS_FP16=1", "-D__HIP_NO_HALF_OPERATORS__=1", "-U__HIP_NO_HALF_CONVERSIONS__",
           "-DHIP_ENABLE_WARP_SYNC_BUILTINS=1", *incs, "-c", str(src), "-o", str(tmp_path / f"{name}.o")]
    return subprocess.run(cmd, capture_output=True, text=True, cwd=tmp_path, timeout=600)


@needs_rocm
def test_the_port_of_a_c10_half_shuffle_compiles_where_the_original_does_not(tmp_path):
    before = _compile(tmp_path, "original", SRC)
    assert before.returncode != 0 and "call to '__shfl_down' is ambiguous" in before.stderr
    ported = port_bytes("k.cu", FileKind.CUDA_SOURCE, SRC.encode(), get_target("rocm-7.2"),
                        PortOptions(torch_extension="on")).after.decode()
    assert "#if defined(USE_ROCM)" in ported and "namespace c10 {" in ported
    after = _compile(tmp_path, "port", ported)
    assert after.returncode == 0, after.stderr[-3000:]
