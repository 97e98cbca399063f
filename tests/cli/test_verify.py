"""`vado verify`: exit codes, the no-GPU skip, CPU differential runs, and real hipcc compiles."""

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from vado.cli.app import app

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "verify"))
from _verify_helpers import FIXTURES, requires_cc, requires_hipcc  # noqa: E402


@pytest.fixture
def noenv(tmp_path, monkeypatch):
    for var in ("VADO_HIPCC", "VADO_NVCC"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("VADO_TOOL_DIRS", "")
    monkeypatch.setenv("VADO_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path


def run(*args):
    return CliRunner().invoke(app, ["verify", *map(str, args)])


def test_usage_errors(noenv):
    assert run(noenv / "missing").exit_code == 2
    assert run(FIXTURES / "saxpy", "--format", "xml").exit_code == 2
    assert run(FIXTURES / "saxpy", "--arch", ",").exit_code == 2
    assert run(FIXTURES / "saxpy", "--shapes", "a,b").exit_code == 2
    assert run(FIXTURES / "saxpy", "--run", "{bin}", "--original-bin", "x").exit_code == 2
    res = run(FIXTURES / "saxpy", "--run", "{bin}", "--wave", "48")
    assert res.exit_code == 2 and "'48' is not one of '32', '64'" in " ".join(w for w in res.stderr.split() if w != "│")


def test_missing_hipcc_is_a_tool_failure(noenv, monkeypatch):
    monkeypatch.setenv("PATH", "")
    res = run(FIXTURES / "saxpy", "--target", "hip-5.2", "--no-triton")
    assert res.exit_code == 3 and "hipcc not found" in res.stderr and "install hipcc" in " ".join(res.stderr.split())


def test_run_without_gpu_is_skipped_with_reason(noenv, monkeypatch):
    monkeypatch.setenv("PATH", "")
    res = run(FIXTURES / "saxpy", "--target", "hip-5.2", "--no-compile", "--no-triton", "--run", "{bin} {n}",
              "--original", FIXTURES / "saxpy")
    assert res.exit_code == 0, res.output
    assert "run step skipped: no GPU found (no nvidia-smi, amd-smi or rocm-smi on PATH)" in res.stdout
    res = run(FIXTURES / "saxpy", "--target", "hip-5.2", "--no-compile", "--no-triton", "--run", "{bin} {n}",
              "--original", FIXTURES / "saxpy", "--require-gpu")
    assert res.exit_code == 1 and "--require-gpu" in res.stdout


@requires_cc
def test_cpu_differential_through_the_cli(noenv):
    src = noenv / "p.c"
    src.write_text('#include <stdio.h>\n#include <stdlib.h>\nint main(int c, char** v) {\n'
                   '  int n = atoi(v[1]); double s = 0; for (int i = 0; i < n; i++) s += i * 0.5;\n'
                   '  printf("sum %.17g\\n", s); return 0; }\n')
    a, b = noenv / "a", noenv / "b"
    subprocess.run(["cc", "-O0", str(src), "-o", str(a)], check=True, timeout=120)
    subprocess.run(["cc", "-O3", str(src), "-o", str(b)], check=True, timeout=120)
    res = run(noenv, "--target", "hip-5.2", "--no-compile", "--no-triton", "--run", "{bin} {n}",
              "--original-bin", a, "--port-bin", b, "--shapes", "63,64,65")
    assert res.exit_code == 0, res.output
    assert "  n=63: pass" in res.stdout and "result: PASS (12 pass)" in res.stdout  # original twice
    res = run(noenv, "--target", "hip-5.2", "--no-compile", "--no-triton", "--run", "{bin} {n}",
              "--original-bin", a, "--port-bin", shutil.which("echo"), "--shapes", "64", "--format", "json")
    assert res.exit_code == 1
    doc = json.loads(res.stdout)
    assert not doc["passed"] and {e["kind"] for e in doc["evidence"]} == {"run", "compare"}
    assert doc["differential"]["first_difference"]["n"] == 64 and doc["differential"]["rounds"][0]["status"] == "fail"
    # Without {n} in the command there is one round (the sizes would repeat the same run).
    res = run(noenv, "--target", "hip-5.2", "--no-compile", "--no-triton", "--run", "{bin} 5",
              "--original-bin", a, "--port-bin", b)
    assert res.exit_code == 0 and "  n=-: pass" in res.stdout and "result: PASS (4 pass)" in res.stdout


@requires_hipcc
def test_verify_real_port_and_broken_port(noenv, tmp_path):
    from vado.knowledge.targets import get_target
    from vado.port.tree import port_tree

    good = tmp_path / "good"
    port_tree(FIXTURES / "saxpy", good, get_target("hip-5.2"))
    res = run(good, "--arch", "gfx90a", "--original", FIXTURES / "saxpy", "--target", "hip-5.2")
    assert res.exit_code == 0, res.output
    # The grid says what was checked of each unit: the front end here (no inline asm, no -Werror).
    assert "  main.cu  front end   pass" in res.stdout and "result: PASS (1 pass)" in res.stdout
    bad = tmp_path / "bad"
    port_tree(FIXTURES / "broken_api", bad, get_target("hip-5.2"))
    res = run(bad, "--arch", "gfx90a", "--original", FIXTURES / "broken_api", "--target", "hip-5.2")
    assert res.exit_code == 1
    assert "k.cu:10:5 [gfx90a] (original k.cu:10) API003: use of undeclared identifier 'cudaGraphExecNodeSetParams'" in res.stdout
    # What to do next, after the grouped errors: the findings, the agent, and verify again.
    assert "next: each error above names the finding at its line" in " ".join(res.stderr.split())
    assert f"vadoverify{bad}`again" in "".join(res.stderr.split())  # the terminal may fold the path


@requires_cc
def test_without_hipcc_the_run_is_the_proof(noenv, monkeypatch):
    src = noenv / "q.c"
    src.write_text('#include <stdio.h>\nint main(void) { printf("42\\n"); return 0; }\n')
    a = noenv / "qa"
    subprocess.run(["cc", str(src), "-o", str(a)], check=True, timeout=120)
    monkeypatch.setenv("PATH", "")
    res = run(FIXTURES / "saxpy", "--target", "hip-5.2", "--no-triton", "--run", "{bin}",
              "--original-bin", a, "--port-bin", a)
    assert res.exit_code == 0, res.output
    assert "note: hipcc not found: the per-arch compile was skipped" in res.stdout


def test_torch_extension_without_headers_is_not_checked(noenv):
    # A torch extension whose PyTorch ROCm headers are not assembled: no compile, no failure, no pass (exit 1).
    proj = Path(__file__).resolve().parents[1] / "fixtures" / "PROJECTS" / "torch-ext-verify"
    res = run(proj, "--arch", "gfx942", "--torch-headers", noenv / "empty", "--format", "json")
    assert res.exit_code == 1, res.output
    doc = json.loads(res.stdout)
    assert {e["detail"]["status"] for e in doc["evidence"]} == {"not-checked"}
    assert "tools/torch_rocm_headers.py" in doc["torch_extension"]["not_checked"]
