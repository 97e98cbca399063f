"""``vado audit PATH...``: inventory every CUDA dependency and give a verdict per target.

Its parameters are declared through :mod:`vado.cli.params` (Typer's calls, recorded):
``vado audit FILE`` starts without importing Typer (:mod:`vado.cli.fastpath`).
"""

from __future__ import annotations

from pathlib import Path
from typing import List, Literal, Optional, get_args

from vado.cli.params import Argument, CommandExit, Option

Format = Literal["text", "concise", "json", "sarif", "markdown", "html", "github", "gitlab", "junit"]
FORMATS = get_args(Format)
#: ``--color``: auto (a terminal, unless NO_COLOR; FORCE_COLOR forces), always, never.
Color = Literal["auto", "always", "never"]
COLOR_HELP = ("Colour the text report: auto (on a terminal, unless NO_COLOR is set; FORCE_COLOR forces it), "
              "always, never.")
BuildMode = Literal["compile-db", "none", "make", "cmake", "auto"]
_SEVERITIES_AND_VERDICTS = "SEVERITY|VERDICT|TARGET:VERDICT"


def audit(
    paths: List[Path] = Argument(..., metavar="PATH", help="Directories or files to audit (several: e.g. the files a pre-commit hook passes)."),
    target: Optional[List[str]] = Option(
        None, "--target", "-t", help="Target profile(s); repeat or comma-separate. Default: rocm-7.2, oneapi, scale, zluda."
    ),
    format: Format = Option(
        "text", "--format", "-f",
        help="Report format; for CI: github (workflow annotations), gitlab (Code Quality JSON), junit (JUnit XML), sarif.",
    ),
    output: Optional[Path] = Option(None, "--output", "-o", help="Write the report here instead of stdout."),
    jobs: int = Option(
        0, "--jobs", "-j", min=0,
        help="Worker processes (default 0: one per CPU; a small tree is checked in one process anyway).",
    ),
    fail_on: Optional[List[str]] = Option(
        None, "--fail-on", metavar=_SEVERITIES_AND_VERDICTS,
        help="Exit 1 for findings at or above a severity (info, low, medium, high, critical), or when a target's "
             "verdict is VERDICT or worse (moves-with-automatic-edits, needs-manual-work, blocked; TARGET:VERDICT "
             "for one target, e.g. rocm-7.2:blocked); repeat for several. Default: info (any finding).",
    ),
    select: Optional[List[str]] = Option(None, "--select", metavar="CODES", help="Only these codes or prefixes (WARP,PTX001); replaces the configuration's select."),
    extend_select: Optional[List[str]] = Option(None, "--extend-select", metavar="CODES", help="Codes or prefixes to add to the selection."),
    ignore: Optional[List[str]] = Option(None, "--ignore", metavar="CODES", help="Codes or prefixes to leave out."),
    per_file_ignores: Optional[List[str]] = Option(None, "--per-file-ignores", metavar="PATTERN:CODES", help="Leave out codes in files matching a gitignore-style pattern (tests/**:WARP)."),
    config: Optional[Path] = Option(None, "--config", metavar="FILE", help="Read settings from this vado.toml or pyproject.toml instead of the discovered one."),
    isolated: bool = Option(False, "--isolated", help="Ignore every configuration file."),
    baseline: Optional[Path] = Option(None, "--baseline", metavar="FILE", help="Leave out findings recorded in this baseline file."),
    write_baseline: Optional[Path] = Option(None, "--write-baseline", metavar="FILE", help="Record every current finding in FILE (then exit 0); later audits with --baseline FILE report only new ones."),
    no_suppressions: bool = Option(False, "--no-suppressions", help="Report findings that `vado: ignore[...]` comments suppress."),
    exit_zero: bool = Option(False, "--exit-zero", help="Exit 0 even when findings or verdicts fail --fail-on (usage errors and tool failures still exit 2 and 3)."),
    statistics: bool = Option(False, "--statistics", help="Count the findings of each code instead of listing them (text, or json with --format json)."),
    add_noqa: bool = Option(False, "--add-noqa", help="Add a `vado: ignore[CODES]` comment at the end of each line that has findings (where a comment is safe there), then exit 0."),
    unused_suppressions: bool = Option(False, "--unused-suppressions", help="List the `vado: ignore` comments that suppress nothing in this audit (exit 1 if any), instead of the findings."),
    no_gitignore: bool = Option(False, "--no-gitignore", help="Scan files that .gitignore excludes."),
    include_vendored: bool = Option(False, "--include-vendored", help="Scan third_party/, vendor/ and similar."),
    include_backends: bool = Option(False, "--include-backends", help="Judge other backends' code too (SYCL, MUSA, Vulkan, Metal, CPU instruction sets)."),
    include_hip_path: bool = Option(False, "--include-hip-path", help="Judge the project's own HIP path for ROCm as CUDA code, as if it had no ROCm build."),
    color: Color = Option("auto", "--color", help=COLOR_HELP),
    build: BuildMode = Option(
        "compile-db", "--build",
        help="How the project's build is read for the configuration judged (which #if branches count): compile-db "
             "(default: a compile_commands.json, CMake File API reply or setup.py already in the tree; runs nothing), "
             "none (read no build: branches as the platform's macros decide them), make (dry-run the Makefiles), "
             "cmake (configure in vado's build directory), auto (compile-db, else cmake or make): the last three "
             "execute the project's build logic in vado's sandbox, and the summary says what ran.",
    ),
    quiet: bool = Option(False, "--quiet", "-q", help="No summary or progress on stderr."),
) -> None:
    """Audit a tree: every CUDA dependency, its verdict per target, the reason and the effort.

    Settings come from the tool.vado table of pyproject.toml or from a vado.toml (found from PATH
    upwards); options given here win. A comment `vado: ignore` on a finding's line suppresses it.

    Exit codes: 0 nothing that --fail-on fails on (or --exit-zero), 1 findings or verdicts that it does, 2 usage error,
    3 tool failure.
    """
    import os

    from vado.cli.terminal import check_output_path, get_terminal
    from vado.errors import KnowledgeError, VadoError

    term = get_terminal(quiet=quiet)

    def fail(exc: VadoError, code: int | None = None) -> CommandExit:
        term.error(exc.what + (f": {exc.why}" if exc.why else ""), exc.tip)
        return CommandExit(code if code is not None else exc.exit_code)

    for p in paths:
        if not p.exists():
            term.error(f"{p} does not exist", "check the path, or run vado from the project's directory")
            raise CommandExit(2)
    try:
        for out in (output, write_baseline):
            if out is not None:
                check_output_path(out)
        from vado.audit.filters import make_filter
        from vado.config import load_config, parse_fail_on

        cfg = load_config(paths[0], explicit=config, isolated=isolated).merged(
            select=select or None,
            extend_select=extend_select or (),
            ignore=ignore or (),
            per_file_ignores=per_file_ignores or (),
            fail_on=fail_on or (),
            baseline=baseline,
            target=target or (),
        )
        targets = resolve_targets(list(cfg.target) or None)
        failure = parse_fail_on(cfg.fail_on or ("info",), [t.name for t in targets])
        base, plan = _plan(paths, respect_gitignore=not no_gitignore, include_vendored=include_vendored)
        # --unused-suppressions sees every finding, so that it can tell which comments matched one.
        filters = make_filter(cfg, base, inline=not (no_suppressions or unused_suppressions),
                              use_baseline=write_baseline is None and not unused_suppressions)
    except KnowledgeError as exc:  # an unknown target name is the caller's mistake
        raise fail(exc, 2)
    except VadoError as exc:
        raise fail(exc)
    if jobs == 0:
        jobs = os.cpu_count() or 1

    from vado.audit import audit as run_audit
    from vado.report import render

    try:
        with term.bar("auditing") as progress:
            result = run_audit(
                base,
                targets,
                jobs=jobs,
                respect_gitignore=not no_gitignore,
                include_vendored=include_vendored,
                include_backends=include_backends,
                include_hip_path=include_hip_path,
                progress=progress,
                filters=filters,
                plan=plan,
                build=build,
            )
    except VadoError as exc:
        raise fail(exc)
    say_build(term, result.build)

    from vado.cli import suppress as S

    if unused_suppressions:
        raise CommandExit(S.report_unused(term, result, filters))
    if add_noqa:
        raise CommandExit(S.add_noqa(term, result))
    if not no_suppressions:
        S.warn_unknown_codes(term, result)

    if write_baseline is not None:
        import json

        from vado.audit.filters import baseline_document

        doc = baseline_document(result, filters.prefix if filters is not None else "")
        _write(term, write_baseline, json.dumps(doc, indent=1) + "\n")
        term.info(f"baseline of {len(doc['findings'])} findings written to {write_baseline}")
        raise CommandExit(0)

    kwargs = {}
    try:
        if statistics:
            from vado.report.statistics import render_statistics

            text = render_statistics(result, "json" if format == "json" else "text")
        else:
            from vado.report import CONTEXT_FORMATS

            if format in CONTEXT_FORMATS:
                from vado.report.sarif import disk_context

                kwargs = disk_context(result)
            elif format == "text" and not output:
                kwargs = term.report_style(color)  # colour and width on a terminal, plain when piped
            text = render(result, format, **kwargs) if kwargs else render(result, format)
    except VadoError as exc:
        raise fail(exc)
    if output:
        _write(term, output, text)
    else:
        term.data(text.rstrip("\n") if format == "text" or statistics else text)
    stats = result.stats
    term.info(
        f"audited {stats.files_scanned} files ({stats.bytes_scanned / 1e6:.2f} MB) in {stats.duration_s:.2f}s; "
        f"{len(result.findings)} findings, {stats.files_skipped} skipped"
        + (f"; report written to {output}" if output else "")
    )
    reasons = failure.failing(result)
    for reason in reasons:
        term.info(f"fail-on: {reason}" + (" (--exit-zero: exit 0)" if exit_zero else ""))
    raise CommandExit(1 if reasons and not exit_zero else 0)


