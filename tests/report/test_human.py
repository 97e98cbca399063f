"""The human formats (terminal, Markdown, HTML) and the ``render`` dispatcher."""

from __future__ import annotations

import dataclasses
import re
from html.parser import HTMLParser

import pytest

from vado.errors import UsageError
from vado.model import Verdict
from vado.report import (FORMATS, render, render_concise, render_github, render_gitlab, render_html, render_json, render_junit,
                         render_markdown, render_sarif, render_terminal)

XSS = '<script>alert("x")</script> & <img src=x onerror=alert(1)>'


def _with_message(result, message):
    findings = list(result.findings)
    findings[0] = dataclasses.replace(findings[0], message=message)
    return dataclasses.replace(result, findings=tuple(findings))


# render() -------------------------------------------------------------------


def test_render_dispatches_to_each_format(sample):
    direct = {
        "text": render_terminal(sample),
        "concise": render_concise(sample),
        "json": render_json(sample),
        "sarif": render_sarif(sample),
        "markdown": render_markdown(sample),
        "html": render_html(sample),
        "github": render_github(sample),
        "gitlab": render_gitlab(sample),
        "junit": render_junit(sample),
    }
    assert set(direct) == set(FORMATS)
    for fmt, text in direct.items():
        assert render(sample, fmt) == text
    assert render(sample, " HTML ") == direct["html"]


def test_render_passes_terminal_options(sample):
    assert render(sample, "text", width=60, color=True) == render_terminal(sample, width=60, color=True)


def test_render_rejects_unknown_format(sample):
    with pytest.raises(UsageError) as info:
        render(sample, "pdf")
    assert "'pdf'" in info.value.what and "sarif" in info.value.why


@pytest.mark.parametrize("fmt", FORMATS)
def test_empty_result_renders(empty, fmt):
    text = render(empty, fmt)
    # concise: verdicts and a count; github: one notice; gitlab: an empty list
    assert text.endswith("\n") and len(text) > {"concise": 20, "github": 20, "gitlab": 1}.get(fmt, 50)


# terminal -------------------------------------------------------------------


@pytest.mark.parametrize("width", [60, 80, 100, 140])
def test_terminal_respects_width(sample, width):
    lines = render_terminal(sample, width=width).splitlines()
    assert max(len(line) for line in lines) <= width
    assert all(line == line.rstrip() for line in lines)


def test_terminal_is_grouped_by_file_then_finding(sample):
    text = render_terminal(sample)
    order = [text.index(p) for p in ("CMakeLists.txt  cmake", "kernels/attention.cu  cuda-source",
                                     "kernels/attention.cuh", "src/gemm.cpp  cxx-source")]
    assert order == sorted(order)
    section = text[text.index("kernels/attention.cu  cuda-source"):text.index("kernels/attention.cuh  cuda-header")]
    assert [m.group(1) for m in re.finditer(r"^\s+(\d+):\d+\s+[A-Z]+\d+", section, re.M)] == ["1", "5", "11", "17", "19"]


def test_terminal_colour(sample):
    plain = render_terminal(sample)
    coloured = render_terminal(sample, color=True)
    assert "\x1b[" not in plain
    assert "\x1b[1;31mblocked\x1b[0m" in coloured  # verdict.blocked is bold red
    assert "\x1b[33mneeds manual work\x1b[0m" in coloured  # verdict.needs-manual-work is yellow
    assert re.sub(r"\x1b\[[0-9;]*m", "", coloured) == plain


def test_terminal_does_not_interpret_markup(sample):
    text = render_terminal(_with_message(sample, "[bold]cudaMalloc[/bold] :smile:"))
    assert "[bold]cudaMalloc[/bold] :smile:" in text


def test_terminal_theme_matches_the_cli():
    from vado.cli.terminal import _THEME
    from vado.report.terminal import THEME

    assert {k: str(v) for k, v in THEME.styles.items()} == {k: str(v) for k, v in _THEME.styles.items()}


def test_terminal_totals(sample):
    text = render_terminal(sample)
    assert "13 lines, 11 constructs, about 9.25 h by hand" in text
    assert "fixes: 4 safe, 2 unsafe, 1 display-only, 3 without" in text


# Markdown -------------------------------------------------------------------


