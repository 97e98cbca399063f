"""vado.scan.scope: what each file of a project is (tests/fixtures/PROJECTS/own-hip, plain-cuda)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from vado.model import SkipReason
from vado.scan.discover import walk
from vado.scan.scope import Scope, amd_defines, project_scope

PROJECTS = Path(__file__).resolve().parents[1] / "fixtures" / "PROJECTS"
OWN_HIP = PROJECTS / "own-hip"
PLAIN = PROJECTS / "plain-cuda"


def test_walk_leaves_out_dependencies_submodules_and_library_copies():
    plan = walk(OWN_HIP)
    vendored = {s.path: s.detail for s in plan.skips if s.reason is SkipReason.VENDORED}
    assert set(vendored) == {"dependencies", "modules/tinylib", "tools/cutlass-copy"}
    assert "git submodule" in vendored["modules/tinylib"]
    assert "a copy of CUTLASS (has include/cutlass/cutlass.h" in vendored["tools/cutlass-copy"]
    assert not any(f.path.startswith(("dependencies/", "modules/", "tools/")) for f in plan.files)
    # Asked for, they are scanned.
    everything = walk(OWN_HIP, include_vendored=True)
    assert {"dependencies/fmt/include/fmt/format.h", "modules/tinylib/tiny.cu",
            "tools/cutlass-copy/include/cutlass/cutlass.h"} <= {f.path for f in everything.files}


def test_scope_of_each_file():
    scope = project_scope(OWN_HIP)
    got = {p: (fs.scope, fs.backend) for p, fs in scope.files.items()}
    assert got == {
        "CMakeLists.txt": (Scope.HIP_PATH, ""),
        "src/CMakeLists.txt": (Scope.HIP_PATH, ""),
        "src/mb-common.c": (Scope.PROJECT, ""),  # host C the HIP build does not compile
        "src/mb-common.h": (Scope.HIP_PATH, ""),  # included by the HIP path: __CUDACC__ stays
        "src/mb-cpu/CMakeLists.txt": (Scope.BACKEND, "CPU backend"),
        "src/mb-cpu/arch/riscv/quants.c": (Scope.BACKEND, "RISC-V CPU"),
        "src/mb-cuda/CMakeLists.txt": (Scope.HIP_PATH, ""),
        "src/mb-cuda/common.cuh": (Scope.HIP_PATH, ""),
        "src/mb-cuda/kernel.cu": (Scope.HIP_PATH, ""),
        "src/mb-cuda/vendors/hip.h": (Scope.HIP_PATH, ""),
        "src/mb-hip/CMakeLists.txt": (Scope.HIP_PATH, ""),
        "src/mb-sycl/CMakeLists.txt": (Scope.BACKEND, "SYCL"),
        "src/mb-sycl/common.hpp": (Scope.BACKEND, "SYCL"),
        "src/mb-sycl/sycl-ops.cpp": (Scope.BACKEND, "SYCL"),
    }
    assert scope.of("src/mb-cuda/vendors/hip.h").why == "the project's header that maps CUDA names to HIP"
    assert scope.of("src/mb-sycl/common.hpp").why == "SYCL code (includes sycl/sycl.hpp)"


def test_own_hip_build_how_and_defines():
    scope = project_scope(OWN_HIP, arches=("gfx942", "gfx950"))
    hip = scope.hip
    assert hip is not None and hip.complete
    assert hip.how == 'cmake -DMB_HIP=ON -DCMAKE_HIP_ARCHITECTURES="gfx942;gfx950"'
    assert hip.switch == "MB_HIP"
    # MB_HIP_GRAPHS defaults ON, so "if (NOT MB_HIP_GRAPHS)" does not hold; MB_USE_CUDA is the CUDA build's.
    assert hip.defines == ("MB_USE_HIP", "MB_HIP_GRAPHS")
    assert hip.vendor_headers == ("src/mb-cuda/vendors/hip.h",)
    assert amd_defines(OWN_HIP) == ("MB_USE_HIP", "MB_HIP_GRAPHS")
    assert scope.own_rocm_build() == hip.how


def test_plain_cuda_project_is_all_project_code():
    scope = project_scope(PLAIN)
    # A directory named sycl_utils holding CUDA code is the project's CUDA code.
    assert scope.of("sycl_utils/k.cu").scope is Scope.PROJECT
    assert scope.of("CMakeLists.txt").scope is Scope.PROJECT
    assert scope.hip is None and amd_defines(PLAIN) == ()


def test_mixed_and_directory_rules(tmp_path: Path):
    (tmp_path / "src").mkdir()
    # CUDA and SYCL in one file outside a SYCL directory: the project's, marked mixed.
    (tmp_path / "src" / "interop.cu").write_text("#include <sycl/sycl.hpp>\n#include <cuda_runtime.h>\n__global__ void k() {}\n")
    # A SYCL include under #if: not a backend file by that include.
    (tmp_path / "src" / "maybe.h").write_text("#ifdef USE_SYCL\n#include <sycl/sycl.hpp>\n#endif\nint f();\n")
    # MUSA code in CUDA syntax in its own directory: the MUSA backend's.
    (tmp_path / "musa").mkdir()
    (tmp_path / "musa" / "mudnn.cu").write_text("#include <mudnn.h>\n__global__ void k() {}\n")
    # A non-CUDA file that includes a backend header of the project is that backend's.
    (tmp_path / "src" / "vk.h").write_text("#pragma once\n#include <vulkan/vulkan.h>\n")
    (tmp_path / "src" / "vk_user.cpp").write_text('#include "vk.h"\nint g() { return 0; }\n')
    # A header that maps CUDA names to MUSA is the MUSA backend's.
    (tmp_path / "src" / "musa_map.h").write_text("".join(f"#define cudaX{i} musaX{i}\n" for i in range(10)))
    scope = project_scope(tmp_path)
    assert (scope.of("src/interop.cu").scope, scope.of("src/interop.cu").mixed) == (Scope.PROJECT, "SYCL")
    assert scope.of("src/maybe.h").scope is Scope.PROJECT
    assert (scope.of("musa/mudnn.cu").scope, scope.of("musa/mudnn.cu").backend) == (Scope.BACKEND, "MUSA")
    assert (scope.of("src/vk_user.cpp").scope, scope.of("src/vk_user.cpp").backend) == (Scope.BACKEND, "Vulkan")
    assert scope.of("src/musa_map.h").backend == "MUSA"
    # A vendor header without a build switch: the header alone is the HIP path; the rest is ported.
    (tmp_path / "src" / "hipmap.h").write_text("".join(f"#define cudaY{i} hipY{i}\n" for i in range(10)))
    (tmp_path / "src" / "user.cu").write_text('#include "hipmap.h"\n__global__ void k() {}\n')
    scope = project_scope(tmp_path)
    assert scope.of("src/hipmap.h").scope is Scope.HIP_PATH
    assert scope.of("src/user.cu").scope is Scope.PROJECT
    assert scope.hip is not None and not scope.hip.complete and scope.own_rocm_build() == ""


def test_xpu_directory_is_the_sycl_backend(tmp_path: Path):
    """microsoft/DeepSpeed csrc/xpu/includes/type_shim.h: dpct-migrated SYCL with a CUDA warp call left in a
    template. Read as the project's mixed code, the port wrote __device__ warp32 helpers into it, which a
    SYCL compiler does not know; in the xpu directory it is the SYCL backend's, left as it is."""
    (tmp_path / "csrc" / "xpu" / "includes").mkdir(parents=True)
    (tmp_path / "csrc" / "xpu" / "includes" / "type_shim.h").write_text(
        "#include <sycl/sycl.hpp>\ntemplate <typename T> T r(T v) { return v + __shfl_down_sync(0xffffffff, v, 1); }\n")
    (tmp_path / "csrc" / "xpu" / "k.cu").write_text("__global__ void k(float* o) { o[0] = 1.f; }\n")
    scope = project_scope(tmp_path)
    assert (scope.of("csrc/xpu/includes/type_shim.h").scope,
            scope.of("csrc/xpu/includes/type_shim.h").backend) == (Scope.BACKEND, "SYCL")
    assert scope.of("csrc/xpu/k.cu").scope is Scope.PROJECT  # CUDA without a SYCL header stays the project's


