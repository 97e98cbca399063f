"""Porting a whole tree into a new directory (or in place, with backups).

The user's tree is never touched unless ``in_place`` is asked for, and then every
changed file keeps a backup beside it (``<file>.vado-bak``). A port into ``out``
copies the tree (without ``.git``) and writes each ported file into a hidden
staging directory, then moves the finished tree to ``out`` at once: ``out``
never holds a partial port.
"""

from __future__ import annotations

import contextlib
import dataclasses
import errno
import functools
import gc
import os
import posixpath
import re
import shutil
import stat
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

from vado import __version__
from vado.audit.pipeline import gc_paused
from vado.errors import UsageError, VadoError
from vado.model import Finding, Skip, SkipReason, Target
from vado.model.port import PortedFile, PortResult
from vado.port.apply import BACKUP_SUFFIX, WriteFailed, backup_path, unified_diff, write_atomic, write_new
from vado.port.build import existing_amd_support, renamed_name
from vado.port.file import PortOptions, port_bytes
from vado.procs import cap_jobs, pool_kwargs
from vado.scan.classify import FileKind

#: Build-system files: their fixes are mechanical (a language, a flag, a link name, a package
#: pin, a base image) and are applied, unsafe ones included, in a new output tree by default.
BUILD_KINDS = frozenset(
    {
        FileKind.CMAKE,
        FileKind.MAKEFILE,
        FileKind.SETUP_PY,
        FileKind.PYPROJECT,
        FileKind.SETUP_CFG,
        FileKind.REQUIREMENTS,
        FileKind.CONDA_ENV,
        FileKind.DOCKERFILE,
    }
)
#: Kinds vado rewrites (the build files, the C family, Python); other files are copied verbatim.
PORTED_KINDS = BUILD_KINDS | {FileKind.CUDA_SOURCE, FileKind.CUDA_HEADER, FileKind.CXX_SOURCE, FileKind.CXX_HEADER,
                              FileKind.PYTHON}


@dataclass(frozen=True)
class _Job:
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


def _port_one(job: _Job, target: Target, options: PortOptions, in_place: bool, backup: bool) -> tuple[PortedFile, list[Finding]]:
    try:
        if job.build_fixes and not options.unsafe:
            # a Python module: only its build fixes (a just-in-time torch build's nvcc flags), not its other unsafe ones
            options = (dataclasses.replace(options, unsafe_tags=("build",)) if job.kind is FileKind.PYTHON
                       else dataclasses.replace(options, unsafe=True))
        if job.build:
            options = dataclasses.replace(options, rule_options={**options.rule_options, **dict(job.build)})
        src_stat, data = _read_file(job.src)
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
            # The tree copy left ported files out (see _copy_tree) except a symlink, copied as a link:
            # a changed one is replaced by the port, in our own fresh tree (no fsync).
            if result.changed:
                write_atomic(Path(job.dst), result.after, overwrite=True, durable=False, mode=src_mode)
        elif result.changed:
            write_new(job.dst, result.after, mode=src_mode)
        else:
            # The unchanged file, from the bytes read above: a copy as shutil.copy2 makes it
            # (mode, times, extended attributes).
            write_new(job.dst, data, mode=src_mode)
            _copy_times_and_xattrs(job.src, job.dst, src_stat)
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


_INCLUDE = re.compile(rb'^[ \t]*#[ \t]*include[ \t]*[<"]([^>"\r\n]+)[>"]', re.MULTILINE)
_C_FAMILY = frozenset({FileKind.CUDA_SOURCE, FileKind.CUDA_HEADER, FileKind.CXX_SOURCE, FileKind.CXX_HEADER})


def _source_links(ported) -> tuple[tuple[str, str], ...]:
    """``(folder, library id)`` for the libraries the tree's sources include whose ROCm replacement
    must be linked although CUDA needed no link (``link_when_included`` of the library table)."""
    from vado.knowledge.libraries import library_for_header

    found: set[tuple[str, str]] = set()
    for f in ported:
        if f.kind not in _C_FAMILY:
            continue
        try:
            data = _read_file(str(f.abs_path))[1]
        except OSError:
            continue  # reported when the port reads it
        if b"include" not in data:
            continue
        for m in _INCLUDE.finditer(data):
            lib = library_for_header(m.group(1).decode("latin-1"))
            if lib is not None and lib.rocm is not None and lib.rocm.link_when_included:
                found.add((posixpath.dirname(f.path), lib.id))
    return tuple(sorted(found))


def _cmake_cuda_dirs(ported) -> tuple[str, ...]:
    """:func:`vado.port.build.cmake_cuda_dirs` of the tree's CMake files (read as latin-1)."""
    from vado.port.build import cmake_cuda_dirs

    texts = []
    for f in ported:
        if f.kind is not FileKind.CMAKE:
            continue
        try:
            texts.append((f.path, _read_file(str(f.abs_path))[1].decode("latin-1")))
        except OSError:
            continue  # reported when the port reads it
    return cmake_cuda_dirs(texts)


