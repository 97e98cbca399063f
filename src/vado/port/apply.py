"""The one edit applier: every change vado makes to a file goes through here.

The design follows ruff's fix applier (``crates/ruff_linter/src/fix/mod.rs``):
rules propose :class:`~vado.model.Fix` objects, each a set of edits that stand or
fall together; the applier takes them in a deterministic order, drops a fix that
collides with one already taken (reported, not an error), applies the rest in one
pass, and the port loop runs the rules again on the result until no fix applies
(:func:`fixpoint`). A fix dropped in one round is usually applied in the next,
against the updated text. Porting twice therefore equals porting once.

Layers, from pure to effectful:

- :func:`apply_edits` splices edits of one file into its bytes. Pure.
- :func:`select_fixes` decides which fixes of one round are applied. Pure.
- :func:`fixpoint` repeats produce → select → apply on text until it is stable.
- :func:`write_atomic` writes bytes to disk: temp file in the same directory,
  fsync, ``os.replace``; never overwrites an existing file without a backup.
  It lives in :mod:`vado.port.write`, which states the write policy.
- :func:`apply_to_file` combines them for one file and returns an :class:`ApplyResult`.

:func:`unified_diff` (:mod:`vado.port.diff`) shows what a port changed. Both
modules' public names are re-exported here.

Text is handled in the latin-1 view of :mod:`vado.model.text` (one character per
byte), so offsets are byte offsets and every byte outside an edit, whatever the
file's encoding, comes out exactly as it went in.
"""

from __future__ import annotations

import bisect
import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import NamedTuple

from vado.errors import PortError
from vado.model.edit import Applicability, Edit, Fix
from vado.model.text import decode_source, encode_source

# Writing files and diffing them live in their own modules; their names are re-exported
# here, where callers have always found them.
from vado.port.diff import _lines, unified_diff  # noqa: F401  (re-exported)
from vado.port.write import (  # noqa: F401  (re-exported)
    BACKUP_SUFFIX,
    WriteFailed,
    _read,
    backup_path,
    write_atomic,
    write_new,
)

__all__ = [
    "BACKUP_SUFFIX",
    "ApplyResult",
    "FixpointResult",
    "RejectKind",
    "RejectReason",
    "Rejection",
    "apply_edits",
    "apply_to_file",
    "backup_path",
    "fixpoint",
    "select_fixes",
    "unified_diff",
    "write_atomic",
    "write_new",
]


# ---------------------------------------------------------------------------
# Edits


def _describe(edit: Edit) -> str:
    content = edit.content if len(edit.content) <= 40 else edit.content[:37] + "..."
    if edit.is_insertion:
        return f"insert {content!r} at {edit.start}"
    return f"replace [{edit.start}, {edit.end}) with {content!r}"


def _sorted_unique(edits: Iterable[Edit]) -> list[Edit]:
    # Identical edits (the same include wanted by two fixes) collapse to one. Keyed by their
    # fields, which are their equality: tuples hash and sort in C, the dataclass in Python.
    unique = {(e.path, e.start, e.end, e.content): e for e in edits}
    return [unique[k] for k in sorted(unique)]


def _first_overlap(ordered: Sequence[Edit]) -> tuple[Edit, Edit] | None:
    """The first pair of overlapping edits in ``ordered`` (sorted by path, start, end).

    Sorted so, a conflict always shows between an edit and the earlier edit of
    its file that reaches furthest; of several ending at one offset, an
    insertion there is the one a later insertion at that offset collides with.
    """
    reach: Edit | None = None
    for e in ordered:
        if reach is not None and reach.path != e.path:
            reach = None
        if reach is not None and reach.overlaps(e):
            return reach, e
        if reach is None or e.end > reach.end or (e.end == reach.end and e.is_insertion):
            reach = e
    return None


def _splice(text: str, ordered: Sequence[Edit]) -> str:
    parts: list[str] = []
    pos = 0
    for e in ordered:
        parts.append(text[pos : e.start])
        parts.append(e.content)
        pos = e.end
    parts.append(text[pos:])
    return "".join(parts)


