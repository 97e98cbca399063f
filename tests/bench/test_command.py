"""`bench_command` on real CPU programs: a C program compiled here, and Python."""

import shutil
import subprocess
import sys

import pytest

from vado.bench.command import bench_command, objective_value, split_command
from vado.errors import UsageError

C_PROGRAM = r"""
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 100000;
  struct timespec a, b;
  clock_gettime(CLOCK_MONOTONIC, &a);
  volatile double s = 0;
  for (long i = 0; i < n; ++i) s += (double)i * 0.5;
  clock_gettime(CLOCK_MONOTONIC, &b);
  double ms = (b.tv_sec - a.tv_sec) * 1e3 + (b.tv_nsec - a.tv_nsec) / 1e6;
  printf("sum %.1f\n", (double)s);
  printf("loop: %.6f ms\n", ms);
  printf("{\"items_per_s\": %.3f}\n", n / (ms * 1e-3 + 1e-12));
  return 0;
}
"""


@pytest.fixture(scope="module")
def c_program(tmp_path_factory):
    if shutil.which("cc") is None:
        pytest.skip("no C compiler (cc)")
    d = tmp_path_factory.mktemp("prog")
    (d / "loop.c").write_text(C_PROGRAM)
    subprocess.run(["cc", "-O1", str(d / "loop.c"), "-o", str(d / "loop")], check=True)
    return str(d / "loop")


def test_bench_of_a_compiled_c_program(c_program):
    r = bench_command([c_program, "200000"], runs=4, warmup=1, environment=False,
                      metrics=[r"loop_ms=loop: ([0-9.]+) ms", "json:items_per_s"])
    assert r.kind == "command" and r.runs == 4 and r.failures == 0
    assert len(r.wall_s) == 4 and all(w > 0 for w in r.wall_s)
    assert r.wall.min <= r.wall.median <= r.wall.p95 <= r.wall.max
    assert len(r.metrics["loop_ms"]) == 4 and len(r.metrics["items_per_s"]) == 4
    # A time-like name makes lower better; the first metric is the objective by default.
    assert r.objective == "loop_ms" and r.higher_is_better is False
    assert objective_value(r) == r.metric_stats["loop_ms"].median > 0
    # The program's own loop time is part of the process's wall time.
    assert r.metric_stats["loop_ms"].min / 1e3 < r.wall.max


def test_throughput_metric_is_higher_is_better(c_program):
    r = bench_command([c_program, "1000"], runs=2, warmup=0, metrics=["json:items_per_s"], environment=False)
    assert r.objective == "items_per_s" and r.higher_is_better is True


def test_failures_are_counted_not_timed():
    code = "import sys; print('partial'); sys.exit(3)"
    r = bench_command([sys.executable, "-c", code], runs=2, warmup=0, environment=False)
    assert r.failures == 2 and r.wall is None and r.wall_s == ()
    assert r.errors and "partial" in r.errors[0]
    assert objective_value(r) is None


def test_timeout_counts_as_failure():
    r = bench_command([sys.executable, "-c", "import time; time.sleep(5)"], runs=1, warmup=0, timeout_s=0.3,
                      environment=False)
    assert r.failures == 1 and "timed out" in r.errors[0]


def test_env_reaches_the_command_and_string_commands_split():
    r = bench_command(f"{sys.executable} -c \"import os; print('v', os.environ['VADO_T'])\"", runs=1, warmup=0,
                      env={"VADO_T": "41.5"}, metrics=["v=v ([0-9.]+)"], environment=False,
                      objective="v", higher_is_better=True)
    assert r.metrics["v"] == (41.5,)


def test_usage_errors():
    with pytest.raises(UsageError):
        split_command("")
    with pytest.raises(UsageError):
        split_command("echo 'unclosed")
    with pytest.raises(UsageError):
        bench_command(["/nonexistent/prog"], runs=1, warmup=0, environment=False)
    with pytest.raises(UsageError):
        bench_command([sys.executable, "-c", "pass"], runs=1, warmup=0, objective="nope", environment=False)
    with pytest.raises(UsageError):
        bench_command([sys.executable, "-c", "pass"], runs=0, environment=False)


def test_progress_sees_every_run():
    seen = []
    bench_command([sys.executable, "-c", "pass"], runs=2, warmup=1, environment=False,
                  progress=lambda d, t: seen.append((d, t)))
    assert seen == [(1, 3), (2, 3), (3, 3)]
