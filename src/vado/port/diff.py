"""Unified diffs of a file's bytes, as ``diff -u`` and ``difflib.unified_diff`` write them.

:func:`unified_diff` compares two versions of a file line by line (a line ends at
``\n`` only: a lone CR is content in C sources); the line matching and hunk
formatting run in the compiled extension when it is built, else in ``difflib``,
with the same output byte for byte.

Split out of :mod:`vado.port.apply`, which re-exports :func:`unified_diff`.
"""

from __future__ import annotations

import difflib
import os

from vado.model.text import display_text
from vado.native import ext as _native

__all__ = ["unified_diff"]


def _lines(data: bytes) -> list[bytes]:
    # Split on b"\n" only: bytes.splitlines would also split on \r, and a CR alone is
    # content, not a line end, in C sources. Without a CR the two agree.
    if b"\r" not in data:
        return data.splitlines(keepends=True)
    parts = data.split(b"\n")
    lines = [p + b"\n" for p in parts[:-1]]
    if parts[-1]:
        lines.append(parts[-1])
    return lines


class _KnownBlocks(difflib.SequenceMatcher):
    """A SequenceMatcher whose matching blocks were computed already (by the compiled
    :func:`matching_blocks`); difflib's grouping of opcodes into hunks runs on them."""

    def __init__(self, a: list[bytes], b: list[bytes], blocks: list[tuple[int, int, int]]):
        # Deliberately not calling super().__init__: it would index b for a search we skip.
        self.a, self.b = a, b
        self.matching_blocks = [difflib.Match._make(m) for m in blocks]
        self.opcodes = None


def _matcher(a: list[bytes], b: list[bytes]) -> difflib.SequenceMatcher:
    if _native is not None:
        return _KnownBlocks(a, b, _native.matching_blocks(a, b))
    return difflib.SequenceMatcher(None, a, b)


def _hunk_range(start: int, stop: int) -> bytes:
    # difflib's _format_range_unified: "line,count", one number for a single line.
    length = stop - start
    if length == 1:
        return b"%d" % (start + 1)
    return b"%d,%d" % (start if not length else start + 1, length)


def unified_diff(before: bytes, after: bytes, path: str | os.PathLike[str], *, context: int = 3) -> str:
    """A ``git diff``-style unified diff of one file, for humans.

    The comparison is on the exact bytes (two different invalid UTF-8 bytes are
    a change); only the output is display-decoded with
    :func:`vado.model.text.display_text`. A last line without a newline gets
    git's ``\\ No newline at end of file`` marker. Empty when nothing changed.
    The hunks are ``difflib.unified_diff``'s, byte for byte; the line matching
    runs compiled where vado's extension is built.
    """
    if context < 0:
        raise ValueError("unified_diff: the context must not be negative")
    if before == after:
        return ""
    name = os.fsencode(os.fspath(path))
    a, b = _lines(before), _lines(after)
    head = b"--- a/" + name + b"\n+++ b/" + name + b"\n"
    if _native is not None:  # the grouping and formatting below, compiled
        return display_text(head + _native.unified_hunks(a, b, _native.matching_blocks(a, b), context))
    out: list[bytes] = [head]

    def emit(prefix: bytes, lines: list[bytes]) -> None:
        for line in lines:
            out.append(prefix + line if line.endswith(b"\n") else prefix + line + b"\n\\ No newline at end of file\n")

    for group in _matcher(a, b).get_grouped_opcodes(context):
        first, last = group[0], group[-1]
        out.append(b"@@ -" + _hunk_range(first[1], last[2]) + b" +" + _hunk_range(first[3], last[4]) + b" @@\n")
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                emit(b" ", a[i1:i2])
                continue
            if tag in ("replace", "delete"):
                emit(b"-", a[i1:i2])
            if tag in ("replace", "insert"):
                emit(b"+", b[j1:j2])
    return display_text(b"".join(out))
