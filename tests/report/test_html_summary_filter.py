"""The HTML report opens on a plain-language summary, keeps words whole, and filters informational findings."""

from __future__ import annotations

import re
from dataclasses import replace

from vado.model import Severity, Verdict
from vado.report import _summary as S
from vado.report.html import render_html


def _section(html: str) -> str:
    return html[html.index('<section class="summary">'):html.index("</section>")]


def test_summary_comes_first_and_is_computed(sample):
    html = render_html(sample)
    assert html.index('<section class="summary">') < html.index("<h2>Verdicts</h2>")
    main = S.target_overviews(sample)[0]
    text = _section(html)
    assert f"For <code>{main.target}</code> the code needs manual work." in text
    assert f"Of {main.files} files, {main.moving} move" in text and f"{main.work} need work by hand" in text
    assert f"about {S.fmt_hours(main.effort.hours)} hours" in text
    for code, n, summary in main.work_codes:
        assert f"<code>{code}</code> ×{n}" in text
    fixes = S.fix_counts(sample)
    assert f"applies {fixes['safe']} safe fixes" in text


def test_summary_of_a_clean_tree(empty):
    text = _section(render_html(empty))
    assert "No target was audited." in text or "nothing in the code needs to change" in text


def test_summary_follows_the_result(sample):
    # All findings made to move as is for every target: the summary says so, with no work and no fixes.
    calm = replace(sample, findings=tuple(replace(f, verdicts={t: Verdict.MOVES_AS_IS for t in f.verdicts}, fix=None)
                                         for f in sample.findings),
                   files=tuple(replace(fr, verdicts=tuple(replace(tv, verdict=Verdict.MOVES_AS_IS) for tv in fr.verdicts))
                               for fr in sample.files),
                   verdicts=tuple(replace(tv, verdict=Verdict.MOVES_AS_IS, deciding=()) for tv in sample.verdicts))
    text = _section(render_html(calm))
    assert "the code moves as it is" in text and "none found for this target" in text
    assert "vado verify" in text and "vado port" not in text


def test_table_cells_keep_words_whole(sample):
    html = render_html(sample)
    css = html[html.index("<style>"):html.index("</style>")]
    # Breaking anywhere only for paths and messages (a long URL), never for every cell.
    assert "text-align:left;vertical-align:top;word-break:normal;overflow-wrap:normal}" in css
    assert ".msg{overflow-wrap:anywhere}" in css
    assert "word-break:normal" in css and "td code,th code,td .v,td .tv{white-space:nowrap}" in css
    assert "td code.path{white-space:normal;overflow-wrap:anywhere;" in css
    # Paths may break after a slash; codes and verdicts never break.
    assert '<code class="path">kernels/<wbr>attention.cu:11</code>' in html
    assert '<span class="tv">rocm-7.2 <span class="v v-needs-manual-work" title="needs manual work">manual</span></span>' in html


def test_findings_hide_info_by_default_with_a_control(sample):
    info = replace(sample.findings[0], severity=Severity.INFO, message="an informational note")
    result = replace(sample, findings=(*sample.findings, info))
    html = render_html(result)
    assert "<script" not in html  # self-contained, no script: the control is a checkbox and a CSS rule
    box = html.index('<input type="checkbox" id="show-info">')
    table = html.index("<th>Location</th>")
    assert box < table
    assert "#show-info:not(:checked)~.scroll tr.sev-info{display:none}" in html
    rows = re.findall(r'<tr class="sev-(\w+)">', html)
    assert rows.count("info") == 1 and len(rows) == len(result.findings)
    assert f"Show all {len(result.findings)} findings, with the 1 informational one" in html


def test_no_control_without_info_findings(sample):
    assert all(f.severity is not Severity.INFO for f in sample.findings)
    assert 'id="show-info"' not in render_html(sample)


def test_markdown_carries_the_same_summary(sample):
    from vado.report.markdown import render_markdown

    md = render_markdown(sample)
    main = S.target_overviews(sample)[0]
    assert f"**In short:** for `{main.target}` the code needs manual work." in md
    assert f"about {S.fmt_hours(main.effort.hours)} h" in md
    assert f"`vado port` applies {S.fix_counts(sample)['safe']} safe fixes" in md
    assert md.index("**In short:**") < md.index("## Verdicts")
