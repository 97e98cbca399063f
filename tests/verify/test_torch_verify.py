"""``vado verify`` on a PyTorch extension (vado.verify.torch_verify): its CUDAExtensions, derived from setup.py as a
ROCm build evaluates it, hipified in a copy and compiled through verify's own compile against PyTorch's assembled
ROCm headers; without the headers those units are "not checked", never a pass and never a failure.

The compiles need ROCm 7.2.4's hipcc (skipped when absent, a failure under ``VADO_REQUIRE_ROCM=1``) and the headers
``tools/torch_rocm_headers.py`` assembled for torch 2.13.0 (skipped when absent); the headers-absent path points
the header cache at an empty directory and needs neither.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from vado.knowledge.targets import get_target
from vado.verify.compile import find_units
from vado.verify.run import render_json, render_text, verify
from vado.verify.torch_headers import find_assembled
from vado.verify.torch_verify import NOT_CHECKED, TorchPlan, split_ordinary

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "PROJECTS" / "torch-ext-verify"
#: Looked up before a test moves vado's cache: where the assembled headers are, if anywhere.
HEADERS = find_assembled("2.13.0")


def _status(result) -> dict[tuple[str, str], str]:
    return {(e.subject, e.arch): e.detail.get("status") for e in result.compile.evidence}


def _compile_prerequisites() -> str:
    """ROCm 7.2's hipcc (skip, or fail under VADO_REQUIRE_ROCM=1) and the headers (skip)."""
    from tests._compile_fixtures import require_compiler

    hipcc = require_compiler("rocm-7.2").path
    if HEADERS is None:
        pytest.skip("no assembled torch 2.13.0 ROCm headers (run tools/torch_rocm_headers.py)")
    return hipcc


def test_headers_absent_units_are_not_checked_with_the_command(tmp_path, isolated_cache):
    empty = tmp_path / "no-headers"
    empty.mkdir()
    result = verify(FIXTURE, archs=["gfx942", "gfx950"], target=get_target("rocm-7.2"), do_triton=False,
                    torch_headers=empty)
    status = _status(result)
    # Never a false pass, never a false failure: each source of the extension is "not checked", per arch.
    assert status == {("csrc/ops.cpp", "host"): NOT_CHECKED, ("csrc/kernels.cu", "gfx942"): NOT_CHECKED,
                      ("csrc/kernels.cu", "gfx950"): NOT_CHECKED}
    assert not result.passed
    text = render_text(result)
    assert "result: NOT CHECKED (3 not-checked)" in text
    assert "FAIL" not in text
    assert f"tools/torch_rocm_headers.py --wheel torch-2.13.0+cpu-…whl --pytorch-src DIR --cache-root {empty}" in text
    # What the reader could not decide is shown (setup.py tests parallel_info() for OpenMP).
    assert "torch extension: undecidable setup.py:10" in text and "-fopenmp" in text
    assert "tvext._C" in text
    doc = json.loads(render_json(result))
    assert doc["torch_extension"]["headers"] is None
    assert "tools/torch_rocm_headers.py" in doc["torch_extension"]["not_checked"]
    why = {e["detail"]["why_not_checked"] for e in doc["evidence"]}
    assert len(why) == 1 and "no assembled torch 2.13.0 ROCm headers" in why.pop()
    assert doc["error_groups"] == []
    # Nothing was written into the project.
    assert not list(FIXTURE.rglob("*.hip"))


def test_ordinary_units_that_include_torch_are_left_out(tmp_path):
    # A guessed build lists every source: the extension's go to the torch path, a file that includes torch's
    # headers and no CUDAExtension compiles is said not compiled, a plain file keeps the ordinary path.
    units, _ = find_units(FIXTURE)
    plan = TorchPlan(FIXTURE.resolve(), covered={str((FIXTURE / s).resolve()) for s in ("csrc/ops.cpp", "csrc/kernels.cu")})
    keep, skipped = split_ordinary(plan, units)
    assert [u.path for u in keep] == ["bench/plain.cpp"]
    assert [s for s, _ in skipped] == ["csrc/helper_cpu.cpp"]
    assert "no CUDAExtension" in skipped[0][1]


