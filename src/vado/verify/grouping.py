"""Compile errors grouped by cause: one line per distinct error, with its first unit and a count.

A header included by fifteen units fails fifteen times with the same message at the same line; the
report shows it once (:func:`group_errors`): the place (file, line, column), the message, the
finding that covers the line (its code) or the next step to take, the first unit and arch that hit
it, and how many compiles did. Failures with no located diagnostic (a compiler that could not
start, a signal, the time limit) are grouped by their reason the same way.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Iterable

from vado.model import Evidence


@dataclass
class ErrorGroup:
    """One distinct error: where, what, what covers it, who hit it first, and how often."""

    file: str
    line: int
    col: int
    message: str
    code: str = ""
    finding: str = ""
    original: str = ""
    first_subject: str = ""
    first_arch: str = ""
    count: int = 0
    subjects: list[str] = field(default_factory=list)

    @property
    def next_step(self) -> str:
        """The finding at the line, or what to do when no rule covers it."""
        if self.code:
            return f"{self.code} at that line: `vado explain {self.code}`"
        return next_step(self.message)

    def to_json(self) -> dict:
        """Plain JSON (the ``error_groups`` of verify's JSON report)."""
        return {"file": self.file, "line": self.line, "col": self.col, "message": self.message,
                "code": self.code, "original": self.original, "first_subject": self.first_subject,
                "first_arch": self.first_arch, "count": self.count, "units": sorted(set(self.subjects)),
                "next_step": self.next_step}


_NOT_FOUND = re.compile(r"'([^']+)' file not found")
_UNDECLARED = re.compile(r"(?:use of undeclared identifier|unknown type name|no member named) '([^']+)'")


def next_step(message: str) -> str:
    """A next step for an error no finding covers."""
    m = _NOT_FOUND.search(message)
    if m:
        return (f"{m.group(1)} is not on this unit's include path: a CUDA-only header the port should replace, "
                "a dependency not installed for ROCm, or a flag the build passes that verify did not read")
    m = _UNDECLARED.search(message)
    if m:
        return f"`vado lookup {m.group(1)}`: a CUDA name with no counterpart on the target, or a missing include"
    return "no rule covers this line: fix it by hand (or `vado agent`) and verify again"


def group_errors(evidence: Iterable[Evidence]) -> list[ErrorGroup]:
    """Distinct errors of failed compile records, in the order first seen (see the module docstring)."""
    groups: dict[tuple, ErrorGroup] = {}
    for e in evidence:
        if e.passed or e.kind != "compile":
            continue
        diags = e.detail.get("diagnostics") or []
        if not diags and e.detail.get("reason"):
            diags = [{"file": e.subject, "line": 0, "col": 0, "message": str(e.detail["reason"])}]
        for d in diags:
            key = (d.get("file", ""), int(d.get("line") or 0), d.get("message", ""))
            g = groups.get(key)
            if g is None:
                orig = ""
                if d.get("original_line"):
                    orig = f"{d.get('original_file')}:{d['original_line']}" + ("" if d.get("exact") else ", nearest")
                g = groups[key] = ErrorGroup(str(key[0]), key[1], int(d.get("col") or 0), str(key[2]),
                                             str(d.get("code") or ""), str(d.get("finding") or ""), orig,
                                             e.subject, e.arch)
            g.count += 1
            g.subjects.append(e.subject)
    return list(groups.values())


def render_groups(groups: list[ErrorGroup]) -> list[str]:
    """Text lines: one per group, the next step indented under it."""
    lines: list[str] = []
    for g in groups:
        where = f"{g.file}:{g.line}:{g.col}" if g.line else g.file
        units = len(set(g.subjects))
        times = "" if g.count == 1 else f" [{g.count}x in {units} unit{'s' if units != 1 else ''}, first {g.first_subject} {g.first_arch}]"
        if g.count == 1:
            times = f" [{g.first_subject} {g.first_arch}]" if g.first_subject != g.file else f" [{g.first_arch}]"
        orig = f" (original {g.original})" if g.original else ""
        code = f" {g.code}:" if g.code else ""
        lines.append(f"  {where}{times}{orig}{code} {g.message}")
        lines.append(f"      -> {g.next_step}")
    return lines
