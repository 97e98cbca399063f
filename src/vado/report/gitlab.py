"""The ``gitlab`` report: GitLab Code Quality (a JSON array in the Code Climate issue format).

Each finding is ``{"description", "check_name", "fingerprint", "severity", "location": {"path",
"lines": {"begin", "end"}}}``, the fields GitLab reads from a ``codequality`` report artifact. Severity:
critical → blocker, high → critical, medium → major, low → minor, info → info. Paths are
repository-relative when the repository's top is known.

The fingerprint is what GitLab compares between the base and the head of a merge request: with the
source (``reader``) it is the baseline's (:func:`vado.audit.filters.fingerprints`: code, the line's text,
rank) with the path, so it follows a finding whose line moves; without the source it is the code,
path, line and message.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from typing import Any, Callable

from vado.model import Finding, Severity
from vado.model.audit import AuditResult
from vado.report._location import Locator, verdict_note
from vado.report._summary import sorted_findings

_SEVERITY = {
    Severity.CRITICAL: "blocker",
    Severity.HIGH: "critical",
    Severity.MEDIUM: "major",
    Severity.LOW: "minor",
    Severity.INFO: "info",
}


def _line_fingerprints(result: AuditResult, reader: Callable[[str], Any] | None) -> dict[int, str]:
    if reader is None:
        return {}
    from vado.audit.filters import fingerprints

    by_path: dict[str, list[Finding]] = {}
    for f in result.findings:
        by_path.setdefault(f.span.path, []).append(f)
    out: dict[int, str] = {}
    for path, found in by_path.items():
        data = reader(path)
        if data is None:
            continue
        for f, fp in zip(found, fingerprints(found, data)):
            out[id(f)] = fp
    return out


def code_quality(result: AuditResult, *, repo_root: str | None = None,
                 reader: Callable[[str], Any] | None = None) -> list[dict[str, Any]]:
    """The Code Quality issues of ``result`` as Python values."""
    where = Locator(result, repo_root)
    by_line = _line_fingerprints(result, reader)
    seen: Counter = Counter()
    issues = []
    for f in sorted_findings(result):
        path = where.path(f)
        base = by_line.get(id(f))
        if base is None:
            key = (f.code, path, f.span.line, f.message)
            base = f"{f.code}\0{f.span.line}\0{f.message}\0{seen[key]}"
            seen[key] += 1
        line = max(1, f.span.line)
        issues.append({
            "type": "issue",
            "description": f"{f.code} {f.message}" + verdict_note(f),
            "check_name": f.code,
            "fingerprint": hashlib.sha256(f"{path}\0{base}".encode("utf-8")).hexdigest(),
            "severity": _SEVERITY[f.severity],
            "categories": ["Compatibility"],
            "location": {"path": path, "lines": {"begin": line, "end": max(line, f.span.end_line or line)}},
        })
    return issues


def render_gitlab(result: AuditResult, *, repo_root: str | None = None,
                  reader: Callable[[str], Any] | None = None) -> str:
    """``result`` as a Code Quality report (indented JSON ending in a newline)."""
    return json.dumps(code_quality(result, repo_root=repo_root, reader=reader), indent=2, ensure_ascii=False) + "\n"
