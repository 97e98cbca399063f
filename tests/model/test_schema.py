"""schema.json against the dataclasses, and documents against schema.json."""

from __future__ import annotations

import copy
import dataclasses
import json
import sys
from enum import Enum
from pathlib import Path

import pytest

import vado.model.schema as schema_mod
from vado.errors import SchemaError
from vado.model import SCHEMA_VERSION, Applicability, Severity, SkipReason, Verdict, to_json
from vado.model.schema import model_schema, schema_version, type_names, validate, validate_object

from model_samples import ALL, AUDIT, FINDING, SPAN

pytest.importorskip("jsonschema")

ENUMS = {e.__name__: e for e in (Applicability, Severity, Verdict, SkipReason)}
SCHEMA_FILE = Path(schema_mod.__file__).with_name("schema.json")


def test_schema_is_2020_12_and_versioned():
    s = model_schema()
    assert s["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert s["schema_version"] == SCHEMA_VERSION == schema_version()
    assert AUDIT.schema_version == SCHEMA_VERSION
    assert s["$defs"]["AuditResult"]["properties"]["schema_version"]["const"] == SCHEMA_VERSION
    import jsonschema

    jsonschema.Draft202012Validator.check_schema(s)


def test_model_schema_returns_a_copy():
    s = model_schema()
    s["$defs"].clear()
    assert "Span" in model_schema()["$defs"]


def test_every_model_type_has_a_def():
    assert set(ALL) | set(ENUMS) <= set(type_names())


@pytest.mark.parametrize("name", sorted(ALL))
def test_def_matches_dataclass_fields(name):
    """Catches a field added to (or removed from) a dataclass without a schema update."""
    cls = type(ALL[name])
    d = model_schema()["$defs"][name]
    assert d["additionalProperties"] is False
    assert list(d["properties"]) == [f.name for f in dataclasses.fields(cls)]
    without_default = [
        f.name for f in dataclasses.fields(cls)
        if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
    ]
    assert d.get("required", []) == without_default


@pytest.mark.parametrize("name", sorted(ENUMS))
def test_enum_defs_match_members(name):
    enum: type[Enum] = ENUMS[name]
    assert model_schema()["$defs"][name]["enum"] == [m.value for m in enum]


@pytest.mark.parametrize("name", sorted(ALL))
def test_samples_validate(name):
    validate_object(ALL[name])
    validate(json.loads(json.dumps(to_json(ALL[name]))), name)


def test_whole_document_validates_at_the_root():
    import jsonschema

    jsonschema.validate(to_json(AUDIT), model_schema())


@pytest.mark.parametrize(
    "mutate,where",
    [
        (lambda d: d.update(severity="urgent"), "/severity"),
        (lambda d: d["span"].update(start=-1), "/span/start"),
        (lambda d: d.update(extra=1), "/"),
        (lambda d: d.pop("message"), "/"),
        (lambda d: d["fix"].update(applicability="maybe"), "/fix/applicability"),
        (lambda d: d["verdicts"].update(cuda="works"), "/verdicts/cuda"),
        (lambda d: d.update(code="api-1"), "/code"),
    ],
)
def test_bad_documents_are_refused_with_a_location(mutate, where):
    doc = copy.deepcopy(to_json(FINDING))
    mutate(doc)
    with pytest.raises(SchemaError) as err:
        validate(doc, "Finding")
    assert err.value.what == f"Finding does not match model schema {SCHEMA_VERSION}"
    assert err.value.why.startswith(f"at {where}:")


def test_error_counts_further_problems():
    doc = to_json(SPAN)
    doc.update(start="0", end=-2)
    with pytest.raises(SchemaError, match=r"and 1 more"):
        validate(doc, "Span")


def test_fix_may_be_null_and_hip_version_may_be_null():
    doc = to_json(dataclasses.replace(FINDING, fix=None))
    assert doc["fix"] is None
    validate(doc, "Finding")


def test_deciding_pairs_are_checked():
    doc = to_json(ALL["TargetVerdict"])
    doc["deciding"] = [["API001"]]
    with pytest.raises(SchemaError):
        validate(doc, "TargetVerdict")


def test_unknown_type_name():
    with pytest.raises(SchemaError) as err:
        validate({}, "Nope")
    assert err.value.what == "unknown model type 'Nope'"
    assert "Span" in err.value.tip


def test_missing_jsonschema_is_a_clear_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "jsonschema", None)  # import now raises ImportError
    schema_mod._validator.cache_clear()
    try:
        with pytest.raises(SchemaError) as err:
            validate(to_json(SPAN), "Span")
        assert err.value.why == "the jsonschema package is not installed"
        assert "pip install" in err.value.tip
        # Loading the schema needs no jsonschema.
        assert "Span" in model_schema()["$defs"]
    finally:
        schema_mod._validator.cache_clear()


def test_schema_file_is_shipped_as_package_data():
    import tomllib

    pyproject = tomllib.loads((Path(__file__).resolve().parents[2] / "pyproject.toml").read_text())
    assert "model/*.json" in pyproject["tool"]["setuptools"]["package-data"]["vado"]
    assert SCHEMA_FILE.is_file()
