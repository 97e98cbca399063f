"""`tune` over a real compiled C program's -D parameter; configurations that change results are rejected."""

import shutil
import sys

import pytest

from vado.bench.tune import compare_outputs, configurations, parse_param, tune
from vado.errors import UsageError

# The "work" a configuration reports is BLOCK itself (so the best is known in advance); BLOCK=7 drops the
# tail of the sum (a wrong result) while being the "fastest": tuning must reject it, not keep it.
PROGRAM = r"""
#include <stdio.h>
#ifndef BLOCK
#define BLOCK 16
#endif
int main(void) {
  long n = 100000, s = 0;
  long end = (BLOCK == 7) ? n - 5 : n;
  for (long b = 0; b < end; b += BLOCK)
    for (long i = b; i < b + BLOCK && i < end; ++i) s += i % 1000;
  printf("sum %ld\n", s);
  printf("cost_ms %d\n", BLOCK == 7 ? 1 : 1000 / BLOCK);
  return 0;
}
"""

needs_cc = pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler (cc)")


@pytest.fixture
def program(tmp_path):
    src = tmp_path / "blk.c"
    src.write_text(PROGRAM)
    return src


@needs_cc
def test_tune_keeps_the_best_verified_configuration(program, tmp_path):
    seen = []
    r = tune("{bin}", [parse_param("BLOCK=16,7,32,64,8")], build=f"cc -O1 {{DEFINES}} {program} -o {{bin}}",
             metrics=[r"cost_ms=cost_ms (\d+)"], runs=2, warmup=0, workdir=str(tmp_path / "w"),
             progress=lambda d, t: seen.append(d))
    assert seen == [1, 2, 3, 4, 5]
    by = {t.config["BLOCK"]: t for t in r.trials}
    assert by["7"].accepted is False and "results differ" in by["7"].reason and "49945015" in by["7"].reason
    assert by["7"].bench is None  # never timed
    assert r.baseline.config == {"BLOCK": "16"} and r.baseline.objective == 62
    assert r.best.config == {"BLOCK": "64"} and r.best.objective == 15
    assert r.objective == "cost_ms" and r.higher_is_better is False
    assert r.gain_pct == pytest.approx((62 / 15 - 1) * 100, abs=0.01)
    assert by["64"].build_command[-2:] == ("-o", str(tmp_path / "w" / "cfg003" / "prog"))
    assert "-DBLOCK=64" in by["64"].build_command
    assert r.space_size == 5 and r.tolerance == "rtol=1e-06 atol=0"
    assert r.environment is not None and all(t.bench is None or t.bench.environment is None for t in r.trials)


@needs_cc
def test_tolerance_decides_and_budget_limits(program):
    # With a loose tolerance BLOCK=7's sum (off by 0.01 %) passes; the budget stops after 2 configurations.
    r = tune("{bin}", [parse_param("BLOCK=16,7,64")], build=f"cc -O1 {{DEFINES}} {program} -o {{bin}}",
             metrics=[r"cost_ms=cost_ms (\d+)"], runs=1, warmup=0, budget=2, rtol=1e-3)
    assert len(r.trials) == 2 and r.trials[1].accepted and r.best.config == {"BLOCK": "7"}


@needs_cc
def test_a_configuration_that_does_not_build_is_rejected(program):
    r = tune("{bin}", [parse_param("BLOCK=16,(")], build=f"cc -O1 {{DEFINES}} {program} -o {{bin}}",
             metrics=[r"cost_ms=cost_ms (\d+)"], runs=1, warmup=0)
    assert not r.trials[1].accepted and r.trials[1].reason.startswith("build failed")


def test_env_parameter_and_run_placeholder_without_build():
    code = "import os, sys; n = int(os.environ['VADO_N']); print('v', n * int(sys.argv[1])); print('ok')"
    r = tune(f"{sys.executable} -c {code!r} {{K}}", [parse_param("VADO_N=1,3", "env"), parse_param("K=2,1")],
             metrics=["v=v (\\d+)"], objective="v", higher_is_better=True, runs=1, warmup=0)
    assert [t.config for t in r.trials] == [{"VADO_N": "1", "K": "2"}, {"VADO_N": "1", "K": "1"},
                                            {"VADO_N": "3", "K": "2"}, {"VADO_N": "3", "K": "1"}]
    assert all(t.accepted for t in r.trials)  # the value line is a metric, so it is left out of the comparison
    assert r.best.config == {"VADO_N": "3", "K": "2"} and r.best.objective == 6 and r.gain_pct == 200.0


def test_baseline_failure_is_a_usage_error():
    with pytest.raises(UsageError, match="baseline"):
        tune(f"{sys.executable} -c 'import sys; sys.exit(1)' {{X}}", [parse_param("X=1,2")], runs=1)


def test_parse_param_forms():
    assert parse_param("B=32,64").values == ("32", "64")
    assert parse_param("B=1..4").values == ("1", "2", "3", "4")
    assert parse_param("B=0..10:5").values == ("0", "5", "10")
    assert parse_param("B=pow2:32..256").values == ("32", "64", "128", "256")
    assert parse_param("E=a,b", "env").where == "env"
    for bad in ("noequals", "1X=3", "B="):
        with pytest.raises(UsageError):
            parse_param(bad)


def test_configurations_grid_random_and_budget():
    ps = [parse_param("A=1,2,3"), parse_param("B=x,y")]
    grid = configurations(ps, "grid", 100, 0)
    assert len(grid) == 6 and grid[0] == {"A": "1", "B": "x"}
    rnd = configurations(ps, "random", 4, 1)
    assert rnd[0] == grid[0] and len(rnd) == 4 and len({tuple(c.values()) for c in rnd}) == 4
    assert rnd == configurations(ps, "random", 4, 1)
    with pytest.raises(UsageError):
        configurations(ps, "annealing", 4, 0)
    with pytest.raises(UsageError):
        configurations([], "grid", 4, 0)
    with pytest.raises(UsageError):
        configurations(ps, "grid", 0, 0)


def test_output_comparison_is_verifys():
    import re

    ign = [re.compile(r"^time")]
    assert compare_outputs("x 1.0\ntime 5\n", "x 1.0000001\ntime 9\n", ign, rtol=1e-6).passed
    c = compare_outputs("x 1.0\n", "x 1.1\n", ign, rtol=1e-6)
    assert not c.passed and c.mismatches == 1
    assert not compare_outputs("a\nb\n", "a\n", ign).passed
