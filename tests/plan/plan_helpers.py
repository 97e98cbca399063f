"""Constants and helpers the plan tests share (conftest.py holds the fixtures)."""

from __future__ import annotations

from pathlib import Path

FLEET = Path(__file__).resolve().parents[1] / "fixtures" / "fleet"
REPOS = ("portable", "partial", "blocked")


def by_key(plan):
    """Workloads of ``plan`` by ``repo:path`` key."""
    return {w.key: w for w in plan.workloads}
