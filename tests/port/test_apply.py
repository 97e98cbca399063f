"""The one edit applier: overlaps, fix selection, fixpoint, atomic writes, diffs."""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from vado.errors import PortError
from vado.model import Applicability, Edit, Fix
from vado.model.text import decode_source, encode_source
from vado.port import (
    ApplyResult,
    RejectKind,
    apply_edits,
    apply_to_file,
    backup_path,
    fixpoint,
    select_fixes,
    unified_diff,
    write_atomic,
)
from vado.port.apply import _first_overlap, _sorted_unique

P = "k.cu"


def E(start: int, end: int, content: str = "", path: str = P) -> Edit:
    return Edit(path, start, end, content)


def F(*edits: Edit, applicability=Applicability.SAFE, description: str = "") -> Fix:
    return Fix(tuple(edits), applicability, description)


# ---------------------------------------------------------------------------
# apply_edits


def test_edits_are_sorted_before_applying():
    assert apply_edits(b"abcdef", [E(4, 5, "E"), E(0, 1, "A"), E(2, 2, "+")]) == b"Ab+cdEf"


def test_identical_edits_collapse():
    assert apply_edits(b"abc", [E(1, 1, "#"), E(1, 1, "#"), E(0, 1, "X"), E(0, 1, "X")]) == b"X#bc"


@pytest.mark.parametrize(
    "a,b",
    [
        (E(0, 4, "x"), E(2, 6, "y")),  # ranges share bytes
        (E(3, 3, "x"), E(3, 3, "y")),  # two different insertions at one point
        (E(1, 5, "x"), E(3, 3, "y")),  # insertion strictly inside a replaced range
        (E(0, 6, ""), E(2, 3, "y")),  # range inside a range
        (E(1, 2, "x"), E(1, 2, "y")),  # same range, different content
    ],
)
def test_overlapping_edits_are_refused(a, b):
    for order in ([a, b], [b, a]):
        with pytest.raises(PortError) as err:
            apply_edits(b"abcdefgh", order)
        assert err.value.what == f"overlapping edits in {P}"
        # Both edits are named, whatever the input order.
        for e in (a, b):
            assert repr(e.content) in err.value.why
        assert err.value.tip


def test_overlap_message_is_exact():
    with pytest.raises(PortError) as err:
        apply_edits(b"abcdefgh", [E(3, 3, "y"), E(1, 5, "x")])
    assert err.value.why == (
        "replace [1, 5) with 'x' and insert 'y' at 3 touch the same bytes, so their order is ambiguous"
    )


def test_two_insertions_after_a_range_ending_there_still_clash():
    # [0, 3) ends where both insertions sit; the second must be checked against
    # the first insertion, not against the range.
    with pytest.raises(PortError) as err:
        apply_edits(b"abcdefgh", [E(0, 3, "r"), E(3, 3, "x"), E(3, 3, "y")])
    assert err.value.why.startswith("insert 'x' at 3 and insert 'y' at 3")


def test_long_range_overlap_is_found_past_shorter_ones():
    # [0, 10) reaches past [2, 3) and [4, 5); the clash with [8, 9) must still be seen.
    with pytest.raises(PortError):
        apply_edits(b"0123456789", [E(0, 10, "z"), E(8, 9, "q")])


@pytest.mark.parametrize(
    "edits,expected",
    [
        ([E(0, 2, "X"), E(2, 4, "Y")], b"XYef"),  # adjacent ranges touch, don't overlap
        ([E(2, 4, "R"), E(2, 2, "<")], b"ab<Ref"),  # insertion at a range's start goes before it
        ([E(2, 4, "R"), E(4, 4, ">")], b"abR>ef"),  # insertion at a range's end goes after it
        ([E(2, 2, "<"), E(2, 4, "R"), E(4, 4, ">"), E(4, 6, "S")], b"ab<R>S"),
        ([E(6, 6, "!")], b"abcdef!"),  # insertion at end of file
        ([E(0, 6, "")], b""),
        ([], b"abcdef"),
    ],
)
def test_touching_edits_are_allowed(edits, expected):
    assert apply_edits(b"abcdef", edits) == expected


