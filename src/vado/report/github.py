"""The ``github`` report: GitHub Actions workflow commands that annotate the lines of a pull request.

One ``::error``/``::warning``/``::notice`` command per finding (critical and high are errors, medium a
warning, low and info notices), with the repository-relative ``file``, ``line``, ``col`` and a ``title``
of code and rule name; the message names the targets for which the finding is work. Errors of the run
become ``::error`` commands without a file, and the last line is one notice with each target's verdict.

This is what ``vado audit --format github`` prints inside a workflow step, and the Action's fallback
when a SARIF upload to code scanning is not available (a private repository without it, a pull request
from a fork). Values are escaped as GitHub's toolkit does (``%``, CR, LF; ``:`` and ``,`` in properties).
"""

from __future__ import annotations

from typing import Any, Callable

from vado.model import Severity
from vado.model.audit import AuditResult
from vado.report._location import Locator, verdict_note
from vado.report._summary import error_line, sorted_findings

_LEVEL = {
    Severity.CRITICAL: "error",
    Severity.HIGH: "error",
    Severity.MEDIUM: "warning",
    Severity.LOW: "notice",
    Severity.INFO: "notice",
}


def escape_data(text: str) -> str:
    """A command's message, escaped (actions/toolkit ``escapeData``)."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """A command's property value, escaped (actions/toolkit ``escapeProperty``)."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def render_github(result: AuditResult, *, repo_root: str | None = None,
                  reader: Callable[[str], Any] | None = None) -> str:
    """``result`` as workflow commands, a line each, ending with a newline (``reader`` is unused: the
    commands need no source text; it is accepted so that every CI format takes the same context)."""
    where = Locator(result, repo_root)
    lines = []
    for f in sorted_findings(result):
        message = f.message + verdict_note(f)
        props = [f"file={escape_property(where.path(f))}"]
        if f.span.line:
            props.append(f"line={f.span.line}")
            if f.span.column:
                props.append(f"col={f.span.column}")
        props.append(f"title={escape_property(f'{f.code} {f.name}')}")
        lines.append(f"::{_LEVEL[f.severity]} {','.join(props)}::{escape_data(message)}")
    for err in result.errors:
        lines.append(f"::error title=vado::{escape_data(error_line(err))}")
    verdicts = "; ".join(f"{tv.target}: {tv.verdict.label}" for tv in result.verdicts)
    summary = f"{len(result.files)} files, {len(result.findings)} findings" + (f"; {verdicts}" if verdicts else "")
    lines.append(f"::notice title=vado audit::{escape_data(summary)}")
    return "\n".join(lines) + "\n"
