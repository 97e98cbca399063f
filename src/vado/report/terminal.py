"""The terminal report: rich tables rendered to a string, for ``vado audit`` on a terminal.

Layout: a header, the verdict table per target, findings grouped by file, then
findings by family, top files, workloads, skips, errors and effort totals.
The text is rendered into an in-memory console, so the function is pure: the
same result, width and colour flag give the same string.
"""

from __future__ import annotations

import io
import re

from rich.console import Console
from rich.padding import Padding
from rich.table import Table
from rich.text import Text
from rich.theme import Theme

from vado.model import Finding, Verdict
from vado.model.audit import AuditResult
from vado.report import _summary as S

#: Width used when the caller gives none, so output does not depend on the environment.
DEFAULT_WIDTH = 100

#: The styles of ``vado.cli.terminal``'s theme that reports use (a test keeps the two equal;
#: the library does not import the CLI).
THEME = Theme(
    {
        "ok": "green",
        "warn": "yellow",
        "error": "bold red",
        "dim": "dim",
        "code": "cyan",
        "verdict.moves-as-is": "green",
        "verdict.moves-with-automatic-edits": "cyan",
        "verdict.needs-manual-work": "yellow",
        "verdict.blocked": "bold red",
        "severity.info": "dim",
        "severity.low": "blue",
        "severity.medium": "yellow",
        "severity.high": "red",
        "severity.critical": "bold red",
    }
)


def _verdict_text(v: Verdict, short: bool = False) -> Text:
    return Text(S.verdict_short(v) if short else v.label, style=f"verdict.{v.value}")


def _heading(console: Console, title: str) -> None:
    console.print()
    console.print(Text(title, style="bold"))


def _table(*columns: tuple[str, str]) -> Table:
    """A borderless table; each column is ``(header, justify)``.

    Tables keep free text out of the middle columns, so rich's proportional
    shrinking at narrow widths folds at most the last column.
    """
    table = Table(show_edge=False, box=None, pad_edge=False, header_style="bold", padding=(0, 2, 0, 0))
    for header, justify in columns:
        table.add_column(header, justify=justify, overflow="fold")
    return table


#: Widths of the position, code and severity columns of the findings list.
_WHERE, _CODE, _SEVERITY = 9, 7, 8
_INDENT = _WHERE + 2 + _CODE + 2 + _SEVERITY + 2


def _wrap_units(units: list[tuple[str, str]], width: int) -> list[list[tuple[str, str]]]:
    """Greedy line breaking of ``(text, style)`` words; a word wider than ``width`` is cut into pieces."""
    pieces = []
    for text, style in units:
        if len(text) <= width:
            pieces.append((text, style))
        else:
            pieces.extend((text[i : i + width], style) for i in range(0, len(text), width))
    lines: list[list[tuple[str, str]]] = [[]]
    used = 0
    for text, style in pieces:
        gap = 1 if lines[-1] else 0
        if lines[-1] and used + gap + len(text) > width:
            lines.append([])
            used, gap = 0, 0
        lines[-1].append((" " + text if gap else text, style))
        used += gap + len(text)
    return lines


def _verdict_line(verdicts: dict[str, Verdict], targets: list[str], width: int) -> Text:
    """One file's verdict per target on one line (wrapped when narrow): ``→ rocm-7.2: manual · …``.

    Once per file rather than once per finding: the four-target line under every finding made a
    repository's report thousands of lines long. Each finding's own verdicts are in the JSON,
    SARIF and HTML reports; the file line is the worst over the file's findings.
    """
    parts = [(t, verdicts[t]) for t in targets if t in verdicts]
    units: list[tuple[str, str]] = [("→", "dim")]
    for i, (t, v) in enumerate(parts):
        units.extend((w, f"verdict.{v.value}") for w in f"{t}: {S.verdict_short(v)}".split())
        if i < len(parts) - 1:
            units.append(("·", "dim"))
    line = Text()
    for n, row in enumerate(_wrap_units(units, max(20, width - 4))):
        line.append("  " if n == 0 else "    ")
        for text, style in row:
            line.append(text, style=style or None)
        line.append("\n")
    line.rstrip()
    return line


