"""Configuring a CMake project to read its build: ``cmake -S ROOT -B BUILD`` with the File API asked.

The build directory is vado's (under its cache directory, one per project, configuration and
compiler), never the project's tree; a second read re-runs the configure step there, which is quick
once the compilers are known. Configuring executes the project's CMake code (``execute_process``,
``file(DOWNLOAD)``, ``try_run``), so it runs only when asked (``--build cmake``/``auto``) and through
:func:`vado.verify.sandbox.run_limited`.

The original is configured as CUDA with nvcc (``-DCMAKE_CUDA_COMPILER=…``); a port with the target
toolchain's cmake (the ROCm chroot's wrapper runs cmake inside the chroot, where HIP's CMake
packages are).
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Sequence

from vado.build.compdb import read_compile_db
from vado.build.fileapi import find_reply, read_file_api, reply_dir, write_query
from vado.build.model import BuildConfig


def cuda_args(nvcc: str, archs: str = "80") -> list[str]:
    """Arguments that configure the original's CUDA language with ``nvcc`` (no GPU needed)."""
    return [f"-DCMAKE_CUDA_COMPILER={nvcc}", f"-DCMAKE_CUDA_ARCHITECTURES={archs}"]


def hip_args(archs: Sequence[str] = ("gfx942", "gfx950")) -> list[str]:
    """Arguments that configure a port's HIP language for the target's offload archs."""
    return [f"-DCMAKE_HIP_ARCHITECTURES={';'.join(archs)}", f"-DGPU_TARGETS={';'.join(archs)}",
            f"-DAMDGPU_TARGETS={';'.join(archs)}"]


def build_dir_for(root: str | os.PathLike, key: Sequence[str]) -> Path:
    """vado's build directory for ``root`` configured with the words ``key``."""
    from vado.verify.toolchains import _cache_dir

    h = hashlib.sha256("\0".join([str(Path(root).resolve()), *key]).encode()).hexdigest()[:16]
    return _cache_dir() / "cmake" / f"{Path(root).name}-{h}"


def configure(
    root: str | os.PathLike,
    *,
    cmake: str = "cmake",
    args: Sequence[str] = (),
    build_dir: str | os.PathLike | None = None,
    timeout_s: float = 300.0,
    env: dict[str, str] | None = None,
) -> BuildConfig:
    """Configure ``root`` with ``cmake`` and ``args`` (``-DNAME=VALUE``) and read the result.

    Raises :class:`ValueError` with CMake's last error lines when the configure step fails and left
    nothing to read.
    """
    from vado.verify.sandbox import Limits, compiler_confinement, run_limited

    root = Path(root).resolve()
    bdir = Path(build_dir) if build_dir else build_dir_for(root, [cmake, *args])
    bdir.mkdir(parents=True, exist_ok=True)
    write_query(bdir)
    cmd = [cmake, "-S", str(root), "-B", str(bdir), "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON", *args]
    # The project's CMake code runs (execute_process, try_compile): confined to the source tree (read-only),
    # the build directory and the toolchains, with no network and no other host file (vado.verify.sandbox).
    view = compiler_confinement(cmake, read_only=(root,), writable=(bdir,))
    out = run_limited(cmd, cwd=bdir, env=env, confine=view,
                      limits=Limits(timeout_s=timeout_s, cpu_s=int(timeout_s) * 2, memory_mb=8192, file_mb=512))
    ran = f"{os.path.basename(cmake)} -S {root} -B {bdir} {' '.join(args)}".rstrip()
    if not out.ok:
        lines = [ln.strip() for ln in (out.stderr + "\n" + out.stdout).splitlines() if ln.strip()]
        errs: list[str] = []
        for i, ln in enumerate(lines):
            if "CMake Error" in ln or "error" in ln:
                # CMake prints the message on the lines after "CMake Error at FILE:LINE (message):".
                errs.append(" ".join(lines[i:i + 2]) if ln.endswith(":") else ln)
        errs = errs[:3] or lines[-3:]
        raise ValueError(f"{ran} failed ({out.why()}): " + " | ".join(errs))
    reply = reply_dir(bdir)
    if find_reply(bdir) is not None:
        cfg = read_file_api(reply, root)
    elif (bdir / "compile_commands.json").is_file():
        cfg = read_compile_db(bdir / "compile_commands.json", root)
    else:
        raise ValueError(f"{ran} wrote neither a File API reply nor compile_commands.json")
    from dataclasses import replace

    return replace(cfg, ran=(ran,))
