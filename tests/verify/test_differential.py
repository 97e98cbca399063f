"""The differential runner on real CPU programs (two builds of a C program, Python scripts)."""

import subprocess
import sys

import pytest

from vado.errors import UsageError
from vado.verify.compare import Tolerance
from vado.verify.differential import differential

from _verify_helpers import requires_cc

C_PROGRAM = r"""
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char** argv) {
    int n = atoi(argv[1]);
    double s = 0;
    for (int i = 0; i < n; i++) s += 1.0 / (1.0 + i);
#ifdef DROP_TAIL
    if (n % 64) s -= 1.0 / n;
#endif
    printf("n %d sum %.15g\ntime %d ms\n", n, s, rand() % 100);
    return 0;
}
"""


@pytest.fixture
def c_builds(tmp_path):
    src = tmp_path / "p.c"
    src.write_text(C_PROGRAM)
    bins = {}
    for name, flags in (("o0", ["-O0"]), ("o3", ["-O3"]), ("bug", ["-O2", "-DDROP_TAIL"])):
        bins[name] = str(tmp_path / name)
        subprocess.run(["cc", *flags, str(src), "-o", bins[name]], check=True, timeout=120)
    return bins


@requires_cc
def test_two_real_builds_agree(c_builds):
    rep = differential("{bin} {n}", c_builds["o0"], c_builds["o3"], shapes=(63, 64, 65), ignore_lines="^time")
    assert rep.passed and [r.n for r in rep.rounds] == [63, 64, 65]
    kinds = [e.kind for e in rep.evidence]
    assert kinds.count("run") == 6 and kinds.count("compare") == 3


@requires_cc
def test_a_tail_bug_fails_off_the_wave_boundary(c_builds):
    rep = differential("{bin} {n}", c_builds["o0"], c_builds["bug"], shapes=(63, 64, 65), ignore_lines="^time")
    assert [r.passed for r in rep.rounds] == [False, True, False]
    assert not rep.passed


@requires_cc
def test_timings_differ_without_ignore(c_builds):
    rep = differential("{bin} {n}", c_builds["o0"], c_builds["o0"], shapes=(64,))
    # rand() is seeded the same way in both runs: identical output, even the fake timing line.
    assert rep.passed


def _script(tmp_path, name, body):
    p = tmp_path / name
    p.write_text(body)
    return str(p)


def test_files_mode_sentinels_and_env(tmp_path):
    np = pytest.importorskip("numpy")
    body = (
        "import os, sys, numpy as np\n"
        "n = int(sys.argv[1]); out = sys.argv[2]\n"
        "word = int(os.environ['VADO_SENTINEL'], 16)\n"
        "y = np.full(n, word, dtype=np.uint32).view(np.float32)\n"
        "limit = n if os.environ['VADO_ROLE'] == 'original' or 'GOOD' in sys.argv[0] else n & ~63\n"
        "y[:limit] = np.arange(limit, dtype=np.float32) * float(os.environ['VADO_MAGNITUDE'])\n"
        "np.save(os.path.join(out, 'y.npy'), y)\n"
    )
    orig = _script(tmp_path, "orig.py", body)
    good = _script(tmp_path, "GOOD.py", body)
    bad = _script(tmp_path, "bad.py", body)
    tmpl = f"{sys.executable} {{bin}} {{n}} {{out}}"
    ok = differential(tmpl, orig, good, mode="numpy", shapes=(64, 65))
    assert ok.passed
    assert ok.rounds[-1].magnitude == 1e30 and ok.rounds[0].magnitude == 1.0
    rep = differential(tmpl, orig, bad, mode="numpy", shapes=(63, 64, 65))
    assert [r.passed for r in rep.rounds] == [False, True, False]
    assert "sentinel" in rep.rounds[0].comparisons[0].problem
    assert rep.rounds[0].comparisons[0].sentinels_b == 63


def test_files_mode_without_out_collects_new_files(tmp_path):
    inputs = tmp_path / "in"
    inputs.mkdir()
    (inputs / "data.txt").write_text("3\n")
    body = "import sys\nv = int(open('data.txt').read())\nopen('result.txt', 'w').write(str(v * int(sys.argv[1])))\n"
    a = _script(tmp_path, "a.py", body)
    rep = differential(f"{sys.executable} {{bin}} {{n}}", a, a, mode="files", shapes=(5,), inputs=inputs)
    assert rep.passed and [c.subject for c in rep.rounds[0].comparisons] == ["result.txt"]
    assert (inputs / "data.txt").read_text() == "3\n"  # the inputs were copied, never written


