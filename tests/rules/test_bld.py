"""BLD rules: verdicts per target family, exact fix spans, idempotent fixes."""

from __future__ import annotations

from vado.model import Applicability, Verdict
from vado.rules.bld import offload_archs

from _fixroundtrip import findings, fix_all, targets

CMAKE = """\
cmake_minimum_required(VERSION 3.21)
project(demo LANGUAGES CXX CUDA)
find_package(CUDAToolkit REQUIRED)
set(CMAKE_CUDA_ARCHITECTURES 80 90)
set(CMAKE_CUDA_STANDARD 17)
set(CMAKE_CXX_FLAGS "-O3")
add_library(k STATIC k.cu)
target_link_libraries(k PRIVATE CUDA::cudart CUDA::cublas cudnn)
"""

MAKE = """\
NVCC = nvcc
FLAGS = -O3 -arch=sm_80 --use_fast_math -Xptxas -v -Xcompiler -fPIC --expt-relaxed-constexpr -rdc=true
LIBS = -lcudart -lcublas -lm
"""


def test_cmake_fix_rewrites_to_hip_and_is_idempotent():
    fixed = fix_all("CMakeLists.txt", CMAKE)
    assert "project(demo LANGUAGES CXX HIP)" in fixed
    assert "find_package(hip REQUIRED)" in fixed
    assert "set(CMAKE_HIP_ARCHITECTURES gfx942;gfx950)" in fixed
    assert "set(CMAKE_HIP_STANDARD 17)" in fixed
    # cuDNN → MIOpen is a rework: no library of that name on ROCm, so the link goes (unsafe).
    assert "target_link_libraries(k PRIVATE hip::host roc::hipblas)" in fixed
    assert 'set(CMAKE_CXX_FLAGS "-O3")' in fixed
    again = findings("CMakeLists.txt", fixed)
    assert [f for f in again if f.fix is not None] == []
    assert fix_all("CMakeLists.txt", fixed) == fixed


def test_makefile_fix_and_safety_levels():
    got = {f.data.get("flag") or f.data.get("library") or f.data.get("compiler"): f
           for f in findings("Makefile", MAKE, ("BLD003", "BLD004", "BLD006"))}
    assert got["xptxas"].fix.applicability is Applicability.SAFE
    assert got["arch"].fix.applicability is Applicability.UNSAFE
    assert got["fast-math"].fix.edits[0].content == "-ffast-math"
    fixed = fix_all("Makefile", MAKE)
    assert fixed.splitlines()[0] == "NVCC = hipcc"
    assert fixed.splitlines()[1] == ("FLAGS = -O3 --offload-arch=gfx942 --offload-arch=gfx950 -ffast-math -fPIC "
                                     "-fgpu-rdc")
    assert fixed.splitlines()[2] == "LIBS = -lamdhip64 -lhipblas -lm"
    assert fix_all("Makefile", fixed) == fixed


def test_verdicts_per_family():
    f = next(x for x in findings("CMakeLists.txt", CMAKE, ("BLD001",)) if x.data.get("construct") == "project")
    assert f.verdicts == {"rocm-7.2": Verdict.AUTOMATIC, "oneapi": Verdict.MANUAL, "scale": Verdict.MOVES_AS_IS,
                          "zluda": Verdict.MOVES_AS_IS}
    cudnn = next(x for x in findings("CMakeLists.txt", CMAKE, ("BLD004",)) if x.data["library"] == "cudnn")
    assert cudnn.verdicts["rocm-7.2"] is Verdict.MANUAL and cudnn.effort.hours == 2.0
    assert cudnn.fix.applicability is Applicability.UNSAFE and cudnn.fix.edits[0].content == ""


def test_zluda_needs_ptx_in_the_binary():
    sass_only = "F = -gencode arch=compute_80,code=sm_80\n"
    with_ptx = "F = -gencode arch=compute_80,code=sm_80 -gencode arch=compute_80,code=compute_80\n"
    assert findings("Makefile", sass_only, ("BLD003",))[0].verdicts["zluda"] is Verdict.MANUAL
    assert all(f.verdicts["zluda"] is Verdict.MOVES_AS_IS for f in findings("Makefile", with_ptx, ("BLD003",)))


def test_offload_arch_option_overrides_target_defaults():
    from vado.rules.base import FileContext
    from vado.scan.classify import FileKind

    from _fixroundtrip import targets

    ctx = FileContext("Makefile", FileKind.MAKEFILE, "", targets(), {"offload_arch": "gfx950,gfx942"})
    assert offload_archs(ctx) == ("gfx950", "gfx942")


