"""The aggregates shared by the formats (vado.report._summary)."""

from __future__ import annotations

import dataclasses

from vado.model import Effort, Finding, Severity, Span, Verdict
from vado.report import _summary as S

from report_sample import build_empty


def test_fallback_family_order_matches_the_registry():
    from vado.rules.registry import FAMILIES

    assert S._KNOWN_FAMILIES == tuple(FAMILIES)


def test_family_rows_follow_registry_order_and_unknown_families_last(sample):
    extra = Finding("ZZZ001", "odd", Severity.INFO, Span("x.cu", 0, 1), "m")
    rows = S.family_summaries(dataclasses.replace(sample, findings=sample.findings + (extra,)))
    assert [r.family for r in rows] == ["API", "LIB", "PTX", "WARP", "ARCH", "DEP", "IMG", "BLD", "ZZZ"]
    api = rows[0]
    assert (api.count, api.files, api.blocked, api.severities[Severity.LOW]) == (3, 1, 0, 3)
    assert rows[-1].description == ""


def test_top_files_order(sample):
    rows = S.top_files(sample)
    assert [r.path for r in rows[:3]] == ["kernels/attention.cu", "kernels/attention.cuh", "CMakeLists.txt"]
    assert S.top_files(sample, limit=2) == rows[:2]


def test_target_summary_counts_files_without_verdicts_as_moving_as_is(sample):
    rows = {r.target: r for r in S.target_summaries(sample)}
    assert rows["oneapi"].files == {
        Verdict.MOVES_AS_IS: 1,  # serving/app.py has no finding
        Verdict.AUTOMATIC: 0,
        Verdict.MANUAL: 4,
        Verdict.BLOCKED: 2,
    }
    assert sum(rows["oneapi"].files.values()) == len(sample.files)


def test_target_summary_without_repository_verdicts_uses_the_worst_file(sample):
    rows = S.target_summaries(dataclasses.replace(sample, verdicts=()))
    assert [(r.target, r.verdict) for r in rows] == [
        ("rocm-7.2", Verdict.MANUAL),
        ("hip-5.2", Verdict.BLOCKED),
        ("oneapi", Verdict.BLOCKED),
    ]


def test_files_without_a_report_take_verdicts_from_their_findings():
    f = Finding("PTX001", "p", Severity.HIGH, Span("a.cu", 0, 1), "m",
                {"rocm-7.2": Verdict.MANUAL}, Effort(1, 1, 2.0))
    g = dataclasses.replace(f, span=Span("a.cu", 5, 6), verdicts={"rocm-7.2": Verdict.BLOCKED})
    result = dataclasses.replace(build_empty(), targets=("rocm-7.2",), findings=(g, f))
    (row,) = S.file_summaries(result)
    assert row.verdicts == {"rocm-7.2": Verdict.BLOCKED} and row.count == 2
    assert row.effort == Effort(2, 2, 4.0)
    assert [x.span.start for x in row.findings] == [0, 5]


def test_targets_named_only_by_findings_are_listed_after_the_audited_ones(sample):
    f = dataclasses.replace(sample.findings[0], verdicts={"zluda": Verdict.MANUAL})
    result = dataclasses.replace(sample, findings=sample.findings + (f,))
    assert S.target_names(result) == ["rocm-7.2", "hip-5.2", "oneapi", "zluda"]


def test_worst_first_and_totals(sample):
    ordered = S.findings_worst_first(sample)
    ranks = [S.worst_verdict(f).rank for f in ordered]
    assert ranks == sorted(ranks, reverse=True)
    assert S.total_effort(sample) == Effort(13, 11, 9.25)
    assert S.fix_counts(sample) == {"safe": 4, "unsafe": 2, "display-only": 1, "none": 3}
    assert [(r, n) for r, n, _ in S.skip_summary(sample)] == [("binary", 1), ("too-large", 1), ("vendored", 1)]


def test_number_formats():
    assert [S.fmt_hours(h) for h in (0, 0.25, 1.5, 12.0, 2.999)] == ["0", "0.25", "1.5", "12", "3"]
    assert [S.fmt_bytes(n) for n in (0, 532, 1270, 3 * 1024**2, 5 * 1024**4)] == [
        "0 B", "532 B", "1.2 KiB", "3.0 MiB", "5120.0 GiB"]
    assert (S.plural(1, "error"), S.plural(2, "error"), S.plural(0, "finding")) == ("1 error", "2 errors", "0 findings")
    assert S.error_line({"what": "x"}) == "x" and S.error_line({}) == "unknown error"
