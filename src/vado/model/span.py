"""Locations in source files.

Offsets are *byte* offsets into the file as stored on disk. vado reads sources as
bytes and views them as latin-1 text (see :mod:`vado.model.text`), so a character
offset in that text is the byte offset; this keeps spans exact for files in any
encoding, including ones that are not valid UTF-8.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, order=True)
class Span:
    """A half-open byte range ``[start, end)`` in ``path`` with 1-based line/column of both ends."""

    path: str
    start: int
    end: int
    line: int = 0
    column: int = 0
    end_line: int = 0
    end_column: int = 0

    def __post_init__(self) -> None:
        int_ = int  # every field exactly an int (the common case) settles the loop below at once
        if not (type(self.start) is int_ and type(self.end) is int_ and type(self.line) is int_
                and type(self.column) is int_ and type(self.end_line) is int_ and type(self.end_column) is int_):
            for name in ("start", "end", "line", "column", "end_line", "end_column"):
                value = getattr(self, name)
                if not isinstance(value, int) or isinstance(value, bool):
                    raise TypeError(f"span {name} must be an int, not {type(value).__name__} ({self.path})")
        if self.start < 0 or self.end < self.start:
            raise ValueError(f"bad span [{self.start}, {self.end}) in {self.path}")

    @property
    def length(self) -> int:
        """Number of bytes covered."""
        return self.end - self.start

    def overlaps(self, other: "Span") -> bool:
        """True when both spans are in the same file and share at least one byte.

        Two empty spans at the same offset (two insertions) also overlap: their
        order would be ambiguous.
        """
        if self.path != other.path:
            return False
        if self.start == self.end == other.start == other.end:
            return True
        return self.start < other.end and other.start < self.end

    def location(self) -> str:
        """``path:line:column`` for humans."""
        return f"{self.path}:{self.line}:{self.column}"
