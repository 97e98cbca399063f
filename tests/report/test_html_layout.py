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
    assert "overflow-wrap:anywhere" in page and ".scroll{overflow-x:auto" in page


def test_chart_labels_fit_their_column():
    label = "kernels/very/deep/path/to/some/attention_kernel.cu"
    svg = bar_chart("t", [(label, 3, "#000")])
    (shown,) = re.findall(r'text-anchor="end">([^<]*)<', svg)
    assert len(shown) <= 34 and shown.startswith("…")
    # About 7 px a character at 12 px: the clipped label fits left of the bars.
    assert 34 * 7 + 8 <= html._LABEL_WIDTH
