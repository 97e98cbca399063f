"""The Markdown report: for pull-request comments, issues and wikis (GitHub-flavoured tables).

Sections, in order: summary line, verdicts per target, findings (blocked ones
first, each at ``file:line``), workloads, findings by family, top files, skips,
errors and rules. Text from the result is escaped so a message cannot open a
table cell, a link, emphasis or an HTML tag.
"""

from __future__ import annotations

import re

from vado.model import Finding, Verdict
from vado.model.audit import AuditResult
from vado.report import _summary as S

_ESCAPE = re.compile(r"([\\`*_\[\]<>|#~])")


def esc(text: str) -> str:
    """Text that renders literally inside a Markdown paragraph or table cell."""
    text = _ESCAPE.sub(r"\\\1", str(text)).replace("&", "&amp;")
    # A table row is one line: keep line breaks visible without ending the row.
    return text.replace("\r\n", "\n").replace("\n", "<br>")


def code(text: str, *, cell: bool = True) -> str:
    """Inline code that cannot be closed early by backticks inside ``text``.

    In a table cell a ``|`` splits the row even inside a code span (GFM), so
    ``cell`` escapes it; GFM drops the backslash there.
    """
    text = str(text).replace("\n", " ")
    if cell:
        text = text.replace("|", "\\|")
    fence = "`"
    while fence in text:
        fence += "`"
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _table(head: list[str], rows: list[list[str]], align: str = "") -> list[str]:
    """A GFM table; ``align`` has one letter per column (``l`` or ``r``)."""
    align = align or "l" * len(head)
    sep = ["---:" if a == "r" else "---" for a in align]
    lines = ["| " + " | ".join(head) + " |", "| " + " | ".join(sep) + " |"]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return lines


def _verdict(v: Verdict) -> str:
    return f"**{v.label}**" if v is Verdict.BLOCKED else v.label


def _location(f: Finding) -> str:
    line = f":{f.span.line}" if f.span.line else f"@{f.span.start}"
    return code(f"{f.span.path}{line}")


def _verdicts_cell(verdicts: dict[str, Verdict], targets: list[str], inactive: dict[str, Verdict] | None = None) -> str:
    parts = [f"{esc(t)}: {_verdict(verdicts[t])}" for t in targets if t in verdicts]
    parts += [f"{esc(t)}: inactive (branch not compiled)" for t in targets if inactive and t in inactive]
    return "<br>".join(parts) if parts else "—"


def _fix_cell(f: Finding) -> str:
    if f.fix is None:
        return "—"
    desc = f" — {esc(f.fix.description)}" if f.fix.description else ""
    return f"{f.fix.applicability.value}{desc}"


#: GitHub's limit on the body of an issue or pull-request comment, in characters.
GITHUB_COMMENT_LIMIT = 65_536


def render_markdown(result: AuditResult, *, max_chars: int | None = GITHUB_COMMENT_LIMIT) -> str:
    """``result`` as a Markdown document ending in a newline, at most ``max_chars`` characters long.

    The document is meant to be posted as a pull-request comment, so by default it
    fits GitHub's comment limit: when the whole report is longer, the findings table
    keeps the findings that matter most (blocking ones, then by severity) and says
    how many it leaves out, and the skipped-files table keeps its first rows.
    Every count, verdict and summary table stays whole. ``max_chars=None`` lists all.
    """
    full = _render(result, None, None)
    if max_chars is None or len(full) <= max_chars:
        return full
    findings = len(result.findings)
    skips = min(len(result.skips), 20)
    if len(_render(result, 0, skips)) > max_chars:
        skips = 0
    lo, hi = 0, findings  # the most findings rows that fit, by bisection
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if len(_render(result, mid, skips)) <= max_chars:
            lo = mid
        else:
            hi = mid - 1
    return _render(result, lo, skips)


def _summary(result: AuditResult) -> list[str]:
    """The plain-language summary (the HTML report's "In short"): the production target's verdict,
    what moves, the work, and the first step; every number from ``result``."""
    overviews = S.target_overviews(result)
    if not overviews:
        return []
    main = overviews[0]
    line = (f"**In short:** for {code(main.target, cell=False)} the code {main.verdict.label}. "
            f"Of {S.plural(main.files, 'file')}, {main.moving} move as they are or with vado's automatic edits"
            + (f", {main.work} need work by hand" if main.work else "") + ". ")
    if main.effort.hours or main.effort.lines:
        line += f"The work: about {S.fmt_hours(main.effort.hours)} h"
        if main.work_codes:
            line += ", mostly " + ", ".join(f"{code(c, cell=False)} ×{n} ({esc(summary)})" if summary else
                                            f"{code(c, cell=False)} ×{n}" for c, n, summary in main.work_codes)
        line += ". "
    safe = S.fix_counts(result)["safe"]
    if safe:
        line += f"Next: `vado port` applies {safe} safe fix{'' if safe == 1 else 'es'}."
    return [line.rstrip(), ""]


