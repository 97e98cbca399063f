"""The torch-extension port (issue 29): CUDA spelling kept, AMD-only changes in ``USE_ROCM`` branches.

``tests/fixtures/PROJECTS/torch-warp`` is vado's own small ``CUDAExtension`` (not copied from any
package): a 32-bit-mask ``__shfl_down_sync`` on ``__half`` and on ``float`` (ROCm 7's wants a 64-bit
mask), inline PTX for the lane id, a shuffle in a multi-line macro, a ``__CUDA_ARCH__`` test, and
``cudaSetDevice``/``<cuda_runtime.h>`` that PyTorch's build-time hipify renames itself. Its port must
equal ``torch-warp-warp_sum.ported.cu`` (``VADO_UPDATE_SNAPSHOTS=1`` rewrites it; review the diff),
keep the CUDA code path byte for byte, compile with nvcc and, as ``cpp_extension`` builds it on
ROCm, with ROCm 7.2.4's hipcc for gfx942 (each skips where its compiler or headers are absent).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from vado.knowledge.targets import get_target
from vado.model import Verdict
from vado.port.file import PortOptions, port_bytes
from vado.port.torch_ext import UNGUARDED, guard_lines, is_torch_extension, resolve_mode
from vado.port.tree import port_tree
from vado.scan.classify import FileKind

PROJECTS = Path(__file__).resolve().parents[1] / "fixtures" / "PROJECTS"
TORCH_WARP = PROJECTS / "torch-warp"
SNAPSHOT = PROJECTS / "torch-warp-warp_sum.ported.cu"
ROCM = get_target("rocm-7.2")


def _cuda_side(text: str) -> str:
    """What a build without USE_ROCM reads of a torch-extension port: each port-written
    ``#if defined(USE_ROCM)`` … ``#else`` X ``#endif`` as X, each combined condition as its CUDA half."""
    out: list[str] = []
    lines = text.splitlines(keepends=True)
    i = 0
    combined = re.compile(r"^(#\s*(?:if|elif)) \(defined\(USE_ROCM\) && \(.*\)\) \|\| \(!defined\(USE_ROCM\) && \((.*)\)\)(\s*)$")
    while i < len(lines):
        line = lines[i]
        m = combined.match(line)
        if m:
            out.append(f"{m.group(1)} {m.group(2)}{m.group(3)}")
            i += 1
            continue
        if line.strip() != "#if defined(USE_ROCM)":
            out.append(line)
            i += 1
            continue
        depth, i, keep = 0, i + 1, False
        while True:
            d = lines[i].strip()
            if d.startswith(("#if", "#ifdef", "#ifndef")):
                depth += 1
            elif d == "#endif" and depth == 0:
                break
            elif d == "#endif":
                depth -= 1
            elif d == "#else" and depth == 0:
                keep = True
                i += 1
                continue
            if keep:
                out.append(lines[i])
            i += 1
        i += 1
    return "".join(out)


def _ported(tmp_path: Path, **kw):
    out = tmp_path / "out"
    return out, port_tree(TORCH_WARP, out, ROCM, **kw)


def test_torch_extension_is_detected_from_its_build_files(tmp_path: Path):
    assert is_torch_extension(TORCH_WARP) and is_torch_extension(PROJECTS / "torch-ext")
    assert not is_torch_extension(PROJECTS / "plain-cuda") and not is_torch_extension(PROJECTS / "cmake-libs")
    cm = tmp_path / "cm"
    cm.mkdir()
    (cm / "CMakeLists.txt").write_text("project(x LANGUAGES CXX CUDA)\nfind_package(Torch REQUIRED)\n")
    assert is_torch_extension(cm) and resolve_mode("auto", cm) == "on"
    assert resolve_mode("off", cm) == "off" and resolve_mode("on", PROJECTS / "plain-cuda") == "on"
    assert not is_torch_extension(cm / "CMakeLists.txt")  # a single file is no tree
    with pytest.raises(ValueError):
        resolve_mode("yes", cm)


