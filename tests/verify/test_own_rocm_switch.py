"""verify turns on the port's own ROCm build switch when it configures the build (heFFTe 4d8d459:
Heffte_ENABLE_ROCM defaults to OFF, and its default configuration compiles none of its GPU code)."""

from __future__ import annotations

from pathlib import Path

from vado.build.read import BuildOptions
from vado.verify.run import _own_rocm_switch


def _tree(root: Path) -> Path:
    (root / "src").mkdir(parents=True)
    (root / "CMakeLists.txt").write_text(
        'project(hf CXX)\noption(HF_ENABLE_ROCM "rocm" OFF)\nif(HF_ENABLE_ROCM)\n  enable_language(HIP)\n'
        "  add_library(hf_rocm src/backend_rocm.hip.cpp)\n  set_source_files_properties(src/backend_rocm.hip.cpp "
        "PROPERTIES LANGUAGE HIP)\nendif()\nadd_library(hf src/plan.cpp)\n")
    (root / "src" / "backend_rocm.hip.cpp").write_text("#include <hip/hip_runtime.h>\n__global__ void k() {}\n")
    (root / "src" / "plan.cpp").write_text("int plan() { return 0; }\n")
    return root


def test_the_switch_is_turned_on_for_a_configure(tmp_path: Path):
    root = _tree(tmp_path)
    assert _own_rocm_switch(root, BuildOptions(mode="auto")) == "-DHF_ENABLE_ROCM=ON"
    assert _own_rocm_switch(root, BuildOptions(mode="cmake")) == "-DHF_ENABLE_ROCM=ON"


def test_not_when_the_user_set_it_or_nothing_is_configured(tmp_path: Path):
    root = _tree(tmp_path)
    assert _own_rocm_switch(root, BuildOptions(mode="cmake", cmake_args=("-DHF_ENABLE_ROCM=OFF",))) == ""
    assert _own_rocm_switch(root, BuildOptions(mode="compile-db")) == ""
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "CMakeLists.txt").write_text("project(p CXX CUDA)\nadd_library(p k.cu)\n")
    (plain / "k.cu").write_text("__global__ void k() {}\n")
    assert _own_rocm_switch(plain, BuildOptions(mode="auto")) == ""