def _render(result: AuditResult, finding_rows: int | None, skip_rows: int | None) -> str:
    """The report with at most ``finding_rows`` findings and ``skip_rows`` skips listed (None: all)."""
    targets = S.target_names(result)
    out: list[str] = [f"# vado audit: {code(result.root, cell=False)}", ""]
    st = result.stats
    effort = S.total_effort(result)
    out.append(
        f"{st.files_scanned} files scanned ({S.fmt_bytes(st.bytes_scanned)}), {st.files_skipped} skipped, "
        f"{S.plural(len(result.findings), 'finding')}, {S.plural(len(result.errors), 'error')}. "
        f"Targets: {', '.join(code(t) for t in result.targets) or 'none'}. "
        f"Effort: {effort.lines} lines, {effort.constructs} constructs, {S.fmt_hours(effort.hours)} h."
    )
    out.append("")
    build = S.build_lines(result)
    if build:
        out += [esc(" ".join(build)), ""]
    out += _summary(result)

    out += ["## Verdicts", ""]
    rows = []
    for ts in S.target_summaries(result):
        deciding = ", ".join(f"{code(c)} ×{n}" for c, n in ts.deciding) or "—"
        rows.append(
            [code(ts.target), _verdict(ts.verdict)]
            + [str(ts.files[v]) for v in S.VERDICTS]
            + [deciding, esc(ts.reason) or "—"]
        )
    if rows:
        out += _table(
            ["Target", "Verdict", "Files as is", "Automatic", "Manual", "Blocked", "Deciding findings", "Reason"],
            rows,
            "llrrrrll",
        )
    else:
        out.append("No targets were audited.")
    out.append("")
    note = S.filtered_note(result)
    if note:
        out += [f"**Note:** {esc(note)}.", ""]

    out += ["## Findings", ""]
    findings = S.findings_worst_first(result)
    if findings:
        blocked = sum(1 for f in findings if S.is_blocked(f))
        out.append(f"{len(findings)} findings, {blocked} blocking at least one target (listed first).")
        out.append("")
        rows = [
            [
                _location(f),
                code(f.code),
                f.severity.value,
                esc(f.message),
                _verdicts_cell(f.verdicts, targets, f.inactive),
                _fix_cell(f),
            ]
            for f in (findings if finding_rows is None else findings[:finding_rows])
        ]
        if rows:
            out += _table(["Location", "Code", "Severity", "Message", "Verdicts", "Fix"], rows)
        if len(rows) < len(findings):
            out += ["", f"{len(findings) - len(rows)} more findings are not listed, to keep this report within "
                        f"GitHub's comment limit; the JSON, SARIF or HTML report lists them all."]
    else:
        out.append("No findings.")
    out.append("")

    out += ["## Workloads", ""]
    if result.workloads:
        rows = []
        for w in sorted(result.workloads, key=lambda w: (w.path, w.name)):
            by_target = {tv.target: tv.verdict for tv in w.verdicts}
            rows.append(
                [esc(w.name), code(w.path), str(len(w.files))]
                + [_verdict(by_target[t]) if t in by_target else "—" for t in targets]
                + [S.fmt_hours(w.effort.hours)]
            )
        out += _table(
            ["Workload", "Path", "Files"] + [code(t) for t in targets] + ["Effort (h)"],
            rows,
            "llr" + "l" * len(targets) + "r",
        )
    else:
        out.append("No workloads were found.")
    out.append("")

    out += ["## Findings by family", ""]
    fams = S.family_summaries(result)
    if fams:
        rows = [
            [code(fs.family), esc(fs.description) or "—", str(fs.count), str(fs.blocked), str(fs.files)]
            + [str(fs.severities[s]) for s in S.SEVERITIES_DESC]
            + [S.fmt_hours(fs.effort.hours)]
            for fs in fams
        ]
        out += _table(
            ["Family", "About", "Findings", "Blocked", "Files"]
            + [s.value.capitalize() for s in S.SEVERITIES_DESC]
            + ["Effort (h)"],
            rows,
            "llrrr" + "r" * len(S.SEVERITIES_DESC) + "r",
        )
    else:
        out.append("No findings.")
    out.append("")

    out += ["## Top files", ""]
    top = S.top_files(result)
    if top:
        rows = [
            [code(fs.path), esc(fs.kind) or "—", str(fs.count)]
            + [_verdict(fs.verdicts[t]) if t in fs.verdicts else "—" for t in targets]
            + [S.fmt_hours(fs.effort.hours)]
            for fs in top
        ]
        out += _table(
            ["File", "Kind", "Findings"] + [code(t) for t in targets] + ["Effort (h)"],
            rows,
            "llr" + "l" * len(targets) + "r",
        )
    else:
        out.append("No file has findings.")
    out.append("")

    out += ["## Skipped files", ""]
    if result.skips:
        summary = ", ".join(f"{reason} ×{n}" for reason, n, _ in S.skip_summary(result))
        out.append(f"{len(result.skips)} skipped: {summary}.")
        out.append("")
        skipped = S.sorted_skips(result)
        rows = [[code(s.path), s.reason.value, esc(s.detail) or "—"]
                for s in (skipped if skip_rows is None else skipped[:skip_rows])]
        if rows:
            out += _table(["Path", "Reason", "Detail"], rows)
        if len(rows) < len(skipped):
            out += ["", f"{len(skipped) - len(rows)} more skipped files are not listed."]
    else:
        out.append("No file was skipped.")
    out.append("")

    if result.errors:
        out += ["## Errors", ""]
        for err in result.errors:
            line = f"- {esc(S.error_line(err))}"
            if err.get("tip"):
                line += f" (tip: {esc(err['tip'])})"
            out.append(line)
        out.append("")

    rules = S.sorted_rules(result)
    if rules:
        out += ["## Rules", ""]
        rows = [[code(r.code), code(r.name), r.severity, esc(r.summary) or "—"] for r in rules]
        out += _table(["Code", "Name", "Severity", "Summary"], rows)
        out.append("")

    return "\n".join(out).rstrip("\n") + "\n"
