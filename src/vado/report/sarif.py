"""The SARIF 2.1.0 report: one run, for code-scanning services and editors.

Mapping from the model:

- every :class:`~vado.model.audit.RuleInfo` (and any finding code without one)
  is a ``reportingDescriptor`` in ``tool.driver.rules``, sorted by code; its
  ``defaultConfiguration.level`` comes from the severity (critical/high → error,
  medium → warning, low/info → note); the rule's markdown help is its
  ``fullDescription`` and ``help``;
- every finding is a ``result`` with a ``physicalLocation`` relative to the
  ``SRCROOT`` base (``originalUriBaseIds`` names the root when it is absolute),
  a region with lines, columns *and* byte offsets, and ``properties.verdicts``
  (target → verdict);
- a fix that ``vado port`` may apply (safe or unsafe, not display-only) becomes
  a SARIF ``fix`` whose replacements are byte ranges (``deletedRegion``
  ``byteOffset``/``byteLength``) and the inserted text;
- errors and skips are ``toolExecutionNotifications`` of the one invocation,
  whose ``executionSuccessful`` is false when the result carries errors.

Columns count bytes: vado views sources as latin-1, one code point per byte,
hence ``columnKind: unicodeCodePoints`` (exact for ASCII lines).
"""

from __future__ import annotations

import base64
import json
from pathlib import PurePosixPath, PureWindowsPath
from typing import Any
from urllib.parse import quote

from vado.model import Applicability, Finding, Fix, Span, to_json
from vado.model.audit import AuditResult, RuleInfo
from vado.model.text import encode_source
from vado.report._summary import error_line, sarif_level, sorted_findings, sorted_rules, sorted_skips
from vado.report.json_report import TOOL_NAME, tool_version

SARIF_VERSION = "2.1.0"
SARIF_SCHEMA_URI = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
#: Where users learn about the tool; the distribution's index page.
SRCROOT = "SRCROOT"


def render_sarif(result: AuditResult) -> str:
    """``result`` as a SARIF 2.1.0 log (indented JSON ending in a newline)."""
    return json.dumps(sarif_log(result), indent=2, ensure_ascii=False) + "\n"


def sarif_log(result: AuditResult) -> dict[str, Any]:
    """The SARIF log of ``result`` as Python values."""
    rules = sorted_rules(result)
    index = {r.code: i for i, r in enumerate(rules)}
    run: dict[str, Any] = {
        "tool": {
            "driver": {
                "name": TOOL_NAME,
                "version": tool_version(result),
                "rules": [_rule(r) for r in rules],
            }
        },
        "invocations": [_invocation(result)],
    }
    base = _root_uri(result.root)
    if base is not None:
        run["originalUriBaseIds"] = {SRCROOT: {"uri": base}}
    if result.files:
        run["artifacts"] = [
            {"location": _artifact(fr.path), "length": fr.size, "properties": {"kind": fr.kind}}
            for fr in sorted(result.files, key=lambda fr: fr.path)
        ]
    run["results"] = [_result(f, index[f.code]) for f in sorted_findings(result)]
    run["columnKind"] = "unicodeCodePoints"
    run["properties"] = {
        "root": result.root,
        "targets": list(result.targets),
        "verdicts": {tv.target: tv.verdict.value for tv in result.verdicts},
        "stats": to_json(result.stats),
        "schemaVersion": result.schema_version,
    }
    return {"$schema": SARIF_SCHEMA_URI, "version": SARIF_VERSION, "runs": [run]}


def _rule(rule: RuleInfo) -> dict[str, Any]:
    help_md = rule.help.strip() or rule.summary or rule.name
    return {
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": rule.summary or rule.name},
        "fullDescription": {"text": help_md, "markdown": help_md},
        "help": {"text": help_md, "markdown": help_md},
        "defaultConfiguration": {"level": sarif_level(rule.severity)},
        "properties": {"family": rule.family, "severity": rule.severity, "tags": [rule.family]},
    }


def _uri(path: str) -> str:
    # Percent-encode everything but the path separators and unreserved characters so a
    # name with spaces or '#' stays one relative reference.
    return quote(path.replace("\\", "/"), safe="/-._~")