def test_bad_input_is_a_typed_skip_or_ignored(tmp_path: Path):
    (tmp_path / ".gitmodules").mkdir()  # not a file: read as no submodules
    (tmp_path / "a.cu").write_bytes(b"\xff\xfe#include <cuda_runtime.h>\n__global__ void k() {}\n\x00")
    (tmp_path / "CMakeLists.txt").write_text("option(X_HIP \"h\" OFF\nif(X_HIP)\n enable_language(HIP\n")  # unclosed
    (tmp_path / "ok.cu").write_text("__global__ void k() {}\n")
    scope = project_scope(tmp_path)
    assert scope.of("ok.cu").scope is Scope.PROJECT
    if os.geteuid() != 0:
        bad = tmp_path / "locked.cu"
        bad.write_text("__global__ void k() {}\n")
        plan = walk(tmp_path)
        bad.chmod(0)
        try:
            scope = project_scope(tmp_path, plan)
        finally:
            bad.chmod(0o644)
        assert any(s.path == "locked.cu" and s.reason is SkipReason.UNREADABLE for s in scope.skips)


@pytest.mark.parametrize("text, expected", [
    ("[submodule \"a\"]\n\tpath = ext/a\n", {"ext/a"}),
    ("[submodule \"a\"]\n\tpath = ../outside\n\tpath = /abs\n", set()),
    ("\x00\x01garbage", set()),
])
def test_gitmodules_paths(tmp_path: Path, text, expected):
    from vado.scan.discover import _submodule_paths

    (tmp_path / ".gitmodules").write_text(text)
    assert set(_submodule_paths(str(tmp_path / ".gitmodules"))) == expected


def _vendor_project(tmp_path: Path) -> None:
    (tmp_path / "vendors").mkdir()
    (tmp_path / "vendors" / "hip.h").write_text(
        "#pragma once\n#include <hip/hip_runtime.h>\n" + "".join(f"#define cudaZ{i} hipZ{i}\n" for i in range(10)))
    (tmp_path / "k.cu").write_text('#ifdef GGML_USE_HIPBLAS\n#include "vendors/hip.h"\n#endif\n__global__ void k() {}\n')


def test_makefile_hip_build(tmp_path: Path):
    _vendor_project(tmp_path)
    (tmp_path / "Makefile").write_text(
        "CXX ?= g++\nifdef LLAMA_HIPBLAS\n\tHIPCC ?= hipcc\n\tCXXFLAGS += -DGGML_USE_HIPBLAS -DGGML_USE_CUDA\nendif\n"
        "k.o: k.cu\n\t$(NVCC) -c $< -o $@\n")
    scope = project_scope(tmp_path)
    assert scope.hip is not None and scope.hip.complete
    assert (scope.hip.how, scope.hip.switch) == ("make LLAMA_HIPBLAS=1", "LLAMA_HIPBLAS")
    assert scope.hip.defines == ("GGML_USE_HIPBLAS", "GGML_USE_CUDA")
    assert scope.of("k.cu").scope is Scope.HIP_PATH and scope.of("Makefile").scope is Scope.HIP_PATH


def test_setup_py_hip_build(tmp_path: Path):
    _vendor_project(tmp_path)
    (tmp_path / "setup.py").write_text(
        "from torch.utils.cpp_extension import CUDAExtension, IS_HIP_EXTENSION\nimport setuptools\n"
        "setuptools.setup(ext_modules=[CUDAExtension('k', ['k.cu'])])\n")
    scope = project_scope(tmp_path)
    assert scope.hip is not None and scope.hip.complete and scope.hip.switch == "IS_HIP_EXTENSION"
    assert scope.hip.defines == ("USE_ROCM=1",)


def test_cmake_conditions_that_cannot_be_evaluated_are_undecided(tmp_path: Path):
    _vendor_project(tmp_path)
    (tmp_path / "CMakeLists.txt").write_text(
        'option(K_HIP "hip" OFF)\nif (K_HIP)\n  enable_language(HIP)\n  add_compile_definitions(K_USE_HIP)\n'
        '  if (CMAKE_CXX_COMPILER MATCHES "hipcc")\n    add_compile_definitions(K_LEGACY)\n  endif()\n'
        '  if (WIN32)\n    add_compile_definitions(K_WINDOWS)\n  elseif (K_HIP)\n    add_compile_definitions(K_POSIX)\n'
        '  endif()\nendif()\n')
    hip = project_scope(tmp_path).hip
    assert hip is not None and hip.how.startswith("cmake -DK_HIP=ON -DCMAKE_HIP_ARCHITECTURES=")
    assert hip.defines == ("K_USE_HIP", "K_POSIX")
    assert hip.undecided == ("K_LEGACY",)


def test_library_copies_by_markers_wherever_they_sit(tmp_path: Path):
    (tmp_path / "ext_src" / "cub").mkdir(parents=True)
    (tmp_path / "ext_src" / "cub" / "cub.cuh").write_text("#pragma once\n")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "catch.hpp").write_text("#pragma once\n")
    (tmp_path / "tests" / "t.cu").write_text('#include "catch.hpp"\n__global__ void k() {}\n')
    (tmp_path / "mine" / "include").mkdir(parents=True)  # an include/ of the project's own: scanned
    (tmp_path / "mine" / "include" / "mine.cuh").write_text("__global__ void k();\n")
    plan = walk(tmp_path)
    vendored = {s.path: s.detail for s in plan.skips if s.reason is SkipReason.VENDORED}
    assert set(vendored) == {"ext_src/cub", "tests/catch.hpp"}
    assert vendored["ext_src/cub"].startswith("a copy of CUB's headers (has cub.cuh")
    assert {f.path for f in plan.files} == {"tests/t.cu", "mine/include/mine.cuh"}
    # The root itself is never vendored: auditing a CUB checkout audits it.
    assert {f.path for f in walk(tmp_path / "ext_src" / "cub").files} == {"cub.cuh"}


def test_submodules_of_a_work_tree_above_the_root(tmp_path: Path):
    (tmp_path / ".git").mkdir()
    (tmp_path / ".gitmodules").write_text('[submodule "c"]\n\tpath = src/ext/cutlass\n')
    (tmp_path / "src" / "ext" / "cutlass").mkdir(parents=True)
    (tmp_path / "src" / "ext" / "cutlass" / "gemm.cu").write_text("__global__ void k() {}\n")
    (tmp_path / "src" / "k.cu").write_text("__global__ void k() {}\n")
    plan = walk(tmp_path / "src")
    assert [f.path for f in plan.files] == ["k.cu"]
    assert [(s.path, s.reason) for s in plan.skips] == [("ext/cutlass", SkipReason.VENDORED)]


def test_setup_py_torch_version_hip_is_the_switch(tmp_path: Path):
    """torch_scatter's setup.py tests torch.version.hip (no IS_HIP_EXTENSION): the same HIP build."""
    _vendor_project(tmp_path)
    (tmp_path / "setup.py").write_text(
        "import torch\nfrom torch.utils.cpp_extension import CUDAExtension\nimport setuptools\n"
        "flags = [] if torch.version.hip else ['--expt-relaxed-constexpr']\n"
        "setuptools.setup(ext_modules=[CUDAExtension('k', ['k.cu'], extra_compile_args={'nvcc': flags})])\n")
    scope = project_scope(tmp_path)
    assert scope.hip is not None and scope.hip.complete and scope.hip.switch == "torch.version.hip"
    assert scope.hip.defines == ("USE_ROCM=1",)
    assert scope.hip.evidence == ("setup.py: torch.version.hip", "setup.py:5: its ROCm build compiles 1 source")


BACKEND_DIRS = PROJECTS / "backend-dirs"


def test_backend_directories_hip_by_includes_and_cuda_only_parts():
    """One directory per GPU backend (the Ginkgo layout): hip/ and the shared common/cuda_hip/ are the
    project's own HIP path (they include HIP's headers and a CMake switch turns HIP on); cuda/ and a
    tool CMake builds only under the CUDA option are not compiled by the ROCm build at all."""
    scope = project_scope(BACKEND_DIRS)
    hip = scope.hip
    assert hip is not None and hip.complete
    assert hip.how == "cmake -DKD_BUILD_HIP=ON -DCMAKE_HIP_ARCHITECTURES=gfx942"
    assert hip.defines == ("KD_COMPILING_HIP",)
    assert set(hip.hip_sources) == {"common/cuda_hip/runtime.hpp", "hip/device.hip.cpp"}
    on_path = {p for p, fs in scope.files.items() if fs.scope is Scope.HIP_PATH and fs.why.startswith("on the")}
    # dispatch.cpp launches nothing itself: C++ that includes the platform header is on the path all the same.
    assert {"common/cuda_hip/runtime.hpp", "common/cuda_hip/reduce.hpp", "common/cuda_hip/scale_kernels.cpp",
            "common/cuda_hip/dispatch.cpp", "hip/device.hip.cpp"} == on_path
    cuda = scope.of("cuda/device.cu")
    assert cuda.scope is Scope.HIP_PATH
    assert cuda.why == ("not compiled by the project's own ROCm build (cmake -DKD_BUILD_HIP=ON "
                        "-DCMAKE_HIP_ARCHITECTURES=gfx942): CMakeLists.txt adds cuda/ only if KD_BUILD_CUDA, "
                        "off in the ROCm build")
    probe = scope.of("tools/probe.cu")
    assert probe.scope is Scope.HIP_PATH and "add_executable(kd_probe) builds tools/probe.cu only if KD_BUILD_CUDA" in probe.why
    # CUDA that every configuration builds, and host code, stay the project's.
    assert scope.of("tools/bench.cu").scope is Scope.PROJECT
    assert scope.of("core/solver.cpp").scope is Scope.PROJECT


