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


def _run_of(stdout: str) -> dict:
    return {"rc": 0, "timed_out": False, "stdout": stdout, "stderr": "", "bin": "/x/vado-main", "dir": "/x"}


def test_device_printf_lines_compare_as_a_multiset_between_host_lines_and_nothing_else_does():
    d = _module()
    fmts = ["[%d, %d]:\t\tValue is:%d\n"]
    orig = "start\n[0, 0]:\t\tValue is:10\n[1, 0]:\t\tValue is:10\nhost line\n[2, 0]:\t\tValue is:10\ndone\n"
    swapped = "start\n[1, 0]:\t\tValue is:10\n[0, 0]:\t\tValue is:10\nhost line\n[2, 0]:\t\tValue is:10\ndone\n"
    assert d.compare(_run_of(orig), _run_of(orig), _run_of(swapped), 1e-3, 1e-5)["status"] == "fail"
    assert d.compare(_run_of(orig), _run_of(orig), _run_of(swapped), 1e-3, 1e-5, device_printf=fmts)["status"] == "pass"
    # A line moved across a host line (another synchronisation), a changed value, a lost line: still differences.
    across = "start\n[0, 0]:\t\tValue is:10\n[2, 0]:\t\tValue is:10\nhost line\n[1, 0]:\t\tValue is:10\ndone\n"
    changed = swapped.replace("[0, 0]:\t\tValue is:10", "[0, 0]:\t\tValue is:11")
    lost = swapped.replace("[0, 0]:\t\tValue is:10\n", "")
    for bad in (across, changed, lost):
        assert d.compare(_run_of(orig), _run_of(orig), _run_of(bad), 1e-3, 1e-5, device_printf=fmts)["status"] == "fail"
    # Host lines keep their order even when they look alike.
    host = "a 1\nb 2\n"
    assert d.compare(_run_of(host), _run_of(host), _run_of("b 2\na 1\n"), 1e-3, 1e-5, device_printf=fmts)["status"] == "fail"


def test_device_line_patterns_match_the_shape_a_format_prints():
    d = _module()
    pats = d.device_line_patterns(["x=%5.2f id=%d name=%s\n", "%u\n", "no newline %d", "two\nlines %x\n"])
    assert [bool(any(p.fullmatch(s) for p in pats)) for s in
            ("x= 1.50 id=-3 name=a b", "17", "two", "lines 1f", "no newline 3", "x=1 id=z name=", "17 18")] == \
        [True, True, True, True, False, False, False]


def test_a_program_seeding_from_the_clock_is_found_and_others_are_not(tmp_path):
    d = _module()
    (tmp_path / "a.cu").write_text("int main() {\n  srand((unsigned int)time(NULL));\n  std::mt19937 gen(time(0));\n"
                                   "  seed = (unsigned)time(nullptr);\n}\n")
    (tmp_path / "b.cu").write_text("int main() {\n  srand(2024);\n  time_t t0 = time(NULL);\n  printf(\"%ld\", time(0) - t0);\n}\n")
    found = d.clock_seeds(tmp_path)
    assert [f.split(":")[:2] for f in found] == [["a.cu", "2"], ["a.cu", "3"], ["a.cu", "4"]]
    assert "srand((unsigned int)time(NULL)" in found[0]


def test_throughput_lines_are_timing_lines():
    import re

    d = _module()
    assert re.search(d.TIMING, "Texture fetch rate (Mpix/s) for pitch linear: 1.88e+03; for array: 1.93e+03")
    assert re.search(d.TIMING, "Throughput = 12.5 GFlop/s")
    assert re.search(d.TIMING, "average runtime (100 runs):    0.000888 s")  # HeCBench gc's
    assert not re.search(d.TIMING, "Result native operators : 641277.000000")
    assert re.search(d.TIMING, "Gigaoptions per second    : 244.741873")  # cuda-samples BlackScholes
    from vado.verify.differential import TIMING_LINES

    assert d.TIMING == TIMING_LINES  # one pattern with vado verify's differential runs


def test_the_time_shim_pins_time_for_a_run_and_only_for_it(tmp_path):
    import shutil
    import subprocess

    import pytest

    d = _module()
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        pytest.skip("no C compiler here")
    lib = d._fixed_time_shim(tmp_path)
    assert lib is not None and lib.is_file()
    prog = tmp_path / "p"
    prog.mkdir()
    (tmp_path / "seed.c").write_text('#include <stdio.h>\n#include <stdlib.h>\n#include <time.h>\n'
                                     'int main(void) { time_t t = time(NULL); srand((unsigned)t); '
                                     'printf("%ld %d\\n", (long)t, rand()); return 0; }\n')
    subprocess.run([cc, "-O1", "-o", str(prog / "vado-main"), str(tmp_path / "seed.c")], check=True)
    pinned = [d._run(prog, "", 30, lib)["stdout"] for _ in range(2)]
    assert pinned[0] == pinned[1] and pinned[0].startswith("1700000000 ")
    assert not d._run(prog, "", 30)["stdout"].startswith("1700000000 ")


def test_an_original_whose_own_check_fails_is_no_baseline():
    # HeCBench bscan's original passes __ballot_sync a mask without the calling lane (lanemask_lt): on an H200 it
    # prints "verify = FAIL" and breaks out of its repetitions, where vado's port passes every one. A port that
    # printed the same FAIL would have "passed" the comparison; neither output is evidence, the port's own check is.
    d = _module()
    orig = "Block size = 64, ratio of valid elements = 0.49, verify = FAIL\n"
    port = ("Block size = 64, ratio of valid elements = 0.49, verify = PASS\nAverage execution time: 3.1 (us)\n")
    verdict = d.compare(_run_of(orig), _run_of(orig), _run_of(port), 1e-3, 1e-5)
    assert verdict == {"status": "original-failed", "why": "the original's own check fails: " + orig.strip(),
                       "port_own_check": "passed"}
    assert d.compare(_run_of(orig), _run_of(orig), _run_of(orig), 1e-3, 1e-5)["port_own_check"] == "failed"
    timed_out = {**_run_of(""), "timed_out": True}
    assert d.compare(_run_of(orig), _run_of(orig), timed_out, 1e-3, 1e-5)["port_own_check"] == "timed out"
    # words that only contain the letters, and a passing original, are compared as before
    assert d.own_check_failed(_run_of("FAILSAFE mode off\nPASS\n")) is None
    assert d.compare(_run_of(port), _run_of(port), _run_of(port), 1e-3, 1e-5)["status"] == "pass"