def test_torch_extension_verifies_for_gfx942(tmp_path, isolated_cache):
    hipcc = _compile_prerequisites()
    result = verify(FIXTURE, archs=["gfx942"], target=get_target("rocm-7.2"), hipcc=hipcc, do_triton=False,
                    torch_headers=HEADERS.root.parent)
    assert _status(result) == {("csrc/ops.cpp", "host"): "pass", ("csrc/kernels.cu", "gfx942"): "pass"}
    assert result.passed
    by = {e.subject: e for e in result.compile.evidence}
    device = " ".join(by["csrc/kernels.cu"].command)
    # The hipified copy's .hip, with cpp_extension's hipcc flags, the run's arch, and the headers after the unit's own.
    assert "kernels.hip" in device and "--offload-arch=gfx942" in device and "-fno-gpu-rdc" in device
    for word in ("-DUSE_ROCM=1", "-D__HIP_NO_HALF_CONVERSIONS__=1", "-DTORCH_EXTENSION_NAME=_C", "-DWITH_CUDA",
                 f"-I{HEADERS.include}"):
        assert word in device
    host = by["csrc/ops.cpp"].command
    assert "-x" in host and host[host.index("-x") + 1] == "c++" and "-fno-gpu-rdc" not in host
    text = render_text(result)
    assert "shown read-only to the confined compiler" in text and "result: PASS (2 pass)" in text
    # A second run with nothing changed is read from verify's result cache.
    again = verify(FIXTURE, archs=["gfx942"], target=get_target("rocm-7.2"), hipcc=hipcc, do_triton=False,
                   torch_headers=HEADERS.root.parent)
    assert again.passed and again.compile.cache_hits == 2
    assert not list(FIXTURE.rglob("*.hip"))


def test_an_error_is_reported_at_the_projects_line(tmp_path, isolated_cache):
    hipcc = _compile_prerequisites()
    proj = tmp_path / "proj"
    shutil.copytree(FIXTURE, proj)
    kernels = proj / "csrc" / "kernels.cu"
    lines = kernels.read_text().splitlines(keepends=True)
    assert "scale_value(x[i], s)" in lines[6]
    lines[6] = lines[6].replace("scale_value(x[i], s)", "scale_value(x[i], s, no_such_name)")
    kernels.write_text("".join(lines))
    result = verify(proj, archs=["gfx942"], target=get_target("rocm-7.2"), hipcc=hipcc, do_triton=False,
                    torch_headers=HEADERS.root.parent)
    assert _status(result) == {("csrc/ops.cpp", "host"): "pass", ("csrc/kernels.cu", "gfx942"): "fail"}
    diags = next(e for e in result.compile.evidence if e.subject == "csrc/kernels.cu").detail["diagnostics"]
    first = diags[0]
    # hipify put a line before the kernel (#include "hip/hip_runtime.h"): the report names the project's line 7.
    assert (first["file"], first["line"]) == ("csrc/kernels.cu", 7), first
    assert first["hipified"].startswith("csrc/kernels.hip:")
    assert "no_such_name" in first["message"]
    text = render_text(result)
    assert "csrc/kernels.cu:7:" in text and "result: FAIL" in text


def test_a_setup_py_that_does_not_parse_leaves_the_ordinary_path(tmp_path, isolated_cache):
    proj = tmp_path / "proj"
    proj.mkdir()
    (proj / "setup.py").write_text("from torch.utils.cpp_extension import CUDAExtension\nsetup(ext_modules=[CUDAExtension(\n")
    result = verify(proj, archs=["gfx942"], target=get_target("rocm-7.2"), do_triton=False)
    assert result.torch_extension and "its sources take verify's ordinary path" in result.torch_extension["skipped"]
    assert "torch extension: " in render_text(result)
    assert not result.evidence


