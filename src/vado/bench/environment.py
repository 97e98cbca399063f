"""What machine a benchmark runs on: GPUs from the vendor tools, the CPU, toolchains.

Each probe is a short subprocess with a timeout; a missing tool is simply absent
from the result. Nothing here needs a GPU.
"""

from __future__ import annotations

import functools
import os
import platform
import shutil
import subprocess
import sys

from vado.model.bench import DeviceInfo, Environment
from vado.verify.sandbox import run_capped

_TIMEOUT = 10


def _run(cmd: list[str]) -> str | None:
    exe = shutil.which(cmd[0])
    if exe is None:
        return None
    try:
        proc = run_capped([exe, *cmd[1:]], timeout=_TIMEOUT)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return proc.stdout if proc.returncode == 0 else None


def nvidia_devices() -> list[DeviceInfo]:
    """GPUs that ``nvidia-smi`` lists."""
    out = _run(
        ["nvidia-smi", "--query-gpu=name,driver_version,memory.total,compute_cap", "--format=csv,noheader,nounits"]
    )
    devices = []
    for line in (out or "").splitlines():
        parts = [p.strip() for p in line.split(",")]
        if len(parts) < 3 or not parts[0]:
            continue
        mem = int(float(parts[2])) if parts[2].replace(".", "", 1).isdigit() else 0
        arch = "sm_" + parts[3].replace(".", "") if len(parts) > 3 and parts[3] else ""
        devices.append(DeviceInfo("nvidia", parts[0], parts[1], mem, arch, "nvidia-smi"))
    return devices


def amd_devices() -> list[DeviceInfo]:
    """GPUs that ``rocm-smi`` (or ``amd-smi``) lists, with their gfx target from ``rocminfo``."""
    out = _run(["rocm-smi", "--showproductname", "--csv"])
    devices = []
    archs = []
    info = _run(["rocminfo"])
    for line in (info or "").splitlines():
        line = line.strip()
        if line.startswith("Name:") and "gfx" in line:
            archs.append(line.split()[-1])
    for i, line in enumerate((out or "").splitlines()[1:]):
        parts = [p.strip() for p in line.split(",")]
        if len(parts) >= 2 and parts[0].startswith("card"):
            name = next((p for p in parts[1:] if p), "AMD GPU")
            devices.append(DeviceInfo("amd", name, "", 0, archs[i] if i < len(archs) else "", "rocm-smi"))
    if not devices and shutil.which("amd-smi"):
        out = _run(["amd-smi", "static", "--asic", "--csv"])
        for i, line in enumerate((out or "").splitlines()[1:]):
            parts = [p.strip() for p in line.split(",")]
            if parts and parts[0].isdigit():
                devices.append(DeviceInfo("amd", parts[2] if len(parts) > 2 else "AMD GPU", "", 0, archs[i] if i < len(archs) else "", "amd-smi"))
    return devices


def cpu_name() -> str:
    """The CPU model name from /proc/cpuinfo (or platform)."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as fh:
            for line in fh:
                if line.lower().startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def toolchain_versions() -> dict[str, str]:
    """First version line of the toolchains present (nvcc, hipcc on the AMD platform, clang)."""
    out: dict[str, str] = {}
    nvcc = _run(["nvcc", "--version"])
    if nvcc:
        line = next((l for l in nvcc.splitlines() if "release" in l), nvcc.strip().splitlines()[-1])
        out["nvcc"] = line.strip()
    if shutil.which("hipcc"):
        try:
            proc = run_capped([shutil.which("hipcc"), "--version"], timeout=_TIMEOUT,
                              env=dict(os.environ, HIP_PLATFORM="amd"))
            line = next((l for l in proc.stdout.splitlines() if l.startswith("HIP version")), "")
            if line:
                out["hipcc"] = line.strip()
        except (OSError, subprocess.TimeoutExpired):
            pass
    # The host compiler matters for CPU programs (``vado bench`` of a C program, ``vado tune -D…``).
    cc = _run(["cc", "--version"])
    if cc and cc.strip():
        out["cc"] = cc.strip().splitlines()[0].strip()
    return out


@functools.cache
def detect_environment() -> Environment:
    """The machine as seen at the first call (probed once per process: tools take a while to answer)."""
    return Environment(
        host=platform.node(),
        cpu=cpu_name(),
        cpus=os.cpu_count() or 1,
        devices=tuple(nvidia_devices() + amd_devices()),
        toolchains=toolchain_versions(),
        python=sys.version.split()[0],
    )


def has_gpu(env: Environment | None = None) -> bool:
    """Whether an NVIDIA or AMD GPU is visible."""
    env = env or detect_environment()
    return any(d.vendor in ("nvidia", "amd") for d in env.devices)
