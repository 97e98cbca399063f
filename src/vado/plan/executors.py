"""Where a fleet's audits run: a local process pool (the default) or tasks on a Ray cluster.

An executor maps :func:`audit_repo` over one :class:`RepoTask` per repository
and returns the outcomes in task order, so a plan is the same whichever executor
produced it. Each task resolves its repository itself (a path, or a clone of a
URL into the task's cache directory), audits it through the content-hash cache,
and reads its Kubernetes manifests: on a multi-node Ray cluster every node then
clones and caches on its own disk, and only the small outcome travels back.

    >>> parse_executor("local", jobs=2).name
    'local'
    >>> parse_executor("ray=ray://head:10001").address
    'ray://head:10001'
"""

from __future__ import annotations

import os
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence, TypeVar

from vado.errors import UsageError, VadoError
from vado.model import Target
from vado.model.plan import RepoSpec

T = TypeVar("T")
R = TypeVar("R")


@dataclass(frozen=True)
class RepoTask:
    """One repository to audit: its spec, the targets, the cache directory (None: no cache) and audit options."""

    spec: RepoSpec
    targets: tuple[Target, ...]
    cache_dir: str | None
    respect_gitignore: bool = True
    include_vendored: bool = False


@dataclass(frozen=True)
class RepoOutcome:
    """What a task sends back: the audit and manifests, or the error that stopped it."""

    spec: RepoSpec
    root: str = ""
    commit: str = ""
    audit: object | None = None  # vado.plan.cache.CachedAudit
    manifests: tuple = ()  # vado.plan.placement.ManifestObject
    dockerfile_images: tuple[tuple[str, str], ...] = ()
    error: dict[str, str] | None = None
    duration_s: float = 0.0
    worker: str = ""
    started_at: float = 0.0  # wall-clock start (time.time()), to see how tasks overlapped


def _dockerfile_images(result) -> tuple[tuple[str, str], ...]:
    """(workload path, base image) for each workload with a Dockerfile on a CUDA base (IMG001)."""
    from vado.audit.aggregate import owning_workload

    dirs = [w.path for w in result.workloads]
    out: dict[str, str] = {}
    for f in result.findings:
        if f.code == "IMG001" and isinstance(f.data.get("image"), str):
            out.setdefault(owning_workload(f.span.path, dirs), f.data["image"])
    return tuple(sorted(out.items()))


def audit_repo(task: RepoTask) -> RepoOutcome:
    """Resolve, audit and read the manifests of one repository; errors become part of the outcome."""
    from vado.plan.cache import AuditCache, cached_audit, default_cache_dir
    from vado.plan.fleet import clone_dir, commit_of, resolve
    from vado.plan.placement import discover_manifests

    started = time.perf_counter()
    started_at = time.time()
    worker = f"{os.uname().nodename}:{os.getpid()}"
    cache_dir = task.cache_dir
    clone_base = cache_dir if cache_dir is not None else str(default_cache_dir())
    try:
        root = resolve(task.spec, clone_base)
        audit = cached_audit(root, task.targets, AuditCache(cache_dir), respect_gitignore=task.respect_gitignore,
                             include_vendored=task.include_vendored)
        manifests = discover_manifests(root, task.spec)
    except VadoError as exc:
        return RepoOutcome(task.spec, error=exc.to_json(), duration_s=round(time.perf_counter() - started, 3),
                           worker=worker, started_at=started_at)
    except Exception as exc:  # a bug must not take the whole fleet down; it is reported with the repository
        return RepoOutcome(task.spec, error={"type": type(exc).__name__, "what": f"auditing {task.spec.name} failed",
                                             "why": str(exc), "tip": "report this as a vado bug"},
                           duration_s=round(time.perf_counter() - started, 3), worker=worker,
                           started_at=started_at)
    base = Path(task.spec.path) if task.spec.path else clone_dir(clone_base, task.spec)
    return RepoOutcome(task.spec, root=str(root), commit=commit_of(base), audit=audit, manifests=manifests,
                       dockerfile_images=_dockerfile_images(audit.result),
                       duration_s=round(time.perf_counter() - started, 3), worker=worker, started_at=started_at)


