"""``vado bench``: time a command, a kernel, or an inference server under load.

``vado bench CMD ARGS…`` is ``vado bench run CMD ARGS…``: a first argument that
is not a subcommand name goes to ``run``. Options come before the command;
everything after the command's name is the command's.
"""

from __future__ import annotations

from pathlib import Path
from typing import List, Literal, Optional, get_args

import typer
from typer.core import TyperGroup

Format = Literal["text", "json", "markdown", "html"]
FORMATS = get_args(Format)
Compiler = Literal["nvcc", "hipcc", "hip-nvidia"]


class DefaultGroup(TyperGroup):
    """A group whose first argument, when it is not a subcommand, is handed to the ``run`` subcommand."""

    default_command = "run"

    def parse_args(self, ctx, args):
        if args and args[0] not in self.commands and args[0] not in ctx.help_option_names:
            args = [self.default_command, *args]
        return super().parse_args(ctx, args)


bench = typer.Typer(
    cls=DefaultGroup,
    name="bench",
    help="Time a command (the default), a CUDA/HIP kernel, or an OpenAI-compatible inference server.",
    no_args_is_help=True,
    add_completion=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def emit(term, result, format: str, output: Optional[Path]) -> None:
    """Write ``result`` in ``format`` to ``output`` or stdout (the JSON is what `vado report` reads)."""
    from vado.bench.render import render
    from vado.bench.results import dumps

    text = dumps(result) if format == "json" else render(result, format)
    if output:
        from vado.cli.terminal import write_output

        write_output(term, output, text)
    else:
        term.data(text.rstrip("\n") if format == "text" else text)


@bench.command("run", context_settings={"allow_interspersed_args": False})
def run(
    command: List[str] = typer.Argument(..., help="The command to time, with its arguments.", metavar="CMD [ARGS]..."),
    runs: int = typer.Option(10, "--runs", "-n", min=1, help="Timed runs."),
    warmup: int = typer.Option(1, "--warmup", "-w", min=0, help="Untimed runs before them."),
    metric: Optional[List[str]] = typer.Option(
        None, "--metric", "-m",
        help="A number the program prints: NAME=REGEX (first group) or NAME=json:KEY (a JSON line). Repeatable."),
    objective: Optional[str] = typer.Option(None, "--objective", help="The series to optimise (default: the first metric, else wall_s)."),
    higher_is_better: Optional[bool] = typer.Option(
        None, "--higher-is-better/--lower-is-better", help="Direction of the objective (default: from its name)."),
    timeout: float = typer.Option(600.0, "--timeout", help="Seconds per run."),
    env: Optional[List[str]] = typer.Option(None, "--env", "-e", help="NAME=VALUE set for the command. Repeatable."),
    label: str = typer.Option("", "--label", help="A name for this result in comparisons (default: the device)."),
    format: Format = typer.Option("text", "--format", "-f", help="Output format."),
    output: Optional[Path] = typer.Option(None, "--output", "-o", help="Write the report here instead of stdout."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress or summary on stderr."),
) -> None:
    """Run CMD --runs times after --warmup runs; report min/median/p95/variance of wall time and metrics.

    Exit codes: 0 every run succeeded, 1 some run failed, 2 usage error, 3 tool failure.
    """
    from vado.bench.command import bench_command
    from vado.cli.terminal import get_terminal
    from vado.errors import VadoError

    term = get_terminal(quiet=quiet)
    env_map = {}
    for item in env or ():
        name, sep, value = item.partition("=")
        if not sep or not name:
            term.error(f"bad --env {item!r}", "write NAME=VALUE")
            raise typer.Exit(2)
        env_map[name] = value
    try:
        with term.bar("benchmarking") as bar:
            result = bench_command(command, runs=runs, warmup=warmup, metrics=tuple(metric or ()), objective=objective,
                                   higher_is_better=higher_is_better, timeout_s=timeout, env=env_map, label=label,
                                   progress=bar)
    except VadoError as exc:
        term.error(exc.what + (f": {exc.why}" if exc.why else ""), exc.tip)
        raise typer.Exit(exc.exit_code)
    emit(term, result, format, output)
    s = result.objective_stats()
    term.info(f"{result.runs} runs, {result.failures} failed; {result.objective} median "
              f"{'-' if s is None else format_num(s.median)}")
    raise typer.Exit(1 if result.failures else 0)


def format_num(x: float) -> str:
    """A number as the reports write it."""
    from vado.bench.render import num

    return num(x)


def _shapes(items: Optional[List[str]]) -> dict[str, str]:
    out = {}
    for item in items or ():
        name, sep, value = item.partition("=")
        if not sep or not name.strip() or not value.strip():
            from vado.errors import UsageError

            raise UsageError(f"bad --shape {item!r}", "", "write --shape NAME=VALUE, e.g. --shape width=8192")
        out[name.strip()] = value.strip()
    return out


@bench.command("kernel")
def kernel(
    file: Path = typer.Argument(..., help="CUDA or HIP source holding the kernel (the original, or a port)."),
    kernel_name: Optional[str] = typer.Option(None, "--kernel", "-k", help="Kernel name (needed when the file has several)."),
    n: int = typer.Option(1 << 24, "--n", min=1, help="Elements per buffer; integer parameters get n unless --shape names them."),
    shape: Optional[List[str]] = typer.Option(None, "--shape", help="NAME=VALUE for an integer parameter or a grid expression. Repeatable."),
    block: int = typer.Option(256, "--block", min=1, help="Threads per block (the VADO_BLOCK macro)."),
    grid: Optional[str] = typer.Option(None, "--grid", help="Blocks per launch, a C expression of n, VADO_BLOCK and shapes."),
    bytes_expr: Optional[str] = typer.Option(None, "--bytes", help="Bytes moved per launch (C expression; default: read once, write once)."),
    flops_expr: Optional[str] = typer.Option(None, "--flops", help="Floating-point operations per launch (C expression)."),
    iters: int = typer.Option(50, "--iters", min=1, help="Timed launches."),
    warmup: int = typer.Option(5, "--warmup", min=0, help="Untimed launches first."),
    compiler: Optional[Compiler] = typer.Option(None, "--compiler", help="Compiler (default: the one for the GPU here)."),
    arch: Optional[str] = typer.Option(None, "--arch", help="sm_90, gfx942 … (default: the GPU's)."),
    template_args: str = typer.Option("", "--template-args", help="Template arguments for a templated kernel."),
    compare: Optional[Path] = typer.Option(None, "--compare", help="A port of FILE: time both here and compare their outputs."),
    compare_compiler: Optional[Compiler] = typer.Option(None, "--compare-compiler", help="Compiler for the --compare file."),
    rtol: float = typer.Option(1e-6, "--rtol", help="Relative tolerance for the checksums of --compare."),
    peak_gbs: Optional[float] = typer.Option(None, "--peak-gbs", help="Memory bandwidth ceiling (default: knowledge base)."),
    peak_tflops: Optional[float] = typer.Option(None, "--peak-tflops", help="Arithmetic ceiling (default: knowledge base)."),
    precision: Literal["fp32", "bf16"] = typer.Option("fp32", "--precision", help="Which datasheet peak the FLOP rate is set against."),
    measure_peak: bool = typer.Option(False, "--measure-peak", help="Measure the copy bandwidth and use it as the ceiling."),
    build_only: bool = typer.Option(False, "--build-only", help="Write and compile the driver (-c); do not run it."),
    workdir: Optional[Path] = typer.Option(None, "--workdir", help="Keep the driver and binary here."),
    timeout: float = typer.Option(600.0, "--timeout", help="Seconds per build or run."),
    label: str = typer.Option("", "--label", help="A name for this result in comparisons."),
    format: Format = typer.Option("text", "--format", "-f", help="Output format."),
    output: Optional[Path] = typer.Option(None, "--output", "-o", help="Write the report here instead of stdout."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No summary on stderr."),
) -> None:
    """Time one kernel with device events at the given shapes; set it against the device's roofline.

    With --compare PORT, the original and its port are timed by the same driver on this device and their
    checksums compared. Exit codes: 0 done (and outputs match), 1 outputs differ, 2 usage error, 3 tool failure.
    """
    from vado.bench import kernel as K
    from vado.cli.terminal import get_terminal
    from vado.errors import VadoError

    term = get_terminal(quiet=quiet)
    try:
        opts = dict(kernel=kernel_name, n=n, block=block, grid=grid, iters=iters, warmup=warmup, bytes_expr=bytes_expr,
                    flops_expr=flops_expr, shapes=_shapes(shape), arch=arch, template_args=template_args,
                    measure_peak=measure_peak)
        if build_only:
            built = []
            for i, (src, comp) in enumerate(((file, compiler), (compare, compare_compiler))):
                if src is None:
                    continue
                wd = str(workdir / ("original" if i == 0 else "port")) if workdir else None
                b = K.prepare_driver(str(src), compiler=comp, compile_only=True, workdir=wd, **opts)
                secs = K.build_driver(b, timeout)
                built.append(f"{b.kernel.name} ({src}): built with {b.compiler} in {secs:.1f}s: {b.exe}")
            term.data("\n".join(built))
            raise typer.Exit(0)
        run_opts = dict(timeout_s=timeout, peak_gbs=peak_gbs, peak_tflops=peak_tflops, precision=precision, **opts)
        if compare is not None:
            result = K.compare_kernels(str(file), str(compare), original_compiler=compiler, port_compiler=compare_compiler,
                                       rtol=rtol, **run_opts)
        else:
            result = K.bench_kernel(str(file), compiler=compiler, label=label, workdir=str(workdir) if workdir else None,
                                    **run_opts)
    except VadoError as exc:
        term.error(exc.what + (f": {exc.why}" if exc.why else ""), exc.tip)
        raise typer.Exit(exc.exit_code)
    emit(term, result, format, output)
    if compare is not None:
        term.info(f"port is {format_num(result.speedup)}x the original's speed; outputs "
                  f"{'match' if result.outputs_match else 'DIFFER: ' + result.mismatch}")
        raise typer.Exit(0 if result.outputs_match else 1)
    s = result.objective_stats()
    term.info(f"{result.detail.get('kernel')}: median {format_num(s.median) if s else '-'} ms over {result.runs} launches")
    raise typer.Exit(0)


@bench.command("serve")
def serve(
    url: str = typer.Option(..., "--url", help="Base URL of the OpenAI-compatible server, e.g. http://127.0.0.1:8000."),
    model: Optional[str] = typer.Option(None, "--model", help="Model id (default: the first of /v1/models)."),
    concurrency: str = typer.Option("1,4,16", "--concurrency", "-c", help="Concurrency levels, comma-separated."),
    requests: int = typer.Option(32, "--requests", "-n", min=1, help="Requests per level."),
    prompt_len: str = typer.Option("uniform:16-64", "--prompt-len", help="Prompt words: N, fixed:N, uniform:A-B, normal:MEAN,SD."),
    output_len: str = typer.Option("fixed:32", "--output-len", help="max_tokens per request, same forms."),
    endpoint: Literal["completions", "chat"] = typer.Option("completions", "--endpoint", help="OpenAI API endpoint."),
    seed: int = typer.Option(0, "--seed", help="Seed of the prompt and length draws."),
    warmup: int = typer.Option(1, "--warmup", min=0, help="Untimed requests before the first level."),
    timeout: float = typer.Option(120.0, "--timeout", help="Seconds per request."),
    level_budget: float = typer.Option(300.0, "--level-budget", help="Seconds per level; requests not sent by then are skipped."),
    api_key: Optional[str] = typer.Option(None, "--api-key", envvar="VADO_API_KEY", help="Bearer token (or $VADO_API_KEY)."),
    label: str = typer.Option("", "--label", help="A name for this result in comparisons."),
    format: Format = typer.Option("text", "--format", "-f", help="Output format (markdown and html with plots)."),
    output: Optional[Path] = typer.Option(None, "--output", "-o", help="Write the report here instead of stdout."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress or summary on stderr."),
) -> None:
    """Load-test an inference server: TTFT, TPOT, ITL, requests/s and tokens/s per concurrency level.

    Exit codes: 0 no request failed, 1 some failed, 2 usage error, 3 tool failure or the server stopped
    answering during the run (what was measured before is still reported).
    """
    from vado.bench.serve import bench_serve
    from vado.cli.terminal import get_terminal
    from vado.errors import VadoError

    term = get_terminal(quiet=quiet)
    try:
        levels = [int(c) for c in concurrency.split(",") if c.strip()]
    except ValueError:
        term.error(f"bad --concurrency {concurrency!r}", "comma-separated positive integers, e.g. 1,4,16")
        raise typer.Exit(2)
    try:
        with term.bar("requests") as bar:
            result = bench_serve(url, model=model, concurrency=levels, requests_per_level=requests,
                                 prompt_len=prompt_len, output_len=output_len, endpoint=endpoint, seed=seed,
                                 timeout_s=timeout, level_time_budget_s=level_budget, api_key=api_key,
                                 warmup_requests=warmup, label=label, progress=bar)
    except VadoError as exc:
        term.error(exc.what + (f": {exc.why}" if exc.why else ""), exc.tip)
        raise typer.Exit(exc.exit_code)
    emit(term, result, format, output)
    errors = sum(lv.errors for lv in result.levels)
    if result.levels:
        best = max(result.levels, key=lambda lv: lv.output_tokens_per_s)
        term.info(f"{sum(lv.requests for lv in result.levels)} requests, {errors} failed; best "
                  f"{format_num(best.output_tokens_per_s)} output tokens/s at concurrency {best.concurrency}")
    if result.stopped:
        # The report above holds what was measured before; the run itself could not finish.
        term.error(result.stopped, "check the server's log and `dmesg` for a crash, restart the server and run again")
        raise typer.Exit(3)
    raise typer.Exit(1 if errors else 0)
