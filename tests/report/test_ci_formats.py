"""The CI formats: GitHub workflow annotations, GitLab Code Quality, JUnit XML; and --statistics."""

from __future__ import annotations

import json
from xml.etree import ElementTree as ET

from vado.model import Severity
from vado.report import FORMATS, render
from vado.report.github import escape_data, escape_property
from vado.report.statistics import code_counts, render_statistics


def test_the_ci_formats_are_registered():
    assert {"github", "gitlab", "junit"} <= set(FORMATS)


def test_github_annotations_per_finding_with_levels_and_repo_paths(sample):
    text = render(sample, "github", repo_root="/src")
    lines = text.splitlines()
    assert len(lines) == len(sample.findings) + len(sample.errors) + 1
    ptx = next(line for line in lines if "PTX001" in line)
    f = next(f for f in sample.findings if f.code == "PTX001")
    assert ptx.startswith(f"::error file=llm-kernels/{f.span.path},line={f.span.line},col={f.span.column},"
                          f"title=PTX001 inline-ptx-asm::")
    levels = {line.split(" ", 1)[0] for line in lines}
    assert levels <= {"::error", "::warning", "::notice"}
    low = next(line for line in lines if "API001" in line)
    assert low.startswith("::notice ")  # low severity is a notice, not a failure's red
    assert lines[-1].startswith("::notice title=vado audit::") and "rocm-7.2: " in lines[-1]
    assert all("\n" not in line and "\r" not in line for line in lines)


def test_github_escaping_follows_the_toolkit():
    assert escape_data("50% a\nb\r") == "50%25 a%0Ab%0D"
    assert escape_property("a:b,c%") == "a%3Ab%2Cc%25"


def test_gitlab_code_quality_issues(sample):
    issues = json.loads(render(sample, "gitlab"))
    assert len(issues) == len(sample.findings)
    for issue in issues:
        assert set(issue) >= {"description", "check_name", "fingerprint", "severity", "location"}
        assert issue["severity"] in {"info", "minor", "major", "critical", "blocker"}
        assert issue["location"]["lines"]["begin"] >= 1 and issue["location"]["path"]
    assert len({i["fingerprint"] for i in issues}) == len(issues)
    ptx = next(i for i in issues if i["check_name"] == "PTX001")
    assert ptx["severity"] == "blocker"
    # A fingerprint is stable: the same result renders the same issues.
    assert json.loads(render(sample, "gitlab")) == issues


def test_gitlab_fingerprints_follow_a_moved_line_with_the_source(tmp_path, monkeypatch):
    from vado.audit import audit
    from vado.knowledge.targets import get_target
    from vado.report.sarif import disk_context

    monkeypatch.chdir(tmp_path)
    src = "__global__ void k(int* o, int v) {\n  o[threadIdx.x] = __any_sync(0xffffffff, v);\n}\n"
    (tmp_path / "k.cu").write_text(src)
    def issues():
        r = audit("k.cu", [get_target("rocm-7.2")])
        return {i["check_name"]: (i["fingerprint"], i["location"]["lines"]["begin"])
                for i in json.loads(render(r, "gitlab", **disk_context(r)))}

    before = issues()
    (tmp_path / "k.cu").write_text("// a new first line\n" + src)
    after = issues()
    assert before and before.keys() == after.keys()
    for code, (fp, line) in before.items():
        assert after[code] == (fp, line + 1)


def test_junit_failures_skip_information(sample):
    doc = ET.fromstring(render(sample, "junit"))
    assert doc.tag == "testsuites"
    cases = doc.findall(".//testcase")
    failures = doc.findall(".//failure")
    n_info = sum(f.severity is Severity.INFO for f in sample.findings)
    assert len(failures) == len(sample.findings) - n_info
    assert int(doc.get("failures")) == len(failures)
    assert int(doc.get("tests")) == len(cases)
    ptx = next(f for f in failures if f.get("message").startswith("PTX001"))
    assert ptx.get("type") == "critical" and "inline-ptx-asm" in ptx.text
    suites = {s.get("name") for s in doc.findall("testsuite")} - {"vado"}  # the run's errors
    assert len(suites) == len({fr.path for fr in sample.files} | {f.span.path for f in sample.findings})


def test_junit_of_an_empty_result_is_valid(empty):
    doc = ET.fromstring(render(empty, "junit"))
    assert doc.get("tests") == "0" and doc.get("failures") == "0"


def test_statistics_count_codes_most_frequent_first(sample):
    rows = code_counts(sample)
    assert sum(r.count for r in rows) == len(sample.findings)
    assert [r.count for r in rows] == sorted((r.count for r in rows), reverse=True)
    api = next(r for r in rows if r.code == "API001")
    assert api.count == 3
    text = render_statistics(sample).splitlines()
    assert len(text) == len(rows) and text[0].split()[:2] == [str(rows[0].count), rows[0].code]
    assert json.loads(render_statistics(sample, "json"))[0]["code"] == rows[0].code
    assert render_statistics(type(sample)(root=".", targets=(), verdicts=(), files=(), workloads=(),
                                          findings=(), tool_version="0")) == "no findings\n"


def test_the_text_report_has_one_verdict_line_per_file_not_per_finding(sample):
    from vado.report.terminal import render_terminal

    lines = render_terminal(sample, width=200).splitlines()
    verdict_lines = [line for line in lines if line.lstrip().startswith("→")]
    files_with_findings = {f.span.path for f in sample.findings}
    assert len(verdict_lines) == len(files_with_findings) < len(sample.findings)
