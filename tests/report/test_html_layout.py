"""The HTML report stays inside the page: wide tables scroll in their own box, long words wrap, labels fit."""

from __future__ import annotations

import re

from vado.report import html
from vado.report.html import bar_chart, render_html

from report_sample import build_sample


def test_every_table_scrolls_in_its_own_box_and_cells_wrap():
    page = render_html(build_sample())
    tables = page.count("<table>")
    assert tables > 3
    assert page.count('<div class="scroll"><table>') == tables
    assert page.count("</table></div>") == tables
    # Cells break between words, and inside one only when it cannot fit: `anywhere` split LIB010 and rocm-7.2.
    assert "overflow-wrap:break-word" in page and "anywhere" not in page and ".scroll{overflow-x:auto" in page


def test_chart_labels_fit_their_column():
    label = "kernels/very/deep/path/to/some/attention_kernel.cu"
    svg = bar_chart("t", [(label, 3, "#000")])
    (shown,) = re.findall(r'text-anchor="end">([^<]*)<', svg)
    assert len(shown) <= 34 and shown.startswith("…")
    # About 7 px a character at 12 px: the clipped label fits left of the bars.
    assert 34 * 7 + 8 <= html._LABEL_WIDTH


def test_a_plain_summary_opens_the_page_and_information_is_folded_away():
    page = render_html(build_sample())
    assert page.index("<h2>Summary</h2>") < page.index("<h2>Verdicts</h2>")
    assert "rocm-7.2: 4 of 7 files move as they are or with vado&#x27;s automatic edits" in page
    findings = page[page.index("<h2>Findings</h2>"):page.index("<h2>Skipped files</h2>")]
    sample = build_sample()
    n_info = sum(f.severity.value == "info" for f in sample.findings)
    if n_info:
        assert f"<details><summary>{n_info} informational finding" in findings
        assert findings.index('class="s-info"') > findings.index("<details>")


def test_chart_values_are_written_as_given():
    svg = bar_chart("Effort (hours)", [("a", 408.0, "#000"), ("b", 2.5, "#111")], value_text=lambda h: f"{h:g} h")
    assert ">408 h<" in svg and ">2.5 h<" in svg and "4080" not in svg
