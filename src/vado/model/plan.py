"""A fleet migration plan: many audits, one order to migrate in, and where each workload may run.

``vado plan`` audits many repositories and turns the results into a
:class:`FleetPlan`. Like :class:`~vado.model.audit.AuditResult` it is a tree of
frozen dataclasses with a plain JSON form (:func:`vado.model.to_json`), so every
output format is a pure function of it.

Vocabulary:

- a *pool* is a set of nodes with one GPU vendor (``nvidia``, ``amd``, ``intel``);
- a *route* is the target a workload takes into a pool (``rocm-7.2``, ``scale`` or
  ``zluda`` into ``amd``; ``oneapi`` into ``intel``);
- *readiness* says when a workload can run on a pool: ``now`` (moves as is),
  ``after-port`` (after vado's automatic edits), ``after-manual-work``, or ``no``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from vado.model.finding import Effort
from vado.model.serde import SCHEMA_VERSION
from vado.model.verdict import TargetVerdict, Verdict


class Readiness(str, Enum):
    """When a workload can run on a pool, best first."""

    NOW = "now"
    AFTER_PORT = "after-port"
    AFTER_MANUAL_WORK = "after-manual-work"
    NO = "no"

    @classmethod
    def of(cls, verdict: Verdict) -> "Readiness":
        """The readiness a route's verdict implies."""
        return _READINESS[verdict]

    @property
    def schedulable(self) -> bool:
        """True when placement may send the workload there (now, or once ``vado port`` ran)."""
        return self in (Readiness.NOW, Readiness.AFTER_PORT)


_READINESS = {
    Verdict.MOVES_AS_IS: Readiness.NOW,
    Verdict.AUTOMATIC: Readiness.AFTER_PORT,
    Verdict.MANUAL: Readiness.AFTER_MANUAL_WORK,
    Verdict.BLOCKED: Readiness.NO,
}


@dataclass(frozen=True)
class RepoSpec:
    """One repository of the fleet, as the user named it.

    Exactly one of ``path`` (a local directory) and ``url`` (a git URL, cloned into
    the cache) is set. ``subdir`` narrows the audit to a part of the tree; ``ref``
    is the branch or tag to clone. ``images`` maps a pool to the container image to
    run there (overrides vado's suggestion); ``manifests`` lists Kubernetes files
    (relative to the repository) as ``(path, workload)`` pairs, the workload empty
    when vado should match it.
    """

    name: str
    path: str = ""
    url: str = ""
    ref: str = ""
    subdir: str = ""
    images: dict[str, str] = field(default_factory=dict)
    manifests: tuple[tuple[str, str], ...] = ()

    @property
    def source(self) -> str:
        """What the user named: the path or the URL (with ``@ref`` when given)."""
        if self.url:
            return self.url + (f"@{self.ref}" if self.ref else "")
        return self.path


@dataclass(frozen=True)
class PoolFit:
    """How one workload fits one pool: the best route into it and when it is ready."""

    pool: str
    route: str
    verdict: Verdict
    readiness: Readiness
    reason: str = ""


@dataclass(frozen=True)
class Blocker:
    """A finding code that blocks a workload on some targets, with its count and what it is."""

    code: str
    count: int
    targets: tuple[str, ...]
    summary: str = ""