def _joined(base: str, rel: str) -> str:
    """``str(Path(base) / rel)`` for a clean relative POSIX path ``rel``, without the Path."""
    return rel if base == "." else os.path.join(base, rel)


def _read_file(path: str) -> tuple[os.stat_result, bytes]:
    """The stat and the bytes of the file at ``path`` (one open, one stat, reads to the end)."""
    # O_NONBLOCK: a FIFO that took the file's place since the walk must not block the open.
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0))
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise OSError(errno.EINVAL, "it is no longer a regular file (replaced since the walk)")
        chunks = [os.read(fd, st.st_size + 1)]  # one read for a file that did not grow meanwhile
        while chunks[-1]:
            chunks.append(os.read(fd, 1 << 20))
        return st, b"".join(chunks)
    finally:
        os.close(fd)


def _copy_times_and_xattrs(src: str, dst: str, st: os.stat_result) -> None:
    """What ``shutil.copystat`` copies besides the mode: the access and modification times
    (from ``st``, the source's stat) and the extended attributes, where the platform and
    file system have them (attributes that cannot be read or set are left out)."""
    os.utime(dst, ns=(st.st_atime_ns, st.st_mtime_ns))
    listxattr = getattr(os, "listxattr", None)
    if listxattr is None:
        return
    try:
        names = listxattr(src)
    except OSError:
        return
    for name in names:
        try:
            os.setxattr(dst, name, os.getxattr(src, name))
        except OSError:
            pass  # shutil skips the same errors (unsupported, permission) for each attribute


def _keep_original(job: _Job, in_place: bool) -> None:
    """A file that failed to port is in the output tree as it was (the tree copy left it out),
    under its old name when it was to be renamed."""
    if in_place:
        return
    dst = job.stale or job.dst
    if not os.path.lexists(dst):
        # A source that cannot be read is reported with the failure already; a write that
        # fails (a full disk) raises WriteFailed and abandons the port.
        _copy_file(job.src, dst, problems=[])


def _diff(before: bytes, after: bytes, job: _Job, renamed: bool) -> str:
    if not renamed:
        return unified_diff(before, after, job.path) if before != after else ""
    # A renamed file's diff names both sides, as git does for a rename.
    new_rel = renamed_name(job.path)
    text = unified_diff(before, after, job.path)
    if not text:
        return f"rename {job.path} → {new_rel}\n"
    return text.replace(f"+++ b/{job.path}", f"+++ b/{new_rel}", 1)


def _port_many(jobs: Sequence[_Job], target: Target, options: PortOptions, in_place: bool, backup: bool):
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


def _copy_tree(root: Path, out: Path, ported: frozenset[str] = frozenset(), skips: list[Skip] | None = None) -> set[str]:
    """Copy ``root`` to ``out`` without ``.git`` and without the regular files in ``ported``
    (absolute paths): each of those is written once, by its port, instead of copied and
    then written over. Returns the paths of ``ported`` that were copied (symlinks).

    Symlinks are copied as links; a directory's times and mode are copied after its
    entries (as ``shutil.copytree`` does). The walk keeps its own stack, so a tree of any
    depth is copied (recursion would stop near a thousand levels). What cannot be read
    (a FIFO, socket or device; a file or directory this user cannot read) is left out and
    appended to ``skips`` (paths relative to ``root``): the rest of the tree is copied all
    the same. What cannot be written (a full disk) raises :class:`WriteFailed`.
    """
    copied: set[str] = set()
    problems: list[tuple[str, str]] = []
    pending = [(str(root), str(out))]
    finished: list[tuple[str, str]] = []
    while pending:
        src_dir, dst_dir = pending.pop()
        try:
            with os.scandir(src_dir) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError as exc:
            problems.append((src_dir, exc.strerror or str(exc)))
            continue
        finished.append((src_dir, dst_dir))
        for entry in entries:
            if entry.name == ".git":
                continue
            src, dst = entry.path, os.path.join(dst_dir, entry.name)
            try:
                is_link = entry.is_symlink()
                is_dir = not is_link and entry.is_dir(follow_symlinks=False)
            except OSError as exc:
                problems.append((src, exc.strerror or str(exc)))
                continue
            if src in ported:
                if not is_link:
                    continue
                copied.add(src)
            if is_link:
                try:
                    link = os.readlink(src)
                except OSError as exc:
                    problems.append((src, exc.strerror or str(exc)))
                    continue
                _written(dst, os.symlink, link, dst)
                with contextlib.suppress(OSError):
                    shutil.copystat(src, dst, follow_symlinks=False)
            elif is_dir:
                _written(dst, os.mkdir, dst)
                pending.append((src, dst))
            else:
                _copy_file(src, dst, problems=problems)
    for src_dir, dst_dir in reversed(finished):
        try:
            shutil.copystat(src_dir, dst_dir)
        except OSError as exc:
            problems.append((src_dir, exc.strerror or str(exc)))
    if skips is not None:
        base = str(root)
        for path, why in problems:
            rel = os.path.relpath(path, base).replace(os.sep, "/")
            skips.append(Skip(rel, SkipReason.UNREADABLE, f"not copied into the port: {why}"))
    return copied