def _check_edits(edits: Iterable[Edit], size: int) -> list[Edit]:
    ordered = _sorted_unique(edits)
    paths = sorted({e.path for e in ordered})
    if len(paths) > 1:
        raise PortError(
            "cannot apply edits of several files at once",
            "the edits name " + ", ".join(paths),
            "group edits by Edit.path and apply each group to its own file",
        )
    for e in ordered:
        if e.end > size:
            raise PortError(
                f"edit out of range in {e.path}",
                f"{_describe(e)} ends past the end of the file ({size} bytes)",
                "the file changed since it was scanned; scan it again",
            )
    pair = _first_overlap(ordered)
    if pair is not None:
        a, b = pair
        raise PortError(
            f"overlapping edits in {a.path}",
            f"{_describe(a)} and {_describe(b)} touch the same bytes, so their order is ambiguous",
            "put edits that belong together into one edit, or into separate fixes (select_fixes drops the later one)",
        )
    return ordered


def apply_edits(data: bytes, edits: Sequence[Edit]) -> bytes:
    """Apply ``edits`` (all of one file) to ``data`` and return the new bytes.

    Edits are sorted by (start, end); identical edits collapse to one; edits that
    overlap (share a byte, two different insertions at one offset, an insertion
    strictly inside a replaced range) raise :class:`PortError` naming both.
    Edits that only touch (``[a, b)`` and ``[b, c)``, or an insertion at either
    end of a replaced range) are fine. Bytes outside the edits are kept exactly.
    """
    text = decode_source(data)
    ordered = _check_edits(edits, len(text))
    return encode_source(_splice(text, ordered))


# ---------------------------------------------------------------------------
# Fixes


class RejectKind(str, Enum):
    """Why :func:`select_fixes` did not apply a fix (a result, not an error)."""

    DISPLAY_ONLY = "display-only"
    UNSAFE = "unsafe"
    EMPTY = "empty"
    OTHER_FILE = "other-file"
    OUT_OF_RANGE = "out-of-range"
    SELF_OVERLAP = "self-overlap"
    DUPLICATE = "duplicate"
    OVERLAP = "overlap"


@dataclass(frozen=True)
class RejectReason:
    """A typed reason with words for humans; ``str()`` gives the words."""

    kind: RejectKind
    detail: str = ""

    def __str__(self) -> str:
        return f"{self.kind.value}: {self.detail}" if self.detail else self.kind.value


class Rejection(NamedTuple):
    """A fix that was not applied, and why. Unpacks as ``fix, reason``."""

    fix: Fix
    reason: RejectReason


_APPLICABILITY_ORDER = {Applicability.SAFE: 0, Applicability.UNSAFE: 1, Applicability.DISPLAY_ONLY: 2}


def _fix_key(fix: Fix) -> tuple:
    """Deterministic order of fixes: by place, then safer first, then content.

    The order does not depend on the order rules ran in, so the same findings
    always give the same port.
    """
    edits = fix.edits
    if len(edits) == 1:  # most fixes (every rename): the general form below, without the sorting
        e = edits[0]
        return (e.path, e.start, e.end, _APPLICABILITY_ORDER[fix.applicability], fix.description, edits, fix.tags)
    if edits:
        first = min(edits, key=lambda e: (e.path, e.start, e.end))
        place = (first.path, first.start, max(e.end for e in edits if e.path == first.path))
    else:
        place = ("", -1, -1)
    return (*place, _APPLICABILITY_ORDER[fix.applicability], fix.description,
            tuple(sorted(edits)), fix.tags)


def _fields(edit: Edit) -> tuple[str, int, int, str]:
    # An Edit's identity (its dataclass equality and hash) as a plain tuple, which hashes
    # and compares in C: selection hashes every edit several times.
    return (edit.path, edit.start, edit.end, edit.content)