def test_hip_includes_without_a_switch_are_not_an_own_build(tmp_path: Path):
    """A tree that includes HIP's headers but builds only for HIP (what a port writes) has no HIP
    configuration beside another one: nothing there is taken for the project's own HIP path."""
    (tmp_path / "CMakeLists.txt").write_text("project(p LANGUAGES CXX HIP)\nadd_executable(k k.hip.cpp)\n"
                                             "set_source_files_properties(k.hip.cpp PROPERTIES LANGUAGE HIP)\n")
    (tmp_path / "k.hip.cpp").write_text("#include <hip/hip_runtime.h>\n__global__ void k(float* x) { x[0] = 1; }\n")
    (tmp_path / "w.cu").write_text("#include <cuda_runtime.h>\n__global__ void w(float* x) { x[0] = 2; }\n")
    scope = project_scope(tmp_path)
    assert scope.own_rocm_build() == ""
    assert {fs.scope for fs in scope.files.values()} == {Scope.PROJECT}


def test_cpu_code_including_a_platform_header_stays_the_projects(tmp_path: Path):
    """ggml-common.h picks <hip/hip_fp16.h> for its HIP users; ggml-quants.c includes it too and is C,
    compiled by the C compiler in every build: the way up from a header on the HIP path by its includes
    stops at C sources."""
    (tmp_path / "CMakeLists.txt").write_text(
        "project(p LANGUAGES C CXX)\noption(P_HIP \"hip\" OFF)\nif(P_HIP)\n  enable_language(HIP)\n"
        "  add_compile_definitions(P_USE_HIP)\nendif()\nadd_library(p quants.c k.cu)\n")
    (tmp_path / "common.h").write_text("#pragma once\n#if defined(P_USE_HIP)\n#include <hip/hip_fp16.h>\n"
                                       "#else\n#include <cuda_fp16.h>\n#endif\n")
    (tmp_path / "quants.c").write_text('#include "common.h"\nint q(int x) { return x + 1; }\n')
    (tmp_path / "k.cu").write_text('#include "common.h"\n__global__ void k(__half* x) { x[0] = x[1]; }\n')
    scope = project_scope(tmp_path)
    assert scope.own_rocm_build().startswith("cmake -DP_HIP=ON")
    assert scope.of("common.h").scope is Scope.HIP_PATH and scope.of("k.cu").scope is Scope.HIP_PATH
    assert scope.of("quants.c").scope is Scope.PROJECT


def test_a_cuda_directory_another_build_file_reaches_into_is_kept(tmp_path: Path):
    """ggml's HIP build globs ../ggml-cuda/*.cu: a directory a CMake file outside it names a path into
    is compiled by that build, whatever guards its add_subdirectory."""
    (tmp_path / "CMakeLists.txt").write_text(
        "project(p LANGUAGES CXX)\noption(P_CUDA \"\" OFF)\noption(P_HIP \"\" OFF)\n"
        "if(P_CUDA)\n  add_subdirectory(p-cuda)\nendif()\nif(P_HIP)\n  add_subdirectory(p-hip)\nendif()\n")
    (tmp_path / "p-cuda").mkdir()
    (tmp_path / "p-cuda" / "CMakeLists.txt").write_text("add_library(pc k.cu)\n")
    (tmp_path / "p-cuda" / "k.cu").write_text('#include "vendors.h"\n__global__ void k(float* x) { x[0] = 1; }\n')
    (tmp_path / "p-cuda" / "vendors.h").write_text(
        "#pragma once\n#if defined(P_USE_HIP)\n#include <hip/hip_runtime.h>\n#else\n#include <cuda_runtime.h>\n#endif\n")
    (tmp_path / "p-hip").mkdir()
    (tmp_path / "p-hip" / "CMakeLists.txt").write_text(
        "enable_language(HIP)\nfile(GLOB SRC \"../p-cuda/*.cu\")\nadd_library(ph ${SRC})\n"
        "add_compile_definitions(P_USE_HIP)\n")
    scope = project_scope(tmp_path)
    k = scope.of("p-cuda/k.cu")
    assert k.scope is Scope.HIP_PATH and k.why.startswith("on the project's own HIP path")


def test_headers_only_sources_the_rocm_build_leaves_out_include_go_with_them(tmp_path: Path):
    """One mechanism for what the project's own ROCm build does not compile (a cuda/ directory it never
    adds, CUDA sources only the CUDA build names): a project header that only such files include is left
    as it is with them; a header a compiled file includes too stays the project's."""
    import shutil

    tree = tmp_path / "kd"
    shutil.copytree(BACKEND_DIRS, tree)
    (tree / "include").mkdir()
    (tree / "include" / "cuda_launch.cuh").write_text("#pragma once\n#include <cuda_runtime.h>\n"
                                                      "inline dim3 grid_for(int n) { return dim3((n + 255) / 256); }\n")
    (tree / "include" / "shared.h").write_text("#pragma once\nint kd_shared();\n")
    device = tree / "cuda" / "device.cu"
    device.write_text('#include "../include/cuda_launch.cuh"\n#include "../include/shared.h"\n' + device.read_text())
    solver = tree / "core" / "solver.cpp"
    solver.write_text('#include "../include/shared.h"\n' + solver.read_text())
    scope = project_scope(tree)
    launch = scope.of("include/cuda_launch.cuh")
    assert launch.scope is Scope.HIP_PATH and launch.why == scope.of("cuda/device.cu").why
    assert scope.of("include/shared.h").scope is Scope.PROJECT  # core/solver.cpp, compiled everywhere, includes it


def _self_hipifying(tmp_path: Path, hipify: bool) -> Path:
    """A project laid out as faiss 02dbb4e4 is: an option turns on HIP, and its AMD branch runs the project's own
    hipify script over gpu/ when CMake configures (or, without ``hipify``, names nothing of the kind)."""
    root = tmp_path / "selfhip"
    (root / "gpu").mkdir(parents=True)
    (root / "common").mkdir()
    step = "  execute_process(COMMAND ${PROJECT_SOURCE_DIR}/gpu/hipify.sh)\n" if hipify else ""
    (root / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.24)\nproject(selfhip CXX)\n"
        "option(SELFHIP_ENABLE_ROCM \"Enable ROCm\" OFF)\n"
        "if(SELFHIP_ENABLE_ROCM)\n  enable_language(HIP)\n  add_definitions(-DUSE_AMD_ROCM)\n" + step +
        "else()\n  enable_language(CUDA)\nendif()\nadd_subdirectory(gpu)\n")
    (root / "gpu" / "CMakeLists.txt").write_text("add_library(g kernels.cu)\n")
    (root / "gpu" / "hipify.sh").write_text("#!/bin/sh\nfor f in *.cu; do hipify-perl -inplace \"$f\"; done\n")
    (root / "gpu" / "kernels.cu").write_text(
        '#include <cuda_runtime.h>\n#include "../cpu/util.h"\n'
        "__global__ void k(float* x) { x[threadIdx.x] = 1.0f; }\n"
        "void run(float* x) { k<<<1, 32>>>(x); cudaDeviceSynchronize(); }\n")
    (root / "common" / "util.h").write_text("#pragma once\ninline void zero(char* p, int n) { memset(p, 0, n); }\n")
    return root


def test_a_rocm_build_that_hipifies_its_own_sources_is_left_as_it_is(tmp_path: Path):
    # faiss: FAISS_ENABLE_ROCM runs faiss/gpu/hipify.sh when CMake configures and compiles the hipified copies: its
    # CUDA sources stay CUDA-spelled by design. vado's port changed 37 of its files (includes, renames, and
    # <string.h> in CPU headers), now none; the audit says it moves as is with that build.
    root = _self_hipifying(tmp_path, hipify=True)
    scope = project_scope(root)
    assert scope.hip is not None and scope.hip.complete and scope.hip.switch == "SELFHIP_ENABLE_ROCM"
    assert scope.hip.hipify_step == ("CMakeLists.txt:7: execute_process runs gpu/hipify.sh",)
    assert scope.of("gpu/kernels.cu").scope is Scope.HIP_PATH
    util = scope.of("common/util.h")
    assert util.scope is Scope.HIP_PATH and "hipifies its own sources" in util.why
    # without the hipify step, nothing says the AMD build compiles gpu/kernels.cu: it is the project's to port
    plain = project_scope(_self_hipifying(tmp_path / "n", hipify=False))
    assert plain.hip is None or not plain.hip.hipify_step
    assert plain.of("gpu/kernels.cu").scope is Scope.PROJECT


