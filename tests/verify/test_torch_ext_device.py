"""``vado verify PORT --original SRC --run torch:CALLS.py --torch-config EXT.json``: a torch extension's
original and port called on an NVIDIA GPU (vado.verify.torch_ext_device). Here (no GPU, no torch) the run
step is skipped with what is missing, and fails only under --require-gpu."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from vado.verify import torch_ext_device as ted

ROOT = Path(__file__).resolve().parents[2]
CONFIG = ROOT / "benchmarks" / "torch_ext" / "packages.json"
CALLS = ROOT / "benchmarks" / "torch_ext" / "calls"


def _ext(tmp_path: Path) -> tuple[Path, Path, Path, Path]:
    orig, port = tmp_path / "orig", tmp_path / "port"
    for d in (orig, port):
        (d / "csrc").mkdir(parents=True)
        (d / "csrc" / "k.cu").write_text("__global__ void k(float* x) { x[0] = 1.f; }\n")
        (d / "setup.py").write_text("from torch.utils.cpp_extension import CUDAExtension\n")
    cfg = tmp_path / "ext.json"
    cfg.write_text(json.dumps({"name": "k", "module": "k", "kind": "pybind", "include_dirs": ["csrc"], "defines": [],
                               "cuda": {"cxx": [], "nvcc": []}, "extensions": [{"name": "k", "sources": ["csrc/k.cu"]}]}))
    calls = tmp_path / "calls.py"
    calls.write_text("def cases(ext, torch, dev):\n    return {}\n")
    return orig, port, cfg, calls


def _verify(*args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"), NO_COLOR="1", COLUMNS="200", PATH="/usr/bin:/bin")
    return subprocess.run([sys.executable, "-m", "vado", "verify", *args], capture_output=True, text=True, env=env,
                          timeout=300)


def test_without_a_gpu_the_run_is_skipped_with_what_is_missing(tmp_path):
    orig, port, cfg, calls = _ext(tmp_path)
    common = [str(port), "--original", str(orig), "--run", f"torch:{calls}", "--torch-config", str(cfg),
              "--no-compile", "--no-triton", "--wave", "64"]
    proc = _verify(*common)
    assert proc.returncode == 0, proc.stderr
    assert "run step skipped: a torch extension's run needs an NVIDIA GPU, nvcc and a CUDA build of torch" in proc.stdout
    assert "no GPU found" in proc.stdout
    assert _verify(*common, "--require-gpu").returncode == 1


def test_the_torch_run_names_what_it_needs(tmp_path):
    orig, port, cfg, calls = _ext(tmp_path)
    no_config = _verify(str(port), "--original", str(orig), "--run", f"torch:{calls}", "--no-compile", "--no-triton")
    assert no_config.returncode == 2 and "--torch-config" in no_config.stderr
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"module": "k", "kind": "library"}))
    proc = _verify(str(port), "--original", str(orig), "--run", f"torch:{calls}", "--torch-config", str(bad),
                   "--no-compile", "--no-triton")
    assert proc.returncode == 2 and "include_dirs, defines, cuda, extensions" in " ".join(proc.stderr.split())
    no_calls = _verify(str(port), "--original", str(orig), "--run", f"torch:{tmp_path / 'none.py'}",
                       "--torch-config", str(cfg), "--no-compile", "--no-triton")
    assert no_calls.returncode == 2 and "no calls file" in no_calls.stderr


def test_prerequisites_say_which_one_is_missing(tmp_path):
    fake = tmp_path / "python-without-torch"
    fake.write_text(f"#!/bin/sh\nexec {sys.executable} -S -c 'import torch' \"$@\"\n")
    fake.chmod(0o755)
    assert ted.prerequisites(str(fake)).startswith(f"torch is not importable by {fake}")
    cpu = tmp_path / "torch-cpu"
    (cpu / "torch" / "version").mkdir(parents=True)
    (cpu / "torch" / "__init__.py").write_text("__version__ = '2.13.0+cpu'\nfrom . import version, cuda\n")
    (cpu / "torch" / "version" / "__init__.py").write_text("cuda = None\n")
    (cpu / "torch" / "cuda.py").write_text("def is_available():\n    return False\n")
    py = tmp_path / "python-cpu-torch"
    py.write_text(f"#!/bin/sh\nPYTHONPATH={cpu} exec {sys.executable} \"$@\"\n")
    py.chmod(0o755)
    assert "is not a CUDA build" in ted.prerequisites(str(py))
    (cpu / "torch" / "version" / "__init__.py").write_text("cuda = '12.8'\n")
    assert "sees no CUDA GPU" in ted.prerequisites(str(py))


@pytest.mark.parametrize("name", sorted(json.loads(CONFIG.read_text())["packages"]))
def test_every_benchmark_package_has_a_calls_file_and_a_valid_description(tmp_path, name):
    pkg = json.loads(CONFIG.read_text())["packages"][name]
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(pkg))
    assert ted.load_config(path)["extensions"]
    assert (CALLS / f"{name}.py").is_file()


def test_without_torch_config_the_description_is_derived_from_setup_py(tmp_path):
    orig, port, _, calls = _ext(tmp_path)
    setup = ("import torch\nfrom setuptools import setup\n"
             "from torch.__config__ import parallel_info\n"
             "from torch.utils.cpp_extension import CUDAExtension\n"
             "flags = ['-O3']\n"
             "if 'OpenMP' in parallel_info():\n    flags += ['-fopenmp']\n"
             "nvcc = ['-O3'] + ([] if torch.version.hip else ['--use_fast_math'])\n"
             "setup(ext_modules=[CUDAExtension('k', ['csrc/k.cu'], include_dirs=['csrc'],\n"
             "                                 extra_compile_args={'cxx': flags, 'nvcc': nvcc})])\n")
    (orig / "setup.py").write_text(setup)
    (orig / "csrc" / "k.cu").write_text("#include <torch/extension.h>\nPYBIND11_MODULE(k, m) {}\n")
    common = [str(port), "--original", str(orig), "--run", f"torch:{calls}", "--no-compile", "--no-triton"]
    proc = _verify(*common)
    assert proc.returncode == 0, proc.stderr
    assert f"torch config: DERIVED from {orig / 'setup.py'} (read, not run): k" in proc.stdout
    assert "torch config: undecidable setup.py:6 [cuda, rocm]" in proc.stdout and "-fopenmp" in proc.stdout
    assert "run step skipped" in proc.stdout
    doc = json.loads(_verify(*common, "--format", "json").stdout)
    tc = doc["torch_config"]
    assert tc["source"] == "derived" and tc["extensions"] == ["k"]
    assert [u["at"] for u in tc["undecidable"]] == ["setup.py:6"]
    given = _verify(*common, "--torch-config", str(tmp_path / "ext.json"))
    assert f"torch config: {tmp_path / 'ext.json'} (--torch-config)" in given.stdout


def test_the_derived_description_of_a_setup_py_without_extensions_names_the_way_out(tmp_path):
    orig, port, _, calls = _ext(tmp_path)
    (orig / "setup.py").write_text("def f(:\n")
    proc = _verify(str(port), "--original", str(orig), "--run", f"torch:{calls}", "--no-compile", "--no-triton")
    assert proc.returncode == 2
    err = " ".join(proc.stderr.split())
    assert "setup.py does not parse" in err and "--torch-config" in err


def test_a_reused_build_keeps_only_objects_whose_command_and_source_match(tmp_path):
    """A build that spans two device calls: a compiled object is kept when its command and source bytes match
    its stamp, rebuilt when either changed, and a failed compile leaves no stamp to reuse."""
    from vado.verify.torch_ext_device import compile_job

    src, obj, count = tmp_path / "a.cu", tmp_path / "a.o", tmp_path / "count"
    src.write_text("one")
    script = f"echo x >> {count}; cp {src} {obj}"
    job = {"key": "p/port/a.cu", "path": str(src), "obj": str(obj), "cmd": ["sh", "-c", script]}
    assert compile_job(job, 30, reuse=True)["ok"]
    again = compile_job(job, 30, reuse=True)
    assert again["ok"] and again.get("reused") and count.read_text().count("x") == 1
    src.write_text("two")  # the source changed: compiled again
    assert not compile_job(job, 30, reuse=True).get("reused") and count.read_text().count("x") == 2
    assert not compile_job(job, 30, reuse=False).get("reused") and count.read_text().count("x") == 3
    failing = {**job, "cmd": ["sh", "-c", f"echo x >> {count}; exit 1"]}
    assert not compile_job(failing, 30, reuse=True)["ok"]
    assert not (tmp_path / "a.o.stamp").exists()
    assert not compile_job(failing, 30, reuse=True).get("reused") and count.read_text().count("x") == 5


# --- benchmarks/torch_ext_device.py: --config, device_skip, several pybind11 modules ----------------------------

UNSEEN = ROOT / "benchmarks" / "torch_ext" / "unseen_packages.json"


def _bench(name: str):
    import importlib.util

    spec = importlib.util.spec_from_file_location(name, ROOT / "benchmarks" / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


UNSEEN5 = ROOT / "benchmarks" / "torch_ext" / "unseen5_packages.json"
UNSEEN7 = ROOT / "benchmarks" / "torch_ext" / "unseen7_packages.json"
UNSEEN8 = ROOT / "benchmarks" / "torch_ext" / "unseen8_packages.json"


@pytest.mark.parametrize("config, name", [(c, n) for c in (UNSEEN, UNSEEN5, UNSEEN7, UNSEEN8)
                                          for n in sorted(json.loads(c.read_text())["packages"])])
def test_every_unseen_package_the_device_run_takes_has_a_calls_file_and_a_valid_description(tmp_path, config, name):
    pkg = json.loads(config.read_text())["packages"][name]
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(pkg))
    assert ted.load_config(path)["extensions"]
    if pkg.get("device_skip"):
        assert not (CALLS / f"{name}.py").exists(), "a package the device run leaves out has no calls to keep up"
    else:
        text = (CALLS / f"{name}.py").read_text()
        compile(text, f"{name}.py", "exec")
        assert "def cases(" in text


def _packages(tmp_path: Path) -> tuple[Path, Path, Path]:
    """Two packages' sdists and ports: 'a' (one .cu and a docs/ folder), 'b' (a device_skip); the config."""
    pypi, ports = tmp_path / "pypi", tmp_path / "ports"
    for root in (pypi, ports):
        for d in ("a-1.0", "b-1.0"):
            (root / d / "csrc").mkdir(parents=True)
            (root / d / "csrc" / "k.cu").write_text("#include <torch/extension.h>\n__global__ void k(float* x) {}\n")
            (root / d / "docs").mkdir()
            (root / d / "docs" / "big.html").write_text("x" * 1000)
    cfg = tmp_path / "cfg.json"
    entry = {"module": "a", "kind": "pybind", "include_dirs": ["csrc"], "defines": [], "cuda": {"cxx": [], "nvcc": []}}
    cfg.write_text(json.dumps({"packages": {
        "a": {**entry, "dir": "a-1.0", "extensions": [{"name": "a", "sources": ["csrc/k.cu"]}]},
        "b": {**entry, "dir": "b-1.0", "device_skip": "too slow to build", "extensions": [
            {"name": "b", "sources": ["csrc/k.cu"]}]}}}))
    return pypi, ports, cfg