def _table_rows(md: str, header: str) -> list[str]:
    start = md.index(header)
    rows = []
    for line in md[start:].splitlines()[2:]:
        if not line.startswith("|"):
            break
        rows.append(line)
    return rows


def _cells(row: str) -> int:
    # Cells are split by pipes that are not escaped.
    return len(re.findall(r"(?<!\\)\|", row)) - 1


def test_markdown_blocked_findings_first(sample):
    md = render_markdown(sample)
    rows = _table_rows(md, "| Location | Code |")
    assert len(rows) == len(sample.findings)
    blocked = [r for r in rows if "**blocked**" in r]
    assert rows[: len(blocked)] == blocked and len(blocked) == 2
    assert rows[0].startswith("| `kernels/attention.cu:11` | `PTX001` |")


def test_markdown_sections(sample):
    md = render_markdown(sample)
    heads = re.findall(r"^## (.+)$", md, re.M)
    assert heads == ["Verdicts", "Findings", "Workloads", "Findings by family", "Top files", "Skipped files",
                     "Errors", "Rules"]


def test_markdown_escapes_cells(sample):
    md = render_markdown(_with_message(sample, "a | b\nc `d` *e* " + XSS))
    (row,) = [r for r in _table_rows(md, "| Location | Code |") if "a \\| b" in r]
    assert _cells(row) == 6
    assert "<script>" not in md and "\\<script\\>" in md
    assert "<br>c \\`d\\` \\*e\\*" in row


def test_markdown_code_spans_survive_pipes_and_backticks(sample):
    from vado.report.markdown import code

    assert code("a`b") == "``a`b``"
    assert code("x|y") == "`x\\|y`"
    assert code("`x") == "`` `x ``"


# HTML -----------------------------------------------------------------------


class _Checker(HTMLParser):
    VOID = {"meta", "br", "img", "input", "link", "hr", "wbr"}
    SVG_VOID = {"rect"}  # written as <rect .../> when it has no <title>

    def __init__(self):
        super().__init__()
        self.stack: list[str] = []
        self.tags: list[str] = []
        self.bad: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        if tag not in self.VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag, attrs):
        self.tags.append(tag)

    def handle_endtag(self, tag):
        if not self.stack or self.stack[-1] != tag:
            self.bad.append(f"</{tag}> closes {self.stack[-1:] or 'nothing'}")
        else:
            self.stack.pop()


def _check(html: str) -> _Checker:
    c = _Checker()
    c.feed(html)
    c.close()
    return c


def test_html_is_well_formed_and_self_contained(sample):
    html = render_html(sample)
    c = _check(html)
    assert c.bad == [] and c.stack == []
    assert html.startswith("<!DOCTYPE html>")
    assert c.tags.count("svg") == 3  # verdicts, families, hot files
    assert "script" not in c.tags and "link" not in c.tags and "img" not in c.tags
    assert not re.search(r"\b(src|href)\s*=", html)
    assert "url(" not in html and "@import" not in html and "http" not in html


def test_html_escapes_messages(sample):
    html = render_html(_with_message(sample, XSS))
    c = _check(html)
    assert "script" not in c.tags and "img" not in c.tags
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &lt;img src=x" in html


def test_html_escapes_paths_in_svg(sample):
    files = list(sample.findings)
    files[0] = dataclasses.replace(files[0], span=dataclasses.replace(files[0].span, path='a"<b>.cu'))
    html = render_html(dataclasses.replace(sample, findings=tuple(files)))
    c = _check(html)
    assert c.bad == [] and "b" not in c.tags
    assert "a&quot;&lt;b&gt;.cu" in html


def test_html_stacked_bars_add_up(sample):
    from vado.report.html import _PLOT_WIDTH, stacked_verdict_chart

    svg = stacked_verdict_chart(sample)
    for target in sample.targets:
        widths = [float(w) for w in re.findall(rf'width="([0-9.]+)" height="20" fill="#[0-9a-f]+"><title>{re.escape(target)}:', svg)]
        assert abs(sum(widths) - _PLOT_WIDTH) < 0.5
    counts = re.findall(r"<title>hip-5\.2: (\d+) ([a-z ]+)</title>", svg)
    assert counts == [("1", Verdict.MOVES_AS_IS.label), ("3", Verdict.AUTOMATIC.label),
                      ("1", Verdict.MANUAL.label), ("2", Verdict.BLOCKED.label)]
