"""Writing the files of a port: atomic replaces with backups, and new files of a fresh tree.

:func:`write_atomic` writes bytes to disk: temp file in the same directory, fsync,
``os.replace``; it never overwrites an existing file without a backup.
:func:`write_new` creates a file of a fresh output tree (``O_EXCL``). A write that
fails for lack of space or an I/O error raises :class:`WriteFailed`.

Write policy ("never overwrite without a backup")
-------------------------------------------------
- A target that does not exist is written (a new output tree); missing parent
  directories are created.
- An existing target is replaced only when a backup is requested
  (``backup=True``: ``<file>.vado-bak`` beside it; ``backup=<dir>``: ``<dir>/<name>.vado-bak``)
  or when the caller passes ``overwrite=True``, the explicit "no backup" switch
  (for trees under version control). An existing backup is never clobbered: the
  next free name ``<name>.vado-bak.1``, ``.2`` … is used, created exclusively.
- ``expected``: when given, the target's current bytes must equal it, or the
  write is refused (the file changed on disk since it was read). The check and
  the replace are not one atomic step; the window is the few microseconds between
  them, which is what an editor's "file changed on disk" check gives too.
- Symlinks: a target that is a symlink is refused by default, because replacing
  it would turn the link into a regular file, and following it could write
  outside the ported tree (the scanner skips links that leave the root for the
  same reason). ``follow_symlinks=True`` writes to the resolved file and keeps
  the link; the backup then sits beside the resolved file.
- The file's permission bits are kept (owner and group are not: that needs
  privileges). ``os.replace`` gives the path a new inode, so other hard links to
  the old file keep the old content.

Split out of :mod:`vado.port.apply`, which re-exports the public names.
"""

from __future__ import annotations

import errno
import os
import shutil
import stat
from pathlib import Path

from vado.errors import PortError
from vado.safefs import lock_fd, temp_name

__all__ = [
    "BACKUP_SUFFIX",
    "WriteFailed",
    "backup_path",
    "write_atomic",
    "write_new",
]

BACKUP_SUFFIX = ".vado-bak"
#: Numbered backups tried before giving up (a directory with this many backups is a bug elsewhere).
_MAX_BACKUPS = 10_000


def backup_path(target: Path, backup: bool | Path = True) -> Path:
    """The first free backup name for ``target`` (does not create it).

    ``backup=True``: beside the file; a path: in that directory.
    """
    base = (target.parent if backup is True else Path(backup)) / _backup_name(target.name)
    if not os.path.lexists(base):
        return base
    for n in range(1, _MAX_BACKUPS):
        candidate = base.with_name(f"{base.name}.{n}")
        if not os.path.lexists(candidate):
            return candidate
    raise PortError(f"no free backup name for {target}", f"{base} and {_MAX_BACKUPS} numbered ones exist",
                    "remove old .vado-bak files")


#: The longest file name most file systems take (NAME_MAX).
_NAME_MAX = 255


def _backup_name(name: str) -> str:
    """``name.vado-bak``, or for a name too long for that (and a ``.N`` number) the name's
    first bytes, a hash of the whole name, and the suffix: still a backup name (the walk
    leaves it out), and one per file."""
    full = name + BACKUP_SUFFIX
    if len(os.fsencode(full)) + 6 <= _NAME_MAX:
        return full
    import hashlib

    digest = hashlib.sha1(os.fsencode(name)).hexdigest()[:12]
    raw = os.fsencode(name)[: _NAME_MAX - 6 - len(BACKUP_SUFFIX) - 14]
    head = os.fsdecode(raw)  # a character cut in two stays bytes (surrogateescape), as names may be
    return f"{head}~{digest}{BACKUP_SUFFIX}"


def _make_backup(target: Path, data: bytes, backup: bool | Path) -> Path:
    """Write ``data`` to a new backup file, created exclusively so none is ever clobbered."""
    if backup is not True:
        Path(backup).mkdir(parents=True, exist_ok=True)
    # The backup is complete before it has its name: written and fsynced under a temp
    # name, then linked to the first free backup name (link, like O_EXCL, never replaces
    # a file). A port killed meanwhile leaves a temp file, never a short backup.
    directory = target.parent if backup is True else Path(backup)
    tmp, fd = _open_temp(directory, target.name + BACKUP_SUFFIX)
    try:
        with os.fdopen(fd, "wb") as fh:
            os.chmod(tmp, 0o600)
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        shutil.copystat(target, tmp)
        for _ in range(_MAX_BACKUPS):
            candidate = backup_path(target, backup)
            try:
                os.link(tmp, candidate)
            except FileExistsError:
                continue  # another writer took the name between the check and the link
            except OSError as exc:
                if exc.errno not in (errno.EPERM, errno.ENOTSUP, errno.EXDEV, errno.EMLINK):
                    raise
                os.rename(tmp, candidate)  # a file system without hard links: the name was free just now
            return candidate
    finally:
        _remove_quietly(tmp)
    raise PortError(f"no free backup name for {target}", "every candidate name was taken",
                    "remove old .vado-bak files")


def _remove_quietly(path: Path) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def _fsync_dir(directory: Path) -> None:
    # Makes the rename itself durable. Not possible on every platform (Windows
    # cannot open directories), where os.replace's atomicity is all we get.
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _resolve_target(path: Path, follow_symlinks: bool) -> Path:
    if not path.is_symlink():
        return path
    if not follow_symlinks:
        raise PortError(
            f"refusing to write {path}",
            f"it is a symlink to {os.readlink(path)}; replacing it would turn the link into a file",
            "write the file the link points to, or pass follow_symlinks=True to write through the link",
        )
    try:
        return path.resolve(strict=True)
    except (OSError, RuntimeError) as exc:
        raise PortError(f"cannot follow symlink {path}", str(exc), "fix or remove the dangling link") from exc


