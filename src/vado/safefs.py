"""Writing into a user's tree without following a link the tree controls.

A cloned repository decides what its paths are: ``.claude`` may be a symlink to
``~/.config``, ``.mcp.json`` one to another project's file, ``SKILL.md`` one to
``~/.bashrc``. vado writes into such trees (``vado skill install``, the agent's
transcript, an in-place port), and must never write, truncate or read *through*
a link it did not create.

Every writer of vado into a user's tree goes through this module. A path is
given as a trusted ``root`` (the directory the user named; it may itself be a
link: the user chose it) and a relative path below it. Each component below the
root is opened relative to its parent's descriptor (``openat``) with
``O_NOFOLLOW``: a symlink anywhere below the root, or a component that is not a
directory, raises :class:`UnsafePathError` before anything is written. Missing
directories are created (``mkdirat``) when asked. Files are written to a
temporary name in the same directory and renamed into place (``renameat``), so a
reader never sees a torn file; a file that did not exist is created with
``O_EXCL``.
"""

from __future__ import annotations

import errno
import os
import secrets
import stat
from pathlib import PurePosixPath

from vado.errors import UsageError

_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
#: Temp files of :func:`write_under` end with this (short, whatever the target's name: a
#: 250-byte name must still be writable) and are recognised by :func:`is_own_temp`.
TEMP_SUFFIX = ".vado-tmp"
_TEMP_PREFIX = ".vado."


class UnsafePathError(UsageError):
    """A path below the root is a symlink, or not what it must be (a directory, a regular file)."""


def _parts(rel: str | os.PathLike) -> list[str]:
    path = PurePosixPath(os.fspath(rel))
    if path.is_absolute():
        raise UnsafePathError(f"{path} is not relative to its root", "", "pass a path inside the root")
    parts = [p for p in path.parts if p not in ("", ".")]
    if not parts or ".." in parts:
        raise UnsafePathError(f"{path} does not name a file inside its root", "", "pass a path inside the root")
    return parts


def _refuse(root: str | os.PathLike, rel: str, why: str) -> UnsafePathError:
    return UnsafePathError(f"refusing to use {os.path.join(os.fspath(root), rel)}", why,
                           "remove the link (vado writes only into the tree itself, never through a link)")


def open_dir(root: str | os.PathLike, rel: str | os.PathLike = ".", *, create: bool = False) -> int:
    """A descriptor of the directory ``root/rel``, reached without following a symlink below
    ``root``; missing directories are made when ``create``. The caller closes it."""
    fd = os.open(root, os.O_RDONLY | _DIRECTORY | _CLOEXEC)
    parts = [p for p in PurePosixPath(os.fspath(rel)).parts if p not in ("", ".")]
    if ".." in parts or PurePosixPath(os.fspath(rel)).is_absolute():
        os.close(fd)
        raise UnsafePathError(f"{rel} is not a directory inside {root}", "", "pass a path inside the root")
    done: list[str] = []
    try:
        for part in parts:
            done.append(part)
            try:
                child = os.open(part, os.O_RDONLY | _DIRECTORY | _NOFOLLOW | _CLOEXEC, dir_fd=fd)
            except FileNotFoundError:
                if not create:
                    raise
                try:
                    os.mkdir(part, 0o777, dir_fd=fd)
                except FileExistsError:
                    pass  # made meanwhile: opened (and checked) below
                child = os.open(part, os.O_RDONLY | _DIRECTORY | _NOFOLLOW | _CLOEXEC, dir_fd=fd)
            except OSError as exc:
                if exc.errno in (errno.ELOOP, errno.ENOTDIR):
                    raise _refuse(root, "/".join(done), _what_is(fd, part)) from None
                raise
            os.close(fd)
            fd = child
        return fd
    except BaseException:
        os.close(fd)
        raise


def _what_is(dir_fd: int, name: str) -> str:
    try:
        st = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except OSError:
        return "it is not a directory"
    if stat.S_ISLNK(st.st_mode):
        try:
            return f"it is a symlink (to {os.readlink(name, dir_fd=dir_fd)})"
        except OSError:
            return "it is a symlink"
    return "it is not a directory" if not stat.S_ISREG(st.st_mode) else "it is a file, not a directory"


def lstat_under(root: str | os.PathLike, rel: str | os.PathLike) -> os.stat_result | None:
    """The ``lstat`` of ``root/rel`` (None when it does not exist), reached without following a
    link below ``root``; raises :class:`UnsafePathError` for a link on the way."""
    parts = _parts(rel)
    try:
        fd = open_dir(root, "/".join(parts[:-1]))
    except FileNotFoundError:
        return None
    try:
        return os.stat(parts[-1], dir_fd=fd, follow_symlinks=False)
    except FileNotFoundError:
        return None
    finally:
        os.close(fd)