def _artifact(path: str) -> dict[str, str]:
    return {"uri": _uri(path), "uriBaseId": SRCROOT}


def _root_uri(root: str) -> str | None:
    """``file:`` URI of an absolute root, ending in ``/``; None for a relative one."""
    for flavour in (PurePosixPath, PureWindowsPath):
        p = flavour(root)
        if p.is_absolute():
            uri = p.as_uri()
            return uri if uri.endswith("/") else uri + "/"
    return None


def _region(span: Span) -> dict[str, int]:
    region: dict[str, int] = {}
    # SARIF lines and columns are 1-based; the model uses 0 for "not known".
    if span.line > 0:
        region["startLine"] = span.line
        if span.column > 0:
            region["startColumn"] = span.column
        if span.end_line >= span.line:
            region["endLine"] = span.end_line
            if span.end_column > 0:
                region["endColumn"] = span.end_column
    region["byteOffset"] = span.start
    region["byteLength"] = span.length
    return region


def _result(finding: Finding, rule_index: int) -> dict[str, Any]:
    out: dict[str, Any] = {
        "ruleId": finding.code,
        "ruleIndex": rule_index,
        "level": sarif_level(finding.severity),
        "message": {"text": finding.message},
        "locations": [
            {"physicalLocation": {"artifactLocation": _artifact(finding.span.path), "region": _region(finding.span)}}
        ],
    }
    if finding.fix is not None and finding.fix.applicability is not Applicability.DISPLAY_ONLY and finding.fix.edits:
        out["fixes"] = [_fix(finding.fix)]
    props: dict[str, Any] = {
        "severity": finding.severity.value,
        "name": finding.name,
        "verdicts": {t: finding.verdicts[t].value for t in sorted(finding.verdicts)},
        "effort": to_json(finding.effort),
    }
    if finding.fix is not None:
        props["fixApplicability"] = finding.fix.applicability.value
    if finding.data:
        props["data"] = to_json(finding.data)
    out["properties"] = props
    return out


def _content(text: str) -> dict[str, str]:
    """``artifactContent`` of replacement text: as text when it is valid UTF-8, else base64 bytes."""
    raw = encode_source(text)
    try:
        return {"text": raw.decode("utf-8")}
    except UnicodeDecodeError:
        return {"binary": base64.b64encode(raw).decode("ascii")}


def _fix(fix: Fix) -> dict[str, Any]:
    by_path: dict[str, list] = {}
    for e in sorted(fix.edits):
        by_path.setdefault(e.path, []).append(e)
    changes = [
        {
            "artifactLocation": _artifact(path),
            "replacements": [
                {
                    "deletedRegion": {"byteOffset": e.start, "byteLength": e.end - e.start},
                    "insertedContent": _content(e.content),
                }
                for e in edits
            ],
        }
        for path, edits in sorted(by_path.items())
    ]
    out: dict[str, Any] = {"artifactChanges": changes, "properties": {"applicability": fix.applicability.value}}
    if fix.description:
        out["description"] = {"text": fix.description}
    return out


def _invocation(result: AuditResult) -> dict[str, Any]:
    notes: list[dict[str, Any]] = []
    for err in result.errors:
        note: dict[str, Any] = {
            "level": "error",
            "message": {"text": error_line(err)},
            "descriptor": {"id": str(err.get("type") or "VadoError")},
        }
        extra = {k: v for k, v in err.items() if k not in ("type", "what", "why")}
        if extra:
            note["properties"] = to_json(extra)
        notes.append(note)
    for skip in sorted_skips(result):
        text = f"skipped {skip.path}: {skip.reason.value}" + (f" ({skip.detail})" if skip.detail else "")
        notes.append(
            {
                "level": "note",
                "message": {"text": text},
                "descriptor": {"id": f"skip/{skip.reason.value}"},
                "locations": [{"physicalLocation": {"artifactLocation": _artifact(skip.path)}}],
            }
        )
    inv: dict[str, Any] = {"executionSuccessful": not result.errors}
    if notes:
        inv["toolExecutionNotifications"] = notes
    return inv
