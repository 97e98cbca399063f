"""The include directories a project's build gives its compiler, for resolving ``#include`` names.

A quoted include is looked for beside the including file first; a project that keeps its headers elsewhere
reaches them through the build's ``-I`` directories (cuSZ d3cde38: ``psz/include/detail/port.hh`` includes
``"macro/c_cu2hip_1_fix_primitives.h"``, found only through ``portable/include``). :func:`project_include_dirs`
reads those directories without executing anything, from what the tree holds:

- a compile database, a CMake File API reply or a literal ``setup.py`` (``include_dirs``): each unit's include
  directories, per source;
- the tree's Makefiles read as make would read them (:mod:`vado.build.make_static`, nothing run), where Make is
  the project's build (no root ``CMakeLists.txt``/``meson.build``): the same, per source;
- its CMake files read as text: ``include_directories``/``target_include_directories`` arguments, with
  ``${CMAKE_CURRENT_SOURCE_DIR}``, ``${CMAKE_CURRENT_LIST_DIR}``, ``${PROJECT_SOURCE_DIR}``,
  ``${CMAKE_SOURCE_DIR}`` and ``$<BUILD_INTERFACE:…>`` resolved (a ``.cmake`` file's current source directory is
  its includer's, unknown here: both its own directory and its parent's are tried).

Only directories inside the root that exist are kept (a path or link leading out of it is dropped: vado never
reads outside the root); build files under a vendored directory (``third_party/`` …) are the vendored library's
own build and are not read for the union. :meth:`IncludeDirs.for_file` gives a unit's own directories first
(where the build names the file as a unit), then the union of every directory the project's build names.
"""

from __future__ import annotations

import functools
import os
import posixpath
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping

from vado.scan.run_caches import per_run

__all__ = ["IncludeDirs", "project_include_dirs", "cmake_include_dirs"]

#: The most build files read as text, and the largest one.
_MAX_BUILD_FILES = 2000
_MAX_BUILD_FILE = 4 << 20
_MAX_WALK = 200_000
_SOURCE_DIR_VARS = ("CMAKE_CURRENT_SOURCE_DIR", "CMAKE_CURRENT_LIST_DIR", "PROJECT_SOURCE_DIR", "CMAKE_SOURCE_DIR")
_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
_BUILD_INTERFACE = re.compile(r"^\$<BUILD_INTERFACE:(.*)>$")
_KEYWORDS = frozenset({"PUBLIC", "PRIVATE", "INTERFACE", "SYSTEM", "BEFORE", "AFTER"})


@dataclass(frozen=True)
class IncludeDirs:
    """Include directories relative to the root (``/``-separated; ``""`` is the root itself).

    ``per_file``: a unit's source → its directories in the build's order; ``union``: every directory the
    project's build names, in the order first met."""

    union: tuple[str, ...] = ()
    per_file: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    def for_file(self, path: str) -> tuple[str, ...]:
        """The directories searched for an include of the file at ``path`` (relative to the root): its unit's
        own first, then the rest of the union."""
        own = self.per_file.get(path, ())
        return own + tuple(d for d in self.union if d not in own) if own else self.union

    def __bool__(self) -> bool:
        return bool(self.union)


def _inside(root: str, path: str) -> str | None:
    """``path`` (absolute) relative to ``root`` when it is an existing directory inside it (links resolved)."""
    real = os.path.realpath(path)
    if real != root and not real.startswith(root + os.sep):
        return None
    if not os.path.isdir(real):
        return None
    rel = os.path.relpath(real, root)
    return "" if rel == "." else rel.replace(os.sep, "/")


def _unit_dirs(config, root: str, per_file: dict[str, tuple[str, ...]], union: dict[str, None]) -> None:
    for u in config.units:
        src = os.path.relpath(os.path.realpath(u.source), root)
        if src.startswith("..") or os.path.isabs(src):
            continue
        dirs = []
        for inc in u.includes:
            rel = _inside(root, inc.path if os.path.isabs(inc.path) else os.path.join(u.directory, inc.path))
            if rel is not None and rel not in dirs:
                dirs.append(rel)
        src = src.replace(os.sep, "/")
        per_file[src] = tuple(dict.fromkeys(per_file.get(src, ()) + tuple(dirs)))
        union.update(dict.fromkeys(dirs))


def cmake_include_dirs(text: str, here: str, root: str) -> list[str]:
    """The directories (relative to ``root``, existing, inside it) that the CMake text of a file in directory
    ``here`` (absolute) names in ``include_directories``/``target_include_directories``."""
    from vado.scan.buildfiles import cmake_commands

    try:
        cmds, _ = cmake_commands(text)
    except Exception:  # a CMake file vado cannot tokenize names no directory
        return []
    bases = [here] if not here.endswith(os.sep + "cmake") else [here, os.path.dirname(here)]
    out: list[str] = []
    for cmd in cmds:
        if cmd.lname not in ("include_directories", "target_include_directories"):
            continue
        values = [a.text.strip('"') for a in cmd.args]
        for v in values[1:] if cmd.lname.startswith("target_") else values:
            m = _BUILD_INTERFACE.match(v)
            if m:
                v = m.group(1)
            if v in _KEYWORDS or v.startswith("$<"):
                continue
            for base in dict.fromkeys((*bases, root)):
                w = v
                for name in set(_VAR.findall(v)) & set(_SOURCE_DIR_VARS):
                    w = w.replace("${%s}" % name, base)
                if "$" in w or not w:
                    continue
                rel = _inside(root, w if os.path.isabs(w) else os.path.join(here, w))
                if rel is not None and rel not in out:
                    out.append(rel)
    return out


