"""benchmarks/torch_ext_merge.py: per-package TU counts of two gfx942 runs, later entries replacing earlier ones."""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import torch_ext_merge  # noqa: E402


def test_merge_counts_each_run_and_keeps_the_last_result_of_a_tu(tmp_path: Path):
    cfg = {"packages": {"p": {"sdist": "p-1.tar.gz", "sha256": "0" * 64, "dir": "p-1",
                              "extensions": [{"name": "_C", "sources": ["a.cpp", "k.cu"]}]}}}
    (tmp_path / "cfg.json").write_text(json.dumps(cfg))
    before = [{"package": "p", "source": "a.cpp", "ok": True, "seconds": 1.0, "error": ""},
              {"package": "p", "source": "k.cu", "ok": False, "seconds": 0.2, "error": "unknown argument"}]
    after = [{"package": "p", "source": "k.cu", "ok": False, "seconds": 3.0, "error": "first try"},
             {"package": "p", "source": "k.cu", "ok": True, "seconds": 9.0, "error": ""}]
    (tmp_path / "b.json").write_text(json.dumps(before))
    (tmp_path / "a.json").write_text(json.dumps(after))
    (tmp_path / "notes.json").write_text(json.dumps({"_about": "x", "packages": {"p": {"manual": "none"}},
                                                     "classes_fixed": ["c"]}))
    out = tmp_path / "out.json"
    assert torch_ext_merge.main(["--config", str(tmp_path / "cfg.json"), "--run", f"before={tmp_path / 'b.json'}",
                                 "--run", f"after={tmp_path / 'a.json'}", "--notes", str(tmp_path / "notes.json"),
                                 "--out", str(out)]) == 0
    doc = json.loads(out.read_text())
    p = doc["packages"]["p"]
    assert p["gfx942_before"] == "1/2 compiled"
    assert p["gfx942_after"] == "1/2 compiled (1 not measured)"  # a.cpp was not compiled in the after run
    assert p["per_tu"][1]["gfx942_after"] == {"ok": True, "seconds": 9.0, "error": ""}
    assert p["manual"] == "none" and p["cu_tus"] == 1
    assert doc["totals"] == {"gfx942_before": "1/2 compiled", "gfx942_after": "1/2 compiled"}
    assert doc["classes_fixed"] == ["c"]
