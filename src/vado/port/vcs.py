"""Whether files are safe to rewrite without a backup: committed in git, with no local change.

``vado port --in-place --no-backup`` keeps no ``.vado-bak`` copy; what makes that safe is
version control holding each file as it is. :func:`unsafe_without_backup` asks git (through
vado's sandboxed runner) which of the files are untracked, ignored or changed; without git,
or outside a work tree, nothing can be checked and every file counts as unsafe.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Iterable

#: git must not run anything the work tree configures (a file-system monitor is a command).
_GIT = ("git", "-c", "core.fsmonitor=false", "-c", "core.untrackedCache=false")


def _git(args: list[str], cwd: str) -> subprocess.CompletedProcess:
    from vado.verify.sandbox import run_capped

    env = {**os.environ, "GIT_OPTIONAL_LOCKS": "0", "LC_ALL": "C"}  # a status never writes the index
    return run_capped([*_GIT, *args], cwd=cwd, env=env, timeout=120)


def unsafe_without_backup(root: str | os.PathLike, files: Iterable[str]) -> tuple[list[str], str]:
    """``(files, why)``: those of ``files`` (absolute paths of regular files under ``root``)
    that git does not hold as they are, and why; ``([], "")`` when git holds every one.

    Every file is unsafe when git is missing, ``root`` is not in a work tree, or git's
    answer cannot be read whole (``why`` says which).
    """
    files = sorted(files)
    if not files:
        return [], ""
    base = str(root) if Path(root).is_dir() else str(Path(root).parent or ".")
    try:
        top = _git(["rev-parse", "--show-toplevel"], base)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return files, f"git cannot be run ({exc.strerror if isinstance(exc, OSError) else 'it timed out'})"
    if top.returncode != 0 or not top.stdout.strip():
        return files, "the tree is not in a git work tree"
    toplevel = os.path.realpath(top.stdout.strip())
    try:
        status = _git(["status", "--porcelain=v1", "-z", "--untracked-files=all", "--ignored=matching", "--", "."], base)
    except (OSError, subprocess.TimeoutExpired):
        return files, "git status did not answer"
    if status.returncode != 0 or status.stdout.startswith("[... output cut"):
        return files, "git status could not be read whole"
    listed: set[str] = set()
    entries = status.stdout.split("\0")
    i = 0
    while i < len(entries):
        entry = entries[i]
        i += 1
        if len(entry) < 4:
            continue
        code, path = entry[:2], entry[3:]
        listed.add(path)
        if "R" in code or "C" in code:
            i += 1  # a rename or copy names its source next: that path is gone from the work tree
    unsafe = []
    for f in files:
        rel = os.path.relpath(os.path.realpath(f), toplevel).replace(os.sep, "/")
        # Listed itself, or inside a listed (untracked or ignored) directory.
        if rel.startswith("../") or rel in listed or any(rel.startswith(p) for p in listed if p.endswith("/")):
            unsafe.append(f)
    return unsafe, "git reports them untracked, ignored or changed" if unsafe else ""
