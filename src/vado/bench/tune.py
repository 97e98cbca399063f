"""``vado tune``: search a parameter space against a benchmark objective.

A parameter is a compile-time macro (``-D NAME=value`` substituted into the
build command as ``{NAME}`` or gathered in ``{DEFINES}``), an environment
variable, or any placeholder of the run command. Every configuration is built
(when there is a build command) in its own scratch directory, run once untimed
to capture its output, checked against the baseline configuration's output, and
only then timed through :func:`vado.bench.command.bench_command`. A
configuration whose results differ is rejected, never kept, whatever its speed.

The output check is verify's: :func:`vado.verify.compare.compare_text` (numbers
within ``rtol``/``atol``, other tokens exactly). Lines that carry timings are
left out of it first: lines matching ``ignore_lines``, the metric regular
expressions, and (for JSON metrics) lines that are a JSON object.
"""

from __future__ import annotations

import itertools
import os
import random
import re
import shlex
import shutil
import subprocess
import tempfile
import time
from dataclasses import replace
from typing import Callable, Mapping, Sequence

from vado.bench.command import bench_command, objective_value
from vado.bench.environment import detect_environment
from vado.bench.metrics import parse_spec
from vado.errors import UsageError
from vado.model.bench import BenchResult, Param, Trial, TuneResult
from vado.verify.compare import Comparison, Tolerance, compare_text
from vado.verify.sandbox import run_capped

__all__ = ["Param", "Trial", "TuneResult", "comparable_output", "configurations", "compare_outputs", "parse_param", "tune"]


def parse_param(spec: str, where: str = "define") -> Param:
    """``NAME=v1,v2,v3`` or ``NAME=lo..hi[:step]`` / ``NAME=pow2:lo..hi``."""
    name, sep, body = spec.partition("=")
    if not sep or not re.fullmatch(r"[A-Za-z_]\w*", name):
        raise UsageError(f"bad parameter {spec!r}", "", "write NAME=v1,v2,… or NAME=lo..hi[:step] or NAME=pow2:lo..hi")
    values: list[str]
    m = re.fullmatch(r"(pow2:)?(-?\d+)\.\.(-?\d+)(?::(\d+))?", body)
    if m:
        lo, hi = int(m.group(2)), int(m.group(3))
        if m.group(1):
            values = [str(1 << k) for k in range(max(0, lo.bit_length() - 1), hi.bit_length()) if lo <= (1 << k) <= hi]
        else:
            step = int(m.group(4) or 1)
            values = [str(v) for v in range(lo, hi + 1, step)]
    else:
        values = [v.strip() for v in body.split(",") if v.strip()]
    if not values:
        raise UsageError(f"parameter {name} has no values", spec)
    return Param(name, tuple(values), where)


def configurations(params: Sequence[Param], strategy: str, budget: int, seed: int) -> list[dict[str, str]]:
    """Configurations to try, at most ``budget``, the first being the baseline (each parameter's first value).

    ``grid`` walks the space in order; ``random`` samples it without repeats (seeded).
    """
    if not params:
        raise UsageError("no parameters to tune", "", "pass --param NAME=v1,v2 (or --env NAME=…)")
    if budget < 1:
        raise UsageError("--budget must be at least 1", "the baseline is always tried")
    space = list(itertools.product(*(p.values for p in params)))
    configs = [dict(zip((p.name for p in params), combo)) for combo in space]
    baseline = configs[0]
    rest = configs[1:]
    if strategy == "random":
        random.Random(seed).shuffle(rest)
    elif strategy != "grid":
        raise UsageError(f"unknown strategy {strategy!r}", "", "use grid or random")
    return [baseline] + rest[: max(0, budget - 1)]


def comparable_output(text: str, ignore: Sequence[re.Pattern]) -> str:
    """``text`` without the lines matching any ``ignore`` pattern (timings): what verification compares."""
    return "\n".join(line for line in text.splitlines() if not any(p.search(line) for p in ignore))


def compare_outputs(a: str, b: str, ignore: Sequence[re.Pattern], rtol: float = 1e-6, atol: float = 0.0) -> Comparison:
    """How the output ``b`` of a configuration compares with the baseline's ``a`` (truthy: ``.passed``)."""
    return compare_text(comparable_output(a, ignore), comparable_output(b, ignore), Tolerance(rtol, atol), "stdout")


