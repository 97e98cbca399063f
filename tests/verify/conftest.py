"""Fixtures for verify tests (helpers live in _verify_helpers)."""

from __future__ import annotations

import pytest


@pytest.fixture
def isolated_cache(tmp_path, monkeypatch):
    """Arch probes cached in a tmp dir, never in the user's ~/.cache."""
    monkeypatch.setenv("VADO_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"
