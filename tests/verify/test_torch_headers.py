"""PyTorch's ROCm headers assembled from a wheel (vado.verify.torch_headers) and a torch extension
compiled for gfx942 against them (vado.verify.torch_ext).

The parts that need the torch wheel, the assembled tree or ROCm 7.2's hipcc skip cleanly when
absent: ``VADO_TORCH_WHEEL`` names a wheel (default: the one under /opt/wheels, if any);
``VADO_TORCH_ROCM_SRC`` a directory with the two PyTorch templates.
"""

from __future__ import annotations

import glob
import os
import zipfile
from pathlib import Path

import pytest

from vado.verify.torch_headers import TEMPLATES, TorchHeadersError, _fill, assemble, find_assembled

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "PROJECTS" / "torch-ext"


def _wheel() -> Path | None:
    env = os.environ.get("VADO_TORCH_WHEEL")
    if env:
        return Path(env)
    found = sorted(glob.glob("/opt/wheels/torch-2.*.whl"))
    return Path(found[-1]) if found else None


def _templates(root: Path) -> Path:
    """Stand-ins with the shape of PyTorch's two templates (the real ones are not vado's to ship)."""
    (root / "c10/cuda/impl").mkdir(parents=True)
    (root / "c10/cuda/impl/cuda_cmake_macros.h.in").write_text(
        "#pragma once\n#cmakedefine C10_CUDA_BUILD_SHARED_LIBS\n#define TORCH_CUDA_VERSION_MAJOR @TORCH_CUDA_VERSION_MAJOR@\n")
    (root / "aten/src/ATen/cuda").mkdir(parents=True)
    (root / "aten/src/ATen/cuda/CUDAConfig.h.in").write_text(
        "#pragma once\n#define AT_CUDNN_ENABLED() @AT_CUDNN_ENABLED@\n#define AT_ROCM_ENABLED() @AT_ROCM_ENABLED@\n"
        "#define NVCC_FLAGS_EXTRA \"@NVCC_FLAGS_EXTRA@\"\n")
    return root


def test_fill_configures_as_a_rocm_build():
    text = "#cmakedefine C10_CUDA_BUILD_SHARED_LIBS\n#cmakedefine C10_USE_GLOG\n#define A() @AT_ROCM_ENABLED@\n" \
           "#define B() @AT_CUDNN_ENABLED@\n#define V @TORCH_CUDA_VERSION_MAJOR@\n"
    assert _fill(text) == ("#define C10_CUDA_BUILD_SHARED_LIBS\n/* #undef C10_USE_GLOG */\n#define A() 1\n"
                           "#define B() 0\n#define V 0\n")


def test_fill_rejects_an_unknown_variable():
    with pytest.raises(TorchHeadersError, match="@SOMETHING_NEW@"):
        _fill("#define X @SOMETHING_NEW@\n")


def test_missing_templates_are_named(tmp_path):
    with pytest.raises(TorchHeadersError) as info:
        assemble(tmp_path / "torch.whl", tmp_path / "src", cache_root=tmp_path / "cache")
    for t in TEMPLATES:
        assert t in info.value.message
    assert not (tmp_path / "cache").exists()


def test_not_a_wheel_is_a_clear_error(tmp_path):
    bogus = tmp_path / "torch.whl"
    bogus.write_bytes(b"not a zip")
    with pytest.raises(TorchHeadersError, match="neither a wheel nor a directory"):
        assemble(bogus, _templates(tmp_path / "src"), cache_root=tmp_path / "cache")


def test_wheel_without_cuda_headers_is_named(tmp_path):
    whl = tmp_path / "torch-0.0-py3-none-any.whl"
    with zipfile.ZipFile(whl, "w") as zf:
        zf.writestr("torch/version.py", "__version__ = '0.0'\n")
        zf.writestr("torch/include/c10/core/Device.h", "#pragma once\n")
    with pytest.raises(TorchHeadersError, match="include/c10/cuda"):
        assemble(whl, _templates(tmp_path / "src"), cache_root=tmp_path / "cache")


