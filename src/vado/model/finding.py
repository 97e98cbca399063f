"""Findings: what a rule says about one place in the tree."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from vado.model.edit import Fix
from vado.model.span import Span
from vado.model.verdict import Verdict


class Severity(str, Enum):
    """How much a finding matters, lowest first. ``--fail-on`` compares by ``rank``."""

    INFO = "info"
    LOW = "low"
    MEDIUM = "medium"
    HIGH = "high"
    CRITICAL = "critical"

    @property
    def rank(self) -> int:
        """0 for info … 4 for critical."""
        return _SEVERITY_ORDER.index(self)

    @classmethod
    def parse(cls, text: str) -> "Severity":
        """Case-insensitive parse; raises ``ValueError`` naming the choices."""
        try:
            return cls(text.strip().lower())
        except ValueError:
            choices = ", ".join(s.value for s in cls)
            raise ValueError(f"unknown severity {text!r}; choose one of: {choices}") from None


_SEVERITY_ORDER = list(Severity)


@dataclass(frozen=True)
class Effort:
    """What it takes to resolve a finding by hand or by edits.

    ``lines`` is the number of source lines to touch; ``constructs`` the number of
    distinct constructs (a kernel, a library call site, an asm block) to rewrite;
    ``hours`` a rough human estimate, 0 when the fix is automatic.
    """

    lines: int = 0
    constructs: int = 0
    hours: float = 0.0

    def __add__(self, other: "Effort") -> "Effort":
        return Effort(
            self.lines + other.lines,
            self.constructs + other.constructs,
            round(self.hours + other.hours, 2),
        )


@dataclass(frozen=True)
class Finding:
    """One rule's observation at one span.

    ``verdicts`` maps a target name (``rocm-7.2``, ``oneapi``, …) to what this
    finding implies for moving the file there; a target that is absent is not
    affected by the finding. ``fix`` is present when vado can write the edits.
    ``data`` carries rule-specific facts (the CUDA name, the PTX instructions, the
    replacement package) for reports and for the agent. ``inactive`` maps a target
    to the verdict the finding would imply there if that target's build compiled
    its span: the span lies in a conditional branch the target's build does not
    take (``#if !defined(PROJECT_USE_HIP)`` for a ROCm target), so the target is
    absent from ``verdicts`` and the finding decides nothing there.
    """

    code: str
    name: str
    severity: Severity
    span: Span
    message: str
    verdicts: dict[str, Verdict] = field(default_factory=dict)
    effort: Effort = field(default_factory=Effort)
    fix: Fix | None = None
    data: dict[str, Any] = field(default_factory=dict)
    inactive: dict[str, Verdict] = field(default_factory=dict)

    @property
    def family(self) -> str:
        """The letters of the code: ``PTX`` for ``PTX001``."""
        return self.code.rstrip("0123456789")

    def sort_key(self) -> tuple:
        """Deterministic order: file, offset, code."""
        return (self.span.path, self.span.start, self.span.end, self.code, self.message)