def _written(dst: str, call, *args) -> None:
    """``call(*args)``, a write into the output tree: its failure is a :class:`WriteFailed`."""
    try:
        call(*args)
    except OSError as exc:
        raise WriteFailed(f"cannot write {dst}", exc.strerror or str(exc), "check free space and permissions") from exc


def _copy_file(src: str, dst: str, *, follow_symlinks: bool = True, problems: list[tuple[str, str]] | None = None) -> str:
    """``shutil.copy2`` for a file of a fresh output tree, with fewer system calls.

    The same result (bytes, permission bits, access and modification times, extended
    attributes), from one stat of the open source; ``dst`` must not exist (``O_EXCL``).
    The source is opened without blocking, so a FIFO never hangs the copy: a FIFO,
    socket or device is not copied, and neither is a file that cannot be opened; each
    goes to ``problems`` as ``(src, why)`` (raised when ``problems`` is None). A write
    that fails (a full disk) removes the partial copy and raises :class:`WriteFailed`.
    """
    try:
        fd_in = os.open(src, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0))
    except OSError as exc:
        if problems is None:
            raise
        problems.append((src, exc.strerror or str(exc)))
        return dst
    try:
        st = os.fstat(fd_in)
        if not stat.S_ISREG(st.st_mode):
            if problems is None:
                raise shutil.SpecialFileError(f"{src} is not a regular file")
            problems.append((src, "not a regular file (a FIFO, socket or device)"))
            return dst
        try:
            fd_out = os.open(dst, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
                             | getattr(os, "O_BINARY", 0), 0o600)
        except FileExistsError:
            raise  # something else writes into our fresh tree: not a full disk
        except OSError as exc:
            raise WriteFailed(f"cannot write {dst}", exc.strerror or str(exc), "check free space and permissions") from exc
        try:
            try:
                os.fchmod(fd_out, stat.S_IMODE(st.st_mode))
                _copy_bytes(fd_in, fd_out, max(st.st_size, 1 << 16))
            finally:
                os.close(fd_out)
        except OSError as exc:
            with contextlib.suppress(OSError):
                os.unlink(dst)
            if isinstance(exc, _SourceReadError) and problems is not None:
                problems.append((src, exc.strerror or str(exc)))
                return dst
            raise WriteFailed(f"cannot write {dst}", exc.strerror or str(exc), "check free space and permissions") from exc
        _copy_times_and_xattrs(src, dst, st)
        return dst
    finally:
        os.close(fd_in)


_STAGE_MARK = ".vado-partial-"


#: Descriptors of the stages this process is writing, each locked (flock) until the stage is
#: published or discarded: a later run removes a stage only when no live port holds its lock.
_STAGE_LOCKS: dict[str, int] = {}


def _stage_names(out: Path) -> list[tuple[Path, re.Pattern[str]]]:
    """Where stages of a port into ``out`` are made (beside it; inside it when it is an empty
    directory), each with the pattern of their names."""
    places = [(out.parent, re.compile(re.escape(f".{out.name}{_STAGE_MARK}") + r"[0-9a-f]{8}"))]
    if out.is_dir() and not out.is_symlink():
        places.append((out, re.compile(re.escape(_STAGE_MARK) + r"[0-9a-f]{8}")))
    return places


def remove_stale_stages(out: str | os.PathLike) -> list[str]:
    """Remove the staging directories that killed ports into ``out`` left (``.OUT.vado-partial-*``
    beside it, ``.vado-partial-*`` inside an empty ``OUT``); the names removed.

    Only directories (never a link) whose name has the stage's exact form, and only when no
    live port holds their lock; a stage whose owner is alive, or that cannot be locked, stays.
    """
    import fcntl

    out = Path(out)
    found = []
    for where, pattern in _stage_names(out):
        try:
            found += [(where, n) for n in os.listdir(where) if pattern.fullmatch(n)]
        except OSError:
            continue
    removed = []
    for where, name in found:
        path = where / name
        try:
            fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0))
        except OSError:
            continue  # a link, or not a directory: not one of ours
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            continue  # a live port is writing it
        try:
            _remove_tree(path)
            removed.append(name)
        finally:
            os.close(fd)
    return removed


