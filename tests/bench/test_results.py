"""Results as JSON: round trips, strict JSON, and the model schema's bench definitions."""

import dataclasses
import json
import math

import pytest

import vado.model.bench as B
from vado.bench.results import dumps, loads, result_document
from vado.errors import ReportError
from vado.model import to_json
from vado.model.schema import model_schema, validate

from bench_samples import ALL, command_result

pytest.importorskip("jsonschema")

TYPES = [B.DeviceInfo, B.Environment, B.Stats, B.Roofline, B.BenchResult, B.KernelComparison, B.LevelResult,
         B.ServeBenchResult, B.Param, B.Trial, B.TuneResult]
ROOT_TYPE = {"command": "BenchResult", "kernel": "BenchResult", "kernel-compare": "KernelComparison",
             "serve": "ServeBenchResult", "tune": "TuneResult"}


@pytest.mark.parametrize("kind", sorted(ALL))
def test_round_trip(kind):
    r = ALL[kind]
    text = dumps(r)
    doc = json.loads(text)
    assert doc["kind"] == kind and doc["tool"]["name"] == "vado" and doc["schema_version"] == "1.0"
    assert loads(text) == r


@pytest.mark.parametrize("kind", sorted(ALL))
def test_documents_validate_against_the_model_schema(kind):
    validate(to_json(ALL[kind]), ROOT_TYPE[kind])


@pytest.mark.parametrize("cls", TYPES, ids=lambda c: c.__name__)
def test_schema_defs_match_the_dataclasses(cls):
    d = model_schema()["$defs"][cls.__name__]
    assert d["additionalProperties"] is False
    assert list(d["properties"]) == [f.name for f in dataclasses.fields(cls)]
    required = [f.name for f in dataclasses.fields(cls)
                if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING]
    assert d.get("required", []) == required


def test_non_finite_numbers_become_null():
    r = dataclasses.replace(command_result(), detail={"x": math.nan, "y": [math.inf, 1.0]})
    doc = result_document(r)
    assert doc["detail"] == {"x": None, "y": [None, 1.0]}
    json.loads(dumps(r), parse_constant=lambda c: pytest.fail(f"non-strict JSON constant {c}"))


def test_bad_documents_are_report_errors():
    with pytest.raises(ReportError, match="not JSON"):
        loads("{")
    with pytest.raises(ReportError, match="not a vado bench"):
        loads('{"kind": "other", "schema_version": "1.0"}')
    doc = json.loads(dumps(command_result()))
    doc["schema_version"] = "2.0"
    with pytest.raises(ReportError, match="schema version 2.0"):
        loads(json.dumps(doc))
