"""The HIP-on-NVIDIA toolchain: tree assembly from wheels, the fatbinary adapter, a real clang build."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from vado.verify import hip_nvidia

KERNEL = """#include <hip/hip_runtime.h>
__global__ void scale(int n, float a, float* y) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] *= a; }
int main() { float* d; hipMalloc((void**)&d, 4096); hipLaunchKernelGGL(scale, dim3(4), dim3(256), 0, 0, 1024, 2.0f, d);
             hipDeviceSynchronize(); hipFree(d); return 0; }
"""


def test_fatbinary_adapter_translates_clang15_options(tmp_path):
    fake = tmp_path / "real-fatbinary"
    fake.write_text(f"#!{sys.executable}\nimport sys; print('\\n'.join(sys.argv[1:]))\n")
    fake.chmod(0o755)
    adapter = tmp_path / "fatbinary"
    adapter.write_text(hip_nvidia._FATBINARY_ADAPTER.format(real=fake))
    adapter.chmod(0o755)
    out = subprocess.run(
        [sys.executable, str(adapter), "-64", "--create", "x.fatbin", "--image=profile=sm_80,file=a.cubin",
         "--image=profile=compute_80,file=a.s"],
        capture_output=True, text=True, check=True, env=dict(os.environ, VADO_REAL_FATBINARY=""),
    ).stdout.split()
    assert out == ["-64", "--create", "x.fatbin", "--image3=kind=elf,sm=80,file=a.cubin", "--image3=kind=ptx,sm=80,file=a.s"]


def _wheel(path: Path, files: dict[str, bytes]) -> None:
    with zipfile.ZipFile(path, "w") as zf:
        for name, data in files.items():
            zf.writestr(name, data)


def test_setup_lays_out_the_tree_from_wheels(tmp_path):
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    _wheel(wheels / "rt.whl", {"nvidia/cuda_runtime/include/cuda_runtime.h": b"//",
                               "nvidia/cuda_runtime/lib/libcudart.so.11.0": b"\x7fELF"})
    _wheel(wheels / "nvcc.whl", {"nvidia/cuda_nvcc/include/crt/host_defines.h": b"//",
                                 "nvidia/cuda_nvcc/bin/ptxas": b"#!/bin/sh\n",
                                 "nvidia/cuda_nvcc/nvvm/libdevice/libdevice.10.bc": b"BC"})
    fat = tmp_path / "fatbinary"
    fat.write_text("#!/bin/sh\n")
    root = hip_nvidia.setup(tmp_path / "tree", fatbinary=str(fat), wheel_dir=str(wheels))
    assert hip_nvidia.is_ready(root)
    assert os.access(root / "bin" / "fatbinary", os.X_OK)
    assert (root / "lib64" / "libcudart.so").is_symlink()
    assert str(fat) in (root / "bin" / "fatbinary").read_text()


@pytest.mark.skipif(not (hip_nvidia.is_ready() and hip_nvidia.find_clang()
                         and os.path.exists("/usr/include/hip/nvidia_detail/nvidia_hip_runtime.h")),
                    reason="needs clang, HIP's NVIDIA headers and the CUDA 11.8 tree (python tools/setup_hip_nvidia.py)")
def test_real_build_of_a_hip_program_for_nvidia(tmp_path):
    src = tmp_path / "k.hip"
    src.write_text(KERNEL)
    hip = tmp_path / "hipinc"
    shutil.copytree("/usr/include/hip", hip / "hip")
    out = tmp_path / "k"
    cmd = hip_nvidia.build_command([str(src)], str(out), hip_include=str(hip))
    proc = subprocess.run(cmd, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert out.exists()
