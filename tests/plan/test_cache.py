"""The content-hash cache: same result as a plain audit, whole-tree hits, per-file rescans, invalidation."""

from __future__ import annotations

import dataclasses
import shutil

import pytest

from vado.audit import audit
from vado.knowledge.targets import default_audit_targets, get_target
from vado.plan.cache import AuditCache, cached_audit, default_cache_dir

from plan_helpers import FLEET


def _same(a, b):
    strip = lambda r: dataclasses.replace(r, root="", stats=dataclasses.replace(r.stats, duration_s=0.0))
    return strip(a) == strip(b)


@pytest.fixture
def repo(tmp_path):
    dst = tmp_path / "partial"
    shutil.copytree(FLEET / "partial", dst)
    return dst


def test_cached_audit_equals_audit_and_hits_the_second_time(repo, tmp_path):
    targets = default_audit_targets()
    cache = AuditCache(tmp_path / "cache")
    first = cached_audit(repo, targets, cache)
    assert _same(first.result, audit(repo, targets))
    assert not first.cached and first.files_rescanned == first.result.stats.files_scanned == 4
    second = cached_audit(repo, targets, cache)
    assert second.cached and second.files_rescanned == 0 and second.digest == first.digest
    assert _same(second.result, first.result)


def test_a_changed_file_is_the_only_one_rescanned(repo, tmp_path):
    targets = default_audit_targets()
    cache = AuditCache(tmp_path / "cache")
    first = cached_audit(repo, targets, cache)
    cu = repo / "kernels" / "fast.cu"
    cu.write_text(cu.read_text(encoding="utf-8").replace('asm volatile("mov.u32 %0, %%laneid;" : "=r"(id));',
                                                       "id = threadIdx.x % 32;"), encoding="utf-8")
    again = cached_audit(repo, targets, cache)
    assert not again.cached and again.files_rescanned == 1 and again.digest != first.digest
    assert _same(again.result, audit(repo, targets))
    assert "PTX001" in {f.code for f in first.result.findings}
    assert "PTX001" not in {f.code for f in again.result.findings}


def test_other_targets_do_not_reuse_entries(repo, tmp_path):
    cache = AuditCache(tmp_path / "cache")
    cached_audit(repo, default_audit_targets(), cache)
    only_rocm = cached_audit(repo, [get_target("rocm-7.2")], cache)
    assert not only_rocm.cached and only_rocm.files_rescanned == 4
    assert only_rocm.result.targets == ("rocm-7.2",)


def test_a_corrupt_entry_is_a_miss(repo, tmp_path):
    cache = AuditCache(tmp_path / "cache")
    first = cached_audit(repo, default_audit_targets(), cache)
    for p in (tmp_path / "cache").rglob("*.json"):
        p.write_text("{not json", encoding="utf-8")
    again = cached_audit(repo, default_audit_targets(), cache)
    assert not again.cached and again.files_rescanned == 4
    assert _same(again.result, first.result)


def test_no_cache_stores_nothing(repo, tmp_path):
    off = AuditCache(None)
    assert not off.enabled
    a = cached_audit(repo, default_audit_targets(), off)
    b = cached_audit(repo, default_audit_targets(), off)
    assert not b.cached and b.files_rescanned == 4 and a.digest == b.digest


def test_default_cache_dir(monkeypatch, tmp_path):
    monkeypatch.setenv("VADO_CACHE_DIR", str(tmp_path / "v"))
    assert default_cache_dir() == tmp_path / "v"
    monkeypatch.delenv("VADO_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert default_cache_dir() == tmp_path / "xdg" / "vado"


def test_a_change_to_vados_own_code_is_a_new_key_whatever_the_version(monkeypatch):
    # an editable install or a checkout between releases keeps __version__: the code enters the key by content
    from vado.plan import cache as cache_mod

    rocm = get_target("rocm-7.2")
    assert len(cache_mod.code_fingerprint()) == 64  # a sha256 of vado's own files
    before = cache_mod.environment_key([rocm])
    monkeypatch.setattr(cache_mod, "code_fingerprint", lambda: "another tree")
    assert cache_mod.environment_key([rocm]) != before
