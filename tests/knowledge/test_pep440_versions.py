"""Versions are read as PEP 440 says (packaging), not digit by digit."""

from __future__ import annotations

import pytest

from vado.knowledge.api import parse_version, version_less


@pytest.mark.parametrize(
    ("text", "release"),
    [
        ("2.5.1+cu121", (2, 5, 1)),  # the local label is no release number (it read (2, 5, 1121))
        ("2.5.1+rocm6.2", (2, 5, 1)),
        ("7.0.0rc1", (7, 0, 0)),
        ("6.4", (6, 4)),
        ("1.5.0", (1, 5, 0)),
        ("10.2a", (10, 2)),  # not PEP 440 after "10.": leading numbers only
        ("12.x", (12,)),
        ("", None),
        (None, None),
        ("beta", None),
    ],
)
def test_parse_version(text, release):
    assert parse_version(text) == release


@pytest.mark.parametrize(
    ("a", "b", "less"),
    [
        ("5.2", "5.2.0", False),
        ("5.2.0", "5.2", False),
        ("5.2", "5.2.1", True),
        ("7.0.0rc1", "7.0.0", True),
        ("2.5.1+cu121", "2.5.2", True),
        ("2.5.1+cu121", "2.5.1", False),
        ("6.10", "6.9", False),
        ("10.2a", "10.3", True),
    ],
)
def test_version_less(a, b, less):
    assert version_less(a, b) is less