def _fill(template: str, config: Mapping[str, str], extra: Mapping[str, str]) -> str:
    # Values are shell-quoted: the filled template is split like a shell line, and a path with a space
    # (or a value with a quote) must stay one argument.
    values = {k: shlex.quote(v) for k, v in extra.items() if k != "DEFINES"}
    values["DEFINES"] = extra.get("DEFINES", "")
    values.update({k: shlex.quote(v) for k, v in config.items()})
    try:
        return template.format(**values)
    except KeyError as exc:
        raise UsageError(
            f"placeholder {{{exc.args[0]}}} in {template!r} is not a parameter",
            "placeholders are the --param/--env names, {bin}, {dir} and {DEFINES}",
            "name it with --param, or double the braces ({{ }}) to keep them literally",
        ) from None
    except (IndexError, ValueError) as exc:
        raise UsageError(f"cannot fill the template {template!r}", str(exc), "write placeholders as {NAME}") from None


def _split(cmd: str) -> list[str]:
    try:
        args = shlex.split(cmd)
    except ValueError as exc:
        raise UsageError(f"cannot parse command {cmd!r}", str(exc), "quote it as a shell would") from None
    if not args:
        raise UsageError("an empty command template", "", "pass --run TEMPLATE")
    return args


def _ignore_patterns(metrics: Sequence[str], ignore_lines: Sequence[str]) -> list[re.Pattern]:
    out = []
    for p in ignore_lines:
        try:
            out.append(re.compile(p))
        except re.error as exc:
            raise UsageError(f"--ignore-lines {p!r} is not a valid regular expression", str(exc)) from None
    for m in metrics:
        spec = parse_spec(m)
        if spec.pattern is not None:
            out.append(spec.pattern)
        elif spec.json_key:
            out.append(re.compile(r"^\s*\{.*\}\s*$"))
    return out


def tune(
    run: str,
    params: Sequence[Param],
    *,
    build: str | None = None,
    metrics: Sequence[str] = (),
    objective: str | None = None,
    higher_is_better: bool | None = None,
    runs: int = 5,
    warmup: int = 1,
    budget: int = 32,
    strategy: str = "grid",
    seed: int = 0,
    rtol: float = 1e-6,
    atol: float = 0.0,
    ignore_lines: Sequence[str] = (),
    timeout_s: float = 600.0,
    workdir: str | None = None,
    keep: bool = False,
    label: str = "",
    progress: Callable[[int, int], None] | None = None,
) -> TuneResult:
    """Try configurations of ``params`` (the first values are the baseline) and keep the best that verifies.

    ``build`` and ``run`` are command templates with ``{NAME}`` placeholders for
    parameters plus ``{bin}`` (a per-configuration output path) and ``{dir}``
    (its scratch directory). ``define`` parameters also reach ``build`` as
    ``{DEFINES}`` (``-DNAME=value …``); ``env`` parameters are set in the run's
    environment. At most ``budget`` configurations are tried, the baseline
    first. Scratch directories live under ``workdir`` (kept), else in a
    temporary directory removed at the end unless ``keep``.
    """
    if runs < 1:
        raise UsageError("--runs must be at least 1")
    ignore = _ignore_patterns(metrics, ignore_lines)
    configs = configurations(params, strategy, budget, seed)
    space = 1
    for p in params:
        space *= len(p.values)
    by_name = {p.name: p for p in params}
    if len(by_name) != len(params):
        raise UsageError("a parameter is given twice", ", ".join(p.name for p in params))
    root = workdir or tempfile.mkdtemp(prefix="vado-tune-")
    os.makedirs(root, exist_ok=True)
    tolerance = Tolerance(rtol, atol)
    trials: list[Trial] = []
    baseline_out: str | None = None
    try:
        for i, config in enumerate(configs):
            trial = _trial(i, config, root, run, build, by_name, ignore, tolerance, baseline_out, metrics, objective,
                           higher_is_better, runs, warmup, timeout_s)
            if i == 0:
                if not trial[0].accepted:
                    raise UsageError("the baseline configuration " + trial[0].reason, f"configuration {config}",
                                     "fix the --build/--run templates; the first value of every parameter is the baseline")
                baseline_out = trial[1]
            trials.append(trial[0])
            if progress:
                progress(i + 1, len(configs))
    finally:
        if workdir is None and not keep:
            shutil.rmtree(root, ignore_errors=True)
    baseline = trials[0]
    assert baseline.bench is not None
    hib = baseline.bench.higher_is_better
    accepted = [t for t in trials if t.accepted and t.objective is not None]
    best = max(accepted, key=lambda t: t.objective) if hib else min(accepted, key=lambda t: t.objective)
    b, o = baseline.objective, best.objective
    gain = ((o / b - 1) * 100 if hib else (b / o - 1) * 100) if b and o else 0.0
    best_index = trials.index(best)
    environment = baseline.bench.environment
    # The environment is recorded once, on the result; trials would only repeat it.
    trials = [replace(t, bench=replace(t.bench, environment=None)) if t.bench else t for t in trials]
    return TuneResult(
        objective=baseline.bench.objective, higher_is_better=hib, baseline=trials[0],
        best=trials[best_index], trials=tuple(trials), gain_pct=round(gain, 2),
        strategy=strategy, budget=budget, seed=seed, params=tuple(params), run=run, build=build or "",
        tolerance=tolerance.describe(), space_size=space, environment=environment or detect_environment(),
        label=label,
    )