def say_build(term, summary) -> None:
    """The configuration judged, on stderr: where it came from and what vado ran to read it."""
    if summary is None:
        return
    for ran in summary.ran:
        term.info(f"ran the project's build logic to read its build: {ran}")
    if summary.guessed:
        term.info(f"build: {summary.source}; #if branches are judged on the platform's macros only")
    else:
        term.info(f"build: {summary.source} ({summary.units} unit{'s' if summary.units != 1 else ''}, "
                  f"configuration {summary.configuration})"
                  + (f"; {len(summary.not_built)} sources not built by it" if summary.not_built else ""))


def _write(term, path: Path, text: str) -> None:
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        term.error(f"cannot write {path}: {exc.strerror or exc}", "pass -o a file in a directory you can write to")
        raise CommandExit(2)


def _plan(paths: List[Path], *, respect_gitignore: bool, include_vendored: bool):
    """(root, plan): one path is audited as it is (plan None); several are planned under one root.

    The root of several paths is the working directory when they all lie under
    it (a pre-commit hook passes paths relative to the repository's top), else
    their common directory. A named file that vado does not read is passed over.
    """
    import os

    if len(paths) == 1:
        return paths[0], None
    from vado.errors import ScanError
    from vado.scan.discover import ScanPlan, SourceFile, walk
    from vado.model import Skip

    absolute = [os.path.abspath(p) for p in paths]
    cwd = os.getcwd()
    if all(a == cwd or a.startswith(cwd.rstrip(os.sep) + os.sep) for a in absolute):
        base = cwd
    else:
        base = os.path.commonpath([a if os.path.isdir(a) else os.path.dirname(a) for a in absolute])
    files: dict[str, SourceFile] = {}
    skips: dict[str, Skip] = {}
    for a in absolute:
        try:
            sub = walk(a, respect_gitignore=respect_gitignore, include_vendored=include_vendored)
        except ScanError:
            if os.path.isfile(a):
                continue  # not a kind of file vado reads
            raise
        where = a if os.path.isdir(a) else os.path.dirname(a)
        prefix = os.path.relpath(where, base).replace(os.sep, "/")
        prefix = "" if prefix == "." else prefix + "/"
        for sf in sub.files:
            rel = prefix + sf.path
            files[rel] = SourceFile(rel, sf.abs_path, sf.kind, sf.size)
        for sk in sub.skips:
            skips[prefix + sk.path] = Skip(prefix + sk.path, sk.reason, sk.detail)
    return Path(base), ScanPlan(root=Path(base), files=tuple(sorted(files.values())), skips=tuple(sorted(skips.values())))


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
