"""``vado verify OUT``: prove a port with real toolchains (compile per arch, Triton, differential runs)."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

FORMATS = ("text", "json")


def _shapes(text: str) -> tuple[int | None, ...]:
    if text.strip().lower() in ("", "none"):
        return (None,)
    out = []
    for part in text.split(","):
        part = part.strip()
        if part:
            out.append(int(part, 0))
    return tuple(out)


def verify(
    out: Path = typer.Argument(..., help="The ported tree (what `vado port -o` wrote)."),
    arch: str = typer.Option("gfx90a,gfx942", "--arch", "-a", help="Offload targets, comma-separated."),
    original: Optional[Path] = typer.Option(None, "--original", help="The CUDA tree the port came from (maps errors, builds the original)."),
    target: Optional[str] = typer.Option(None, "--target", "-t", help="Target profile for finding codes (default: hip-5.2 for HIP 5.x, else rocm-7.2)."),
    hipcc: Optional[str] = typer.Option(None, "--hipcc", help="hipcc to use (default: $VADO_HIPCC, PATH, /opt/rocm/bin)."),
    nvcc: Optional[str] = typer.Option(None, "--nvcc", help="nvcc to use (default: $VADO_NVCC, PATH, /usr/local/cuda/bin)."),
    python: Optional[str] = typer.Option(None, "--python", help="Interpreter with Triton (default: $VADO_PYTHON or this one)."),
    compile_units: bool = typer.Option(True, "--compile/--no-compile", help="Compile the port's translation units."),
    triton: bool = typer.Option(True, "--triton/--no-triton", help="Compile the Triton kernels found in Python files."),
    flag: Optional[list[str]] = typer.Option(None, "--flag", help="Extra compiler flag (repeatable)."),
    run: Optional[str] = typer.Option(None, "--run", help="Differential run command, e.g. '{bin} {n}' ({bin}, {n}, {out})."),
    compare: str = typer.Option("stdout", "--compare", help="stdout, files or numpy."),
    rtol: float = typer.Option(0.0, "--rtol", help="Relative tolerance."),
    atol: float = typer.Option(0.0, "--atol", help="Absolute tolerance."),
    ulp: Optional[int] = typer.Option(None, "--ulp", help="Largest distance in units in the last place."),
    nan_differs: bool = typer.Option(False, "--nan-differs", help="Treat NaN as unequal to NaN."),
    ignore_lines: Optional[str] = typer.Option(None, "--ignore-lines", help="Regex: stdout lines to leave out (timings)."),
    shapes: str = typer.Option("63,64,65,4097,1048576", "--shapes", help="Problem sizes for {n}; 'none' for one round."),
    original_bin: Optional[Path] = typer.Option(None, "--original-bin", help="Use this binary as the original (no build)."),
    port_bin: Optional[Path] = typer.Option(None, "--port-bin", help="Use this binary as the port (no build)."),
    oracle_bin: Optional[Path] = typer.Option(None, "--oracle-bin", help="A float64 reference program run with the same command."),
    inputs: Optional[Path] = typer.Option(None, "--inputs", help="Directory copied into each run's working directory."),
    platform: str = typer.Option("auto", "--platform", help="Build the port for amd, nvidia (HIP on NVIDIA) or auto (the GPU present)."),
    nvcc_arch: str = typer.Option("native", "--nvcc-arch", help="nvcc -arch for the original (and HIP on NVIDIA)."),
    hip_include: Optional[Path] = typer.Option(None, "--hip-include", help="Directory holding hip/nvidia_detail/ for HIP on NVIDIA."),
    require_gpu: bool = typer.Option(False, "--require-gpu", help="Fail (exit 1) when the run step is skipped for want of a GPU."),
    timeout: Optional[float] = typer.Option(None, "--timeout", help="Seconds per subprocess (default 300 compile, 120 run)."),
    jobs: int = typer.Option(1, "--jobs", "-j", min=1, help="Parallel compiles."),
    format: str = typer.Option("text", "--format", "-f", help="text or json."),
    report: Optional[Path] = typer.Option(None, "--report", help="Write the report here instead of stdout."),
    no_cache: bool = typer.Option(False, "--no-cache", help="Probe offload targets again instead of reading the cache."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No summary on stderr."),
) -> None:
    """Verify a port: compile every unit per offload target, compile Triton kernels, run original and port.

    Exit codes: 0 everything verified passed, 1 failures (or unsupported targets), 2 usage error, 3 tool failure.
    """
    from vado.cli.terminal import get_terminal
    from vado.errors import VadoError

    term = get_terminal(quiet=quiet)
    if format not in FORMATS:
        term.error(f"unknown format {format!r}", f"choose one of: {', '.join(FORMATS)}")
        raise typer.Exit(2)
    archs = [a.strip() for a in arch.split(",") if a.strip()]
    if not archs:
        term.error("no offload target", "pass --arch gfx90a,gfx942")
        raise typer.Exit(2)
    if platform not in ("auto", "amd", "nvidia"):
        term.error(f"unknown platform {platform!r}", "use --platform amd, nvidia or auto")
        raise typer.Exit(2)
    if bool(original_bin) != bool(port_bin) and run:
        term.error("--original-bin and --port-bin go together", "pass both, or neither to let vado build them")
        raise typer.Exit(2)
    try:
        shape_list = _shapes(shapes)
    except ValueError:
        term.error(f"bad --shapes {shapes!r}", "comma-separated integers, e.g. 63,64,65")
        raise typer.Exit(2)
    try:
        from vado.knowledge.targets import get_target
        from vado.verify.compare import Tolerance
        from vado.verify.run import RunSpec, render_json, render_text
        from vado.verify.run import verify as run_verify

        tgt = get_target(target) if target else None
        if tgt is None:
            from vado.verify.toolchains import find_hipcc, hip_toolchain

            path = find_hipcc(hipcc)
            name = "rocm-7.2"
            if path:
                try:
                    if hip_toolchain(path).hip_version.startswith("5."):
                        name = "hip-5.2"
                except VadoError:
                    pass
            tgt = get_target(name)
        spec = None
        if run:
            spec = RunSpec(
                template=run, mode=compare, tolerance=Tolerance(rtol, atol, ulp, not nan_differs), shapes=shape_list,
                original_bin=str(original_bin) if original_bin else None, port_bin=str(port_bin) if port_bin else None,
                oracle_bin=str(oracle_bin) if oracle_bin else None, inputs=str(inputs) if inputs else None,
                platform=platform, nvcc_arch=nvcc_arch, hip_include=str(hip_include) if hip_include else None,
                require_gpu=require_gpu, ignore_lines=ignore_lines,
            )
            if compare not in ("stdout", "files", "numpy"):
                term.error(f"unknown comparison {compare!r}", "use --compare stdout, files or numpy")
                raise typer.Exit(2)
        result = run_verify(
            out, archs=archs, target=tgt, original=original, hipcc=hipcc, nvcc=nvcc, python=python,
            do_compile=compile_units, do_triton=triton, run=spec, extra_flags=tuple(flag or ()),
            timeout_s=timeout, jobs=jobs, use_cache=not no_cache,
        )
    except VadoError as exc:
        term.error(exc.what + (f": {exc.why}" if exc.why else ""), exc.tip)
        raise typer.Exit(exc.exit_code)
    text = render_text(result) if format == "text" else render_json(result)
    if report:
        report.write_text(text, encoding="utf-8")
    else:
        term.data(text.rstrip("\n"))
    n = len(result.evidence)
    term.info(f"{n} evidence records; verification {'passed' if result.passed else 'failed'}")
    raise typer.Exit(0 if result.passed else 1)
