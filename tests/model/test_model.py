"""The model's dataclasses: JSON round trips, enums, frozen-ness, validation."""

from __future__ import annotations

import dataclasses
import json
import pytest

from vado.model import (
    Applicability,
    Edit,
    Effort,
    Fix,
    Severity,
    SkipReason,
    Span,
    Verdict,
    from_json,
    to_json,
)

# pytest puts this directory on sys.path (tests/ has no __init__.py).
from model_samples import ALL, FINDING, FIX, SPAN


@pytest.mark.parametrize("name", sorted(ALL))
def test_round_trip_through_json_text(name):
    obj = ALL[name]
    text = json.dumps(to_json(obj), sort_keys=True)
    back = from_json(type(obj), json.loads(text))
    assert back == obj
    assert type(back) is type(obj)


@pytest.mark.parametrize("name", sorted(ALL))
def test_every_field_is_emitted(name):
    obj = ALL[name]
    assert set(to_json(obj)) == {f.name for f in dataclasses.fields(obj)}


def test_enums_serialise_to_their_values():
    doc = to_json(FINDING)
    assert doc["severity"] == "high"
    assert doc["verdicts"] == {"rocm-7.2": "moves-with-automatic-edits", "oneapi": "needs-manual-work"}
    assert doc["fix"]["applicability"] == "unsafe"
    assert to_json(SkipReason.SYMLINK_OUTSIDE) == "symlink-outside-root"
    assert to_json(Applicability.DISPLAY_ONLY) == "display-only"
    # Plain values, not enum members that happen to compare equal to strings.
    assert type(doc["severity"]) is str


def test_decoded_enums_are_members():
    back = from_json(type(FINDING), to_json(FINDING))
    assert back.severity is Severity.HIGH
    assert back.verdicts["oneapi"] is Verdict.MANUAL
    assert back.fix.applicability is Applicability.UNSAFE


def test_tuples_come_back_as_tuples():
    back = from_json(Fix, to_json(FIX))
    assert isinstance(back.edits, tuple) and isinstance(back.tags, tuple)
    assert hash(back) == hash(FIX)


def test_missing_defaults_are_filled():
    assert from_json(Span, {"path": "a.cu", "start": 1, "end": 2}) == Span("a.cu", 1, 2)
    assert from_json(Effort, {"hours": 2}) == Effort(hours=2.0)
    assert isinstance(from_json(Effort, {"hours": 2}).hours, float)


@pytest.mark.parametrize("name", sorted(ALL))
def test_frozen(name):
    obj = ALL[name]
    field = dataclasses.fields(obj)[0].name
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(obj, field, getattr(obj, field))


@pytest.mark.parametrize("start,end", [(-1, 0), (5, 4), (-3, -1)])
def test_span_rejects_bad_ranges(start, end):
    with pytest.raises(ValueError, match="bad span"):
        Span("a.cu", start, end)


@pytest.mark.parametrize("start,end", [(-1, 0), (5, 4)])
def test_edit_rejects_bad_ranges(start, end):
    with pytest.raises(ValueError, match="bad edit range"):
        Edit("a.cu", start, end, "x")


@pytest.mark.parametrize("value", [1.5, "3", True, None])
def test_offsets_must_be_ints(value):
    with pytest.raises(TypeError, match="must be an int"):
        Span("a.cu", value, 4)
    with pytest.raises(TypeError, match="must be an int"):
        Edit("a.cu", 0, value, "x")


def test_edit_content_must_be_text():
    with pytest.raises(TypeError, match="must be str"):
        Edit("a.cu", 0, 1, b"bytes")


def test_edit_helpers():
    assert Edit("a", 3, 3, "xy").is_insertion
    assert not Edit("a", 3, 4, "").is_insertion
    assert Edit("a", 3, 7, "xy").delta == -2
    assert Edit("a", 3, 3, "xy").delta == 2


def test_span_overlap_rules():
    a = Span("a.cu", 0, 5)
    assert a.overlaps(Span("a.cu", 4, 9))
    assert not a.overlaps(Span("a.cu", 5, 9))  # touching
    assert not a.overlaps(Span("b.cu", 0, 5))
    assert Span("a.cu", 3, 3).overlaps(Span("a.cu", 3, 3))
    assert SPAN.length == 14
    assert SPAN.location() == "src/k.cu:2:3"


def test_edit_overlap_rules():
    r = Edit("a.cu", 2, 6, "R")
    assert r.overlaps(Edit("a.cu", 5, 8, "x"))
    assert r.overlaps(Edit("a.cu", 4, 4, "x"))  # insertion strictly inside
    assert not r.overlaps(Edit("a.cu", 2, 2, "x"))  # insertion at the start: before it
    assert not r.overlaps(Edit("a.cu", 6, 6, "x"))  # insertion at the end: after it
    assert not r.overlaps(Edit("a.cu", 6, 9, "x"))  # adjacent
    assert Edit("a.cu", 3, 3, "x").overlaps(Edit("a.cu", 3, 3, "y"))
    assert not r.overlaps(Edit("b.cu", 2, 6, "R"))


def test_fix_coerces_lists_and_strings():
    fix = Fix([Edit("a", 0, 1, "x")], "unsafe", tags=["t"])
    assert fix.edits == (Edit("a", 0, 1, "x"),)
    assert fix.applicability is Applicability.UNSAFE
    assert fix.tags == ("t",)
    hash(fix)
    assert fix.paths == frozenset({"a"})


def test_fix_rejects_bad_parts():
    with pytest.raises(ValueError, match="choose one of: safe, unsafe, display-only"):
        Fix((), "risky")
    with pytest.raises(TypeError, match="Edit objects"):
        Fix(("not an edit",))


def test_verdict_worst():
    assert Verdict.worst([]) is Verdict.MOVES_AS_IS
    assert Verdict.worst([Verdict.AUTOMATIC, Verdict.BLOCKED, Verdict.MANUAL]) is Verdict.BLOCKED
    assert Verdict.worst(iter([Verdict.AUTOMATIC, Verdict.MOVES_AS_IS])) is Verdict.AUTOMATIC
    assert [v.rank for v in Verdict] == [0, 1, 2, 3]
    assert Verdict.MANUAL.label == "needs manual work"


def test_severity_parse():
    assert Severity.parse(" High ") is Severity.HIGH
    assert Severity.parse("critical").rank == 4
    with pytest.raises(ValueError) as err:
        Severity.parse("urgent")
    assert str(err.value) == "unknown severity 'urgent'; choose one of: info, low, medium, high, critical"


def test_effort_adds():
    assert Effort(1, 2, 0.1) + Effort(3, 4, 0.2) == Effort(4, 6, 0.3)


def test_finding_family_and_order():
    assert FINDING.family == "API"
    later = dataclasses.replace(FINDING, span=Span("src/k.cu", 30, 31))
    assert sorted([later, FINDING], key=lambda f: f.sort_key()) == [FINDING, later]