def test_setup_py_extension_flags_get_hipcc_spellings():
    text = ("from torch.utils.cpp_extension import CUDAExtension\n"
            "e = CUDAExtension('x', ['x.cu'], extra_compile_args={'nvcc': ['--use_fast_math', '-rdc=true']})\n")
    got = findings("setup.py", text)
    assert {f.code for f in got} >= {"BLD005", "BLD006"}
    fast = next(f for f in got if f.data.get("flag") == "fast-math")
    # torch is importable where the module imports from it: import torch after that import, keep nvcc's flag
    # for a CUDA build and give hipcc its spelling (the CUDA build of one setup.py for both keeps working).
    assert fast.fix.applicability is Applicability.UNSAFE
    assert [e.content for e in fast.fix.edits] == ["import torch  # vado: the ROCm test of the flags below\n",
                                                   "*(['-ffast-math'] if torch.version.hip else ['--use_fast_math'])"]
    assert next(f for f in got if f.code == "BLD006").fix is None  # -rdc: the link needs it too
    # Flags bound before any torch import (none runs before them): rewritten for hipcc.
    flags = ("NVCC = [\n    '-O3',\n    '--expt-relaxed-constexpr',\n    '-gencode=arch=compute_90,code=sm_90', '-lineinfo'\n]\n"
             "EXTRA = ['-Xptxas=-v']\n"
             "from torch.utils.cpp_extension import CUDAExtension\n"
             "e = CUDAExtension('x', ['x.cu'], extra_compile_args={'nvcc': NVCC + EXTRA})\n")
    fixed = fix_all("setup.py", flags)
    # Dropped flags go with their list item (an empty string would reach hipcc as an input file).
    assert "NVCC = [\n    '-O3',\n    '-gline-tables-only'\n]\n" in fixed
    assert "EXTRA = []" in fixed
    assert fix_all("setup.py", fixed) == fixed
    ext = next(f for f in got if f.code == "BLD005" and f.data.get("call"))
    assert ext.verdicts["scale"] is Verdict.BLOCKED and ext.verdicts["rocm-7.2"] is Verdict.AUTOMATIC


def test_comments_and_cxx_flags_are_not_findings():
    text = "# nvcc -arch=sm_80 --use_fast_math -lcublas\nCXXFLAGS = -O3 -ffast-math\n"
    assert findings("Makefile", text) == []
    assert findings("CMakeLists.txt", 'set(CMAKE_CXX_FLAGS "-ffast-math")\n# enable_language(CUDA)\n') == []


def test_library_without_a_rocm_namesake_is_dropped_from_make_links():
    fixed = fix_all("Makefile", "LDFLAGS = -lcublas -lnvidia-ml -lm\n")
    assert fixed == "LDFLAGS = -lhipblas -lm\n"
    nvml = next(f for f in findings("Makefile", "LDFLAGS = -lnvidia-ml\n", ("BLD004",)))
    assert nvml.fix.applicability is Applicability.UNSAFE and nvml.verdicts["rocm-7.2"] is Verdict.MANUAL


def test_one_offload_arch_list_per_statement():
    text = "F = -gencode arch=compute_80,code=sm_80 \\\n    -gencode arch=compute_90,code=sm_90\nG = -arch=sm_70\n"
    assert fix_all("Makefile", text) == "F = --offload-arch=gfx942 --offload-arch=gfx950 \\\n    \nG = --offload-arch=gfx942 --offload-arch=gfx950\n"
    cmake = 'set(CMAKE_CUDA_FLAGS "-gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90")\n'
    assert fix_all("CMakeLists.txt", cmake).count("--offload-arch=gfx942") == 1


def test_setup_py_torch_cuda_arch_list_becomes_pytorch_rocm_arch():
    text = ('import os\nos.environ["TORCH_CUDA_ARCH_LIST"] = "8.0;9.0+PTX"\n'
            'arch = os.environ.get("TORCH_CUDA_ARCH_LIST", "")\nx = "TORCH_CUDA_ARCH_LIST is read"\n')
    got = [f for f in findings("setup.py", text, ("BLD002",))]
    assert [f.data["sm"] for f in got] == [["80", "90"], []]  # the set, the read; not the sentence
    fixed = fix_all("setup.py", text)
    assert fixed == ('import os\nos.environ["PYTORCH_ROCM_ARCH"] = "gfx942;gfx950"\n'
                     'arch = os.environ.get("PYTORCH_ROCM_ARCH", "")\nx = "TORCH_CUDA_ARCH_LIST is read"\n')
    assert fix_all("setup.py", fixed) == fixed


GUARDED = """\
ifneq ($(GPU_COMPUTE_CAPABILITY),)
  NVCC_FLAGS += --generate-code arch=compute_$(GPU_COMPUTE_CAPABILITY),code=[compute_$(GPU_COMPUTE_CAPABILITY),sm_$(GPU_COMPUTE_CAPABILITY)]
endif
"""