def test_port_of_a_self_hipifying_project_changes_nothing(tmp_path: Path):
    from vado.knowledge.targets import get_target
    from vado.port.tree import port_tree

    root = _self_hipifying(tmp_path, hipify=True)
    before = {p.relative_to(root): p.read_bytes() for p in root.rglob("*") if p.is_file()}
    out = tmp_path / "port"
    port_tree(root, out, get_target("rocm-7.2"))
    after = {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file() and "vado" not in p.name}
    assert {k: v for k, v in after.items() if k in before} == {k: before[k] for k in after if k in before}


def test_sources_the_rocm_branch_removes_from_its_list_are_cuda_only(tmp_path: Path):
    """CTranslate2 0d8bcd3's layout: one list of CUDA sources; the HIP branch removes some with
    ``list(REMOVE_ITEM …)`` before giving the rest LANGUAGE HIP. Those are compiled by the CUDA build
    only (they had been taken for the ROCm build's, so their warp code 'moved as is' with it); what the
    CUDA branch removes is not the ROCm build's business."""
    root = tmp_path / "rm"
    (root / "src").mkdir(parents=True)
    (root / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.24)\nproject(rm CXX)\noption(WITH_HIP \"HIP\" OFF)\n"
        "set(CUDA_SOURCES src/keep.cu src/awq.cu src/cudnn.cu)\n"
        "if(WITH_HIP)\n  enable_language(HIP)\n  list(REMOVE_ITEM CUDA_SOURCES src/awq.cu)\n"
        "  set_source_files_properties(${CUDA_SOURCES} PROPERTIES LANGUAGE HIP)\n  add_definitions(-DRM_USE_HIP)\n"
        "else()\n  enable_language(CUDA)\n  list(REMOVE_ITEM CUDA_SOURCES src/cudnn.cu)\nendif()\n"
        "add_library(rm SHARED ${CUDA_SOURCES})\n")
    kernel = ("#include <cuda_runtime.h>\n__global__ void k(float* x) {\n"
              "  x[threadIdx.x] = __shfl_down_sync(0xffffffff, x[threadIdx.x], 16);\n}\n")
    for name in ("keep", "awq", "cudnn"):
        (root / "src" / f"{name}.cu").write_text(kernel)
    scope = project_scope(root)
    awq, keep, cudnn = (scope.of(f"src/{n}.cu") for n in ("awq", "keep", "cudnn"))
    assert awq.scope is Scope.HIP_PATH and "compiled only by the project's CUDA build" in awq.why and awq.not_for_amd
    assert keep.scope is Scope.HIP_PATH and "compiled only" not in keep.why and not keep.not_for_amd
    assert "compiled only" not in cudnn.why


def _torch_two_builds(root: Path, *, rocm_aware: bool = True) -> Path:
    """A PyTorch extension whose setup.py compiles other sources on ROCm (flash-attention 0251105's layout: CUTLASS
    kernels for CUDA in csrc/cuda/, CK sources for ROCm in csrc/ck/ renamed .cpp -> .cu by setup.py, a header both
    include), or, with ``rocm_aware`` False, one that gates the CUDA sources on CUDA_HOME only (detectron2's
    TensorMask: its ROCm build leaves them out, which BLD005 says; nothing is taken for CUDA-only)."""
    files = {
        "csrc/common/shared.h": "#pragma once\ninline int shared() { return 1; }\n",
        "csrc/cuda/api.cpp": '#include "src/kernel.h"\n#include "../common/shared.h"\nvoid api() {}\n',
        "csrc/cuda/src/kernel.h": "#pragma once\n#include <cute/tensor.hpp>\ntemplate <int N> void run();\n",
        "csrc/cuda/src/fwd.cu": ('#include "kernel.h"\n__global__ void fwd(float* x) {\n'
                                 '  asm volatile("cp.async.wait_all;\\n" ::);\n'
                                 "  x[threadIdx.x] = __shfl_down_sync(0xffffffff, x[threadIdx.x], 16);\n}\n"),
        "csrc/ck/api.cpp": '#include "../common/shared.h"\n#include "ck.hpp"\nvoid api() {}\n',
        "csrc/ck/ck.hpp": "#pragma once\nint ck();\n",
        "csrc/ck/fwd.cpp": '#include "ck.hpp"\n#include <hip/hip_runtime.h>\n__global__ void fwd(float* x) { x[0] = 1; }\n',
    }
    for name, body in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(body)
    if rocm_aware:
        setup = ("import glob, os, shutil\nfrom setuptools import setup\n"
                 "from torch.utils.cpp_extension import CUDAExtension, BuildExtension, IS_HIP_EXTENSION\n"
                 "def rename_cpp_to_cu(files):\n    for f in files:\n        shutil.copy(f, os.path.splitext(f)[0] + '.cu')\n"
                 "if IS_HIP_EXTENSION:\n    ck = glob.glob('csrc/ck/*.cpp')\n    rename_cpp_to_cu(ck)\n"
                 "    sources = [os.path.splitext(f)[0] + '.cu' for f in ck]\n    macros = [('K_WITH_HIP', None), ('K_ANY', '1')]\n"
                 "else:\n    sources = ['csrc/cuda/api.cpp'] + glob.glob('csrc/cuda/src/*.cu')\n"
                 "    macros = [('K_WITH_CUDA', None), ('K_ANY', '1')]\n"
                 "setup(name='k', ext_modules=[CUDAExtension('k._C', sources, define_macros=macros)],\n"
                 "      cmdclass={'build_ext': BuildExtension})\n")
    else:
        setup = ("import glob\nfrom setuptools import setup\n"
                 "from torch.utils.cpp_extension import CUDAExtension, CppExtension, CUDA_HOME\n"
                 "sources = ['csrc/cuda/api.cpp']\next = CppExtension\n"
                 "if CUDA_HOME is not None:\n    ext = CUDAExtension\n    sources += glob.glob('csrc/cuda/src/*.cu')\n"
                 "setup(name='k', ext_modules=[ext('k._C', sources)])\n")
    (root / "setup.py").write_text(setup)
    return root


def test_torch_extension_sources_only_its_cuda_build_compiles_are_left_as_they_are(tmp_path: Path):
    scope = project_scope(_torch_two_builds(tmp_path / "fa"))
    hip = scope.hip
    assert hip is not None and hip.torch_rocm and hip.switch == "IS_HIP_EXTENSION" and not hip.complete
    assert hip.rocm_sources == ("csrc/ck/api.cpp", "csrc/ck/fwd.cpp")  # the .cpp setup.py copies to .cu
    assert hip.cuda_only == ("csrc/cuda/api.cpp", "csrc/cuda/src/fwd.cu")
    # the ROCm extension's macros (what every ROCm unit gets) with cpp_extension's USE_ROCM, not the CUDA ones
    assert hip.defines == ("USE_ROCM=1", "K_WITH_HIP", "K_ANY=1")
    for path in ("csrc/cuda/api.cpp", "csrc/cuda/src/fwd.cu", "csrc/cuda/src/kernel.h"):
        fs = scope.of(path)
        assert fs.scope is Scope.HIP_PATH and fs.not_for_amd and "compiled only by the project's CUDA build" in fs.why
    # what the ROCm build compiles stays the project's (hipified at build time: the torch-extension port's),
    # and so does a header both builds include, and the setup.py
    for path in ("csrc/ck/api.cpp", "csrc/ck/ck.hpp", "csrc/common/shared.h", "setup.py"):
        assert scope.of(path).scope is Scope.PROJECT, path
    # but HIP code, written for ROCm (xformers' ck_tile kernels): its ROCm build compiles it as written
    fwd = scope.of("csrc/ck/fwd.cpp")
    assert fwd.scope is Scope.HIP_PATH and not fwd.not_for_amd and "includes <hip/hip_runtime.h>" in fwd.why


