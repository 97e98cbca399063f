"""``vado verify OUT``: prove a port with real toolchains (compile per arch, Triton, differential runs)."""

from __future__ import annotations

from pathlib import Path
from typing import Literal, Optional, get_args

import typer

Format = Literal["text", "json"]
FORMATS = get_args(Format)


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
    arch: Optional[str] = typer.Option(None, "--arch", "-a", help="Offload targets, comma-separated (default: the target's, gfx942,gfx950 for rocm-7.2)."),
    original: Optional[Path] = typer.Option(None, "--original", help="The CUDA tree the port came from (maps errors, builds the original)."),
    target: Optional[str] = typer.Option(None, "--target", "-t", help="The port's target profile (default rocm-7.2); picks the toolchain and archs."),
    hipcc: Optional[str] = typer.Option(None, "--hipcc", help="hipcc to use (default: $VADO_HIPCC, else the one whose version fits the target: ROCm installs, vado's ROCm chroot, PATH)."),
    allow_old_toolchain: bool = typer.Option(False, "--allow-old-toolchain", help="Compile even with a hipcc older than the target (a loud warning; passes prove little)."),
    nvcc: Optional[str] = typer.Option(None, "--nvcc", help="nvcc to use (default: $VADO_NVCC, PATH, /usr/local/cuda/bin)."),
    python: Optional[str] = typer.Option(None, "--python", help="Interpreter with Triton (default: $VADO_PYTHON or this one)."),
    compile_units: bool = typer.Option(True, "--compile/--no-compile", help="Compile the port's translation units."),
    triton: bool = typer.Option(True, "--triton/--no-triton", help="Compile the Triton kernels found in Python files."),
    flag: Optional[list[str]] = typer.Option(None, "--flag", help="Extra compiler flag (repeatable)."),
    run: Optional[str] = typer.Option(None, "--run", help="Differential run command, e.g. '{bin} {n}' ({bin}, {n}, {out}); for a PyTorch extension 'torch:CALLS.py': both builds' ops called and compared."),
    torch_config: Optional[Path] = typer.Option(None, "--torch-config", help="With --run torch:CALLS.py: the extension's sources, include dirs and flags (JSON; see vado.verify.torch_ext_device). Default: derived from the original's setup.py (read, not run; what it cannot decide is listed)."),
    torch_headers: Optional[Path] = typer.Option(None, "--torch-headers", help="A PyTorch extension: where PyTorch's ROCm headers were assembled (tools/torch_rocm_headers.py --cache-root; default ~/.cache/vado/torch-rocm-headers). Without them its units are 'not checked'."),
    compare: Literal["stdout", "files", "numpy"] = typer.Option("stdout", "--compare", help="What is compared: stdout, output files, or .npy arrays."),
    rtol: float = typer.Option(0.0, "--rtol", help="Relative tolerance."),
    atol: float = typer.Option(0.0, "--atol", help="Absolute tolerance."),
    ulp: Optional[int] = typer.Option(None, "--ulp", help="Largest distance in units in the last place."),
    nan_differs: bool = typer.Option(False, "--nan-differs", help="Treat NaN as unequal to NaN."),
    ignore_lines: Optional[str] = typer.Option(None, "--ignore-lines", help="Regex: stdout lines to leave out (default: timing lines; '' keeps every line)."),
    wave: Literal[32, 64] = typer.Option(32, "--wave", help="On an NVIDIA GPU, run the port with 32-lane warps or AMD's 64-lane waves emulated (64)."),
    original_runs: int = typer.Option(2, "--original-runs", min=1, max=2, help="Runs of the original per round (2: what differs between them is masked)."),
    shapes: str = typer.Option("63,64,65,4097,1048576", "--shapes", help="Problem sizes for {n}; 'none' for one round."),
    original_bin: Optional[Path] = typer.Option(None, "--original-bin", help="Use this binary as the original (no build)."),
    port_bin: Optional[Path] = typer.Option(None, "--port-bin", help="Use this binary as the port (no build)."),
    oracle_bin: Optional[Path] = typer.Option(None, "--oracle-bin", help="A float64 reference program run with the same command."),
    inputs: Optional[Path] = typer.Option(None, "--inputs", help="Directory copied into each run's working directory."),
    platform: Literal["auto", "amd", "nvidia"] = typer.Option("auto", "--platform", help="Build the port for amd, nvidia (HIP on NVIDIA) or auto (the GPU present)."),
    nvcc_arch: str = typer.Option("native", "--nvcc-arch", help="nvcc -arch for the original (and HIP on NVIDIA)."),
    hip_include: Optional[Path] = typer.Option(None, "--hip-include", help="Directory holding hip/nvidia_detail/ for HIP on NVIDIA."),
    require_gpu: bool = typer.Option(False, "--require-gpu", help="Fail (exit 1) when the run step is skipped for want of a GPU."),
    timeout: Optional[float] = typer.Option(None, "--timeout", help="Seconds per subprocess (default 300 compile, 120 run)."),
    jobs: int = typer.Option(0, "--jobs", "-j", min=0, help="Parallel compiles (0: one per CPU)."),
    codegen: Literal["auto", "all", "none"] = typer.Option(
        "auto", "--codegen", help="Code generation: auto (the front end for host and each arch on every unit, "
        "the build's full compile where only code generation can tell: inline asm, target builtins, -Werror), "
        "all (the build's full compile for every unit), none (the front end only). The report says which ran."),
    build: Literal["auto", "cmake", "make", "compile-db", "none"] = typer.Option(
        "auto", "--build", help="How the port's build is read: auto (a compile database or CMake File API reply in "
        "the tree, else configure CMake or dry-run make, which executes the project's build logic; said in the "
        "output), cmake, make, compile-db (only what the tree holds; runs nothing), none (guess)."),
    make_var: Optional[list[str]] = typer.Option(None, "--make-var", help="NAME=VALUE passed to the make dry run (repeatable), e.g. PRECISION=FP32."),
    cmake_arg: Optional[list[str]] = typer.Option(None, "--cmake-arg", help="Argument for the CMake configure step (repeatable), e.g. -DUSE_X=ON."),
    format: Format = typer.Option("text", "--format", "-f", help="Output format."),
    report: Optional[Path] = typer.Option(None, "--report", help="Write the report here instead of stdout."),
    no_cache: bool = typer.Option(False, "--no-cache", help="Compile everything and probe offload targets again instead of reading the caches."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No summary on stderr."),
) -> None:
    """Verify a port: compile every unit per offload target, compile Triton kernels, run original and port.

    On a machine with an NVIDIA GPU and nvcc, `vado verify OUT --original SRC --run '{bin} ARGS' --wave 64`
    is the whole differential: the original built with nvcc, the port with the same nvcc through vado's
    HIP-on-CUDA headers with AMD's 64-lane waves emulated, both run (the original twice), outputs compared.

    What it executes: hipcc on each unit, confined (it sees OUT read-only, the toolchain and a scratch
    directory; --flag -IDIR shows DIR); for a PyTorch extension, PyTorch's own hipify (from the headers
    tools/torch_rocm_headers.py assembled) over a copy of the tree, then each CUDAExtension's units as
    cpp_extension compiles them on ROCm (--torch-headers; without the headers they are 'not checked'); Triton's compiler on kernels vado rebuilds from their syntax (no
    line of the project's Python runs); with --run, the builds and the two programs, unconfined.

    Exit codes: 0 everything verified passed, 1 failures (or unsupported targets), 2 usage error, 3 tool failure.
    """
    from vado.cli.terminal import get_terminal
    from vado.errors import VadoError

    term = get_terminal(quiet=quiet)
    archs = [a.strip() for a in (arch or "").split(",") if a.strip()]
    if arch is not None and not archs:
        term.error("no offload target", "pass --arch gfx942,gfx950")
        raise typer.Exit(2)
    if bool(original_bin) != bool(port_bin) and run:
        term.error("--original-bin and --port-bin go together", "pass both, or neither to let vado build them")
        raise typer.Exit(2)
    make_vars: dict[str, str] = {}
    for item in make_var or ():
        name, eq, value = item.partition("=")
        if not eq or not name.strip():
            term.error(f"bad --make-var {item!r}", "pass NAME=VALUE")
            raise typer.Exit(2)
        make_vars[name.strip()] = value
    try:
        # A command without {n} runs once: the sizes would only repeat the same run.
        shape_list = _shapes(shapes) if (run is None or "{n}" in run) else (None,)
    except ValueError:
        term.error(f"bad --shapes {shapes!r}", "comma-separated integers, e.g. 63,64,65")
        raise typer.Exit(2)
    try:
        from vado.knowledge.targets import get_target
        from vado.verify.compare import Tolerance
        from vado.verify.differential import TIMING_LINES
        from vado.build.read import BuildOptions
        from vado.verify.run import RunSpec, render_json, render_text
        from vado.verify.run import verify as run_verify

        # The port's target decides the toolchain (by version) and the default archs.
        tgt = get_target(target or "rocm-7.2")
        if not archs:
            archs = list(tgt.default_arch)
        spec = None
        if run and run.startswith("torch:"):
            # A PyTorch extension: both builds loaded by torch, their ops called by CALLS.py's cases().
            spec = RunSpec(template="torch", torch_calls=run[len("torch:"):], nvcc_arch=nvcc_arch,
                           torch_config=str(torch_config) if torch_config else None, require_gpu=require_gpu,
                           wave=wave, shapes=(None,))
        elif run:
            spec = RunSpec(
                template=run, mode=compare, tolerance=Tolerance(rtol, atol, ulp, not nan_differs), shapes=shape_list,
                original_bin=str(original_bin) if original_bin else None, port_bin=str(port_bin) if port_bin else None,
                oracle_bin=str(oracle_bin) if oracle_bin else None, inputs=str(inputs) if inputs else None,
                platform=platform, nvcc_arch=nvcc_arch, hip_include=str(hip_include) if hip_include else None,
                require_gpu=require_gpu, ignore_lines=TIMING_LINES if ignore_lines is None else (ignore_lines or None),
                wave=wave, original_runs=original_runs,
            )
        # A bar on stderr over compiles, builds and runs (a terminal only; none for JSON a program reads).
        with term.bar("verifying", enabled=format != "json") as progress:
            result = run_verify(
                out, archs=archs, target=tgt, original=original, hipcc=hipcc, nvcc=nvcc, python=python,
                do_compile=compile_units, do_triton=triton, run=spec, extra_flags=tuple(flag or ()),
                timeout_s=timeout, jobs=jobs, use_cache=not no_cache, allow_old_toolchain=allow_old_toolchain,
                progress=progress, codegen=codegen, torch_headers=torch_headers,
                build=BuildOptions(mode=build, make_vars=make_vars, cmake_args=tuple(cmake_arg or ())),
            )
    except VadoError as exc:
        term.error(exc.what + (f": {exc.why}" if exc.why else ""), exc.tip)
        raise typer.Exit(exc.exit_code)
    text = render_text(result) if format == "text" else render_json(result)
    if report:
        try:
            report.write_text(text, encoding="utf-8")
        except OSError as exc:
            term.error(f"cannot write the report {report}: {exc.strerror or exc}", "check the path and its permissions")
            raise typer.Exit(3)
    else:
        term.data(text.rstrip("\n"))
    n = len(result.evidence)
    for note in result.notes:
        if note.startswith("WARNING: "):
            term.warn(note[len("WARNING: "):])
    not_checked = [e for e in result.evidence if not e.passed and e.detail.get("status") == "not-checked"]
    unchecked_only = bool(not_checked) and len(not_checked) == sum(1 for e in result.evidence if not e.passed)
    term.info(f"{n} evidence records; verification "
              + ("passed" if result.passed else "not done (units not checked)" if unchecked_only else "failed"))
    if unchecked_only:
        term.info(f"next: {len(not_checked)} records not checked (not failed): the report says why and what to run "
                  f"(a torch extension: the command that assembles PyTorch's ROCm headers); then `vado verify {out}` again")
    elif not result.passed:
        term.info(f"next: each error above names the finding at its line (`vado explain CODE` says what to do); "
                  f"fix those lines in {out}, or let `vado agent` propose edits that only verify's pass keeps; then "
                  f"`vado verify {out}` again (units whose files did not change come from the cache)")
    raise typer.Exit(0 if result.passed else 1)
