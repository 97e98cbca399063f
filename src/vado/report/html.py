"""The HTML report: one self-contained page (inline CSS, inline SVG charts, no script, no fetches).

It opens on a plain-language summary (:func:`summary_section`); the findings list shows what is
above informational by default, and a checkbox (CSS only) shows the rest.

Charts: files per verdict for each target as stacked bars, findings per family,
and the files with the most findings. Every piece of text from the result goes
through :func:`html.escape`, so a message cannot inject markup.
"""

from __future__ import annotations

from html import escape

from vado.model import Finding, Verdict
from vado.model.audit import AuditResult
from vado.report import _summary as S

#: Fill colours per verdict (colour-blind-safe order: green, blue, amber, red).
VERDICT_COLOURS = {
    Verdict.MOVES_AS_IS: "#2e7d32",
    Verdict.AUTOMATIC: "#1565c0",
    Verdict.MANUAL: "#ef8f00",
    Verdict.BLOCKED: "#c62828",
}
SEVERITY_COLOURS = {
    "critical": "#b71c1c",
    "high": "#e53935",
    "medium": "#ef8f00",
    "low": "#1e88e5",
    "info": "#757575",
}

_CSS = """
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:2rem auto;max-width:72rem;
padding:0 1rem;color:#1b1b1b;background:#fff}
h1{font-size:1.5rem;margin-bottom:.25rem}h2{font-size:1.15rem;margin-top:2rem;border-bottom:1px solid #ddd}
code{font:12.5px ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;background:#f3f3f3;padding:0 .2em}
table{border-collapse:collapse;margin:.5rem 0;width:100%}th,td{border:1px solid #ddd;padding:.25rem .5rem;
text-align:left;vertical-align:top;word-break:normal;overflow-wrap:normal}
td code,th code,td .v,td .tv{white-space:nowrap}
.msg{overflow-wrap:anywhere}td code.path{white-space:normal;overflow-wrap:anywhere;display:inline-block;min-width:10em}
.summary{background:#f7f9fc;border:1px solid #dde3ee;border-radius:6px;padding:.25rem 1rem .5rem;margin:1rem 0}
.summary h2{border:0;margin-top:.5rem}.summary p{margin:.4rem 0}
.filter{margin:.5rem 0}.filter label{cursor:pointer}
#show-info:not(:checked)~.scroll tr.sev-info{display:none}.scroll{overflow-x:auto;max-width:100%}th{background:#f6f6f6}td.n{text-align:right;font-variant-numeric:tabular-nums}
.muted{color:#666}.v{display:inline-block;padding:0 .4em;border-radius:3px;color:#fff;font-size:12px;
white-space:nowrap}.v-moves-as-is{background:#2e7d32}.v-moves-with-automatic-edits{background:#1565c0}
.v-needs-manual-work{background:#ef8f00}.v-blocked{background:#c62828}
.s-critical,.s-high{color:#c62828;font-weight:600}.s-medium{color:#a65f00}.s-low{color:#1565c0}.s-info{color:#666}
svg{display:block;margin:.5rem 0}svg text{font:12px system-ui,sans-serif;fill:#1b1b1b}
.legend span{margin-right:1rem}.legend i{display:inline-block;width:.8em;height:.8em;margin-right:.3em}
"""

_BAR_HEIGHT = 20
_BAR_GAP = 8
#: Room for a label of ``_clip_label``'s 34 characters at 12 px (about 7 px a character) and the gap.
_LABEL_WIDTH = 260
_PLOT_WIDTH = 460
_VALUE_WIDTH = 60


def e(text: object) -> str:
    """Escaped text for element content and attribute values."""
    return escape(str(text), quote=True)


def _num(x: float) -> str:
    """A coordinate with at most one decimal, so output is stable across platforms."""
    text = f"{x:.1f}"
    return text[:-2] if text.endswith(".0") else text


def _verdict_badge(v: Verdict, short: bool = False) -> str:
    label = S.verdict_short(v) if short else v.label
    return f'<span class="v v-{e(v.value)}" title="{e(v.label)}">{e(label)}</span>'


def _svg_open(height: int, title: str) -> str:
    width = _LABEL_WIDTH + _PLOT_WIDTH + _VALUE_WIDTH
    return (
        f'<svg role="img" aria-label="{e(title)}" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}"><title>{e(title)}</title>'
    )