def test_edits_of_several_files_are_refused():
    with pytest.raises(PortError, match="several files"):
        apply_edits(b"abc", [E(0, 1, "x"), E(0, 1, "x", path="other.cu")])


def test_edit_past_the_end_is_refused():
    with pytest.raises(PortError) as err:
        apply_edits(b"abc", [E(2, 4, "x")])
    assert "ends past the end of the file (3 bytes)" in err.value.why


def test_non_utf8_bytes_outside_edits_are_preserved():
    # latin-1 é, an invalid UTF-8 lead byte, a truncated sequence, NUL, CRLF, a lone CR.
    data = b"// caf\xe9\r\n\xff\xfe\x00cudaMalloc(\xe2\x82);\r\nint x;\rint y;\x00\n"
    start = data.index(b"cudaMalloc")
    out = apply_edits(data, [E(start, start + 10, "hipMalloc"), E(0, 0, "#include <hip/hip_runtime.h>\r\n")])
    assert out == b"#include <hip/hip_runtime.h>\r\n// caf\xe9\r\n\xff\xfe\x00hipMalloc(\xe2\x82);\r\nint x;\rint y;\x00\n"


def test_replacement_text_above_latin1_is_utf8():
    assert apply_edits(b"a\xffb", [E(1, 2, "\u2192")]) == b"a\xe2\x86\x92b"
    assert apply_edits(b"a\xffb", [E(1, 2, "\xe9")]) == b"a\xe9b"


# Property tests --------------------------------------------------------------

contents = st.text(alphabet=st.characters(max_codepoint=0x2FF), max_size=4)


@st.composite
def file_and_edits(draw):
    data = draw(st.binary(max_size=40))
    n = len(data)
    raw = draw(st.lists(st.tuples(st.integers(0, n), st.integers(0, 6), contents), max_size=8))
    kept: list[Edit] = []
    for start, length, content in raw:
        e = E(start, min(n, start + length), content)
        if e not in kept and not any(e.overlaps(k) for k in kept):
            kept.append(e)
    return data, kept


@settings(max_examples=150, deadline=None)
@given(file_and_edits(), st.randoms(use_true_random=False))
def test_any_order_gives_the_same_result_and_keeps_other_bytes(case, rnd):
    data, edits = case
    expected = apply_edits(data, edits)
    shuffled = list(edits) + list(edits[:2])  # duplicates collapse too
    rnd.shuffle(shuffled)
    assert apply_edits(data, shuffled) == expected
    # Every gap between edits comes through untouched, at its shifted place.
    ordered = sorted(edits, key=lambda e: (e.start, e.end))
    out_pos, pos = 0, 0
    for e in ordered:
        gap = data[pos : e.start]
        assert expected[out_pos : out_pos + len(gap)] == gap
        out_pos += len(gap)
        new = encode_source(e.content)
        assert expected[out_pos : out_pos + len(new)] == new
        out_pos += len(new)
        pos = e.end
    assert expected[out_pos:] == data[pos:]


edits_any = st.lists(
    st.tuples(st.integers(0, 12), st.integers(0, 4), st.sampled_from(["", "a", "b"])).map(
        lambda t: E(t[0], t[0] + t[1], t[2])),
    max_size=7,
)


@settings(max_examples=200, deadline=None)
@given(edits_any)
@example([E(0, 3, "a"), E(3, 3, "a"), E(3, 3, "b")])
def test_sweep_finds_an_overlap_exactly_when_a_pair_overlaps(edits):
    unique = _sorted_unique(edits)
    brute = any(a.overlaps(b) for i, a in enumerate(unique) for b in unique[i + 1 :])
    pair = _first_overlap(unique)
    assert (pair is not None) == brute
    if pair is not None:
        assert pair[0].overlaps(pair[1])


@settings(max_examples=100, deadline=None)
@given(st.lists(edits_any.map(tuple), max_size=6), st.randoms(use_true_random=False))
def test_selection_is_order_independent_and_never_overlaps(groups, rnd):
    fixes = [Fix(g, description=f"f{i}") for i, g in enumerate(groups)]
    accepted, rejected = select_fixes(fixes)
    assert len(accepted) + len(rejected) == len(fixes)
    shuffled = list(fixes)
    rnd.shuffle(shuffled)
    again, _ = select_fixes(shuffled)
    assert again == accepted
    all_edits = _sorted_unique(e for f in accepted for e in f.edits)
    assert _first_overlap(all_edits) is None
    apply_edits(b"x" * 16, all_edits)  # never raises for accepted fixes