def _findings_block(findings: tuple[Finding, ...], targets: list[str], width: int) -> Text:
    """One file's findings: position, code, severity, then the message (wrapped under itself).

    Wrapped here rather than by a rich table: a table per file costs seconds on
    audits with thousands of findings, and the layout is fixed-width anyway.
    """
    room = max(20, width - _INDENT)
    block = Text()
    for f in findings:
        where = f"{f.span.line}:{f.span.column}" if f.span.line else f"@{f.span.start}"
        units = [(w, "") for w in f.message.split()]
        if f.fix is not None:
            units.append((f"[fix: {f.fix.applicability.value}]", "dim"))
        lines = _wrap_units(units, room)
        # Not one verdict line per finding (the file has one); only what is special about this finding.
        off = [t for t in targets if t in f.inactive]
        if off:
            why = f.data.get("inactive_branch")
            words = (f"inactive for {', '.join(off)} (a branch that build does not compile"
                     + (f": {why})" if why else ")")).split()
            lines += _wrap_units([("→", "dim"), *((w, "dim") for w in words)], room)
        for n, line in enumerate(lines):
            if n == 0:
                block.append(f"{where:>{_WHERE}}", style="dim")
                block.append("  ")
                block.append(f"{f.code:<{_CODE}}", style="code")
                block.append("  ")
                block.append(f"{f.severity.value:<{_SEVERITY}}", style=f"severity.{f.severity.value}")
                block.append("  ")
            else:
                block.append(" " * _INDENT)
            # One append per run of equally styled units: Text.append is the costly part.
            run: list[str] = []
            run_style = ""
            for text, style in line:
                if style != run_style and run:
                    block.append("".join(run), style=run_style or None)
                    run = []
                run_style = style
                run.append(text)
            if run:
                block.append("".join(run), style=run_style or None)
            block.append("\n")
    block.rstrip()
    return block