def test_arch_flag_built_from_a_guarded_variable_loses_its_guard():
    # llm.c reads GPU_COMPUTE_CAPABILITY from nvidia-smi: on AMD it stays empty, and the guard
    # would drop the offload architectures the fix writes (they no longer name the variable).
    fixed = fix_all("Makefile", GUARDED)
    assert fixed == "  NVCC_FLAGS += --offload-arch=gfx942 --offload-arch=gfx950\n"
    arch = next(f for f in findings("Makefile", GUARDED, ("BLD003",)) if f.data["flag"] == "gencode")
    assert "GPU_COMPUTE_CAPABILITY" in arch.fix.description and len(arch.fix.edits) == 3
    assert fix_all("Makefile", fixed) == fixed
    for guard in ("ifdef SM\n", "ifneq (,$(SM))\n", 'ifneq "$(SM)" ""\n', "ifneq ($(strip $(SM)),)\n"):
        text = f"# arch\n{guard}F += -arch=sm_$(SM) \\\n     -arch=sm_$(SM)a\nendif\nG = 1\n"
        assert fix_all("Makefile", text) == "# arch\nF += --offload-arch=gfx942 --offload-arch=gfx950 \\\n     \nG = 1\n", guard


def test_guards_that_mean_something_else_stay():
    cases = [
        # The flag does not use the variable the condition tests.
        "ifdef USE_SM80\n  F += -arch=sm_80\nendif\n",
        # An else branch, another statement in the block, the variable used beside the arch flag.
        "ifneq ($(SM),)\n  F += -arch=sm_$(SM)\nelse\n  F += -O0\nendif\n",
        "ifneq ($(SM),)\n  F += -arch=sm_$(SM)\n  D = -DSM=$(SM)\nendif\n",
        "ifneq ($(SM),)\n  F += -arch=sm_$(SM) -DSM=$(SM)\nendif\n",
        # A test for a value, not for one being set.
        "ifeq ($(SM),90)\n  F += -arch=sm_$(SM)\nendif\n",
    ]
    for text in cases:
        fixed = fix_all("Makefile", text)
        assert fixed.splitlines()[0] == text.splitlines()[0] and fixed.rstrip().endswith("endif"), text
        assert "--offload-arch=gfx942" in fixed


def test_list_subcommands_keep_their_arguments():
    """Issue 25: the port wrote list(SORT CMAKE_HIP_ARCHITECTURES gfx942;gfx950), which CMake rejects."""
    from vado.knowledge.targets import get_target
    from vado.rules.engine import check_text

    def fixed(line: str) -> str:
        (f,) = [f for f in check_text("CMakeLists.txt", line, [get_target("rocm-7.2")]) if f.code == "BLD002"]
        out = line
        for e in sorted(f.fix.edits, key=lambda e: -e.start):
            out = out[:e.start] + e.content + out[e.end:]
        return out

    assert fixed("list(SORT CMAKE_CUDA_ARCHITECTURES ORDER DESCENDING)\n") == \
        "list(SORT CMAKE_HIP_ARCHITECTURES ORDER DESCENDING)\n"
    assert fixed("list(GET CMAKE_CUDA_ARCHITECTURES 0 FIRST)\n") == "list(GET CMAKE_HIP_ARCHITECTURES 0 FIRST)\n"
    assert fixed("list(FIND CMAKE_CUDA_ARCHITECTURES 90 AT)\n") == "list(FIND CMAKE_HIP_ARCHITECTURES 90 AT)\n"
    assert fixed("list(APPEND CMAKE_CUDA_ARCHITECTURES 86 89)\n").startswith("list(APPEND CMAKE_HIP_ARCHITECTURES gfx")
    assert fixed("list(INSERT CMAKE_CUDA_ARCHITECTURES 0 75)\n").startswith("list(INSERT CMAKE_HIP_ARCHITECTURES 0 gfx")
    # The list as another list()'s output or argument is not a value list of its own.
    assert fixed("list(JOIN CMAKE_CUDA_ARCHITECTURES \",\" OUT)\n") == "list(JOIN CMAKE_HIP_ARCHITECTURES \",\" OUT)\n"


TORCH_CMAKE = """\
cmake_minimum_required(VERSION 3.10)
project(torchops)
if(WITH_CUDA)
  enable_language(CUDA)
  set(CMAKE_CUDA_FLAGS "${CMAKE_CUDA_FLAGS} --expt-relaxed-constexpr")
  string(APPEND CMAKE_CUDA_FLAGS_RELEASE " -Xptxas -v")
endif()
find_package(Torch REQUIRED)
target_compile_options(torchops PRIVATE --expt-extended-lambda)
"""