# ---------------------------------------------------------------------------
# select_fixes


def test_display_only_is_never_applied_and_unsafe_needs_the_flag():
    safe = F(E(0, 1, "s"), description="safe")
    risky = F(E(2, 3, "u"), applicability=Applicability.UNSAFE, description="risky")
    shown = F(E(4, 5, "d"), applicability=Applicability.DISPLAY_ONLY, description="shown")
    accepted, rejected = select_fixes([shown, risky, safe])
    assert accepted == [safe]
    assert [(f.description, r.kind) for f, r in rejected] == [
        ("risky", RejectKind.UNSAFE), ("shown", RejectKind.DISPLAY_ONLY)]
    accepted, rejected = select_fixes([shown, risky, safe], unsafe=True)
    assert accepted == [safe, risky]
    assert [(f, r.kind) for f, r in rejected] == [(shown, RejectKind.DISPLAY_ONLY)]


def test_a_fix_is_all_or_nothing():
    first = F(E(0, 2, "A"), description="first")
    # Its second edit clashes with `first`; its harmless first edit is not applied either.
    second = F(E(5, 6, "B"), E(1, 1, "C"), description="second")
    accepted, rejected = select_fixes([second, first])
    assert accepted == [first]
    (fix, reason), = rejected
    assert fix is second and reason.kind is RejectKind.OVERLAP
    assert str(reason) == "overlap: insert 'C' at 1 overlaps replace [0, 2) with 'A' of fix 'first'"


def test_shared_identical_edits_are_not_a_conflict():
    include = E(0, 0, "#include <hip/hip_runtime.h>\n")
    a = F(include, E(10, 14, "hipA"), description="a")
    b = F(include, E(20, 24, "hipB"), description="b")
    accepted, rejected = select_fixes([b, a])
    assert accepted == [a, b] and rejected == []
    out = apply_edits(b"0123456789cudaxxxxxxcuda", [e for f in accepted for e in f.edits])
    assert out == b"#include <hip/hip_runtime.h>\n0123456789hipAxxxxxxhipB"


def test_duplicate_fix_is_reported_once():
    a = F(E(0, 1, "x"), description="a")
    twin = F(E(0, 1, "x"), description="b")
    accepted, rejected = select_fixes([twin, a])
    assert accepted == [a]
    assert [(f, r.kind, r.detail) for f, r in rejected] == [(twin, RejectKind.DUPLICATE, "same edits as fix 'a'")]


def test_malformed_fixes_are_rejected_not_raised():
    empty = F(description="empty")
    self_overlap = F(E(0, 3, "x"), E(1, 2, "y"), description="self")
    elsewhere = F(E(0, 1, "x"), E(0, 1, "x", path="b.cu"), description="two files")
    too_far = F(E(8, 12, "x"), description="far")
    accepted, rejected = select_fixes([empty, self_overlap, elsewhere, too_far], path=P, size=10)
    assert accepted == []
    kinds = {f.description: r.kind for f, r in rejected}
    assert kinds == {"empty": RejectKind.EMPTY, "self": RejectKind.SELF_OVERLAP,
                     "two files": RejectKind.OTHER_FILE, "far": RejectKind.OUT_OF_RANGE}


def test_order_is_by_place_then_safety():
    late = F(E(5, 6, "late"), description="late")
    early_unsafe = F(E(0, 2, "u"), applicability=Applicability.UNSAFE, description="u")
    early_safe = F(E(0, 2, "s"), description="s")
    accepted, rejected = select_fixes([late, early_unsafe, early_safe], unsafe=True)
    # Same place: the safe fix wins over the unsafe one.
    assert accepted == [early_safe, late]
    assert rejected[0].fix is early_unsafe and rejected[0].reason.kind is RejectKind.OVERLAP


# ---------------------------------------------------------------------------
# fixpoint


