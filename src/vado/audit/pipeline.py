"""The audit pipeline: discover → read → rules → aggregate, optionally in parallel.

Output order is deterministic whatever ``jobs`` is: files are processed in
discovery order (sorted paths) and results are reassembled in that order.
"""

from __future__ import annotations

import contextlib
import gc
import os
import time
from collections import Counter
from dataclasses import dataclass, replace
from typing import Callable, Sequence

from vado import __version__
from vado.audit.aggregate import combine, file_report, workloads
from vado.model import Finding, Skip, SkipReason, Target
from vado.model.audit import AuditResult, AuditStats, RuleInfo
from vado.procs import cap_jobs, pool_kwargs
from vado.rules.engine import check_bytes
from vado.rules.registry import all_rules
from vado.scan.classify import FileKind

#: Files per task sent to a worker process: large enough to amortise pickling,
#: small enough to balance a tree with a few huge files.
_CHUNK_BYTES = 4 * 2**20


@dataclass(frozen=True)
class _Job:
    path: str
    abs_path: str
    kind: FileKind
    size: int
    #: Rule options of this file alone: what the build judged decides for it (vado.build.judged).
    build: tuple = ()


_Outcome = tuple  # (path, findings or Skip, FileReport or None, ((code, count), ...) the filters left out)

#: The findings of one file an audit lists (its verdicts and counts cover them all).
MAX_FINDINGS_PER_FILE = 1000


def _check_chunk(jobs: Sequence[_Job], targets: Sequence[Target], options: dict, filters=None,
                 max_findings: int = MAX_FINDINGS_PER_FILE) -> list[_Outcome]:
    with gc_paused():
        return _check_jobs(jobs, targets, options, filters, max_findings)