def read_under(root: str | os.PathLike, rel: str | os.PathLike, limit: int = 1 << 24) -> bytes | None:
    """The bytes of the regular file ``root/rel`` (None when it does not exist).

    No link below ``root`` is followed (the file itself included), a FIFO or device is
    never opened for long (``O_NONBLOCK``) and refused, and a file longer than ``limit``
    bytes is refused: all as :class:`UnsafePathError`.
    """
    parts = _parts(rel)
    try:
        dfd = open_dir(root, "/".join(parts[:-1]))
    except FileNotFoundError:
        return None
    try:
        try:
            fd = os.open(parts[-1], os.O_RDONLY | os.O_NONBLOCK | _NOFOLLOW | _CLOEXEC, dir_fd=dfd)
        except FileNotFoundError:
            return None
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                raise _refuse(root, "/".join(parts), _what_is(dfd, parts[-1])) from None
            raise
    finally:
        os.close(dfd)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise _refuse(root, "/".join(parts), "it is not a regular file")
        chunks, got = [], 0
        while chunk := os.read(fd, min(1 << 20, limit + 1 - got)):
            chunks.append(chunk)
            got += len(chunk)
            if got > limit:
                raise UnsafePathError(f"{os.path.join(os.fspath(root), *parts)} is too large",
                                      f"more than {limit} bytes", "check the file")
        return b"".join(chunks)
    finally:
        os.close(fd)


def temp_name() -> str:
    """A fresh temp-file name of this module's form (28 bytes, whatever the target's name)."""
    return f"{_TEMP_PREFIX}{secrets.token_hex(6)}{TEMP_SUFFIX}"


def is_own_temp(name: str) -> bool:
    """Whether ``name`` has the form of a temp file vado writes (this module's, or the
    ``.NAME.HEX.vado-tmp`` form of vado before it): a candidate for :func:`remove_stale_temps`."""
    if not name.endswith(TEMP_SUFFIX) or not name.startswith("."):
        return False
    stem = name[: -len(TEMP_SUFFIX)]
    head, dot, tail = stem.rpartition(".")
    if not dot or not head:
        return False
    if head == _TEMP_PREFIX[:-1]:
        return len(tail) == 12 and all(c in "0123456789abcdef" for c in tail)
    return len(tail) == 8 and all(c in "0123456789abcdef" for c in tail) and len(head) > 1


def lock_fd(fd: int) -> None:
    """Mark an open temp file as in use (an exclusive ``flock``): :func:`remove_stale_temps`
    leaves it alone while the writer lives; the kernel drops the lock when it dies."""
    try:
        import fcntl

        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except (ImportError, OSError):
        pass  # no flock here: the temp file is then only removed by its writer


def remove_stale_temps(directory: str | os.PathLike) -> list[str]:
    """Remove the temp files an interrupted vado left in ``directory``; the names removed.

    Only regular files whose name :func:`is_own_temp` recognises, and only when no live
    process holds their lock (a concurrent vado writing one keeps it). Never a user's file,
    never through a link; errors leave a file where it is.
    """
    removed: list[str] = []
    try:
        dfd = os.open(directory, os.O_RDONLY | _DIRECTORY | _CLOEXEC)
    except OSError:
        return removed
    try:
        try:
            names = [n for n in os.listdir(dfd) if is_own_temp(n)]
        except OSError:
            return removed
        for name in names:
            try:
                fd = os.open(name, os.O_RDONLY | os.O_NONBLOCK | _NOFOLLOW | _CLOEXEC, dir_fd=dfd)
            except OSError:
                continue  # a link or gone: not ours to touch
            try:
                if not stat.S_ISREG(os.fstat(fd).st_mode):
                    continue
                try:
                    import fcntl

                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except ImportError:
                    continue
                except OSError:
                    continue  # a live writer holds it
                os.unlink(name, dir_fd=dfd)
                removed.append(name)
            except OSError:
                continue
            finally:
                os.close(fd)
    finally:
        os.close(dfd)
    return removed


