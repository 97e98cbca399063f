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
