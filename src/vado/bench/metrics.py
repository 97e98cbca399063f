"""Metrics a program prints: a regular expression or a key of a JSON line.

A spec is ``NAME=REGEX`` (the first group, or the group named ``value``, is the
number), or ``NAME=json:KEY`` (the last line of stdout that parses as a JSON
object and has KEY; dotted keys reach into nested objects). A spec without
``NAME=`` is named after its key or ``metric``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from vado.errors import UsageError


@dataclass(frozen=True)
class MetricSpec:
    """One metric to parse from a run's output."""

    name: str
    pattern: re.Pattern | None = None
    json_key: str | None = None

    def parse(self, text: str) -> float | None:
        """The metric's value in ``text`` (the last match), or None when absent."""
        if self.json_key is not None:
            for line in reversed(text.splitlines()):
                line = line.strip()
                if not (line.startswith("{") and line.endswith("}")):
                    continue
                try:
                    obj = json.loads(line)
                except ValueError:
                    continue
                value = _dig(obj, self.json_key)
                if isinstance(value, (int, float)) and not isinstance(value, bool):
                    return float(value)
            return None
        assert self.pattern is not None
        matches = list(self.pattern.finditer(text))
        if not matches:
            return None
        m = matches[-1]
        raw = m.group("value") if "value" in self.pattern.groupindex else (m.group(1) if m.groups() else m.group(0))
        try:
            return float(raw)
        except (TypeError, ValueError):
            return None


def _dig(obj, key: str):
    for part in key.split("."):
        if not isinstance(obj, dict) or part not in obj:
            return None
        obj = obj[part]
    return obj


def parse_spec(spec: str) -> MetricSpec:
    """Parse ``NAME=REGEX`` / ``NAME=json:KEY`` / ``REGEX`` / ``json:KEY``; UsageError when malformed."""
    name, sep, body = spec.partition("=")
    if not sep or not re.fullmatch(r"[A-Za-z_][\w.-]*", name):
        name, body = "", spec
    if body.startswith("json:"):
        key = body[5:]
        if not key:
            raise UsageError(f"metric {spec!r} names no JSON key", "", "write e.g. --metric tok_s=json:tokens_per_s")
        return MetricSpec(name or key, json_key=key)
    try:
        pattern = re.compile(body)
    except re.error as exc:
        raise UsageError(f"metric {spec!r} is not a valid regular expression", str(exc), r"e.g. --metric 'time=time: ([0-9.]+) ms'") from None
    return MetricSpec(name or "metric", pattern=pattern)
