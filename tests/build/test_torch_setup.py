"""vado.build.torch_setup: a torch extension's CUDAExtensions derived from setup.py on ROCm and on CUDA, never run.

Fixtures (tests/fixtures/torch_setup/, written for these tests on the idioms of torch_scatter, gsplat,
causal-conv1d and torch-points-kernels) with their expected descriptions (``expected.json``; regenerate with
VADO_UPDATE_SNAPSHOTS=1 and review the diff), plus bad input: each is a typed skip or an undecidable item,
never a traceback, a hang, a file read outside the project or a guess.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from vado.build.torch_setup import arch_free, derive, derive_config, extension_settings

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "torch_setup"
ROOT = Path(__file__).resolve().parents[2]


def _setup(tmp_path: Path, text: str, files: dict[str, str] | None = None) -> Path:
    (tmp_path / "setup.py").write_text(text)
    for name, body in (files or {}).items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(body)
    return tmp_path


def _undecided(cfg_or_d) -> list[str]:
    items = cfg_or_d["derived"]["undecidable"] if isinstance(cfg_or_d, dict) else \
        [u.as_dict() for u in cfg_or_d.undecidable]
    return [f"{u['at']} {u['what']}" for u in items]


@pytest.mark.parametrize("name", ["glob_suffixes", "hip_ext_path", "cuda_home_gate"])
def test_fixture_descriptions_match_their_snapshots(name):
    cfg, d = derive_config(FIXTURES / name)
    assert not d.skipped and cfg is not None
    expected = FIXTURES / name / "expected.json"
    text = json.dumps(cfg, indent=1, ensure_ascii=False) + "\n"
    if os.environ.get("VADO_UPDATE_SNAPSHOTS") == "1":
        expected.write_text(text)
    assert json.loads(text) == json.loads(expected.read_text())


def test_glob_product_alias_and_in_place_growth():
    cfg, _ = derive_config(FIXTURES / "glob_suffixes")
    # One CUDAExtension per csrc/*.cpp without 'hip' in its path; the .cu only where it exists.
    assert [(e["name"], e["sources"]) for e in cfg["extensions"]] == [
        ("_fps_cuda", ["csrc/fps.cpp", "csrc/cpu/fps_cpu.cpp", "csrc/cuda/fps_cuda.cu"]),
        ("_knn_cuda", ["csrc/knn.cpp", "csrc/cpu/knn_cpu.cpp"])]
    # extra_compile_args['nvcc'] = nvcc_flags before `nvcc_flags += [...]`: the dict sees the growth (CUDA only).
    assert cfg["cuda"]["nvcc"] == ["-O2", "--expt-relaxed-constexpr"]
    assert cfg["rocm"]["nvcc"] == ["-O2"] and cfg["rocm"]["defines"] == ["USE_ROCM"]
    assert cfg["rocm"]["undefines"] == ["__HIP_NO_HALF_CONVERSIONS__"]
    assert cfg["kind"] == "ops" and cfg["module"] == "pkg"
    # parallel_info() is torch's build: -fopenmp is neither added nor dropped silently.
    assert any("setup.py:34" in u and "-fopenmp" in u and "left out" in u for u in _undecided(cfg))
    assert "CppExtension pkg._fps_cpu" in cfg["derived"]["not_cuda_extensions"]


def test_environment_variables_are_assumptions_and_can_be_given():
    cfg, _ = derive_config(FIXTURES / "glob_suffixes")
    assert "environment FORCE_ONLY_CPU unset (setup.py's default '0')" in cfg["derived"]["assumptions"]
    none, d = derive_config(FIXTURES / "glob_suffixes", env={"FORCE_ONLY_CPU": "1"})
    assert none is None and not d.skipped and d.extensions["rocm"]  # only CppExtensions: no description
    assert "environment FORCE_ONLY_CPU='1'" in d.assumptions


def test_is_hip_extension_paths_and_vendored_includes():
    cfg, _ = derive_config(FIXTURES / "hip_ext_path")
    assert cfg["extensions"][0]["sources"] == ["kernels/src/a.cu", "kernels/src/b.cu", "kernels/bindings.cpp"]
    assert cfg["kind"] == "pybind" and cfg["module"] == "hippkg._C"
    rocm = extension_settings(cfg, cfg["extensions"][0], "rocm")
    assert rocm["include_dirs"] == ["kernels/src"] and rocm["flag_include_dirs"] == ["third_party/glm"]
    assert "-fgpu-flush-denormals-to-zero" in rocm["nvcc"] and "--use_fast_math" not in rocm["nvcc"]
    cuda = extension_settings(cfg, cfg["extensions"][0], "cuda")
    assert cuda["include_dirs"] == ["third_party/glm", "kernels/src"]
    assert cuda["nvcc"][-2:] == ["--threads", "4"]  # append_nvcc_threads(...) followed into the function
    assert arch_free(cuda["nvcc"]) == ["-O3", "-std=c++17", "--use_fast_math", "-lineinfo", "--threads", "4"]
    assert arch_free(rocm["nvcc"]) == ["-O3", "-std=c++17", "-fgpu-flush-denormals-to-zero"]
    assert not cfg["derived"]["undecidable"]


def test_cuda_home_gate_leaves_rocm_without_the_extension_and_versions_are_undecidable():
    cfg, _ = derive_config(FIXTURES / "cuda_home_gate")
    und = _undecided(cfg)
    assert any(u.startswith("setup.py:33 CUDAExtension 'gated.gated_cuda' is not built on rocm") for u in und)
    assert any(u.startswith("setup.py:28") and "stops the build" in u for u in und)
    assert any(u.startswith("setup.py:30") and "-DCUDA_12" in u for u in und)
    assert cfg["cuda"]["nvcc"] == ["-O3", "-DTORCH_2"]  # torch.__version__ is the assumed 2.13.0
    assert "-DCUDA_12" not in cfg["cuda"]["nvcc"]


def test_literal_setup_with_if_else_on_torch_version_hip(tmp_path):
    _setup(tmp_path, """
