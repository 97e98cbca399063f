"""``vado port PATH -o OUT``: an automatic CUDA→HIP port of a whole tree."""

from __future__ import annotations

from pathlib import Path
from typing import Literal, Optional, get_args

import typer

Format = Literal["text", "json", "concise", "sarif", "markdown", "html", "github", "gitlab", "junit"]
FORMATS = get_args(Format)


def port(
    path: Path = typer.Argument(..., help="Directory (or file) to port."),
    output: Optional[Path] = typer.Option(None, "--output", "-o", help="New directory for the ported tree."),
    target: str = typer.Option("rocm-7.2", "--target", "-t", help="Target profile (rocm-7.2, rocm-6.4, hip-5.2)."),
    in_place: bool = typer.Option(False, "--in-place", help="Rewrite PATH itself (keeps a backup of every changed file)."),
    backup: bool = typer.Option(True, "--backup/--no-backup", help="With --in-place: keep <file>.vado-bak copies."),
    launch: Literal["chevron", "ggl"] = typer.Option("chevron", "--launch", help="Kernel launches: chevron (keep <<<>>>) or ggl (hipLaunchKernelGGL)."),
    roc: bool = typer.Option(False, "--roc", help="Use roc* libraries (rocBLAS, rocRAND …) instead of hip* wrappers."),
    unsafe_fixes: bool = typer.Option(False, "--unsafe-fixes", help="Also apply fixes marked unsafe."),
    wave: Literal["warp32", "native"] = typer.Option(
        "warp32", "--wave",
        help="Warps on 64-lane wavefronts: warp32 (keep CUDA's 32-lane warps, safe) or native (rewrite for 64, unsafe fixes).",
    ),
    torch_extension: Literal["auto", "on", "off"] = typer.Option(
        "auto", "--torch-extension",
        help="PyTorch extension mode: keep the CUDA spelling (hipified at build time) and write only the "
        "changes hipify does not make, inside #if defined(USE_ROCM); auto: when setup.py/pyproject uses "
        "CUDAExtension or CMake finds Torch.",
    ),
    build_fixes: Optional[bool] = typer.Option(
        None, "--build-fixes/--no-build-fixes",
        help="Apply build-file fixes marked unsafe (CMake, Make, setup.py, requirements, Dockerfile); "
        "default: on with -o, off with --in-place.",
    ),
    rename_sources: bool = typer.Option(
        False, "--rename-sources", help="Rename .cu sources to .hip and update CMake/Makefile/#include references."
    ),
    include_vendored: bool = typer.Option(
        False, "--include-vendored", help="Also port vendored code (third_party/, dependencies/, submodules, library copies)."
    ),
    include_backends: bool = typer.Option(
        False, "--include-backends", help="Also port code for other backends (SYCL, MUSA, Vulkan, Metal, CPU instruction sets)."
    ),
    include_hip_path: bool = typer.Option(
        False, "--include-hip-path",
        help="Also port the project's own HIP path (its CUDA→HIP vendor header and the sources its ROCm build compiles).",
    ),
    format: Format = typer.Option("text", "--format", "-f", help="Report: text or json of the port, or concise/sarif/markdown/html/github/gitlab/junit of an audit of the port."),
    report: Optional[Path] = typer.Option(None, "--report", help="Write the report here instead of stdout."),
    diff: bool = typer.Option(False, "--diff", help="Show the per-file diffs (text format)."),
    jobs: int = typer.Option(0, "--jobs", "-j", min=0, help="Worker processes (default 0: one per CPU, as audit; a small tree is ported in one process anyway)."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No summary on stderr."),
    force: bool = typer.Option(False, "--force", help="With --in-place --no-backup: rewrite files git does not hold as they are."),
    build: Literal["compile-db", "none", "make", "cmake", "auto"] = typer.Option(
        "compile-db", "--build",
        help="How the project's build is read for the configuration judged (edits land only in the branches it compiles): compile-db "
             "(default: a compile_commands.json, CMake File API reply or setup.py already in the tree; runs nothing), "
             "none (read no build: branches as the platform's macros decide them), make (dry-run the Makefiles), "
             "cmake (configure in vado's build directory), auto (compile-db, else cmake or make): the last three "
             "execute the project's build logic in vado's sandbox, and the summary says what ran.",
    ),
) -> None:
    """Port a CUDA tree to HIP: sources, headers, build files, requirements and Dockerfiles.

    Exit codes: 0 nothing left for humans, 1 findings remain in the port, 2 usage error, 3 tool failure.
    """
    import os

    from vado.cli.terminal import get_terminal
    from vado.errors import VadoError

    term = get_terminal(quiet=quiet)
    if not path.exists():
        term.error(f"{path} does not exist", "check the path, or run vado from the project's directory")
        raise typer.Exit(2)
    if in_place and output is not None:
        term.error("--in-place and --output exclude each other", "pass -o OUT for a new tree, or --in-place to rewrite PATH")
        raise typer.Exit(2)
    if report is not None:
        from vado.cli.terminal import check_output_path

        try:
            check_output_path(report)
        except VadoError as exc:
            term.error(exc.what + (f": {exc.why}" if exc.why else ""), exc.tip)
            raise typer.Exit(2)
    if jobs == 0:
        jobs = os.cpu_count() or 1
    try:
        from vado.knowledge.targets import get_target
        from vado.port.file import PortOptions
        from vado.port.tree import port_tree

        tgt = get_target(target)
        if tgt.family != "rocm":
            term.error(
                f"vado port writes HIP code; {tgt.name} is a {tgt.family} target",
                "use --target rocm-7.2, rocm-6.4 or hip-5.2; `vado audit --target` reports on the others",
            )
            raise typer.Exit(2)
        # A bar on stderr while files are ported (a terminal only; none for JSON a program reads).
        with term.bar("porting", enabled=format != "json") as progress:
            result = port_tree(
                path,
                None if in_place else output,
                tgt,
                in_place=in_place,
                backup=backup,
                options=PortOptions(launch=launch, roc=roc, unsafe=unsafe_fixes, wave=wave,
                                    torch_extension=torch_extension),
                jobs=jobs,
                rename_sources=rename_sources,
                build_fixes=build_fixes,
                include_vendored=include_vendored,
                include_backends=include_backends,
                include_hip_path=include_hip_path,
                progress=progress,
                force=force,
                build=build,
            )
    except VadoError as exc:
        term.error(exc.what + (f": {exc.why}" if exc.why else ""), exc.tip)
        raise typer.Exit(exc.exit_code)
    from vado.port.summary import render_port_json, render_port_text

    if format == "text":
        text = render_port_text(result, width=term.out.width, diffs=diff)
    elif format == "json":
        text = render_port_json(result)
    else:
        from vado.audit import audit as run_audit
        from vado.report import render

        with term.bar("auditing the port") as progress:
            text = render(run_audit(result.out, [tgt], progress=progress), format)
    if report:
        try:
            report.write_text(text, encoding="utf-8")
        except OSError as exc:
            term.error(f"cannot write the report {report}: {exc.strerror or exc}", "check the path and its permissions")
            raise typer.Exit(3)
    else:
        term.data(text.rstrip("\n"))
    report_file = None
    if not in_place:
        from vado.port.summary import render_port_markdown

        try:
            report_file = write_port_report(Path(result.out), render_port_markdown(result, archs=tgt.default_arch))
        except VadoError as exc:
            term.warn(f"the port report was not written: {exc.message}")
    for line in what_next(result, report_file, tgt.default_arch, in_place=in_place):
        term.info(line)
    from vado.cli.audit import say_build

    say_build(term, result.build)
    raise typer.Exit(1 if result.remaining or result.errors else 0)


def write_port_report(out: Path, text: str) -> Path | None:
    """Write ``text`` as ``vado-port-report.md`` in the port's new tree ``out`` and return its path.

    A file of that name in the port (the project's own, or a link) is never written over: the report
    takes the first free name ``vado-port-report-N.md`` instead (None after 99 tries)."""
    from vado.errors import PortError
    from vado.port.apply import write_new
    from vado.port.summary import REPORT_NAME

    stem, _, suffix = REPORT_NAME.rpartition(".")
    for i in range(1, 100):
        path = out / (REPORT_NAME if i == 1 else f"{stem}-{i}.{suffix}")
        try:
            write_new(path, text.encode("utf-8"))
        except PortError as exc:
            if isinstance(exc.__cause__, FileExistsError):
                continue
            raise
        return path
    return None


def what_next(result, report_file: Path | None, archs: tuple[str, ...], *, in_place: bool) -> list[str]:
    """The summary lines on stderr: what was done, then what to do next (verify, review, the rest)."""
    lines = [f"ported {len(result.files)} files ({result.bytes_ported / 1e6:.2f} MB) in {result.duration_s:.2f}s"
             + ("" if in_place else f" into {result.out}")]
    unsafe = sum(len(f.unsafe_applied) for f in result.files)
    where = f"in {report_file}" if report_file else "with `vado port --diff`"
    if unsafe:
        lines.append(f"{unsafe} unsafe fix{'es' if unsafe != 1 else ''} applied: review {'them' if unsafe != 1 else 'it'} "
                     f"and the diffs of their files {where}")
    if result.remaining:
        n = len(result.remaining)
        lines.append(f"{n} finding{'s' if n != 1 else ''} remain{'s' if n == 1 else ''} for a person: "
                     + (f"listed in {report_file}" if report_file else "listed above"))
    failed = sum(1 for f in result.files if f.status == "failed")
    if failed:
        lines.append(f"{failed} file{'s' if failed != 1 else ''} could not be ported: see the report")
    target = f" for {', '.join(archs)}" if archs else ""
    lines.append(f"next: vado verify {result.out}  (compiles the port with the target's hipcc{target})")
    if report_file:
        lines.append(f"report: {report_file}")
    return lines
