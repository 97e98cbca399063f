"""``static_cast<T>`` between ``__half`` and bfloat16 in templates (vado.port.half_casts).

The PORT fixture half-casts.cu is compiled by ROCm 7.2.4 (test_port_fixtures.py). Here: which casts are
rewritten and which are not, that a port of that program builds with HIP on CUDA (nvcc, no GPU needed),
and, on an NVIDIA GPU, that it converts all 65536 bit patterns of each format as CUDA does.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from vado.agent.verify import nvidia_gpu_with_nvcc
from vado.knowledge.targets import get_target
from vado.port.half_casts import HELPER, half_cast_fixes, template_type_parameters
from vado.scan.lexer import lex

from _hip_on_cuda_programs import NVCC, original_and_port_outputs, port_and_build
PROGRAM = Path(__file__).resolve().parents[1] / "fixtures" / "PORT" / "half-casts.cu"
ROCM = get_target("rocm-7.2")

TEMPLATE = """#include <cuda_bf16.h>
#include <cuda_fp16.h>
template <typename Td, class Ts, int N>
__global__ void cvt(Td* d, const Ts* s) { d[0] = static_cast<Td>(s[0]); d[1] = static_cast<Td>(N); }
__global__ void plain(__half* d, const float* s) { d[0] = static_cast<__half>(s[0]); }
void use() { cvt<__half, __nv_bfloat16, 2><<<1, 1>>>(nullptr, nullptr); }
"""


def _renamed(src: str, target=ROCM) -> str:
    toks = lex(src)
    fixes = half_cast_fixes("k.cu", src, toks, target)
    out = src
    for e in sorted((e for f in fixes for e in f.edits), key=lambda e: e.start, reverse=True):
        out = out[:e.start] + e.content + out[e.end:]
    return out


def test_template_type_parameters_are_the_typename_and_class_ones():
    src = "template <typename A, class B, int N, typename... C, template <class> class D, typename E = int> void f();"
    assert template_type_parameters(lex(src)) == {"A", "B", "C", "E"}


def test_casts_to_a_type_parameter_become_the_helper_and_others_stay():
    out = _renamed(TEMPLATE)
    assert out.count(f"{HELPER}<Td>(") == 2  # the helper is static_cast for an int, as for any other pair
    assert "static_cast<__half>(s[0])" in out  # a named type: nothing to decide at instantiation
    assert out.count("#define VADO_CONVERT") == 1 and out.index("VADO_CONVERT") < out.index("void cvt")
    # the port's next round finds nothing more: the helper's own cast is left alone
    assert half_cast_fixes("k.cu", out, lex(out), ROCM) == []


def test_no_rewrite_without_both_formats_or_off_rocm():
    only_half = TEMPLATE.replace("__nv_bfloat16", "float").replace("#include <cuda_bf16.h>\n", "")
    assert _renamed(only_half) == only_half
    assert _renamed(TEMPLATE, get_target("hip-5.2")) == TEMPLATE  # no bfloat16 type in HIP 5.2
    assert _renamed(TEMPLATE, get_target("scale")) == TEMPLATE


def _port_and_build(tmp_path: Path, arch: str):
    ev, text = port_and_build(PROGRAM, tmp_path, arch)
    assert f"{HELPER}<Td>(src[i])" in text
    return ev


@pytest.mark.skipif(NVCC is None, reason="nvcc not installed (CUDA toolkit)")
def test_the_port_builds_with_hip_on_cuda(tmp_path):
    ev = _port_and_build(tmp_path, "sm_90")
    assert ev.passed, ev.detail


@pytest.mark.gpu
@pytest.mark.skipif(not nvidia_gpu_with_nvcc(), reason="needs an NVIDIA GPU (nvidia-smi) and nvcc")
def test_the_helper_converts_as_cuda_does(tmp_path):
    ev = _port_and_build(tmp_path, "native")
    assert ev.passed, ev.detail
    lines, got = original_and_port_outputs(PROGRAM, tmp_path)
    assert len(lines) == 2 * 65536 // 32
    differ = [(w, g) for w, g in zip(lines, got) if w != g]
    assert not differ, differ[:4]