def _clip_label(text: str, limit: int = 34) -> str:
    return text if len(text) <= limit else "…" + text[-(limit - 1) :]


def stacked_verdict_chart(result: AuditResult) -> str:
    """Inline SVG: one bar per target, its files split by verdict."""
    rows = S.target_summaries(result)
    if not rows:
        return ""
    height = len(rows) * (_BAR_HEIGHT + _BAR_GAP) + _BAR_GAP
    parts = [_svg_open(height, "Files per verdict, per target")]
    for i, ts in enumerate(rows):
        y = _BAR_GAP + i * (_BAR_HEIGHT + _BAR_GAP)
        total = sum(ts.files.values())
        parts.append(
            f'<text x="{_LABEL_WIDTH - 8}" y="{y + 14}" text-anchor="end">{e(ts.target)}</text>'
        )
        x = float(_LABEL_WIDTH)
        for v in S.VERDICTS:
            n = ts.files[v]
            if not n or not total:
                continue
            w = _PLOT_WIDTH * n / total
            parts.append(
                f'<rect x="{_num(x)}" y="{y}" width="{_num(w)}" height="{_BAR_HEIGHT}" '
                f'fill="{VERDICT_COLOURS[v]}"><title>{e(ts.target)}: {n} {e(v.label)}</title></rect>'
            )
            x += w
        if not total:
            parts.append(
                f'<rect x="{_LABEL_WIDTH}" y="{y}" width="{_PLOT_WIDTH}" height="{_BAR_HEIGHT}" fill="#eee"/>'
            )
        parts.append(
            f'<text x="{_LABEL_WIDTH + _PLOT_WIDTH + 6}" y="{y + 14}">{total} files</text>'
        )
    parts.append("</svg>")
    legend = "".join(
        f'<span><i style="background:{VERDICT_COLOURS[v]}"></i>{e(v.label)}</span>' for v in S.VERDICTS
    )
    return "".join(parts) + f'\n<p class="legend">{legend}</p>'


def _value_text(value: float, unit: str) -> str:
    text = f"{value:g}" if isinstance(value, float) else str(value)
    return f"{text} {unit}" if unit else text


def bar_chart(title: str, items: list[tuple[str, float, str]], unit: str = "") -> str:
    """Inline SVG of horizontal bars; ``items`` are ``(label, value, colour)``.

    Values are drawn at their own scale (an hour count stays an hour count) with ``unit``
    after the number. The label column widens to the longest label (up to ``_clip_label``'s
    limit) and the value column to the longest value, so neither is cut at the edge.
    """
    if not items:
        return ""
    top = max(v for _, v, _ in items) or 1
    labels = [_clip_label(label) for label, _, _ in items]
    values = [_value_text(v, unit) for _, v, _ in items]
    # About 7 px a character at 12 px; the gap on either side of the bar.
    label_width = max(_LABEL_WIDTH, 7 * max(len(t) for t in labels) + 16)
    value_width = max(_VALUE_WIDTH, 7 * max(len(t) for t in values) + 12)
    width = label_width + _PLOT_WIDTH + value_width
    height = len(items) * (_BAR_HEIGHT + _BAR_GAP) + _BAR_GAP
    parts = [
        f'<svg role="img" aria-label="{e(title)}" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}"><title>{e(title)}</title>'
    ]
    for i, ((label, _, colour), shown, value) in enumerate(zip(items, labels, values)):
        y = _BAR_GAP + i * (_BAR_HEIGHT + _BAR_GAP)
        w = _PLOT_WIDTH * items[i][1] / top
        parts.append(
            f'<text x="{label_width - 8}" y="{y + 14}" text-anchor="end">{e(shown)}</text>'
            f'<rect x="{label_width}" y="{y}" width="{_num(w)}" height="{_BAR_HEIGHT}" fill="{colour}">'
            f"<title>{e(label)}: {e(value)}</title></rect>"
            f'<text x="{_num(label_width + w + 6)}" y="{y + 14}">{e(value)}</text>'
        )
    parts.append("</svg>")
    return "".join(parts)