def write_under(
    root: str | os.PathLike,
    rel: str | os.PathLike,
    data: bytes,
    *,
    replace: bool = True,
    mode: int | None = None,
    make_dirs: bool = True,
    durable: bool = True,
) -> str:
    """Write ``data`` to ``root/rel`` without following a link below ``root``; what happened
    (``"written"`` for a new file, ``"replaced"``).

    The bytes go to a temp file in the target's directory (``O_EXCL | O_NOFOLLOW``), are
    fsynced when ``durable``, and are renamed over the target (``renameat``, which replaces a
    name and never writes through one). An existing target that is a symlink, a directory or
    anything but a regular file is refused, as is an existing one without ``replace``. An
    existing file keeps its permission bits; a new one gets ``mode`` (the umask decides
    without it). Raises :class:`UnsafePathError` for a link or a wrong kind of file, and
    ``OSError`` for a failed write (the temp file is removed; the target is unchanged).
    """
    parts = _parts(rel)
    dfd = open_dir(root, "/".join(parts[:-1]), create=make_dirs)
    name = parts[-1]
    tmp = None
    try:
        try:
            st = os.stat(name, dir_fd=dfd, follow_symlinks=False)
        except FileNotFoundError:
            st = None
        if st is not None:
            if not stat.S_ISREG(st.st_mode):
                raise _refuse(root, "/".join(parts), _what_is(dfd, name) if stat.S_ISLNK(st.st_mode)
                              else "it exists and is not a regular file")
            if not replace:
                raise UnsafePathError(f"{os.path.join(os.fspath(root), *parts)} exists", "", "remove it first")
        while True:
            tmp = temp_name()
            try:
                fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC, 0o666, dir_fd=dfd)
                break
            except FileExistsError:
                continue
        try:
            lock_fd(fd)
            os.fchmod(fd, stat.S_IMODE(st.st_mode) if st is not None else
                      stat.S_IMODE(mode) if mode is not None else _umask_mode())
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            if durable:
                os.fsync(fd)
            if st is None:
                # A new file: link(2) fails when the name appeared meanwhile (as O_EXCL would).
                try:
                    os.link(tmp, name, src_dir_fd=dfd, dst_dir_fd=dfd, follow_symlinks=False)
                    os.unlink(tmp, dir_fd=dfd)
                except FileExistsError:
                    raise _refuse(root, "/".join(parts), "it appeared while vado wrote it") from None
                except OSError as exc:
                    if exc.errno not in (errno.EPERM, errno.ENOTSUP, errno.EXDEV, errno.EMLINK, errno.ENOSYS):
                        raise
                    os.rename(tmp, name, src_dir_fd=dfd, dst_dir_fd=dfd)  # no hard links here
            else:
                os.rename(tmp, name, src_dir_fd=dfd, dst_dir_fd=dfd)
            tmp = None
        finally:
            os.close(fd)
        if durable:
            try:
                os.fsync(dfd)
            except OSError:
                pass
        return "written" if st is None else "replaced"
    finally:
        if tmp is not None:
            try:
                os.unlink(tmp, dir_fd=dfd)
            except OSError:
                pass
        os.close(dfd)


def _umask_mode() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return 0o666 & ~mask


def open_for_writing(root: str | os.PathLike, rel: str | os.PathLike, *, make_dirs: bool = True) -> int:
    """A descriptor open for writing on ``root/rel``, truncated, created when missing: for a
    file written as a run goes (a transcript). No link below ``root`` is followed (the file
    itself included), and an existing FIFO, device or directory is refused before anything
    is truncated. Raises :class:`UnsafePathError` for those."""
    parts = _parts(rel)
    dfd = open_dir(root, "/".join(parts[:-1]), create=make_dirs)
    try:
        try:
            fd = os.open(parts[-1], os.O_WRONLY | os.O_CREAT | os.O_NONBLOCK | _NOFOLLOW | _CLOEXEC, 0o666, dir_fd=dfd)
        except OSError as exc:
            if exc.errno in (errno.ELOOP, errno.ENXIO, errno.EISDIR):
                raise _refuse(root, "/".join(parts), _what_is(dfd, parts[-1]) if exc.errno == errno.ELOOP
                              else "it is not a regular file") from None
            raise
    finally:
        os.close(dfd)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise _refuse(root, "/".join(parts), "it is not a regular file")
        os.ftruncate(fd, 0)
        os.set_blocking(fd, True)
        return fd
    except BaseException:
        os.close(fd)
        raise


def split_user_path(path: str | os.PathLike) -> tuple[str, str]:
    """``(root, rel)`` for a path the user gave: a relative path is below the current
    directory (each of its components checked), an absolute one below its own parent
    (the user named those directories)."""
    text = os.fspath(path)
    if os.path.isabs(text):
        parent, name = os.path.split(os.path.normpath(text))
        return parent or "/", name
    norm = os.path.normpath(text)
    if norm.startswith(".."):
        parent, name = os.path.split(os.path.abspath(norm))
        return parent, name
    return ".", norm


def copy_ignore(directory: str, names: list[str]) -> set[str]:
    """``shutil.copytree``'s ``ignore`` for a copy of a user's tree: ``.git`` and anything but directories,
    regular files and links (a FIFO would block the copy; a socket or device has nothing to copy)."""
    out = {".git"} & set(names)
    for n in names:
        try:
            mode = os.lstat(os.path.join(directory, n)).st_mode
        except OSError:
            out.add(n)
            continue
        if not (stat.S_ISDIR(mode) or stat.S_ISREG(mode) or stat.S_ISLNK(mode)):
            out.add(n)
    return out
