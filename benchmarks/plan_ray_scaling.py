"""Does ``vado plan --executor ray`` scale with workers? A local Ray cluster on loopback, 1 and 2 CPUs.

Usage::

    python benchmarks/plan_ray_scaling.py [--repos N] [--per-repo K] [--workers 1,2] [--source DIR]

The fleet is N repositories built from ``--source`` (default: the HeCBench
checkout at /work/hecbench/src): repository i is a temporary copy of K
``*-cuda`` benchmarks (the first N*K by name, dealt out in turn), so each task
has enough work to outweigh Ray's per-task overhead. For each worker count W a fresh
local Ray instance is started with ``num_cpus=W`` (``ray.init(address="local")``
binds to 127.0.0.1 only), the fleet is planned with the cache off, and the
wall time of the plan (not of Ray's start) is reported with the speed-up over
W=1. The plans must be identical across W (checked), so the speed-up is not
bought by doing less.

Across nodes the same code spreads by itself: ``--executor ray=auto`` on a
machine of a multi-node cluster (or ``ray=ray://head:10001``) submits one
one-CPU task per repository, Ray places them on any node with a free CPU, and
each task clones (URL repositories) and caches on its own node's disk; only the
small outcome object comes back. Local-path repositories must then exist at the
same path on every node (a shared filesystem), and vado must be installed in
the nodes' Python environment.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
import time
from pathlib import Path


def fleet_dirs(source: Path, n: int, k: int, into: Path) -> list[Path]:
    """``n`` repositories under ``into``, each a copy of ``k`` ``*-cuda`` directories of ``source``."""
    import shutil

    benches = sorted(d for d in source.iterdir() if d.is_dir() and d.name.endswith("-cuda"))[: n * k]
    repos = [into / f"shard{i:02d}" for i in range(n)]
    for i, bench in enumerate(benches):
        shutil.copytree(bench, repos[i % n] / bench.name, symlinks=True)  # HeCBench has dangling links
    return [r for r in repos if r.exists()]


def max_overlap(outcomes) -> int:
    """The most tasks that ran at the same moment (from each task's start time and duration)."""
    events = sorted([(o.started_at, 1) for o in outcomes] + [(o.started_at + o.duration_s, -1) for o in outcomes],
                    key=lambda e: (e[0], e[1]))
    live = best = 0
    for _, step in events:
        live += step
        best = max(best, live)
    return best


def comparable(plan):
    """The plan without timings and executor details."""
    repos = tuple(dataclasses.replace(r, duration_s=0.0) for r in plan.repos)
    return dataclasses.replace(plan, repos=repos, stats=dataclasses.replace(plan.stats, duration_s=0.0, executor="", workers=0))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repos", type=int, default=8)
    parser.add_argument("--per-repo", type=int, default=6)
    parser.add_argument("--workers", default="1,2")
    parser.add_argument("--source", type=Path, default=Path("/work/hecbench/src"))
    parser.add_argument("--json", type=Path, help="also write the measurements here")
    args = parser.parse_args(argv)

    import ray

    from vado.plan import plan_fleet
    from vado.plan.executors import RayExecutor
    from vado.plan.fleet import FleetSpec, specs_from_args

    import tempfile

    tmp = tempfile.TemporaryDirectory(prefix="vado-ray-bench-")
    dirs = fleet_dirs(args.source, args.repos, args.per_repo, Path(tmp.name))
    spec = FleetSpec(specs_from_args([str(d) for d in dirs]))
    print(f"fleet: {len(dirs)} repositories of {args.per_repo} benchmarks from {args.source} "
          f"(cpus on this machine: {os.cpu_count()}, load average {os.getloadavg()[0]:.1f})")
    class Recording(RayExecutor):
        """The Ray executor, keeping the task outcomes to see how they overlapped."""

        def map(self, fn, items):
            self.outcomes = super().map(fn, items)
            return self.outcomes

    rows = []
    reference = None
    for w in [int(x) for x in args.workers.split(",")]:
        ray.init(address="local", num_cpus=w, include_dashboard=False, log_to_driver=False)
        try:
            started = time.perf_counter()
            executor = Recording()
            plan = plan_fleet(spec, targets=["rocm-7.2"], executor=executor, cache_dir=None)
            wall = time.perf_counter() - started
            busy = sum(r.duration_s for r in plan.repos)
            overlap = max_overlap(executor.outcomes)
            processes = len({o.worker for o in executor.outcomes})
        finally:
            ray.shutdown()
        if reference is None:
            reference = comparable(plan)
        elif comparable(plan) != reference:
            print(f"error: the plan with {w} workers differs from the first one", file=sys.stderr)
            return 1
        rows.append({"workers": w, "wall_s": round(wall, 2), "task_s": round(busy, 2), "max_overlap": overlap,
                     "processes": processes, "files": plan.stats.files_scanned, "workloads": plan.stats.workloads,
                     "load_average": round(os.getloadavg()[0], 1)})
    tmp.cleanup()
    base = rows[0]["wall_s"]
    # Speed-up is wall(1)/wall(W). "sum of task s" rising with W means the CPUs were already busy (other
    # load on the machine): tasks then overlap (max in flight = W) but each one runs slower.
    print(f"{'workers':>7}  {'wall s':>7}  {'sum of task s':>13}  {'speed-up':>8}  {'in flight':>9}  "
          f"{'processes':>9}  files  workloads  load")
    for r in rows:
        print(f"{r['workers']:>7}  {r['wall_s']:>7.2f}  {r['task_s']:>13.2f}  {base / r['wall_s']:>7.2f}x  "
              f"{r['max_overlap']:>9}  {r['processes']:>9}  {r['files']:>5}  {r['workloads']:>9}  {r['load_average']:>4}")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