def _table(head: list[str], rows: list[list[str]], numeric: set[int] = frozenset(),
           row_classes: list[str] | None = None) -> str:
    """A table; cells are already-escaped HTML; columns in ``numeric`` are right-aligned.

    ``row_classes`` gives each row a class (the findings filter hides rows by it).
    """
    # In a scrolling box: a table wider than the page (long paths, many targets) scrolls by itself
    # instead of widening the page; long words in cells wrap (overflow-wrap in the CSS).
    out = ['<div class="scroll"><table><thead><tr>' + "".join(f"<th>{h}</th>" for h in head) + "</tr></thead><tbody>"]
    for n, r in enumerate(rows):
        cells = "".join(f'<td class="n">{c}</td>' if i in numeric else f"<td>{c}</td>" for i, c in enumerate(r))
        cls = f' class="{row_classes[n]}"' if row_classes else ""
        out.append(f"<tr{cls}>{cells}</tr>")
    out.append("</tbody></table></div>")
    return "\n".join(out)


def _path(path: str) -> str:
    """A path for a table cell: it may break after each ``/`` (and anywhere, when one part is too long)."""
    return e(path).replace("/", "/<wbr>")


def _location(f: Finding) -> str:
    line = f":{f.span.line}" if f.span.line else f"@{f.span.start}"
    return f'<code class="path">{_path(f.span.path)}{line}</code>'


def _verdicts(verdicts: dict[str, Verdict], targets: list[str], inactive: dict[str, Verdict] | None = None) -> str:
    # Short labels (as is, automatic, manual, blocked; the full one in the tooltip) keep the column narrow.
    parts = [f'<span class="tv">{e(t)} {_verdict_badge(verdicts[t], short=True)}</span>' for t in targets if t in verdicts]
    parts += [f'{e(t)} <span class="muted">inactive (branch not compiled)</span>' for t in targets if inactive and t in inactive]
    return "<br>".join(parts) if parts else '<span class="muted">—</span>'


def _codes_text(codes: tuple[tuple[str, int, str], ...]) -> str:
    return "; ".join(f"<code>{e(c)}</code> ×{n}" + (f" ({e(summary)})" if summary else "") for c, n, summary in codes)


def summary_section(result: AuditResult) -> str:
    """The plain-language summary at the top of the page, for a reader who will not read the tables.

    Every number comes from ``result``: for the first target (the production one) what moves,
    what needs work and how much, one line per other target, and what to do next.
    """
    overviews = S.target_overviews(result)
    if not overviews:
        return '<section class="summary"><h2>In short</h2><p>No target was audited.</p></section>'
    main, others = overviews[0], overviews[1:]
    fixes = S.fix_counts(result)
    out = ['<section class="summary"><h2>In short</h2>']
    out.append(
        f"<p><strong>For <code>{e(main.target)}</code> the code {_verdict_phrase(main.verdict)}.</strong> "
        f"Of {S.plural(main.files, 'file')}, {main.moving} move as they are or with vado's automatic edits"
        + (f", and {main.work} need work by hand" if main.work else "")
        + (f" ({main.blocked} of them blocked)" if main.blocked else "")
        + ".</p>"
    )
    if main.effort.hours or main.effort.lines:
        out.append(
            f"<p><strong>The work:</strong> about {e(S.fmt_hours(main.effort.hours))} hours "
            f"({S.plural(main.effort.lines, 'line')}, {S.plural(main.effort.constructs, 'construct')})"
            + (f", mostly {_codes_text(main.work_codes)}" if main.work_codes else "")
            + ".</p>"
        )
    else:
        out.append("<p><strong>The work:</strong> none found for this target.</p>")
    if others:
        items = []
        for o in others:
            why = f": {_codes_text(o.work_codes)}" if o.work_codes and o.verdict is not Verdict.MOVES_AS_IS else ""
            items.append(f"<li><code>{e(o.target)}</code> {_verdict_badge(o.verdict)}, "
                         f"about {e(S.fmt_hours(o.effort.hours))} h{why}</li>")
        out.append("<p><strong>Other targets:</strong></p><ul>" + "".join(items) + "</ul>")
    steps = []
    if fixes["safe"] or fixes["unsafe"]:
        safe = fixes["safe"]
        steps.append(f"Run <code>vado port</code>: it applies {safe} safe fix{'' if safe == 1 else 'es'}"
                     + (f" and offers {fixes['unsafe']} more for review (<code>--unsafe-fixes</code>)" if fixes["unsafe"] else "")
                     + ".")
    if main.work:
        steps.append(f"Plan the hand work on the {S.plural(main.work, 'file')} listed under Hot files and Findings "
                     f"(filtered below to what matters).")
    if main.blocked:
        steps.append(f"{S.plural(main.blocked, 'file')} cannot move to <code>{e(main.target)}</code> as they are; "
                     "keep them on NVIDIA or replace what blocks them.")
    if not steps:
        steps.append(f"Build and test on <code>{e(main.target)}</code> (<code>vado verify</code>): nothing in the code needs to change.")
    out.append("<p><strong>Next:</strong></p><ol>" + "".join(f"<li>{s}</li>" for s in steps) + "</ol>")
    out.append("</section>")
    return "\n".join(out)