def select_fixes(
    fixes: Iterable[Fix],
    *,
    unsafe: bool = False,
    path: str | None = None,
    size: int | None = None,
) -> tuple[list[Fix], list[Rejection]]:
    """Choose the fixes of one round: ``(accepted, rejected)``, both in a deterministic order.

    A fix is all or nothing. Display-only fixes are never applied; unsafe ones
    only with ``unsafe=True``. Fixes are taken in :func:`_fix_key` order; one
    that overlaps an edit of an already accepted fix is rejected (an edit
    identical to an accepted one is shared, not a conflict), as is one with the
    same edits as an accepted fix. With ``path``, fixes touching another file are
    rejected; with ``size`` (the file's length), fixes reaching past it are.
    The accepted fixes' edits never overlap, so :func:`apply_edits` takes them.
    """
    accepted: list[Fix] = []
    rejected: list[Rejection] = []
    taken = _TakenEdits()  # edits of accepted fixes, for overlap checks
    seen: dict[frozenset[tuple], Fix] = {}

    def reject(fix: Fix, kind: RejectKind, detail: str = "") -> None:
        rejected.append(Rejection(fix, RejectReason(kind, detail)))

    for fix in sorted(fixes, key=_fix_key):
        if fix.applicability is Applicability.DISPLAY_ONLY:
            reject(fix, RejectKind.DISPLAY_ONLY, "shown as a suggestion, never applied")
            continue
        if fix.applicability is Applicability.UNSAFE and not unsafe:
            reject(fix, RejectKind.UNSAFE, "applied only with unsafe fixes enabled")
            continue
        if not fix.edits:
            reject(fix, RejectKind.EMPTY, "the fix has no edits")
            continue
        if path is not None and fix.paths != {path}:
            others = ", ".join(sorted(fix.paths - {path}))
            reject(fix, RejectKind.OTHER_FILE, f"also edits {others}")
            continue
        if size is not None:
            beyond = [e for e in fix.edits if e.end > size]
            if beyond:
                reject(fix, RejectKind.OUT_OF_RANGE,
                       f"{_describe(beyond[0])} ends past the end of the file ({size} bytes)")
                continue
        if len(fix.edits) == 1:
            own = [fix.edits[0]]  # one edit cannot overlap itself
        else:
            own = _sorted_unique(fix.edits)
            pair = _first_overlap(own)
            if pair is not None:
                reject(fix, RejectKind.SELF_OVERLAP,
                       f"its own edits overlap: {_describe(pair[0])} and {_describe(pair[1])}")
                continue
        fields = [_fields(e) for e in own]
        key = frozenset(fields)
        if key in seen:
            reject(fix, RejectKind.DUPLICATE, f"same edits as {_name(seen[key])}")
            continue
        clash = taken.clash(own, fields)
        if clash is not None:
            mine, theirs, owner = clash
            reject(fix, RejectKind.OVERLAP,
                   f"{_describe(mine)} overlaps {_describe(theirs)} of {_name(owner)}")
            continue
        accepted.append(fix)
        seen[key] = fix
        for e, f in zip(own, fields):
            taken.add(e, f, fix)
    return accepted, rejected


def _name(fix: Fix) -> str:
    return f"fix {fix.description!r}" if fix.description else "another fix"


