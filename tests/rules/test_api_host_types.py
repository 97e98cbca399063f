"""API013 (CUdeviceptr arithmetic) and API014 (texture fetches where the GPU has no image instructions)."""

from __future__ import annotations

from vado.knowledge.targets import get_target
from vado.model import Verdict
from vado.rules.engine import check_text

ROCM = [get_target("rocm-7.2")]
TEX = "__global__ void k(cudaTextureObject_t t, float4* o) { o[0] = tex2D<float4>(t, 0.5f, 0.5f); }\n"


def _codes(text: str, code: str, options=None):
    return [f for f in check_text("k.cu", text, ROCM, options=options) if f.code == code]


def test_texture_fetch_is_manual_for_the_default_archs_and_absent_where_images_exist():
    (f,) = _codes(TEX, "API014")
    assert f.verdicts == {"rocm-7.2": Verdict.MANUAL} and f.data["archs"] == ["gfx942", "gfx950"]
    # gfx90a and RDNA GPUs have image instructions: the same kernel compiles there (measured, ROCm 7.2.4).
    assert _codes(TEX, "API014", {"offload_arch": "gfx90a;gfx1100"}) == []
    (one,) = _codes(TEX, "API014", {"offload_arch": ["gfx90a", "gfx950"]})
    assert one.data["archs"] == ["gfx950"]


def test_device_pointer_arithmetic_only_where_a_cudeviceptr_is_an_operand():
    text = ("#include <cuda.h>\nvoid f(CUdeviceptr base, size_t off, size_t n) {\n"
            "  cuMemsetD8(base + off, 0, n);\n  cuMemsetD8(base, 0, off + n);\n}\n")
    (f,) = _codes(text, "API013")
    assert f.span.line == 3 and f.data["name"] == "base" and f.verdicts == {"rocm-7.2": Verdict.MANUAL}