import torch
from setuptools import setup
from torch.utils.cpp_extension import CUDAExtension
flags = ["-O3"]
if torch.version.hip:
    flags.append("-DROCM")
else:
    flags.extend(["--use_fast_math"])
setup(ext_modules=[CUDAExtension("m", ["a.cu", "b.cpp"], define_macros=[("X", "1"), ("Y", None)],
                                 extra_compile_args={"cxx": [], "nvcc": flags})])
""", {"a.cu": "", "b.cpp": "PYBIND11_MODULE(m, x) {}\n"})
    cfg, _ = derive_config(tmp_path)
    assert cfg["defines"] == ["X=1", "Y"]
    assert cfg["rocm"]["nvcc"] == ["-O3", "-DROCM"] and cfg["cuda"]["nvcc"] == ["-O3", "--use_fast_math"]
    assert not cfg["derived"]["undecidable"]


def test_set_difference_environ_membership_and_an_absent_submodule(tmp_path):
    # xformers ca6d2aa: list(set(cuda) - set(generated)), `"XFORMERS_SELECTIVE_BUILD" in os.environ`, and a raise
    # when third_party/cutlass (a git submodule) does not exist: the tree without its submodules derived nothing.
    text = """
import glob, os, torch
from setuptools import setup
from torch.utils.cpp_extension import CUDAExtension
cuda = glob.glob("csrc/**/*.cu", recursive=True)
generated = glob.glob("csrc/hip_fmha/**/*.cu", recursive=True)
cuda = list(set(cuda) - set(generated))
if "SELECTIVE" in os.environ:
    cuda = [f for f in cuda if os.environ["SELECTIVE"] in f]
if not os.path.exists(os.path.join("third_party", "cutlass", "include")):
    raise RuntimeError("CUTLASS submodule not found")
if torch.version.hip:
    sources = ["csrc/api.cpp"] + [f.replace(".cpp", ".cu") for f in glob.glob("csrc/hip_fmha/*.cpp")]
else:
    sources = ["csrc/api.cpp"] + sorted(cuda)
