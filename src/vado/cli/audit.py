"""``vado audit PATH``: inventory every CUDA dependency and give a verdict per target."""

from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import typer

FORMATS = ("text", "json", "sarif", "markdown", "html")


def audit(
    path: Path = typer.Argument(..., help="Directory (or file) to audit."),
    target: Optional[List[str]] = typer.Option(
        None, "--target", "-t", help="Target profile(s); repeat or comma-separate. Default: rocm-7.2, oneapi, scale, zluda."
    ),
    format: str = typer.Option("text", "--format", "-f", help="text, json, sarif, markdown or html."),
    output: Optional[Path] = typer.Option(None, "--output", "-o", help="Write the report here instead of stdout."),
    jobs: int = typer.Option(
        0, "--jobs", "-j", min=0,
        help="Worker processes (default 0: one per CPU; a small tree is checked in one process anyway).",
    ),
    fail_on: str = typer.Option(
        "info", "--fail-on", help="Exit 1 only for findings at or above this severity (info, low, medium, high, critical)."
    ),
    no_gitignore: bool = typer.Option(False, "--no-gitignore", help="Scan files that .gitignore excludes."),
    include_vendored: bool = typer.Option(False, "--include-vendored", help="Scan third_party/, vendor/ and similar."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No summary or progress on stderr."),
) -> None:
    """Audit a tree: every CUDA dependency, its verdict per target, the reason and the effort.

    Exit codes: 0 no findings (at or above --fail-on), 1 findings, 2 usage error, 3 tool failure.
    """
    import os

    from vado.cli.terminal import get_terminal
    from vado.errors import VadoError
    from vado.model import Severity

    term = get_terminal(quiet=quiet)
    if format not in FORMATS:
        term.error(f"unknown format {format!r}", f"choose one of: {', '.join(FORMATS)}")
        raise typer.Exit(2)
    try:
        threshold = Severity.parse(fail_on)
    except ValueError as exc:
        term.error(str(exc))
        raise typer.Exit(2)
    try:
        targets = resolve_targets(target)
    except VadoError as exc:
        term.error(exc.what + (f": {exc.why}" if exc.why else ""), exc.tip)
        raise typer.Exit(exc.exit_code)
    if jobs == 0:
        jobs = os.cpu_count() or 1

    from vado.audit import audit as run_audit
    from vado.report import render

    try:
        with term.progress(None, "auditing") as bar:
            task = bar.add_task("auditing", total=None)

            def progress(done: int, total: int) -> None:
                bar.update(task, completed=done, total=total)

            result = run_audit(
                path,
                targets,
                jobs=jobs,
                respect_gitignore=not no_gitignore,
                include_vendored=include_vendored,
                progress=progress,
            )
    except VadoError as exc:
        term.error(exc.what + (f": {exc.why}" if exc.why else ""), exc.tip)
        raise typer.Exit(exc.exit_code)

    text = render(result, format)
    if output:
        output.write_text(text, encoding="utf-8")
    else:
        term.data(text) if format != "text" else term.data(text.rstrip("\n"))
    stats = result.stats
    term.info(
        f"audited {stats.files_scanned} files ({stats.bytes_scanned / 1e6:.2f} MB) in {stats.duration_s:.2f}s; "
        f"{len(result.findings)} findings, {stats.files_skipped} skipped"
        + (f"; report written to {output}" if output else "")
    )
    failing = [f for f in result.findings if f.severity.rank >= threshold.rank]
    raise typer.Exit(1 if failing else 0)


def resolve_targets(names: Optional[List[str]]):
    """Target profiles from repeated/comma-separated ``--target`` values (default audit set when empty)."""
    from vado.knowledge.targets import default_audit_targets, get_target

    if not names:
        return list(default_audit_targets())
    out = []
    for item in names:
        for name in item.split(","):
            name = name.strip()
            if name:
                t = get_target(name)
                if t not in out:
                    out.append(t)
    return out