def rename_rule(text: str) -> list[Fix]:
    """A toy rule: cudaX → hipX, and the HIP include once, shared by every rename."""
    fixes = []
    include = E(0, 0, '#include "hip/hip_runtime.h"\n')
    has_include = text.startswith('#include "hip')
    for m in re.finditer(r"\bcuda(\w+)", text):
        edits = [E(m.start(), m.end(), "hip" + m.group(1))]
        if not has_include:
            edits.append(include)
        fixes.append(Fix(tuple(edits), description=f"rename {m.group(0)}"))
    return fixes


def spacing_rule(text: str) -> list[Fix]:
    """Overlaps the rename: wants `Malloc(` → `Malloc (`, replacing from the name's start."""
    return [Fix((E(m.start(), m.end(), m.group(1) + "Malloc ("),), description="space")
            for m in re.finditer(r"\b(\w+)Malloc\(", text)]


def both_rules(text: str) -> list[Fix]:
    return rename_rule(text) + spacing_rule(text)


def test_fixpoint_applies_dropped_fixes_in_later_rounds():
    src = "x = cudaMalloc(&p, n);\n"
    result = fixpoint(src, both_rules)
    assert result.text == '#include "hip/hip_runtime.h"\nx = hipMalloc (&p, n);\n'
    assert [[f.description for f in r] for r in result.rounds] == [["rename cudaMalloc"], ["space"]]
    assert len(result.applied) == 2


def test_port_twice_equals_port_once():
    src = decode_source(b"\xff\xfe// \xe9\r\nint main() { cudaFree(p); cudaMalloc(&p, 4); }\r\n\x00")
    once = fixpoint(src, both_rules)
    twice = fixpoint(once.text, both_rules)
    assert twice.text == once.text
    assert twice.rounds == ()
    assert encode_source(once.text).endswith(b"hipMalloc (&p, 4); }\r\n\x00")
    assert encode_source(once.text).startswith(b'#include "hip/hip_runtime.h"\n\xff\xfe// \xe9\r\n')


def test_fixpoint_without_fixes_is_the_identity():
    assert fixpoint("int x;", lambda t: []) == ("int x;", ())
    # A fix that rewrites text to itself ends the loop too.
    assert fixpoint("ab", lambda t: [F(E(0, 1, "a"))]).rounds == ()


def test_fixpoint_refuses_a_rule_that_never_stops():
    grow = lambda t: [F(E(len(t), len(t), "x"))]  # noqa: E731
    with pytest.raises(PortError) as err:
        fixpoint("", grow, max_rounds=3)
    assert err.value.why == "the text still changed after 3 rounds"


def test_fixpoint_refuses_oscillation():
    flip = lambda t: [F(E(0, 1, "b" if t[0] == "a" else "a"))]  # noqa: E731
    with pytest.raises(PortError, match="earlier state"):
        fixpoint("a", flip)


def test_fixpoint_keeps_offsets_bytes_after_utf8_replacements():
    # The arrow becomes three bytes; the next round must see byte offsets.
    def rule(t: str) -> list[Fix]:
        fixes = []
        if "->" in t:
            i = t.index("->")
            fixes.append(F(E(i, i + 2, "\u2192")))
        elif t.endswith("x"):
            fixes.append(F(E(len(t) - 1, len(t), "y")))
        return fixes

    seen: list[str] = []

    def recording(t: str) -> list[Fix]:
        seen.append(t)
        return rule(t)

    result = fixpoint("a->x", recording)
    assert encode_source(result.text) == b"a\xe2\x86\x92y"
    # Every round sees the latin-1 view of the bytes: one character per byte.
    assert seen[1] == "a\xe2\x86\x92x"
    assert all(len(encode_source(t)) == len(t) for t in seen)


def test_fixpoint_unsafe_flag():
    rule = lambda t: [F(E(0, 1, "B"), applicability=Applicability.UNSAFE)] if t[0] == "b" else []  # noqa: E731
    assert fixpoint("b", rule).text == "b"
    assert fixpoint("b", rule, unsafe=True).text == "B"


def test_fixpoint_max_rounds_must_be_positive():
    with pytest.raises(ValueError):
        fixpoint("", lambda t: [], max_rounds=0)


# ---------------------------------------------------------------------------
# write_atomic


def leftovers(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if p.name.endswith(".vado-tmp"))