@dataclass(frozen=True)
class K8sPatch:
    """A Kubernetes change that puts a workload on one pool.

    ``manifest`` is the file in the repository the patch applies to (empty for a
    generic pod-template patch when the repository ships no manifest); ``kind`` and
    ``name`` identify the object. ``patch`` is a strategic-merge patch;
    ``patched`` is the object with the patch applied (``{}`` for the generic
    patch, which has no object to apply to). ``notes`` says what a person must
    check (an image vado could not choose, a label it dropped).
    """

    pool: str
    manifest: str
    kind: str
    name: str
    patch: dict[str, Any] = field(default_factory=dict)
    patched: dict[str, Any] = field(default_factory=dict)
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class RayPlacement:
    """Ray scheduling options for a workload's tasks.

    ``any_pool`` are ``ray.remote``/``.options`` keyword arguments that let Ray put
    the task on any pool the workload may run on (a label selector over the
    accelerator types Ray sets as the ``ray.io/accelerator-type`` node label);
    ``per_pool`` pins it to one pool, with that pool's image in ``runtime_env``
    when one is known.
    """

    any_pool: dict[str, Any] = field(default_factory=dict)
    per_pool: dict[str, dict[str, Any]] = field(default_factory=dict)
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class Placement:
    """Where a workload may run: the pools, and the scheduler configuration for each."""

    pools: tuple[str, ...] = ()
    kubernetes: tuple[K8sPatch, ...] = ()
    ray: RayPlacement = field(default_factory=RayPlacement)


@dataclass(frozen=True)
class WorkloadPlan:
    """One workload of one repository: its verdicts, blockers, effort, pools and place in the order.

    ``effort`` is the audit's effort over all targets; ``effort_by_target`` counts
    only the findings that change something for each target (the order uses the
    primary target's). ``order`` is its 1-based position in the migration order;
    ``wave`` names the group it migrates in (``moves as is``, ``automatic edits``,
    ``manual work``, ``stays on NVIDIA``) for the fleet's primary target.
    """

    repo: str
    name: str
    path: str
    files: int
    verdicts: tuple[TargetVerdict, ...]
    effort: Effort
    effort_by_target: dict[str, Effort] = field(default_factory=dict)
    blockers: tuple[Blocker, ...] = ()
    fits: tuple[PoolFit, ...] = ()
    placement: Placement = field(default_factory=Placement)
    order: int = 0
    wave: str = ""

    @property
    def key(self) -> str:
        """``repo:path`` (just ``repo`` for the root workload), unique within a plan."""
        return self.repo if self.path == "." else f"{self.repo}:{self.path}"

    def verdict_for(self, target: str) -> Verdict | None:
        """The verdict for ``target``, or None when it was not audited."""
        return next((tv.verdict for tv in self.verdicts if tv.target == target), None)


@dataclass(frozen=True)
class RepoPlan:
    """One repository's part of the plan.

    ``commit`` is the git commit audited (empty outside git); ``digest`` is the
    content hash the cache keys it by; ``cached`` says whether its audit came
    from the cache whole, and ``files_rescanned`` how many of its files had to
    be checked again. ``error`` is a serialised
    :class:`~vado.errors.VadoError` when the repository could not be resolved or
    audited (its workloads are then absent).
    """

    name: str
    source: str
    root: str = ""
    commit: str = ""
    digest: str = ""
    verdicts: tuple[TargetVerdict, ...] = ()
    workloads: int = 0
    files_scanned: int = 0
    findings: int = 0
    effort: Effort = field(default_factory=Effort)
    cached: bool = False
    files_rescanned: int = 0
    duration_s: float = 0.0
    error: dict[str, str] | None = None
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class PlanStats:
    """Counters of a plan run."""

    repos: int = 0
    repos_failed: int = 0
    repos_cached: int = 0
    files_scanned: int = 0
    files_rescanned: int = 0
    workloads: int = 0
    executor: str = "local"
    workers: int = 1
    duration_s: float = 0.0


@dataclass(frozen=True)
class FleetPlan:
    """The whole plan: repositories, workloads in migration order, and the pools they may use.

    ``primary`` is the target the order is computed for; ``pools`` lists every
    pool considered, NVIDIA (the source platform) first.
    """

    targets: tuple[str, ...]
    primary: str
    pools: tuple[str, ...]
    repos: tuple[RepoPlan, ...]
    workloads: tuple[WorkloadPlan, ...]
    stats: PlanStats = field(default_factory=PlanStats)
    tool_version: str = ""
    schema_version: str = SCHEMA_VERSION
