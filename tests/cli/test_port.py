"""``vado port``: exact summary output and the report formats."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from vado.cli.app import app
from vado.model import Applicability

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
    result = run("proj", "-o", "out", "--no-build-fixes", "--wave", "native")
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
        "                                 architectures (--offload-arch=gfx942 --offload-arch=gfx950)        \n"
        " k.cu:2:62      WARP001  unsafe  `threadIdx.x & 31` assumes 32-lane warps                           \n"
        "3 of them have an unsafe fix: review it, then port again with --unsafe-fixes\n"
    )


def test_unsafe_port_with_diff_prints_raw_unified_diffs(project: Path):
    result = run("proj", "-o", "out", "--unsafe-fixes", "--diff", "--launch", "ggl", "--wave", "native")
    assert result.exit_code == 0
    out = result.stdout
    assert "nothing remains: every finding for this target was fixed\n" in out
    # Diff lines are data: never wrapped at the console width.
    assert "+void go(int* d) { hipLaunchKernelGGL(k, dim3(1), dim3(64), 0, 0, d); hipDeviceSynchronize(); }\n" in out
    assert "+__global__ void k(int* out) { out[threadIdx.x] = threadIdx.x & (warpSize - 1); }\n" in out
    assert "-NVCC ?= nvcc\n+NVCC ?= hipcc\n" in out
    assert (Path("out") / "Makefile").read_text().startswith("NVCC ?= hipcc\n")


def test_json_report(project: Path):
    result = run("proj", "-o", "out", "--format", "json", "--no-build-fixes", "--wave", "native")
    doc = json.loads(result.stdout)
    assert doc["target"] == "rocm-7.2" and doc["tool"]["name"] == "vado"
    files = {f["path"]: f for f in doc["files"]}
    assert files["k.cu"]["status"] == "translated" and files["k.cu"]["applied"] == {"rename": 1, "header": 1}
    assert files["Makefile"]["status"] == "unchanged" and files["Makefile"]["remaining"] == {"BLD003": 3}
    assert sorted(f["code"] for f in doc["remaining"]) == ["BLD003", "BLD003", "BLD003", "WARP001"]
    # what the port changed and why, per file: each applied fix's description and count
    assert files["k.cu"]["changes"] == {"<cuda_runtime.h> → <hip/hip_runtime.h>": 1,
                                        "cudaDeviceSynchronize → hipDeviceSynchronize": 1}
    assert files["Makefile"]["changes"] == {}


@pytest.mark.parametrize(("fmt", "marker"), [("sarif", '"version": "2.1.0"'), ("markdown", "#"), ("html", "<html")])
def test_audit_formats_of_the_port(project: Path, fmt: str, marker: str):
    result = run("proj", "-o", "out", "--format", fmt, "--no-build-fixes", "--wave", "native")
    assert result.exit_code == 1
    assert marker in result.stdout
    assert "WARP001" in result.stdout


def test_report_file(project: Path, tmp_path: Path):
    result = run("proj", "-o", "out", "--format", "json", "--report", "port.json")
    assert result.stdout == ""
    assert json.loads(Path("port.json").read_text())["out"] == "out"


def test_usage_errors(project: Path):
    assert run("proj", "-o", "out", "--launch", "macro").exit_code == 2
    assert run("proj", "-o", "out", "--wave", "wave64").exit_code == 2
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


def test_new_tree_applies_build_fixes_by_default_and_lists_each(project: Path):
    result = run("proj", "-o", "out")
    lines = result.stdout.splitlines()
    k = lines.index(next(line for line in lines if "unsafe fixes applied (review them in the diff)" in line))
    assert lines[k + 2].split() == ["Makefile", "compile", "with", "hipcc"]
    assert "replace '-arch=sm_80' with '--offload-arch=gfx942 --offload-arch=gfx950'" in " ".join(
        line.strip() for line in lines[k + 3 : k + 5])
    assert Path("out/Makefile").read_text() == (
        "NVCC ?= hipcc\napp: k.cu\n\t$(NVCC) --offload-arch=gfx942 --offload-arch=gfx950 -o app k.cu\n")
    doc = json.loads(run("proj", "-o", "out2", "--format", "json").stdout)
    files = {f["path"]: f for f in doc["files"]}
    assert files["Makefile"]["unsafe_applied"] == [
        "compile with hipcc", "replace '-arch=sm_80' with '--offload-arch=gfx942 --offload-arch=gfx950'"]
    assert files["k.cu"]["unsafe_applied"] == []  # source files keep the safe default


def test_in_place_keeps_build_files_unless_asked(project: Path):
    result = run("proj", "--in-place")
    assert (project / "Makefile").read_text() == MAKEFILE
    assert "unsafe fixes applied" not in result.stdout
    run("proj", "--in-place", "--build-fixes")
    assert (project / "Makefile").read_text().startswith("NVCC ?= hipcc\n")
    assert (project / "Makefile.vado-bak").read_text() == MAKEFILE


def test_default_wave_keeps_32_lane_warps(project: Path):
    """The default port (--wave warp32) keeps CUDA's 32-lane warps: `& 31` is right as it stands, so only the
    build file remains; --wave native reports it for the 64-lane rewrite (test_summary_text_exact)."""
    result = run("proj", "-o", "out", "--no-build-fixes", "--format", "json")
    doc = json.loads(result.stdout)
    assert sorted(f["code"] for f in doc["remaining"]) == ["BLD003", "BLD003", "BLD003"]
    assert "threadIdx.x & 31" in (Path("out") / "k.cu").read_text()


def test_what_next_and_the_report_in_the_new_tree(project: Path):
    result = run("proj", "-o", "out", "--wave", "native")
    assert result.exit_code == 1
    err = " ".join(result.stderr.split())  # the console wraps stderr at its width
    report = Path("out") / "vado-port-report.md"
    assert "ported 2 files" in err and "into out" in err
    assert f"2 unsafe fixes applied: review them and the diffs of their files in {report}" in err
    assert f"1 finding remains for a person: listed in {report}" in err
    assert "next: vado verify out (compiles the port with the target's hipcc for gfx942, gfx950)" in err
    text = report.read_text()
    assert text.startswith("# vado port: `proj` → `out`\n")
    assert "1. Compile the port: `vado verify out`" in text and "Nothing here was compiled yet." in text
    assert "## Unsafe fixes applied (2)" in text and "| `Makefile` | compile with hipcc |" in text
    assert "```diff\n--- a/Makefile\n+++ b/Makefile\n" in text
    assert "| `k.cu:2:62` | WARP001 |" in text
    assert "## What changed, file by file\n\n" in text
    assert "- `k.cu`: <cuda_runtime.h> → <hip/hip_runtime.h>; cudaDeviceSynchronize → hipDeviceSynchronize\n" in text
    assert "- `Makefile`: compile with hipcc" in text


def test_the_report_never_replaces_a_file_of_the_project(project: Path):
    (project / "vado-port-report.md").write_text("the project's own notes\n")
    (project / "vado-port-report-2.md").symlink_to("/etc/hostname")
    result = run("proj", "-o", "out", "--no-build-fixes")
    assert result.exit_code == 1
    assert (Path("out") / "vado-port-report.md").read_text() == "the project's own notes\n"
    assert (Path("out") / "vado-port-report-2.md").is_symlink() or not (Path("out") / "vado-port-report-2.md").exists()
    assert (Path("out") / "vado-port-report-3.md").read_text().startswith("# vado port:")
    assert "report: out/vado-port-report-3.md" in " ".join(result.stderr.split())


def test_in_place_writes_no_report_file(project: Path):
    result = run("proj", "--in-place")
    assert result.exit_code in (0, 1), result.output
    assert not list(project.glob("vado-port-report*"))
    assert "next: vado verify proj" in " ".join(result.stderr.split())


def test_a_missing_path_is_a_usage_error_as_in_audit(tmp_path: Path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = run("nope", "-o", "out")
    assert result.exit_code == 2 and "nope does not exist" in result.stderr
    assert CliRunner().invoke(app, ["audit", "nope"]).exit_code == 2


def test_jobs_default_to_one_per_cpu_like_audit():
    import inspect

    from vado.cli import audit, port

    assert inspect.signature(port.port).parameters["jobs"].default.default == 0
    assert inspect.signature(audit.audit).parameters["jobs"].default.default == 0

def test_plan_jobs_default_to_one_per_cpu_too():
    import inspect

    from vado.cli import plan

    assert inspect.signature(plan.plan).parameters["jobs"].default.default == 0


THRUST = """#include <thrust/device_ptr.h>
#include <thrust/sort.h>
#include <cuda_runtime.h>
void f(int* a, int n) { thrust::sort(thrust::cuda::par, thrust::device_ptr<int>(a), thrust::device_ptr<int>(a) + n); }
"""


def test_identity_renames_are_no_change(tmp_path: Path, monkeypatch):
    # rocThrust keeps Thrust's header paths: <thrust/sort.h> → <thrust/sort.h> changes nothing, so neither
    # the JSON `changes`, the applied counts nor the Markdown report's "What changed" lists it; the real
    # renames beside it are listed.
    src = tmp_path / "t"
    src.mkdir()
    (src / "k.cu").write_text(THRUST)
    monkeypatch.chdir(tmp_path)
    doc = json.loads(run("t", "-o", "out", "--format", "json", "--no-build-fixes").stdout)
    (k,) = doc["files"]
    assert k["changes"] == {"<cuda_runtime.h> → <hip/hip_runtime.h>": 1, "thrust::cuda:: → thrust::hip::": 1}
    assert k["applied"] == {"header": 1, "rename": 1}
    report = (Path("out") / "vado-port-report.md").read_text()
    assert "<thrust/sort.h> → <thrust/sort.h>" not in report and "<thrust/device_ptr.h> →" not in report
    assert "thrust::cuda:: → thrust::hip::" in report
    assert (Path("out") / "k.cu").read_text().startswith("#include <thrust/device_ptr.h>\n#include <thrust/sort.h>\n")


def test_a_header_keeps_its_real_change_only(tmp_path: Path, monkeypatch):
    # A .cuh whose Thrust include stays as it is: the include HIP needs is its one change.
    src = tmp_path / "t"
    src.mkdir()
    (src / "k.cuh").write_text("#include <thrust/sort.h>\ninline void f(int* a, int n) { thrust::sort(a, a + n); }\n")
    monkeypatch.chdir(tmp_path)
    doc = json.loads(run("t", "-o", "out", "--format", "json", "--no-build-fixes").stdout)
    (k,) = doc["files"]
    assert k["changes"] == {"add #include <hip/hip_runtime.h>": 1}


def test_changes_nothing_compares_the_replaced_text():
    from vado.model import Edit, Fix
    from vado.port.file import _changes_nothing

    text = "#include <thrust/sort.h>\n"
    same = Fix((Edit("k.cu", 9, 24, "<thrust/sort.h>"),), Applicability.SAFE, "same", ("header",))
    other = Fix((Edit("k.cu", 9, 24, "<thrust/sort.h>"), Edit("k.cu", 0, 0, "// x\n")), Applicability.SAFE, "x", ("header",))
    renamed = Fix((Edit("k.cu", 9, 24, "<rocthrust/sort.h>"),), Applicability.SAFE, "r", ("header",))
    assert _changes_nothing(same, text)
    assert not _changes_nothing(other, text) and not _changes_nothing(renamed, text)