setup(ext_modules=[CUDAExtension("m._C", sources)])
"""
    files = {"csrc/api.cpp": "", "csrc/a.cu": "", "csrc/b/c.cu": "", "csrc/hip_fmha/f.cpp": "",
             "csrc/hip_fmha/f.cu": "", ".gitmodules": '[submodule "c"]\n\tpath = third_party/cutlass\n'}
    _setup(tmp_path, text, files)
    (tmp_path / "third_party" / "cutlass").mkdir(parents=True)  # not checked out: empty
    d = derive(tmp_path)
    assert [e.sources for e in d.extensions["cuda"]] == [("csrc/api.cpp", "csrc/a.cu", "csrc/b/c.cu")]
    assert [e.sources for e in d.extensions["rocm"]] == [("csrc/api.cpp", "csrc/hip_fmha/f.cu")]
    assert [(u.line, u.kind) for u in d.undecidable if "cutlass" in u.what] == [(10, "raise")]  # not decided
    assert "environment SELECTIVE unset (setup.py's default None)" in d.assumptions
    with_env = derive(tmp_path, env={"SELECTIVE": "b/"})
    assert [e.sources for e in with_env.extensions["cuda"]] == [("csrc/api.cpp", "csrc/b/c.cu")]
    # a path that is missing outside any submodule stays missing: the build stops there
    (tmp_path / ".gitmodules").write_text('[submodule "c"]\n\tpath = other\n')
    assert derive(tmp_path).extensions["cuda"] == ()


def test_unknown_sources_are_reported_not_guessed(tmp_path):
    _setup(tmp_path, """
import os
from setuptools import setup
from torch.utils.cpp_extension import CUDAExtension
extra = [os.environ["EXTRA_SRC"]]
srcs = ["k.cu"] + extra + [s for s in open("list.txt").read().split()]
setup(ext_modules=[CUDAExtension("m", ["k.cu", os.environ["EXTRA_SRC"]])])
""", {"k.cu": ""})
    cfg, _ = derive_config(tmp_path)
    assert cfg["extensions"][0]["sources"] == ["k.cu"]
    assert any("setup.py:7" in u and "an item of sources is not known" in u and "EXTRA_SRC" in u
               for u in _undecided(cfg))


def test_no_setup_py_pyproject_only_is_a_typed_skip(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[build-system]\nrequires = ['scikit-build-core']\n")
    d = derive(tmp_path)
    assert d.skipped.startswith("no setup.py (only pyproject.toml)") and not d.extensions
    assert derive(tmp_path / "nowhere").skipped.endswith("is not a directory")


@pytest.mark.parametrize("text, why", [
    ("def f(:\n", "setup.py does not parse"),
    (b"x = '\xff\xfe'\n", "setup.py"),  # latin-1 bytes in a UTF-8 file
    ("x = " + "(" * 5000 + "1" + ")" * 5000 + "\n", "too many nested parentheses"),
    ("x = 1" + " + 1" * 200_000 + "\n", "nested too deeply"),
], ids=["syntax", "not-utf8", "parentheses", "deep-expression"])
def test_malformed_setup_py_is_a_typed_skip(tmp_path, text, why):
    p = tmp_path / "setup.py"
    p.write_bytes(text if isinstance(text, bytes) else text.encode())
    d = derive(tmp_path)
    assert why in d.skipped and not d.extensions


def test_huge_setup_py_is_not_read(tmp_path):
    (tmp_path / "setup.py").write_bytes(b"# " + b"x" * (3 * 1024 * 1024) + b"\n")
    assert "not read" in derive(tmp_path).skipped


@pytest.mark.parametrize("body, why", [
    ("def f(n):\n    return f(n + 1)\nf(0)\n", "calls nested more than"),
    ("x = ['-O3'] * 1000000000\n", "more than 20000 items"),
    ("x = []\nfor i in range(1000000):\n    x.append(i)\n", "a range of 1000000 items"),
    ("n = 0\nwhile True:\n    n += 1\n", None),  # bounded: 1000 rounds, then an undecidable item
    ("from torch.__config__ import parallel_info\nbig = [str(i) for i in range(15000)]\nout = []\n"
     "for i in range(15000):\n    if 'OpenMP' in parallel_info():\n        out.append(i)\n",
     "more than 400000 evaluation steps"),  # each undecided test copies the state: that counts
], ids=["recursion", "huge-list", "huge-range", "endless-while", "fork-in-loop"])
def test_runaway_code_is_bounded(tmp_path, body, why):
    _setup(tmp_path, "from torch.utils.cpp_extension import CUDAExtension\n" + body)
    start = time.monotonic()
    d = derive(tmp_path)
    assert time.monotonic() - start < 20
    if why is None:
        assert any("1000 times" in u.what for u in d.undecidable)
    else:
        assert why in d.skipped


def test_nothing_outside_the_project_is_read(tmp_path):
    proj = tmp_path / "proj"
    outside = tmp_path / "secret"
    outside.mkdir()
    (outside / "x.cu").write_text("")
    (proj / "csrc").mkdir(parents=True)
    (proj / "csrc" / "k.cu").write_text("")
    os.symlink(outside / "x.cu", proj / "csrc" / "link.cu")  # a link out of the tree is not the project's
    _setup(proj, f"""