def test_prepare_reads_the_config_given_and_leaves_out_what_it_marks(tmp_path, capsys):
    bench = _bench("torch_ext_device")
    pypi, ports, cfg = _packages(tmp_path)
    work = tmp_path / "work"
    common = ["--config", str(cfg), "--pypi", str(pypi), "--ports", str(ports), "--work", str(work)]
    assert bench.main(["prepare", *common]) == 0
    out = capsys.readouterr().out
    assert "b: left out (too slow to build); name it with --packages to include it" in out
    assert (work / "packages.txt").read_text() == "a\n"
    assert (work / "orig" / "a-1.0" / "csrc" / "k.cu").is_file() and (work / "port" / "a-1.0" / "csrc" / "k.cu").is_file()
    assert not (work / "orig" / "a-1.0" / "docs").exists() and not (work / "orig" / "b-1.0").exists()
    assert bench.main(["prepare", *common, "--packages", "a,b"]) == 0  # named: taken
    assert (work / "packages.txt").read_text() == "a\nb\n"
    assert bench.main(["prepare", *common, "--packages", "c"]) == 2
    assert "not in" in capsys.readouterr().err


def test_run_builds_the_packages_of_the_config_given(tmp_path, capsys):
    bench = _bench("torch_ext_device")
    pypi, ports, cfg = _packages(tmp_path)
    work = tmp_path / "work"
    assert bench.main(["prepare", "--config", str(cfg), "--pypi", str(pypi), "--ports", str(ports),
                       "--work", str(work)]) == 0
    capsys.readouterr()
    inc = tmp_path / "torch-include"
    inc.mkdir()
    kept = tmp_path / "build" / "a__port__csrc__k.cu.o"
    kept.parent.mkdir()
    kept.write_text("an object of an earlier call")
    assert bench.main(["run", "--config", str(cfg), "--work", str(work), "--dry-run", "--torch-include", str(inc),
                       "--build", str(tmp_path / "build")]) == 0
    assert kept.is_file()  # a dry run leaves the build directory (and what --reuse would keep) alone
    cmds = [ln for ln in capsys.readouterr().out.splitlines() if "nvcc -c" in ln]
    assert len(cmds) == 2  # a's .cu, original and port
    orig = next(c for c in cmds if "/orig/a-1.0/csrc/k.cu" in c)
    port = next(c for c in cmds if "/w64/a-1.0/csrc/k.cu" in c)
    assert f"-I{inc}" in orig and " -include " not in orig
    assert f"-include {work.resolve()}/prelude/a.h" in port and "-DVADO_W64_EXIT_GUARD=" in port
    assert "-maxrregcount=64" in port and "-maxrregcount" not in orig  # HIP's 1024-thread launch promise
    # the default config is packages.json: 'a' is not one of its packages
    assert bench.main(["run", "--work", str(work), "--dry-run", "--torch-include", str(inc)]) == 2
    assert "not in" in capsys.readouterr().err