@contextlib.contextmanager
def gc_paused():
    """Pause the cyclic garbage collector for one batch of files.

    Checking a file allocates a token tuple per 5 bytes of source; with the
    collector running, its full collections walk all of them again and again
    (measured: a third of the audit's time on HeCBench). The files' objects hold
    no reference cycles that must die early; whatever cycles there are go at
    the next collection, once the batch is done.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _check_jobs(jobs: Sequence[_Job], targets: Sequence[Target], options: dict, filters=None,
                max_findings: int = MAX_FINDINGS_PER_FILE) -> list[_Outcome]:
    """Check each file; its report per file is made here too, in the worker, not in the parent."""
    from vado.scan.discover import read_regular

    out: list[_Outcome] = []
    target_names = tuple(t.name for t in targets)
    for job in jobs:
        try:
            data = read_regular(job.abs_path)
        except OSError as exc:
            out.append((job.path, Skip(job.path, SkipReason.UNREADABLE, exc.strerror or str(exc)), None, ()))
            continue
        found = check_bytes(job.path, data, targets, kind=job.kind,
                            options={**options, **dict(job.build)} if job.build else options)
        left_out: tuple = ()
        if filters is not None:  # vado.audit.filters.FindingFilter: selection, suppressions, baseline
            kept = filters.apply(job.path, data, found)
            if len(kept) != len(found):
                left_out = tuple((Counter(f.code for f in found) - Counter(f.code for f in kept)).items())
            found = kept
        report = file_report(job.path, job.kind, job.size, found, target_names)
        if max_findings and len(found) > max_findings:
            # The verdicts and counts above cover every finding; the list is cut so that one
            # generated or pathological file cannot make a report of gigabytes.
            found = found[:max_findings]
        out.append((job.path, found, report, left_out))
    return out


def preload_rules() -> None:
    """Import every rule and load the knowledge tables they read (before forking workers)."""
    from vado.knowledge._data import preload

    all_rules()
    preload()


def _chunks(jobs: Sequence[_Job], workers: int = 1) -> list[list[_Job]]:
    """Files in tasks of about ``_CHUNK_BYTES``, smaller when that would leave a worker idle."""
    total = sum(j.size for j in jobs)
    limit = _CHUNK_BYTES if workers <= 1 else max(64 * 1024, min(_CHUNK_BYTES, total // (workers * 8) + 1))
    chunks: list[list[_Job]] = []
    current: list[_Job] = []
    size = 0
    for job in jobs:
        current.append(job)
        size += job.size
        if size >= limit or len(current) >= 64:
            chunks.append(current)
            current, size = [], 0
    if current:
        chunks.append(current)
    return chunks


def audit(
    root: str | os.PathLike,
    targets: Sequence[Target] | None = None,
    *,
    jobs: int = 1,
    respect_gitignore: bool = True,
    include_vendored: bool = False,
    include_backends: bool = False,
    include_hip_path: bool = False,
    max_file_size: int | None = None,
    options: dict | None = None,
    progress: Callable[[int, int], None] | None = None,
    filters=None,
    plan=None,
    max_findings_per_file: int = MAX_FINDINGS_PER_FILE,
    build="compile-db",
) -> AuditResult:
    """Audit the tree at ``root`` (a directory or one file) for ``targets``.

    ``targets`` defaults to :func:`vado.knowledge.targets.default_audit_targets`.
    ``jobs`` > 1 checks files in that many processes. ``progress(done, total)``
    is called as files complete. ``filters`` (a :class:`vado.audit.filters.FindingFilter`)
    drops findings in the workers, before verdicts are aggregated. ``plan`` (a
    :class:`vado.scan.discover.ScanPlan` whose paths are relative to ``root``)
    replaces the walk: several paths named on the command line. Other backends' files are
    not judged unless ``include_backends``, and the project's own HIP path moves as is for
    ROCm targets unless ``include_hip_path`` (:mod:`vado.audit.scope`). Raises :class:`vado.errors.ScanError` when the
    root cannot be scanned at all; single unreadable files become skips.

    ``build`` says how the tree's build is read for the configuration judged (a mode of
    :data:`vado.build.read.MODES` or a :class:`vado.build.BuildOptions`; None reads none): the
    default, ``compile-db``, reads what the tree holds and executes nothing. Each file's
    ``#if`` branches are then evaluated with the macros that build decides for it
    (:mod:`vado.build.judged`); the result's ``build`` says which configuration and from where.
    """
    from vado.knowledge.targets import default_audit_targets
    from vado.scan.discover import walk
    from vado.scan.run_caches import start_run

    start_run()  # what an earlier run in this process read from a tree may have changed since
    started = time.perf_counter()
    targets = tuple(targets) if targets else tuple(default_audit_targets())
    target_names = tuple(t.name for t in targets)
    walk_kwargs = {"respect_gitignore": respect_gitignore, "include_vendored": include_vendored}
    if max_file_size is not None:
        walk_kwargs["max_file_size"] = max_file_size
    walked = plan is None
    if plan is None:
        plan = walk(root, **walk_kwargs)
    from vado.audit.scope import audit_scope, judge_own_hip_path, with_own_rocm_build, with_torch_rocm_build

    scope = audit_scope(root, plan, targets, include_backends=include_backends, include_hip_path=include_hip_path)
    judged = None
    if build is not None and os.path.isdir(root):
        from vado.build.judged import judged_build

        # A plan of a few named files is not the tree: the build is judged over the whole tree
        # (a file left out of the plan may still #define a switch).
        judged = judged_build(root, plan if walked else None, build)
    job_list = [_Job(f.path, str(f.abs_path), f.kind, f.size,
                     tuple(judged.rule_options(f.path).items()) if judged is not None else ())
                for f in plan.files if f.path not in scope.left]
    vendored: dict[str, str] = {}
    if walked and not include_vendored and os.path.isdir(root):
        from vado.audit.vendored_includes import vendored_includes
        from vado.scan.classify import classify

        # Vendored headers the project's own files include are compiled into it: judged, marked, never edited.
        vendored = vendored_includes(root, [j.path for j in job_list], plan.skips)
        for rel in sorted(vendored):
            full = os.path.join(str(root), rel)
            try:
                size = os.path.getsize(full)
            except OSError:
                continue
            job_list.append(_Job(rel, full, classify(rel), size, tuple(judged.rule_options(rel).items())
                                 if judged is not None else ()))
    max_findings = max(0, max_findings_per_file)
    options = dict(options or {})
    if scope.amd_defines and not include_hip_path and "amd_defines" not in options:
        # The project's own ROCm build is the configuration AMD compiles: findings in the branches its
        # option switches off do not decide a ROCm verdict (vado.scan.preprocessor).
        options["amd_defines"] = scope.amd_defines
    if "torch_extension" not in options and os.path.isdir(root):
        from vado.port.torch_ext import is_torch_extension

        if is_torch_extension(root):
            # Judged as vado port --torch-extension auto judges it: PyTorch hipifies its sources at build time.
            options["torch_extension"] = True
    if scope.own_packages and "own_packages" not in options:
        # A requirement on a distribution the tree builds itself is the project's own (DEP rules).
        options["own_packages"] = scope.own_packages
    if scope.rocm_setups and "rocm_setups" not in options:
        # What a ROCm-aware setup.py builds on ROCm, as derived (BLD005: its gates and CUDA-only flags are no findings).
        options["rocm_setups"] = scope.rocm_setups
    if job_list and "source_root" not in options:
        # The tree's own headers decide which branches a build compiles (vado.scan.preprocessor.ProjectHeaders).
        first = job_list[0]
        if first.abs_path.replace(os.sep, "/").endswith("/" + first.path):
            options["source_root"] = first.abs_path[: len(first.abs_path) - len(first.path) - 1]

    results: dict[str, _Outcome] = {}
    total = len(job_list)
    done = 0
    jobs = cap_jobs(jobs)
    chunks = _chunks(job_list, jobs)
    if jobs > 1 and len(chunks) > 1:
        # Workers are forked where the platform does (Linux): what the parent has
        # loaded, they start with. Without this each worker parsed the knowledge
        # base and imported every rule itself (0.4 s of a 1.5 s audit of HeCBench).
        preload_rules()
        # Objects alive now (the knowledge base above all) go to the collector's permanent
        # generation, so that a worker's collections never walk them: walking them would
        # write to their pages and copy every page the fork shares.
        gc.freeze()
        # Imported here: a one-file audit never starts workers, and the module costs its start.
        from concurrent.futures import ProcessPoolExecutor, as_completed

        with contextlib.ExitStack() as cleanup, ProcessPoolExecutor(max_workers=jobs, **pool_kwargs()) as pool:
            cleanup.callback(gc.unfreeze)
            # Largest chunks first, so that no worker is left with a big one at the end.
            order = sorted(range(len(chunks)), key=lambda k: -sum(j.size for j in chunks[k]))
            futures = {pool.submit(_check_chunk, chunks[k], targets, options, filters, max_findings): k for k in order}
            for fut in as_completed(futures):
                for outcome in fut.result():
                    results[outcome[0]] = outcome
                    done += 1
                if progress:
                    progress(done, total)
    else:
        for c in chunks:
            for outcome in _check_chunk(c, targets, options, filters, max_findings):
                results[outcome[0]] = outcome
                done += 1
            if progress:
                progress(done, total)

    skips = [*plan.skips, *scope.skips]
    limits: list[dict] = []
    file_reports = []
    findings: list[Finding] = []
    scanned_bytes = 0
    filtered: Counter = Counter()
    for job in job_list:
        _, res, report, left_out = results[job.path]
        filtered.update(dict(left_out))
        if isinstance(res, Skip):
            skips.append(res)
            continue
        scanned_bytes += job.size
        if job.path in vendored:
            from vado.audit.vendored_includes import mark_vendored

            complete = report.finding_count == len(res)
            res = mark_vendored(res, vendored[job.path])
            if complete:
                report = file_report(job.path, job.kind, job.size, res, target_names)
        why = scope.hip_path.get(job.path)
        if why is not None:
            res, report = judge_own_hip_path(res, report, why, scope.rocm_targets,
                                                  runs_on_amd=job.path not in scope.not_for_amd)
        findings.extend(res)
        file_reports.append(report)
        if report.finding_count > len(res):
            limits.append(finding_limit_error(job.path, report.finding_count, len(res)))
    markers = [j.path for j in job_list if j.kind.is_build] + list(getattr(plan, "markers", ()))
    wl = workloads(file_reports, target_names, markers)
    repo = tuple(combine(t, [v for w in wl for v in w.verdicts]) for t in target_names)
    if scope.own_build:
        wl = [replace(w, verdicts=with_own_rocm_build(w.verdicts, scope, sum(p in scope.hip_path for p in w.files)))
              for w in wl]
        repo = with_own_rocm_build(repo, scope, sum(fr.path in scope.hip_path for fr in file_reports))
    repo = with_torch_rocm_build(repo, scope, findings, root if os.path.isdir(root) else "")
    used = sorted({f.code for f in findings})
    return AuditResult(
        root=str(root),
        targets=target_names,
        verdicts=repo,
        files=tuple(file_reports),
        workloads=tuple(wl),
        findings=tuple(findings),
        skips=tuple(sorted(skips)),
        rules=tuple(rule_info(code) for code in used),
        stats=AuditStats(
            files_scanned=len(file_reports),
            files_skipped=len(skips),
            bytes_scanned=scanned_bytes,
            duration_s=round(time.perf_counter() - started, 3),
            jobs=jobs,
            filtered=dict(sorted(filtered.items())),
        ),
        errors=tuple(limits),
        build=judged.summary if judged is not None else None,
        amd_support=_amd_support(job_list),
        tool_version=__version__,
    )


def _amd_support(jobs) -> tuple[str, ...]:
    """``path: sign`` of each build file (CMake, Makefile, setup.py, or a Python file that builds a PyTorch
    extension itself: exllama 0.1.0's ``cpp_extension.load()`` with ROCm flags) that already builds for AMD GPUs."""
    from vado.port.build import existing_amd_support

    out = []
    for job in jobs:
        builds = job.kind in (FileKind.CMAKE, FileKind.MAKEFILE, FileKind.SETUP_PY)
        if not (builds or job.kind is FileKind.PYTHON):
            continue
        try:
            with open(job.abs_path, "rb") as fh:
                text = fh.read(4_000_000).decode("latin-1")
        except OSError:
            continue  # the scan reports an unreadable file
        if not builds and "cpp_extension" not in text:
            continue
        sign = existing_amd_support(text)
        if sign:
            out.append(f"{job.path}: {sign}")
    return tuple(out)


def finding_limit_error(path: str, total: int, listed: int) -> dict:
    """The report entry for a file whose findings were cut to the first ``listed`` of ``total``."""
    return {
        "type": "FindingLimit",
        "what": f"{path}: {total} findings, the first {listed} listed",
        "why": f"one file is listed with at most {listed} findings (its verdicts and counts cover all {total})",
        "tip": "fix the listed ones and audit again, or audit with max_findings_per_file=0 for the full list",
    }


def rule_info(code: str) -> RuleInfo:
    """Metadata of rule ``code`` for reports; the docstring becomes Markdown help."""
    from vado.rules.registry import get_rule

    rule = get_rule(code)
    sections = rule.doc_sections()
    help_md = "\n\n".join(f"## {k}\n\n{v}" for k, v in sections.items() if k and v)
    return RuleInfo(
        code=rule.code,
        name=rule.name,
        family=rule.code.rstrip("0123456789"),
        severity=rule.severity.value,
        summary=rule.one_line(),
        help=help_md,
    )


def all_rule_infos() -> list[RuleInfo]:
    """Metadata of every rule."""
    return [rule_info(r.code) for r in all_rules()]
