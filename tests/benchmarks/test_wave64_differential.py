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


def _program(root: Path, name: str, makefile: str, files: dict[str, str] | None = None) -> Path:
    d = root / f"{name}-cuda"
    d.mkdir(parents=True)
    (d / "Makefile").write_text(makefile)
    (d / "main.cu").write_text("__global__ void k(int* x) { x[0] = __shfl_sync(0xffffffff, x[0], 0); }\n")
    for rel, text in (files or {}).items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return d


def test_run_arguments_of_a_continued_line(tmp_path):
    w = _module()
    d = _program(tmp_path, "cont", "program = main\nmain:\n\ttouch main\nrun: $(program)\n\t./$(program) \\\n\t  a.txt \\\n\t  out\n",
                 {"cont-cuda/a.txt": "1"})
    assert w.run_args(d) == "a.txt out"


def test_eligibility_follows_siblings_data_and_dvc(tmp_path):
    w = _module()
    build = "main: main.cu\n\tnvcc {flags} -c main.cu -o main.o\n\tnvcc main.o -o main\n"
    _program(tmp_path, "uses", build.format(flags="-I../lib-cuda") + "run: main\n\t./main ../data-cuda/g.egr 3\n",
             {"lib-cuda/h.h": "", "data-cuda/g.egr": "1 2"})
    _program(tmp_path, "missing", build.format(flags="") + "run: main\n\t./main ./input.bin\n")
    _program(tmp_path, "dvc", build.format(flags="") + "run: main\n\t./main\n", {"dvc-cuda/data.tar.gz.dvc": "x"})
    pool = {p["name"]: p for p in w.eligible(tmp_path)}
    assert set(pool) == {"uses"}
    assert pool["uses"]["siblings"] == ["lib-cuda"] and pool["uses"]["data"] == ["data-cuda/g.egr"]