def test_a_package_of_several_pybind11_modules_links_one_library_per_module():
    jobs = [{"ext": e, "key": f"p/orig/{e}.cu"} for e in ("hash_cuda", "hash_cuda", "aggregate_cuda")]
    several = {"kind": "pybind", "extensions": [{"name": "hash_cuda"}, {"name": "aggregate_cuda"}, {"name": "none"}]}
    units = ted.link_units(several, jobs)
    assert list(units) == ["hash_cuda", "aggregate_cuda"]
    assert len(units["hash_cuda"]) == 2 and len(units["aggregate_cuda"]) == 1
    # one extension, or TORCH_LIBRARY ops (torch_scatter's several extensions register into one namespace): one
    assert list(ted.link_units({"kind": "ops", "extensions": several["extensions"]}, jobs)) == [""]
    assert list(ted.link_units({"kind": "pybind", "extensions": [{"name": "hash_cuda"}]}, jobs[:2])) == [""]
    # the caller loads each module of its library under its own name and gives the calls a namespace of them
    assert 'kind == "pybind-modules"' in ted.CALLER and "types.SimpleNamespace" in ted.CALLER


# --- benchmarks/torch_ext_calls_check.py: a calls file checked against the bindings' C++ declarations ---------

BINDING = r'''
#include <torch/extension.h>
enum class Act { A, B };
struct Spec { torch::Tensor vals; };
__global__ void scale(float* x, int n, float s, int extra) {}   // a kernel of the bound function's name
std::tuple<at::Tensor, at::Tensor> scale(const at::Tensor& x, int64_t n, /* the factor */ float s) {
  return {x, x};
}
void fill(torch::Tensor out, c10::optional<at::Tensor> w, bool flag, Act act) {}
std::vector<torch::Tensor> split3(Spec spec) { auto v = spec.vals; return {v, v, v}; }
torch::Tensor pick(torch::Tensor x, int k) { return x; }
torch::Tensor pick(torch::Tensor x, torch::Tensor k) { return x; }
int loss(const at::Tensor& xs, const int blank, const float lam) { return 0; }
struct CxxSettings { int h; };
torch::Tensor draw(torch::Tensor x, const CxxSettings& settings) { return x; }
PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  pybind11::enum_<Act>(m, "Act").value("A", Act::A).value("B", Act::B);
  m.def("scale", &scale, "doc");
  m.def("fill", &fill);
  m.def("split3", &split3);
  m.def("pick", py::overload_cast<torch::Tensor, int>(&pick));
  m.def("pick", py::overload_cast<torch::Tensor, torch::Tensor>(&pick));
  m.def("loss", &loss, "doc", pybind11::arg("xs"), pybind11::arg("blank") = 0, pybind11::arg("lam") = 0.0);
  py::class_<Spec>(m, "Spec").def(py::init<>()).def_readwrite("vals", &Spec::vals);
  py::class_<CxxSettings>(m, "Settings").def(py::init<>()).def_readwrite("h", &CxxSettings::h);
  m.def("draw", &draw);
}
'''