def test_foreign_directory_in_the_cache_is_not_replaced(tmp_path):
    wheel = _wheel()
    if wheel is None or not wheel.exists():
        pytest.skip("no torch wheel (set VADO_TORCH_WHEEL)")
    mini = _mini_torch(tmp_path / "pkg", wheel)
    foreign = tmp_path / "cache" / "9.9.9"
    foreign.mkdir(parents=True)
    (foreign / "mine.txt").write_text("user data")
    with pytest.raises(TorchHeadersError, match="not a tree vado made"):
        assemble(mini, _templates(tmp_path / "src"), cache_root=tmp_path / "cache")
    assert (foreign / "mine.txt").read_text() == "user data"


def _mini_torch(root: Path, wheel: Path) -> Path:
    """A torch package dir with a few real CUDA headers and the real hipify, version 9.9.9."""
    torch_dir = root / "torch"
    with zipfile.ZipFile(wheel) as zf:
        for name in zf.namelist():
            if name.startswith("torch/utils/hipify/") or name in (
                    "torch/include/c10/cuda/CUDAMacros.h", "torch/include/c10/cuda/CUDAStream.h",
                    "torch/include/ATen/cuda/CUDAContext.h", "torch/include/ATen/cuda/CUDAEvent.h"):
                zf.extract(name, root)
    (torch_dir / "version.py").write_text("__version__ = '9.9.9+cpu'\n")
    (torch_dir / "include" / "fmt").mkdir(parents=True)
    (torch_dir / "include" / "fmt" / "core.h").write_text("#pragma once\n")
    return torch_dir


def test_assemble_hipifies_into_rocm_layout(tmp_path):
    wheel = _wheel()
    if wheel is None or not wheel.exists():
        pytest.skip("no torch wheel (set VADO_TORCH_WHEEL)")
    got = assemble(_mini_torch(tmp_path / "pkg", wheel), _templates(tmp_path / "src"), cache_root=tmp_path / "cache")
    inc = got.include
    assert got.torch_version == "9.9.9"
    assert (inc / "c10/hip/HIPMacros.h").is_file()
    assert (inc / "c10/hip/HIPStream.h").is_file()
    assert (inc / "ATen/hip/HIPContext.h").is_file()
    assert (inc / "fmt/core.h").is_file()  # untouched third-party headers keep their place
    assert "#include <c10/hip/impl/hip_cmake_macros.h>" in (inc / "c10/hip/HIPMacros.h").read_text()
    assert "#define AT_ROCM_ENABLED() 1" in (inc / "ATen/hip/HIPConfig.h").read_text()
    assert "#define C10_CUDA_BUILD_SHARED_LIBS" in (inc / "c10/hip/impl/hip_cmake_macros.h").read_text()
    assert not list(inc.rglob("*.h.in"))
    # A second call reuses the tree; find_assembled sees it.
    assert assemble(tmp_path / "pkg" / "torch", tmp_path / "src", cache_root=tmp_path / "cache") == got
    assert find_assembled("9.9.9", tmp_path / "cache") == got


def test_torch_extension_compiles_for_gfx942(tmp_path):
    """The torch-ext fixture (a CUDAExtension, CUDA-spelled) compiles for gfx942 as cpp_extension builds it on ROCm."""
    from tests._compile_fixtures import require_compiler
    from vado.verify.torch_ext import compile_extension

    headers = find_assembled("2.13.0")
    if headers is None:
        pytest.skip("no assembled torch 2.13.0 ROCm headers (run tools/torch_rocm_headers.py)")
    hipcc = require_compiler("rocm-7.2").path
    res = compile_extension(FIXTURE, ["csrc/ext.cpp", "csrc/kernel.cu"], headers, hipcc, arch="gfx942",
                            name="scale_ext", extra=["-O0"])
    assert [r.compiled for r in res] == ["csrc/ext.cpp", "csrc/kernel.hip"]
    assert all(r.ok for r in res), [r.first_error() for r in res]
