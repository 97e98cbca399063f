"""Shared test fixtures: fixed terminal settings and toolchain discovery."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

FIXTURES = Path(__file__).parent / "fixtures"
ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(autouse=True)
def _fixed_terminal(monkeypatch):
    """CLI output is compared exactly: no colour, a fixed width."""
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setenv("COLUMNS", "100")
    monkeypatch.delenv("FORCE_COLOR", raising=False)


def hipcc_path() -> str | None:
    """Path of a usable hipcc, or None."""
    return os.environ.get("VADO_HIPCC") or shutil.which("hipcc")


requires_hipcc = pytest.mark.skipif(hipcc_path() is None, reason="hipcc not installed (apt-get install hipcc)")
