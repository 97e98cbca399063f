"""Compile fixture outputs with the real toolchain of their target.

A port for ``rocm-7.2`` is compiled with a hipcc of HIP 7.2 — in CI the ROCm
7.2.4 chroot that ``scripts/rocm-toolchain.sh`` builds — for gfx942 (MI300X)
and gfx950 (MI355X). A port for ``hip-5.2`` is
compiled with Debian 12's HIP 5.2 for gfx90a, the toolchain that profile
describes. The toolchain is chosen by version exactly as ``vado verify`` does
(:func:`vado.verify.toolchains.choose_hip_toolchain`), and only a toolchain of
the target's own release line is used (a ``rocm-6.4`` port is not compiled
when only 7.2 is here: 7.2 removed names 6.4 has), so a pass always means the
target's own compiler accepted the file.

``VADO_REQUIRE_ROCM=1`` (set by ``scripts/test.sh``) turns a missing ROCm 7.2
toolchain from a skip into a failure: CI must not go green by skipping.
"""

from __future__ import annotations

import functools
import os
import subprocess
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import pytest

REQUIRE_ROCM = os.environ.get("VADO_REQUIRE_ROCM") == "1"

#: Offload targets per HIP release line the fixtures are compiled for.
ROCM_ARCHS = ("gfx942", "gfx950")
HIP52_ARCHS = ("gfx90a",)


@dataclass(frozen=True)
class FixtureCompiler:
    """A hipcc and the archs a target's fixtures are compiled for."""

    path: str
    release: tuple[int, int]
    archs: tuple[str, ...]
    label: str

    @property
    def is_hip52(self) -> bool:
        """Debian's HIP 5.2 (or older): no hipBLAS/rocThrust/hipCUB/roctx headers, no ``*_sync`` warp functions."""
        return self.release < (6, 0)


@functools.cache
def compiler_for(target_name: str) -> FixtureCompiler | None:
    """The hipcc that checks ports for ``target_name``, or ``None`` when none at or above its release is here."""
    from vado.knowledge.targets import get_target
    from vado.verify.toolchains import choose_hip_toolchain, hip_release

    target = get_target(target_name)
    choice = choose_hip_toolchain(target.hip_version)
    tc = choice.toolchain
    # The target's own release line only: a rocm-6.4 port may use names 7.2 removed (hipBLAS's _v2 API).
    if tc is None or tc.release != hip_release(target.hip_version):
        return None
    archs = HIP52_ARCHS if tc.release < (6, 0) else ROCM_ARCHS
    return FixtureCompiler(tc.path, tc.release, archs, tc.label)


def require_compiler(target_name: str) -> FixtureCompiler:
    """:func:`compiler_for`, or skip — fail under ``VADO_REQUIRE_ROCM=1`` for a ROCm target."""
    found = compiler_for(target_name)
    if found is not None:
        return found
    why = f"no hipcc of {target_name}'s release here"
    if REQUIRE_ROCM and target_name == "rocm-7.2":
        pytest.fail(f"{why}; VADO_REQUIRE_ROCM=1: build it with `bash scripts/rocm-toolchain.sh`")
    pytest.skip(why + (": as root, bash scripts/rocm-toolchain.sh" if not target_name.startswith("hip-5")
                       else ": apt-get install hipcc libamdhip64-dev rocm-device-libs"))


def compile_one(compiler: FixtureCompiler, source: Path, out_dir: Path, include_dirs: Sequence[Path] = (),
                timeout: float = 600, defines: Sequence[str] = ()) -> str | None:
    """Compile ``source`` as HIP for every arch of ``compiler`` in one call; ``None`` on success, else stderr.

    ``defines`` (``NAME`` or ``NAME=VALUE``) are passed as ``-D``: what a project's own HIP build defines."""
    out_dir.mkdir(parents=True, exist_ok=True)
    cmd = [compiler.path, *(f"--offload-arch={a}" for a in compiler.archs), "-c", "-x", "hip"]
    cmd += [f"-D{d}" for d in defines]
    for inc in include_dirs:
        cmd += ["-I", str(inc)]
    cmd += [str(source), "-o", str(out_dir / (source.name + ".o"))]
    env = dict(os.environ, HIP_PLATFORM="amd")
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=out_dir, timeout=timeout)
    except subprocess.TimeoutExpired:
        return f"timed out after {timeout:g}s: {' '.join(cmd)}"
    return None if proc.returncode == 0 else (proc.stderr or proc.stdout)[-4000:] or f"exit code {proc.returncode}"


def compile_all(jobs: Sequence[tuple], out_dir: Path) -> dict[str, str | None]:
    """``{key: None | stderr}`` for ``(key, compiler, source, include_dirs[, defines])`` jobs, run on every core."""
    def run(job):
        key, compiler, source, incs, *defines = job
        return key, compile_one(compiler, source, out_dir / key.replace("/", "_"), incs,
                                defines=defines[0] if defines else ())

    with ThreadPoolExecutor(max_workers=max(1, os.cpu_count() or 1)) as pool:
        return dict(pool.map(run, jobs))
