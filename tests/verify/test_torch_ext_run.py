"""HIP-on-CUDA builds of a torch-extension port: the prelude, the build copy, the comparison of op outputs."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from vado.verify import hip_on_cuda
from vado.verify.torch_ext_run import (compare_outputs, drop_cub_alias, port_build_copy, prelude_headers,
                                       prelude_text)

KERNEL = """\
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include "local.h"
#ifndef USE_ROCM
    #include <cub/block/block_load.cuh>
#else
    #include <hipcub/hipcub.hpp>
    namespace cub = hipcub;
    #include <hip/hip_bf16.h>
#endif
#include <vector>
__global__ void k(float* x) {
  if (threadIdx.x > 40) return;
  x[threadIdx.x] = warpSize;
}
"""


def _tree(tmp_path: Path) -> Path:
    root = tmp_path / "port"
    (root / "csrc").mkdir(parents=True)
    (root / "csrc" / "k.cu").write_text(KERNEL)
    (root / "csrc" / "local.h").write_text("#pragma once\n#include <c10/util/Half.h>\n")
    (root / "setup.py").write_text("# not a source\n#include <ATen/never.h>\n")
    return root


def test_prelude_includes_torch_and_cuda_headers_before_use_rocm(tmp_path: Path):
    root = _tree(tmp_path)
    heads = prelude_headers(root)
    # PyTorch's, CUDA's and CUB's headers, first-seen order; not the project's, HIP's or the C++ library's.
    assert heads == ["torch/extension.h", "ATen/cuda/CUDAContext.h", "cub/block/block_load.cuh", "c10/util/Half.h"]
    text = prelude_text(heads, 64)
    assert text.index("#include <c10/util/Half.h>") < text.index("#define USE_ROCM 1") < \
        text.index("#include <hip/hip_runtime.h>") < text.index("#define C10_WARP_SIZE 64")
    assert "C10_WARP_SIZE" not in prelude_text(heads, 32)
    # torch_scatter's ROCm branch defines __ldg(const at::Half*), which CUDA PyTorch declares too: one template.
    assert text.index("#include <hip/hip_runtime.h>") < text.index("#define __ldg vado_ldg")


def test_cub_alias_is_blanked_in_place():
    text = "x\n    namespace cub = hipcub;\n  namespace cub=::hipcub ;\nnamespace cubx = hipcub;\n"
    new, n = drop_cub_alias(text)
    assert n == 2 and len(new) == len(text) and new.count("\n") == text.count("\n")
    assert "namespace cub" not in new.replace("namespace cubx", "") and "namespace cubx = hipcub;" in new


def test_port_build_copy_marks_kernels_and_never_writes_the_port(tmp_path: Path):
    root = _tree(tmp_path)
    before = {p: p.read_bytes() for p in root.rglob("*") if p.is_file()}
    got = port_build_copy(root, tmp_path / "w64", 64)
    assert got == {"kernels_marked": 1, "cub_aliases": 1}
    copy = (tmp_path / "w64" / "csrc" / "k.cu").read_text()
    assert hip_on_cuda.EXIT_GUARD in copy and "namespace cub = hipcub" not in copy
    assert copy.count("\n") == KERNEL.count("\n")
    assert {p: p.read_bytes() for p in root.rglob("*") if p.is_file()} == before
    got32 = port_build_copy(root, tmp_path / "w32", 32)
    assert got32 == {"kernels_marked": 0, "cub_aliases": 1}
    assert hip_on_cuda.EXIT_GUARD not in (tmp_path / "w32" / "csrc" / "k.cu").read_text()


def test_compare_outputs_statuses():
    orig = {"a": (1, 2), "b": {"error": "RuntimeError: x"}, "c": {"error": "E"}, "d": 3, "e": [1, {"x": 2}]}
    port = {"a": (1, 2), "b": {"error": "RuntimeError: x"}, "c": 5, "d": 4, "e": [1, {"y": 2}]}
    got = compare_outputs(orig, port)
    assert got["a"]["status"] == "match"
    assert got["b"]["status"] == "both-error"
    assert got["c"]["status"] == "error" and got["c"]["detail"] == {"original": "E", "port": "ok"}
    assert got["d"]["status"] == "differ"
    assert got["e"]["status"] == "differ"
    assert compare_outputs({"z": 1}, {})["z"]["status"] == "error"


def test_compare_outputs_on_tensors():
    torch = pytest.importorskip("torch")
    a = torch.tensor([1.0, float("nan"), 3.0])
    assert compare_outputs({"t": a}, {"t": a + 1e-7})["t"]["status"] == "match"
    assert compare_outputs({"t": a}, {"t": a + 1})["t"]["status"] == "differ"
    assert compare_outputs({"t": a}, {"t": a.half()})["t"]["status"] == "differ"
    i = torch.arange(4)
    assert compare_outputs({"t": i}, {"t": i.flip(0)})["t"]["status"] == "differ"


def test_a_cancelling_sum_off_by_the_scale_of_its_terms_is_close_not_a_match():
    # torch_spline_conv's degree-3 grad_weight on the H200 (2026-12-05): 1 of 12800 float32 values off by
    # 3.34e-05, an element near zero summed by atomicAdd from many threads; within 1e-4 of the tensor's
    # largest value it is "close" (reported so), beyond it "differ".
    torch = pytest.importorskip("torch")
    a = torch.tensor([2.0, -1.5, 1e-6, 0.75])
    b = a.clone()
    b[2] += 3.34e-5
    got = compare_outputs({"t": a}, {"t": b}, rtol=1e-4, atol=1e-5)["t"]
    assert got["status"] == "close" and "order of float additions" in got["detail"]["out"], got
    b[2] += 1e-3
    assert compare_outputs({"t": a}, {"t": b}, rtol=1e-4, atol=1e-5)["t"]["status"] == "differ"
    # one close leaf and one matching leaf: the call is close; a differing leaf makes it differ
    assert compare_outputs({"c": (a, a)}, {"c": (a, a.clone())})["c"]["status"] == "match"


@pytest.mark.skipif(not shutil.which("nvcc") and not Path("/usr/local/bin/nvcc").exists(), reason="no nvcc")
def test_prelude_and_copy_compile_with_nvcc_without_torch(tmp_path: Path):
    # The ROCm branch's hipcub include, its `namespace cub = hipcub;`, hip_bf16 and a wave-wide shuffle, built
    # through the wave64 layer (the prelude here names CUB and CUDA's headers only: no PyTorch on this machine).
    root = tmp_path / "port"
    root.mkdir()
    (root / "k.cu").write_text(
        "#ifndef USE_ROCM\n#include <cub/block/block_load.cuh>\n#else\n#include <hipcub/hipcub.hpp>\n"
        "namespace cub = hipcub;\n#include <hip/hip_bf16.h>\n#endif\n"
        "__global__ void k(const float* in, float* out) {\n"
        "  using L = cub::BlockLoad<float, 128, 4, cub::BLOCK_LOAD_WARP_TRANSPOSE>;\n"
        "  __shared__ typename L::TempStorage t; float v[4]; L(t).Load(in, v);\n"
        "  float s = v[0];\n#ifdef USE_ROCM\n  for (int o = 32; o > 0; o /= 2) s += __shfl_xor(s, o);\n#endif\n"
        "  out[threadIdx.x] = s + warpSize;\n}\n")
    port_build_copy(root, tmp_path / "w64", 64)
    inc = hip_on_cuda.write_include_dir(tmp_path / "inc64", 64)
    pre = tmp_path / "pre.h"
    pre.write_text(prelude_text(prelude_headers(root) + ["cuda_bf16.h"], 64))
    nvcc = shutil.which("nvcc") or "/usr/local/bin/nvcc"
    proc = subprocess.run([nvcc, "-std=c++17", "-arch=sm_90", "-include", str(pre), f"-I{inc}",
                           f"-D{hip_on_cuda.EXIT_GUARD}=", "-c", str(tmp_path / "w64" / "k.cu"),
                           "-o", str(tmp_path / "k.o")], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-3000:]