class LocalExecutor:
    """A process pool of ``workers`` processes on this machine (in-process when 1)."""

    name = "local"

    def __init__(self, workers: int = 1) -> None:
        self.workers = max(1, workers)

    def map(self, fn: Callable[[T], R], items: Sequence[T],
            progress: Callable[[int, int], None] | None = None) -> list[R]:
        """``[fn(x) for x in items]``, in parallel when there is more than one worker and item.

        ``progress(done, total)`` is called as results arrive (in order).
        """
        out: list[R] = []
        if self.workers == 1 or len(items) <= 1:
            for x in items:
                out.append(fn(x))
                if progress is not None:
                    progress(len(out), len(items))
            return out
        from vado.procs import cap_jobs, pool_kwargs

        with ProcessPoolExecutor(max_workers=cap_jobs(self.workers, len(items)), **pool_kwargs()) as pool:
            for r in pool.map(fn, items):
                out.append(r)
                if progress is not None:
                    progress(len(out), len(items))
        return out


class RayExecutor:
    """Ray tasks (one CPU each) on a cluster at ``address``.

    ``address`` is what :func:`ray.init` takes: ``auto`` (the cluster this machine
    belongs to), ``ray://host:10001`` (Ray Client), or ``local`` (start a
    throw-away instance here with ``workers`` CPUs). When Ray is already
    initialised in this process (a notebook, a test) that session is used and
    left running; a session this executor started is shut down after the map.
    """

    name = "ray"

    def __init__(self, address: str = "auto", workers: int | None = None) -> None:
        self.address = address
        self.workers = workers

    def _ray(self):
        try:
            import ray
        except ImportError:
            raise UsageError("--executor ray needs Ray", "the ray package is not installed",
                             "pip install ray, or use --executor local") from None
        return ray

    def map(self, fn: Callable[[T], R], items: Sequence[T],
            progress: Callable[[int, int], None] | None = None) -> list[R]:
        """Run ``fn`` over ``items`` as Ray tasks and gather the results in order.

        ``progress(done, total)`` is called as tasks finish (in any order).
        """
        ray = self._ray()
        started_here = False
        if not ray.is_initialized():
            kwargs = {"include_dashboard": False, "log_to_driver": False}
            if self.address == "local" and self.workers:
                kwargs["num_cpus"] = self.workers
            try:
                ray.init(address=self.address, **kwargs)
            except (ConnectionError, RuntimeError, ValueError) as exc:
                raise UsageError(f"cannot connect to the Ray cluster at {self.address}", str(exc).splitlines()[0],
                                 "start one with `ray start --head`, pass --executor ray=ADDRESS, "
                                 "or --executor ray=local") from None
            started_here = True
        try:
            remote = ray.remote(num_cpus=1, max_retries=1)(fn)
            refs = [remote.remote(x) for x in items]
            if progress is not None:
                pending = list(refs)
                while pending:
                    _, pending = ray.wait(pending, num_returns=1)
                    progress(len(refs) - len(pending), len(refs))
            return list(ray.get(refs))
        finally:
            if started_here:
                ray.shutdown()

    def cluster_cpus(self) -> int:
        """CPUs of the connected cluster (0 when not connected)."""
        ray = self._ray()
        return int(ray.cluster_resources().get("CPU", 0)) if ray.is_initialized() else 0


def parse_executor(text: str | None, jobs: int = 1):
    """An executor from ``--executor``: ``local`` (default), ``ray`` (= ``ray=auto``) or ``ray=ADDRESS``."""
    value = (text or "local").strip()
    if value == "local":
        return LocalExecutor(jobs)
    if value == "ray":
        return RayExecutor("auto", jobs)
    if value.startswith("ray="):
        address = value[4:].strip()
        if not address:
            raise UsageError("--executor ray= needs an address", "got nothing after '='",
                             "e.g. --executor ray=auto, ray=ray://head:10001 or ray=local")
        return RayExecutor(address, jobs)
    raise UsageError(f"unknown executor {value!r}", "choose local, ray or ray=ADDRESS")