_VERDICT_PHRASES = {
    Verdict.MOVES_AS_IS: "moves as it is",
    Verdict.AUTOMATIC: "moves with vado's automatic edits",
    Verdict.MANUAL: "needs manual work",
    Verdict.BLOCKED: "is blocked",
}


def _verdict_phrase(v: Verdict) -> str:
    return _VERDICT_PHRASES[v]


def render_html(result: AuditResult) -> str:
    """``result`` as one self-contained HTML5 page ending in a newline."""
    targets = S.target_names(result)
    st = result.stats
    effort = S.total_effort(result)
    body: list[str] = [f"<h1>vado audit: <code>{e(result.root)}</code></h1>"]
    body.append(
        f'<p class="muted">{st.files_scanned} files scanned ({e(S.fmt_bytes(st.bytes_scanned))}), '
        f"{st.files_skipped} skipped, {S.plural(len(result.findings), 'finding')}, {S.plural(len(result.errors), 'error')}. "
        f"Targets: {', '.join(f'<code>{e(t)}</code>' for t in result.targets) or 'none'}. "
        f"Effort: {effort.lines} lines, {effort.constructs} constructs, {e(S.fmt_hours(effort.hours))} h. "
        f"vado {e(_version(result))}, schema {e(result.schema_version)}.</p>"
    )
    build = S.build_lines(result)
    if build:
        body.append(f'<p class="muted build">{"<br>".join(e(line) for line in build)}</p>')
    body.append(summary_section(result))

    body.append("<h2>Verdicts</h2>")
    summaries = S.target_summaries(result)
    if summaries:
        body.append(stacked_verdict_chart(result))
        rows = [
            [f"<code>{e(ts.target)}</code>", _verdict_badge(ts.verdict)]
            + [str(ts.files[v]) for v in S.VERDICTS]
            + [
                ", ".join(f"<code>{e(c)}</code> ×{n}" for c, n in ts.deciding) or "—",
                e(ts.reason) or "—",
            ]
            for ts in summaries
        ]
        body.append(
            _table(
                ["Target", "Verdict", "Files as is", "Automatic", "Manual", "Blocked", "Deciding findings", "Reason"],
                rows,
                {2, 3, 4, 5},
            )
        )
    else:
        body.append("<p>No targets were audited.</p>")
    note = S.filtered_note(result)
    if note:
        body.append(f'<p class="note"><strong>Note:</strong> {e(note)}.</p>')

    body.append("<h2>Findings by family</h2>")
    fams = S.family_summaries(result)
    if fams:
        worst = {fs.family: next((s for s in S.SEVERITIES_DESC if fs.severities[s]), None) for fs in fams}
        body.append(
            bar_chart(
                "Findings per family",
                [(fs.family, fs.count, SEVERITY_COLOURS[worst[fs.family].value]) for fs in fams],
            )
        )
        rows = [
            [f"<code>{e(fs.family)}</code>", e(fs.description) or "—", str(fs.count), str(fs.blocked), str(fs.files)]
            + [str(fs.severities[s]) for s in S.SEVERITIES_DESC]
            + [e(S.fmt_hours(fs.effort.hours))]
            for fs in fams
        ]
        sev_cols = len(S.SEVERITIES_DESC)
        body.append(
            _table(
                ["Family", "About", "Findings", "Blocked", "Files"]
                + [s.value.capitalize() for s in S.SEVERITIES_DESC]
                + ["Effort (h)"],
                rows,
                set(range(2, 6 + sev_cols)),
            )
        )
    else:
        body.append("<p>No findings.</p>")

    body.append("<h2>Hot files</h2>")
    top = S.top_files(result)
    if top:
        body.append(
            bar_chart(
                "Files with the most findings",
                [(fs.path, fs.count, VERDICT_COLOURS[Verdict.worst(fs.verdicts.values())]) for fs in top],
            )
        )
        rows = [
            [f'<code class="path">{_path(fs.path)}</code>', e(fs.kind) or "—", str(fs.count)]
            + [_verdict_badge(fs.verdicts[t]) if t in fs.verdicts else "—" for t in targets]
            + [e(S.fmt_hours(fs.effort.hours))]
            for fs in top
        ]
        body.append(
            _table(
                ["File", "Kind", "Findings"] + [f"<code>{e(t)}</code>" for t in targets] + ["Effort (h)"],
                rows,
                {2, 3 + len(targets)},
            )
        )
    else:
        body.append("<p>No file has findings.</p>")

    body.append("<h2>Workloads</h2>")
    if result.workloads:
        rows = []
        for w in sorted(result.workloads, key=lambda w: (w.path, w.name)):
            by_target = {tv.target: tv.verdict for tv in w.verdicts}
            rows.append(
                [e(w.name), f'<code class="path">{_path(w.path)}</code>', str(len(w.files))]
                + [_verdict_badge(by_target[t]) if t in by_target else "—" for t in targets]
                + [e(S.fmt_hours(w.effort.hours))]
            )
        body.append(
            _table(
                ["Workload", "Path", "Files"] + [f"<code>{e(t)}</code>" for t in targets] + ["Effort (h)"],
                rows,
                {2, 3 + len(targets)},
            )
        )
    else:
        body.append("<p>No workloads were found.</p>")

    body.append("<h2>Findings</h2>")
    findings = S.findings_worst_first(result)
    if findings:
        body.append("<p>Blocked findings first, then manual work, then automatic edits.</p>")
        info = sum(1 for f in findings if f.severity.value == "info")
        # The filter is a checkbox and one CSS rule (no script): informational rows are hidden until it is ticked.
        body.append('<div class="findings">')
        if info:
            body.append(
                '<input type="checkbox" id="show-info"> '
                f'<label for="show-info" class="filter">Show all {S.plural(len(findings), "finding")}, with the '
                f"{info} informational one{'' if info == 1 else 's'} (hidden: they change nothing)</label>"
            )
        rows = []
        classes = []
        for f in findings:
            classes.append(f"sev-{e(f.severity.value)}")
            fix = "—"
            if f.fix is not None:
                fix = e(f.fix.applicability.value) + (f" — {e(f.fix.description)}" if f.fix.description else "")
            rows.append(
                [
                    _location(f),
                    f"<code>{e(f.code)}</code>",
                    f'<span class="s-{e(f.severity.value)}">{e(f.severity.value)}</span>',
                    '<div class="msg">' + e(f.message).replace("\n", "<br>") + "</div>",
                    _verdicts(f.verdicts, targets, f.inactive),
                    fix,
                ]
            )
        body.append(_table(["Location", "Code", "Severity", "Message", "Verdicts", "Fix"], rows, row_classes=classes))
        body.append("</div>")
    else:
        body.append("<p>No findings.</p>")

    body.append("<h2>Skipped files</h2>")
    if result.skips:
        summary = ", ".join(f"{e(reason)} ×{n}" for reason, n, _ in S.skip_summary(result))
        body.append(f"<p>{len(result.skips)} skipped: {summary}.</p>")
        rows = [[f'<code class="path">{_path(s.path)}</code>', e(s.reason.value), e(s.detail) or "—"] for s in S.sorted_skips(result)]
        body.append(_table(["Path", "Reason", "Detail"], rows))
    else:
        body.append("<p>No file was skipped.</p>")

    if result.errors:
        body.append("<h2>Errors</h2><ul>")
        for err in result.errors:
            tip = f' <span class="muted">(tip: {e(err["tip"])})</span>' if err.get("tip") else ""
            body.append(f"<li>{e(S.error_line(err))}{tip}</li>")
        body.append("</ul>")

    rules = S.sorted_rules(result)
    if rules:
        body.append("<h2>Rules</h2>")
        rows = [
            [f"<code>{e(r.code)}</code>", f"<code>{e(r.name)}</code>", e(r.severity), e(r.summary) or "—"]
            for r in rules
        ]
        body.append(_table(["Code", "Name", "Severity", "Summary"], rows))

    return (
        "<!DOCTYPE html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>vado audit: {e(result.root)}</title>\n"
        f"<style>{_CSS}</style>\n</head>\n<body>\n" + "\n".join(body) + "\n</body>\n</html>\n"
    )


def _version(result: AuditResult) -> str:
    from vado.report.json_report import tool_version

    return tool_version(result)
