"""The ``junit`` report: JUnit XML, which CI services (GitLab, Jenkins, Azure, CircleCI) show as test results.

One ``<testsuite>`` per audited file, one ``<testcase>`` per finding in it (``classname`` the path,
``name`` ``CODE at line:column``), and a passing testcase for a file without findings. A finding at low
severity or above is a ``<failure>`` (its ``type`` the severity, the message and the verdicts it
implies in the text); an informational finding is a passing testcase whose text goes to
``<system-out>``: information is not a failed test. Errors of the run are ``<error>`` testcases of a
``vado`` suite.
"""

from __future__ import annotations

from typing import Any, Callable
from xml.etree import ElementTree as ET

from vado.model import Severity
from vado.model.audit import AuditResult
from vado.report._location import Locator, verdict_note
from vado.report._summary import error_line, sorted_findings


def render_junit(result: AuditResult, *, repo_root: str | None = None,
                 reader: Callable[[str], Any] | None = None) -> str:
    """``result`` as a JUnit XML document ending in a newline (``reader`` is unused, see the github format)."""
    where = Locator(result, repo_root)
    by_path: dict[str, list] = {fr.path: [] for fr in sorted(result.files, key=lambda fr: fr.path)}
    for f in sorted_findings(result):
        by_path.setdefault(f.span.path, []).append(f)
    root = ET.Element("testsuites", name="vado audit")
    total = failures = 0
    for path, found in by_path.items():
        shown = where.path(path)
        suite = ET.SubElement(root, "testsuite", name=shown)
        n_fail = 0
        if not found:
            ET.SubElement(suite, "testcase", classname=shown, name="vado audit")
        for f in found:
            case = ET.SubElement(suite, "testcase", classname=shown, name=f"{f.code} at {f.span.line}:{f.span.column}",
                                 file=shown, line=str(f.span.line))
            note = verdict_note(f)
            text = f"{shown}:{f.span.line}:{f.span.column}: {f.code} {f.name}: {f.message}" + (
                f"\n{note.strip()[1:-1]}" if note else "")
            if f.severity is Severity.INFO:
                ET.SubElement(case, "system-out").text = text
            else:
                n_fail += 1
                ET.SubElement(case, "failure", message=f"{f.code} {f.message}", type=f.severity.value).text = text
        tests = max(1, len(found))
        suite.set("tests", str(tests))
        suite.set("failures", str(n_fail))
        suite.set("errors", "0")
        total += tests
        failures += n_fail
    if result.errors:
        suite = ET.SubElement(root, "testsuite", name="vado", tests=str(len(result.errors)), failures="0",
                              errors=str(len(result.errors)))
        for i, err in enumerate(result.errors, 1):
            case = ET.SubElement(suite, "testcase", classname="vado", name=f"error {i}")
            ET.SubElement(case, "error", message=error_line(err))
        total += len(result.errors)
    root.set("tests", str(total))
    root.set("failures", str(failures))
    root.set("errors", str(len(result.errors)))
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
