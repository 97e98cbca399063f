"""benchmarks/wave64_differential.py's merging of several GPU runs (no GPU needed)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _module():
    spec = importlib.util.spec_from_file_location("wave64_differential", ROOT / "benchmarks" / "wave64_differential.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("wave64_differential", mod)
    spec.loader.exec_module(mod)
    return mod


def _result(name: str, vado: str, hipify: str = "build-failed") -> dict:
    return {"name": name, "status": {"vado": {"status": vado}, "hipify": {"status": hipify, "why": "x"}}}


def test_a_later_run_replaces_a_result_unless_it_did_not_reach_the_program():
    w = _module()
    base = {"seed": 15, "info": {}, "rtol": 1e-3, "atol": 1e-5, "timeout_s": 60}
    run1 = {**base, "results": [_result("gemv", "pass"), _result("lda", "inconclusive"), _result("vote", "not-run", "not-run")]}
    run2 = {**base, "results": [_result("gemv", "not-run", "not-run"), _result("lda", "pass"), _result("vote", "pass")]}
    merged = w.merge_results([run1, run2])
    assert {r["name"]: r["status"]["vado"]["status"] for r in merged["results"]} == {"gemv": "pass", "lda": "pass",
                                                                                     "vote": "pass"}
    text = w.summary(merged)
    assert text.splitlines()[-2] == "vado: pass 3 (of 3)"
    assert "hipify: build-failed 3 (of 3)" in text
