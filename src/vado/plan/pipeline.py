"""The plan pipeline: resolve and audit every repository (through an executor), then order and place."""

from __future__ import annotations

import time
from dataclasses import replace
from typing import Callable, Sequence

from vado import __version__
from vado.errors import UsageError
from vado.model import Effort, Target
from vado.model.plan import FleetPlan, PlanStats, RepoPlan, WorkloadPlan
from vado.plan.aggregate import order, workload_plans
from vado.plan.executors import LocalExecutor, RepoOutcome, RepoTask, audit_repo
from vado.plan.fleet import FleetSpec
from vado.plan.placement import assign_manifests, place
from vado.plan.pools import Pool, with_overrides


def _targets(names: Sequence[str]) -> tuple[Target, ...]:
    from vado.knowledge.targets import default_audit_targets, get_target

    if not names:
        return tuple(default_audit_targets())
    out: list[Target] = []
    for item in names:
        for name in str(item).split(","):
            if name.strip():
                t = get_target(name.strip())
                if t not in out:
                    out.append(t)
    return tuple(out)


def _repo_plan(outcome: RepoOutcome, workloads: Sequence[WorkloadPlan], notes: Sequence[str]) -> RepoPlan:
    spec = outcome.spec
    if outcome.audit is None:
        return RepoPlan(name=spec.name, source=spec.source, error=outcome.error, duration_s=outcome.duration_s)
    cached = outcome.audit
    result = cached.result
    return RepoPlan(
        name=spec.name,
        source=spec.source,
        root=outcome.root,
        commit=outcome.commit,
        digest=cached.digest,
        verdicts=result.verdicts,
        workloads=len(workloads),
        files_scanned=result.stats.files_scanned,
        findings=len(result.findings),
        effort=sum((w.effort for w in result.workloads), Effort()),
        cached=cached.cached,
        files_rescanned=cached.files_rescanned,
        duration_s=outcome.duration_s,
        notes=tuple(notes),
    )


def plan_fleet(
    fleet: FleetSpec,
    *,
    targets: Sequence[str] | None = None,
    primary: str | None = None,
    executor=None,
    cache_dir: str | None = None,
    respect_gitignore: bool = True,
    include_vendored: bool = False,
    progress: Callable[[int, int], None] | None = None,
) -> FleetPlan:
    """Audit every repository of ``fleet`` and turn the audits into a :class:`FleetPlan`.

    ``targets`` (names) override the manifest's, which override vado's default
    audit targets; ``primary`` (default: the manifest's, else the first target)
    is the target the migration order is computed for. ``executor`` is a
    :class:`~vado.plan.executors.LocalExecutor` (default, one process) or
    :class:`~vado.plan.executors.RayExecutor`; ``cache_dir`` None disables the
    cache. A repository that cannot be resolved or audited is reported in the
    plan with its error; the others are planned. ``progress(done, total)`` is
    called as repositories are audited (``total`` repositories).
    """
    started = time.perf_counter()
    target_objs = _targets(targets or fleet.targets)
    names = tuple(t.name for t in target_objs)
    main = primary or fleet.primary or names[0]
    from vado.knowledge.targets import get_target

    main = get_target(main).name
    if main not in names:
        raise UsageError(f"the primary target {main} is not among the audited targets", ", ".join(names),
                         "add it with --target or pick one of them with --primary")
    pools: tuple[Pool, ...] = with_overrides(fleet.pools)
    # Pools no audited target leads into (and that are not the source platform) are not part of the plan.
    families = {t.family for t in target_objs}
    pools = tuple(p for p in pools if not p.families or families & set(p.families))
    executor = executor or LocalExecutor(1)
    tasks = [RepoTask(spec, target_objs, cache_dir, respect_gitignore, include_vendored) for spec in fleet.repos]
    outcomes: list[RepoOutcome] = (executor.map(audit_repo, tasks, progress=progress) if progress is not None
                                   else executor.map(audit_repo, tasks))

    repos: list[RepoPlan] = []
    all_workloads: list[WorkloadPlan] = []
    for outcome in outcomes:
        if outcome.audit is None:
            repos.append(_repo_plan(outcome, (), ()))
            continue
        result = outcome.audit.result
        plans = workload_plans(outcome.spec.name, result, target_objs, pools)
        matches, unmatched = assign_manifests(outcome.manifests, plans)
        notes = [
            f"{o.path}: {o.kind} {o.name} matches no workload; name one with "
            f"`manifests: [{{path: {o.path}, workload: NAME}}]` in the fleet manifest"
            for o in unmatched
        ]
        build = result.build
        if build is not None:
            # Which configuration decided the repository's #if branches (vado.build.judged).
            notes.append(f"build judged: {build.source}" + ("" if build.guessed else
                                                            f" ({build.units} unit{'s' if build.units != 1 else ''}, "
                                                            f"configuration {build.configuration})"))
        images = dict(outcome.dockerfile_images)
        placed = [replace(w, placement=place(w, pools, matches.get(w.path, ()), outcome.spec, images)) for w in plans]
        all_workloads.extend(placed)
        repos.append(_repo_plan(outcome, placed, notes))

    ordered = order(all_workloads, main)
    ok = [r for r in repos if r.error is None]
    return FleetPlan(
        targets=names,
        primary=main,
        pools=tuple(p.name for p in pools),
        repos=tuple(repos),
        workloads=ordered,
        stats=PlanStats(
            repos=len(repos),
            repos_failed=len(repos) - len(ok),
            repos_cached=sum(1 for r in ok if r.cached),
            files_scanned=sum(r.files_scanned for r in ok),
            files_rescanned=sum(r.files_rescanned for r in ok),
            workloads=len(ordered),
            executor=executor.name,
            workers=getattr(executor, "workers", None) or 1,
            duration_s=round(time.perf_counter() - started, 3),
        ),
        tool_version=__version__,
    )
