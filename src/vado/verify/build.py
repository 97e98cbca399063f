"""Building whole programs for differential runs: the original with nvcc, the port with HIP.

A tree is built as one program: every translation unit it holds
(:func:`vado.verify.compile.find_units`) compiled and linked together, with the
include paths and macros of :mod:`vado.verify.buildflags` (the build model's units: a compile
database the tree holds, else the guess). Trees that hold
several programs are built by the user, who passes the binaries
(``--original-bin``/``--port-bin``).

The port is built one of three ways:

- ``amd``: ``hipcc --offload-arch=ARCH`` under ``HIP_PLATFORM=amd``;
- ``nvidia`` (HIP on NVIDIA): nvcc with ``-D__HIP_PLATFORM_NVIDIA__`` and the
  HIP headers that carry ``hip/nvidia_detail/`` (from ROCm, HIP_PATH, or
  Debian's libamdhip64-dev). The ``hip/`` folder is copied into the scratch
  directory and named with ``-I`` because ``-isystem /usr/include`` breaks
  libstdc++'s ``#include_next``. These headers must match the CUDA release:
  HIP 5.2's call APIs that CUDA 13 removed (texture references,
  ``cudaDeviceProp::clockRate`` …), so that pairing fails to build, and
  the failure is recorded as such.
- ``nvidia-clang`` (HIP on NVIDIA, for those headers): clang's CUDA mode against
  the CUDA 11.8 tree :mod:`vado.verify.hip_nvidia` assembles from NVIDIA's PyPI
  wheels; sm_80 code plus PTX the driver JIT-compiles for newer GPUs.

Binaries go to a scratch directory the caller owns; nothing is written into a
source tree.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Sequence

from vado.model import Evidence
from vado.verify.buildflags import flags_for
from vado.verify.compile import Unit, find_units
from vado.verify.mapping import parse_diagnostics
from vado.verify.sandbox import COMPILE_LIMITS, Limits, run_limited
from vado.verify.toolchains import hip_env


def find_hip_nvidia_headers(explicit: str | None = None) -> str | None:
    """A directory whose ``hip/nvidia_detail/nvidia_hip_runtime.h`` exists (HIP's NVIDIA platform)."""
    cands = [explicit, os.environ.get("HIP_PATH") and os.path.join(os.environ["HIP_PATH"], "include"),
             os.environ.get("ROCM_PATH") and os.path.join(os.environ["ROCM_PATH"], "include"),
             "/opt/rocm/include", "/usr/include"]
    for c in cands:
        if c and os.path.isfile(os.path.join(c, "hip", "nvidia_detail", "nvidia_hip_runtime.h")):
            return c
    return None


#: Options whose value is the next word: merged as a pair.
_PAIRED = {"-isystem", "-iquote", "-idirafter", "-include", "-imacros", "-Xclang", "-mllvm", "-Xarch_host",
           "-Xarch_device"}


def _merged_flags(root: Path, units: Sequence[Unit]) -> list[str]:
    """The flags of every unit, each option once, pairs (``-isystem DIR``) kept together.

    ``-iquote DIR`` becomes ``-IDIR``: nvcc, which builds the original and HIP on CUDA, has no
    ``-iquote`` (a whole-program build keeps the older, wider search; per-unit verify does not)."""
    from vado.build.read import BuildOptions, read_build

    config = read_build(root, BuildOptions(mode="compile-db"))
    seen: list[tuple[str, ...]] = []
    for u in units:
        words = flags_for(root, u.abs_path, config).args()
        i = 0
        while i < len(words):
            opt = tuple(words[i:i + 2]) if words[i] in _PAIRED else (words[i],)
            i += len(opt)
            if opt[0] == "-iquote" and len(opt) == 2:
                opt = (f"-I{opt[1]}",)
            if opt not in seen:
                seen.append(opt)
    return [w for opt in seen for w in opt]


def build_program(
    how: str,
    root: str | os.PathLike,
    out_bin: str | os.PathLike,
    *,
    compiler: str,
    arch: str,
    hip_include: str | None = None,
    extra: Sequence[str] = (),
    limits: Limits = COMPILE_LIMITS,
    role: str = "",
) -> Evidence:
    """Build the tree at ``root`` into ``out_bin``; ``how`` is ``nvcc``, ``amd`` or ``nvidia``.

    Returns a ``build`` evidence record (failed builds included: their errors
    are in ``detail["diagnostics"]``).
    """
    root_path = Path(root).resolve()
    units, _ = find_units(root_path)
    subject = role or root_path.name
    if not units:
        return Evidence(kind="build", subject=subject, passed=False, detail={"status": "fail", "reason": "no translation units"})
    files = [str(u.abs_path) for u in units]
    flags = _merged_flags(root_path, units)
    out_bin = Path(out_bin)
    out_bin.parent.mkdir(parents=True, exist_ok=True)
    env = None
    if how == "nvcc":
        cmd = [compiler, "-O2", f"-arch={arch}", "-x", "cu", *flags, *extra, *files, "-o", str(out_bin)]
        toolchain = "nvcc"
    elif how == "amd":
        cmd = [compiler, "-O2", f"--offload-arch={arch}", "-x", "hip", *flags, *extra, *files, "-o", str(out_bin)]
        env = hip_env()
        toolchain = "hipcc"
    elif how == "nvidia":
        inc = find_hip_nvidia_headers(hip_include)
        if inc is None:
            return Evidence(kind="build", subject=subject, passed=False, toolchain="nvcc",
                            detail={"status": "unavailable", "reason": "no HIP headers with hip/nvidia_detail/ found "
                                    "(install ROCm's HIP headers or pass --hip-include DIR)"})
        local = out_bin.parent / "hip-include"
        if not (local / "hip").exists():
            shutil.copytree(os.path.join(inc, "hip"), local / "hip")
        cmd = [compiler, "-O2", f"-arch={arch}", "-x", "cu", "-D__HIP_PLATFORM_NVIDIA__", f"-I{local}", *flags,
               *extra, *files, "-o", str(out_bin)]
        toolchain = "nvcc (HIP on NVIDIA)"
    elif how == "nvidia-clang":
        from vado.verify import hip_nvidia

        inc = find_hip_nvidia_headers(hip_include)
        if inc is None or not hip_nvidia.is_ready() or hip_nvidia.find_clang() is None:
            return Evidence(kind="build", subject=subject, passed=False, toolchain="clang (HIP on NVIDIA)",
                            detail={"status": "unavailable", "reason": "needs HIP's NVIDIA headers, clang and the CUDA 11.8 "
                                    "tree of vado.verify.hip_nvidia (python tools/setup_hip_nvidia.py)"})
        local = out_bin.parent / "hip-include"
        if not (local / "hip").exists():
            shutil.copytree(os.path.join(inc, "hip"), local / "hip")
        cmd = hip_nvidia.build_command(files, str(out_bin), hip_include=str(local),
                                       gpu_arch=arch if arch.startswith("sm_") and arch <= "sm_87" else "sm_80",
                                       flags=[*flags, *extra])
        hip_nvidia.bundle_runtime(out_bin.parent)
        toolchain = "clang (HIP on NVIDIA, CUDA 11.8)"
    else:
        raise ValueError(f"unknown build kind {how!r}")
    outcome = run_limited(cmd, cwd=out_bin.parent, env=env, limits=limits)
    return build_evidence(outcome, subject, arch=arch, toolchain=toolchain, how=how)


def build_evidence(outcome, subject: str, *, arch: str, toolchain: str, **detail) -> Evidence:
    """The build's :class:`Evidence` from its sandboxed run (``outcome`` of :func:`run_limited`): status
    pass/timeout/fail, ``detail`` (how it was built), and the first 50 parsed diagnostics of a failure."""
    detail = {"status": "pass" if outcome.ok else ("timeout" if outcome.timed_out else "fail"), **detail}
    if not outcome.ok:
        diags = parse_diagnostics(outcome.stderr)
        detail["diagnostics"] = [d.to_json() for d in diags[:50]]
        detail["errors"] = len(diags)
    return Evidence(kind="build", subject=subject, passed=outcome.ok, command=outcome.command,
                    returncode=outcome.returncode, stdout=outcome.stdout, stderr=outcome.stderr,
                    duration_s=outcome.duration_s, arch=arch, toolchain=toolchain, detail=detail)
