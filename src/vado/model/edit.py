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
        if type(self.start) is not int or type(self.end) is not int:  # the common case needs no more
            _check_offsets("edit", self.path, self.start, self.end)
        if not isinstance(self.content, str):
            # bytes here would be written as their repr; the latin-1 view is str.
            raise TypeError(
                f"edit content must be str (latin-1 view), not {type(self.content).__name__}"
            )
        if self.start < 0 or self.end < self.start:
            raise ValueError(f"bad edit range [{self.start}, {self.end}) in {self.path}")

    @property
    def is_insertion(self) -> bool:
        """True when the edit replaces nothing (``start == end``)."""
        return self.start == self.end

    @property
    def delta(self) -> int:
        """Change in length (in characters of the latin-1 view) when applied."""
        return len(self.content) - (self.end - self.start)

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

    def __post_init__(self) -> None:
        # Callers often build edits in a list; a frozen Fix must hold a tuple to stay hashable.
        if not isinstance(self.edits, tuple):
            object.__setattr__(self, "edits", tuple(self.edits))
        for e in self.edits:
            if not isinstance(e, Edit):
                raise TypeError(f"a fix holds Edit objects, not {type(e).__name__}")
        if type(self.applicability) is Applicability and type(self.tags) is tuple:
            return  # as rules and the translator build them: nothing to convert
        if not isinstance(self.applicability, Applicability):
            try:
                object.__setattr__(self, "applicability", Applicability(self.applicability))
            except ValueError:
                choices = ", ".join(a.value for a in Applicability)
                raise ValueError(
                    f"unknown applicability {self.applicability!r}; choose one of: {choices}"
                ) from None
        if not isinstance(self.tags, tuple):
            object.__setattr__(self, "tags", tuple(self.tags))

    @property
    def paths(self) -> frozenset[str]:
        """Files this fix touches."""
        return frozenset(e.path for e in self.edits)


def _check_offsets(what: str, path: str, start: object, end: object) -> None:
    """Offsets are plain ints; ``True`` or ``1.5`` would slice silently wrong later."""
    for name, value in (("start", start), ("end", end)):
        if not isinstance(value, int) or isinstance(value, bool):
            raise TypeError(f"{what} {name} must be an int, not {type(value).__name__} ({path})")