class _TakenEdits:
    """The edits of the fixes accepted so far, with the overlap test of :meth:`Edit.overlaps`.

    Accepted edits never overlap one another, so sorted by ``(start, end)`` their
    ends never decrease either: the ones that can overlap a new edit lie in one
    short run of that order, found by bisection. (A file can have thousands of
    fixes; comparing each new edit with every accepted one made selection
    quadratic.) Of several overlapping edits the earliest accepted is reported,
    as a scan in acceptance order would. Edits are keyed by their fields
    (:func:`_fields`), which is their equality.
    """

    def __init__(self) -> None:
        #: The first accepted fix that holds each edit, by the edit's fields.
        self._owner: dict[tuple, Fix] = {}
        self._by_path: dict[str, tuple[list[tuple[int, int]], list[Edit], list[int]]] = {}

    def add(self, edit: Edit, fields: tuple, fix: Fix) -> None:
        if fields in self._owner:
            return
        keys, edits, order = self._by_path.setdefault(edit.path, ([], [], []))
        at = bisect.bisect_right(keys, (edit.start, edit.end))
        keys.insert(at, (edit.start, edit.end))
        edits.insert(at, edit)
        order.insert(at, len(self._owner))
        self._owner[fields] = fix

    def clash(self, own: Sequence[Edit], fields: Sequence[tuple]) -> tuple[Edit, Edit, Fix] | None:
        """The first ``(mine, theirs, owner of theirs)`` of overlapping edits, or None."""
        for mine, f in zip(own, fields):
            if f in self._owner:
                continue  # identical to an accepted edit: shared, not a conflict
            found = self._by_path.get(mine.path)
            if found is None:
                continue
            keys, edits, order = found
            # Candidates start at or before mine.end and end at or after mine.start.
            j = bisect.bisect_right(keys, (mine.end, float("inf"))) - 1
            best = None
            while j >= 0 and edits[j].end >= mine.start:
                if mine.overlaps(edits[j]) and (best is None or order[j] < order[best]):
                    best = j
                j -= 1
            if best is not None:
                theirs = edits[best]
                return mine, theirs, self._owner[_fields(theirs)]
        return None


def _fix_edits(fixes: Iterable[Fix]) -> list[Edit]:
    return [e for f in fixes for e in f.edits]


class FixpointResult(NamedTuple):
    """The stable text and, per round that changed it, the fixes applied."""

    text: str
    rounds: tuple[tuple[Fix, ...], ...]

    @property
    def applied(self) -> tuple[Fix, ...]:
        """All applied fixes, round by round."""
        return tuple(f for r in self.rounds for f in r)


def _byte_view(text: str) -> str:
    """``text`` as the latin-1 view of its bytes (:func:`encode_source`): the same str
    when it is ASCII, which most sources and replacements are."""
    return text if text.isascii() else decode_source(encode_source(text))


def fixpoint(
    text: str,
    produce_fixes: Callable[[str], Iterable[Fix]],
    max_rounds: int = 10,
    *,
    unsafe: bool = False,
    on_round: Callable[[str, Sequence[Edit], str], None] | None = None,
) -> FixpointResult:
    """Apply ``produce_fixes(text)`` repeatedly until no fix changes the text.

    ``text`` is one file in the latin-1 view; ``produce_fixes`` runs the rules on
    it and returns their fixes (all for this one file). Each round selects fixes
    with :func:`select_fixes` and applies them; fixes dropped for overlapping are
    produced again by the rules in the next round against the new text. Stops
    when a round accepts nothing or changes nothing. Raises :class:`PortError`
    when the text is still changing after ``max_rounds`` rounds, or comes back to
    an earlier state (two fixes undoing each other). ``on_round(old, edits, new)``,
    when given, is told of every round that changed the text (the edits in order).
    """
    if max_rounds < 1:
        raise ValueError("max_rounds must be at least 1")
    # Replacement text above U+00FF is stored as UTF-8; re-viewing the bytes keeps
    # the next round's offsets byte offsets.
    text = _byte_view(text)
    seen = {text}
    rounds: list[tuple[Fix, ...]] = []
    for _ in range(max_rounds + 1):
        accepted, _rejected = select_fixes(produce_fixes(text), unsafe=unsafe, size=len(text))
        if not accepted:
            break
        ordered = _check_edits(_fix_edits(accepted), len(text))
        new = _byte_view(_splice(text, ordered))
        if new == text:
            break
        if len(rounds) == max_rounds:
            raise PortError(
                "fixes did not converge",
                f"the text still changed after {max_rounds} rounds",
                "a rule keeps proposing fixes for its own output; run with fewer rules to find it",
            )
        if new in seen:
            raise PortError(
                "fixes did not converge",
                f"round {len(rounds) + 1} brought the text back to an earlier state (fixes undo each other)",
                "two rules rewrite the same construct in opposite directions; disable one",
            )
        seen.add(new)
        rounds.append(tuple(accepted))
        if on_round is not None:
            on_round(text, ordered, new)
        text = new
    return FixpointResult(text, tuple(rounds))