def render_terminal(result: AuditResult, *, width: int | None = None, color: bool = False) -> str:
    """``result`` as text for a terminal, ``width`` columns wide (default 100), with ANSI colour if ``color``."""
    buf = io.StringIO()
    console = Console(
        file=buf,
        width=width or DEFAULT_WIDTH,
        theme=THEME,
        no_color=not color,
        color_system="standard" if color else None,
        force_terminal=color,
        highlight=False,
        emoji=False,
        markup=False,
        soft_wrap=False,
        legacy_windows=False,
    )
    targets = S.target_names(result)
    st = result.stats

    header = Text("vado audit ", style="bold")
    header.append(result.root, style="code")
    console.print(header)
    console.print(
        Text(
            f"{st.files_scanned} files scanned ({S.fmt_bytes(st.bytes_scanned)}), {st.files_skipped} skipped, "
            f"{len(result.findings)} findings, {len(result.rules)} rules, "
            f"{st.duration_s:.2f} s with {st.jobs} job{'s' if st.jobs != 1 else ''}",
            style="dim",
        )
    )
    for line in S.build_lines(result):
        console.print(Text(line, style="dim"))

    _heading(console, "Verdicts")
    summaries = S.target_summaries(result)
    if summaries:
        table = _table(
            ("target", "left"),
            ("verdict", "left"),
            ("as is", "right"),
            ("auto", "right"),
            ("manual", "right"),
            ("blocked", "right"),
        )
        for ts in summaries:
            table.add_row(
                Text(ts.target, style="code"),
                _verdict_text(ts.verdict),
                *(str(ts.files[v]) for v in S.VERDICTS),
            )
        console.print(table)
        console.print(Text("deciding findings", style="dim"))
        for ts in summaries:
            line = Text(f"{ts.target}: ")
            line.append(", ".join(f"{c}×{n}" for c, n in ts.deciding) or "-")
            if ts.reason:
                line.append(f" ({ts.reason})", style="dim")
            console.print(Padding(line, (0, 0, 0, 2)))
        note = S.filtered_note(result)
        if note:
            console.print(Text(f"note: {note}", style="yellow"))
    else:
        console.print(Text("  no targets were audited"))

    _heading(console, "Findings")
    files = S.file_summaries(result)
    if not files:
        console.print(Text("  no findings"))
    for fs in files:
        title = Text(fs.path, style="bold")
        title.append(f"  {fs.kind + ', ' if fs.kind else ''}{fs.count} finding{'s' if fs.count != 1 else ''}", style="dim")
        console.print(title)
        if fs.verdicts:
            console.print(_verdict_line(fs.verdicts, targets, console.width), soft_wrap=True)
        console.print(_findings_block(fs.findings, targets, console.width), soft_wrap=True)

    fams = S.family_summaries(result)
    if fams:
        _heading(console, "Findings by family")
        table = _table(
            ("family", "left"),
            ("findings", "right"),
            ("blocked", "right"),
            ("files", "right"),
            *((s.value, "right") for s in S.SEVERITIES_DESC),
            ("hours", "right"),
        )
        for fam in fams:
            table.add_row(
                Text(fam.family, style="code"),
                str(fam.count),
                str(fam.blocked),
                str(fam.files),
                *(Text(str(fam.severities[s]), style=f"severity.{s.value}") if fam.severities[s] else Text("0", style="dim") for s in S.SEVERITIES_DESC),
                S.fmt_hours(fam.effort.hours),
            )
        console.print(table)

    top = S.top_files(result)
    if top:
        _heading(console, "Top files")
        table = _table(("file", "left"), ("findings", "right"), *((t, "left") for t in targets), ("hours", "right"))
        for fs in top:
            table.add_row(
                fs.path,
                str(fs.count),
                *(_verdict_text(fs.verdicts[t], short=True) if t in fs.verdicts else Text("-") for t in targets),
                S.fmt_hours(fs.effort.hours),
            )
        console.print(table)

    if result.workloads:
        _heading(console, "Workloads")
        table = _table(
            ("workload", "left"), ("path", "left"), ("files", "right"), *((t, "left") for t in targets), ("hours", "right")
        )
        for w in sorted(result.workloads, key=lambda w: (w.path, w.name)):
            by_target = {tv.target: tv.verdict for tv in w.verdicts}
            table.add_row(
                w.name,
                w.path,
                str(len(w.files)),
                *(_verdict_text(by_target[t], short=True) if t in by_target else Text("-") for t in targets),
                S.fmt_hours(w.effort.hours),
            )
        console.print(table)

    if result.skips:
        _heading(console, f"Skipped ({len(result.skips)})")
        table = _table(("reason", "left"), ("files", "right"), ("examples", "left"))
        for reason, n, skips in S.skip_summary(result):
            examples = ", ".join(s.path for s in skips[:3]) + (", …" if n > 3 else "")
            table.add_row(reason, str(n), examples)
        console.print(table)

    if result.errors:
        _heading(console, f"Errors ({len(result.errors)})")
        for err in result.errors:
            console.print(Padding(Text(S.error_line(err), style="error"), (0, 0, 0, 2)))
            if err.get("tip"):
                console.print(Padding(Text(f"tip: {err['tip']}", style="dim"), (0, 0, 0, 4)))

    _heading(console, "Effort")
    effort = S.total_effort(result)
    fixes = S.fix_counts(result)
    line = Text(
        f"{effort.lines} lines, {effort.constructs} constructs, about {S.fmt_hours(effort.hours)} h by hand; "
        f"fixes: {fixes['safe']} safe, {fixes['unsafe']} unsafe, {fixes['display-only']} display-only, "
        f"{fixes['none']} without"
    )
    console.print(Padding(line, (0, 0, 0, 2)))
    # rich pads table cells to the column width; trailing blanks only make snapshots fragile.
    # In colour the blanks may sit between escape codes, which must stay (they end a style).
    out = buf.getvalue()
    if not color:
        return "".join(line.rstrip() + "\n" for line in out.splitlines())
    return "".join(_TRAILING.sub(_drop_blanks, line) + "\n" for line in out.splitlines())


_TRAILING = re.compile(r"(?:[ \t]|\x1b\[[0-9;]*m)+$")


def _drop_blanks(match: re.Match) -> str:
    return re.sub(r"[ \t]", "", match.group(0))