def test_the_bindings_check_takes_each_functions_declared_arguments(tmp_path):
    check = _bench("torch_ext_calls_check")
    src = tmp_path / "ext.cu"
    src.write_text(BINDING)
    log: list = []
    ext = check.binding_module([src], [src], log)
    t = check.Stand("input")  # a tensor stand-in: no torch needed here
    a, b = ext.scale(t, 3, 2.0)  # the host function (3 parameters, a tuple of 2), not the kernel (4)
    assert isinstance(a, check.Stand) and isinstance(b, check.Stand)
    assert ext.fill(t, None, True, ext.Act.B) is None and ext.fill(t, t, 1, ext.Act.A) is None
    spec = ext.Spec()
    spec.vals = t
    assert len(ext.split3(spec)) == 3  # a std::vector: as many as its braced return
    assert isinstance(ext.pick(t, 4), check.Stand) and isinstance(ext.pick(t, t), check.Stand)
    assert ext.loss(t) is not None and ext.loss(t, 1, 0.5) is not None and ext.loss(t, blank=2) is not None
    # a class bound under another Python name (ds_splat 0.0.2: TorchRasterizationSettings as RasterizationSettings)
    settings = ext.Settings()
    settings.h = 4
    assert isinstance(ext.draw(t, settings), check.Stand)
    assert log == ["scale", "fill", "fill", "split3", "pick", "pick", "loss", "loss", "loss", "draw"]
    bad = [lambda: ext.scale(t, 3),                       # too few
           lambda: ext.scale(t, 3.5, 2.0),                # a float for int64_t
           lambda: ext.scale(3, 3, 2.0),                  # an int for a Tensor
           lambda: ext.fill(t, None, True, 1),            # not the enum
           lambda: ext.split3(t),                         # not the class
           lambda: ext.pick(t, "k"),                      # neither overload
           lambda: ext.loss(t, 1, 0.5, 7),                # too many
           lambda: ext.draw(t, ext.Spec())]               # another class than the C++ type's binding
    for call in bad:
        with pytest.raises(check.Mismatch):
            call()
    assert len(log) == 10