def _build_files(root: str) -> list[str]:
    """The tree's CMake files outside vendored directories (no ``.git``, no symlinked directories), bounded."""
    from vado.build.make import walk_dirs
    from vado.scan.discover import VENDORED_DIRS

    out: list[str] = []
    seen = 0
    for cur, dirs, names in walk_dirs(root):
        dirs[:] = sorted(d for d in dirs if d != ".git" and d.lower() not in VENDORED_DIRS)
        seen += len(names)
        for n in sorted(names):
            if n == "CMakeLists.txt" or n.endswith(".cmake"):
                out.append(os.path.join(cur, n))
        if len(out) >= _MAX_BUILD_FILES or seen >= _MAX_WALK:
            break
    return out[:_MAX_BUILD_FILES]


def _read_text(path: str) -> str | None:
    from vado.model.text import decode_source
    from vado.scan.reading import read_regular

    try:
        if os.path.islink(path):
            return None
        data = read_regular(path, _MAX_BUILD_FILE + 1)
    except OSError:
        return None
    return None if len(data) > _MAX_BUILD_FILE else decode_source(data)


def _fingerprint(root: str) -> tuple:
    from vado.build.compdb import CANDIDATES

    parts = []
    for rel in (*CANDIDATES, "setup.py", "CMakeLists.txt", "Makefile", "makefile", "GNUmakefile"):
        try:
            st = os.stat(os.path.join(root, rel))
            parts.append((rel, st.st_size, st.st_mtime_ns))
        except OSError:
            pass
    return tuple(parts)


def project_include_dirs(root: str | os.PathLike) -> IncludeDirs:
    """The include directories the build of the tree at ``root`` names (see the module docstring). Executes
    nothing; never raises for a build it cannot read (that build adds no directory). Kept for the process,
    keyed by the root and its top-level build files, for one run (:mod:`vado.scan.run_caches`)."""
    real = os.path.realpath(str(root))
    if not os.path.isdir(real):
        return IncludeDirs()
    return _cached(real, _fingerprint(real))


@per_run
@functools.lru_cache(maxsize=8)
def _cached(root: str, _fingerprint: tuple) -> IncludeDirs:
    from vado.build.read import _existing

    per_file: dict[str, tuple[str, ...]] = {}
    union: dict[str, None] = {}
    try:
        found, _ = _existing(Path(root))
    except Exception:  # a build database vado cannot read adds nothing here; the judged build says why
        found = None
    if found is not None:
        _unit_dirs(found, root, per_file, union)
    if found is None or found.reader == "setup.py":
        from vado.build.make import makefile_dirs

        try:
            if not any(os.path.isfile(os.path.join(root, n)) for n in ("CMakeLists.txt", "meson.build")) \
                    and makefile_dirs(Path(root), 1):
                from vado.build.make_static import read_makefiles

                _unit_dirs(read_makefiles(root), root, per_file, union)
        except Exception:  # a Makefile make_static cannot read adds nothing (its notes say why elsewhere)
            pass
    for path in _build_files(root):
        text = _read_text(path)
        if text and "include_directories" in text:
            union.update(dict.fromkeys(cmake_include_dirs(text, os.path.dirname(path), root)))
    return IncludeDirs(tuple(union), per_file)


def locate(root: str, base: str | None, name: str, dirs: tuple[str, ...]) -> str | None:
    """Include ``name`` of a file in directory ``base`` (both relative to ``root``; ``base`` None for a ``<…>``
    include, not looked for beside the file) as a path relative to the root: beside the file when it is there,
    else in the first of ``dirs`` that holds it, else beside the file (where it is not found at all; None for
    ``<…>``). None where the name leaves the tree. A found file's real path is inside the root (a link out of it
    is not followed). Kept for one run (:mod:`vado.scan.run_caches`: a tree's files are stat'ed once per include name and directory)."""
    if not dirs and base is not None:
        from vado.scan.project_headers import in_tree

        return in_tree(base, name)
    return _locate(root, base, name, dirs)


@per_run
@functools.lru_cache(maxsize=1 << 16)
def _locate(root: str, base: str | None, name: str, dirs: tuple[str, ...]) -> str | None:
    from vado.scan.project_headers import in_tree

    here = in_tree(base, name) if base is not None else None
    if here is not None and _is_file(root, here):
        return here
    if posixpath.isabs(name):
        return None
    for d in dirs:
        cand = in_tree(d, name)
        if cand is not None and _is_file(root, cand):
            return cand
    return here


def _is_file(root: str, rel: str) -> bool:
    full = os.path.join(root, rel)
    if not os.path.isfile(full):
        return False
    real = os.path.realpath(full)
    return real.startswith(root + os.sep)
