"""Porting the files of a tree port, one job per file: read it, port its bytes (:func:`vado.port.file.port_bytes`),
write the result where the port goes (a new file of the staged tree, a rename, an in-place rewrite with its
backup), and say what happened (:class:`~vado.model.port.PortedFile`). :func:`run_jobs` runs the jobs in worker
processes when asked, forked with the rules and tables loaded (:func:`preload`)."""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import gc
import os
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

from vado.audit.pipeline import gc_paused
from vado.errors import VadoError
from vado.model import Finding, Target
from vado.model.port import PortedFile
from vado.port.apply import WriteFailed, backup_path, unified_diff, write_atomic, write_new
from vado.port.build import renamed_name
from vado.port.file import PortOptions, port_bytes
from vado.port.tree_copy import copy_file, copy_times_and_xattrs, read_file
from vado.procs import cap_jobs, pool_kwargs
from vado.scan.classify import FileKind


@dataclass(frozen=True)
class PortJob:
    """One file of a tree port: where it is read (``src``) and written (``dst``), and how."""

    path: str
    src: str
    dst: str
    kind: FileKind
    #: The copy of the source in the output tree that a renamed source replaces ("" when not renamed).
    stale: str = ""
    #: Whether the output tree holds a copy at ``dst`` already (a symlink the tree copy kept, a
    #: single file's copy); otherwise the port creates the file.
    copied: bool = False
    #: Whether this file's unsafe fixes are applied although the port's options do not ask for them.
    build_fixes: bool = False
    #: An in-place rename an interrupted run began (its journal names it): ``dst`` may hold that
    #: run's port already, which this one replaces.
    resume: bool = False
    #: Rule options of this file alone: what the build judged decides for it (vado.build.judged).
    build: tuple = ()
    #: Tags of the unsafe fixes applied although neither the options nor ``build_fixes`` ask for unsafe ones.
    unsafe_tags: tuple = ()


def _port_one(job: PortJob, target: Target, options: PortOptions, in_place: bool, backup: bool) -> tuple[PortedFile, list[Finding]]:
    try:
        if job.build_fixes and not options.unsafe:
            # a Python module: only its build fixes (a just-in-time torch build's nvcc flags), not its other unsafe ones
            options = (dataclasses.replace(options, unsafe_tags=("build",)) if job.kind is FileKind.PYTHON
                       else dataclasses.replace(options, unsafe=True))
        elif job.unsafe_tags and not options.unsafe:
            options = dataclasses.replace(options, unsafe_tags=(*options.unsafe_tags, *job.unsafe_tags))
        if job.build:
            options = dataclasses.replace(options, rule_options={**options.rule_options, **dict(job.build)})
        src_stat, data = read_file(job.src)
        src_mode = src_stat.st_mode
        result = port_bytes(job.path, job.kind, data, target, options)
        renamed = job.dst != job.src and in_place or bool(job.stale)
        if renamed:
            # --rename-sources: the port goes to k.hip, which must not exist yet; the
            # old k.cu becomes the backup (in place) or is removed from the output tree.
            write_atomic(Path(job.dst), result.after, mode=src_mode, durable=in_place, overwrite=job.resume)
            if in_place:
                if backup:
                    os.replace(job.src, backup_path(Path(job.src)))
                else:
                    os.unlink(job.src)
            elif os.path.lexists(job.stale):
                os.unlink(job.stale)
        elif in_place:
            if result.changed:
                write_atomic(Path(job.dst), result.after, backup=backup, expected=data, overwrite=not backup)
        elif job.copied:
            # The tree copy left ported files out (see copy_tree) except a symlink, copied as a link:
            # a changed one is replaced by the port, in our own fresh tree (no fsync).
            if result.changed:
                write_atomic(Path(job.dst), result.after, overwrite=True, durable=False, mode=src_mode)
        elif result.changed:
            write_new(job.dst, result.after, mode=src_mode)
        else:
            # The unchanged file, from the bytes read above: a copy as shutil.copy2 makes it
            # (mode, times, extended attributes).
            write_new(job.dst, data, mode=src_mode)
            copy_times_and_xattrs(job.src, job.dst, src_stat)
        remaining: dict[str, int] = {}
        for f in result.remaining:
            remaining[f.code] = remaining.get(f.code, 0) + 1
        return (
            PortedFile(
                path=job.path,
                out_path=job.dst,
                kind=job.kind.value,
                status="translated" if result.changed or renamed else "unchanged",
                applied=result.applied,
                remaining=remaining,
                diff=_diff(result.before, result.after, job, renamed),
                unsafe_applied=result.unsafe_applied,
                changes=result.changes,
            ),
            list(result.remaining),
        )
    except WriteFailed as exc:
        if not in_place:
            raise  # a new tree missing a file, or holding a short one, is never published
        return PortedFile(job.path, job.dst, job.kind.value, "failed", error=exc.message), []
    except VadoError as exc:
        _keep_original(job, in_place)
        return PortedFile(job.path, job.dst, job.kind.value, "failed", error=exc.message), []
    except OSError as exc:
        _keep_original(job, in_place)
        return PortedFile(job.path, job.dst, job.kind.value, "failed", error=f"{exc.strerror or exc}"), []


