"""Verdicts: can this move to a target, and how."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum


class Verdict(str, Enum):
    """Outcome for one target, best first. Aggregation keeps the worst."""

    MOVES_AS_IS = "moves-as-is"
    AUTOMATIC = "moves-with-automatic-edits"
    MANUAL = "needs-manual-work"
    BLOCKED = "blocked"

    @property
    def rank(self) -> int:
        """0 (moves as is) … 3 (blocked)."""
        return _VERDICT_ORDER.index(self)

    @property
    def label(self) -> str:
        """Words for humans."""
        return self.value.replace("-", " ")

    @staticmethod
    def worst(verdicts) -> "Verdict":
        """The worst of ``verdicts``; ``MOVES_AS_IS`` for none."""
        result = Verdict.MOVES_AS_IS
        for v in verdicts:
            if v.rank > result.rank:
                result = v
        return result


_VERDICT_ORDER = list(Verdict)


@dataclass(frozen=True)
class TargetVerdict:
    """The verdict for one target over a file, a workload or a repository.

    ``deciding`` lists the finding codes (with counts) that set the verdict: the
    findings whose own verdict equals the aggregate one.
    """

    target: str
    verdict: Verdict
    deciding: tuple[tuple[str, int], ...] = field(default_factory=tuple)
    reason: str = ""
