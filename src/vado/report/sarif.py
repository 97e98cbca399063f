"""The SARIF 2.1.0 report: one run, for code-scanning services and editors.

Mapping from the model:

- every :class:`~vado.model.audit.RuleInfo` (and any finding code without one)
  is a ``reportingDescriptor`` in ``tool.driver.rules``, sorted by code; its
  ``defaultConfiguration.level`` comes from the severity (critical/high → error,
  medium → warning, low/info → note); the rule's documentation, turned from the
  docstring's reStructuredText into GitHub Markdown, is its ``help``, and the
  first public reference it cites is its ``helpUri``;
- every finding is a ``result`` with a ``physicalLocation`` relative to the
  ``SRCROOT`` base (``originalUriBaseIds`` names it when it is absolute). Given
  ``repo_root`` (the top of the git repository holding the audited tree, what
  GitHub code scanning resolves URIs against) the base is that directory and
  every URI is repository-relative (``dev/cuda/Makefile``, not ``Makefile``);
  otherwise the base is the audited root. The region has lines and byte
  offsets, and ``properties.verdicts`` (target → verdict);
- given ``reader`` (path → the file's current bytes, or None), each result also
  gets columns in UTF-16 code units (SARIF's default ``columnKind``, the one
  GitHub reads) and ``partialFingerprints`` (:func:`vado.audit.filters.fingerprints`:
  code + the line's text + rank, stable when lines move). Without the source,
  vado's columns (bytes) cannot be converted and are left out;
- a fix that ``vado port`` may apply (safe or unsafe, not display-only) becomes
  a SARIF ``fix`` whose replacements are byte ranges (``deletedRegion``
  ``byteOffset``/``byteLength``) and the inserted text;
- errors and skips are ``toolExecutionNotifications`` of the one invocation,
  whose ``executionSuccessful`` is false when the result carries errors.

vado's own columns count bytes (sources are viewed as latin-1); SARIF has no
column kind for bytes, hence the conversion above.
"""

from __future__ import annotations

import base64
import json
import os
import re
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import Any, Callable
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
#: path relative to the audited root → the file's current bytes, or None when it cannot be read.
Reader = Callable[[str], "bytes | None"]


def render_sarif(result: AuditResult, *, repo_root: str | None = None, reader: Reader | None = None) -> str:
    """``result`` as a SARIF 2.1.0 log (indented JSON ending in a newline); see :func:`sarif_log`."""
    return json.dumps(sarif_log(result, repo_root=repo_root, reader=reader), indent=2, ensure_ascii=False) + "\n"


def disk_context(result: AuditResult) -> dict[str, Any]:
    """``repo_root`` and ``reader`` for a result whose tree is on this machine (the CLI's case)."""
    from vado.audit.filters import read_file_bytes
    from vado.config import find_repo_root

    root = Path(result.root)
    if not root.exists():
        return {}
    repo = find_repo_root(root)
    return {"repo_root": str(repo) if repo is not None else None, "reader": lambda p: read_file_bytes(result, p)}


def sarif_log(result: AuditResult, *, repo_root: str | None = None, reader: Reader | None = None) -> dict[str, Any]:
    """The SARIF log of ``result`` as Python values (``repo_root`` and ``reader``: module docstring)."""
    prefix = ""
    base = _root_uri(result.root)
    if repo_root is not None:
        root_dir = Path(os.path.abspath(result.root))
        if root_dir.is_file():
            root_dir = root_dir.parent
        try:
            rel = root_dir.relative_to(Path(os.path.abspath(repo_root)))
            prefix = "" if str(rel) == "." else rel.as_posix() + "/"
            base = _root_uri(os.path.abspath(repo_root))
        except ValueError:
            pass
    sources = _Sources(result, reader)
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
        "invocations": [_invocation(result, prefix)],
    }
    if base is not None:
        run["originalUriBaseIds"] = {SRCROOT: {"uri": base}}
    if result.files:
        run["artifacts"] = [
            {"location": _artifact(prefix + fr.path), "length": fr.size, "properties": {"kind": fr.kind}}
            for fr in sorted(result.files, key=lambda fr: fr.path)
        ]
    run["results"] = [_result(f, index[f.code], prefix, sources) for f in sorted_findings(result)]
    run["columnKind"] = "utf16CodeUnits"
    run["properties"] = {
        "root": result.root,
        "targets": list(result.targets),
        "verdicts": {tv.target: tv.verdict.value for tv in result.verdicts},
        "verdictReasons": {tv.target: tv.reason for tv in result.verdicts if tv.reason},
        "stats": to_json(result.stats),
        "schemaVersion": result.schema_version,
    }
    if getattr(result, "build", None) is not None:
        # The configuration judged: which #if branches counted (findings in the others carry "inactive").
        run["properties"]["build"] = to_json(result.build)
    return {"$schema": SARIF_SCHEMA_URI, "version": SARIF_VERSION, "runs": [run]}


