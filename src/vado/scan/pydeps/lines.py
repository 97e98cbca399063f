"""Logical lines: continuation-joined lines with a map back to file offsets."""

from __future__ import annotations

import bisect
from dataclasses import dataclass


@dataclass(frozen=True)
class LogicalLine:
    """A line with its backslash continuations removed, and the way back to file offsets.

    ``pieces`` holds ``(logical_offset, file_offset)`` for each physical piece,
    in order; ``text`` is the joined text. ``pos(i)`` maps a logical offset to
    the file; ``end_pos(j)`` maps an exclusive end (so an end at a join point
    stays on the line it ends).
    """

    text: str
    pieces: tuple[tuple[int, int], ...]
    start: int  # file offset of the first byte
    end: int  # file offset after the last byte (before the newline)

    def pos(self, i: int) -> int:
        """File offset of logical offset ``i``."""
        k = bisect.bisect_right(self.pieces, (i, float("inf"))) - 1
        lo, fo = self.pieces[max(k, 0)]
        return fo + (i - lo)

    def end_pos(self, j: int) -> int:
        """File offset just after logical offset ``j - 1``."""
        if j <= 0:
            return self.pos(0)
        return self.pos(j - 1) + 1


def logical_lines(text: str, *, continuation: str = "\\", comment: str | None = None) -> list[LogicalLine]:
    """Split ``text`` into logical lines, joining lines that end in ``continuation``.

    The continuation character and its newline are dropped (pip and make keep
    the text on both sides adjacent; pip has no whitespace there either).
    When ``comment`` is given, whole-line comments *inside* a continued line
    are dropped the way Docker does (``RUN a \\`` / ``# note`` / ``b``).
    """
    out: list[LogicalLine] = []
    n = len(text)
    pos = 0
    while pos < n:
        pieces: list[tuple[int, int]] = []
        parts: list[str] = []
        length = 0
        first = pos
        last_end = pos
        while True:
            nl = text.find("\n", pos)
            line_end = n if nl == -1 else nl
            content_end = line_end - 1 if line_end > pos and text[line_end - 1] == "\r" else line_end
            seg = text[pos:content_end]
            if comment is not None and pieces and seg.lstrip().startswith(comment):
                # A comment line inside a continued instruction is not part of it.
                pos = line_end + 1
                if nl == -1:
                    break
                continue
            continued = seg.endswith(continuation) and nl != -1
            if continued:
                seg = seg[: -len(continuation)]
            pieces.append((length, pos))
            parts.append(seg)
            length += len(seg)
            last_end = pos + len(seg)
            pos = line_end + 1
            if not continued:
                break
        out.append(LogicalLine("".join(parts), tuple(pieces), first, last_end))
    return out
