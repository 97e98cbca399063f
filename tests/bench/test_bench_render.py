"""Report formats of bench results: numbers, escaping, charts."""

import dataclasses

from vado.bench.render import BarChart, LineChart, num, render, svg_bar_chart, svg_line_chart

from bench_samples import ALL


def test_number_format():
    assert [num(x) for x in (0, 1234567.0, 0.5, 0.000123456, 1e12, None, float("nan"))] == [
        "0", "1234567", "0.5000", "0.0001235", "1.000e+12", "-", "-"]


def test_every_kind_renders_in_every_format():
    for r in ALL.values():
        for fmt in ("text", "markdown", "html"):
            assert render(r, fmt).strip()


def test_html_escapes_text_from_results():
    r = dataclasses.replace(ALL["command"], label="<script>alert(1)</script>")
    html = render(r, "html")
    assert "<script>" not in html and "&lt;script&gt;" in html


def test_svg_charts_handle_missing_points():
    svg = svg_line_chart(LineChart("t", "x", "y", ["1", "2", "3"], [("a", [1.0, None, 3.0]), ("b", [None, None, None])]))
    assert svg.count("<circle") == 2 and "<polyline" in svg
    bars = svg_bar_chart(BarChart("t", "ms", [("A=1", 2.0, "baseline"), ("A=2", None, "rejected"), ("A=3", 1.0, "best")]))
    assert bars.count("<rect") == 2 and "rejected" in bars