def _tree(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


_JIT = ("import os\nfrom torch.utils.cpp_extension import load\n"
        "ext = load(name='k', sources=[os.path.join(os.path.dirname(__file__), 'k.cu')])\n")
_SETUP_PLAIN = "from setuptools import setup\nsetup(name='p', packages=['p'])\n"


def test_python_package_that_builds_its_extension_elsewhere_is_a_torch_extension(tmp_path: Path):
    # a just-in-time load() at import time (exllama 0.1.0's cuda_ext.py), a second setup file the top
    # setup.py runs (hqq 0.2.8's kernels/setup_cuda.py), load_inline, `from torch.utils import cpp_extension`
    jit = _tree(tmp_path / "jit", {"setup.py": _SETUP_PLAIN, "p/__init__.py": "", "p/ext.py": _JIT, "p/k.cu": ""})
    nested = _tree(tmp_path / "nested", {
        "setup.py": "import os\nfrom setuptools import setup\nos.system('cd p/kernels; python setup_cuda.py install')\n"
                    "setup(name='p')\n",
        "p/kernels/setup_cuda.py": "from setuptools import setup\nfrom torch.utils.cpp_extension import CUDAExtension\n"
                                   "setup(ext_modules=[CUDAExtension('k', ['k.cu'])])\n"})
    inline = _tree(tmp_path / "inline", {"pyproject.toml": "[project]\nname = 'p'\n",
                                         "p/jit.py": "from torch.utils import cpp_extension\n"
                                                     "m = cpp_extension.load_inline('m', cpp_sources='')\n"})
    for tree in (jit, nested, inline):
        assert is_torch_extension(tree) and resolve_mode("auto", tree) == "on", tree.name


def test_a_torch_builder_that_is_not_the_trees_build_leaves_the_mode_off(tmp_path: Path):
    # a CMake CUDA project with a PyTorch binding below it (tiny-cuda-nn's bindings/torch/setup.py): the
    # top CMakeLists.txt builds the CUDA code, so the tree is no torch extension
    cmake = _tree(tmp_path / "cmake", {"setup.py": _SETUP_PLAIN,
                                       "CMakeLists.txt": "project(x LANGUAGES CXX CUDA)\n",
                                       "bindings/torch/setup.py": "from torch.utils.cpp_extension import CUDAExtension\n"
                                                                  "CUDAExtension('b', ['b.cu'])\n"})
    # no Python package at the top: a loose script that load()s a kernel
    loose = _tree(tmp_path / "loose", {"Makefile": "all:\n", "tools/try.py": _JIT})
    # imports the builder but builds nothing with it (reads CUDA_HOME only); a load() of something else
    reads = _tree(tmp_path / "reads", {"setup.py": _SETUP_PLAIN,
                                       "p/env.py": "import json\nfrom torch.utils.cpp_extension import CUDA_HOME\n"
                                                   "cfg = json.load(open(CUDA_HOME + '/version.json'))\n",
                                       "p/io.py": "import json\ncfg = json.load(open('c.json'))\n"})
    # the builder below a hidden or build directory, or deeper than the walk goes
    hidden = _tree(tmp_path / "hidden", {"setup.py": _SETUP_PLAIN, ".venv/lib/ext.py": _JIT, "build/lib/ext.py": _JIT,
                                         "a/b/c/d/e/f/g/ext.py": _JIT})
    for tree in (cmake, loose, reads, hidden):
        assert not is_torch_extension(tree) and resolve_mode("auto", tree) == "off", tree.name


def test_port_keeps_cuda_spelling_and_guards_the_rest_as_snapshotted(tmp_path: Path):
    out, result = _ported(tmp_path)
    got = (out / "csrc" / "warp_sum.cu").read_text()
    if os.environ.get("VADO_UPDATE_SNAPSHOTS") or not SNAPSHOT.exists():
        SNAPSHOT.write_text(got)
    assert got == SNAPSHOT.read_text()
    # What PyTorch's hipify renames at build time stays CUDA-spelled; nothing else is touched.
    assert "cudaSetDevice(device);" in got and "#include <cuda_runtime.h>" in got
    assert re.findall(r"\bhip[A-Z]\w*|hip/", got) == []
    for rel in ("setup.py", "csrc/ops.cpp"):
        assert (out / rel).read_bytes() == (TORCH_WARP / rel).read_bytes(), rel
    # The CUDA build reads the original code, byte for byte.
    assert _cuda_side(got) == (TORCH_WARP / "csrc" / "warp_sum.cu").read_text()
    assert result.remaining == () or not [f for f in result.remaining if f.path.endswith(".cu")]


def test_porting_the_port_changes_nothing(tmp_path: Path):
    out, _ = _ported(tmp_path)
    again = port_tree(out, tmp_path / "again", ROCM)
    assert [f.path for f in again.files if f.status != "unchanged"] == []


def test_off_gives_the_plain_port_and_a_plain_cuda_project_is_not_a_torch_extension(tmp_path: Path):
    out, _ = _ported(tmp_path, options=PortOptions(torch_extension="off"))
    text = (out / "csrc" / "warp_sum.cu").read_text()
    assert "hipSetDevice(device);" in text and "#if defined(USE_ROCM)" not in text
    plain = port_tree(PROJECTS / "plain-cuda", tmp_path / "plain", ROCM)
    assert plain is not None
    src = (PROJECTS / "plain-cuda" / "sycl_utils" / "k.cu").read_text()
    ported = (tmp_path / "plain" / "sycl_utils" / "k.cu").read_text()
    assert "USE_ROCM" not in ported and "hipMalloc(&d, 4)" in ported and src != ported


def test_plain_cuda_file_gets_the_normal_port_by_default():
    data = b"#include <cuda_runtime.h>\nvoid f(int d) { cudaSetDevice(d); }\n"
    plain = port_bytes("k.cu", FileKind.CUDA_SOURCE, data, ROCM)
    assert b"hipSetDevice" in plain.after and b"USE_ROCM" not in plain.after
    torch = port_bytes("k.cu", FileKind.CUDA_SOURCE, data, ROCM, PortOptions(torch_extension="on"))
    assert torch.after == data and not torch.changed


def test_guard_lines_writes_each_change_as_a_branch():
    old = "a;\r\nb;\r\nc;"
    text, left = guard_lines(old, "a;\r\nB;\r\nc;")
    assert text == "a;\r\n#if defined(USE_ROCM)\r\nB;\r\n#else\r\nb;\r\n#endif\r\nc;" and left == []
    # A pure insertion has no #else; a balanced block of directives may be inserted.
    text, _ = guard_lines("x;\n", "#ifndef H\n#define H\n#endif\nx;\n")
    assert text == "#if defined(USE_ROCM)\n#ifndef H\n#define H\n#endif\n#endif\nx;\n"
    # A condition that tests USE_ROCM already is the project's own split: left as written.
    text, _ = guard_lines("#if defined(USE_ROCM) || __CUDA_ARCH__ < 700\n", "#if defined(USE_ROCM) || 0\n")
    assert text == "#if defined(USE_ROCM) || __CUDA_ARCH__ < 700\n"


def test_a_change_that_cannot_be_guarded_stays_a_finding():
    # A change that splits a conditional (a new #else) has no line range an #if can hold.
    old = "#if A\nx;\n#endif\n"
    text, left = guard_lines(old, "#if A\ny;\n#else\nz;\n#endif\n")
    assert text == old and [(u.first, u.last) for u in left] == [(2, 2)]
    assert "conditional directive" in left[0].why
    # A change on the line that ends a block comment: an #if there would be comment text.
    old = "/* note\n   end */ x = f(a);\n"
    text, left = guard_lines(old, "/* note\n   end */ x = g(a);\n")
    assert text == old and "comment" in left[0].why


def test_changed_conditions_get_both_builds_halves():
    data = b"#ifdef __CUDA_ARCH__\n__device__ int f() { return 1; }\n#endif\n"
    res = port_bytes("k.cu", FileKind.CUDA_SOURCE, data, ROCM, PortOptions(torch_extension="on"))
    # the runtime include PyTorch's hipify does not add (no kernel here) is an insertion of its own above the
    # condition, not one range with it that no branch could hold
    assert res.after.decode().splitlines()[:4] == [
        "#if defined(USE_ROCM)", "#include <hip/hip_runtime.h>", "#endif",
        "#if (defined(USE_ROCM) && (defined(__HIP_DEVICE_COMPILE__))) || (!defined(USE_ROCM) && (defined(__CUDA_ARCH__)))"]
    assert res.remaining == ()
    assert _cuda_side(res.after.decode()) == data.decode().replace("#ifdef __CUDA_ARCH__", "#if defined(__CUDA_ARCH__)")


def test_unguarded_change_is_open_work_and_the_file_keeps_its_bytes(monkeypatch):
    import vado.port.torch_ext as torch_ext

    data = b"__global__ void k(float* p) { p[0] = __shfl_xor_sync(0xffffffff, p[0], 1); }\n"
    real = torch_ext.guard_lines

    def refuse(original, ported):  # as if every change were unguardable
        text, _ = real(original, original)
        return text, [torch_ext.Unguarded(1, 1, "test")]

    monkeypatch.setattr(torch_ext, "guard_lines", refuse)
    res = port_bytes("k.cu", FileKind.CUDA_SOURCE, data, ROCM, PortOptions(torch_extension="on"))
    assert res.after == data
    finding = next(f for f in res.remaining if f.code == UNGUARDED)
    assert finding.verdicts[ROCM.name] is Verdict.MANUAL and finding.span.line == 1


def test_ported_fixture_compiles_with_nvcc(tmp_path: Path):
    nvcc = shutil.which("nvcc")
    if nvcc is None:
        pytest.skip("no nvcc")
    out, _ = _ported(tmp_path)
    proc = subprocess.run([nvcc, "-c", "-arch=sm_90", str(out / "csrc" / "warp_sum.cu"), "-o", str(tmp_path / "k.o")],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]


def _gfx942_extension_build():
    """(compile_extension, the assembled torch 2.13.0 ROCm headers, ROCm 7.2.4's hipcc); skips without the headers."""
    from tests._compile_fixtures import require_compiler
    from vado.verify.torch_ext import compile_extension
    from vado.verify.torch_headers import find_assembled

    headers = find_assembled("2.13.0")
    if headers is None:
        pytest.skip("no assembled torch 2.13.0 ROCm headers (run tools/torch_rocm_headers.py)")
    return compile_extension, headers, require_compiler("rocm-7.2").path


def test_ported_fixture_compiles_for_gfx942_as_cpp_extension_builds_it(tmp_path: Path):
    compile_extension, headers, hipcc = _gfx942_extension_build()
    # The original does not compile on ROCm 7 (32-bit shuffle masks); the port does.
    before = compile_extension(TORCH_WARP, ["csrc/warp_sum.cu"], headers, hipcc, arch="gfx942", name="warp_sum")
    assert not before[0].ok and "64-bit" in (before[0].first_error() or "")
    out, _ = _ported(tmp_path)
    after = compile_extension(out, ["csrc/warp_sum.cu"], headers, hipcc, arch="gfx942", name="warp_sum")
    assert after[0].ok, after[0].first_error()


def test_torch_extension_port_keeps_cmake_cuda_flags(tmp_path: Path):
    # torch_scatter 2.1.2: setup.py builds for ROCm (torch.version.hip), so the port keeps the build files;
    # BLD003 still dropped --expt-relaxed-constexpr from CMAKE_CUDA_FLAGS, which stayed the CUDA build's.
    src = tmp_path / "ext"
    (src / "csrc").mkdir(parents=True)
    cm = ('project(ops)\nif(WITH_CUDA)\n  enable_language(CUDA)\n'
          '  set(CMAKE_CUDA_FLAGS "${CMAKE_CUDA_FLAGS} --expt-relaxed-constexpr")\nendif()\n'
          'find_package(Torch REQUIRED)\nadd_library(ops SHARED csrc/k.cu)\n')
    (src / "CMakeLists.txt").write_text(cm)
    (src / "setup.py").write_text(
        "import torch\nfrom torch.utils.cpp_extension import CUDAExtension\nnvcc = ['-O3']\n"
        "if torch.version.hip:\n    nvcc += ['-DUSE_ROCM']\nelse:\n    nvcc += ['--expt-relaxed-constexpr']\n"
        "ext = CUDAExtension('ops', ['csrc/k.cu'], extra_compile_args={'nvcc': nvcc})\n")
    (src / "csrc" / "k.cu").write_text("__global__ void k(float* x) { x[threadIdx.x] = 1.f; }\n")
    for mode in ("on", "off"):
        port_tree(src, tmp_path / mode, ROCM, options=PortOptions(torch_extension=mode))
        assert (tmp_path / mode / "CMakeLists.txt").read_text() == cm, mode
    # Without the project's own ROCm build the CMake build moves to HIP: variable and flag together.
    (src / "setup.py").unlink()
    port_tree(src, tmp_path / "plain", ROCM)
    got = (tmp_path / "plain" / "CMakeLists.txt").read_text()
    assert 'set(CMAKE_HIP_FLAGS "${CMAKE_HIP_FLAGS}")' in got and "enable_language(HIP)" in got


def test_hip_has_it_guard_pair_stands_as_it_is():
    # torch-points-kernels 0.7.0 cuda_utils.h: the pre-sm_60 atomicAdd(double) fallback. The port puts it under
    # `#if !defined(__HIP_PLATFORM_AMD__)` (HIP has it): true in every CUDA build, so the pair is written as it is.
    old = ("#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 600\n#else\n"
           "__device__ double atomicAdd(double* a, double v) {\n  return v;\n}\n#endif\nint after;\n")
    new = ("#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 600\n#else\n// vado: HIP has it\n"
           "#if !defined(__HIP_PLATFORM_AMD__)\n"
           "__device__ double atomicAdd(double* a, double v) {\n  return v;\n}\n#endif\n#endif\nint after;\n")
    text, left = guard_lines(old, new)
    assert left == [] and text == new
    data = ("#include <cuda_runtime.h>\n" + old).encode()
    res = port_bytes("u.h", FileKind.CUDA_HEADER, data, ROCM, PortOptions(torch_extension="on"))
    assert not [f for f in res.remaining if f.code == UNGUARDED]
    assert "#if !defined(__HIP_PLATFORM_AMD__)" in res.after.decode()


def test_a_lone_or_cuda_visible_guard_insertion_is_still_a_finding():
    old = "a;\nb;\nc;\n"
    # `#if defined(__HIP_PLATFORM_AMD__)` would hide b from the CUDA build: not neutral.
    text, left = guard_lines(old, "a;\n#if defined(__HIP_PLATFORM_AMD__)\nb;\n#endif\nc;\n")
    assert text == old and len(left) == 2
    # An opening without its #endif (or around unbalanced lines) is not written either.
    text, left = guard_lines(old, "a;\n#ifndef __HIP_PLATFORM_AMD__\nb;\nc;\n")
    assert text == old and len(left) == 1
    old2 = "#if X\na;\n#else\nb;\n#endif\n"
    text, left = guard_lines(old2, "#if X\na;\n#ifndef __HIP_PLATFORM_AMD__\n#else\nb;\n#endif\n#endif\n")
    assert text == old2 and left


def test_cub_names_hipify_leaves_get_the_hipcub_alias_in_a_rocm_branch():
    # gsplat 1.5.3 IntersectTile.cu: PyTorch's hipify turns the include into <hipcub/hipcub.hpp> and
    # cub::DeviceRadixSort into hipcub::, but leaves cub::DoubleBuffer ("use of undeclared identifier 'cub'").
    src = ("#include <cub/cub.cuh>\n#include \"Common.h\"\n\nvoid sort(long* k, long* s, int n) {\n"
           "  cub::DoubleBuffer<long> keys(k, s);\n  (void)n;\n}\n")
    out = port_bytes("sort.cu", FileKind.CUDA_SOURCE, src.encode(), ROCM, PortOptions(torch_extension="on"))
    text = out.after.decode()
    assert text.startswith("#include <cub/cub.cuh>\n#if defined(USE_ROCM)\nnamespace cub = hipcub;")
    assert _cuda_side(text) == src  # the CUDA build reads the original lines
    again = port_bytes("sort.cu", FileKind.CUDA_SOURCE, out.after, ROCM,
                       PortOptions(torch_extension="on", rule_options={"amd_defines": ("USE_ROCM=1",)}))
    assert again.after == out.after
    # Not in a plain port (every cub:: becomes hipcub::), nor where the file aliases already or names no cub::.
    plain = port_bytes("sort.cu", FileKind.CUDA_SOURCE, src.encode(), ROCM, PortOptions(torch_extension="off"))
    assert "namespace cub = hipcub" not in plain.after.decode()
    for other in ("#include <cub/cub.cuh>\nnamespace cub = hipcub;\nvoid f() { cub::DoubleBuffer<int> b; }\n",
                  "#include <cub/cub.cuh>\nvoid f() { hipcub::DoubleBuffer<int> b; }\n",
                  "#include <vector>\nvoid f() { cub::DoubleBuffer<int> b; }\n"):
        got = port_bytes("k.cu", FileKind.CUDA_SOURCE, other.encode(), ROCM, PortOptions(torch_extension="on"))
        assert b"namespace cub = hipcub;  // vado" not in got.after


def test_cub_wrapped_in_a_project_namespace_gets_that_namespace_aliased_in_a_rocm_branch():
    # torchani 2.9.0: -DCUB_NS_QUALIFIER=::cuaev::cub wraps CUB in namespace cuaev on CUDA; hipCUB has no such
    # wrapping, so cuaev::cub::DeviceScan (hipify: cuaev::hipcub::DeviceScan) named an undeclared namespace.
    src = ("#include <cub/cub.cuh>\n\nvoid scan(const int* in, int* out, int n, void* tmp, size_t bytes) {\n"
           "  cuaev::cub::DeviceScan::ExclusiveSum(tmp, bytes, in, out, n);\n"
           "  ::cuaev::cub::DeviceSelect::If(tmp, bytes, in, out, out, n, [] (int x) { return x > 0; });\n}\n")
    out = port_bytes("scan.cu", FileKind.CUDA_SOURCE, src.encode(), ROCM, PortOptions(torch_extension="on"))
    text = out.after.decode()
    assert text.startswith("#include <cub/cub.cuh>\n#if defined(USE_ROCM)\nnamespace cuaev { namespace cub = ::hipcub; "
                           "namespace hipcub = ::hipcub; }")
    assert text.count("namespace cuaev {") == 1 and "namespace cub = hipcub;  // vado" not in text
    assert _cuda_side(text) == src
    # std::, a deeper qualifier (a::b::cub::), and no CUB include: nothing
    for other in ("#include <cub/cub.cuh>\nvoid f() { a::b::cub::Sum s; }\n",
                  "#include <vector>\nvoid f() { cuaev::cub::Sum s; }\n"):
        got = port_bytes("k.cu", FileKind.CUDA_SOURCE, other.encode(), ROCM, PortOptions(torch_extension="on"))
        assert b"namespace cub = ::hipcub" not in got.after, other


def test_a_rename_that_changes_arguments_keeps_its_argument_edits_when_hipify_renames():
    # gsplat 1.5.3's rasterizers: hipify renames cudaFuncSetAttribute but HIP's takes `const void*`, which a
    # kernel (a function) does not convert to: "no matching function for call to 'hipFuncSetAttribute'".
    src = ("template <int N> __global__ void k(float* x) { x[0] = N; }\n"
           "void setup(int bytes) {\n"
           "  cudaFuncSetAttribute(k<1>, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes);\n}\n")
    out = port_bytes("r.cu", FileKind.CUDA_SOURCE, src.encode(), ROCM, PortOptions(torch_extension="on"))
    text = out.after.decode()
    assert ("#if defined(USE_ROCM)\n  cudaFuncSetAttribute(reinterpret_cast<const void*>(k<1>), "
            "cudaFuncAttributeMaxDynamicSharedMemorySize, bytes);\n#else\n") in text
    assert _cuda_side(text) == src
    # A tree port defines USE_ROCM=1 for the AMD build (port.tree): the ROCm branch is the port's own.
    again = port_bytes("r.cu", FileKind.CUDA_SOURCE, out.after, ROCM,
                       PortOptions(torch_extension="on", rule_options={"amd_defines": ("USE_ROCM=1",)}))
    assert again.after == out.after
    plain = port_bytes("r.cu", FileKind.CUDA_SOURCE, src.encode(), ROCM, PortOptions(torch_extension="off"))
    assert "hipFuncSetAttribute(reinterpret_cast<const void*>(k<1>), hipFuncAttributeMaxDynamicSharedMemorySize" in plain.after.decode()


HIPIFY_GAPS = PROJECTS / "torch-hipify-gaps"


def test_what_pytorchs_hipify_does_not_rename_the_port_writes_itself(tmp_path: Path):
    # warp-rnnt 0.7.0 (<device_atomic_functions.h>: "file not found") and mamba-ssm 2.3.2 (nv_bfloat162:
    # "unknown type name") failed on ROCm: PyTorch's hipify maps neither, so dropping those fixes as
    # hipify's left them unported. Names and headers it does map keep their CUDA spelling.
    from vado.port.torch_ext import hipify_renames

    names, includes = hipify_renames()
    assert "cudaStream_t" in names and "nv_bfloat162" not in names and "__nv_bfloat162" in names
    assert "cuda_runtime.h" in includes and "device_launch_parameters.h" not in includes
    out = tmp_path / "out"
    port_tree(HIPIFY_GAPS, out, ROCM)
    text = (out / "csrc" / "pairs.cu").read_text()
    assert ("#if defined(USE_ROCM)\n// #include <device_atomic_functions.h>: not needed with HIP\n"
            "// #include <device_launch_parameters.h>: not needed with HIP\n#else\n"
            "#include <device_atomic_functions.h>\n#include <device_launch_parameters.h>\n#endif\n") in text
    assert "static_cast<const __hip_bfloat162*>(in)" in text
    assert "#include <cuda_runtime.h>\n#include <cuda_bf16.h>\n" in text and "hip/hip_runtime.h" not in text
    assert "cudaStream_t stream" in text and "hipStream_t" not in text
    assert _cuda_side(text) == (HIPIFY_GAPS / "csrc" / "pairs.cu").read_text()
    # inplace-abn 1.1.0's pattern: the width under __HIP_PLATFORM_HCC__ is not the AMD build's (ROCm 6+ never
    # defines it), so the shuffles are ported; the CUDA_VERSION line and the call under it, changed on adjacent
    # lines, each get their own form (before: one range, left as a PORT-TORCH finding).
    utils = (out / "csrc" / "warp_utils.cuh").read_text()
    assert ("#if (defined(USE_ROCM) && (1)) || (!defined(USE_ROCM) && (CUDA_VERSION >= 9000))\n#if defined(USE_ROCM)\n"
            "    return vado_shfl_xor_sync32(mask, value, laneMask, width);\n#else\n"
            "    return __shfl_xor_sync(mask, value, laneMask, width);\n#endif\n#else\n") in utils
    assert _cuda_side(utils).replace("#if (defined(USE_ROCM) && (1)) || (!defined(USE_ROCM) && (CUDA_VERSION >= 9000))",
                                     "#if CUDA_VERSION >= 9000") == (HIPIFY_GAPS / "csrc" / "warp_utils.cuh").read_text()
    again = tmp_path / "again"
    port_tree(out, again, ROCM)
    assert (again / "csrc" / "pairs.cu").read_text() == text
    assert (again / "csrc" / "warp_utils.cuh").read_text() == utils


def test_a_changed_condition_and_the_changed_line_under_it_are_two_branches():
    old = "{\n#if V >= 9\n  a(m);\n  same;\n  b(m);\n#else\n  c;\n#endif\n}\n"
    new = "{\n#if 1\n  A(m);\n  same;\n  B(m);\n#else\n  c;\n#endif\n}\n"
    text, left = guard_lines(old, new)
    assert left == [] and text == (
        "{\n#if (defined(USE_ROCM) && (1)) || (!defined(USE_ROCM) && (V >= 9))\n"
        "#if defined(USE_ROCM)\n  A(m);\n#else\n  a(m);\n#endif\n  same;\n"
        "#if defined(USE_ROCM)\n  B(m);\n#else\n  b(m);\n#endif\n#else\n  c;\n#endif\n}\n")
    # Another directive in the range (an inserted #endif), or a line count that differs: one range as before.
    _, left = guard_lines("#if V\n  a;\n", "#if 1\n  a;\n#endif\n")
    assert left


def test_hipify_gaps_port_compiles_with_nvcc(tmp_path: Path):
    nvcc = shutil.which("nvcc")
    if nvcc is None:
        pytest.skip("no nvcc")
    out = tmp_path / "out"
    port_tree(HIPIFY_GAPS, out, ROCM)
    proc = subprocess.run([nvcc, "-c", "-arch=sm_90", str(out / "csrc" / "pairs.cu"), "-o", str(tmp_path / "k.o")],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]


def test_hipify_gaps_port_compiles_for_gfx942_as_cpp_extension_builds_it(tmp_path: Path):
    compile_extension, headers, hipcc = _gfx942_extension_build()
    before = compile_extension(HIPIFY_GAPS, ["csrc/pairs.cu"], headers, hipcc, arch="gfx942", name="_C")
    assert not before[0].ok and "device_atomic_functions.h" in (before[0].first_error() or "")
    out = tmp_path / "out"
    port_tree(HIPIFY_GAPS, out, ROCM)
    after = compile_extension(out, ["csrc/pairs.cu"], headers, hipcc, arch="gfx942", name="_C")
    assert after[0].ok, after[0].first_error()


def test_hipify_names_tool_reads_the_mapping_tables_without_running_them():
    import importlib.util

    path = Path(__file__).resolve().parents[2] / "tools" / "torch_hipify_names.py"
    spec = importlib.util.spec_from_file_location("torch_hipify_names", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    source = ("import collections\nraise SystemExit('never run')\n"
              "CUDA_INCLUDE_MAP = collections.OrderedDict([('cuda_runtime.h', ('hip/hip_runtime.h', 1))])\n"
              "CUDA_IDENTIFIER_MAP = collections.OrderedDict([('cudaStream_t', ('hipStream_t', 1, 2)), "
              "('__nv_bfloat162', ('__hip_bfloat162', 1))])\n"
              "OTHER = collections.OrderedDict([('notListed', ('x',))])\n"
              "CUDA_TO_HIP_MAPPINGS = [CUDA_IDENTIFIER_MAP, CUDA_INCLUDE_MAP]\n")
    assert mod.mapping_keys(source) == (["__nv_bfloat162", "cudaStream_t"], ["cuda_runtime.h"])
    with pytest.raises(SystemExit):
        mod.mapping_keys(source.replace("CUDA_TO_HIP_MAPPINGS = [CUDA_IDENTIFIER_MAP", "CUDA_TO_HIP_MAPPINGS = [MISSING"))


def test_a_compiler_macro_hipify_renames_is_left_to_it():
    # pytorch3d 9381c40 (pulsar/global.h, include/commands.h, logging.h): `#ifdef __CUDACC__` became
    # `#if (defined(USE_ROCM) && (defined(__HIPCC__))) || (!defined(USE_ROCM) && (defined(__CUDACC__)))`; PyTorch's
    # hipify writes `#ifdef __HIPCC__` itself (its map: __CUDACC__ -> __HIPCC__), which hipcc defines.
    src = ("#ifdef __CUDACC__\n#define HD __host__ __device__\n#else\n#define HD\n#endif\n"
           "#if defined(__CUDACC__) && !defined(__NVCC__)\nint clang_cuda;\n#endif\n")
    out = port_bytes("g.h", FileKind.CXX_HEADER, src.encode(), ROCM, PortOptions(torch_extension="on"))
    text = out.after.decode()
    assert text.startswith("#ifdef __CUDACC__\n#define HD __host__ __device__\n")
    # __NVCC__ is no key of hipify's: that rename stays the port's, in a combined condition
    assert "__NVCC__" in text and "defined(USE_ROCM)" in text and _cuda_side(text) == src
    # the plain port still writes __HIPCC__ (no build-time hipify there)
    plain = port_bytes("g.h", FileKind.CXX_HEADER, src.encode(), ROCM, PortOptions(torch_extension="off"))
    assert plain.after.decode().startswith("#ifdef __HIPCC__\n")


def test_hipify_names_tool_keeps_the_compiler_macros_with_their_targets():
    import importlib.util
    import json

    path = Path(__file__).resolve().parents[2] / "tools" / "torch_hipify_names.py"
    spec = importlib.util.spec_from_file_location("torch_hipify_names_m", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    source = ("import collections\nCUDA_IDENTIFIER_MAP = collections.OrderedDict([('__CUDACC__', '__HIPCC__'), "
              "('cudaStream_t', ('hipStream_t', 1)), ('__nv_x__', ('__hip_x__', 1)), ('____', 'x')])\n")
    assert mod.macro_targets(source) == {"__CUDACC__": "__HIPCC__", "__nv_x__": "__hip_x__"}
    data = json.loads((Path(__file__).resolve().parents[2] / "src" / "vado" / "port" / "data" / "torch_hipify.json").read_text())
    assert data["macros"] == {"__CUDACC__": "__HIPCC__"} and "__CUDACC__" in data["names"]


JIT_MODULE = ("import sys\nimport torch\nimport numba.cuda\nfrom torch.utils.cpp_extension import load\n\n"
              "def _load(cu_path):\n"
              "    extra_cuda_cflags = ['-O3', '--use_fast_math']\n"
              "    return load(name='k', sources=[cu_path], extra_cuda_cflags=extra_cuda_cflags)\n")


def test_a_just_in_time_modules_build_fixes_apply_by_tag_and_its_other_unsafe_fixes_do_not():
    # adafactor8bit 0.4.6's optimizer.py: torch.utils.cpp_extension.load(..., extra_cuda_cflags=[..., '--use_fast_math'])
    rocm = get_target("rocm-7.2")
    plain = port_bytes("pkg/optimizer.py", FileKind.PYTHON, JIT_MODULE.encode(), rocm, PortOptions())
    assert plain.after == JIT_MODULE.encode()  # unsafe: not applied by default
    tagged = port_bytes("pkg/optimizer.py", FileKind.PYTHON, JIT_MODULE.encode(), rocm,
                        PortOptions(unsafe_tags=("build",)))
    after = tagged.after.decode()
    assert "*(['-ffast-math'] if torch.version.hip else ['--use_fast_math'])" in after
    assert "import numba.cuda" in after  # DEP's findings on it stay findings
    assert any(f.code == "DEP005" for f in tagged.remaining)
    assert tagged.unsafe_applied


def test_a_tree_port_applies_a_just_in_time_modules_flag_fixes(tmp_path: Path):
    root = tmp_path / "pkg"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "optimizer.py").write_text(JIT_MODULE)
    (root / "pkg" / "kernels.cu").write_text("#include <torch/extension.h>\n__global__ void k(float* x) { x[0] = 1.f; }\n")
    port_tree(root, tmp_path / "out", get_target("rocm-7.2"))
    after = (tmp_path / "out" / "pkg" / "optimizer.py").read_text()
    assert "*(['-ffast-math'] if torch.version.hip else ['--use_fast_math'])" in after


LAUNCH_MACRO = PROJECTS / "torch-launch-macro"


def test_a_launch_macro_gets_a_rocm_redefinition_hipify_leaves_whole(tmp_path: Path):
    out = tmp_path / "out"
    port_tree(LAUNCH_MACRO, out, ROCM)
    text = (out / "csrc" / "ops.cu").read_text()
    original = (LAUNCH_MACRO / "csrc" / "ops.cu").read_text()
    define = "#define LAUNCH_SCALE(T, M) scale_kernel<T, M><<<blocks, threads, 0, stream>>>\n"
    # the group follows the macro's line directly: its first '(' is the one hipify's rewrite ends at
    assert define + "#ifdef USE_ROCM  // vado: ( is where" in text
    assert "#define LAUNCH_SCALE(T, M) vado_launch_later(scale_kernel<T, M>, blocks, threads, 0, stream)\n" in text
    assert "  else { scale_kernel<float, 0><<<(n + 255) / 256, 256>>>(" in text and "(float)s, n); }\n" in text
    assert "  { scale_kernel<T, 0><<<(n + 255) / 256, 256>>>(out, in, s, n); return; }\n" in text
    assert _cuda_side(text) == original or text.count("#ifdef USE_ROCM") == 1
    again = port_bytes("csrc/ops.cu", FileKind.CUDA_SOURCE, text.encode(), ROCM,
                       PortOptions(torch_extension="on", rule_options={"amd_defines": ("USE_ROCM=1",)}))
    assert again.after.decode() == text
    plain = port_bytes("ops.cu", FileKind.CUDA_SOURCE, original.encode(), ROCM, PortOptions(torch_extension="off"))
    assert "vado_launch_later" not in plain.after.decode()


@pytest.mark.hipcc
def test_a_launch_macro_port_compiles_for_gfx942_as_cpp_extension_builds_it(tmp_path: Path):
    compile_extension, headers, hipcc = _gfx942_extension_build()
    before = compile_extension(LAUNCH_MACRO, ["csrc/ops.cu"], headers, hipcc, arch="gfx942", name="_C")
    assert not before[0].ok  # hipify took the '(' of scale_cuda's parameter list
    out = tmp_path / "out"
    port_tree(LAUNCH_MACRO, out, ROCM)
    after = compile_extension(out, ["csrc/ops.cu"], headers, hipcc, arch="gfx942", name="_C")
    assert after[0].ok, after[0].first_error()


def test_guard_lines_inside_the_projects_own_rocm_branch_need_no_branch_of_their_own():
    """torch_sparse 0.6.18's utils.cuh: WARP009 rewrites the shuffle macros of its own `#ifdef USE_ROCM` branch. The
    CUDA build never compiles those lines, so the change is written as is (no `#if defined(USE_ROCM)` nested in it
    with a dead `#else`), a multi-line macro too; its `#else` branch (the CUDA build's) is still guarded."""
    old = ("#ifdef USE_ROCM\n#define SHFL(m, v, d) __shfl(v, d)\n#define RED(v) \\\n  __shfl_down(v, 1)\n"
           "#else\n#define SHFL __shfl_sync\n#endif\n")
    new = old.replace("__shfl(v, d)", "vado_shfl32(v, d)").replace("__shfl_down(v, 1)", "vado_shfl_down32(v, 1)")
    text, left = guard_lines(old, new)
    assert text == new and left == []
    other = old.replace("#define SHFL __shfl_sync", "#define SHFL vado_shfl_sync32")
    text, left = guard_lines(old, other)
    assert "#if defined(USE_ROCM)\n#define SHFL vado_shfl_sync32\n#else\n#define SHFL __shfl_sync\n#endif\n" in text
    assert left == []


# eden_simple_knn 0.1.0a1's spatial.cu: a host wrapper (no kernel) whose project header names float3. nvcc includes
# cuda_runtime.h in every .cu file; PyTorch's hipify adds hip/hip_runtime.h only to a file with device code
# (hip_header_magic), so on ROCm: "unknown type name 'float3'".
_KNN_H = "#pragma once\nvoid knn(int n, float3* points, float* out);\n"
_HOST_WRAPPER = ('#include <torch/extension.h>\n#include "knn.h"\n'
                 "torch::Tensor dist(const torch::Tensor& p) {\n  auto out = torch::zeros({p.size(0)}, p.options());\n"
                 "  knn(p.size(0), reinterpret_cast<float3*>(p.data_ptr<float>()), out.data_ptr<float>());\n"
                 "  return out;\n}\n")


def test_a_cu_file_without_device_code_gets_the_runtime_include_hipify_does_not_add():
    out = port_bytes("spatial.cu", FileKind.CUDA_SOURCE, _HOST_WRAPPER.encode(), ROCM, PortOptions(torch_extension="on"))
    text = out.after.decode()
    assert text.startswith("#if defined(USE_ROCM)\n#include <hip/hip_runtime.h>\n#endif\n#include <torch/extension.h>\n")
    assert _cuda_side(text) == _HOST_WRAPPER
    # a file with device code (a kernel, shared memory, __syncthreads, a launch): hipify adds the include itself
    for device in ("__global__ void k(float3* p) { p[0].x = 1.f; }\n", "void f() { k<<<1, 1>>>(nullptr); }\n",
                   "__device__ void g() { __syncthreads(); }\n"):
        src = '#include "knn.h"\n' + device
        kept = port_bytes("k.cu", FileKind.CUDA_SOURCE, src.encode(), ROCM, PortOptions(torch_extension="on"))
        assert "hip_runtime" not in kept.after.decode(), device
    # a file that includes the runtime itself needs nothing; the plain port adds it unguarded, as before
    own = '#include <cuda_runtime.h>\n#include "knn.h"\nvoid h() {}\n'
    assert port_bytes("o.cu", FileKind.CUDA_SOURCE, own.encode(), ROCM, PortOptions(torch_extension="on")).after == own.encode()
    plain = port_bytes("spatial.cu", FileKind.CUDA_SOURCE, _HOST_WRAPPER.encode(), ROCM, PortOptions(torch_extension="off"))
    assert plain.after.decode().startswith("#include <hip/hip_runtime.h>\n")


def test_a_host_wrapper_port_compiles_for_gfx942_as_cpp_extension_builds_it(tmp_path: Path):
    compile_extension, headers, hipcc = _gfx942_extension_build()
    src = tmp_path / "src"
    src.mkdir()
    (src / "knn.h").write_text(_KNN_H)
    (src / "spatial.cu").write_text(_HOST_WRAPPER)
    before = compile_extension(src, ["spatial.cu"], headers, hipcc, arch="gfx942", name="_C")
    assert not before[0].ok and "float3" in (before[0].first_error() or "")
    out = tmp_path / "out"
    out.mkdir()
    (out / "knn.h").write_text(_KNN_H)
    ported = port_bytes("spatial.cu", FileKind.CUDA_SOURCE, _HOST_WRAPPER.encode(), ROCM, PortOptions(torch_extension="on"))
    (out / "spatial.cu").write_bytes(ported.after)
    after = compile_extension(out, ["spatial.cu"], headers, hipcc, arch="gfx942", name="_C")
    assert after[0].ok, after[0].first_error()


def test_a_header_without_device_code_is_left_to_the_tu_that_includes_it():
    # exllamav2 0.0.4's cuda/util.cuh (macros only): the .cu file that includes it brings the runtime
    src = "#pragma once\n#define DIVIDE(x, size) (((x) + (size) - 1) / (size))\n"
    out = port_bytes("util.cuh", FileKind.CUDA_HEADER, src.encode(), ROCM, PortOptions(torch_extension="on"))
    assert out.after == src.encode()


def test_a_setup_py_that_builds_for_amd_itself_still_keeps_a_flag_hipcc_rejects_from_hipcc(tmp_path: Path):
    # torchcompactradius 0.5.5: its own ROCm gate (`CUDA_HOME is not None or torch.version.hip`) makes vado leave its
    # build fixes out, but f'-extended-lambda' reached hipcc ("clang++: error: unknown argument") in 9 TUs.
    src = tmp_path / "own"
    (src / "csrc").mkdir(parents=True)
    (src / "csrc" / "k.cu").write_text("#include <torch/extension.h>\n__global__ void k(float* x) { x[0] = 1.f; }\n")
    setup = ("import torch\nfrom setuptools import setup\nfrom torch.utils.cpp_extension import CUDAExtension, CUDA_HOME\n"
             "WITH_CUDA = CUDA_HOME is not None or torch.version.hip\n"
             "nvcc_flags = ['-O2']\nnvcc_flags += [f'-extended-lambda']\nnvcc_flags += ['-lineinfo']\n"
             "setup(name='own', ext_modules=[CUDAExtension('own._C', ['csrc/k.cu'], "
             "extra_compile_args={'nvcc': nvcc_flags})] if WITH_CUDA else [])\n")
    (src / "setup.py").write_text(setup)
    result = port_tree(src, tmp_path / "out", ROCM)
    assert result.amd_support == ("setup.py: torch.version.hip",)
    text = (tmp_path / "out" / "setup.py").read_text()
    assert "nvcc_flags += [*([] if torch.version.hip else [f'-extended-lambda'])]" in text
    assert "nvcc_flags += ['-lineinfo']" in text  # hipcc takes it (a warning): a build fix left out, as before
    from vado.build.torch_setup import derive_config

    cfg, _ = derive_config(tmp_path / "out")
    assert cfg["rocm"]["nvcc"] == ["-O2", "-lineinfo"] and cfg["cuda"]["nvcc"] == ["-O2", "-extended-lambda", "-lineinfo"]
    # --build-fixes: every build fix, as before
    port_tree(src, tmp_path / "forced", ROCM, build_fixes=True)
    assert "nvcc_flags += [*(['-gline-tables-only'] if torch.version.hip else ['-lineinfo'])]" in \
        (tmp_path / "forced" / "setup.py").read_text()
