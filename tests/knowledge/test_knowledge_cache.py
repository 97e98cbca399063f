"""The per-user cache of parsed knowledge files: same data as parsing, never stale, never in the way."""

from __future__ import annotations

import datetime
import os
from pathlib import Path

import pytest

from vado.knowledge import _cache, _data, api


@pytest.fixture
def cache_dir(tmp_path: Path, monkeypatch) -> Path:
    where = tmp_path / "cache"
    monkeypatch.setenv("VADO_CACHE_DIR", str(where))
    return where


def test_entry_is_written_then_read_back_without_building(cache_dir: Path, tmp_path: Path):
    src = tmp_path / "table.yaml"
    src.write_text("a: 1\n")
    calls = []

    def build():
        calls.append(1)
        return {"rows": [("x", 1), ("y", 2)], "n": 2}

    first = _cache.cached("t", [src], build)
    second = _cache.cached("t", [src], build)
    assert first == second == {"rows": [("x", 1), ("y", 2)], "n": 2}
    assert len(calls) == 1
    assert len(list(cache_dir.glob("t-*.bin"))) == 1


def test_a_changed_source_is_parsed_again_and_the_old_entry_goes(cache_dir: Path, tmp_path: Path):
    src = tmp_path / "table.yaml"
    src.write_text("a: 1\n")
    assert _cache.cached("t", [src], lambda: 1) == 1
    src.write_text("a: 22\n")
    os.utime(src, ns=(1, 1))
    assert _cache.cached("t", [src], lambda: 2) == 2
    assert len(list(cache_dir.glob("t-*.bin"))) == 1


def test_values_marshal_cannot_write_go_through_pickle(cache_dir: Path, tmp_path: Path):
    src = tmp_path / "t.yaml"
    src.write_text("x")
    value = {"as_of": datetime.date(2026, 7, 24)}
    assert _cache.cached("d", [src], lambda: value) == value
    assert _cache.cached("d", [src], lambda: pytest.fail("built again")) == value


def test_corrupt_entries_and_unwritable_places_fall_back_to_parsing(cache_dir: Path, tmp_path: Path):
    src = tmp_path / "t.yaml"
    src.write_text("x")
    _cache.cached("c", [src], lambda: [1, 2])
    (entry,) = cache_dir.glob("c-*.bin")
    entry.write_bytes(b"Mgarbage")
    assert _cache.cached("c", [src], lambda: [3]) == [3]
    blocker = tmp_path / "file-not-dir"
    blocker.write_text("")
    os.environ["VADO_CACHE_DIR"] = str(blocker / "sub")
    assert _cache.cached("c", [src], lambda: [4]) == [4]


def test_off_and_missing_sources_do_not_cache(monkeypatch, tmp_path: Path):
    monkeypatch.setenv("VADO_CACHE_DIR", "off")
    assert _cache.cache_dir() is None
    assert _cache.cached("o", [tmp_path / "t"], lambda: 5) == 5
    monkeypatch.setenv("VADO_CACHE_DIR", str(tmp_path / "c"))
    assert _cache.cached("o", [tmp_path / "missing.yaml"], lambda: 6) == 6
    assert not (tmp_path / "c").exists()


def test_knowledge_tables_from_the_cache_equal_a_fresh_parse(cache_dir: Path, monkeypatch):
    api.api_table.cache_clear()
    try:
        cold = api.api_table()
        api.api_table.cache_clear()
        warm = api.api_table()
        assert list(cache_dir.glob("api-rows-libraries-*.bin"))
        monkeypatch.setenv("VADO_CACHE_DIR", "off")
        api.api_table.cache_clear()
        fresh = api.api_table()
    finally:
        api.api_table.cache_clear()
    assert warm.entries == cold.entries == fresh.entries
    assert [vars(e) for e in warm.entries] == [vars(e) for e in fresh.entries]
    assert warm.tables == fresh.tables and warm.by_name.keys() == fresh.by_name.keys()
    for name in ("targets", "libraries", "ptx"):
        monkeypatch.setenv("VADO_CACHE_DIR", str(cache_dir))
        assert _data.load(name) == _data.load(name) == _data._parse_file(name)
