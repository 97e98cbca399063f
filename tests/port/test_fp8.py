"""vado's OCP FP8 definitions (``vado/port/data/vado_fp8.h``, :mod:`vado.port.fp8`): why, what the port writes,
and that they compute CUDA's numbers.

- ROCm 7.2.4's own OCP classes convert host-only in gfx942 device code (they compile for gfx950): checked with
  its hipcc, so a ROCm that changes this shows here. Its software conversion differs from CUDA's (a tiny float
  becomes a nonzero code, a value just above the largest finite one NaN): checked on the host.
- The port renames CUDA's FP8 names to vado's and writes the definitions once; ``PORT/fp8-types`` and
  ``PORT/fp8-cvt`` compile for gfx942 and gfx950 (the generic fixture compile check).
- The definitions against CUDA 13's ``cuda_fp8.hpp`` (its host code, the same conversions as its device code
  below sm_89): one program built twice, outputs compared (``fp8_equivalence/``). CI runs a sample of the floats
  every time; ``VADO_FP8_ALL_FLOATS=1`` runs all 2^32 per mode (two minutes; done for the release notes).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from vado.knowledge.targets import get_target
from vado.port.file import port_bytes
from vado.port.fp8 import GUARD, shim_text
from vado.scan.classify import FileKind

HERE = Path(__file__).resolve().parent
DATA = HERE.parents[1] / "src" / "vado" / "port" / "data"
HIPCC = Path(os.environ.get("VADO_ROCM72_HIPCC", "/var/cache/vado/rocm-7.2.4/bin/hipcc"))


def _port(text: str, target: str = "rocm-7.2") -> str:
    return port_bytes("k.cu", FileKind.CUDA_SOURCE, text.encode(), get_target(target)).after.decode()


def test_port_writes_vados_definitions_once_and_renames_the_uses():
    text = ("#include <cuda_fp8.h>\n"
            "__global__ void q(const float* in, __nv_fp8_e4m3* out, __nv_fp8_storage_t* raw) {\n"
            "  out[threadIdx.x] = __nv_fp8_e4m3(in[threadIdx.x]);\n"
            "  raw[threadIdx.x] = __nv_cvt_float_to_fp8(in[threadIdx.x], __NV_SATFINITE, __NV_E4M3);\n"
            "}\n"
            "int f(S s) { return s.__nv_fp8_e4m3; }  // a member of that name is not CUDA's class\n")
    out = _port(text)
    assert f"#ifndef {GUARD}\n#define {GUARD}\n" in shim_text()  # the guard the port and ARCH003 look for
    assert out.count("#ifndef VADO_FP8_H") == 1 and "#include <hip/hip_fp8.h>" in out
    assert "vado_fp8_e4m3* out" in out and "vado_fp8_e4m3(in[threadIdx.x])" in out
    assert "vado_cvt_float_to_fp8(in[threadIdx.x], __HIP_SATFINITE, __HIP_E4M3)" in out
    assert "__hip_fp8_storage_t* raw" in out and "s.__nv_fp8_e4m3" in out
    assert out.index("#ifndef VADO_FP8_H") < out.index("__global__ void q")
    assert _port(out) == out  # a second port changes nothing
    # HIP 5.2 has no hip_fp8.h: no definitions there (ARCH003 reports the names).
    assert "VADO_FP8_H" not in _port(text, "hip-5.2")


@pytest.fixture(scope="module")
def hipcc() -> Path:
    if not HIPCC.exists():
        pytest.skip(f"ROCm 7.2.4 hipcc not at {HIPCC} (scripts/rocm-toolchain.sh builds it; or set VADO_ROCM72_HIPCC)")
    return HIPCC


def _compile(hipcc: Path, source: Path, arch: str, out: Path) -> subprocess.CompletedProcess:
    return subprocess.run([str(hipcc), f"--offload-arch={arch}", "-x", "hip", "-c", str(source), "-o", str(out)],
                          capture_output=True, text=True, timeout=600)


HIP_OCP_KERNEL = """#include <hip/hip_runtime.h>
#include <hip/hip_fp8.h>
__global__ void widen(const __hip_fp8_e4m3* in, float* out) { out[threadIdx.x] = float(in[threadIdx.x]); }
"""


@pytest.mark.parametrize("arch,compiles", [("gfx950", True), ("gfx942", False)])
def test_rocm_724_ocp_classes_are_host_only_on_gfx942(hipcc: Path, tmp_path: Path, arch: str, compiles: bool):
    (tmp_path / "k.hip").write_text(HIP_OCP_KERNEL)
    proc = _compile(hipcc, tmp_path / "k.hip", arch, tmp_path / "k.o")
    assert (proc.returncode == 0) is compiles, proc.stderr[-3000:]
    if not compiles:
        assert "reference to __host__ function" in proc.stderr or "no matching" in proc.stderr, proc.stderr[-3000:]


def test_rocm_724_software_conversion_differs_from_cudas(hipcc: Path, tmp_path: Path):
    (tmp_path / "c.cpp").write_text(
        "#include <hip/hip_fp8.h>\n#include <cstdio>\n#include <cstring>\n"
        "int main() { volatile unsigned u = 0x1a800001u; unsigned v = u; float tiny; memcpy(&tiny, &v, 4);  // 5.3e-23\n"
        "  printf(\"%02x %02x\\n\", (unsigned)__hip_cvt_float_to_fp8(tiny, __HIP_NOSAT, __HIP_E4M3),"
        " (unsigned)__hip_cvt_float_to_fp8(448.25f, __HIP_NOSAT, __HIP_E4M3)); }\n")
    build = subprocess.run([str(hipcc), "-x", "hip", str(tmp_path / "c.cpp"), "-o", str(tmp_path / "c")],
                           capture_output=True, text=True, timeout=600)
    assert build.returncode == 0, build.stderr[-3000:]
    run = subprocess.run([str(HIPCC.parent / "rocm-run"), str(tmp_path / "c")], capture_output=True, text=True,
                         timeout=120)
    # CUDA: 5.3e-23 → 0x00 (zero), 448.25 → 0x7e (448, rounded down). ROCm 7.2.4's host conversion shifts past
    # the operand's width for the tiny one (undefined: on x86 a nonzero code unless the compiler folds it away)
    # and gives NaN for the other.
    tiny, near_max = run.stdout.split()
    assert tiny != "00" and near_max == "7f", run.stdout + run.stderr


def _cuda_include() -> Path | None:
    nvcc = shutil.which("nvcc")
    for base in ([Path(nvcc).resolve().parents[1]] if nvcc else []) + [Path("/usr/local/cuda")]:
        if (base / "include" / "cuda_fp8.hpp").is_file():
            return base / "include"
    return None


def test_vados_definitions_compute_cudas_numbers(hipcc: Path, tmp_path: Path):
    include = _cuda_include()
    if include is None or shutil.which("g++") is None:
        pytest.skip("CUDA's cuda_fp8.hpp (an nvcc install) and g++ are needed for the reference side")
    eq = HERE / "fp8_equivalence"
    cuda = subprocess.run(["g++", "-O2", "-std=c++17", f"-I{include}", f"-I{eq}", str(eq / "cuda_side.cpp"),
                           "-o", str(tmp_path / "cuda_side")], capture_output=True, text=True, timeout=600)
    assert cuda.returncode == 0, cuda.stderr[-3000:]
    vado = subprocess.run([str(hipcc), "-O2", "-std=c++17", "-x", "hip", "--offload-arch=gfx942", f"-I{DATA}",
                           f"-I{eq}", str(eq / "vado_side.cpp"), "-o", str(tmp_path / "vado_side")],
                          capture_output=True, text=True, timeout=600)
    assert vado.returncode == 0, vado.stderr[-3000:]
    full = ["all"] if os.environ.get("VADO_FP8_ALL_FLOATS") == "1" else []
    want = subprocess.run([str(tmp_path / "cuda_side"), *full], capture_output=True, text=True, timeout=1800)
    got = subprocess.run([str(HIPCC.parent / "rocm-run"), str(tmp_path / "vado_side"), *full], capture_output=True,
                         text=True, timeout=1800)
    assert want.returncode == 0 and got.returncode == 0, want.stderr + got.stderr
    lines = want.stdout.splitlines()
    assert len(lines) == (1549 if full else 589)  # every conversion printed, not one cut short
    differ = [(a, b) for a, b in zip(lines, got.stdout.splitlines()) if a != b]
    assert differ == [] and len(got.stdout.splitlines()) == len(lines)


NVCC = shutil.which("nvcc") or ("/usr/local/cuda/bin/nvcc" if Path("/usr/local/cuda/bin/nvcc").exists() else None)


@pytest.mark.skipif(NVCC is None, reason="nvcc not installed (CUDA toolkit)")
@pytest.mark.parametrize("fixture", ["fp8-types", "fp8-cvt"])
def test_the_ported_definitions_build_under_hip_on_cuda(tmp_path: Path, fixture: str):
    # `vado verify --run` builds a port with nvcc through vado's HIP-on-CUDA headers, where __half2_raw is CUDA's
    # (two unsigned shorts) and HIP's holds two __half_raw: the definitions read and write the bits, so both
    # build (HeCBench blas-fp8gemm's port failed to build on the H200 on 2026-12-05 at `__half_raw lo = x.x`).
    from vado.verify import hip_on_cuda

    inc = hip_on_cuda.write_include_dir(tmp_path / "inc", 64)
    src = HERE.parents[0] / "fixtures" / "PORT" / f"{fixture}.fixed.hip"
    proc = subprocess.run([NVCC, "-x", "cu", "-std=c++17", "-arch=sm_90", f"-I{inc}", "-c", str(src), "-o",
                           str(tmp_path / "k.o")], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
