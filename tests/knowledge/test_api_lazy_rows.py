"""The API table makes its entries on demand: by name or all at once, the same rows and the same objects."""

from __future__ import annotations

import pytest

from vado.errors import KnowledgeError
from vado.knowledge import api


def test_entries_by_name_are_the_rows_of_that_name_in_table_order():
    fresh = api.ApiTable(*api._parse_tables())
    # Read some names first, then every row: a row is one object whichever way it was reached.
    first = fresh.by_name["cudaMalloc"]
    assert first and all(e.cuda_name == "cudaMalloc" for e in first)
    entries = fresh.entries
    assert fresh.by_name["cudaMalloc"] is first
    assert all(any(e is x for x in entries) for e in first)
    by_name: dict[str, list] = {}
    for e in entries:
        by_name.setdefault(e.cuda_name, []).append(e)
    assert fresh.by_name.keys() == by_name.keys()
    assert len(fresh.by_name) == len(by_name)
    for name, rows in by_name.items():
        got = fresh.by_name.get(name)
        assert len(got) == len(rows) and all(a is b for a, b in zip(got, rows)), name
    assert fresh.by_name.get("noSuchCudaName") is None and "noSuchCudaName" not in fresh.by_name
    with pytest.raises(KeyError):
        fresh.by_name["noSuchCudaName"]
    assert all(isinstance(e.support, api.ApiSupport) for e in entries)
    assert {n for b in fresh.buckets.values() for n in b} == set(by_name)


def test_a_field_holding_the_row_separator_is_refused(monkeypatch):
    real = api._read

    def read(name: str) -> str:
        text = real(name)
        if name.endswith(".csv"):
            head, _, rest = text.partition("\n")
            return head + "\n" + rest.replace(",", ",\0", 1)
        return text

    monkeypatch.setattr(api, "_read", read)
    with pytest.raises(KnowledgeError, match="NUL"):
        api._parse_tables()


def test_libraries_are_those_of_the_rows():
    fresh = api.ApiTable(*api._parse_tables())
    assert fresh.libraries == frozenset(e.library for e in fresh.entries)
    assert {"runtime", "cublas"} <= fresh.libraries


def test_plain_releases_read_as_packaging_reads_them():
    # parse_version and version_less read "6.2.0"-style versions without packaging: the
    # same answers as packaging gives, on every version the tables hold and on edge cases.
    import itertools

    from packaging.version import Version

    table = api.ApiTable(*api._parse_tables())
    seen = {v for e in table.entries for v in (e.hip_added, e.roc_added, e.cuda_added, e.hip_removed) if v}
    edge = {"0", "1", "1.0", "1.0.0", "01.2", "6.2", "6.2.0", "6.10", "7.0.0rc1", "7.0.0.post1", "2.5.1+cu121", "v1.2",
            "1.2a", "1..2", "１.2"}
    seen |= edge
    for v in seen:
        plain = api._plain_release(v)
        if plain is not None:
            assert plain == Version(v).release, v
            assert api.parse_version(v) == Version(v).release
    sample = sorted(edge) + sorted(seen - edge)[:60]
    for a, b in itertools.product(sample, sample):
        try:
            expected = Version(a) < Version(b)
        except Exception:  # noqa: BLE001 - not PEP 440: the numeric fallback decides, with or without the fast path
            continue
        assert api.version_less(a, b) == expected, (a, b)