def _rule(rule: RuleInfo) -> dict[str, Any]:
    help_md = rst_to_markdown(rule.help.strip()) or rule.summary or rule.name
    summary = rule.summary or rule.name
    out: dict[str, Any] = {
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": summary},
        "fullDescription": {"text": summary},
        "help": {"text": markdown_to_text(help_md), "markdown": help_md},
        "defaultConfiguration": {"level": sarif_level(rule.severity)},
        "properties": {"family": rule.family, "severity": rule.severity, "tags": [rule.family]},
    }
    uri = help_uri(rule.help)
    if uri:
        out["helpUri"] = uri
    return out


_URL = re.compile(r"https?://[^\s<>()`'\"]+[^\s<>()`'\".,;:]")
_REFERENCES = re.compile(r"^#*\s*References\s*$", re.MULTILINE)


def help_uri(help_text: str) -> str | None:
    """The first URL of the rule's References section (the public documentation behind it), or None."""
    m = _REFERENCES.search(help_text)
    found = _URL.search(help_text, m.end() if m else 0)
    return found.group(0) if found else None


_CODE_BLOCK = re.compile(r"^(\s*)\.\. (?:code-block|code|sourcecode)::\s*(\S*)\s*$")
_INLINE_LITERAL = re.compile(r"``(.+?)``")
_RST_ROLE = re.compile(r":(?:\w+:)?\w+:`([^`]+)`")
_RST_LINK = re.compile(r"`([^`<]+?)\s*<([^>]+)>`_")


def rst_to_markdown(text: str) -> str:
    """A rule docstring's reStructuredText as GitHub Markdown.

    Handles what vado's docstrings use: ``.. code-block:: LANG`` and ``::``
    literal blocks (indented) become fenced blocks; double-backquoted literals
    single-backquoted; roles (:func:`x`) and `links <url>`_ their Markdown forms;
    headings written as ``## Title`` stay.
    """
    lines = text.splitlines()
    out: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        m = _CODE_BLOCK.match(line)
        literal = not m and line.rstrip().endswith("::") and not line.lstrip().startswith("..")
        if m or literal:
            if literal:
                head = line.rstrip()[:-2].rstrip()
                if head:
                    out.append(_inline(head) + ":")
            lang = m.group(2) if m else ""
            indent = len(line) - len(line.lstrip())
            j = i + 1
            block: list[str] = []
            while j < len(lines) and (not lines[j].strip() or len(lines[j]) - len(lines[j].lstrip()) > indent):
                block.append(lines[j])
                j += 1
            while block and not block[-1].strip():
                block.pop()
            body = list(block)
            while body and not body[0].strip():
                body.pop(0)
            if body:
                cut = min(len(b) - len(b.lstrip()) for b in body if b.strip())
                if out and out[-1].strip():
                    out.append("")
                out.append("```" + lang)
                out.extend(b[cut:] if b.strip() else "" for b in body)
                out.append("```")
                if j < len(lines):
                    out.append("")
                i = j
                continue
            i += 1
            continue
        out.append(_inline(line))
        i += 1
    return "\n".join(out).strip()


def _inline(line: str) -> str:
    line = _INLINE_LITERAL.sub(lambda m: "`" + m.group(1) + "`", line)
    line = _RST_ROLE.sub(lambda m: "`" + m.group(1) + "`", line)
    return _RST_LINK.sub(lambda m: f"[{m.group(1)}]({m.group(2)})", line)


def markdown_to_text(md: str) -> str:
    """Plain text of :func:`rst_to_markdown`'s output (``help.text`` for viewers without Markdown)."""
    out = []
    for line in md.splitlines():
        if line.startswith("```"):
            continue
        if line.startswith("## "):
            line = line[3:].upper()
        out.append(line)
    return "\n".join(out)