def test_new_file_in_new_tree(tmp_path):
    out = tmp_path / "out" / "src" / "k.hip"
    assert write_atomic(out, b"\x00\xff\r\n") is None
    assert out.read_bytes() == b"\x00\xff\r\n"
    assert leftovers(out.parent) == []


def test_existing_file_is_never_overwritten_without_a_backup(tmp_path):
    f = tmp_path / "k.cu"
    f.write_bytes(b"old")
    with pytest.raises(PortError) as err:
        write_atomic(f, b"new")
    assert err.value.what == f"refusing to overwrite {f} without a backup"
    assert f.read_bytes() == b"old"
    assert write_atomic(f, b"new", overwrite=True) is None
    assert f.read_bytes() == b"new"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["k.cu"]


def test_backups_are_never_clobbered(tmp_path):
    f = tmp_path / "k.cu"
    f.write_bytes(b"v0\xff")
    made = [write_atomic(f, f"v{i}".encode(), backup=True) for i in (1, 2, 3)]
    assert [p.name for p in made] == ["k.cu.vado-bak", "k.cu.vado-bak.1", "k.cu.vado-bak.2"]
    assert [p.read_bytes() for p in made] == [b"v0\xff", b"v1", b"v2"]
    assert f.read_bytes() == b"v3"
    assert backup_path(f) == tmp_path / "k.cu.vado-bak.3"


def test_backup_directory(tmp_path):
    f = tmp_path / "src" / "k.cu"
    f.parent.mkdir()
    f.write_bytes(b"orig")
    bdir = tmp_path / "backups" / "src"
    first = write_atomic(f, b"new", backup=bdir)
    second = write_atomic(f, b"newer", backup=str(bdir))
    assert (first, second) == (bdir / "k.cu.vado-bak", bdir / "k.cu.vado-bak.1")
    assert first.read_bytes() == b"orig" and second.read_bytes() == b"new"
    assert sorted(p.name for p in f.parent.iterdir()) == ["k.cu"]


def test_expected_mismatch_is_refused(tmp_path):
    f = tmp_path / "k.cu"
    f.write_bytes(b"edited by someone else")
    with pytest.raises(PortError) as err:
        write_atomic(f, b"port", backup=True, expected=b"what we read")
    assert err.value.what == f"{f} changed on disk"
    assert f.read_bytes() == b"edited by someone else"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["k.cu"]
    # Matching bytes go through.
    write_atomic(f, b"port", overwrite=True, expected=b"edited by someone else")
    assert f.read_bytes() == b"port"


def test_expected_but_file_gone(tmp_path):
    with pytest.raises(PortError, match="no longer exists"):
        write_atomic(tmp_path / "gone.cu", b"x", expected=b"y")


@pytest.mark.skipif(os.name != "posix", reason="POSIX permission bits")
def test_file_mode_is_kept(tmp_path):
    f = tmp_path / "run.sh"
    f.write_bytes(b"#!/bin/sh\n")
    f.chmod(0o751)
    backup = write_atomic(f, b"#!/bin/sh\necho hip\n", backup=True)
    assert stat.S_IMODE(f.stat().st_mode) == 0o751
    assert stat.S_IMODE(backup.stat().st_mode) == 0o751
    new = tmp_path / "out" / "run.sh"
    write_atomic(new, b"x", mode=0o100751)
    assert stat.S_IMODE(new.stat().st_mode) == 0o751


@pytest.mark.parametrize("broken", ["replace", "fsync"])
def test_crash_leaves_the_original_intact(tmp_path, monkeypatch, broken):
    f = tmp_path / "k.cu"
    original = b"cuda\xff\x00\r\n"
    f.write_bytes(original)
    real = getattr(os, broken)
    calls = []

    def boom(*args, **kwargs):
        calls.append(args)
        # Let the backup's fsync through; fail on the temp file's.
        if broken == "fsync" and len(calls) == 1:
            return real(*args, **kwargs)
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, broken, boom)
    with pytest.raises(PortError) as err:
        write_atomic(f, b"hip", backup=True)
    monkeypatch.undo()
    assert err.value.why == "No space left on device"
    assert "original file is unchanged" in err.value.tip
    assert f.read_bytes() == original
    # No temp file and no stray backup of a write that never happened.
    assert sorted(p.name for p in tmp_path.iterdir()) == ["k.cu"]


