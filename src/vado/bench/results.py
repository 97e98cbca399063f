"""Bench, kernel-compare, serve and tune results as JSON files, and reading them back.

A document is :func:`vado.model.to_json` of the result plus a ``tool`` entry
(name and version). Its ``kind`` says which dataclass it is; ``schema_version``
is checked on reading (another major version is refused). Non-finite floats
(a NaN from an empty series) are written as ``null`` so the file stays strict
JSON.
"""

from __future__ import annotations

import json
import math
from typing import Any, Union

from vado.errors import ReportError
from vado.model.bench import BENCH_SCHEMA_VERSION, BenchResult, KernelComparison, ServeBenchResult, TuneResult
from vado.model.serde import from_json, to_json

AnyResult = Union[BenchResult, KernelComparison, ServeBenchResult, TuneResult]

#: ``kind`` → dataclass.
KINDS: dict[str, type] = {
    "command": BenchResult,
    "kernel": BenchResult,
    "kernel-compare": KernelComparison,
    "serve": ServeBenchResult,
    "tune": TuneResult,
}


def _finite(obj: Any) -> Any:
    if isinstance(obj, float) and not math.isfinite(obj):
        return None
    if isinstance(obj, dict):
        return {k: _finite(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_finite(v) for v in obj]
    return obj


def result_document(result: AnyResult) -> dict[str, Any]:
    """The JSON document of ``result`` as Python values."""
    from vado import __version__

    body = _finite(to_json(result))
    return {"kind": body.pop("kind"), "schema_version": body.pop("schema_version"),
            "tool": {"name": "vado", "version": __version__}, **body}


def dumps(result: AnyResult) -> str:
    """``result`` as indented JSON ending in a newline (field order fixed by the dataclasses)."""
    return json.dumps(result_document(result), indent=2, ensure_ascii=False) + "\n"


def is_bench_document(data: Any) -> bool:
    """Whether parsed JSON is a bench-family document."""
    return isinstance(data, dict) and data.get("kind") in KINDS and "schema_version" in data


def from_document(data: dict[str, Any], name: str = "the file") -> AnyResult:
    """Rebuild a result from its parsed document; ReportError when it is not one this vado reads."""
    if not is_bench_document(data):
        raise ReportError(f"cannot read {name}", "it is not a vado bench, serve or tune result",
                          "pass a file written by `vado bench … -f json` or `vado tune -f json`")
    version = str(data["schema_version"])
    if version.split(".")[0] != BENCH_SCHEMA_VERSION.split(".")[0]:
        raise ReportError(f"cannot read {name}", f"it has schema version {version}; this vado reads "
                          f"{BENCH_SCHEMA_VERSION.split('.')[0]}.x", "read it with the vado version that wrote it")
    body = {k: v for k, v in data.items() if k != "tool"}
    cls = KINDS[data["kind"]]
    try:
        return from_json(cls, body)
    except (TypeError, ValueError, KeyError, AttributeError) as exc:
        raise ReportError(f"cannot read {name}", f"its content does not match the {data['kind']} result "
                          f"({type(exc).__name__}: {exc})", "re-run the benchmark with this vado") from None


def loads(text: str | bytes, name: str = "the file") -> AnyResult:
    """Parse a result written by :func:`dumps`."""
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ReportError(f"cannot read {name}", f"it is not JSON ({exc})", "pass a vado JSON result") from None
    return from_document(data, name)
