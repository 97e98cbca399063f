"""The agent's wave64 differential gate (vado.agent.verify.differential_check) and the MCP verify seam, with fakes.

No GPU here: the GPU probe and `vado verify`'s run step are replaced, so these tests prove the wiring
(when the gate runs, what it passes, how its verdict becomes the candidate's), not the emulation
(tests/verify/test_hip_on_cuda.py does that on a GPU).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from vado.agent import verify as agent_verify
from vado.knowledge.targets import get_target
from vado.model import Evidence
from vado.verify.compare import Comparison, Tolerance
from vado.verify.differential import DifferentialReport, Round
from vado.verify.run import VerifyResult


def _report(status: str) -> DifferentialReport:
    runs = (Evidence(kind="run", subject="original", passed=True), Evidence(kind="run", subject="port", passed=True))
    if status == "pass":
        rnd = Round(None, 1.0, runs, (Comparison("stdout", "text", True, 3),))
    elif status == "fail":
        rnd = Round(None, 1.0, runs, (Comparison("stdout", "text", False, 3, 1, first=(
            {"line": 2, "token": 3, "original": "64", "port": "32"},)),))
    else:
        rnd = Round(None, 1.0, runs, (), inconclusive="the port timed out where the original finished")
    return DifferentialReport("{bin} 7", "stdout", Tolerance(), (rnd,), (Evidence(kind="compare", subject="p",
                              passed=rnd.passed),), kernels=("k.hip:reduce",) if status == "fail" else ())


@pytest.fixture
def fake_gpu(monkeypatch):
    """An NVIDIA GPU that `vado verify --run` reports ``state["status"]`` on; records the specs it was given."""
    state = {"status": "pass", "calls": []}
    monkeypatch.setattr(agent_verify, "nvidia_gpu_with_nvcc", lambda: True)

    def fake_verify(out, **kw):
        state["calls"].append((Path(out), kw))
        return VerifyResult(str(out), "rocm-7.2", differential=_report(state["status"]))

    import vado.verify.run

    monkeypatch.setattr(vado.verify.run, "verify", fake_verify)
    return state


def test_no_gpu_means_no_gate(monkeypatch, tmp_path):
    monkeypatch.setattr(agent_verify, "nvidia_gpu_with_nvcc", lambda: False)
    assert agent_verify.differential_check(tmp_path, tmp_path, "7") is None


def test_the_gate_runs_wave64_and_names_the_difference(fake_gpu, tmp_path):
    fake_gpu["status"] = "fail"
    check = agent_verify.differential_check(tmp_path / "port", tmp_path / "orig", "7 'a b'")
    assert check is not None and not check.passed
    assert "line 2: original '64', port '32'" in check.reason and "k.hip:reduce" in check.reason
    (out, kw), = fake_gpu["calls"]
    spec = kw["run"]
    assert out == tmp_path / "port" and kw["original"] == tmp_path / "orig"
    assert spec.wave == 64 and spec.platform == "nvidia" and spec.template == "{bin} 7 'a b'"
    assert not kw["do_compile"] and spec.ignore_lines  # timing lines are left out


@pytest.mark.parametrize("status, passed, words", [("pass", True, "equals the original's"),
                                                   ("inconclusive", True, "nothing proved")])
def test_pass_and_inconclusive_do_not_reject(fake_gpu, tmp_path, status, passed, words):
    fake_gpu["status"] = status
    check = agent_verify.differential_check(tmp_path, tmp_path, "7")
    assert check.passed is passed and words in check.reason


def test_braces_in_arguments_are_not_template_fields(fake_gpu, tmp_path):
    agent_verify.differential_check(tmp_path, tmp_path, "{n} x")
    assert fake_gpu["calls"][0][1]["run"].template.format(bin="B") == "B '{n}' x"


def _candidate(tmp_path: Path) -> Path:
    f = tmp_path / "port" / "k.h"
    f.parent.mkdir(parents=True)
    f.write_text("int x;\n")
    return f


def test_check_candidate_is_rejected_by_a_failing_gate(fake_gpu, tmp_path):
    fake_gpu["status"] = "fail"
    f = _candidate(tmp_path)
    check = agent_verify.check_candidate(f, "k.h", "int x;\n", get_target("rocm-7.2"), resolve_code=None, compile=False,
                                         tree=f.parent, original=tmp_path, run_args="7")
    assert not check.passed and "differs from the original's" in check.reason
    ok = agent_verify.check_candidate(f, "k.h", "int x;\n", get_target("rocm-7.2"), resolve_code=None, compile=False)
    assert ok.passed and len(fake_gpu["calls"]) == 1  # without run_args the gate is not asked


def test_check_candidate_keeps_a_passing_gate_in_its_reason(fake_gpu, tmp_path):
    f = _candidate(tmp_path)
    check = agent_verify.check_candidate(f, "k.h", "int x;\n", get_target("rocm-7.2"), resolve_code=None, compile=False,
                                         tree=f.parent, original=tmp_path, run_args="7")
    assert check.passed and "64-lane waves on the GPU" in check.reason and check.evidence


def test_mcp_verify_runs_the_gate(fake_gpu, tmp_path, monkeypatch):
    from vado.errors import UsageError
    from vado.mcp import tools
    from vado.mcp.root import Root

    (tmp_path / "orig").mkdir()
    port = tmp_path / "port"
    port.mkdir()
    (port / "k.hip").write_text("int main() { return 0; }\n")
    monkeypatch.setattr(agent_verify, "compile_hip", lambda src, **kw: Evidence(kind="compile", subject=src.name,
                                                                               passed=True))
    root = Root(tmp_path)
    fake_gpu["status"] = "fail"
    answer = tools.verify(root, "port", original="orig", run_args="7")
    assert not answer["passed"] and answer["differential"]["ran"] and answer["differential"]["wave"] == 64
    assert fake_gpu["calls"][0][1]["original"] == (tmp_path / "orig").resolve()
    fake_gpu["status"] = "pass"
    assert tools.verify(root, "port", original="orig", run_args="7")["passed"]
    with pytest.raises(UsageError, match="go together"):
        tools.verify(root, "port", original="orig")
    monkeypatch.setattr(agent_verify, "nvidia_gpu_with_nvcc", lambda: False)
    skipped = tools.verify(root, "port", original="orig", run_args="7")
    assert skipped["passed"] and not skipped["differential"]["ran"] and "no NVIDIA GPU" in skipped["differential"]["reason"]