def test_symlink_targets_are_refused_by_default(tmp_path):
    real = tmp_path / "real.cu"
    real.write_bytes(b"cuda")
    link = tmp_path / "link.cu"
    link.symlink_to(real)
    with pytest.raises(PortError) as err:
        write_atomic(link, b"hip", backup=True)
    assert err.value.what == f"refusing to write {link}"
    assert link.is_symlink() and real.read_bytes() == b"cuda"


def test_follow_symlinks_writes_the_resolved_file_and_keeps_the_link(tmp_path):
    real = tmp_path / "real.cu"
    real.write_bytes(b"cuda")
    link = tmp_path / "link.cu"
    link.symlink_to(real)
    backup = write_atomic(link, b"hip", backup=True, follow_symlinks=True)
    assert link.is_symlink() and os.readlink(link) == str(real)
    assert real.read_bytes() == b"hip"
    assert backup == tmp_path / "real.cu.vado-bak" and backup.read_bytes() == b"cuda"


def test_dangling_symlink_cannot_be_followed(tmp_path):
    link = tmp_path / "link.cu"
    link.symlink_to(tmp_path / "missing.cu")
    with pytest.raises(PortError):
        write_atomic(link, b"x")
    with pytest.raises(PortError, match="cannot follow symlink"):
        write_atomic(link, b"x", follow_symlinks=True)


def test_directory_target_is_refused(tmp_path):
    with pytest.raises(PortError, match="not a regular file"):
        write_atomic(tmp_path, b"x", overwrite=True)


# ---------------------------------------------------------------------------
# apply_to_file


SOURCE = b"// \xe9t\xe9\r\n\xff int main() { cudaMalloc(&p, 4); }\r\n\x00tail"


def rename_fixes(data: bytes, path: str = "src/k.cu") -> list[Fix]:
    return [Fix((Edit(path, e.start, e.end, e.content),), e_fix.applicability, e_fix.description)
            for e_fix in rename_rule(decode_source(data)) for e in e_fix.edits[:1]]


def test_apply_in_place_with_backup(tmp_path):
    f = tmp_path / "k.cu"
    f.write_bytes(SOURCE)
    shown = Fix((Edit("src/k.cu", 0, 2, "/*"),), Applicability.DISPLAY_ONLY, "comment style")
    result = apply_to_file(f, rename_fixes(SOURCE) + [shown])
    assert isinstance(result, ApplyResult)
    assert result.applied_count == 1 and result.changed and result.written
    assert result.after == SOURCE.replace(b"cudaMalloc", b"hipMalloc")
    assert f.read_bytes() == result.after
    assert result.backup == tmp_path / "k.cu.vado-bak" and result.backup.read_bytes() == SOURCE
    assert [(fx.description, r.kind) for fx, r in result.rejected] == [("comment style", RejectKind.DISPLAY_ONLY)]
    assert result.summary() == {
        "path": str(f), "output": str(f), "applied": 1, "changed": True, "written": True,
        "backup": str(tmp_path / "k.cu.vado-bak"),
        "rejected": [{"description": "comment style", "reason": "display-only",
                      "detail": "shown as a suggestion, never applied"}],
    }


def test_apply_twice_equals_apply_once_and_makes_no_second_backup(tmp_path):
    f = tmp_path / "k.cu"
    f.write_bytes(SOURCE)
    first = apply_to_file(f, rename_fixes(SOURCE))
    second = apply_to_file(f, rename_fixes(f.read_bytes()))
    assert second.applied_count == 0 and not second.changed and not second.written
    assert second.backup is None
    assert f.read_bytes() == first.after
    assert sorted(p.name for p in tmp_path.iterdir()) == ["k.cu", "k.cu.vado-bak"]


def test_apply_into_an_output_tree(tmp_path):
    f = tmp_path / "src" / "k.cu"
    f.parent.mkdir()
    f.write_bytes(SOURCE)
    out = tmp_path / "ported" / "src" / "k.hip"
    result = apply_to_file(f, rename_fixes(SOURCE), output=out, backup=False)
    assert result.output == out and result.backup is None
    assert out.read_bytes() == result.after and f.read_bytes() == SOURCE
    # A second run into the same tree meets an existing output: the policy applies.
    with pytest.raises(PortError, match="without a backup"):
        apply_to_file(f, rename_fixes(SOURCE), output=out, backup=False)