def test_torch_extension_hip_code_and_the_headers_only_it_includes_are_its_own(tmp_path: Path):
    root = _torch_two_builds(tmp_path / "xf")
    (root / "csrc" / "ck" / "tile.hpp").write_text("#pragma once\n#include <ck_tile/core.hpp>\n")
    (root / "csrc" / "ck" / "tile_only.h").write_text("#pragma once\ntemplate <int N> struct T {};\n")
    (root / "csrc" / "ck" / "attn.cpp").write_text('#include "tile.hpp"\n#include "tile_only.h"\n#include "ck.hpp"\n')
    # CUDA code that picks HIP's header in a USE_ROCM branch is hipified CUDA code: the project's to port
    (root / "csrc" / "ck" / "mixed.cpp").write_text(
        "#ifdef USE_ROCM\n#include <hip/hip_runtime.h>\n#else\n#include <cuda_runtime.h>\n#endif\n"
        '#include "ck.hpp"\n__global__ void k() {}\n')
    scope = project_scope(root)
    # tile.hpp includes ck_tile; attn.cpp includes tile.hpp (it compiles only as HIP); tile_only.h only attn.cpp includes
    for path in ("csrc/ck/tile.hpp", "csrc/ck/fwd.cpp", "csrc/ck/attn.cpp", "csrc/ck/tile_only.h"):
        assert scope.of(path).scope is Scope.HIP_PATH, path
    assert "includes <ck_tile/core.hpp>" in scope.of("csrc/ck/attn.cpp").why
    # ck.hpp is shared with CUDA-spelled code; mixed.cpp picks HIP's header in a branch
    for path in ("csrc/ck/mixed.cpp", "csrc/ck/ck.hpp", "csrc/ck/api.cpp"):
        assert scope.of(path).scope is Scope.PROJECT, path


def test_a_setup_py_that_is_not_rocm_aware_has_no_cuda_only_sources(tmp_path: Path):
    scope = project_scope(_torch_two_builds(tmp_path / "tm", rocm_aware=False))
    assert scope.hip is None
    assert all(fs.scope is Scope.PROJECT for fs in scope.files.values())


def test_a_setup_py_that_stops_on_rocm_says_nothing_of_its_sources(tmp_path: Path):
    # flash-attention's hopper/setup.py tests IS_HIP_EXTENSION, then runs CUDA_HOME + "/bin/nvcc" -V on every run:
    # a ROCm build stops there. Its sources are neither the ROCm build's nor CUDA-only.
    root = _torch_two_builds(tmp_path / "stop")
    text = (root / "setup.py").read_text()
    (root / "setup.py").write_text(text.replace(
        "def rename_cpp_to_cu", "import subprocess\nfrom torch.utils.cpp_extension import CUDA_HOME\n"
        "def nvcc_version(home):\n    return subprocess.check_output([home + '/bin/nvcc', '-V'])\n"
        "v = nvcc_version(CUDA_HOME)\ndef rename_cpp_to_cu"))
    scope = project_scope(root)
    assert scope.hip is not None and not scope.hip.torch_rocm and not scope.hip.cuda_only
    assert scope.of("csrc/cuda/src/fwd.cu").scope is Scope.PROJECT


def test_a_top_setup_py_is_the_rocm_build_over_a_deep_cmake_file(tmp_path: Path):
    # xformers ca6d2aa: xformers/csrc/attention/hip_decoder/CMakeLists.txt (enable_language(HIP)) builds one
    # directory's kernels for their developers; the project's ROCm build is its setup.py's.
    root = _torch_two_builds(tmp_path / "xf")
    (root / "csrc" / "ck" / "dev").mkdir()
    (root / "csrc" / "ck" / "dev" / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.21)\nproject(dev LANGUAGES CXX HIP)\nadd_definitions(-DDEV_ONLY=1)\n"
        "add_executable(dev ../fwd.cpp)\n")
    hip = project_scope(root).hip
    assert hip is not None and hip.how.startswith("pip install .") and "DEV_ONLY=1" not in hip.defines
    # a CMake HIP build at the top (or above the setup.py) stays the project's ROCm build
    (root / "CMakeLists.txt").write_text("cmake_minimum_required(VERSION 3.21)\noption(K_HIP \"hip\" OFF)\n"
                                         "if(K_HIP)\n  enable_language(HIP)\nendif()\n")
    assert project_scope(root).hip.how.startswith("cmake -DK_HIP=ON")


def test_ascend_npu_and_cambricon_mlu_code_are_other_backends(tmp_path: Path):
    # mmcv a8073c7: common/pytorch_npu_util.hpp (Ascend: <acl/acl_base.h>, torch_npu) got `#include <string.h>` in a
    # USE_ROCM branch; its pytorch/npu/ and pytorch/mlu/ sources are the Ascend and Cambricon builds' code.
    files = {
        "ops/common/pytorch_npu_util.hpp": "#pragma once\n#include <acl/acl_base.h>\n#include <acl/acl_rt.h>\n"
                                           "inline void copy(void* d, const void* s, int n) { memcpy(d, s, n); }\n",
        "ops/common/pytorch_npu_helper.hpp": '#pragma once\n#include "pytorch_npu_util.hpp"\n',
        "ops/pytorch/npu/nms_npu.cpp": '#include "pytorch_npu_helper.hpp"\nvoid nms_npu() {}\n',
        "ops/pytorch/mlu/nms_mlu.cpp": '#include "mlu_common_helper.h"\nvoid nms_mlu() {}\n',
        "ops/common/mlu/common_mlu_helper.hpp": "#pragma once\n#include <cnrt.h>\n",
        "ops/pytorch/cuda/nms_cuda.cu": "#include <cuda_runtime.h>\n__global__ void nms() {}\n",
        # a CUDA source in an npu-named directory stays the project's
        "ops/npu_tools/k.cu": "__global__ void k() {}\n",
    }
    for name, body in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(body)
    scope = project_scope(tmp_path)
    assert {p: fs.backend for p, fs in scope.files.items() if fs.scope is Scope.BACKEND} == {
        "ops/common/pytorch_npu_util.hpp": "CANN (Ascend)", "ops/common/pytorch_npu_helper.hpp": "CANN (Ascend)",
        "ops/pytorch/npu/nms_npu.cpp": "CANN (Ascend)", "ops/pytorch/mlu/nms_mlu.cpp": "MLU (Cambricon)",
        "ops/common/mlu/common_mlu_helper.hpp": "MLU (Cambricon)"}
    assert scope.of("ops/pytorch/cuda/nms_cuda.cu").scope is Scope.PROJECT
    assert scope.of("ops/npu_tools/k.cu").scope is Scope.PROJECT


def test_headers_a_torch_rocm_build_includes_only_under_a_switch_it_leaves_off_are_not_its(tmp_path: Path):
    # mmcv a8073c7: parrots_cuda_helper.hpp (and the warp header only it includes) are included only under
    # `#ifdef MMCV_USE_PARROTS`, the Parrots build's switch, which its setup.py names but its ROCm extension does not
    # define: the port rewrote them (warp32 emulation, __CUDA_ARCH__ conditions) for no build.
    root = _torch_two_builds(tmp_path / "mm")
    (root / "setup.py").write_text((root / "setup.py").read_text() + "# define_macros = [('K_USE_PARROTS', None)]\n")
    files = {
        "csrc/common/parrots_helper.hpp": '#pragma once\n#include "parrots_warp.cuh"\n',
        "csrc/common/parrots_warp.cuh": "#pragma once\n__device__ float w(float v) { return __shfl_down_sync(0xffffffff, v, 1); }\n",
        "csrc/common/torch_helper.hpp": "#pragma once\n#include <cuda_runtime.h>\n",
        "csrc/common/not_rocm.h": "#pragma once\n#include <cuda_runtime.h>\n",
        "csrc/common/unknown.h": "#pragma once\n#include <cuda_runtime.h>\n",
        "csrc/common/loose.cuh": "#pragma once\n__global__ void loose();\n",  # no include reaches it: left alone
        "csrc/ck/kernel.cu": ('#ifdef K_USE_PARROTS\n#include "parrots_helper.hpp"\n#else\n#include "torch_helper.hpp"\n#endif\n'
                              '#ifndef USE_ROCM\n#include "not_rocm.h"\n#endif\n'
                              '#ifdef SOMETHING_NO_BUILD_FILE_NAMES\n#include "unknown.h"\n#endif\n'
                              "__global__ void k() {}\n"),
    }
    for name, body in files.items():
        (root / name).write_text(body)
    (root / "csrc" / "ck" / "kernel.cpp").write_text((root / "csrc" / "ck" / "kernel.cu").read_text())
    (root / "csrc" / "ck" / "kernel.cu").unlink()  # setup.py copies csrc/ck/*.cpp to .cu
    scope = project_scope(root)
    for path in ("csrc/common/parrots_helper.hpp", "csrc/common/parrots_warp.cuh", "csrc/common/not_rocm.h"):
        fs = scope.of(path)
        assert fs.scope is Scope.HIP_PATH and fs.not_for_amd and fs.why.startswith("read by no unit"), path
    # a name no build file mentions is not known to be off; a header the build includes, one nothing includes
    for path in ("csrc/common/torch_helper.hpp", "csrc/common/unknown.h", "csrc/common/loose.cuh"):
        assert scope.of(path).scope is Scope.PROJECT, path


