"""The file work of a tree port into a new directory: reading a source whole (:func:`read_file`), copying a file
as ``shutil.copy2`` does with fewer system calls (:func:`copy_file`) and the tree without ``.git`` and without
the files the port writes itself (:func:`copy_tree`). What cannot be read is a typed skip; what cannot be
written is a :class:`~vado.port.apply.WriteFailed`."""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import stat
import sys
from pathlib import Path

from vado.model import Skip, SkipReason
from vado.port.apply import WriteFailed


def read_file(path: str) -> tuple[os.stat_result, bytes]:
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


def copy_times_and_xattrs(src: str, dst: str, st: os.stat_result) -> None:
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


def copy_tree(root: Path, out: Path, ported: frozenset[str] = frozenset(), skips: list[Skip] | None = None) -> set[str]:
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
                copy_file(src, dst, problems=problems)
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


def copy_file(src: str, dst: str, *, follow_symlinks: bool = True, problems: list[tuple[str, str]] | None = None) -> str:
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
        copy_times_and_xattrs(src, dst, st)
        return dst
    finally:
        os.close(fd_in)


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