def test_unchanged_file_is_still_written_to_an_output_tree(tmp_path):
    f = tmp_path / "k.cu"
    f.write_bytes(b"int x;\n")
    out = tmp_path / "out" / "k.cu"
    result = apply_to_file(f, [], output=out)
    assert result.written and out.read_bytes() == b"int x;\n"


def test_dry_run_writes_nothing(tmp_path):
    f = tmp_path / "k.cu"
    f.write_bytes(SOURCE)
    result = apply_to_file(f, rename_fixes(SOURCE), dry_run=True)
    assert result.changed and not result.written and result.backup is None
    assert f.read_bytes() == SOURCE
    assert "+\xff int main() { hipMalloc(&p, 4); }\r\n".replace("\xff", "\ufffd") in result.diff()


def test_fixes_of_other_files(tmp_path):
    f = tmp_path / "k.cu"
    f.write_bytes(SOURCE)
    mixed = rename_fixes(SOURCE) + rename_fixes(SOURCE, path="src/other.cu")
    with pytest.raises(PortError, match="several files"):
        apply_to_file(f, mixed)
    result = apply_to_file(f, mixed, edit_path="src/k.cu", dry_run=True)
    assert result.applied_count == 1
    assert [r.kind for _, r in result.rejected] == [RejectKind.OTHER_FILE]


def test_stale_fix_is_rejected_not_applied(tmp_path):
    f = tmp_path / "k.cu"
    f.write_bytes(b"short")
    result = apply_to_file(f, [F(E(3, 40, "x"))], dry_run=True)
    assert result.applied_count == 0 and [r.kind for _, r in result.rejected] == [RejectKind.OUT_OF_RANGE]


def test_in_place_on_a_symlink_is_refused(tmp_path):
    real = tmp_path / "real.cu"
    real.write_bytes(SOURCE)
    link = tmp_path / "link.cu"
    link.symlink_to(real)
    with pytest.raises(PortError, match="refusing to write"):
        apply_to_file(link, rename_fixes(SOURCE))
    assert real.read_bytes() == SOURCE


# ---------------------------------------------------------------------------
# unified_diff


def test_unified_diff_exact():
    before = b"a\r\nb \xff\ncuda\nd\ne\nf\ng\n"
    after = b"a\r\nb \xff\nhip\nd\ne\nf\ng\n"
    assert unified_diff(before, after, "src/k.cu") == (
        "--- a/src/k.cu\n"
        "+++ b/src/k.cu\n"
        "@@ -1,6 +1,6 @@\n"
        " a\r\n"
        " b \ufffd\n"
        "-cuda\n"
        "+hip\n"
        " d\n"
        " e\n"
        " f\n"
    )


def test_unified_diff_sees_byte_changes_that_display_alike():
    diff = unified_diff(b"x\xff\n", b"x\xfe\n", "k.cu")
    assert "-x\ufffd\n+x\ufffd\n" in diff


def test_unified_diff_marks_missing_final_newline():
    assert unified_diff(b"a\nb", b"a\nc", "k.cu").endswith("-b\n\\ No newline at end of file\n+c\n\\ No newline at end of file\n")


def test_unified_diff_empty_when_equal():
    assert unified_diff(b"same\xff", b"same\xff", "k.cu") == ""


def _difflib_unified(before: bytes, after: bytes, path: str, context: int = 3) -> str:
    """The reference: difflib's own unified diff of the same lines, with git's no-newline marker."""
    import difflib

    from vado.model.text import display_text
    from vado.port.apply import _lines

    if before == after:
        return ""
    name = path.encode()
    out = []
    for line in difflib.diff_bytes(difflib.unified_diff, _lines(before), _lines(after), b"a/" + name, b"b/" + name,
                                   n=context):
        out.append(line if line.endswith(b"\n") else line + b"\n\\ No newline at end of file\n")
    return display_text(b"".join(out))


_diff_lines = st.lists(st.sampled_from([b"a\n", b"b\n", b"cuda\n", b"\n", b"x", b"\xff\n", b"q\r\n", b"\r"]), max_size=40)


