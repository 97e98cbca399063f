"""Half and bfloat16 intrinsics HIP lacks (vado.port.half_math).

Compiled by ROCm 7.2.4 through the PORT fixtures (half-intrinsics-*.cu). Here: what the helpers are, that a
port of tests/fixtures/verify/half_intrinsics.cu builds with HIP on CUDA (nvcc, no GPU needed), and, on an
NVIDIA GPU, that it prints the same bits as CUDA's own intrinsics over NaN, infinities, zeros, subnormals and
values out of char range.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from vado.agent.verify import nvidia_gpu_with_nvcc
from vado.knowledge.targets import all_targets
from vado.port.compat import local_helpers
from vado.port.half_math import BF16, DEVICE_ONLY, HALF, NAMES, half_math_helper

from _hip_on_cuda_programs import NVCC, original_and_port_outputs, port_and_build
PROGRAM = Path(__file__).resolve().parents[1] / "fixtures" / "verify" / "half_intrinsics.cu"


def test_each_name_has_one_overload_per_cuda_type():
    for name, types in NAMES.items():
        helper = half_math_helper(name)
        assert local_helpers()[name].code == helper.code
        assert helper.code.count("#ifdef ") == len(types)
        for t in (HALF, BF16):
            assert (t.guard in helper.code) == (t in types), name
        qualifier = "static __device__ inline" if name in DEVICE_ONLY else "static __host__ __device__ inline"
        assert helper.code.count(qualifier) == len(types)


def test_applies_on_rocm_targets_only():
    helper = half_math_helper("__hmax2_nan")
    targets = all_targets()
    assert {t.name for t in targets if helper.applies(t)} == {t.name for t in targets if t.family == "rocm"}


def _port_and_build(tmp_path: Path, arch: str):
    ev, text = port_and_build(PROGRAM, tmp_path, arch)
    assert "vado_hcmadd" in text and "__hcmadd(" not in text
    return ev


@pytest.mark.skipif(NVCC is None, reason="nvcc not installed (CUDA toolkit)")
def test_the_port_builds_with_hip_on_cuda(tmp_path):
    ev = _port_and_build(tmp_path, "sm_90")
    assert ev.passed, ev.detail


@pytest.mark.gpu
@pytest.mark.skipif(not nvidia_gpu_with_nvcc(), reason="needs an NVIDIA GPU (nvidia-smi) and nvcc")
def test_the_helpers_give_cudas_bits(tmp_path):
    ev = _port_and_build(tmp_path, "native")
    assert ev.passed, ev.detail
    lines, got = original_and_port_outputs(PROGRAM, tmp_path)
    assert len(lines) == 144 and all(line.endswith(" 0000003f") for line in lines)  # every approximation close
    for w, g in zip(lines, got):
        assert w == g