def _load_at_import(tmp_path: Path, readable: bool = False) -> Path:
    """The fixture's sources built by ``load()`` when the package is imported: setup.py declares no extension.
    ``readable``: load() names its sources as literals (derive_config reads them, vado.build.torch_jit); else it
    takes them from the environment at import time, which nothing reads without running it (not derived)."""
    proj = tmp_path / "loadproj"
    (proj / "tvload").mkdir(parents=True)
    shutil.copytree(FIXTURE / "csrc", proj / "csrc", ignore=shutil.ignore_patterns("helper_cpu*"))
    # A kernel file that reads no PyTorch header, only CUDA's (through its own header): hipified as well.
    (proj / "csrc" / "raw.cuh").write_text("#pragma once\n#include <cuda_runtime.h>\n__global__ void raw_kernel(float* x);\n")
    (proj / "csrc" / "raw.cu").write_text('#include "raw.cuh"\n__global__ void raw_kernel(float* x) { x[threadIdx.x] = 1.f; }\n'
                                          "void raw_launch(float* x) { raw_kernel<<<1, 64>>>(x); cudaDeviceSynchronize(); }\n")
    (proj / "setup.py").write_text("from setuptools import setup\nsetup(name='tvload', packages=['tvload'])\n")
    (proj / "tvload" / "__init__.py").write_text(
        "import os\nfrom torch.utils.cpp_extension import load\n_here = os.path.dirname(__file__)\n"
        "_C = load(name='tvload_C', sources=[os.path.join(_here, '..', 'csrc', s) for s in "
        + ("('ops.cpp', 'kernels.cu')" if readable else
           "os.environ['TVLOAD_SOURCES'].split()")
        + "], extra_cuda_cflags=['-DWITH_CUDA'])\n")
    return proj


def test_an_extension_setup_py_does_not_make_is_compiled_the_torch_way_and_says_so(tmp_path, isolated_cache):
    # setup.py makes no CUDAExtension (the package builds it with load() at import time): the sources that include
    # PyTorch's headers are not compiled bare (torch/extension.h not found: a false failure) but hipified and
    # compiled against the assembled headers, with the flags the build model read, and the report says the
    # extension was not derived.
    hipcc = _compile_prerequisites()
    proj = _load_at_import(tmp_path)
    result = verify(proj, archs=["gfx942"], target=get_target("rocm-7.2"), hipcc=hipcc, do_triton=False,
                    torch_headers=HEADERS.root.parent)
    assert _status(result) == {("csrc/ops.cpp", "host"): "pass", ("csrc/kernels.cu", "gfx942"): "pass",
                               ("csrc/raw.cu", "gfx942"): "pass"}, render_text(result)
    assert result.passed
    assert result.torch_extension["implied"].startswith("its CUDAExtensions' sources are not known without running it")
    text = render_text(result)
    assert "torch extension: NOT DERIVED: " in text and "not the extension's own flags" in text
    assert "raw.hip" in " ".join(next(e for e in result.compile.evidence if e.subject == "csrc/raw.cu").command)
    device = " ".join(next(e for e in result.compile.evidence if e.subject == "csrc/kernels.cu").command)
    assert "kernels.hip" in device and "-DUSE_ROCM=1" in device and f"-I{HEADERS.include}" in device
    assert not list(proj.rglob("*.hip"))


def test_an_extension_load_names_is_derived_and_what_it_leaves_out_is_not_compiled(tmp_path, isolated_cache):
    # load() at import time with its sources written out: the extension is derived from it (as from a setup.py's
    # CUDAExtension); a .cu file it does not name is no unit of the build and the report says so.
    hipcc = _compile_prerequisites()
    proj = _load_at_import(tmp_path, readable=True)
    result = verify(proj, archs=["gfx942"], target=get_target("rocm-7.2"), hipcc=hipcc, do_triton=False,
                    torch_headers=HEADERS.root.parent)
    assert _status(result) == {("csrc/ops.cpp", "host"): "pass", ("csrc/kernels.cu", "gfx942"): "pass"}, render_text(result)
    text = render_text(result)
    assert "CUDAExtensions DERIVED" in text and "tvload_C" in text
    assert "not compiled (1 sources the build does not compile): csrc/raw.cu" in text


def test_without_headers_an_underived_extension_is_not_checked_never_failed(tmp_path, isolated_cache):
    empty = tmp_path / "no-headers"
    empty.mkdir()
    proj = _load_at_import(tmp_path)
    result = verify(proj, archs=["gfx942"], target=get_target("rocm-7.2"), do_triton=False, torch_headers=empty)
    assert _status(result) == {("csrc/ops.cpp", "host"): NOT_CHECKED, ("csrc/kernels.cu", "gfx942"): NOT_CHECKED,
                               ("csrc/raw.cu", "gfx942"): NOT_CHECKED}
    assert "FAIL" not in render_text(result)