def _backend_tree(root: Path) -> None:
    """stdgpu's layout (stotko/stdgpu 22599cf): one directory per backend under src/lib, picked by a computed
    include whose directory name the CMake configure writes into config.h."""
    (root / "CMakeLists.txt").write_text(
        'project(p LANGUAGES CXX)\nset(P_BACKEND "P_BACKEND_CUDA" CACHE STRING "backend")\n'
        "if(P_BACKEND STREQUAL P_BACKEND_HIP)\n  enable_language(HIP)\nendif()\nadd_subdirectory(src/lib)\n")
    lib = root / "src" / "lib"
    for d in ("cuda", "hip", "openmp"):
        (lib / d / "impl").mkdir(parents=True)
    (lib / "CMakeLists.txt").write_text("add_library(p impl/memory.cpp)\nadd_subdirectory(${P_BACKEND_DIRECTORY})\n")
    (lib / "platform.h").write_text(
        "#pragma once\n#include <lib/config.h>\n"
        "#define P_BACKEND_HEADER(header_file) \\\n    <lib/P_BACKEND_DIRECTORY/header_file>\n"
        "#include P_BACKEND_HEADER(platform.h)\n")
    (lib / "impl").mkdir()
    (lib / "impl" / "memory.cpp").write_text('#include <lib/platform.h>\n#include P_BACKEND_HEADER(memory.h)\n'
                                              'int f() { return 1; }\n')
    (lib / "cuda" / "platform.h").write_text("#pragma once\n#include <cuda_runtime_api.h>\n#define P_DEVICE __device__\n")
    (lib / "cuda" / "memory.h").write_text("#pragma once\n#include <cuda_runtime_api.h>\n"
                                           "inline void* dmalloc(size_t n) { void* p; cudaMalloc(&p, n); return p; }\n")
    (lib / "cuda" / "impl" / "memory.cpp").write_text('#include <lib/cuda/memory.h>\nvoid* g() { return dmalloc(4); }\n')
    (lib / "hip" / "platform.h").write_text("#pragma once\n#include <hip/hip_runtime.h>\n#define P_DEVICE __device__\n")
    (lib / "hip" / "memory.h").write_text("#pragma once\n#include <hip/hip_runtime.h>\n"
                                          "inline void* dmalloc(size_t n) { void* p; (void)hipMalloc(&p, n); return p; }\n")
    (lib / "openmp" / "platform.h").write_text("#pragma once\n#define P_DEVICE\n")
    (lib / "openmp" / "memory.h").write_text("#pragma once\n#include <cstdlib>\n"
                                             "inline void* dmalloc(size_t n) { return std::malloc(n); }\n")
    (root / "bench").mkdir()
    (root / "bench" / "main.hip").write_text('#include <lib/platform.h>\n#include P_BACKEND_HEADER(memory.h)\n'
                                             'int main() { return dmalloc(4) == nullptr; }\n')


def test_a_computed_include_reaches_the_hip_backend_directory_and_leaves_the_cuda_one(tmp_path: Path):
    _backend_tree(tmp_path)
    scope = project_scope(tmp_path)
    assert scope.hip is not None and scope.hip.complete
    # The HIP alternatives are the project's own HIP path (reached through `#include P_BACKEND_HEADER(...)`).
    for p in ("src/lib/hip/platform.h", "src/lib/hip/memory.h"):
        assert scope.of(p).scope is Scope.HIP_PATH and not scope.of(p).not_for_amd, p
    # The CUDA alternatives' directory is the CUDA build's: left as it is, not compiled for AMD.
    for p in ("src/lib/cuda/platform.h", "src/lib/cuda/memory.h", "src/lib/cuda/impl/memory.cpp"):
        s = scope.of(p)
        assert s.scope is Scope.HIP_PATH and s.not_for_amd and "P_BACKEND_HEADER(" in s.why, p
    # Another backend's directory is not decided by this.
    assert not scope.of("src/lib/openmp/memory.h").not_for_amd


def test_a_cuda_backend_directory_another_file_includes_by_name_is_kept(tmp_path: Path):
    _backend_tree(tmp_path)
    (tmp_path / "src" / "lib" / "impl" / "direct.cpp").write_text('#include <lib/cuda/memory.h>\nint h() { return 0; }\n')
    scope = project_scope(tmp_path)
    assert not scope.of("src/lib/cuda/memory.h").not_for_amd
    assert scope.of("src/lib/hip/memory.h").scope is Scope.HIP_PATH


def test_computed_include_parsing():
    from vado.scan.computed_includes import computed_alternatives, parse_computed, parse_path_macro

    assert parse_computed(b" P_HDR(memory.h) // x") == ("P_HDR", ("memory.h",))
    assert parse_computed(b" <lib/x.h>") is None and parse_computed(b' "x.h"') is None
    assert parse_path_macro(b" P_HDR(f) <lib/P_DIR/f>") == ("P_HDR", ("f",), "lib/P_DIR/f")
    assert parse_path_macro(b" P_X 1") is None
    macros = {"a.h": [("P_HDR", ("f",), "lib/P_DIR/f")]}
    paths = ["src/lib/cuda/m.h", "src/lib/hip/m.h", "src/lib/openmp/m.h"]
    (alt,) = computed_alternatives({"x.cpp": [("P_HDR", ("m.h",))]}, macros, paths)["x.cpp"]
    assert alt.hip == ("src/lib/hip/m.h",) and alt.cuda == ("src/lib/cuda/m.h",)
    # two bodies of one macro, or a path without a name the build fills in: nothing
    twice = {**macros, "b.h": [("P_HDR", ("f",), "lib/other/f")]}
    assert computed_alternatives({"x.cpp": [("P_HDR", ("m.h",))]}, twice, paths) == {}
    fixed = {"a.h": [("P_HDR", ("f",), "lib/hip/f")]}
    assert computed_alternatives({"x.cpp": [("P_HDR", ("m.h",))]}, fixed, paths) == {}


