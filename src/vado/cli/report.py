"""``vado report FILE…``: render saved vado JSON results, and compare bench results across devices.

One file is rendered as it is (an audit report through :func:`vado.report.render`;
bench, kernel, serve and tune results through :mod:`vado.bench.render`). Several
bench results (``vado bench … -f json``) are laid side by side with ratios to
the first; several serve results per concurrency level; any other mix is
rendered one after the other.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import List, Literal, Optional, get_args

import typer

from vado.cli.audit import COLOR_HELP, Color

Format = Literal["text", "markdown", "html", "json", "concise", "sarif", "github", "gitlab", "junit"]
#: Formats of audit results only (bench results are text, markdown, html or json).
AUDIT_ONLY = ("concise", "sarif", "github", "gitlab", "junit")
FORMATS = get_args(Format)


def report(
    files: List[Path] = typer.Argument(..., help="JSON results written by vado (audit, bench, serve, tune).",
                                       exists=True, dir_okay=False, readable=True),
    format: Format = typer.Option(
        "text", "--format", "-f",
        help="Output format; an audit result also as concise, sarif, github, gitlab or junit (e.g. a CI job's second view of one audit).",
    ),
    output: Optional[Path] = typer.Option(None, "--output", "-o", help="Write the report here instead of stdout."),
    color: Color = typer.Option("auto", "--color", help=COLOR_HELP),
) -> None:
    """Render vado JSON results; several bench results are compared side by side (ratios vs the first).

    Exit codes: 0 rendered, 2 usage error (unknown format, a file that is no vado result), 3 tool failure.
    """
    from vado.cli.terminal import get_terminal
    from vado.errors import ReportError, VadoError

    term = get_terminal()
    # An audit's text report is coloured as `vado audit` colours it: on a terminal, by the same rules.
    style = term.report_style(color) if format == "text" and not output else None
    try:
        text = render_files(files, format, style=style)
    except VadoError as exc:
        term.error(exc.what + (f": {exc.why}" if exc.why else ""), exc.tip)
        # A file that is no vado result is the caller's mistake, not a failure of the tool.
        raise typer.Exit(2 if isinstance(exc, ReportError) else exc.exit_code)
    if output:
        from vado.cli.terminal import write_output

        write_output(term, output, text)
    else:
        term.data(text.rstrip("\n") if format == "text" else text)


def _load(path: Path):
    """(kind, object): an audit result or a bench-family result."""
    from vado.bench.results import from_document, is_bench_document
    from vado.errors import ReportError

    raw = path.read_bytes()
    try:
        data = json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ReportError(f"cannot read {path}", f"it is not JSON ({exc})", "pass a file vado wrote with --format json") from None
    if is_bench_document(data):
        return data["kind"], from_document(data, str(path))
    if isinstance(data, dict) and "findings" in data and "schema_version" in data:
        from vado.report import load_audit_json

        return "audit", load_audit_json(raw)
    raise ReportError(f"cannot read {path}", "it is JSON but no vado audit, bench, serve or tune result",
                      "pass a file vado wrote with --format json")


def render_files(files: List[Path], format: str, *, style: Optional[dict] = None) -> str:
    """The report of ``files`` in ``format`` (see the module docstring).

    ``style`` (``width``, ``color``; :meth:`vado.cli.terminal.Terminal.report_style`) applies to
    audit results in text: the terminal's width and colour. Without it the text is plain and 100
    columns wide, as a file or a pipe gets it.
    """
    from vado.bench import render as R
    from vado.bench.results import dumps
    from vado.errors import UsageError

    loaded = [_load(p) for p in files]
    kinds = [k for k, _ in loaded]
    if format in AUDIT_ONLY and any(k != "audit" for k in kinds):
        raise UsageError(f"--format {format} renders audit results only", "bench results are text, markdown, html or json",
                         "pass an audit JSON file, or another format")
    if "audit" in kinds:
        from vado.report import CONTEXT_FORMATS, render

        if len(loaded) > 1 and format not in ("text", "markdown", "concise"):
            raise UsageError(f"audit reports are rendered one at a time in {format}", "", "pass one audit file")
        if format in CONTEXT_FORMATS:
            # The audited tree, where it is still on this machine, gives SARIF and CI formats their columns,
            # fingerprints and repository-relative paths.
            from vado.report.sarif import disk_context

            ((_, obj),) = loaded
            return render(obj, format, **disk_context(obj))
        audit_style = style if format == "text" and style else {}
        return "\n".join(render(obj, format, **audit_style) if k == "audit" else R.render(obj, format)
                         for k, obj in loaded)
    objs = [o for _, o in loaded]
    if len(objs) == 1:
        return dumps(objs[0]) if format == "json" else R.render(objs[0], format)
    if all(k in ("command", "kernel") for k in kinds):
        if format == "json":
            return json.dumps(R.compare_data(objs), indent=2) + "\n"
        return R.render_doc(R.compare_doc(objs), format)
    if all(k == "serve" for k in kinds) and format != "json":
        return R.render_doc(R.serve_compare_doc(objs), format)
    if format == "json":
        from vado.bench.results import result_document

        return json.dumps({"kind": "collection", "results": [result_document(o) for o in objs]}, indent=2) + "\n"
    return R.render_doc(R.merge_docs([R.document(o) for o in objs]), format)
