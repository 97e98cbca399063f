"""From audits to a migration order: per workload verdicts, blockers, effort, pools, and waves.

The order is "cheapest wins first" for the fleet's *primary* target: workloads
that move as is come first, then those vado's automatic edits cover, then those
that need manual work; within each wave the smallest effort for that target
goes first (hours, then lines, then constructs; ties by repository and path, so
the order is deterministic). Blocked workloads come last: they stay on NVIDIA.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path
from dataclasses import replace
from typing import Iterable, Sequence

from vado.audit.aggregate import effort_of, owning_workload
from vado.model import Effort, Finding, Target, TargetVerdict, Verdict
from vado.model.audit import AuditResult, WorkloadReport
from vado.model.plan import Blocker, PoolFit, Readiness, WorkloadPlan
from vado.plan.pools import Pool

#: The wave a workload migrates in, by its verdict for the primary target.
WAVES = {
    Verdict.MOVES_AS_IS: "moves as is",
    Verdict.AUTOMATIC: "automatic edits",
    Verdict.MANUAL: "manual work",
    Verdict.BLOCKED: "stays on NVIDIA",
}
#: The wave of a workload with no CUDA at all (no CUDA file, no finding): Metal, Vulkan, OpenCL or
#: plain C++ directories. It has nothing to migrate, so it is no migration win and gets no place
#: (``order`` 0) in the migration order.
NO_CUDA_WAVE = "no CUDA"
#: File kinds that are CUDA by themselves (``.cu``, ``.cuh``).
CUDA_FILE_KINDS = frozenset({"cuda-source", "cuda-header"})
#: Route name for the pool a CUDA workload already runs on.
SOURCE_ROUTE = "cuda"


def pool_fits(verdicts: Sequence[TargetVerdict], targets: Sequence[Target], pools: Sequence[Pool]) -> tuple[PoolFit, ...]:
    """How a workload fits each pool: the best audited route into it.

    A pool no audited target leads into is left out (it was not considered),
    except the source pool (no families), which every CUDA workload fits now.
    Among routes of equal verdict the one listed first in ``targets`` wins, so
    the production target is preferred over SCALE and ZLUDA.
    """
    by_name = {tv.target: tv for tv in verdicts}
    out = []
    for pool in pools:
        if not pool.families:
            out.append(PoolFit(pool.name, SOURCE_ROUTE, Verdict.MOVES_AS_IS, Readiness.NOW, "the platform it runs on today"))
            continue
        routes = [(i, t) for i, t in enumerate(targets) if t.family in pool.families and t.name in by_name]
        if not routes:
            continue
        _, best = min(routes, key=lambda it: (by_name[it[1].name].verdict.rank, it[0]))
        tv = by_name[best.name]
        out.append(PoolFit(pool.name, best.name, tv.verdict, Readiness.of(tv.verdict), tv.reason))
    return tuple(out)


def blockers(findings: Iterable[Finding], summaries: dict[str, str]) -> tuple[Blocker, ...]:
    """The codes that block at least one target, most frequent first, with the targets they block."""
    counts: Counter[str] = Counter()
    blocked: dict[str, set[str]] = {}
    for f in findings:
        hit = sorted(t for t, v in f.verdicts.items() if v is Verdict.BLOCKED)
        if hit:
            counts[f.code] += 1
            blocked.setdefault(f.code, set()).update(hit)
    return tuple(
        Blocker(code, n, tuple(sorted(blocked[code])), summaries.get(code, ""))
        for code, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    )


def effort_for(findings: Iterable[Finding], target: str) -> Effort:
    """Effort of the findings that change something for ``target``."""
    return effort_of(f for f in findings if f.verdicts.get(target, Verdict.MOVES_AS_IS) is not Verdict.MOVES_AS_IS)


def _findings_by_workload(result: AuditResult) -> dict[str, list[Finding]]:
    # Every scanned file belongs to exactly one workload (the audit grouped them);
    # a finding of a file the grouping does not list goes to its nearest workload.
    owner = {path: w.path for w in result.workloads for path in w.files}
    dirs = [w.path for w in result.workloads]
    out: dict[str, list[Finding]] = {w.path: [] for w in result.workloads}
    for f in result.findings:
        key = owner.get(f.span.path) or owning_workload(f.span.path, dirs)
        out.setdefault(key, []).append(f)
    return out


def workload_plans(repo: str, result: AuditResult, targets: Sequence[Target], pools: Sequence[Pool]) -> list[WorkloadPlan]:
    """One :class:`WorkloadPlan` per workload of ``result`` (unordered; see :func:`order`)."""
    summaries = {r.code: r.summary for r in result.rules}
    grouped = _findings_by_workload(result)
    kinds = {f.path: f.kind for f in result.files}
    out = []
    for w in result.workloads:
        found = grouped.get(w.path, [])
        has_cuda = bool(found) or _mentions_cuda(result.root, w.files, kinds)
        out.append(
            WorkloadPlan(
                repo=repo,
                name=_workload_name(repo, w),
                path=w.path,
                files=len(w.files),
                verdicts=w.verdicts,
                effort=w.effort,
                effort_by_target={t.name: effort_for(found, t.name) for t in targets},
                blockers=blockers(found, summaries),
                fits=pool_fits(w.verdicts, targets, pools),
                wave="" if has_cuda else NO_CUDA_WAVE,
            )
        )
    return out


def _mentions_cuda(root: str, files: Iterable[str], kinds: dict[str, str]) -> bool:
    """Whether any of ``files`` is a CUDA file or names CUDA at all (``torch.cuda``, ``GGML_USE_CUDA``,
    ``find_package(CUDAToolkit)``).

    A workload without a finding can still run CUDA through a framework (PyTorch moves as is on
    ROCm), so only one whose files never say "cuda" counts as having no CUDA. A file that cannot be
    read counts as CUDA: the workload is kept in the order rather than dropped on a guess.
    """
    for path in files:
        if kinds.get(path) in CUDA_FILE_KINDS:
            return True
    base = Path(root)
    for path in files:
        try:
            with open(base / path, "rb") as fh:
                if _CUDA_WORD.search(fh.read(_READ_LIMIT)):
                    return True
        except OSError:
            return True
    return False


_CUDA_WORD = re.compile(rb"cuda|nvcc|cublas|cudnn|nvidia", re.IGNORECASE)
#: The scanner already bounded file sizes; this only caps the read of one file.
_READ_LIMIT = 16 * 1024 * 1024


def _workload_name(repo: str, w: WorkloadReport) -> str:
    # The root workload is the repository itself.
    return repo if w.path == "." else w.name


def sort_key(w: WorkloadPlan, primary: str) -> tuple:
    """Cheapest wins first for ``primary``: verdict, then effort, then repository and path.

    Workloads with no CUDA (:data:`NO_CUDA_WAVE`) go after every other one.
    """
    verdict = w.verdict_for(primary)
    rank = verdict.rank if verdict is not None else len(Verdict)
    if w.wave == NO_CUDA_WAVE:
        rank = len(Verdict) + 1
    effort = w.effort_by_target.get(primary, w.effort)
    return (rank, effort.hours, effort.lines, effort.constructs, w.repo, w.path)


def order(workloads: Iterable[WorkloadPlan], primary: str) -> tuple[WorkloadPlan, ...]:
    """``workloads`` in migration order, each with its 1-based ``order`` and its ``wave``.

    A workload with no CUDA keeps the wave :data:`NO_CUDA_WAVE` and ``order`` 0: it is listed
    after the order, never as a migration win.
    """
    ranked = sorted(workloads, key=lambda w: sort_key(w, primary))
    out = []
    i = 0
    for w in ranked:
        if w.wave == NO_CUDA_WAVE:
            out.append(replace(w, order=0))
            continue
        i += 1
        verdict = w.verdict_for(primary)
        out.append(replace(w, order=i, wave=WAVES[verdict] if verdict is not None else "not audited"))
    return tuple(out)
