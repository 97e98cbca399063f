"""Vendored headers the project's own code includes: judged by the audit, never edited by vado.

A tree audit skips vendored directories (``third_party/``, ``3rd_party/``, a git submodule, a copy of a known
library: :mod:`vado.scan.discover`), and a port never edits them. But a vendored header that the project's own
sources include is compiled into the project: marian-dev c9f287d's ``src/tensors/gpu/add_all.cu`` includes
``3rd_party/reduce_all.h``, whose cooperative-groups reduction runs in marian's own kernels. Its findings
belong in the audit, marked as vendored code (:func:`mark_vendored`): "in vendored code included by X: not
edited by vado; fix upstream or patch", and a ROCm verdict that a port's edits would give becomes manual work.

:func:`vendored_includes` finds them: from the project's own C-family files, each ``#include`` (quoted: beside the
including file first; both kinds: through the build's include directories, :mod:`vado.build.include_dirs`; each
resolved inside the root only) that names a file in a vendored directory, then, transitively, what those
vendored headers include. Vendored files no project file includes stay silent.

A vendored *library with its own build* is left out (the CUTLASS pattern: ``third_party/cutlass/`` with its
``CMakeLists.txt``, reached through ``-Ithird_party/cutlass/include``): it is a dependency with its own release
and its own ROCm story (a port uses the library's ROCm counterpart or its HIP build, as the dependency and
library rules say), not code the project patched into its own tree; judging its thousands of headers as the
project's would drown the project's findings. Loose files copied into a vendored directory (a header straight
under ``3rd_party/``, or a directory without a build file of its own) are judged.
"""

from __future__ import annotations

import dataclasses
import os
import posixpath
import re
from collections import deque
from typing import Iterable

from vado.model import Finding, Verdict

__all__ = ["VENDORED_NOTE", "vendored_includes", "mark_vendored"]

_INCLUDE = re.compile(rb'^[ \t]*#[ \t]*include[ \t]*(?:"([^"\r\n]+)"|<([^>\r\n]+)>)', re.MULTILINE)
#: Files a directory's own build is read from: a vendored library that has one is a separate library.
_BUILD_FILES = ("CMakeLists.txt", "Makefile", "makefile", "GNUmakefile", "setup.py", "meson.build", "BUILD",
                "BUILD.bazel", "configure", "SConstruct", "premake5.lua")
_MAX_FILES = 2000
_MAX_BYTES = 4 << 20
VENDORED_NOTE = "in vendored code included by {by}: not edited by vado; fix upstream or patch"


def _vendored_roots(skips) -> list[str]:
    """The directories the walk skipped as vendored (not as build output)."""
    from vado.model import SkipReason

    return sorted(s.path for s in skips
                  if s.reason is SkipReason.VENDORED and not s.detail.startswith("build output"))


def _vendored_root_of(path: str, roots: list[str]) -> str | None:
    for r in roots:
        if path.startswith(r + "/"):
            return r
    return None


def _separate_library(root: str, vroot: str, path: str) -> bool:
    """Whether ``path`` (in the vendored directory ``vroot``) belongs to a library with its own build: the vendored
    directory itself (a submodule, a library copy) or its first subdirectory on the way to ``path`` has a build
    file. A file straight under a vendored directory named only by its name (``3rd_party/reduce_all.h``) is loose."""
    from vado.scan.discover import VENDORED_DIRS

    rest = path[len(vroot) + 1:].split("/")
    candidates = [] if posixpath.basename(vroot).lower() in VENDORED_DIRS else [vroot]
    if len(rest) > 1:
        candidates.append(f"{vroot}/{rest[0]}")
    for d in candidates:
        full = os.path.join(root, d)
        if any(os.path.isfile(os.path.join(full, b)) for b in _BUILD_FILES):
            return True
    return False


def _read(root: str, rel: str) -> bytes:
    from vado.scan.reading import read_regular

    full = os.path.join(root, rel)
    try:
        if os.path.islink(full):
            return b""
        data = read_regular(full, _MAX_BYTES + 1)
    except OSError:
        return b""
    return b"" if len(data) > _MAX_BYTES else data


def _exists(root: str, rel: str) -> bool:
    full = os.path.join(root, rel)
    return os.path.isfile(full) and os.path.realpath(full).startswith(root + os.sep)


def vendored_includes(root: str | os.PathLike, project_files: Iterable[str], skips) -> dict[str, str]:
    """Vendored C-family files that the project's own ``project_files`` (paths relative to ``root``) include,
    directly or through other vendored headers: path → the project file whose include reached it first
    (``src/tensors/gpu/add_all.cu``). ``skips``: the walk's skips, which name the vendored directories."""
    from vado.build.include_dirs import locate, project_include_dirs
    from vado.scan.classify import classify

    root_s = os.path.realpath(str(root))
    vroots = _vendored_roots(skips)
    if not vroots or not os.path.isdir(root_s):
        return {}
    dirs = project_include_dirs(root_s)
    found: dict[str, str] = {}
    separate: dict[str, bool] = {}
    queue = deque((p, p) for p in project_files if classify(p).is_c_family)  # breadth first, popped from the left
    seen_files: set[str] = set()
    while queue and len(found) < _MAX_FILES:
        path, by = queue.popleft()
        if path in seen_files:
            continue
        seen_files.add(path)
        data = _read(root_s, path)
        if b"include" not in data:
            continue
        base = posixpath.dirname(path)
        search = dirs.for_file(by)
        for m in _INCLUDE.finditer(data):
            quoted, angled = m.group(1), m.group(2)
            name = (quoted or angled).decode("latin-1").strip()
            target = locate(root_s, base if quoted else None, name, search)
            if target is None or target in found:
                continue
            vroot = _vendored_root_of(target, vroots)
            if vroot is None or not classify(target).is_c_family or not _exists(root_s, target):
                continue
            key = vroot + "/" + target[len(vroot) + 1:].split("/")[0]
            if key not in separate:
                separate[key] = _separate_library(root_s, vroot, target)
            if not separate[key]:
                found[target] = by
                queue.append((target, by))
    return found


def mark_vendored(findings: list[Finding], by: str) -> list[Finding]:
    """The findings of a vendored header the project includes (``by``): each says so, carries no fix (vado never
    edits vendored code), and a verdict a port's edits would give (``moves-with-automatic-edits``) is manual work."""
    note = VENDORED_NOTE.format(by=by)
    out = []
    for f in findings:
        verdicts = {t: (Verdict.MANUAL if v is Verdict.AUTOMATIC else v) for t, v in f.verdicts.items()}
        out.append(dataclasses.replace(f, message=f"{f.message}; {note}", fix=None, verdicts=verdicts,
                                       data={**(f.data or {}), "vendored_included_by": by}))
    return out
