"""The loop's mechanics with recorded answers: context, parse, verify with the real hipcc, retries, transcript."""

from __future__ import annotations

import os

import pytest

from vado.agent.loop import AgentOptions, Budget, run_agent
from vado.agent.providers import Pricing
from vado.agent.transcript import read_transcript
from vado.agent.verify import hipcc_path
from vado.errors import UsageError

from agent_helpers import ScriptedProvider, tree_digest

pytestmark = [pytest.mark.hipcc, pytest.mark.skipif(hipcc_path() is None, reason="hipcc not installed")]

ASM = '  asm("prmt.b32.f4e %0, %1, %2, %3;" : "=r"(d) : "r"(a), "r"(b), "r"(s));\n'
GOOD = (
    "<<<<<<< SEARCH\n" + ASM + "=======\n"
    "  unsigned long long ab = ((unsigned long long)b << 32) | a;\n"
    "  d = (unsigned)(ab >> (8 * (s & 3)));\n"
    ">>>>>>> REPLACE\n"
)
STILL_PTX = "<<<<<<< SEARCH\n" + ASM + "=======\n" + ASM.replace("f4e", "b4e") + ">>>>>>> REPLACE\n"
BROKEN_CXX = "<<<<<<< SEARCH\n" + ASM + "=======\n  d = funnel_shift_right_bytes(a, b, s);\n>>>>>>> REPLACE\n"


def _funnel_only(**kw) -> AgentOptions:
    return AgentOptions(codes=("PTX002",), **kw)


def test_rejected_answers_are_retried_with_the_reason_and_a_verified_edit_is_kept(user_tree, tmp_path):
    root, digest = user_tree
    provider = ScriptedProvider(["I would use a funnel shift.", STILL_PTX, BROKEN_CXX, GOOD])
    out = tmp_path / "out"
    log = tmp_path / "t.jsonl"
    result = run_agent(root / "ptx_funnel.cu", out, provider,
                       _funnel_only(budget=Budget(attempts_per_item=4)), transcript=log)

    (item,) = result.items
    assert item.status == "fixed" and item.attempts == 4
    assert item.item["code"] == "PTX002" and item.item["path"] == "ptx_funnel.cu"
    ported = (out / "ptx_funnel.cu").read_text()
    assert "asm(" not in ported and "d = (unsigned)(ab >> (8 * (s & 3)));" in ported
    assert "#include <hip/hip_runtime.h>" in ported
    assert tree_digest(root) == digest  # the user's tree is only read

    records = read_transcript(log)
    assert [r["type"] for r in records] == ["run", "item", "attempt", "attempt", "attempt", "attempt", "summary"]
    attempts = [r for r in records if r["type"] == "attempt"]
    assert [a["outcome"] for a in attempts] == ["parse-rejected", "verify-rejected", "verify-rejected", "accepted"]
    assert "has no edit" in attempts[0]["reason"]
    assert "new findings" in attempts[1]["reason"] or "still report" in attempts[1]["reason"]
    assert "hipcc rejects" in attempts[2]["reason"]
    ev = attempts[2]["verify"]["evidence"][0]
    assert ev["returncode"] != 0 and "funnel_shift_right_bytes" in ev["stderr"]
    assert attempts[3]["kept"] is True and attempts[3]["verify"]["passed"] is True
    assert attempts[3]["edit"].startswith("--- a/ptx_funnel.cu")
    for a in attempts:
        assert a["answer"] and a["input_tokens"] > 0 and a["prompt"][0]["role"] == "system"
    summary = records[-1]
    assert summary["fixed"] == 1 and summary["still_open"] == 0 and summary["attempts"] == 4

    # The context: the span, the rule's docs, target facts, the compiler's error; later prompts carry the rejections.
    first = provider.prompts[0][1].content
    assert ASM.strip() in first and "rule PTX002: What it does" in first
    assert "gfx90a: wavefront 64 lanes" in first
    assert "compiler errors (hipcc)" in first and "invalid instruction" in first
    last = provider.prompts[3][1].content
    assert "attempt 1 was rejected" in last and "attempt 3 was rejected" in last
    assert "funnel_shift_right_bytes" in last  # the compiler's error went back to the model


def test_item_stays_open_when_attempts_run_out(user_tree, tmp_path):
    root, digest = user_tree
    provider = ScriptedProvider([STILL_PTX, BROKEN_CXX])
    result = run_agent(root / "ptx_funnel.cu", tmp_path / "out", provider,
                       _funnel_only(budget=Budget(attempts_per_item=2)), transcript=tmp_path / "t.jsonl")
    (item,) = result.items
    assert item.status == "open" and item.attempts == 2
    assert "hipcc rejects" in item.reason
    assert 'asm("prmt.b32.f4e' in (tmp_path / "out" / "ptx_funnel.cu").read_text()
    assert tree_digest(root) == digest


def test_dry_run_writes_nothing_but_shows_the_diff(user_tree, tmp_path):
    root, digest = user_tree
    result = run_agent(root / "ptx_funnel.cu", None, ScriptedProvider([GOOD]), _funnel_only(dry_run=True),
                       transcript=tmp_path / "t.jsonl")
    assert result.output is None and result.dry_run
    assert result.fixed == 1
    assert "+  d = (unsigned)(ab >> (8 * (s & 3)));" in result.diffs["ptx_funnel.cu"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.jsonl", "user"]
    assert tree_digest(root) == digest


def test_token_budget_stops_the_run_and_reports_the_rest(user_tree, tmp_path):
    root, _ = user_tree
    provider = ScriptedProvider([STILL_PTX] * 10)
    result = run_agent(root, tmp_path / "out", provider,
                       AgentOptions(budget=Budget(attempts_per_item=3, max_tokens=50), compile=False,
                                    pricing=Pricing(1.0, 2.0)),
                       transcript=tmp_path / "t.jsonl")
    assert result.stopped_by == "token budget of 50 spent"
    assert result.attempts == 1  # one answer spends the budget
    assert result.cost_usd is not None and result.cost_usd > 0
    statuses = sorted(i.status for i in result.items)
    assert statuses.count("not-tried") >= 2 and "fixed" not in statuses
    assert {i.item["code"] for i in result.items} >= {"LIB001", "PTX001", "PTX002"}


def test_output_inside_the_source_or_not_empty_is_refused(user_tree, tmp_path):
    root, _ = user_tree
    with pytest.raises(UsageError):
        run_agent(root, root / "out", ScriptedProvider([]), AgentOptions())
    full = tmp_path / "full"
    full.mkdir()
    (full / "x").write_text("x")
    with pytest.raises(UsageError):
        run_agent(root, full, ScriptedProvider([]), AgentOptions())
    with pytest.raises(UsageError):
        run_agent(root, None, ScriptedProvider([]), AgentOptions())


def test_symlinked_files_are_never_edited(tmp_path):
    from vado.agent.loop import _safe_file
    from vado.errors import AgentError

    ws = tmp_path / "ws"
    ws.mkdir()
    target = tmp_path / "user.cu"
    target.write_text("x")
    os.symlink(target, ws / "k.cu")
    with pytest.raises(AgentError):
        _safe_file(ws, "k.cu")
    with pytest.raises(AgentError):
        _safe_file(ws, "../user.cu")
