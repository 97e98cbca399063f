"""The Ray executor on a local Ray instance gives the same plan as the local process pool."""

from __future__ import annotations

import dataclasses

import pytest

from vado.errors import UsageError
from vado.plan import plan_fleet
from vado.plan.executors import LocalExecutor, RayExecutor, parse_executor


def _comparable(plan):
    """The plan without what depends on how it ran (timings, executor, workers, the cache)."""
    repos = tuple(dataclasses.replace(r, duration_s=0.0) for r in plan.repos)
    return dataclasses.replace(plan, repos=repos, stats=dataclasses.replace(
        plan.stats, duration_s=0.0, executor="", workers=0))


def test_parse_executor():
    assert isinstance(parse_executor(None), LocalExecutor)
    assert parse_executor("local", 3).workers == 3
    assert parse_executor("ray").address == "auto"
    assert parse_executor("ray=local", 2).address == "local"
    for bad in ("ray=", "dask"):
        with pytest.raises(UsageError):
            parse_executor(bad)


def test_local_pool_equals_serial(fleet_spec, fleet_plan):
    pooled = plan_fleet(fleet_spec, executor=LocalExecutor(2), cache_dir=None)
    assert pooled.stats.executor == "local" and pooled.stats.workers == 2
    assert _comparable(pooled) == _comparable(fleet_plan)


def test_ray_executor_gives_the_same_plan(fleet_spec, tmp_path):
    ray = pytest.importorskip("ray")
    local = plan_fleet(fleet_spec, executor=LocalExecutor(2), cache_dir=str(tmp_path / "local-cache"))
    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False)
    try:
        on_ray = plan_fleet(fleet_spec, executor=RayExecutor(), cache_dir=str(tmp_path / "ray-cache"))
        assert ray.is_initialized()  # a session the caller started is left running
    finally:
        ray.shutdown()
    assert on_ray.stats.executor == "ray" and on_ray.stats.repos_failed == 0
    assert _comparable(on_ray) == _comparable(local)
