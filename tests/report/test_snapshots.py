"""Snapshots of every format for the sample and the empty result.

Expected files live in ``tests/fixtures/report/<name>.<suffix>``; regenerate them
with ``VADO_UPDATE_SNAPSHOTS=1 python -m pytest tests/report`` and review the diff.
"""

from __future__ import annotations

import dataclasses
import os
import random
from pathlib import Path

import pytest

from vado.report import FORMATS, SUFFIXES, render

from report_sample import build_empty, build_sample

SNAPSHOTS = Path(__file__).resolve().parents[1] / "fixtures" / "report"
UPDATE = os.environ.get("VADO_UPDATE_SNAPSHOTS") == "1"

CASES = {"sample": build_sample, "empty": build_empty}


def check_snapshot(name: str, text: str) -> None:
    """Compare ``text`` with the committed snapshot ``name`` (or write it when updating)."""
    path = SNAPSHOTS / name
    if UPDATE:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8", newline="\n")
        return
    assert path.is_file(), f"missing snapshot {path}; run with VADO_UPDATE_SNAPSHOTS=1"
    expected = path.read_text(encoding="utf-8")
    assert text == expected, f"{name} differs from its snapshot; run with VADO_UPDATE_SNAPSHOTS=1 and review"


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("case", sorted(CASES))
def test_snapshot(case: str, fmt: str) -> None:
    text = render(CASES[case](), fmt)
    assert text.endswith("\n") and text.strip()
    check_snapshot(f"{case}{SUFFIXES[fmt]}", text)


def test_narrow_terminal_snapshot() -> None:
    check_snapshot("sample.w72.txt", render(build_sample(), "text", width=72))


@pytest.mark.parametrize("fmt", FORMATS)
def test_same_result_same_bytes(fmt: str) -> None:
    assert render(build_sample(), fmt) == render(build_sample(), fmt)


@pytest.mark.parametrize("fmt", [f for f in FORMATS if f != "json"])
def test_input_order_does_not_matter(fmt: str) -> None:
    """Human and SARIF formats sort what they show; JSON keeps the result's own order on purpose."""
    result = build_sample()
    rng = random.Random(7)
    shuffled = {}
    for field in ("files", "findings", "skips", "rules", "workloads"):
        items = list(getattr(result, field))
        rng.shuffle(items)
        shuffled[field] = tuple(items)
    assert render(dataclasses.replace(result, **shuffled), fmt) == render(result, fmt)
