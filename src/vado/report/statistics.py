"""``vado audit --statistics``: how many findings of each code, instead of the findings themselves.

Text: one line per code, most frequent first, ``COUNT  CODE  [*]  name  (severity)``, where ``[*]``
marks a code whose findings ``vado port`` can fix (some or all of them); JSON: a list of
``{"code", "name", "severity", "count", "fixable"}`` in the same order.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from vado.model import Applicability
from vado.model.audit import AuditResult


@dataclass(frozen=True)
class CodeCount:
    """The findings of one code."""

    code: str
    name: str
    severity: str
    count: int
    fixable: int


def code_counts(result: AuditResult) -> list[CodeCount]:
    """One :class:`CodeCount` per code that has findings, most frequent first, then by code."""
    counts: dict[str, list] = {}
    for f in result.findings:
        got = counts.setdefault(f.code, [f.name, f.severity.value, 0, 0])
        got[2] += 1
        if f.fix is not None and f.fix.applicability is not Applicability.DISPLAY_ONLY:
            got[3] += 1
    rows = [CodeCount(code, *values) for code, values in counts.items()]
    return sorted(rows, key=lambda r: (-r.count, r.code))


def render_statistics(result: AuditResult, fmt: str = "text") -> str:
    """The statistics of ``result`` as text (the default) or ``json``, ending with a newline."""
    rows = code_counts(result)
    if fmt == "json":
        return json.dumps([r.__dict__ for r in rows], indent=2) + "\n"
    if not rows:
        return "no findings\n"
    width = len(str(rows[0].count))
    code_w = max(len(r.code) for r in rows)
    return "".join(f"{r.count:>{width}}  {r.code:<{code_w}}  {'[*]' if r.fixable else '   '}  {r.name}  ({r.severity})\n"
                   for r in rows)
