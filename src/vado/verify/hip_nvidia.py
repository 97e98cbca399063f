"""HIP on NVIDIA without a matching CUDA: clang's CUDA mode, CUDA 11.8 headers, HIP's NVIDIA headers.

HIP runs on NVIDIA GPUs through header-only wrappers (``hip/nvidia_detail/``)
that map every hip* call onto CUDA. Debian ships HIP 5.2's wrappers, which
call CUDA APIs that CUDA 12 and 13 removed (texture references,
``cudaDeviceProp::clockRate`` …), so they do not build with a current nvcc.
They do build against CUDA 11.8, and clang compiles CUDA itself, so this
module assembles a minimal CUDA 11.8 tree from NVIDIA's PyPI wheels (headers,
ptxas, libdevice, libcudart) and builds HIP sources with::

    clang++ -x cuda --cuda-path=<that tree> --cuda-gpu-arch=sm_80 -D__HIP_PLATFORM_NVIDIA__ -I<hip headers>

The binary embeds sm_80 code and compute_80 PTX, which the driver compiles for
newer GPUs (Hopper included) at load time, and needs ``libcudart.so.11.0``
beside it (``lib/`` next to the binary, found through its rpath).

clang 15 writes the CUDA-11-era ``fatbinary --image=profile=…`` options; the
tree's ``bin/fatbinary`` translates them for the ``--image3=kind=…,sm=…`` syntax
of the fatbinary of an installed newer CUDA, the one piece the wheels lack.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path
from typing import Sequence

from vado.errors import ToolchainError
from vado.verify.sandbox import run_capped

#: NVIDIA's PyPI wheels the tree is built from (headers, ptxas/libdevice, libcudart, cuRAND headers that clang's
#: CUDA wrapper includes).
WHEELS = (
    "nvidia-cuda-runtime-cu11==11.8.89",
    "nvidia-cuda-nvcc-cu11==11.8.89",
    "nvidia-curand-cu11==10.3.0.86",
)

_FATBINARY_ADAPTER = '''#!/usr/bin/env python3
# vado: clang 15 speaks the CUDA <= 11 fatbinary syntax (--image=profile=P,file=F); newer
# fatbinary speaks --image3=kind=K,sm=N,file=F. Translate and run the real one.
import os, sys
real = os.environ.get("VADO_REAL_FATBINARY") or "{real}"
out = []
for a in sys.argv[1:]:
    if a.startswith(("--image=", "-image=")):
        kv = dict(p.split("=", 1) for p in a.split("=", 1)[1].split(","))
        prof = kv["profile"]
        kind = "ptx" if prof.startswith("compute_") else "elf"
        out.append("--image3=kind=%s,sm=%s,file=%s" % (kind, prof.split("_", 1)[1], kv["file"]))
    else:
        out.append(a)
os.execv(real, [real] + out)
'''


def default_root() -> Path:
    """Where the assembled tree lives: ``$VADO_CUDA11_PATH`` or ``~/.cache/vado/cuda-11.8``."""
    env = os.environ.get("VADO_CUDA11_PATH")
    return Path(env) if env else Path.home() / ".cache" / "vado" / "cuda-11.8"


def is_ready(root: Path | None = None) -> bool:
    """Whether ``root`` holds a usable tree."""
    root = root or default_root()
    return all((root / p).exists() for p in ("include/cuda_runtime.h", "include/crt/host_defines.h",
                                            "bin/ptxas", "bin/fatbinary", "nvvm/libdevice/libdevice.10.bc",
                                            "lib64/libcudart.so.11.0"))


def find_clang() -> str | None:
    """A clang++ with CUDA support (Debian's clang-15 comes with hipcc)."""
    for name in ("clang++-15", "clang++", "/usr/lib/llvm-15/bin/clang++"):
        path = shutil.which(name)
        if path:
            return path
    return None


def setup(root: Path | None = None, *, fatbinary: str | None = None, wheel_dir: str | None = None) -> Path:
    """Assemble the CUDA 11.8 tree at ``root`` from the wheels (downloaded with pip unless ``wheel_dir`` has them)."""
    root = root or default_root()
    real_fatbinary = fatbinary or shutil.which("fatbinary") or "/usr/local/cuda/bin/fatbinary"
    if not os.path.exists(real_fatbinary):
        raise ToolchainError("no fatbinary found", "clang needs NVIDIA's fatbinary to embed device code",
                             "install a CUDA toolkit (nvcc) or pass --fatbinary PATH")
    tmp = Path(tempfile.mkdtemp(prefix="vado-cuda11-"))
    wheels = Path(wheel_dir) if wheel_dir else tmp / "wheels"
    if not wheel_dir:
        try:
            proc = run_capped([sys.executable, "-m", "pip", "download", "--no-deps", "-q", "-d", str(wheels), *WHEELS],
                              timeout=1800)
        except subprocess.TimeoutExpired:
            raise ToolchainError("downloading NVIDIA's CUDA 11.8 wheels timed out", "after 30 minutes",
                                 "check that PyPI is reachable, or pass a directory of the wheels") from None
        if proc.returncode != 0:
            raise ToolchainError("downloading NVIDIA's CUDA 11.8 wheels failed", proc.stderr.strip()[-500:],
                                 "check that PyPI is reachable, or pass a directory of the wheels")
    unpacked = tmp / "x"
    for whl in sorted(wheels.glob("*.whl")):
        with zipfile.ZipFile(whl) as zf:
            zf.extractall(unpacked)
    nv = unpacked / "nvidia"
    (root / "bin").mkdir(parents=True, exist_ok=True)
    (root / "lib64").mkdir(parents=True, exist_ok=True)
    (root / "nvvm").mkdir(parents=True, exist_ok=True)
    for inc in (nv / "cuda_runtime" / "include", nv / "cuda_nvcc" / "include", nv / "curand" / "include"):
        if inc.is_dir():
            shutil.copytree(inc, root / "include", dirs_exist_ok=True)
    # cuda_profiler_api.h (cudaProfilerStart/Stop, unchanged since CUDA 4) is in no 11.x wheel;
    # HIP's NVIDIA headers include it, so take the installed toolkit's.
    for cand in (Path(real_fatbinary).resolve().parent.parent / "include" / "cuda_profiler_api.h",
                 Path("/usr/local/cuda/include/cuda_profiler_api.h")):
        if cand.exists():
            shutil.copy2(cand, root / "include" / "cuda_profiler_api.h")
            break
    shutil.copy2(nv / "cuda_nvcc" / "bin" / "ptxas", root / "bin" / "ptxas")
    shutil.copytree(nv / "cuda_nvcc" / "nvvm" / "libdevice", root / "nvvm" / "libdevice", dirs_exist_ok=True)
    shutil.copy2(nv / "cuda_runtime" / "lib" / "libcudart.so.11.0", root / "lib64" / "libcudart.so.11.0")
    link = root / "lib64" / "libcudart.so"
    if not link.exists():
        link.symlink_to("libcudart.so.11.0")
    adapter = root / "bin" / "fatbinary"
    adapter.write_text(_FATBINARY_ADAPTER.format(real=real_fatbinary))
    for exe in (adapter, root / "bin" / "ptxas"):
        exe.chmod(0o755)
    (root / "version.txt").write_text("CUDA Version 11.8.89\n")
    shutil.rmtree(tmp, ignore_errors=True)
    return root


def build_command(
    sources: Sequence[str], out: str, *, hip_include: str, root: Path | None = None, gpu_arch: str = "sm_80",
    flags: Sequence[str] = (),
) -> list[str]:
    """The clang command that builds HIP ``sources`` for NVIDIA into ``out`` (libcudart in ``out``'s ``lib/``)."""
    root = root or default_root()
    clang = find_clang()
    if clang is None:
        raise ToolchainError("clang++ not found", "the HIP-on-NVIDIA build uses clang's CUDA mode",
                             "apt-get install hipcc (it brings clang-15)")
    return [
        clang, "-x", "cuda", f"--cuda-path={root}", f"--cuda-gpu-arch={gpu_arch}", "-O2", "-std=c++17",
        "-D__HIP_PLATFORM_NVIDIA__", "-D__HIP_PLATFORM_NVCC__", f"-I{hip_include}", "-Wno-unknown-cuda-version",
        *flags, *sources, "-o", out, f"-L{root / 'lib64'}", "-lcudart", "-Wl,-rpath,$ORIGIN/lib",
    ]


def bundle_runtime(out_dir: str | os.PathLike, root: Path | None = None) -> Path:
    """Copy ``libcudart.so.11.0`` into ``out_dir/lib`` so a built binary runs on another machine."""
    root = root or default_root()
    lib = Path(out_dir) / "lib"
    lib.mkdir(parents=True, exist_ok=True)
    shutil.copy2(root / "lib64" / "libcudart.so.11.0", lib / "libcudart.so.11.0")
    return lib
