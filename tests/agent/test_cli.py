"""``vado agent`` through the CLI, against a loopback stub of an OpenAI-compatible server."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from vado.agent.verify import hipcc_path
from vado.cli.app import app

from agent_helpers import FIXTURES, tree_digest

GOOD = (
    "<<<<<<< SEARCH\n"
    '  asm("prmt.b32.f4e %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(s));\n'
    "=======\n"
    "  unsigned long long ab = ((unsigned long long)b << 32) | a;\n"
    "  d = (unsigned)(ab >> (8 * (s & 3)));\n"
    ">>>>>>> REPLACE\n"
)


def _answer(text: str) -> dict:
    return {"choices": [{"message": {"content": text}, "finish_reason": "stop"}], "usage": {"prompt_tokens": 900, "completion_tokens": 60}}


@pytest.mark.hipcc
@pytest.mark.skipif(hipcc_path() is None, reason="hipcc not installed")
def test_dry_run_prints_results_and_the_diff(stub, tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    (src / "ptx_funnel.cu").write_bytes((FIXTURES / "ptx_funnel.cu").read_bytes())
    digest = tree_digest(src)
    stub["answers"]["/v1/chat/completions"] = (200, _answer(GOOD))
    log = tmp_path / "t.jsonl"
    result = CliRunner().invoke(app, [
        "agent", str(src), "--model", "stub", "--base-url", stub["url"] + "/v1", "--dry-run", "--code", "PTX002",
        "--transcript", str(log), "--price-in", "1", "--price-out", "4", "-q",
    ])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0] == f"vado agent {src} with stub (dry run)"
    assert lines[1] == "  fixed     ptx_funnel.cu:6:PTX002  (1 attempt) the finding is gone and it compiles for gfx942, gfx950"
    assert lines[2].startswith("1 fixed, 0 open; 1 attempts, 900+60 tokens, $0.0011, ")
    assert lines[3] == f"transcript: {log}"
    assert lines[4:7] == ["--- a/ptx_funnel.cu", "+++ b/ptx_funnel.cu", "@@ -3,7 +3,8 @@"]
    assert "+  d = (unsigned)(ab >> (8 * (s & 3)));" in lines
    assert tree_digest(src) == digest
    assert sorted(p.name for p in tmp_path.iterdir()) == ["src", "t.jsonl"]
    body = stub["requests"][0][2]
    assert body["model"] == "stub" and body["temperature"] == 0.0 and body["max_tokens"] == 1024
    assert [json.loads(x)["type"] for x in log.read_text().splitlines()][-1] == "summary"


def test_output_or_dry_run_is_required(tmp_path):
    result = CliRunner().invoke(app, ["agent", str(tmp_path), "--model", "m", "--base-url", "http://127.0.0.1:1/v1"])
    assert result.exit_code == 2
    assert "no output directory" in result.output


def test_prices_go_together(tmp_path):
    result = CliRunner().invoke(app, ["agent", str(tmp_path), "--model", "m", "--dry-run", "--price-in", "1"])
    assert result.exit_code == 2
    assert "--price-in and --price-out go together" in result.output


def test_unreachable_endpoint_stops_the_run_with_exit_3_and_reports_open_items(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    (src / "ptx_funnel.cu").write_bytes((FIXTURES / "ptx_funnel.cu").read_bytes())
    result = CliRunner().invoke(app, [
        "agent", str(src), "--model", "m", "--base-url", "http://127.0.0.1:1/v1", "-o", str(tmp_path / "out"),
        "--code", "PTX002", "--transcript", str(tmp_path / "t.jsonl"), "-q",
    ])
    assert result.exit_code == 3
    assert "stopped: the model endpoint failed: cannot reach the model endpoint" in result.stdout
    assert "  open      ptx_funnel.cu:6:PTX002  (1 attempt)" in result.stdout
    assert (tmp_path / "out" / "ptx_funnel.cu").exists()


def test_a_model_server_that_dies_mid_run_is_a_clear_tool_failure(tmp_path):
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from _servers import dying_server

    src = tmp_path / "src"
    src.mkdir()
    (src / "ptx_funnel.cu").write_bytes((FIXTURES / "ptx_funnel.cu").read_bytes())
    with dying_server(1) as url:
        result = CliRunner().invoke(app, [
            "agent", str(src), "--model", "m", "--base-url", url + "/v1", "--dry-run", "--code", "PTX002",
            "--attempts", "3", "--transcript", str(tmp_path / "t.jsonl"), "-q",
        ])
    assert result.exit_code == 3, result.output
    assert f"error: the model endpoint {url}/v1 stopped answering after 1 answer" in result.stderr
    assert "crashed" in result.stderr and "dmesg" in result.stderr
