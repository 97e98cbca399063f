"""The Markdown report fits GitHub's comment limit: the findings that matter most stay, the rest are counted."""

from __future__ import annotations

import dataclasses

from vado.model import Severity, Skip, SkipReason
from vado.report.markdown import GITHUB_COMMENT_LIMIT, render_markdown

from report_sample import build_sample


def _big(n: int):
    sample = build_sample()
    base = sample.findings
    many = []
    for i in range(n):
        f = base[i % len(base)]
        span = dataclasses.replace(f.span, path=f"gen/file_{i:05d}.cu")
        many.append(dataclasses.replace(f, span=span, message=f"{f.message} (copy {i}) " + "x" * 80))
    skips = tuple(Skip(f"vendor/lib{i}.so", SkipReason.BINARY, "a binary file") for i in range(300))
    return dataclasses.replace(sample, findings=tuple(many), skips=skips)


def test_small_reports_are_whole():
    sample = build_sample()
    assert render_markdown(sample) == render_markdown(sample, max_chars=None)


def test_large_report_fits_the_comment_limit_and_says_what_it_left_out():
    result = _big(3000)
    full = render_markdown(result, max_chars=None)
    assert len(full) > 3 * GITHUB_COMMENT_LIMIT
    text = render_markdown(result)
    assert len(text) <= GITHUB_COMMENT_LIMIT
    listed = sum(1 for line in text.splitlines() if "(copy " in line)
    assert 0 < listed < 3000
    assert f"{3000 - listed} more findings are not listed" in text
    assert "280 more skipped files are not listed." in text
    # Every summary section is still there.
    for heading in ("## Verdicts", "## Findings", "## Workloads", "## Findings by family", "## Top files", "## Rules"):
        assert heading in text
    # The worst findings are the ones kept: no lower severity listed while a higher one is left out.
    kept = [line for line in text.splitlines() if "(copy " in line]
    severities = [s.value for s in sorted(Severity, key=lambda s: -s.rank)]
    ranks = [next(i for i, s in enumerate(severities) if f"| {s} |" in line) for line in kept]
    cut = {f.severity.value for f in result.findings} - {severities[r] for r in ranks}
    assert all(severities.index(c) > max(ranks) for c in cut) or not cut


def test_a_tighter_limit_is_honoured():
    text = render_markdown(_big(500), max_chars=20_000)
    assert len(text) <= 20_000 and "more findings are not listed" in text
