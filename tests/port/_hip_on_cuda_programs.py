"""A CUDA test program against its port built with HIP on CUDA: the shared steps of the GPU tests of
vado's local helpers (test_half_math.py, test_half_casts.py)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from vado.knowledge.targets import get_target
from vado.port.tree import port_tree
from vado.verify import hip_on_cuda

NVCC = shutil.which("nvcc") or shutil.which("nvcc", path="/usr/local/cuda/bin")


def port_and_build(program: Path, tmp_path: Path, arch: str):
    """``program`` ported for rocm-7.2 and built for NVIDIA ``arch`` with HIP on CUDA: (the build's
    evidence, the ported text)."""
    src = tmp_path / "src"
    src.mkdir()
    shutil.copy(program, src / program.name)
    port_tree(src, tmp_path / "port", get_target("rocm-7.2"))
    text = (tmp_path / "port" / program.name).read_text()
    ev = hip_on_cuda.build_port(tmp_path / "port", tmp_path / "out" / "prog", nvcc=NVCC, arch=arch, wave=32)
    return ev, text


def original_and_port_outputs(program: Path, tmp_path: Path) -> tuple[list[str], list[str]]:
    """The output lines of ``program`` built by nvcc and of the port :func:`port_and_build` made for this
    GPU (``native``); both must exit 0."""
    orig = tmp_path / "orig"
    subprocess.run([NVCC, "-O2", "-arch=native", "-o", str(orig), str(program)], check=True, capture_output=True,
                   timeout=600)
    want = subprocess.run([str(orig)], capture_output=True, text=True, timeout=120)
    got = subprocess.run([str(tmp_path / "out" / "prog")], capture_output=True, text=True, timeout=120)
    assert want.returncode == 0 and got.returncode == 0, want.stderr + got.stderr
    return want.stdout.splitlines(), got.stdout.splitlines()