def _kokkos_like(root: Path) -> None:
    """kokkos 28848df's layout: one directory per backend under core/src, each globbed by a project function
    under its switch; the switches come from the project's own option function (no option(), no
    enable_language(HIP)); desul's atomics pick a header per backend under #ifdef X_CUDA_Y / X_HIP_Y."""
    (root / "cmake").mkdir()
    (root / "CMakeLists.txt").write_text(
        "project(kk CXX)\ninclude(cmake/devices.cmake)\nadd_subdirectory(core/src)\n"
        "if(Kk_ENABLE_HIP)\n  message(STATUS \"HIP\")\nendif()\n")
    (root / "cmake" / "devices.cmake").write_text(
        "function(kk_device_option SUFFIX DEFAULT)\n  kk_option(ENABLE_${SUFFIX} ${DEFAULT} BOOL \"\")\n"
        "  set(KK_ENABLE_${SUFFIX} ${Kk_ENABLE_${SUFFIX}} PARENT_SCOPE)\nendfunction()\n"
        "kk_device_option(CUDA OFF)\nkk_device_option(HIP OFF)\n"
        "if(KK_ENABLE_HIP)\n  set(DESUL_ENABLE_HIP ON)\nendif()\n")
    src = root / "core" / "src"
    for d in ("Cuda", "HIP", "impl"):
        (src / d).mkdir(parents=True)
    (src / "CMakeLists.txt").write_text(
        "set(SRCS)\nappend_glob(SRCS ${CMAKE_CURRENT_SOURCE_DIR}/impl/*.cpp)\n"
        "if(KK_ENABLE_CUDA)\n  append_glob(SRCS ${CMAKE_CURRENT_SOURCE_DIR}/Cuda/*.cpp)\nendif()\n"
        "if(KK_ENABLE_HIP)\n  append_glob(SRCS ${CMAKE_CURRENT_SOURCE_DIR}/HIP/*.cpp)\nendif()\n"
        "add_library(kk ${SRCS})\n")
    (src / "Cuda" / "kk_cuda.cpp").write_text(
        '#include <cuda_runtime.h>\n#include "kk_cuda.hpp"\nvoid kk_fence() { cudaDeviceSynchronize(); }\n')
    (src / "Cuda" / "kk_cuda.hpp").write_text("#pragma once\n#include <cuda_runtime.h>\nvoid kk_fence();\n")
    (src / "HIP" / "kk_hip.cpp").write_text(
        '#include <hip/hip_runtime.h>\nvoid kk_fence() { (void)hipDeviceSynchronize(); }\n')
    (src / "impl" / "atomics.hpp").write_text(
        "#pragma once\n#ifdef KK_HAVE_CUDA_ATOMICS\n#include <impl/atomics_cuda.hpp>\n#endif\n"
        "#ifdef KK_HAVE_HIP_ATOMICS\n#include <impl/atomics_hip.hpp>\n#endif\n")
    (src / "impl" / "atomics_cuda.hpp").write_text(
        "#pragma once\n#include <impl/lock_cuda.hpp>\n__device__ inline unsigned kk_vote(int p) { return __ballot_sync(0xffffffffu, p); }\n")
    (src / "impl" / "lock_cuda.hpp").write_text(
        "#pragma once\n#include <cuda_runtime.h>\n__device__ inline void kk_lock() { __threadfence(); }\n")
    (src / "impl" / "atomics_hip.hpp").write_text(
        "#pragma once\n#include <hip/hip_runtime.h>\n__device__ inline unsigned long long kk_vote(int p) { return __ballot(p); }\n")
    (src / "impl" / "core.cpp").write_text('#include <impl/atomics.hpp>\nint kk_core() { return 0; }\n')
    (src / "setup").mkdir()
    (src / "setup" / "setup_cuda.hpp").write_text(
        "#ifndef KK_SETUP_CUDA_HPP\n#define KK_SETUP_CUDA_HPP\n#if !defined(KK_ENABLE_CUDA)\n"
        '#error "setup_cuda.hpp without KK_ENABLE_CUDA"\n#endif\n#include <cuda_runtime.h>\n'
        "#if CUDA_VERSION < 11000\n#error old\n#endif\n#endif\n")
    (src / "setup" / "setup_hip.hpp").write_text(
        "#pragma once\n#ifndef KK_ENABLE_HIP\n#error no\n#endif\n#include <hip/hip_runtime.h>\n")
    # A CMake probe compiled only for CUDA, from a module the root includes; another under a condition vado
    # cannot decide.
    (root / "cmake" / "probe.cmake").write_text(
        "if(KK_ENABLE_CUDA AND NOT KK_ARCH_GIVEN)\n  try_run(R C ${CMAKE_BINARY_DIR}/p "
        "${CMAKE_CURRENT_SOURCE_DIR}/cmake/tests/cc.cc)\n  configure_file(${CMAKE_CURRENT_SOURCE_DIR}/cmake/tests/cc.cc "
        "cc.cu COPYONLY)\n  message(STATUS \"see cmake/tests/cc.cc\")\nendif()\n"
        "if(KK_SOMETHING)\n  try_compile(R2 ${CMAKE_BINARY_DIR}/q ${CMAKE_CURRENT_SOURCE_DIR}/cmake/tests/other.cc)\nendif()\n")
    (root / "cmake" / "tests").mkdir()
    (root / "cmake" / "tests" / "cc.cc").write_text(
        "#include <cuda_runtime.h>\nint main() { cudaDeviceProp p; return cudaGetDeviceProperties(&p, 0); }\n")
    (root / "cmake" / "tests" / "other.cc").write_text(
        "#include <cuda_runtime.h>\nint main() { int n; return cudaGetDeviceCount(&n); }\n")
    with open(root / "CMakeLists.txt", "a") as f:
        f.write("include(cmake/probe.cmake)\n")
    # Unit tests that use no CUDA and only tell nvcc apart; one that calls CUDA stays the project's.
    (root / "tests").mkdir()
    (root / "tests" / "type_info.cpp").write_text(
        "#if defined(__NVCC__) && !defined(__CUDA_ARCH__)\n// nvcc's two passes disagree\n#else\n"
        "static_assert(sizeof(int) == 4, \"\");\n#endif\nint main() { return 0; }\n")
    (root / "tests" / "cuda_test.cpp").write_text(
        "#include <cuda_runtime.h>\n#if CUDA_VERSION >= 11000\nint f() { return cudaDeviceSynchronize(); }\n#endif\n")


def test_a_switch_the_projects_own_functions_set_is_its_rocm_build(tmp_path: Path):
    """No option(), no enable_language(HIP): the project's own function makes Kk_ENABLE_HIP (the user's spelling,
    mixed case; KK_ENABLE_HIP is its copy), its CMake files test it, and its HIP directory includes HIP's headers."""
    _kokkos_like(tmp_path)
    scope = project_scope(tmp_path)
    assert scope.own_rocm_build() == "cmake -DKk_ENABLE_HIP=ON -DCMAKE_HIP_ARCHITECTURES=gfx942"
    assert scope.of("core/src/HIP/kk_hip.cpp").scope is Scope.HIP_PATH
    # The CUDA backend directory is globbed only under the CUDA switch: left as it is, not compiled for AMD.
    for p in ("core/src/Cuda/kk_cuda.cpp", "core/src/Cuda/kk_cuda.hpp"):
        fs = scope.of(p)
        assert fs.scope is Scope.HIP_PATH and fs.not_for_amd, p
        assert "append_glob() globs sources of core/src/Cuda/ only if KK_ENABLE_CUDA" in fs.why
    # A header included only under #ifdef KK_HAVE_CUDA_ATOMICS beside its HIP twin, and what only it includes.
    for p in ("core/src/impl/atomics_cuda.hpp", "core/src/impl/lock_cuda.hpp"):
        fs = scope.of(p)
        assert fs.scope is Scope.HIP_PATH and fs.not_for_amd, p
        assert "only under #ifdef KK_HAVE_CUDA_ATOMICS, beside the HIP twin under #ifdef KK_HAVE_HIP_ATOMICS" in fs.why
    assert not scope.of("core/src/impl/atomics_hip.hpp").not_for_amd
    # A header that stops with #error without the CUDA switch; one that needs the HIP switch is the HIP path's.
    setup = scope.of("core/src/setup/setup_cuda.hpp")
    assert setup.not_for_amd and "stops with #error unless KK_ENABLE_CUDA is defined" in setup.why
    assert scope.of("core/src/setup/setup_hip.hpp").scope is Scope.HIP_PATH
    assert not scope.of("core/src/setup/setup_hip.hpp").not_for_amd
    probe = scope.of("cmake/tests/cc.cc")
    assert probe.not_for_amd and "cmake/probe.cmake try_run() compiles cmake/tests/cc.cc only if KK_ENABLE_CUDA" in probe.why
    assert scope.of("cmake/tests/other.cc").scope is Scope.PROJECT  # KK_SOMETHING: undecided
    detect = scope.of("tests/type_info.cpp")
    assert detect.scope is Scope.HIP_PATH and "only tests CUDA's compiler macros" in detect.why
    assert scope.of("tests/cuda_test.cpp").scope is Scope.PROJECT


def test_a_cuda_header_also_included_unguarded_stays_compiled(tmp_path: Path):
    _kokkos_like(tmp_path)
    impl = tmp_path / "core" / "src" / "impl"
    (impl / "graph.cpp").write_text('#include <impl/atomics_cuda.hpp>\nint g() { return 1; }\n')
    scope = project_scope(tmp_path)
    assert not scope.of("core/src/impl/atomics_cuda.hpp").not_for_amd
    assert not scope.of("core/src/impl/lock_cuda.hpp").not_for_amd


def test_a_tested_switch_without_hip_code_is_no_rocm_build(tmp_path: Path):
    """A CUDA project whose CMake file only tests a HIP-named variable (and one it sets itself) has no ROCm build."""
    (tmp_path / "CMakeLists.txt").write_text(
        "project(p CXX CUDA)\nif(P_USE_HIP)\n  message(FATAL_ERROR \"not yet\")\nendif()\n"
        "set(DERIVED_HIP ON)\nif(DERIVED_HIP)\nendif()\nadd_library(p k.cu)\n")
    (tmp_path / "k.cu").write_text("#include <cuda_runtime.h>\n__global__ void k(float* x) { x[0] = 1; }\n")
    scope = project_scope(tmp_path)
    assert scope.own_rocm_build() == ""
    assert {fs.scope for fs in scope.files.values()} == {Scope.PROJECT}