def test_the_bindings_check_takes_lists_of_tensors_for_tensor_vectors(tmp_path):
    # bf16-fused-adam 0.1: bf16_fused_adamw_cuda_impl_(std::vector<at::Tensor> params, ..., const double lr, ...)
    check = _bench("torch_ext_calls_check")
    src = tmp_path / "ops.cu"
    src.write_text("#include <torch/extension.h>\n"
                   "void step_(std::vector<at::Tensor> params, at::TensorList grads, const double lr) {}\n"
                   "PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def(\"step_\", &step_); }\n")
    ext = check.binding_module([src], [src], [])
    t = check.Stand("p")
    assert ext.step_([t, t], (t,), 1e-3) is None
    for call in (lambda: ext.step_(t, [t], 1e-3),           # a tensor, not a list of them
                 lambda: ext.step_([t, 3], [t], 1e-3)):     # a list with a non-tensor
        with pytest.raises(check.Mismatch):
            call()


def test_the_bindings_check_reports_each_case(tmp_path):
    check = _bench("torch_ext_calls_check")
    src = tmp_path / "ext.cu"
    src.write_text(BINDING)
    calls = tmp_path / "calls.py"
    calls.write_text("def cases(ext, torch, dev):\n"
                     "    t = ext.split3(ext.Spec())[0]\n"
                     "    return {'good': lambda: ext.scale(t, 1, 2.0),\n"
                     "            'wrong': lambda: ext.scale(t, 1),\n"
                     "            'chain_ends': lambda: ext.scale(t, 1, 2.0)[0] + 1}\n")
    log: list = []
    res = check.run_cases(check._load_calls(str(calls)), check.binding_module([src], [src], log), "cpu", log)
    assert res["good"]["status"] == "ok" and "1 call(s) checked (scale)" in res["good"]["detail"]
    assert res["wrong"]["status"] == "error" and "2 arguments, the C++ takes 3" in res["wrong"]["detail"]
    assert res["chain_ends"]["status"] == "checked"