class _Sources:
    """The audited files' bytes and line starts, read once each, for columns and fingerprints."""

    def __init__(self, result: AuditResult, reader: Reader | None) -> None:
        self.reader = reader
        self._lines: dict[str, tuple[bytes, list[int]] | None] = {}
        self.fingerprints: dict[int, str] = {}
        if reader is None:
            return
        from vado.audit.filters import fingerprints

        by_path: dict[str, list[Finding]] = {}
        for f in result.findings:
            by_path.setdefault(f.span.path, []).append(f)
        for path, found in by_path.items():
            got = self.lines(path)
            if got is None:
                continue
            for f, fp in zip(found, fingerprints(found, got[0], got[1])):
                self.fingerprints[id(f)] = fp

    def lines(self, path: str) -> tuple[bytes, list[int]] | None:
        if self.reader is None:
            return None
        if path not in self._lines:
            from vado.audit.filters import line_starts

            data = self.reader(path)
            self._lines[path] = None if data is None else (data, line_starts(data))
        return self._lines[path]

    def utf16_column(self, path: str, line: int, byte_column: int) -> int | None:
        """1-based UTF-16 column of 1-based byte column ``byte_column`` on ``line``, None if unknown."""
        got = self.lines(path)
        if got is None or line <= 0 or line > len(got[1]):
            return None
        data, starts = got
        begin = starts[line - 1]
        prefix = data[begin:begin + byte_column - 1]
        if prefix.isascii():
            return byte_column
        try:
            text = prefix.decode("utf-8")
        except UnicodeDecodeError as exc:
            # A cut through a multi-byte character (or bytes that are not UTF-8): count what decodes.
            text = prefix[:exc.start].decode("utf-8") + prefix[exc.start:].decode("utf-8", "replace")
        return len(text.encode("utf-16-le")) // 2 + 1


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


def _region(span: Span, sources: _Sources) -> dict[str, int]:
    region: dict[str, int] = {}
    # SARIF lines and columns are 1-based; the model uses 0 for "not known".
    if span.line > 0:
        region["startLine"] = span.line
        start_col = sources.utf16_column(span.path, span.line, span.column) if span.column > 0 else None
        if start_col is not None:
            region["startColumn"] = start_col
        if span.end_line >= span.line:
            region["endLine"] = span.end_line
            end_col = sources.utf16_column(span.path, span.end_line, span.end_column) if span.end_column > 0 else None
            if end_col is not None and start_col is not None:
                region["endColumn"] = end_col
    region["byteOffset"] = span.start
    region["byteLength"] = span.length
    return region


def _result(finding: Finding, rule_index: int, prefix: str, sources: _Sources) -> dict[str, Any]:
    out: dict[str, Any] = {
        "ruleId": finding.code,
        "ruleIndex": rule_index,
        "level": sarif_level(finding.severity),
        "message": {"text": finding.message},
        "locations": [
            {"physicalLocation": {"artifactLocation": _artifact(prefix + finding.span.path),
                                  "region": _region(finding.span, sources)}}
        ],
    }
    fingerprint = sources.fingerprints.get(id(finding))
    if fingerprint is not None:
        from vado.audit.filters import FINGERPRINT_KEY

        out["partialFingerprints"] = {FINGERPRINT_KEY: fingerprint}
    if finding.fix is not None and finding.fix.applicability is not Applicability.DISPLAY_ONLY and finding.fix.edits:
        out["fixes"] = [_fix(finding.fix, prefix)]
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
    if finding.inactive:
        props["inactive"] = {t: finding.inactive[t].value for t in sorted(finding.inactive)}
    out["properties"] = props
    return out


def _content(text: str) -> dict[str, str]:
    """``artifactContent`` of replacement text: as text when it is valid UTF-8, else base64 bytes."""
    raw = encode_source(text)
    try:
        return {"text": raw.decode("utf-8")}
    except UnicodeDecodeError:
        return {"binary": base64.b64encode(raw).decode("ascii")}


def _fix(fix: Fix, prefix: str = "") -> dict[str, Any]:
    by_path: dict[str, list] = {}
    for e in sorted(fix.edits):
        by_path.setdefault(e.path, []).append(e)
    changes = [
        {
            "artifactLocation": _artifact(prefix + path),
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


def _invocation(result: AuditResult, prefix: str = "") -> dict[str, Any]:
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
                "locations": [{"physicalLocation": {"artifactLocation": _artifact(prefix + skip.path)}}],
            }
        )
    inv: dict[str, Any] = {"executionSuccessful": not result.errors}
    if notes:
        inv["toolExecutionNotifications"] = notes
    return inv
