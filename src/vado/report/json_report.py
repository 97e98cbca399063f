"""The JSON report: a versioned document that other stages (plan, report compare) read back.

Shape (``docs/audit-json.md`` has the details, ``audit.schema.json`` the schema)::

    {"schema_version": "1.0",
     "tool": {"name": "vado", "version": "0.1.0"},
     "root": ..., "targets": [...], "verdicts": [...], "files": [...],
     "workloads": [...], "findings": [...], "skips": [...], "rules": [...],
     "stats": {...}, "errors": [...]}

Everything after ``tool`` is :func:`vado.model.to_json` of the
:class:`~vado.model.audit.AuditResult`, field for field, except that the
result's ``schema_version`` is the top-level one and its ``tool_version`` is
``tool.version``. :func:`load_audit_json` reverses :func:`render_json`.
"""

from __future__ import annotations

import json
from typing import Any

from vado import package_files
from vado.errors import ReportError
from vado.model import SCHEMA_VERSION, from_json, to_json
from vado.model.audit import AuditResult

TOOL_NAME = "vado"

#: Fields of AuditResult that the envelope carries under other names.
_ENVELOPE_FIELDS = ("schema_version", "tool_version")


def tool_version(result: AuditResult) -> str:
    """The version that produced ``result``: its own ``tool_version``, else this vado's."""
    if result.tool_version:
        return result.tool_version
    from vado import __version__

    return __version__


def audit_document(result: AuditResult) -> dict[str, Any]:
    """The JSON document of ``result`` as Python values (what :func:`render_json` serialises)."""
    body = to_json(result)
    doc: dict[str, Any] = {
        "schema_version": SCHEMA_VERSION,
        "tool": {"name": TOOL_NAME, "version": tool_version(result)},
    }
    for key, value in body.items():
        if key not in _ENVELOPE_FIELDS and not (key == "amd_support" and not value):
            doc[key] = value  # amd_support only where a build file builds for AMD (older reports have none)
    return doc


def render_json(result: AuditResult) -> str:
    """``result`` as the versioned JSON report, indented, keys in a fixed order, ending in a newline.

    Non-ASCII text is kept as is (UTF-8 on output); key order is the dataclasses'
    field order, so two renders of one result are byte-identical.
    """
    return json.dumps(audit_document(result), indent=2, ensure_ascii=False) + "\n"


def load_audit_json(text: str | bytes) -> AuditResult:
    """Read a report written by :func:`render_json` back into an :class:`AuditResult`.

    Raises :class:`~vado.errors.ReportError` when the text is not JSON, is not an
    audit report, was written with an incompatible major schema version, or does
    not decode into the model. A newer *minor* version is read: fields this
    version does not know are ignored.
    """
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ReportError(
            "cannot read the audit report", f"it is not JSON ({exc})", "pass a file written by `vado audit --format json`"
        ) from None
    if not isinstance(data, dict) or "schema_version" not in data or "findings" not in data:
        raise ReportError(
            "cannot read the audit report",
            "it is JSON but not a vado audit report (no schema_version or findings)",
            "pass a file written by `vado audit --format json`",
        )
    version = str(data["schema_version"])
    if version.split(".")[0] != SCHEMA_VERSION.split(".")[0]:
        raise ReportError(
            "cannot read the audit report",
            f"it has schema version {version}; this vado reads {SCHEMA_VERSION.split('.')[0]}.x",
            "re-run the audit with this vado, or read it with the vado version that wrote it",
        )
    body = {k: v for k, v in data.items() if k not in ("tool", "$schema")}
    tool = data.get("tool")
    if isinstance(tool, dict) and isinstance(tool.get("version"), str):
        body["tool_version"] = tool["version"]
    body["schema_version"] = version
    try:
        return from_json(AuditResult, body)
    except (TypeError, ValueError, KeyError, AttributeError) as exc:
        raise ReportError(
            "cannot read the audit report",
            f"its content does not match schema {version} ({type(exc).__name__}: {exc})",
            "check it against vado/report/audit.schema.json",
        ) from None


def audit_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of the report, as shipped in the package."""
    text = package_files.files("vado.report").joinpath("audit.schema.json").read_text(encoding="utf-8")
    return json.loads(text)
