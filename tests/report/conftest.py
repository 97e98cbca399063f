"""Fixtures of the report tests: the hand-built sample result and an empty one."""

from __future__ import annotations

import pytest

from vado.model.audit import AuditResult

from report_sample import build_empty, build_sample


@pytest.fixture
def sample() -> AuditResult:
    """The realistic sample result."""
    return build_sample()


@pytest.fixture
def empty() -> AuditResult:
    """The empty result."""
    return build_empty()
