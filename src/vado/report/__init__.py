"""Reports: pure functions from one :class:`~vado.model.audit.AuditResult` to text.

Formats (``FORMATS``): ``text`` (rich terminal output), ``concise`` (a line per
finding, ``path:line:col: CODE …``, plain text), ``json`` (versioned,
read back by :func:`load_audit_json`), ``sarif`` (SARIF 2.1.0), ``markdown``,
``html`` (one self-contained page), and for CI services ``github`` (workflow
annotations), ``gitlab`` (Code Quality JSON) and ``junit`` (JUnit XML).
:func:`render` picks one by name; the format modules are imported on first use
so importing this package is cheap.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from vado.errors import UsageError

if TYPE_CHECKING:
    from vado.model.audit import AuditResult

#: Format name → (module, function).
_RENDERERS: dict[str, tuple[str, str]] = {
    "text": ("vado.report.terminal", "render_terminal"),
    "concise": ("vado.report.concise", "render_concise"),
    "json": ("vado.report.json_report", "render_json"),
    "sarif": ("vado.report.sarif", "render_sarif"),
    "markdown": ("vado.report.markdown", "render_markdown"),
    "html": ("vado.report.html", "render_html"),
    "github": ("vado.report.github", "render_github"),
    "gitlab": ("vado.report.gitlab", "render_gitlab"),
    "junit": ("vado.report.junit", "render_junit"),
}

#: Formats that take the tree's context (``repo_root``, ``reader``: :func:`vado.report.sarif.disk_context`).
CONTEXT_FORMATS: frozenset[str] = frozenset({"sarif", "github", "gitlab", "junit"})

FORMATS: tuple[str, ...] = tuple(_RENDERERS)

#: File suffix conventionally used for each format.
SUFFIXES: dict[str, str] = {"text": ".txt", "concise": ".concise.txt", "json": ".json", "sarif": ".sarif", "markdown": ".md",
                            "html": ".html", "github": ".github.txt", "gitlab": ".codequality.json", "junit": ".junit.xml"}

_EXPORTS = {
    "render_terminal": "vado.report.terminal",
    "render_concise": "vado.report.concise",
    "render_json": "vado.report.json_report",
    "load_audit_json": "vado.report.json_report",
    "audit_schema": "vado.report.json_report",
    "render_sarif": "vado.report.sarif",
    "render_markdown": "vado.report.markdown",
    "render_html": "vado.report.html",
    "render_github": "vado.report.github",
    "render_gitlab": "vado.report.gitlab",
    "render_junit": "vado.report.junit",
    "render_statistics": "vado.report.statistics",
}

__all__ = ["CONTEXT_FORMATS", "FORMATS", "SUFFIXES", "render", *_EXPORTS]


def render(result: "AuditResult", fmt: str, *, width: int | None = None, color: bool = False, **context: Any) -> str:
    """``result`` rendered in format ``fmt`` (one of :data:`FORMATS`, case-insensitive).

    ``width`` and ``color`` apply to ``text`` only; further keywords (``repo_root``,
    ``reader``: :func:`vado.report.sarif.disk_context`) to :data:`CONTEXT_FORMATS` only. An unknown format raises
    :class:`~vado.errors.UsageError` naming the choices.
    """
    name = fmt.strip().lower()
    if name not in _RENDERERS:
        raise UsageError(
            f"unknown report format {fmt!r}",
            f"vado writes {', '.join(FORMATS)}",
            "pass one of those to --format",
        )
    module, func = _RENDERERS[name]
    renderer = getattr(importlib.import_module(module), func)
    if name == "text":
        return renderer(result, width=width, color=color)
    if name in CONTEXT_FORMATS:
        return renderer(result, **context)
    return renderer(result)


def __getattr__(name: str) -> Any:
    # Lazy re-exports: `from vado.report import render_sarif` works without
    # importing rich for every command.
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'vado.report' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