def _bld003(text: str):
    return {f.data["option"]: f for f in findings("CMakeLists.txt", text, ("BLD003",))}


def test_nvcc_flag_of_a_cuda_only_variable_goes_with_the_variables_rename():
    # torch_scatter/torch_cluster/torch_spline_conv: CMAKE_CUDA_FLAGS for nvcc. Only nvcc reads it until
    # BLD001 renames it (unsafe): a safe drop alone took --expt-relaxed-constexpr from the CUDA build of
    # a project that keeps its CUDA build files (its own ROCm build, in-place ports without --unsafe).
    got = _bld003(TORCH_CMAKE)
    for flag, var in (("--expt-relaxed-constexpr", "CMAKE_CUDA_FLAGS"), ("-Xptxas", "CMAKE_CUDA_FLAGS_RELEASE")):
        f = got[flag]
        assert f.fix is not None and f.fix.applicability is Applicability.UNSAFE, flag
        assert f"with {var}'s rename" in f.message
    # A flag outside the CUDA-only variables is hipcc's too: it goes, safely.
    assert got["--expt-extended-lambda"].fix.applicability is Applicability.SAFE
    fixed = fix_all("CMakeLists.txt", TORCH_CMAKE)  # all fixes: the variable and its flags move together
    assert 'set(CMAKE_HIP_FLAGS "${CMAKE_HIP_FLAGS}")' in fixed and "--expt" not in fixed
    assert fix_all("CMakeLists.txt", fixed) == fixed


def test_a_wrapped_thrust_namespace_on_the_own_hip_path_keeps_the_verdict(tmp_path):
    """BLD009 on a file of the project's own HIP path: that build itself does not compile on ROCm 7.2.4
    (rocThrust 4.2.0 under THRUST_CUB_WRAPPED_NAMESPACE; Ginkgo: 21 of 24 sampled units), so neither the
    finding nor the repository may read "moves as is with its own ROCm build"."""
    import shutil
    from pathlib import Path

    from vado.audit.pipeline import audit
    from vado.knowledge.targets import get_target

    fixture = Path(__file__).resolve().parents[1] / "fixtures" / "PROJECTS" / "own-hip"
    rocm = [get_target("rocm-7.2")]

    def rocm_verdict(root):
        res = audit(root, rocm)
        return next(v for v in res.verdicts if v.target == "rocm-7.2"), res

    before, _ = rocm_verdict(fixture)
    tree = tmp_path / "own-hip"
    shutil.copytree(fixture, tree)
    cml = tree / "src" / "mb-hip" / "CMakeLists.txt"
    cml.write_text(cml.read_text() + "target_compile_definitions(mb-hip PRIVATE THRUST_CUB_WRAPPED_NAMESPACE=mb)\n")
    after, res = rocm_verdict(tree)
    found = [f for f in res.findings if f.code == "BLD009"]
    assert [f.span.path for f in found] == ["src/mb-hip/CMakeLists.txt"]
    assert found[0].verdicts["rocm-7.2"] is Verdict.MANUAL
    assert "BLD009" not in dict(before.deciding)
    assert after.verdict.rank >= Verdict.MANUAL.rank and "BLD009" in dict(after.deciding)


def test_a_flag_fix_never_leaves_a_call_without_its_argument_or_half_a_quoted_value():
    # torchcompactradius 0.5.5's compiler.py: flags.append('-allow-unsupported-compiler') lost its string
    # (`flags.append()`, a TypeError when it runs) and '--ptxas-options="-v "' kept ' "' (a flag '"' for hipcc).
    import ast

    src = ("import torch\nfrom torch.utils.cpp_extension import load\n"
           "def build(verbose):\n    flags = []\n    flags.append('-arch=native -t 1')\n"
           "    flags.append('-allow-unsupported-compiler')\n    flags.append('--use_fast_math')\n"
           "    if verbose:\n        flags.append('--ptxas-options=\"-v \"')\n"
           "    return load(name='m', sources=['k.cu'], extra_cuda_cflags=flags)\n")
    got = {f.span.line: f for f in findings("mod.py", src) if f.code == "BLD005" and f.data.get("flag")}
    assert got[6].fix is None and got[9].fix is None  # reported, left to a person
    assert got[6].verdicts["rocm-7.2"] is Verdict.MANUAL
    fixed = fix_all("mod.py", src)
    ast.parse(fixed)
    assert "append()" not in fixed and "append(' \"')" not in fixed
    assert "flags.append(' -t 1')" in fixed  # a flag inside a string of several still goes