import glob, os
from setuptools import setup
from torch.utils.cpp_extension import CUDAExtension
srcs = glob.glob("csrc/*.cu") + glob.glob("{outside}/*.cu") + glob.glob("../secret/*.cu")
if os.path.exists("{outside}/x.cu"):
    srcs.append("yes.cu")
setup(ext_modules=[CUDAExtension("m", srcs)])
""")
    cfg, _ = derive_config(proj)
    assert cfg["extensions"][0]["sources"] == ["csrc/k.cu"]
    assert any("a file outside the project" in u for u in _undecided(cfg))


def test_a_setup_py_link_out_of_the_project_is_not_read(tmp_path):
    other = tmp_path / "other.py"
    other.write_text("from torch.utils.cpp_extension import CUDAExtension\nCUDAExtension('m', ['k.cu'])\n")
    proj = tmp_path / "proj"
    proj.mkdir()
    os.symlink(other, proj / "setup.py")
    assert "link out of the project" in derive(proj).skipped


def test_exec_and_unknown_calls_are_named(tmp_path):
    _setup(tmp_path, """
from setuptools import setup
from torch.utils.cpp_extension import CUDAExtension
exec(open("version.py").read())
import mylib
setup(ext_modules=mylib.make_extensions())
""")
    d = derive(tmp_path)
    kinds = {(u.kind, u.line) for u in d.undecidable}
    assert ("exec", 4) in kinds and not d.skipped
    assert not d.cuda_extensions("cuda")


def test_the_evaluator_never_imports_or_runs_the_project(tmp_path):
    marker = tmp_path / "ran"
    _setup(tmp_path, f"""
