"""The FP8 port's strategy checked with ROCm 7.2.4's hipcc, per architecture.

``vado port`` writes HIP's OCP FP8 classes for CUDA's (``__nv_fp8_e4m3`` →
``__hip_fp8_e4m3``; ARCH003 documents why). ROCm 7.2.4 compiles them in device
code for gfx950 (MI355X) and declares their device-side conversions host-only
for gfx942 (MI300X). The fixture ``PORT/fp8-types`` is skipped by the generic
compile check for that reason; this test compiles its port for both and checks
both facts, so a ROCm that changes either (OCP emulated on gfx942, say) shows
here and the strategy can be revisited.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

PORT = Path(__file__).resolve().parents[1] / "fixtures" / "PORT"
HIPCC = Path(os.environ.get("VADO_ROCM72_HIPCC", "/var/cache/vado/rocm-7.2.4/bin/hipcc"))


def _compile(source: Path, arch: str, out: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(HIPCC), f"--offload-arch={arch}", "-x", "hip", "-c", str(source), "-o", str(out)],
        capture_output=True, text=True, timeout=600,
    )


@pytest.fixture(scope="module")
def hipcc() -> Path:
    if not HIPCC.exists():
        pytest.skip(f"ROCm 7.2.4 hipcc not at {HIPCC} (scripts/rocm-toolchain.sh builds it; or set VADO_ROCM72_HIPCC)")
    return HIPCC


def test_ocp_fp8_port_compiles_for_gfx950(hipcc: Path, tmp_path: Path):
    proc = _compile(PORT / "fp8-types.fixed.hip", "gfx950", tmp_path / "gfx950.o")
    assert proc.returncode == 0, proc.stderr[-4000:]


def test_ocp_fp8_port_is_host_only_on_gfx942(hipcc: Path, tmp_path: Path):
    proc = _compile(PORT / "fp8-types.fixed.hip", "gfx942", tmp_path / "gfx942.o")
    assert proc.returncode != 0
    assert "reference to __host__ function" in proc.stderr or "no matching conversion" in proc.stderr, proc.stderr[-4000:]


@pytest.mark.parametrize("arch", ["gfx942", "gfx950"])
def test_fp8_storage_conversions_compile_on_both(hipcc: Path, tmp_path: Path, arch: str):
    """The conversion functions on raw storage compile for both: there ARCH003 warns of the bytes, not the build."""
    proc = _compile(PORT / "fp8-cvt.fixed.hip", arch, tmp_path / f"{arch}.o")
    assert proc.returncode == 0, proc.stderr[-4000:]
