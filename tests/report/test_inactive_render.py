"""A finding inactive for a target (its branch is not compiled there) in every report format."""

from __future__ import annotations

import dataclasses
import json

from vado.model import Verdict
from vado.report import FORMATS, render
from vado.report.json_report import load_audit_json


def _with_inactive(sample):
    findings = list(sample.findings)
    i = next(k for k, f in enumerate(findings) if f.code == "PTX001")
    f = findings[i]
    findings[i] = dataclasses.replace(f, verdicts={k: v for k, v in f.verdicts.items() if k != "rocm-7.2"},
                                      inactive={"rocm-7.2": f.verdicts["rocm-7.2"]})
    return dataclasses.replace(sample, findings=tuple(findings))


def test_every_format_shows_the_inactive_target(sample):
    result = _with_inactive(sample)
    for fmt in FORMATS:
        text = render(result, fmt, width=200)
        assert "inactive" in text, fmt


def test_json_round_trip_and_schema(sample):
    result = _with_inactive(sample)
    text = render(result, "json")
    doc = json.loads(text)
    ptx = next(f for f in doc["findings"] if f["code"] == "PTX001")
    assert ptx["inactive"] == {"rocm-7.2": "needs-manual-work"} and "rocm-7.2" not in ptx["verdicts"]
    back = load_audit_json(text)
    assert next(f for f in back.findings if f.code == "PTX001").inactive == {"rocm-7.2": Verdict.MANUAL}
    try:
        import jsonschema
    except ImportError:  # pragma: no cover - the test extra installs it
        return
    from vado.report.json_report import audit_schema

    jsonschema.Draft202012Validator(audit_schema()).validate(doc)