def test_exit_code_mismatch_and_oracle(tmp_path):
    a = _script(tmp_path, "a.py", "print(1.0)\n")
    b = _script(tmp_path, "b.py", "print(1.0)\nraise SystemExit(3)\n")
    rep = differential(f"{sys.executable} {{bin}}", a, b, shapes=(None,))
    assert not rep.passed and rep.rounds[0].comparisons[0].subject == "exit"
    orc = _script(tmp_path, "o.py", "print(1.0000001)\n")
    port = _script(tmp_path, "p.py", "print(1.00000015)\n")
    rep = differential(f"{sys.executable} {{bin}}", a, port, shapes=(None,), oracle_bin=orc,
                       tolerance=Tolerance(rtol=1e-7))
    by = {c.subject: c for c in rep.rounds[0].comparisons}
    # 1.5e-7 from the original is outside rtol, but the port is closer to the float64 oracle.
    assert not by["stdout"].passed and by["oracle"].passed and rep.passed
    worse = _script(tmp_path, "w.py", "print(1.0000005)\n")
    rep = differential(f"{sys.executable} {{bin}}", a, worse, shapes=(None,), oracle_bin=orc,
                       tolerance=Tolerance(rtol=1e-7))
    assert not rep.passed


def test_usage_errors(tmp_path):
    with pytest.raises(UsageError):
        differential("run {n}", "a", "b")
    with pytest.raises(UsageError):
        differential("{bin}", "a", "b", mode="pixels")
    with pytest.raises(UsageError):
        differential("{bin} {nope}", sys.executable, sys.executable, shapes=(None,))


def _py(path, body):
    path.write_text("#!" + sys.executable + "\nimport os, sys, random, time\n" + body)
    path.chmod(0o755)
    return str(path)


def test_paths_and_argv0_are_normalised_and_unstable_tokens_masked(tmp_path):
    body = ('print("usage:", sys.argv[0], "in", os.getcwd())\n'
            'print("seed", random.random(), "sum", 42)\n'
            'print("kernel time", random.random(), "ms")\n')
    a = _py(tmp_path / "a", body)
    b = _py(tmp_path / "b", body)
    rep = differential("{bin}", a, b, shapes=(None,), original_runs=2,
                       ignore_lines=r"(?i)\btime\b")
    assert rep.passed, rep.rounds[0].comparisons
    assert rep.rounds[0].unstable == 1 and rep.evidence[-1].detail["unstable_tokens"] == 1
    assert [e.subject for e in rep.evidence if e.kind == "run"] == ["original", "original-again", "port"]
    # With one run of the original the random token is a difference, and it is named.
    rep1 = differential("{bin}", a, b, shapes=(None,), ignore_lines=r"(?i)\btime\b")
    assert not rep1.passed and rep1.first_difference["line"] == 2 and rep1.first_difference["token"] == 2


def test_a_real_difference_survives_masking(tmp_path):
    a = _py(tmp_path / "a", 'print("seed", random.random(), "sum", 64)\n')
    b = _py(tmp_path / "b", 'print("seed", random.random(), "sum", 32)\n')
    rep = differential("{bin}", a, b, shapes=(None,), original_runs=2)
    assert not rep.passed and not rep.inconclusive
    assert rep.first_difference == {"n": None, "subject": "stdout", "line": 1, "token": 4, "original": "64", "port": "32"}


def test_a_port_that_hangs_is_inconclusive_under_the_emulation(tmp_path):
    from vado.verify.sandbox import Limits

    a = _py(tmp_path / "a", 'print("ok")\n')
    b = _py(tmp_path / "b", 'time.sleep(30)\n')
    limits = Limits(timeout_s=2.0)
    rep = differential("{bin}", a, b, shapes=(None,), limits=limits, timeout_inconclusive=True)
    assert not rep.passed and rep.inconclusive and rep.rounds[0].status == "inconclusive"
    assert "wave-wide cross-lane call" in rep.rounds[0].inconclusive and rep.first_difference is None
    plain = differential("{bin}", a, b, shapes=(None,), limits=limits)
    assert not plain.passed and not plain.inconclusive and plain.rounds[0].status == "fail"


def test_an_original_that_exits_differently_twice_is_inconclusive(tmp_path):
    flip = tmp_path / "flip"
    a = _py(tmp_path / "a", f'p = {str(flip)!r}\nfirst = not os.path.exists(p)\nopen(p, "w").close()\n'
                                'sys.exit(0 if first else 3)\n')
    rep = differential("{bin}", a, a, shapes=(None,), original_runs=2)
    assert rep.inconclusive and "not deterministic" in rep.rounds[0].inconclusive
