"""The hidden staging directory a tree port is written into (:func:`make_stage`, locked while the port runs) and
its publication as ``out`` at once (:func:`publish`); the stages killed ports left (:func:`remove_stale_stages`).
``out`` never holds a partial port."""

from __future__ import annotations

import contextlib
import dataclasses
import errno
import os
import re
import shutil
from pathlib import Path

from vado.errors import UsageError
from vado.model.port import PortedFile
from vado.port.apply import WriteFailed


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


def make_stage(out: Path) -> Path:
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


def discard_stage(stage: Path) -> None:
    """Remove a staging directory this port made (quietly: it is hidden and never used again)."""
    _remove_tree(stage)
    _unlock_stage(stage)


def publish(stage: Path, out: Path, files: tuple[PortedFile, ...]) -> tuple[PortedFile, ...]:
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
        discard_stage(stage)
        if exc.errno in (errno.ENOTEMPTY, errno.EEXIST, errno.ENOTDIR):
            raise UsageError(f"output {out} was filled while this port ran", "another port or program wrote there",
                             "port again into a new directory") from None
        raise UsageError(f"cannot move the port into {out}", exc.strerror or str(exc),
                         "check the output directory and its permissions") from None
    prefix, final = str(stage), str(out)
    return tuple(dataclasses.replace(f, out_path=final + f.out_path[len(prefix):]) if f.out_path.startswith(prefix) else f
                 for f in files)
