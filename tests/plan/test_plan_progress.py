"""``plan_fleet`` reports how many repositories are audited, whichever local executor runs them."""

from __future__ import annotations

import pytest

from vado.plan import plan_fleet
from vado.plan.executors import LocalExecutor


@pytest.mark.parametrize("workers", [1, 2])
def test_progress_counts_repositories(fleet_spec, workers):
    calls: list[tuple[int, int]] = []
    plan = plan_fleet(fleet_spec, executor=LocalExecutor(workers), cache_dir=None,
                      progress=lambda done, total: calls.append((done, total)))
    n = len(fleet_spec.repos)
    assert plan.stats.repos == n == 3
    assert calls == [(k, n) for k in range(1, n + 1)]


def test_an_executor_without_progress_still_plans(fleet_spec):
    class Plain:
        """A duck-typed executor whose map takes no progress (as third-party ones may)."""

        name = "plain"
        workers = 1

        def map(self, fn, items):
            return [fn(x) for x in items]

    plan = plan_fleet(fleet_spec, executor=Plain(), cache_dir=None)
    assert plan.stats.repos == 3 and plan.stats.executor == "plain"