def _trial(i, config, root, run, build, by_name, ignore, tolerance, baseline_out, metrics, objective,
           higher_is_better, runs, warmup, timeout_s) -> tuple[Trial, str]:
    """Build, check and time one configuration; returns its trial and the output it printed."""
    cdir = os.path.join(root, f"cfg{i:03d}")
    os.makedirs(cdir, exist_ok=True)
    defines = " ".join(shlex.quote(f"-D{k}={v}") for k, v in config.items() if by_name[k].where == "define")
    extra = {"bin": os.path.join(cdir, "prog"), "dir": cdir, "DEFINES": defines}
    build_s = 0.0
    build_args: list[str] = []
    if build:
        build_args = _split(_fill(build, config, extra))
        t0 = time.perf_counter()
        try:
            proc = run_capped(build_args, timeout=timeout_s)
        except subprocess.TimeoutExpired:
            return Trial(config, None, False, f"build timed out after {timeout_s:g} s", build_command=tuple(build_args)), ""
        except OSError as exc:
            return Trial(config, None, False, f"build could not start: {exc.strerror or exc}",
                         build_command=tuple(build_args)), ""
        build_s = time.perf_counter() - t0
        if proc.returncode != 0:
            tail = (proc.stderr or proc.stdout).strip()[-500:]
            return Trial(config, None, False, f"build failed (exit {proc.returncode}): {tail}", build_s=build_s,
                         build_command=tuple(build_args)), ""
    env = {k: v for k, v in config.items() if by_name[k].where == "env"}
    run_args = _split(_fill(run, config, extra))
    common = dict(build_s=build_s, build_command=tuple(build_args), run_command=tuple(run_args))
    # One untimed run captures the output that verification compares (it doubles as a warm-up).
    try:
        check = run_capped(run_args, timeout=timeout_s, env=dict(os.environ, **env))
    except subprocess.TimeoutExpired:
        return Trial(config, None, False, f"run timed out after {timeout_s:g} s", **common), ""
    except OSError as exc:
        return Trial(config, None, False, f"run could not start: {exc.strerror or exc}", **common), ""
    if check.returncode != 0:
        tail = (check.stderr or check.stdout).strip()[-300:]
        return Trial(config, None, False, f"run exited {check.returncode}: {tail}", **common), check.stdout
    if baseline_out is not None:
        cmp = compare_outputs(baseline_out, check.stdout, ignore, tolerance.rtol, tolerance.atol)
        if not cmp.passed:
            where = ""
            if cmp.first:
                f = cmp.first[0]
                where = f"; line {f.get('line')}: baseline {f.get('original')!r}, this {f.get('port')!r}"
            what = cmp.problem or f"{cmp.mismatches} of {cmp.elements} values differ, max rel diff {cmp.max_rel:.3g}"
            return Trial(config, None, False, f"results differ from the baseline's ({what}{where})",
                         **common), check.stdout
    result: BenchResult = bench_command(
        run_args, runs=runs, warmup=warmup, metrics=metrics, objective=objective,
        higher_is_better=higher_is_better, timeout_s=timeout_s, env=env, environment=(i == 0),
    )
    value = objective_value(result)
    if value is None:
        why = f"objective {result.objective} missing from every run"
        if result.failures:
            why = f"{result.failures} of {runs} timed runs failed"
        return Trial(config, None, False, why, result, **common), check.stdout
    return Trial(config, value, True, "verified" if baseline_out is not None else "baseline", result, **common), check.stdout
