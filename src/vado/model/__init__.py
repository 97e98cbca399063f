"""The contract between vado's stages: frozen dataclasses with a versioned JSON form.

Every stage (scan, rules, port, verify, agent, bench, plan, report) speaks these
types. ``to_json``/``from_json`` in :mod:`vado.model.serde` give each one a stable
JSON shape, described by the JSON schema in ``schema.json`` (``SCHEMA_VERSION``).
"""

from vado.model.span import Span
from vado.model.edit import Applicability, Edit, Fix
from vado.model.finding import Effort, Finding, Severity
from vado.model.verdict import Verdict, TargetVerdict
from vado.model.target import Target
from vado.model.evidence import Evidence
from vado.model.skip import Skip, SkipReason
from vado.model.serde import SCHEMA_VERSION, from_json, to_json

__all__ = [
    "Applicability",
    "Edit",
    "Effort",
    "Evidence",
    "Finding",
    "Fix",
    "SCHEMA_VERSION",
    "Severity",
    "Skip",
    "SkipReason",
    "Span",
    "Target",
    "TargetVerdict",
    "Verdict",
    "from_json",
    "to_json",
]
