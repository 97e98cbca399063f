"""Helpers for verify tests: markers for real toolchains, fake tools in tmp dirs."""

from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path

import pytest

FIXTURES = Path(__file__).parent / "fixtures"


def hipcc_ok() -> bool:
    """A hipcc that answers `--version` with a HIP version (Debian's or ROCm's)."""
    return bool(os.environ.get("VADO_HIPCC") or shutil.which("hipcc"))


def triton_ok() -> bool:
    try:
        import triton  # noqa: F401
        import triton.backends.amd.compiler  # noqa: F401
    except Exception:
        return False
    return True


requires_hipcc = pytest.mark.skipif(not hipcc_ok(), reason="hipcc not installed (apt-get install hipcc)")
requires_triton = pytest.mark.skipif(not triton_ok(), reason="triton with its AMD backend not installed (pip install triton)")
requires_cc = pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler (cc) for the CPU differential programs")


def write_tool(directory: Path, name: str, body: str) -> Path:
    """A small executable shell script ``directory/name``."""
    directory.mkdir(parents=True, exist_ok=True)
    p = directory / name
    p.write_text("#!/bin/sh\n" + body, encoding="utf-8")
    p.chmod(p.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return p


FAKE_HIP_VERSION = """HIP version: 6.2.41133-dd7f95766
AMD clang version 18.0.0git (https://github.com/RadeonOpenCompute/llvm-project roc-6.2.0 24292 26466ce804ac523b398608f17388eb6d605a3f09)
Target: x86_64-unknown-linux-gnu
Thread model: posix
InstalledDir: @DIR@
"""


def fake_toolchain(directory: Path) -> Path:
    """Fake hipcc (HIP 6.2: builds gfx90a and gfx942 only), clang, nvcc, nvidia-smi and python in ``directory``."""
    # Only shell built-ins: the tests run these with PATH set to ``directory`` alone (or empty).
    version = "".join(f"echo '{line}'; " for line in FAKE_HIP_VERSION.replace("@DIR@", str(directory)).splitlines())
    write_tool(directory, "hipcc", f"""case "$*" in
  *--version*) {version}exit 0;;
esac
out=""; prev=""; arch=""
for a in "$@"; do
  [ "$prev" = "-o" ] && out="$a"
  case "$a" in --offload-arch=*) arch="${{a#--offload-arch=}}";; esac
  prev="$a"
done
case "$arch" in
  gfx90a|gfx942) : > "$out"; exit 0;;
  *) echo "clang: error: invalid target ID '$arch'" >&2; exit 1;;
esac
""")
    write_tool(directory, "clang", "echo 'Available CPUs for this target:'; echo; echo '  gfx90a'; echo '  gfx942'; echo '  gfx1100'\n")
    write_tool(directory, "nvcc", "echo 'nvcc: NVIDIA (R) Cuda compiler driver'; echo 'Cuda compilation tools, release 12.4, V12.4.131'\n")
    write_tool(directory, "nvidia-smi", "echo 'GPU 0: NVIDIA H200 (UUID: GPU-0000)'\n")
    write_tool(directory, "python-triton", "echo '{\"found\": true, \"version\": \"3.1.0\", \"amd\": true}'\n")
    write_tool(directory, "python-none", "echo '{\"found\": false, \"problem\": \"ModuleNotFoundError: No module named triton\"}'\n")
    return directory