class WriteFailed(PortError):
    """Writing a file of the port failed (a full disk, a quota, an I/O error): the port is
    incomplete, and a port into a new tree is abandoned rather than published (exit 3)."""


def write_atomic(
    path: str | os.PathLike[str],
    data: bytes,
    *,
    backup: bool | str | os.PathLike[str] = False,
    expected: bytes | None = None,
    overwrite: bool = False,
    follow_symlinks: bool = False,
    mode: int | None = None,
    durable: bool = True,
) -> Path | None:
    """Write ``data`` to ``path`` atomically; return the backup's path, or None.

    ``durable=False`` skips the fsyncs: the replace stays atomic, but after a
    power loss the new content may be missing. Only for files that exist
    nowhere else yet, such as a fresh output tree, where a lost write loses
    nothing of the user's (and the fsyncs are a sixth of a port's time).

    ``mode`` sets the permission bits of a file that does not exist yet (the
    source's mode when writing an output tree); without it the umask decides.
    An existing file always keeps its own mode.

    Readers see either the old file or the new one, never a torn one: the bytes
    go to a temp file in the same directory, are fsynced, and ``os.replace``
    puts them in place. On any failure the temp file (and a backup made by this
    call) is removed and the original is untouched; the failure is a
    :class:`PortError`. See the module docstring for the overwrite, backup,
    ``expected`` and symlink policy.
    """
    if isinstance(backup, (str, os.PathLike)):
        backup = Path(backup)
    target = _resolve_target(Path(path), follow_symlinks)
    try:
        st = os.stat(target)
    except FileNotFoundError:
        st = None
    except OSError as exc:
        raise PortError(f"cannot write {target}", exc.strerror or str(exc), "check the path and its permissions") from exc

    if st is not None and not stat.S_ISREG(st.st_mode):
        raise PortError(f"cannot write {target}", "it exists and is not a regular file",
                        "choose an output path that is a file or does not exist yet")
    current: bytes | None = None
    if st is not None and (expected is not None or backup):
        current = _read(target)
    if expected is not None and current != expected:
        why = "it no longer exists" if st is None else "its bytes differ from the ones read before the edits"
        raise PortError(f"{target} changed on disk", why, "scan the file again and re-run the port")
    if st is not None and not backup and not overwrite:
        raise PortError(
            f"refusing to overwrite {target} without a backup",
            "the file exists",
            "write into a new output directory, request a backup (backup=True / --backup), "
            "or pass overwrite=True when the tree is under version control",
        )

    parent = target.parent
    made_backup: Path | None = None
    tmp: Path | None = None
    try:
        parent.mkdir(parents=True, exist_ok=True)
        if st is not None and backup:
            assert current is not None
            made_backup = _make_backup(target, current, backup)
        tmp, fd = _open_temp(parent, target.name)
        try:
            if st is not None:
                os.fchmod(fd, stat.S_IMODE(st.st_mode))
            elif mode is not None:
                os.fchmod(fd, stat.S_IMODE(mode))
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            if durable:
                os.fsync(fd)
            os.replace(tmp, target)  # while the temp is open, and so locked
            tmp = None
        finally:
            os.close(fd)
    except BaseException as exc:
        if tmp is not None:
            _remove_quietly(tmp)
        if made_backup is not None:
            # The original is intact; a backup of it from a write that never happened is noise.
            _remove_quietly(made_backup)
        if isinstance(exc, OSError):
            raise WriteFailed(f"cannot write {target}", exc.strerror or str(exc),
                              "check free space and permissions; the original file is unchanged") from exc
        raise
    if durable:
        _fsync_dir(parent)
    return made_backup


def write_new(path: str | os.PathLike[str], data: bytes, *, mode: int | None = None) -> None:
    """Create ``path``, which must not exist, holding ``data``: for a file of a fresh output tree.

    There is nothing at ``path`` to keep safe, so no temp file, rename or fsync
    (see :func:`write_atomic`'s ``durable``): ``O_EXCL`` makes the call fail rather
    than touch anything that appeared there. ``mode`` sets the permission bits
    (the umask decides without it). A failed write removes its partial file and
    raises :class:`WriteFailed`.
    """
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(path, flags, 0o666)
    except OSError as exc:
        raise WriteFailed(f"cannot write {path}", exc.strerror or str(exc), "check the output directory") from exc
    try:
        try:
            if mode is not None:
                os.fchmod(fd, stat.S_IMODE(mode))
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
        finally:
            os.close(fd)  # close reports a deferred write error (NFS, some full file systems)
    except BaseException as exc:
        _remove_quietly(Path(path))
        if isinstance(exc, OSError):
            raise WriteFailed(f"cannot write {path}", exc.strerror or str(exc), "check free space and permissions") from exc
        raise


def _open_temp(directory: Path, name: str) -> tuple[Path, int]:
    """A new temp file in ``directory`` for a write to ``name``: ``(path, descriptor)``.

    Its name is short whatever ``name`` is (``safefs.temp_name``: a 250-byte source can be
    ported in place) and it is locked while open, so that the stale-temp clean-up of a later
    run (``safefs.remove_stale_temps``) removes it only once its writer is gone.
    """
    # os.open with 0o666 lets the umask decide a new file's mode, as a plain
    # open() would; tempfile.mkstemp would force 0o600 on new outputs.
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_BINARY", 0)
    while True:
        tmp = directory / temp_name()
        try:
            fd = os.open(tmp, flags, 0o666)
        except FileExistsError:
            continue
        lock_fd(fd)
        return tmp, fd


def _read(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as exc:
        raise PortError(f"cannot read {path}", exc.strerror or str(exc), "check the path and its permissions") from exc
