"""The JSON report: schema validity, round trip, versioning and the schema's fit to the model."""

from __future__ import annotations

import dataclasses
import json
import typing

import jsonschema
import pytest

from vado.errors import ReportError
from vado.model import SCHEMA_VERSION, Applicability, Severity, SkipReason, Verdict
from vado.model import audit as audit_model
from vado.model.edit import Edit, Fix
from vado.model.finding import Effort, Finding
from vado.model.skip import Skip
from vado.model.span import Span
from vado.model.verdict import TargetVerdict
from vado.report.json_report import audit_document, audit_schema, load_audit_json, render_json


@pytest.fixture(scope="module")
def validator():
    schema = audit_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def test_sample_validates(sample, validator):
    doc = json.loads(render_json(sample))
    validator.validate(doc)
    assert doc["schema_version"] == SCHEMA_VERSION == "1.1"
    assert doc["tool"] == {"name": "vado", "version": "0.1.0"}
    assert "tool_version" not in doc
    assert len(doc["findings"]) == len(sample.findings) == 10


def test_empty_validates(empty, validator):
    validator.validate(json.loads(render_json(empty)))


def test_envelope_then_result_fields_in_order(sample):
    keys = list(audit_document(sample))
    fields = [f.name for f in dataclasses.fields(audit_model.AuditResult) if f.name not in ("schema_version", "tool_version")]
    # amd_support is written only where a build file builds for AMD (the sample has none)
    assert not sample.amd_support
    assert keys == ["schema_version", "tool", *[f for f in fields if f != "amd_support"]]
    keys = list(audit_document(dataclasses.replace(sample, amd_support=("setup.py: torch.version.hip",))))
    assert keys == ["schema_version", "tool", *fields]


def test_round_trip(sample):
    loaded = load_audit_json(render_json(sample))
    assert loaded == sample
    assert render_json(loaded) == render_json(sample)
    # Enums and tuples come back as model types, not strings and lists.
    f = next(f for f in loaded.findings if f.fix is not None)
    assert isinstance(f.severity, Severity) and isinstance(f.fix.applicability, Applicability)
    assert isinstance(loaded.skips[0].reason, SkipReason) and isinstance(loaded.verdicts[0].verdict, Verdict)
    assert isinstance(loaded.verdicts[0].deciding, tuple) and isinstance(loaded.verdicts[0].deciding[0], tuple)


def test_round_trip_reads_bytes(sample):
    assert load_audit_json(render_json(sample).encode("utf-8")) == sample


def test_round_trip_of_empty_fills_the_tool_version(empty):
    from vado import __version__

    unversioned = dataclasses.replace(empty, tool_version="")
    assert json.loads(render_json(unversioned))["tool"]["version"] == __version__
    assert load_audit_json(render_json(unversioned)) == dataclasses.replace(empty, tool_version=__version__)


def test_non_ascii_is_kept_as_utf8(sample):
    text = render_json(sample)
    assert "cublasSgemm → hipblasSgemm" in text


def test_newer_minor_version_with_unknown_fields_loads(sample):
    doc = json.loads(render_json(sample))
    doc["schema_version"] = "1.7"
    doc["added_in_1_7"] = {"anything": True}
    doc["findings"][0]["new_field"] = 1
    loaded = load_audit_json(json.dumps(doc))
    assert loaded.schema_version == "1.7"
    assert loaded.findings == sample.findings


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("{not json", "it is not JSON"),
        ("[1, 2]", "not a vado audit report"),
        ('{"schema_version": "1.0"}', "not a vado audit report"),
        ('{"schema_version": "2.0", "findings": []}', "schema version 2.0"),
        ('{"schema_version": "1.0", "findings": []}', "does not match schema 1.0"),
    ],
)
def test_load_errors_say_why(text, why):
    with pytest.raises(ReportError) as info:
        load_audit_json(text)
    assert why in info.value.why
    assert info.value.tip


def test_bad_span_is_a_report_error(sample):
    doc = json.loads(render_json(sample))
    doc["findings"][0]["span"]["end"] = -5
    with pytest.raises(ReportError, match="does not match"):
        load_audit_json(json.dumps(doc))


def test_schema_rejects_what_the_model_cannot_hold(sample, validator):
    doc = json.loads(render_json(sample))
    bad = json.loads(json.dumps(doc))
    bad["findings"][0]["verdicts"]["rocm-7.2"] = "probably-fine"
    assert not validator.is_valid(bad)
    bad = json.loads(json.dumps(doc))
    bad["findings"][0]["unknown"] = 1
    assert not validator.is_valid(bad)
    bad = json.loads(json.dumps(doc))
    bad["verdicts"][0]["deciding"][0] = ["PTX001", 1, 2]
    assert not validator.is_valid(bad)
    bad = json.loads(json.dumps(doc))
    bad["schema_version"] = "2.0"
    assert not validator.is_valid(bad)


# The schema is written by hand; these tests keep it in step with the dataclasses.

_DEFS = {
    "span": Span,
    "edit": Edit,
    "fix": Fix,
    "effort": Effort,
    "finding": Finding,
    "targetVerdict": TargetVerdict,
    "fileReport": audit_model.FileReport,
    "workloadReport": audit_model.WorkloadReport,
    "skip": Skip,
    "ruleInfo": audit_model.RuleInfo,
    "stats": audit_model.AuditStats,
}


@pytest.mark.parametrize("name", sorted(_DEFS))
def test_schema_defs_list_every_field(name):
    schema = audit_schema()["$defs"][name]
    fields = [f.name for f in dataclasses.fields(_DEFS[name])]
    assert list(schema["properties"]) == fields
    assert schema["additionalProperties"] is False
    # Every field is written by to_json, so every field is required.
    assert schema["required"] == fields


def test_schema_top_level_lists_every_field():
    schema = audit_schema()
    fields = [f.name for f in dataclasses.fields(audit_model.AuditResult) if f.name != "tool_version"]
    assert sorted(schema["properties"]) == sorted(["tool", *fields])


@pytest.mark.parametrize(
    ("name", "enum"),
    [("severity", Severity), ("verdict", Verdict), ("applicability", Applicability), ("skipReason", SkipReason)],
)
def test_schema_enums_match_the_model(name, enum):
    assert audit_schema()["$defs"][name]["enum"] == [e.value for e in enum]


def test_schema_version_pattern_accepts_the_current_version():
    import re

    pattern = audit_schema()["properties"]["schema_version"]["pattern"]
    assert re.fullmatch(pattern, SCHEMA_VERSION)


def test_error_def_matches_vado_error():
    from vado.errors import ToolchainError

    doc = ToolchainError("hipcc failed", "exit 1", "see stderr").to_json()
    schema = audit_schema()
    error_schema = {"$schema": schema["$schema"], "$defs": schema["$defs"], "$ref": "#/$defs/error"}
    jsonschema.Draft202012Validator(error_schema).validate(doc)
    assert not jsonschema.Draft202012Validator(error_schema).is_valid({"why": "no type or what"})
    assert typing.get_type_hints(audit_model.AuditResult)["errors"] == tuple[dict, ...]
