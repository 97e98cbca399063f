"""``vado bench CMD``: run a command N times after warm-ups, time it, parse what it prints."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import time
from typing import Callable, Mapping, Sequence

from vado.bench.environment import detect_environment
from vado.bench.metrics import MetricSpec, parse_spec
from vado.bench.stats import summarize
from vado.errors import UsageError
from vado.model.bench import BenchResult

#: Metric names that read as durations: lower is better for them.
_LOWER_IS_BETTER = re.compile(r"(time|latency|elapsed|duration|seconds|(^|_)(ms|us|ns|sec)$|^ttft|^tpot|^itl)", re.I)


def split_command(command: str | Sequence[str]) -> list[str]:
    """A command as an argument list (a string is split like a POSIX shell would)."""
    if isinstance(command, str):
        try:
            args = shlex.split(command)
        except ValueError as exc:
            raise UsageError(f"cannot parse command {command!r}", str(exc), "quote it as a shell would") from None
    else:
        args = list(command)
    if not args:
        raise UsageError("no command to benchmark", "", "pass the command after `vado bench`")
    return args


#: The bytes of a benchmarked command's stdout (its end) and stderr kept for metrics and errors.
MAX_KEPT_OUTPUT = 16 * 2**20


def _run_timed(args: list[str], timeout_s: float, env: dict, cwd) -> subprocess.CompletedProcess:
    """Run one timed command with its output going to temporary files, not into memory
    (a chatty benchmark cannot fill vado's memory), and its whole process group killed
    at the timeout. Raises ``subprocess.TimeoutExpired`` as ``subprocess.run`` does."""
    import signal
    import tempfile

    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=out, stderr=err, env=env, cwd=cwd,
                                start_new_session=True)
        try:
            proc.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except OSError:
                proc.kill()
            proc.wait()
            raise
        texts = []
        for fh in (out, err):
            size = fh.seek(0, os.SEEK_END)
            fh.seek(max(0, size - MAX_KEPT_OUTPUT))
            texts.append(fh.read().decode("utf-8", "replace"))
    return subprocess.CompletedProcess(args, proc.returncode, texts[0], texts[1])


def bench_command(
    command: str | Sequence[str],
    *,
    runs: int = 10,
    warmup: int = 1,
    metrics: Sequence[str] = (),
    objective: str | None = None,
    higher_is_better: bool | None = None,
    timeout_s: float = 600.0,
    env: Mapping[str, str] | None = None,
    cwd: str | None = None,
    label: str = "",
    progress: Callable[[int, int], None] | None = None,
    environment: bool = True,
) -> BenchResult:
    """Time ``command`` ``runs`` times after ``warmup`` untimed runs.

    ``metrics`` are specs for :func:`vado.bench.metrics.parse_spec`; the
    objective defaults to the first metric if any (higher is better unless its
    name says it is a time: ``time``, ``latency``, ``_ms``, ``_us``, ``seconds``…),
    else wall time (lower is better).
    A run that fails or times out is counted in ``failures`` and not timed.
    """
    if runs < 1:
        raise UsageError("--runs must be at least 1")
    args = split_command(command)
    specs: list[MetricSpec] = [parse_spec(m) for m in metrics]
    run_env = dict(os.environ)
    if env:
        run_env.update(env)
    walls: list[float] = []
    values: dict[str, list[float]] = {s.name: [] for s in specs}
    failures = 0
    errors: list[str] = []
    total = warmup + runs
    for i in range(total):
        timed = i >= warmup
        start = time.perf_counter()
        try:
            proc = _run_timed(args, timeout_s, run_env, cwd)
            elapsed = time.perf_counter() - start
            ok = proc.returncode == 0
            tail = (proc.stdout[-2000:] + proc.stderr[-2000:]) if not ok else ""
        except subprocess.TimeoutExpired:
            elapsed, ok, tail = time.perf_counter() - start, False, f"timed out after {timeout_s} s"
            proc = None
        except OSError as exc:
            raise UsageError(f"cannot run {args[0]!r}", exc.strerror or str(exc), "check the command and PATH") from None
        if progress:
            progress(i + 1, total)
        if not timed:
            continue
        if not ok:
            failures += 1
            errors.append(tail.strip())
            continue
        walls.append(elapsed)
        for spec in specs:
            v = spec.parse(proc.stdout)
            if v is not None:
                values[spec.name].append(v)
    if objective is None:
        objective = specs[0].name if specs else "wall_s"
    if higher_is_better is None:
        higher_is_better = objective != "wall_s" and not _LOWER_IS_BETTER.search(objective)
    if objective != "wall_s" and objective not in values:
        raise UsageError(f"objective {objective!r} is not a metric", f"metrics: {', '.join(values) or 'none'}")
    metric_values = {k: tuple(v) for k, v in values.items()}
    return BenchResult(
        kind="command",
        command=tuple(args),
        runs=runs,
        warmup=warmup,
        wall_s=tuple(walls),
        wall=summarize(walls),
        metrics=metric_values,
        metric_stats={k: s for k, v in metric_values.items() if (s := summarize(v)) is not None},
        metric_spec=tuple(metrics),
        objective=objective,
        higher_is_better=higher_is_better,
        failures=failures,
        errors=tuple(errors[:5]),
        environment=detect_environment() if environment else None,
        label=label,
    )


def objective_value(result: BenchResult) -> float | None:
    """The median of the objective series (None when no run produced it)."""
    s = result.objective_stats()
    return s.median if s else None
