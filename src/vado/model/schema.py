"""The JSON schema of the model, and validation of documents against it.

``schema.json`` (JSON Schema 2020-12) describes what :func:`vado.model.serde.to_json`
emits and :func:`vado.model.serde.from_json` accepts: one ``$defs`` entry per
dataclass and enum, ``additionalProperties: false`` so a field added to a
dataclass without a schema update is caught by the tests, and ``required``
listing exactly the fields without a default (``from_json`` fills the others).
The document's top-level ``schema_version`` equals
:data:`vado.model.serde.SCHEMA_VERSION`; a change that removes or renames a field
bumps the major version.

Validation needs the ``jsonschema`` package (in the ``test`` extra). vado runs
without it: only :func:`validate` needs it, and it raises :class:`SchemaError`
with an install tip when it is missing. Loading the schema never needs it.
"""

from __future__ import annotations

import copy
import functools
import json
from typing import Any

from vado import package_files
from vado.errors import SchemaError
from vado.model.serde import to_json

__all__ = ["SchemaError", "model_schema", "schema_version", "type_names", "validate", "validate_object"]


@functools.cache
def _schema() -> dict[str, Any]:
    text = package_files.files("vado.model").joinpath("schema.json").read_text(encoding="utf-8")
    return json.loads(text)


def model_schema() -> dict[str, Any]:
    """The model schema as a fresh dict (callers may change their copy freely)."""
    return copy.deepcopy(_schema())


def schema_version() -> str:
    """The ``schema_version`` the schema file declares."""
    return _schema()["schema_version"]


def type_names() -> tuple[str, ...]:
    """Names that :func:`validate` accepts: every ``$defs`` entry, sorted."""
    return tuple(sorted(_schema()["$defs"]))


@functools.cache
def _validator(type_name: str) -> Any:
    try:
        import jsonschema
    except ImportError:
        raise SchemaError(
            "cannot validate against the model schema",
            "the jsonschema package is not installed",
            "pip install 'vado[test]' or pip install jsonschema",
        ) from None
    schema = _schema()
    if type_name not in schema["$defs"]:
        raise SchemaError(
            f"unknown model type {type_name!r}",
            "the schema has no such $defs entry",
            "choose one of: " + ", ".join(type_names()),
        )
    # The same document with another root: $refs inside $defs keep resolving locally.
    rooted = dict(schema)
    rooted["$ref"] = f"#/$defs/{type_name}"
    return jsonschema.Draft202012Validator(rooted)


def validate(obj_json: Any, type_name: str) -> None:
    """Check a JSON value (as produced by ``to_json``) against ``$defs/<type_name>``.

    Returns nothing when the value is valid. Raises :class:`SchemaError` naming
    the first offending location (JSON pointer) and the number of problems, or
    when ``type_name`` is unknown, or when ``jsonschema`` is not installed.
    """
    validator = _validator(type_name)
    errors = sorted(validator.iter_errors(obj_json), key=lambda e: (list(map(str, e.absolute_path)), e.message))
    if not errors:
        return
    import jsonschema.exceptions

    best = jsonschema.exceptions.best_match(errors)
    pointer = "/" + "/".join(str(p) for p in best.absolute_path)
    more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
    raise SchemaError(
        f"{type_name} does not match model schema {schema_version()}",
        f"at {pointer}: {best.message}{more}",
        "produce documents with vado.model.to_json, or check the field against src/vado/model/schema.json",
    )


def validate_object(obj: Any) -> None:
    """Validate a model object: its ``to_json`` form against its class's ``$defs`` entry."""
    validate(to_json(obj), type(obj).__name__)