import os, subprocess
open({str(marker)!r}, "w").write("x")
os.system("touch {marker}")
subprocess.run(["touch", {str(marker)!r}])
from torch.utils.cpp_extension import CUDAExtension
CUDAExtension("m", ["k.cu"])
""")
    d = derive(tmp_path)
    assert not marker.exists() and [e.name for e in d.cuda_extensions("rocm")] == ["m"]


PYPI = Path("/work/repos/pypi")
PORTS = Path("/work/repos/pypi-port")


@pytest.mark.skipif(not (PYPI.is_dir() and PORTS.is_dir()), reason="the six sdists and their ports are not unpacked here")
def test_packages_json_equals_what_the_setup_files_give():
    import subprocess
    import sys

    proc = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "torch_ext_derive.py"), "--pypi", str(PYPI),
                           "--ports", str(PORTS)], capture_output=True, text=True, timeout=300,
                          env=dict(os.environ, PYTHONPATH=str(ROOT / "src")))
    assert proc.returncode == 0, proc.stdout[-3000:]
    assert "6/6 packages" in proc.stdout


def test_ops_registered_through_a_macro_name_the_extension_namespace(tmp_path):
    # torchcompactradius 0.5.5: `#define GLUE_LIBRARY(...) TORCH_LIBRARY(__VA_ARGS__, m)` then
    # `GLUE_LIBRARY(TORCH_EXTENSION_NAME) { m.def(...); }`: the namespace was read as '__VA_ARGS__'.
    from vado.build.torch_setup import module_kind

    (tmp_path / "w.cpp").write_text("#define GLUE_LIBRARY(...) TORCH_LIBRARY(__VA_ARGS__, m)\n"
                                    "GLUE_LIBRARY(TORCH_EXTENSION_NAME) {\n  m.def(\"f\", &f);\n}\n")
    assert module_kind(str(tmp_path), ["w.cpp"], "radius_cuda") == ("ops", "radius_cuda")
    (tmp_path / "v.cpp").write_text("TORCH_LIBRARY(myops, m) { m.def(\"g\", &g); }\n")
    assert module_kind(str(tmp_path), ["v.cpp"], "x") == ("ops", "myops")


# --- classes and sys.argv (stainx 0.1.6, torch_llm_kernels 0.1.0: hand-written in batch 5 for want of them) ---

_CLASS_SETUP = '''
import os, shutil
from setuptools import setup
from torch.utils.cpp_extension import BuildExtension, CUDAExtension

class Flags:
    BASE = ["-O3", "--use_fast_math"]

    def __init__(self):
        self.extra = []

    def nvcc(self, arch):
        flags = self.BASE.copy()
        flags.extend(["-gencode", f"arch=compute_{arch},code=sm_{arch}"] + self.extra)
        return flags

    @staticmethod
    def cxx():
        return ["-O3"]

    @classmethod
    def name(cls):
        return "fast"

    @property
    def arch(self):
        return 75

class Builder:
    def __init__(self, root):
        self.root = root
        self.flags = Flags()
        self.flags.extra += ["-lineinfo"]

    def build(self):
        if not shutil.which("nvcc"):
            return []
        return [CUDAExtension(f"pkg.{Flags.name()}", ["csrc/a.cpp", "csrc/k.cu"],
                              extra_compile_args={"cxx": Flags.cxx(), "nvcc": self.flags.nvcc(self.flags.arch)})]

class Build(BuildExtension):
    pass

setup(ext_modules=Builder(".").build(), cmdclass={"build_ext": Build})
'''


def test_an_extension_made_in_a_method_of_a_class_is_derived(tmp_path):
    root = _setup(tmp_path, _CLASS_SETUP, {"csrc/a.cpp": "", "csrc/k.cu": ""})
    d = derive(root)
    assert not d.skipped
    (ext,) = d.cuda_extensions("cuda")
    assert ext.name == "pkg.fast" and ext.sources == ("csrc/a.cpp", "csrc/k.cu")
    cfg, _ = derive_config(root)
    # __init__'s attribute, its `+=` through another instance, a class attribute's copy, staticmethod,
    # classmethod and property all read
    assert cfg["cuda"]["nvcc"] == ["-O3", "--use_fast_math", "-gencode", "arch=compute_75,code=sm_75", "-lineinfo"]
    assert cfg["cuda"]["cxx"] == ["-O3"]
    # `if not shutil.which("nvcc"): return []`: a ROCm build has no nvcc, so no extension there (said so)
    assert d.cuda_extensions("rocm") == ()
    assert any("shutil.which" in a for a in d.assumptions)
    assert _undecided(d) == []


def test_an_instance_changed_in_an_undecided_branch_keeps_what_both_sides_agree_on(tmp_path):
    root = _setup(tmp_path, '''
import os
from setuptools import setup
from torch.utils.cpp_extension import CUDAExtension
class Cfg:
    def __init__(self):
        self.flags = ["-O2"]
        if os.path.exists(os.environ["SOMEWHERE"]):
            self.flags.append("-DX")
            self.only_one = 1
        self.after = ["-DAFTER"]
cfg = Cfg()
setup(ext_modules=[CUDAExtension("m", ["k.cu"], extra_compile_args={"nvcc": cfg.flags + cfg.after})])
''', {"k.cu": ""})
    cfg, d = derive_config(root)
    # the store after the fork reaches the object the caller holds (the arms' copies merged back into it)
    assert cfg["cuda"]["nvcc"] == ["-O2", "-DAFTER"]
    assert any("only_one" in u and "one side only" in u for u in _undecided(d))


def test_an_attribute_a_class_never_sets_is_unknown_not_guessed(tmp_path):
    root = _setup(tmp_path, '''
from setuptools import setup
from torch.utils.cpp_extension import CUDAExtension
class B:
    pass
b = B()
setup(ext_modules=[CUDAExtension("m", ["k.cu"], extra_compile_args={"nvcc": b.flags})])
''', {"k.cu": ""})
    cfg, d = derive_config(root)
    assert cfg["cuda"]["nvcc"] == []
    assert any("`.flags` of a B (not set by the class here)" in u for u in _undecided(d))


def test_sys_argv_is_the_command_that_builds_the_extensions(tmp_path):
    root = _setup(tmp_path, '''
import sys
from setuptools import setup
needs = "build_ext" in sys.argv
cpu_only = "--cpu-only" in sys.argv
if "--cpu-only" in sys.argv:
    sys.argv.remove("--cpu-only")
ext_modules = []
if needs and not cpu_only:
    from torch.utils.cpp_extension import CUDAExtension
    ext_modules = [CUDAExtension("pkg._C", ["csrc/k.cu"])]
setup(ext_modules=ext_modules)
''', {"csrc/k.cu": ""})
    d = derive(root)
    assert [e.name for e in d.cuda_extensions("rocm")] == ["pkg._C"] == [e.name for e in d.cuda_extensions("cuda")]
    assert _undecided(d) == []
    (said,) = [a for a in d.assumptions if a.startswith("sys.argv")]
    assert "['setup.py', 'build_ext']" in said and "bdist_wheel" in said
    # a setup.py that never reads sys.argv gets no such assumption
    (tmp_path / "plain").mkdir()
    plain = _setup(tmp_path / "plain", "from setuptools import setup\nsetup()\n")
    assert not any(a.startswith("sys.argv") for a in derive(plain).assumptions)


# --- extensions built at run time: torch.utils.cpp_extension.load() (fast3d_kmeans, eden_simple_knn, adafactor8bit)

_LOADER = '''
import os, sys
import torch
try:
    from . import _C
except ImportError:
    from pathlib import Path

    def _build(enable=True):
        from torch.utils.cpp_extension import load
        if not enable:
            return None
        cap = torch.cuda.get_device_capability()
        if cap[0] < 7:
            return None          # an old GPU: the pure-PyTorch fallback
        here = Path(__file__).parent
        flags = ["-O3", "--use_fast_math"] + [f"-arch=sm_{cap[0]}{cap[1]}"]
        return load(name="pkg_cuda", sources=[str(here / "csrc" / "k.cu"), os.path.join(os.path.dirname(__file__), "b.cpp")],
                    extra_cflags=["-O2"], extra_cuda_cflags=flags, extra_include_paths=[str(here / "csrc")])
'''


def test_an_extension_load_builds_at_run_time_is_derived_from_the_package(tmp_path):
    root = _setup(tmp_path, "from setuptools import setup\nsetup(name='pkg', packages=['pkg'])\n", {
        "pkg/__init__.py": _LOADER, "pkg/csrc/k.cu": "", "pkg/b.cpp": "",
        "tests/test_x.py": "from torch.utils.cpp_extension import load\nload(name='t', sources=['t.cu'])\n"})
    cfg, d = derive_config(root)
    assert d.setup == "pkg/__init__.py" and cfg["derived"]["from"] == "pkg/__init__.py"
    assert [(e["name"], e["sources"]) for e in cfg["extensions"]] == [("pkg_cuda", ["pkg/csrc/k.cu", "pkg/b.cpp"])]
    assert cfg["include_dirs"] == ["pkg/csrc"]
    # the device's architecture flag is not known here: left out and said so; the rest kept, on both platforms
    for p in ("cuda", "rocm"):
        assert cfg[p]["nvcc"] == ["-O3", "--use_fast_math"] and cfg[p]["cxx"] == ["-O2"]
    said = _undecided(cfg)
    assert any("an item of extra_compile_args['nvcc'] is not known here" in u for u in said)
    assert any("cap[0] < 7" in u and "returns early (no load() on that path)" in u for u in said)
    assert any("torch.utils.cpp_extension.load() in pkg/__init__.py" in a for a in cfg["derived"]["assumptions"])


def test_setup_py_extensions_win_and_what_is_not_a_load_is_left_alone(tmp_path):
    files = {"pkg/__init__.py": _LOADER, "pkg/csrc/k.cu": "", "pkg/b.cpp": ""}
    (tmp_path / "a").mkdir()
    built = _setup(tmp_path / "a", "from setuptools import setup\nfrom torch.utils.cpp_extension import CUDAExtension\n"
                   "setup(ext_modules=[CUDAExtension('pkg._C', ['pkg/csrc/k.cu'])])\n", files)
    d = derive(built)
    assert d.setup == "setup.py" and [e.name for e in d.cuda_extensions("cuda")] == ["pkg._C"]
    # load_inline (sources as strings), a load() of another library and a file under tests/ are not read
    (tmp_path / "b").mkdir()
    other = _setup(tmp_path / "b", "from setuptools import setup\nsetup()\n", {
        "pkg/inline.py": "from torch.utils.cpp_extension import load_inline\nload_inline('m', cpp_sources=['x'])\n",
        "pkg/cfg.py": "import yaml\ncfg = yaml.load(open('c.yaml'))\n",
        "tests/t.py": "from torch.utils.cpp_extension import load\nload(name='t', sources=['t.cu'])\n"})
    assert derive_config(other)[0] is None
    # a setup.py that is there but does not parse is said so, not passed over for a loader
    (tmp_path / "c").mkdir()
    bad = _setup(tmp_path / "c", "def (:\n", files)
    assert "does not parse" in derive(bad).skipped
