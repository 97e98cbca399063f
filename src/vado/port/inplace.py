"""What makes an in-place port safe to interrupt and to run again.

An in-place port rewrites the user's tree file by file, each write atomic. What a
single write cannot make whole is ``--rename-sources``: ``k.cu`` becomes ``k.hip``
(its backup or nothing), and the build files and ``#include`` lines that name
``k.cu`` are rewritten to name ``k.hip``. A run killed between those steps leaves
``k.cu`` gone and a Makefile naming it, and a plain re-run no longer knows ``k.cu``
was renamed. And a half-ported tree (a CMake file already
saying ``LANGUAGES HIP``) looks like a project with its own ROCm build, which a
fresh port leaves as it is. So before its first write an in-place port records its
renames and the files it ports in a journal (``.vado-port-journal.json`` at the
root, written atomically and fsynced); the next in-place run reads it, ports those
same files, treats the renamed ones as renamed whether or not ``k.cu`` is still
there (replacing a ``k.hip`` the killed run wrote), and removes the journal only
when every file was ported. Every prefix of a run is thus repaired by running the
port again.

Killed runs also leave vado's own temp files (``safefs.temp_name``) beside the
files they were writing: :func:`clean_stale_temps` removes those whose writer is
gone, never a user's file.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

from vado.errors import UsageError
from vado.safefs import UnsafePathError, read_under, remove_stale_temps, write_under

JOURNAL = ".vado-port-journal.json"
_VERSION = 1


@dataclass(frozen=True)
class Journal:
    """What an interrupted in-place port was doing: its renames (``{old: new}``) and the files it
    ported (paths relative to the root). A re-run ports the same files: the half-ported tree
    may look like a project with its own ROCm build, which a fresh port would leave as it is."""

    renames: dict[str, str] = field(default_factory=dict)
    files: frozenset[str] = frozenset()
    #: The macros of the AMD configuration the interrupted port judged (the project's own ROCm build's,
    #: :func:`vado.scan.scope.amd_defines`): the half-ported tree may no longer show them.
    amd_defines: tuple[str, ...] = ()


def read_journal(root: Path) -> Journal | None:
    """The journal of an interrupted in-place port of ``root``, or None."""
    try:
        raw = read_under(root, JOURNAL, limit=64 << 20)
    except UnsafePathError:
        raise
    except OSError as exc:
        raise UsageError(f"cannot read {root / JOURNAL}", exc.strerror or str(exc),
                         "check the file; it records an interrupted in-place port") from None
    if raw is None:
        return None
    try:
        doc = json.loads(raw)
        ok = isinstance(doc, dict) and doc.get("vado_port_journal") == _VERSION
        renames = {str(a): str(b) for a, b in doc["renames"]} if ok and isinstance(doc["renames"], list) else None
        files = frozenset(str(f) for f in doc["files"]) if ok and isinstance(doc["files"], list) else None
        defines = doc.get("amd_defines", []) if ok else None
        defines = tuple(str(d) for d in defines) if isinstance(defines, list) else None
    except (ValueError, TypeError, KeyError):
        renames = files = defines = None
    if renames is None or files is None or defines is None or any(_bad(p) for p in (*renames, *renames.values(), *files)):
        raise UsageError(f"{root / JOURNAL} is not an in-place port's journal", "",
                         "remove it if no vado port of this tree was interrupted")
    return Journal(renames, files, defines)


def _bad(rel: str) -> bool:
    parts = rel.split("/")
    return not rel or rel.startswith("/") or ".." in parts or "" in parts


def write_journal(root: Path, renames: dict[str, str], files: Iterable[str],
                  amd_defines: Iterable[str] = ()) -> None:
    """Record ``renames`` (``{old: new}``), the ``files`` to port and the ``amd_defines`` they are
    judged with before the port's first write (atomic, fsynced)."""
    doc = {"vado_port_journal": _VERSION, "renames": sorted([a, b] for a, b in renames.items()),
           "files": sorted(set(files)), "amd_defines": list(amd_defines)}
    try:
        write_under(root, JOURNAL, (json.dumps(doc, indent=1) + "\n").encode("utf-8"), make_dirs=False)
    except UnsafePathError:
        raise
    except OSError as exc:
        raise UsageError(f"cannot write {root / JOURNAL}", exc.strerror or str(exc),
                         "check free space and permissions; nothing was changed") from None


def remove_journal(root: Path) -> None:
    """The port is complete: forget its renames."""
    try:
        os.unlink(root / JOURNAL)
    except FileNotFoundError:
        return
    try:
        fd = os.open(root, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
    except OSError:
        pass


def clean_stale_temps(root: Path, directories: Iterable[str]) -> list[str]:
    """Remove vado's temp files that killed runs left in ``directories`` (relative to ``root``);
    the paths removed, relative to ``root``."""
    removed = []
    for rel in sorted(set(directories)):
        where = root / rel if rel else root
        removed += [f"{rel}/{n}" if rel else n for n in remove_stale_temps(where)]
    return removed


def check_backup_not_needed(root: Path, files: list[str], shown: Iterable[str]) -> None:
    """Refuse to rewrite ``files`` (absolute paths) without backups unless git holds each as it
    is; ``shown`` are the same files as the user names them. Raises :class:`UsageError`."""
    from vado.port.vcs import unsafe_without_backup

    unsafe, why = unsafe_without_backup(root, files)
    if not unsafe:
        return
    names = dict(zip(files, shown))
    first = names.get(unsafe[0], unsafe[0])
    more = f" and {len(unsafe) - 1} more" if len(unsafe) > 1 else ""
    raise UsageError(f"refusing to rewrite {first}{more} in place without a backup", why,
                     "commit them first, keep backups (drop --no-backup), or pass --force")