def test_a_backend_string_another_file_turns_into_a_switch(tmp_path: Path):
    """AMReX 92679ba: AMReXOptions.cmake turns AMReX_GPU_BACKEND=HIP into AMReX_HIP, another file tests AMReX_HIP
    around find_package(hip) and its own add_amrex_define(AMREX_USE_HIP) under it; GPU_TARGETS is forced from the
    project's own arch variable."""
    (tmp_path / "Tools").mkdir()
    (tmp_path / "CMakeLists.txt").write_text("project(ax CXX)\ninclude(Tools/Options.cmake)\n"
                                             "include(Tools/Backends.cmake)\ninclude(Tools/Defines.cmake)\n"
                                             "add_library(ax gpu.cpp)\n")
    (tmp_path / "Tools" / "Options.cmake").write_text(
        'set(AX_GPU_BACKEND NONE CACHE STRING "<NONE,CUDA,HIP>")\n'
        "if (AX_GPU_BACKEND STREQUAL CUDA)\n  set(AX_CUDA ON)\n  set(AX_HIP OFF)\n"
        "elseif (AX_GPU_BACKEND STREQUAL HIP)\n  set(AX_CUDA OFF)\n  set(AX_HIP ON)\nendif()\n")
    (tmp_path / "Tools" / "Backends.cmake").write_text(
        'if (AX_HIP)\n  set(GPU_TARGETS "${AX_AMD_ARCH}" CACHE STRING "targets" FORCE)\n  find_package(hip)\nendif()\n')
    (tmp_path / "Tools" / "Defines.cmake").write_text(
        "if (AX_HIP)\n  add_ax_define( AX_USE_HIP NO_LEGACY )\nendif()\n"
        "if (AX_CUDA)\n  add_ax_define( AX_USE_CUDA NO_LEGACY )\nendif()\n")
    (tmp_path / "gpu.H").write_text("#pragma once\n#ifdef AX_USE_HIP\n#include <hip/hip_runtime.h>\n#else\n"
                                    "#include <cuda_runtime.h>\n#endif\n")
    (tmp_path / "gpu.cpp").write_text('#include "gpu.H"\nint ax() { return 0; }\n')
    scope = project_scope(tmp_path)
    assert scope.own_rocm_build() == "cmake -DAX_GPU_BACKEND=HIP -DAX_AMD_ARCH=gfx942"
    assert scope.hip.defines == ("AX_USE_HIP",)
    assert scope.of("gpu.cpp").scope is Scope.HIP_PATH


def _occa_like(root: Path, hip_twin: bool = True) -> None:
    """libocca/occa c0c601f's layout: one directory per mode; the CUDA mode compiles in every build against its
    polyfill (the CUDA names defined by the project when OCCA_CUDA_ENABLED is off)."""
    (root / "CMakeLists.txt").write_text(
        'project(oc CXX)\noption(OC_ENABLE_HIP "" ON)\nif(OC_ENABLE_HIP)\n  find_package(hip)\nendif()\n'
        "file(GLOB_RECURSE SRC src/*.cpp)\nadd_library(oc ${SRC})\n")
    modes = root / "src" / "modes"
    (modes / "cuda").mkdir(parents=True)
    (modes / "cuda" / "polyfill.hpp").write_text(
        "#pragma once\n#if OC_CUDA_ENABLED\n#include <cuda.h>\n#else\nnamespace oc { typedef int CUdevice; "
        "static const int CUDA_ERROR_TOO_MANY_PEERS = 0; inline int cuInit(int) { return 0; } }\n#endif\n")
    (modes / "cuda" / "device.cpp").write_text(
        '#include "polyfill.hpp"\nnamespace oc { int start() { CUdevice d = 0; return cuInit(d) '
        "== CUDA_ERROR_TOO_MANY_PEERS; } }\n")
    if hip_twin:
        (modes / "hip").mkdir()
        (modes / "hip" / "device.cpp").write_text(
            "#if OC_HIP_ENABLED\n#include <hip/hip_runtime.h>\n#endif\nnamespace oc { int start_hip() { return 0; } }\n")
    (root / "src" / "core.cpp").write_text("int oc_core() { return 0; }\n")


def test_a_cuda_backend_directory_beside_its_hip_twin_is_left_as_it_is(tmp_path: Path):
    _occa_like(tmp_path)
    scope = project_scope(tmp_path)
    assert scope.own_rocm_build() == "cmake -DOC_ENABLE_HIP=ON -DCMAKE_HIP_ARCHITECTURES=gfx942"
    for p in ("src/modes/cuda/polyfill.hpp", "src/modes/cuda/device.cpp"):
        fs = scope.of(p)
        assert fs.scope is Scope.HIP_PATH and not fs.not_for_amd, p
        assert fs.why.startswith("the project's CUDA backend directory src/modes/cuda/ beside its HIP twin src/modes/hip/")
    assert scope.of("src/core.cpp").scope is Scope.PROJECT


def test_a_cuda_directory_without_a_hip_twin_stays_the_projects(tmp_path: Path):
    _occa_like(tmp_path, hip_twin=False)
    (tmp_path / "src" / "gpu_hip.cpp").write_text("#include <hip/hip_runtime.h>\nint g() { return 0; }\n")
    scope = project_scope(tmp_path)
    assert scope.own_rocm_build()
    assert scope.of("src/modes/cuda/device.cpp").scope is Scope.PROJECT


@pytest.mark.parametrize("cond, how", [
    ("ifeq ($(USE_HIP),TRUE)", "make USE_HIP=TRUE"),      # AMReX 92679ba Tools/GNUMake/Make.defs
    ("ifeq ($(GPU_BACKEND), HIP)", "make GPU_BACKEND=HIP"),  # a backend string
    ('ifeq "$(BACKEND)" "rocm"', "make BACKEND=rocm"),
])
def test_makefile_hip_switch_by_the_value_it_is_compared_with(tmp_path: Path, cond, how):
    _vendor_project(tmp_path)
    (tmp_path / "Makefile").write_text(
        f"{cond}\n  CXX = hipcc\n  CXXFLAGS += -DP_USE_HIP\nelse\n  CXX = nvcc\nendif\nk.o: k.cu\n\t$(CXX) -c $< -o $@\n")
    scope = project_scope(tmp_path)
    assert scope.hip is not None and scope.hip.how == how and scope.hip.defines == ("P_USE_HIP",)


def test_makefile_comparison_with_another_value_is_no_switch(tmp_path: Path):
    _vendor_project(tmp_path)
    (tmp_path / "Makefile").write_text(
        "ifeq ($(GPU_BACKEND),CUDA)\n  CXX = nvcc\nendif\n# hipcc is not supported yet\nk.o: k.cu\n\t$(CXX) -c $< -o $@\n")
    scope = project_scope(tmp_path)
    assert scope.hip is None or not scope.hip.how.startswith("make GPU_BACKEND")


def test_the_rocm_build_suggestion_uses_the_projects_own_arch_option(tmp_path: Path):
    """kokkos 28848df selects the AMD arch with its own options (cmake/kokkos_arch.cmake: kokkos_arch_option turns
    the words of SUPPORTED_AMD_ARCHS into Kokkos_ARCH_<word>; GPU_TARGETS is not read): the suggestion names
    Kk_ARCH_AMD_GFX942=ON, and says where the project has no option for an arch (gfx950 at that commit)."""
    _kokkos_like(tmp_path)
    (tmp_path / "cmake" / "arch.cmake").write_text(
        "function(kk_arch_option SUFFIX DEV_TYPE DESCRIPTION DEPENDENCY)\n"
        "  kk_dependent_option(ARCH_${SUFFIX} \"Optimize for ${DESCRIPTION}\" OFF \"${DEPENDENCY}\" OFF)\nendfunction()\n"
        "list(APPEND SUPPORTED_AMD_ARCHS AMD_GFX942 AMD_GFX942_APU AMD_GFX90A)\n"
        "list(APPEND CORRESPONDING_AMD_FLAGS gfx942 gfx942 gfx90a)\n"
        "foreach(ARCH IN LISTS SUPPORTED_AMD_ARCHS)\n  kk_arch_option(${ARCH} GPU \"AMD GPU\" \"\")\nendforeach()\n")
    assert project_scope(tmp_path).own_rocm_build() == "cmake -DKk_ENABLE_HIP=ON -DKk_ARCH_AMD_GFX942=ON"
    both = project_scope(tmp_path, arches=("gfx942", "gfx950"))
    assert both.own_rocm_build() == ("cmake -DKk_ENABLE_HIP=ON -DKk_ARCH_AMD_GFX942=ON"
                                     " (no arch option of the project's names gfx950)")
    assert any("no GPU arch option for gfx950" in e for e in both.hip.evidence)


def test_an_arch_option_by_name_and_none_at_all(tmp_path: Path):
    """An option() per arch is set ON; a list of arch words without an option function that makes ARCH_ options
    from them is no option (negative): the generic CMAKE_HIP_ARCHITECTURES stays."""
    _kokkos_like(tmp_path)
    (tmp_path / "cmake" / "arch.cmake").write_text("list(APPEND SUPPORTED_AMD_ARCHS AMD_GFX942)\n")
    assert project_scope(tmp_path).own_rocm_build().endswith(" -DCMAKE_HIP_ARCHITECTURES=gfx942")
    (tmp_path / "cmake" / "arch.cmake").write_text("option(KK_ARCH_AMD_GFX942 \"MI300\" OFF)\n")
    assert project_scope(tmp_path).own_rocm_build() == "cmake -DKk_ENABLE_HIP=ON -DKK_ARCH_AMD_GFX942=ON"