# ---------------------------------------------------------------------------
# One file


@dataclass(frozen=True)
class ApplyResult:
    """What :func:`apply_to_file` did to one file.

    ``path`` is the file read, ``output`` the file written (the same for an
    in-place port); ``written`` is False for a dry run or an in-place port that
    changed nothing. ``backup`` is the backup made, if any.
    """

    path: Path
    output: Path
    applied: tuple[Fix, ...]
    rejected: tuple[Rejection, ...]
    before: bytes
    after: bytes
    backup: Path | None = None
    written: bool = False

    @property
    def applied_count(self) -> int:
        """Number of fixes applied."""
        return len(self.applied)

    @property
    def changed(self) -> bool:
        """True when the fixes changed the bytes."""
        return self.before != self.after

    def diff(self, label: str | None = None) -> str:
        """Unified diff of the change (empty when nothing changed)."""
        return unified_diff(self.before, self.after, label or str(self.path))

    def summary(self) -> dict:
        """JSON-ready summary for reports (bytes left out)."""
        return {
            "path": str(self.path),
            "output": str(self.output),
            "applied": self.applied_count,
            "changed": self.changed,
            "written": self.written,
            "backup": None if self.backup is None else str(self.backup),
            "rejected": [
                {"description": fix.description, "reason": reason.kind.value, "detail": reason.detail}
                for fix, reason in self.rejected
            ],
        }


def apply_to_file(
    path: str | os.PathLike[str],
    fixes: Iterable[Fix],
    *,
    unsafe: bool = False,
    backup: bool | str | os.PathLike[str] = True,
    output: str | os.PathLike[str] | None = None,
    overwrite: bool = False,
    follow_symlinks: bool = False,
    edit_path: str | None = None,
    dry_run: bool = False,
) -> ApplyResult:
    """Read ``path``, apply the selectable ``fixes`` in one round, write the result.

    ``edit_path`` is the ``Edit.path`` these fixes use for this file (usually the
    path relative to the scanned root); when None it is taken from the fixes,
    which must then all name one file. Fixes that touch other files are rejected.

    In place (``output`` None) the file is rewritten only when the bytes change,
    with a backup by default (``backup=True``) and refusing if the file changed
    since it was read. With ``output`` the result goes there (a new output tree:
    no backup needed; an existing output is handled by :func:`write_atomic`'s
    policy). ``dry_run`` computes the result and writes nothing.
    """
    source = Path(path)
    fixes = list(fixes)
    if edit_path is None:
        names = sorted({p for f in fixes for p in f.paths})
        if len(names) > 1:
            raise PortError(
                f"fixes for several files given for {source}",
                "they edit " + ", ".join(names),
                "pass edit_path= to say which Edit.path is this file",
            )
        edit_path = names[0] if names else None
    before = _read(source)
    try:
        source_mode = os.stat(source).st_mode
    except OSError:
        source_mode = None
    accepted, rejected = select_fixes(fixes, unsafe=unsafe, path=edit_path, size=len(before))
    after = apply_edits(before, _fix_edits(accepted)) if accepted else before
    in_place = output is None
    dest = source if in_place else Path(output)
    made_backup: Path | None = None
    written = False
    if not dry_run and (not in_place or after != before):
        made_backup = write_atomic(
            dest,
            after,
            backup=backup,
            expected=before if in_place else None,
            overwrite=overwrite,
            follow_symlinks=follow_symlinks,
            mode=source_mode,
        )
        written = True
    return ApplyResult(source, dest, tuple(accepted), tuple(rejected), before, after, made_backup, written)