# --- the calls process: a kernel fault is charged to its call, not to every call after it ----------------------

FAKE_TORCH = '''
import pickle
class Tensor: pass
def save(obj, path):
    with open(path, "wb") as f:
        pickle.dump(obj, f)
def load(path):
    with open(path, "rb") as f:
        return pickle.load(f)
class cuda:
    @staticmethod
    def synchronize():
        if _state["faulted"]:
            raise RuntimeError("CUDA error: unspecified launch failure")
_state = {"faulted": False}
'''

FAKE_EXT = '''
import torch
def ok(x):
    return x * 2
def fault():
    torch._state["faulted"] = True   # as a kernel fault does: this process's later calls all fail
    return 0
def die():
    import os
    os._exit(1)
'''


def _fake_caller(tmp_path: Path, cases: str) -> tuple[list[str], Path]:
    (tmp_path / "torch").mkdir()
    (tmp_path / "torch" / "__init__.py").write_text(FAKE_TORCH)
    (tmp_path / "ext.py").write_text(FAKE_EXT)
    calls = tmp_path / "calls.py"
    calls.write_text(f"def cases(ext, torch, dev):\n    assert dev == 'cpu'\n    return {{{cases}}}\n")
    env_python = [sys.executable, "-c", f"import sys; sys.path.insert(0, {str(tmp_path)!r}); exec({ted.CALLER!r})"]
    return [*env_python, "pybind", str(tmp_path / "ext.py"), "ext", str(calls)], tmp_path / "out.pkl"


def _pickle_load(path: Path) -> dict:
    import pickle

    return pickle.loads(path.read_bytes())


def test_a_call_that_faults_the_context_is_charged_alone_and_the_rest_run_in_a_fresh_process(tmp_path):
    caller, res = _fake_caller(tmp_path, "'a': lambda: ext.ok(1), 'b': ext.fault, 'c': lambda: ext.ok(3), "
                                         "'d': ext.fault, 'e': lambda: ext.ok(5)")
    ran, log, out = ted.call_cases(caller, res, 60, _pickle_load, device="cpu")
    assert ran and log == "", log
    assert out["results"]["a"] == 2 and out["results"]["c"] == 6 and out["results"]["e"] == 10
    for faulted in ("b", "d"):
        assert out["results"][faulted] == {"error": "RuntimeError: CUDA error: unspecified launch failure"}
    assert out["restarted_after"] == ["b", "d"] and set(out["times"]) == set("abcde")


def test_a_calls_process_that_dies_says_how(tmp_path):
    caller, res = _fake_caller(tmp_path, "'a': lambda: ext.ok(1), 'z': ext.die")
    ran, log, out = ted.call_cases(caller, res, 60, _pickle_load, device="cpu")
    assert not ran and out is None and log == "the calls process exited 1 without output"


def test_a_call_the_original_does_not_answer_the_same_way_twice_is_not_charged_to_the_port():
    # fast_transformers 0.4.0's cluster: one curandState allocated, K used by racing threads (H200, 2026-12-05)
    first = {"results": {"steady": 1, "racy": [4, 5], "fault": {"error": "RuntimeError: x"}}, "times": {}}
    again = {"results": {"steady": 1, "racy": [4, 6], "fault": {"error": "RuntimeError: x"}}, "times": {}}
    port = {"results": {"steady": 2, "racy": [7, 5], "fault": {"error": "RuntimeError: x"}}, "times": {}}
    unstable = ted.unstable_calls(first, again)
    assert list(unstable) == ["racy"]
    cmp = ted.mark_unstable(ted.compare_builds(first, port), unstable)
    assert cmp["steady"]["status"] == "differ"  # a stable original still holds the port to its answer
    assert cmp["racy"]["status"] == "original-unstable"
    assert cmp["racy"]["detail"]["original twice"] == {"[0]": "equal", "[1]": "5 vs 6"}
    assert cmp["fault"]["status"] == "both-error"