@settings(max_examples=400, deadline=None)
@given(_diff_lines, _diff_lines, st.sampled_from([0, 1, 3]))
def test_unified_diff_is_difflibs_with_and_without_the_compiled_matcher(a, b, context):
    import vado.port.diff as diff_mod  # unified_diff's module (vado.port.apply re-exports it)

    before, after = b"".join(a), b"".join(b)
    want = _difflib_unified(before, after, "k.cu", context)
    assert unified_diff(before, after, "k.cu", context=context) == want
    saved = diff_mod._native
    diff_mod._native = None  # the pure-Python path: difflib's SequenceMatcher
    try:
        assert unified_diff(before, after, "k.cu", context=context) == want
    finally:
        diff_mod._native = saved


def _reference_selection(fixes, unsafe=False, size=None):
    """select_fixes written plainly: every accepted edit compared with every new one."""
    from vado.port.apply import _fix_key

    accepted, rejected, taken, seen = [], [], [], []
    for fix in sorted(fixes, key=_fix_key):
        if fix.applicability is Applicability.DISPLAY_ONLY or (fix.applicability is Applicability.UNSAFE and not unsafe):
            rejected.append(fix)
            continue
        own = sorted(set(fix.edits), key=lambda e: (e.path, e.start, e.end, e.content))
        if not own or (size is not None and any(e.end > size for e in own)) or any(
                x.overlaps(y) for i, x in enumerate(own) for y in own[i + 1:]) or set(own) in seen:
            rejected.append(fix)
            continue
        if any(mine.overlaps(t) for mine in own if mine not in taken for t in taken):
            rejected.append(fix)
            continue
        accepted.append(fix)
        seen.append(set(own))
        taken.extend(e for e in own if e not in taken)
    return accepted, rejected


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(edits_any.map(tuple), st.sampled_from(list(Applicability))), max_size=12),
       st.booleans(), st.sampled_from([None, 8, 14]))
def test_selection_equals_the_plain_reference(groups, unsafe, size):
    fixes = [Fix(g, a, description=f"f{i % 3}") for i, (g, a) in enumerate(groups)]
    accepted, rejected = select_fixes(fixes, unsafe=unsafe, size=size)
    want_accepted, want_rejected = _reference_selection(fixes, unsafe, size)
    assert [id(f) for f in accepted] == [id(f) for f in want_accepted]
    assert sorted(id(r.fix) for r in rejected) == sorted(id(f) for f in want_rejected)


def test_write_new_creates_the_file_with_the_mode_asked_for(tmp_path):
    from vado.port.apply import write_new

    target = tmp_path / "k.cu"
    write_new(target, b"hip" * 100_000, mode=0o100640)
    assert target.read_bytes() == b"hip" * 100_000
    assert stat.S_IMODE(target.stat().st_mode) == 0o640


def test_write_new_never_replaces_an_existing_file(tmp_path):
    from vado.port.apply import write_new

    target = tmp_path / "k.cu"
    target.write_bytes(b"the user's")
    with pytest.raises(PortError, match="cannot write"):
        write_new(target, b"port")
    assert target.read_bytes() == b"the user's"
    link = tmp_path / "link.cu"
    link.symlink_to(tmp_path / "elsewhere.cu")  # a dangling link is not followed into a new file
    with pytest.raises(PortError):
        write_new(link, b"port")
    assert not (tmp_path / "elsewhere.cu").exists()


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from([b"a\n", b"b\n", b"{\n", b"}\n", b"\n", b"x", b"int i;\n"]), min_size=190, max_size=320),
       st.lists(st.tuples(st.integers(0, 319), st.sampled_from([b"hip\n", b"", b"a\n", b"}\n"])), max_size=12),
       st.sampled_from([0, 3, 5]))
def test_unified_diff_of_long_files_is_difflibs(lines, changes, context):
    """Past 200 lines difflib treats popular lines as junk; the compiled matcher and hunk writer agree."""
    after = list(lines)
    for at, new in changes:
        if at < len(after):
            after[at] = new
    before, changed = b"".join(lines), b"".join(after)
    assert unified_diff(before, changed, "k.cu", context=context) == _difflib_unified(before, changed, "k.cu", context)