def _keep_original(job: PortJob, in_place: bool) -> None:
    """A file that failed to port is in the output tree as it was (the tree copy left it out),
    under its old name when it was to be renamed."""
    if in_place:
        return
    dst = job.stale or job.dst
    if not os.path.lexists(dst):
        # A source that cannot be read is reported with the failure already; a write that
        # fails (a full disk) raises WriteFailed and abandons the port.
        copy_file(job.src, dst, problems=[])


def _diff(before: bytes, after: bytes, job: PortJob, renamed: bool) -> str:
    if not renamed:
        return unified_diff(before, after, job.path) if before != after else ""
    # A renamed file's diff names both sides, as git does for a rename.
    new_rel = renamed_name(job.path)
    text = unified_diff(before, after, job.path)
    if not text:
        return f"rename {job.path} → {new_rel}\n"
    return text.replace(f"+++ b/{job.path}", f"+++ b/{new_rel}", 1)


def _port_many(jobs: Sequence[PortJob], target: Target, options: PortOptions, in_place: bool, backup: bool):
    # Collector paused per batch, as audit does (vado.audit.pipeline.gc_paused): a file's
    # tokens and findings hold no cycles that must die early.
    with gc_paused():
        return [_port_one(j, target, options, in_place, backup) for j in jobs]


#: Files ported between two chances for the cyclic garbage collector to run.
_BATCH = 64


def preload(target: Target, options: PortOptions | None = None) -> None:
    """Load what porting for ``target`` reads: every rule, the knowledge tables and the
    rename map. ``port_tree`` calls it before forking workers, which then start with
    them loaded; a caller that ports many trees in one process may call it up front."""
    from vado.audit.pipeline import preload_rules
    from vado.port.translate import rename_map

    preload_rules()
    rename_map(target, (options or PortOptions()).roc)


def run_jobs(job_list: list[PortJob], target: Target, options: PortOptions, in_place: bool, backup: bool, jobs: int,
             progress: Callable[[int, int], None] | None) -> list[tuple[PortedFile, list[Finding]]]:
    """Port every job, in worker processes when ``jobs`` > 1; the outcomes in job order."""
    outcomes: list[tuple[PortedFile, list[Finding]]] = []
    jobs = cap_jobs(jobs, len(job_list))
    if jobs > 1 and len(job_list) > 1:
        size = max(1, len(job_list) // (jobs * 4))
        chunks = [job_list[i : i + size] for i in range(0, len(job_list), size)]
        # As in audit: workers are forked with the rules and tables loaded, and what is
        # alive now is left out of their collections (see vado.audit.pipeline).
        preload(target, options)
        gc.freeze()
        with contextlib.ExitStack() as cleanup, ProcessPoolExecutor(max_workers=jobs, **pool_kwargs()) as pool:
            cleanup.callback(gc.unfreeze)
            work = functools.partial(_port_many, target=target, options=options, in_place=in_place, backup=backup)
            for chunk_result in pool.map(work, chunks):
                outcomes.extend(chunk_result)
                if progress:
                    progress(len(outcomes), len(job_list))
    else:
        for i in range(0, len(job_list), _BATCH):
            with gc_paused():
                for job in job_list[i : i + _BATCH]:
                    outcomes.append(_port_one(job, target, options, in_place, backup))
                    if progress:
                        progress(len(outcomes), len(job_list))
    return outcomes