def _remove_tree(path: Path) -> None:
    """Remove a directory vado made and everything in it, at any depth (shutil.rmtree recurses
    per level), without following links; what cannot be removed stays."""
    dirs: list[str] = []
    pending = [str(path)]
    while pending:
        d = pending.pop()
        dirs.append(d)
        try:
            with os.scandir(d) as it:
                for e in it:
                    try:
                        if e.is_dir(follow_symlinks=False):
                            pending.append(e.path)
                        else:
                            os.unlink(e.path)
                    except OSError:
                        pass
        except OSError:
            pass
    for d in reversed(dirs):
        with contextlib.suppress(OSError):
            os.rmdir(d)


def _lock_stage(stage: Path) -> None:
    import fcntl

    try:
        fd = os.open(stage, os.O_RDONLY | os.O_DIRECTORY | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        return
    _STAGE_LOCKS[str(stage)] = fd


def _unlock_stage(stage: Path) -> None:
    fd = _STAGE_LOCKS.pop(str(stage), None)
    if fd is not None:
        os.close(fd)


def _make_stage(out: Path) -> Path:
    """A new, empty hidden directory for the port to be written into: beside ``out``, or
    inside it when ``out`` is an existing empty directory (a mount point cannot be renamed
    over, and its parent may be another file system). It is locked until published or
    discarded (see :func:`remove_stale_stages`)."""
    import secrets

    inside = out.is_dir()
    parent = out if inside else out.parent
    try:
        parent.mkdir(parents=True, exist_ok=True)
        for _ in range(100):
            stage = parent / (f"{_STAGE_MARK}{secrets.token_hex(4)}" if inside
                              else f".{out.name}{_STAGE_MARK}{secrets.token_hex(4)}")
            try:
                stage.mkdir()
                _lock_stage(stage)
                return stage
            except FileExistsError:
                continue
        raise FileExistsError(errno.EEXIST, "no free name for the port's staging directory")
    except OSError as exc:
        if exc.errno in (errno.ENOSPC, errno.EDQUOT, errno.EIO):
            raise WriteFailed(f"cannot create the output {out}", exc.strerror or str(exc),
                              "free some space and port again") from None
        raise UsageError(f"cannot create the output {out}", exc.strerror or str(exc),
                         "choose a new directory in a writable place") from None


def _move_entries(stage: Path, out: Path) -> None:
    """Move the finished port from ``stage`` (inside ``out``) up into ``out``, which must hold
    nothing else, then remove ``stage``."""
    others = [n for n in os.listdir(out) if n != stage.name]
    if others:
        raise OSError(errno.ENOTEMPTY, f"{out} holds {others[0]!r}")
    names = os.listdir(stage)
    shutil.copystat(stage, out)
    for name in names:
        os.rename(stage / name, out / name)
    os.rmdir(stage)


def _discard(stage: Path) -> None:
    """Remove a staging directory this port made (quietly: it is hidden and never used again)."""
    _remove_tree(stage)
    _unlock_stage(stage)


def _publish(stage: Path, out: Path, files: tuple[PortedFile, ...]) -> tuple[PortedFile, ...]:
    """Rename the finished port ``stage`` to ``out``; ``files`` with their paths under ``out``.

    ``rename`` puts the whole tree in place at once, over nothing or over an empty
    directory, and never over a non-empty one: when another port (or anything) filled
    ``out`` meanwhile, this port is removed and the error says so.
    """
    try:
        if stage.parent == out:
            _move_entries(stage, out)
        else:
            os.rename(stage, out)
        _unlock_stage(stage)
    except OSError as exc:
        _discard(stage)
        if exc.errno in (errno.ENOTEMPTY, errno.EEXIST, errno.ENOTDIR):
            raise UsageError(f"output {out} was filled while this port ran", "another port or program wrote there",
                             "port again into a new directory") from None
        raise UsageError(f"cannot move the port into {out}", exc.strerror or str(exc),
                         "check the output directory and its permissions") from None
    prefix, final = str(stage), str(out)
    return tuple(dataclasses.replace(f, out_path=final + f.out_path[len(prefix):]) if f.out_path.startswith(prefix) else f
                 for f in files)


class _SourceReadError(OSError):
    """Reading the file being copied failed (not writing its copy)."""


_SENDFILE = getattr(os, "sendfile", None) if sys.platform.startswith("linux") else None


def _copy_bytes(fd_in: int, fd_out: int, block: int) -> None:
    """Every byte from ``fd_in`` to ``fd_out``, to the end of the file (as shutil.copyfile)."""
    if _SENDFILE is not None:
        offset = 0
        try:
            while sent := _SENDFILE(fd_out, fd_in, offset, block):
                offset += sent
            return
        except OSError:
            if offset:
                raise  # part was sent: a real write error
            # sendfile refused these files (some file systems): plain reads and writes below
    while True:
        try:
            chunk = os.read(fd_in, 1 << 20)
        except OSError as exc:
            raise _SourceReadError(exc.errno, exc.strerror) from exc
        if not chunk:
            return
        view = memoryview(chunk)
        while view:
            view = view[os.write(fd_out, view):]


def _run_jobs(job_list: list[_Job], target: Target, options: PortOptions, in_place: bool, backup: bool, jobs: int,
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


def port_tree(
    root: str | os.PathLike,
    out: str | os.PathLike | None,
    target: Target,
    *,
    in_place: bool = False,
    backup: bool = True,
    options: PortOptions | None = None,
    jobs: int = 1,
    respect_gitignore: bool = True,
    include_vendored: bool = False,
    include_backends: bool = False,
    include_hip_path: bool = False,
    rename_sources: bool = False,
    build_fixes: bool | None = None,
    progress: Callable[[int, int], None] | None = None,
    force: bool = False,
    build="compile-db",
) -> PortResult:
    """Port the tree at ``root`` for ``target`` into ``out`` (or in place).

    Source names are kept by default: a ``.cu`` file stays ``.cu`` (hipcc
    compiles it as HIP with ``-x hip``, which it assumes for ``.cu``; CMake gets
    ``LANGUAGE HIP`` for it), so includes of ``.cu`` files, scripts, editors'
    project files and the history of each file keep working, and the diff is
    the port and nothing else. ``rename_sources`` renames ``.cu`` sources to
    ``.hip`` (headers keep their names) and updates the references in the
    CMake files, Makefiles and quoted ``#include`` lines vado ports; other
    references (shell scripts, setup.py source lists) are not followed.

    ``build_fixes`` applies the unsafe fixes of build-system files (CMake, Makefiles,
    setup.py/pyproject, requirements, conda, Dockerfiles: :data:`BUILD_KINDS`) without
    ``options.unsafe``; by default it is on for a new output tree, where the user
    reviews a diff, and off in place or when a build file already builds for AMD
    (:func:`~vado.port.build.existing_amd_support`, listed in
    :attr:`PortResult.amd_support`). Each unsafe fix applied is described in
    :attr:`PortedFile.unsafe_applied`.

    What is not the project's CUDA code is left byte for byte as it is (copied
    unchanged into ``out``, untouched in place) and listed in the result's skips
    (:mod:`vado.scan.scope`): vendored code (``include_vendored`` ports it), code for
    other backends such as SYCL, MUSA or a CPU instruction set (``include_backends``),
    and the project's own HIP path, its vendor header and, when a build switch turns
    it on, the sources its ROCm build compiles (``include_hip_path``; how to enable
    that build is :attr:`PortResult.own_rocm_build`).

    ``out`` must not exist or be an empty directory, and must not lie inside
    ``root``. With ``in_place`` (``out`` is None) files are rewritten where they
    are, each with a backup unless ``backup`` is False; without backups, only files git
    holds as they are (committed, unchanged) are rewritten unless ``force``. An in-place
    port that was killed is completed by running it again (:mod:`vado.port.inplace`), and
    the temp files and staging directories killed runs left are removed. Raises
    :class:`~vado.errors.UsageError` for a bad ``out`` and
    :class:`~vado.errors.ScanError` for an unreadable root.

    ``build`` says how the tree's build is read (a mode of :data:`vado.build.read.MODES` or a
    :class:`vado.build.BuildOptions`; None reads none; the default, ``compile-db``, executes
    nothing): edits land only in the branches the configuration read compiles, as far as its
    macros decide them (:mod:`vado.build.judged`); :attr:`PortResult.build` says which.
    """
    from vado.port import inplace
    from vado.scan.discover import walk

    started = time.perf_counter()
    options = options or PortOptions()
    root_path = Path(root)
    if options.torch_extension == "auto":
        # A PyTorch extension keeps its CUDA spelling; AMD-only changes go in USE_ROCM branches.
        from vado.port.torch_ext import resolve_mode

        options = dataclasses.replace(options, torch_extension=resolve_mode("auto", root_path))
    if root_path.is_dir() and "source_root" not in options.rule_options:
        # The tree's own headers decide which branches the AMD build compiles (vado.scan.preprocessor).
        options = dataclasses.replace(options, rule_options={**options.rule_options, "source_root": str(root_path)})
    if in_place:
        if out is not None:
            raise UsageError("--in-place and an output directory exclude each other", "", "pass one of them")
        out_path = root_path
    else:
        if out is None:
            raise UsageError("no output directory", "a port goes into a new directory", "pass -o OUT, or --in-place --backup")
        out_path = Path(out)
        remove_stale_stages(out_path)  # what killed ports into OUT left (never a live port's)
        try:
            occupied = out_path.exists() and (not out_path.is_dir() or any(out_path.iterdir()))
        except OSError as exc:
            raise UsageError(f"cannot use the output {out_path}", exc.strerror or str(exc),
                             "choose a new directory in a writable place") from None
        if occupied:
            raise UsageError(
                f"output {out_path} exists and is not empty",
                "vado never writes over an existing tree",
                "choose a new directory, or remove it first",
            )
        try:
            out_path.resolve().relative_to(root_path.resolve())
            if root_path.is_dir():
                raise UsageError(
                    f"output {out_path} is inside the tree being ported",
                    "the port would be scanned as part of the source",
                    "choose a directory outside the source tree",
                )
        except ValueError:
            pass

    plan = walk(root_path, respect_gitignore=respect_gitignore, include_vendored=include_vendored)
    single_file = root_path.is_file()
    judged = None
    if build is not None and not single_file:
        from vado.build.judged import judged_build

        judged = judged_build(root_path, plan, build)
    # Backups of an earlier in-place port (Dockerfile.vado-bak looks like a Dockerfile) are never ported.
    ported = [f for f in plan.files if f.kind in PORTED_KINDS and BACKUP_SUFFIX not in posixpath.basename(f.path)]
    scope_skips, own_build, left_out, own_path = [], "", (), ()
    candidates = ported  # AMD support is read from every build file, those left as they are included
    # An interrupted in-place port: the same files again, its renames done again (or only their
    # references, when the .cu moved already), so that no build file keeps naming a moved file.
    journal = inplace.read_journal(root_path) if in_place and not single_file else None
    pending = journal.renames if journal is not None else {}
    defines: tuple[str, ...] = ()
    if journal is not None:
        ported = [f for f in candidates if f.path in journal.files]
        defines = journal.amd_defines
    elif not single_file:
        ported, scope_skips, own_build, left_out, defines, own_path, extra = _in_scope(
            root_path, plan, ported, target, include_backends, include_hip_path)
        # What the scope knows for the rules: the distributions the tree declares (DEP), what its ROCm-aware
        # setup.py files build on ROCm (BLD005).
        extra = {k: v for k, v in extra.items() if v and k not in options.rule_options}
        if extra:
            options = dataclasses.replace(options, rule_options={**options.rule_options, **extra})
    if options.torch_extension == "on" and "amd_defines" not in options.rule_options:
        # cpp_extension defines USE_ROCM=1 on ROCm: its branches (the project's and the port's own)
        # are what the AMD build compiles, their #else what only CUDA compiles; neither is edited.
        options = dataclasses.replace(options, rule_options={
            **options.rule_options, "amd_defines": tuple(dict.fromkeys((*defines, "USE_ROCM=1")))})
    if defines and not include_hip_path and "amd_defines" not in options.rule_options:
        # The project's own ROCm build is the configuration AMD compiles: the branches its option
        # switches off are not edited (vado.scan.preprocessor).
        options = dataclasses.replace(options, rule_options={**options.rule_options, "amd_defines": defines})
    if in_place and not single_file:
        inplace.clean_stale_temps(root_path, {posixpath.dirname(f.path) for f in ported} | {""})
    if in_place and not backup and not force:
        inplace.check_backup_not_needed(root_path, [str(f.abs_path) for f in ported], [f.path for f in ported])
    renamed_now = {f.path for f in ported if rename_sources and f.kind is FileKind.CUDA_SOURCE
                   and f.path.endswith(".cu") and not single_file}
    renamed = tuple(sorted(renamed_now | set(pending)))
    rename_set = set(renamed)
    if renamed:
        options = dataclasses.replace(options, renamed=renamed)
        existing = {f.path for f in plan.files}
        for rel in sorted(renamed_now - set(pending)):
            if renamed_name(rel) in existing or os.path.lexists(root_path / renamed_name(rel)):
                raise UsageError(f"cannot rename {rel} to {renamed_name(rel)}", "that file exists already",
                                 "port without --rename-sources, or remove the .hip file")
    copied: set[str] = set()
    final_out = out_path
    copy_skips: list[Skip] = []
    if not in_place:
        # The port is written into a new hidden directory (_make_stage) and moved to ``out``
        # when complete (_publish): an interrupted port leaves no truncated files under their
        # final names, and of two ports into one new ``out`` the second fails with a clear error.
        out_path = _make_stage(final_out)
        try:
            if single_file:
                _copy_file(str(root_path), str(out_path / root_path.name))
                copied = {str(f.abs_path) for f in ported}
            else:
                copied = _copy_tree(root_path, out_path, frozenset(os.path.join(str(root_path), f.path) for f in ported),
                                    copy_skips)
        except BaseException as exc:
            _discard(out_path)
            if isinstance(exc, OSError):
                raise UsageError(f"cannot copy {root_path} to {final_out}", exc.strerror or str(exc),
                                 "check free space and permissions") from None
            raise

    # Joined as strings: walk's relative paths are clean POSIX paths, and a Path per file
    # cost more than the rest of this loop.
    root_str, out_str = str(root_path), str(out_path)

    def dst_of(rel: str) -> str:
        if in_place:  # only for renamed files: the others are written where they were read (their abs_path)
            return root_str if single_file else _joined(root_str, rel)
        return _joined(out_str, root_path.name if single_file else rel)

    amd_support: list[str] = []
    amd_kinds: dict[str, FileKind] = {}
    for f in candidates:
        if f.kind in (FileKind.CMAKE, FileKind.MAKEFILE, FileKind.SETUP_PY):
            try:
                sign = existing_amd_support(_read_file(str(f.abs_path))[1].decode("latin-1"))
            except OSError:
                continue  # reported when the port reads it
            if sign:
                amd_support.append(f"{f.path}: {sign}")
                amd_kinds[f.path] = f.kind
    # Each setup.py is a build of its own: where only setup.py files build for AMD, another setup.py of the tree
    # that does not (detectron2 02b5c4e's projects/TensorMask/setup.py, which gates its CUDA source on CUDA_HOME
    # beside the ROCm-aware top one) still gets its build fixes.
    own_setup = (build_fixes is None and not in_place and bool(amd_kinds)
                 and all(k is FileKind.SETUP_PY for k in amd_kinds.values()))
    if build_fixes is None:
        # A project that already builds for AMD (ggml's GGML_HIP, a USE_ROCM branch, a torch
        # extension that tests IS_HIP_EXTENSION) keeps its build files: the port leaves that intact.
        build_fixes = not in_place and not amd_support

    def fixes_build(f) -> bool:
        if own_setup and f.kind is FileKind.SETUP_PY:
            return f.path not in amd_kinds
        return build_fixes and (f.kind in BUILD_KINDS or f.kind is FileKind.PYTHON)
    if build_fixes and any(f.kind in (FileKind.MAKEFILE, FileKind.CMAKE) for f in ported):
        links = _source_links(ported)
        if links:
            options = dataclasses.replace(options, source_links=links)
        cuda_dirs = _cmake_cuda_dirs(ported)
        if cuda_dirs:
            options = dataclasses.replace(options, cmake_cuda_dirs=cuda_dirs)
    def macros_of(rel: str) -> tuple:
        return tuple(judged.rule_options(rel).items()) if judged is not None else ()

    job_list = []
    for f in ported:
        src = str(f.abs_path)
        if f.path in rename_set:
            new_dst = dst_of(renamed_name(f.path))
            job_list.append(_Job(f.path, src, new_dst, f.kind, "" if in_place else dst_of(f.path),
                                 resume=f.path in pending, build=macros_of(f.path)))
        else:
            job_list.append(_Job(f.path, src, src if in_place else dst_of(f.path), f.kind,
                                 copied=os.path.join(root_str, f.path) in copied or src in copied,
                                 build_fixes=fixes_build(f), build=macros_of(f.path)))
    if in_place and not single_file:
        inplace.write_journal(root_path, {rel: renamed_name(rel) for rel in rename_set}, [f.path for f in ported],
                              options.rule_options.get("amd_defines", ()))
    try:
        outcomes = _run_jobs(job_list, target, options, in_place, backup, jobs, progress)
    except Exception:
        if not in_place:
            # A write failed (a full disk): the port is incomplete and never becomes OUT.
            _discard(out_path)
        raise
    files = tuple(sorted((o[0] for o in outcomes), key=lambda f: f.path))
    remaining = tuple(sorted((f for o in outcomes for f in o[1]), key=Finding.sort_key))
    if own_path and target.family == "rocm":
        # Left as is, yet not "nothing remains" where that build runs warp code wrong on 64-lane wavefronts.
        remaining = tuple(sorted((*remaining, *_own_path_wave64(plan, own_path, target, options)), key=Finding.sort_key))
    errors = tuple({"type": "PortError", "what": f"porting {f.path} failed", "why": f.error, "tip": ""} for f in files if f.status == "failed")
    if in_place and not single_file and not errors:
        inplace.remove_journal(root_path)  # complete: a failed file keeps it for the next run
    ported_bytes = sum(f.size for f in ported)
    if not in_place:
        files = _publish(out_path, final_out, files)  # removes the stage itself when it fails
        out_path = final_out
    known = {k.path for k in plan.skips}
    return PortResult(
        root=str(root_path),
        out=str(out_path),
        target=target.name,
        files=files,
        remaining=remaining,
        skips=tuple(sorted([*plan.skips, *scope_skips, *(k for k in copy_skips if k.path not in known)])),
        errors=errors,
        bytes_ported=ported_bytes,
        duration_s=round(time.perf_counter() - started, 3),
        tool_version=__version__,
        amd_support=tuple(amd_support),
        own_rocm_build=own_build,
        left_out=left_out,
        build=judged.summary if judged is not None else None,
    )


def _in_scope(root: Path, plan, ported: list, target: Target, include_backends: bool,
              include_hip_path: bool) -> tuple:
    """The files of ``ported`` that are the project's CUDA code to port, skips for the others
    (other backends, the project's own HIP path), how to enable the project's own ROCm build,
    a line per group of what was left as it is, the macros the project's own AMD build defines, the files of
    its own HIP path its ROCm build compiles, and rule options the scope knows (``own_packages``, ``rocm_setups``)."""
    from vado.scan.scope import Scope, project_scope

    scope = project_scope(root, plan, arches=target.default_arch or ("gfx942",))
    left = scope.left_out(include_backends=include_backends, include_hip_path=include_hip_path)
    skips = []
    backends: dict[str, int] = {}
    hip_path = 0
    for path, fs in left.items():
        if fs.scope is Scope.BACKEND:
            backends[fs.backend] = backends.get(fs.backend, 0) + 1
            skips.append(Skip(path, SkipReason.OTHER_BACKEND, f"{fs.why}; left as is (--include-backends ports it)"))
        else:
            hip_path += 1
            skips.append(Skip(path, SkipReason.OWN_HIP_PATH, f"{fs.why}; left as is (--include-hip-path ports it)"))
    lines = []
    own = scope.own_rocm_build()
    if own and hip_path:
        lines.append(f"has its own ROCm build: {own}; its HIP path ({hip_path} files) left as is; "
                     "pass --include-hip-path to port it anyway")
    elif hip_path and scope.hip is not None and scope.hip.torch_rocm:
        only = sum(1 for fs in left.values() if fs.scope is Scope.HIP_PATH and fs.not_for_amd)
        parts = ([f"its HIP code ({hip_path - only} files)"] if hip_path - only else []) + (
            [f"{only} files its ROCm build does not compile"] if only else [])
        lines.append(f"builds for ROCm already ({scope.hip.how}); {' and '.join(parts)} left as is; "
                     "pass --include-hip-path to port them anyway")
    elif hip_path:
        lines.append(f"the project's own HIP mapping headers ({hip_path} files) left as is; "
                     "pass --include-hip-path to port them anyway")
    if backends:
        listed = ", ".join(f"{name} {n}" for name, n in sorted(backends.items(), key=lambda kv: (-kv[1], kv[0])))
        lines.append(f"other backends left as is: {sum(backends.values())} files ({listed}); "
                     "pass --include-backends to port them")
    mixed = sorted(p for p, fs in scope.files.items() if fs.mixed and p not in left)
    if mixed:
        kinds = ", ".join(sorted({scope.files[p].mixed for p in mixed}))
        lines.append(f"{len(mixed)} ported files also use {kinds} (review those parts): {', '.join(mixed[:5])}"
                     + (" …" if len(mixed) > 5 else ""))
    if scope.vendored:
        shown = ", ".join(s.path for s in scope.vendored[:5]) + (" …" if len(scope.vendored) > 5 else "")
        lines.append(f"vendored code left as is: {len(scope.vendored)} directories or files ({shown}); "
                     "pass --include-vendored to port it")
    defines = scope.hip.defines if scope.hip is not None else ()
    runs_on_amd = tuple(p for p, fs in left.items() if fs.scope is Scope.HIP_PATH and not fs.not_for_amd)
    extra = {"own_packages": scope.packages, "rocm_setups": scope.hip.rocm_setups if scope.hip is not None else ()}
    return [f for f in ported if f.path not in left], skips, own, tuple(lines), tuple(defines), runs_on_amd, extra


def _own_path_wave64(plan, paths: Sequence[str], target: Target, options: PortOptions) -> list[Finding]:
    """What the project's own HIP path (``paths``: the files its ROCm build compiles, which the port leaves as
    they are) runs wrong on 64-lane wavefronts: lane masks cut to 32 bits in the branches that build compiles
    (:func:`vado.audit.scope.own_path_wave64`), for a person, as the audit reports them."""
    from vado.audit.scope import own_path_wave64
    from vado.model.text import decode_source
    from vado.port.file import _check
    from vado.rules.cuda_syntax import CUDA_CXX_KINDS

    wanted = set(paths)
    out: list[Finding] = []
    for f in plan.files:
        if f.path not in wanted or f.kind not in CUDA_CXX_KINDS:
            continue
        try:
            data = Path(f.abs_path).read_bytes()
        except OSError:
            continue  # an unreadable file is the copy's to report
        if b"__activemask" not in data and b"__ballot" not in data:
            continue  # the only calls whose 64-bit masks the rules follow
        for found in _check(f.path, f.kind, decode_source(data), target, options):
            kept = own_path_wave64(found, (target.name,))
            if kept is not None:
                out.append(kept)
    return out
