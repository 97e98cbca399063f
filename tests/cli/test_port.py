"""``vado port``: exact summary output and the report formats."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from vado.cli.app import app

KERNEL = """#include <cuda_runtime.h>
__global__ void k(int* out) { out[threadIdx.x] = threadIdx.x & 31; }
void go(int* d) { k<<<1, 64>>>(d); cudaDeviceSynchronize(); }
"""
MAKEFILE = "NVCC ?= nvcc\napp: k.cu\n\t$(NVCC) -arch=sm_80 -o app k.cu\n"


@pytest.fixture
def project(tmp_path: Path, monkeypatch) -> Path:
    src = tmp_path / "proj"
    src.mkdir()
    (src / "k.cu").write_text(KERNEL)
    (src / "Makefile").write_text(MAKEFILE)
    monkeypatch.chdir(tmp_path)
    return src


def run(*args: str):
    return CliRunner().invoke(app, ["port", *args])


def test_summary_text_exact(project: Path):
    result = run("proj", "-o", "out")
    assert result.exit_code == 1  # findings remain
    assert result.stdout == (
        "vado port proj → out (target rocm-7.2)\n"
        "1 files translated, 1 unchanged, 0 failed, 0 skipped\n"
        " applied fixes \n"
        " kind    count \n"
        " header      1 \n"
        " rename      1 \n"
        "                                      what remains for humans                                       \n"
        " location       code     fix     why                                                                \n"
        " Makefile:1:9   BLD003   unsafe  nvcc invokes nvcc; on ROCm compile with hipcc                      \n"
        " Makefile:3:2   BLD003           $(NVCC) invokes nvcc; on ROCm compile with hipcc (fix its          \n"
        "                                 definition)                                                        \n"
        " Makefile:3:10  BLD003   unsafe  -arch=sm_80 builds for NVIDIA sm_80; hipcc builds for AMD offload  \n"
        "                                 architectures (--offload-arch=gfx942 --offload-arch=gfx90a)        \n"
        " k.cu:2:62      WARP001  unsafe  `threadIdx.x & 31` assumes 32-lane warps                           \n"
        "3 of them have an unsafe fix: review it, then port again with --unsafe-fixes\n"
    )


def test_unsafe_port_with_diff_prints_raw_unified_diffs(project: Path):
    result = run("proj", "-o", "out", "--unsafe-fixes", "--diff", "--launch", "ggl")
    assert result.exit_code == 0
    out = result.stdout
    assert "nothing remains: every finding for this target was fixed\n" in out
    # Diff lines are data: never wrapped at the console width.
    assert "+void go(int* d) { hipLaunchKernelGGL(k, dim3(1), dim3(64), 0, 0, d); hipDeviceSynchronize(); }\n" in out
    assert "+__global__ void k(int* out) { out[threadIdx.x] = threadIdx.x & (warpSize - 1); }\n" in out
    assert "-NVCC ?= nvcc\n+NVCC ?= hipcc\n" in out
    assert (Path("out") / "Makefile").read_text().startswith("NVCC ?= hipcc\n")


def test_json_report(project: Path):
    result = run("proj", "-o", "out", "--format", "json")
    doc = json.loads(result.stdout)
    assert doc["target"] == "rocm-7.2" and doc["tool"]["name"] == "vado"
    files = {f["path"]: f for f in doc["files"]}
    assert files["k.cu"]["status"] == "translated" and files["k.cu"]["applied"] == {"rename": 1, "header": 1}
    assert files["Makefile"]["status"] == "unchanged" and files["Makefile"]["remaining"] == {"BLD003": 3}
    assert sorted(f["code"] for f in doc["remaining"]) == ["BLD003", "BLD003", "BLD003", "WARP001"]


@pytest.mark.parametrize(("fmt", "marker"), [("sarif", '"version": "2.1.0"'), ("markdown", "#"), ("html", "<html")])
def test_audit_formats_of_the_port(project: Path, fmt: str, marker: str):
    result = run("proj", "-o", "out", "--format", fmt)
    assert result.exit_code == 1
    assert marker in result.stdout
    assert "WARP001" in result.stdout


def test_report_file(project: Path, tmp_path: Path):
    result = run("proj", "-o", "out", "--format", "json", "--report", "port.json")
    assert result.stdout == ""
    assert json.loads(Path("port.json").read_text())["out"] == "out"


def test_usage_errors(project: Path):
    assert run("proj", "-o", "out", "--launch", "macro").exit_code == 2
    assert run("proj", "-o", "out", "--format", "xml").exit_code == 2
    assert run("proj").exit_code == 2  # no -o and no --in-place
    (Path("full")).mkdir()
    (Path("full") / "x").write_text("x")
    refused = run("proj", "-o", "full")
    assert refused.exit_code == 2 and "exists and is not empty" in refused.output
    assert run("proj", "-o", "out", "--target", "oneapi").exit_code == 2


def test_rename_sources_option(project: Path):
    result = run("proj", "-o", "out", "--unsafe-fixes", "--rename-sources")
    assert result.exit_code == 0
    assert (Path("out") / "k.hip").exists() and not (Path("out") / "k.cu").exists()
    assert "app: k.hip\n" in (Path("out") / "Makefile").read_text()
