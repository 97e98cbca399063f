"""Edits and fixes: the only way vado changes a file."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum


class Applicability(str, Enum):
    """How far a fix can be trusted (after ruff's applicability levels).

    - ``safe``: meaning is preserved; applied by ``vado port`` by default.
    - ``unsafe``: usually right but may change behaviour; applied with ``--unsafe-fixes``.
    - ``display-only``: a suggestion shown to humans and to the agent, never applied.
    """

    SAFE = "safe"
    UNSAFE = "unsafe"
    DISPLAY_ONLY = "display-only"


@dataclass(frozen=True, order=True)
class Edit:
    """Replace bytes ``[start, end)`` of ``path`` with ``content``.

    ``content`` is source text in the latin-1 view (:mod:`vado.model.text`).
    An insertion has ``start == end``; a deletion has empty ``content``.
    """

    path: str
    start: int
    end: int
    content: str = ""

    def __post_init__(self) -> None:
        if self.start < 0 or self.end < self.start:
            raise ValueError(f"bad edit range [{self.start}, {self.end}) in {self.path}")

    def overlaps(self, other: "Edit") -> bool:
        """True when the two edits touch a common byte, or are insertions at one point."""
        if self.path != other.path:
            return False
        if self.start == self.end and other.start == other.end:
            return self.start == other.start
        if self.start == self.end:
            return other.start < self.start < other.end
        if other.start == other.end:
            return self.start < other.start < self.end
        return self.start < other.end and other.start < self.end


@dataclass(frozen=True)
class Fix:
    """One logical change: edits that must be applied together, all or none."""

    edits: tuple[Edit, ...]
    applicability: Applicability = Applicability.SAFE
    description: str = ""
    tags: tuple[str, ...] = field(default_factory=tuple)

    @property
    def paths(self) -> frozenset[str]:
        """Files this fix touches."""
        return frozenset(e.path for e in self.edits)
