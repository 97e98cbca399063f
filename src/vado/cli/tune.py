"""``vado tune``: search -D macros, environment variables and run placeholders against a bench objective."""

from __future__ import annotations

from pathlib import Path
from typing import List, Literal, Optional

import typer

from vado.cli.bench import Format


def tune(
    run: str = typer.Option(..., "--run", help="Run command template: {NAME} for parameters, {bin}, {dir}."),
    build: Optional[str] = typer.Option(
        None, "--build", help="Build command template, e.g. 'cc -O2 {DEFINES} prog.c -o {bin}' ({DEFINES}: -DNAME=value …)."),
    param: Optional[List[str]] = typer.Option(
        None, "--param", "-p", help="NAME=v1,v2,… | NAME=lo..hi[:step] | NAME=pow2:lo..hi: a -D macro or placeholder. Repeatable."),
    env: Optional[List[str]] = typer.Option(None, "--env", "-e", help="NAME=values: an environment variable to sweep. Repeatable."),
    metric: Optional[List[str]] = typer.Option(
        None, "--metric", "-m", help="NAME=REGEX or NAME=json:KEY printed by the program (default objective: wall time)."),
    objective: Optional[str] = typer.Option(None, "--objective", help="The series to optimise (default: the first metric)."),
    higher_is_better: Optional[bool] = typer.Option(
        None, "--higher-is-better/--lower-is-better", help="Direction of the objective (default: from its name)."),
    budget: int = typer.Option(32, "--budget", "-b", min=1, help="Configurations to try, the baseline included."),
    strategy: Literal["grid", "random"] = typer.Option("grid", "--strategy", help="Search strategy."),
    seed: int = typer.Option(0, "--seed", help="Seed of the random strategy."),
    runs: int = typer.Option(5, "--runs", "-n", min=1, help="Timed runs per configuration."),
    warmup: int = typer.Option(1, "--warmup", "-w", min=0, help="Untimed runs per configuration (after the check run)."),
    rtol: float = typer.Option(1e-6, "--rtol", help="Relative tolerance when comparing outputs with the baseline's."),
    atol: float = typer.Option(0.0, "--atol", help="Absolute tolerance for the same."),
    ignore_lines: Optional[List[str]] = typer.Option(
        None, "--ignore-lines", help="Regex of output lines left out of the comparison (timings). Repeatable."),
    timeout: float = typer.Option(600.0, "--timeout", help="Seconds per build or run."),
    workdir: Optional[Path] = typer.Option(None, "--workdir", help="Keep every configuration's build here."),
    label: str = typer.Option("", "--label", help="A name for this result."),
    format: Format = typer.Option("text", "--format", "-f", help="Output format."),
    output: Optional[Path] = typer.Option(None, "--output", "-o", help="Write the report here instead of stdout."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress or summary on stderr."),
) -> None:
    """Try configurations (the first value of every parameter is the baseline); keep the best whose output verifies.

    Each configuration is built, run once and its output compared with the baseline's (numbers within
    --rtol/--atol, timing lines left out); only then is it timed. A configuration that changes the results is
    rejected whatever its speed. Exit codes: 0 done, 2 usage error (or the baseline fails), 3 tool failure.
    """
    from vado.bench.tune import parse_param
    from vado.bench.tune import tune as run_tune
    from vado.cli.bench import emit, format_num
    from vado.cli.terminal import get_terminal
    from vado.errors import VadoError

    term = get_terminal(quiet=quiet)
    try:
        params = [parse_param(p) for p in param or ()] + [parse_param(p, "env") for p in env or ()]
        with term.bar("tuning") as bar:
            result = run_tune(run, params, build=build, metrics=tuple(metric or ()), objective=objective,
                              higher_is_better=higher_is_better, runs=runs, warmup=warmup, budget=budget,
                              strategy=strategy, seed=seed, rtol=rtol, atol=atol, ignore_lines=tuple(ignore_lines or ()),
                              timeout_s=timeout, workdir=str(workdir) if workdir else None, label=label, progress=bar)
    except VadoError as exc:
        term.error(exc.what + (f": {exc.why}" if exc.why else ""), exc.tip)
        raise typer.Exit(exc.exit_code)
    emit(term, result, format, output)
    rejected = sum(1 for t in result.trials if not t.accepted)
    cfg = " ".join(f"{k}={v}" for k, v in result.best.config.items())
    term.info(f"{len(result.trials)} configurations, {rejected} rejected; best {cfg}: {result.objective} "
              f"{format_num(result.best.objective)} ({result.gain_pct:+.2f}% vs baseline)")
    raise typer.Exit(0)
