"""Finding the files of a tree that matter for a CUDA port, and saying why others were left out.

:func:`walk` turns a root (a directory, or a single file) into a :class:`ScanPlan`:
the :class:`SourceFile` records to scan and the :class:`~vado.model.Skip` records of
files vado would have read but did not, each with a typed reason. Both are sorted by
path (component by component, so a directory's files stay together), so two walks of
the same tree give the same plan.

What is yielded
    Files whose name :func:`~vado.scan.classify.classify` recognises (C/C++/CUDA,
    PTX, Python, CMake, Make, setup.py/pyproject/setup.cfg, requirements, conda
    environments, Dockerfiles, compile_commands.json), plus extension-less files
    whose first bytes look like C/C++ (libcu++-style headers such as
    ``cuda/std/atomic``: a leading ``#pragma once``, ``#ifndef``, ``#include``,
    ``#define`` or an Emacs ``-*- C++ -*-`` line) or carry a Python ``#!`` line.
    Everything else (docs, images, ``.txt`` files, data) is not CUDA-relevant and
    appears nowhere, not even as a skip.

What is skipped, and recorded
    A skip is recorded only for a path vado would otherwise have looked at: a file
    whose name says it is relevant, or a directory.

    * ``.git`` (file or directory), ``.hg`` and ``.svn`` are never entered nor recorded.
    * ``IGNORED``: matched by a ``.gitignore`` (at any level, with git's wildmatch
      semantics) or by ``.git/info/exclude``, including the ``.gitignore`` files
      between the top of the root's git work tree and the root; the user's global
      excludes file is not read (:mod:`vado.scan.gitignore` says how they are
      read and which one wins). A directory that is ignored is not entered (as in
      git, a negation cannot bring back a file below it). A root that its work tree
      ignores is scanned with only the ignore files inside it. Also ``IGNORED``: a symlink
      when ``follow_symlinks`` is off, and a second path to a file already in the
      plan (a symlink or hard link alias), so that a port never edits one file twice.
    * ``VENDORED`` (unless ``include_vendored``): directories named ``third_party``,
      ``third-party``, ``thirdparty``, ``3rdparty``, ``3rd_party``, ``3rd-party``,
      ``vendor``, ``vendored``, ``external``, ``externals``, ``extern``, ``deps``,
      ``dependencies``, ``_deps`` (CMake FetchContent), ``node_modules``, ``site-packages``,
      ``dist-packages``, ``__pypackages__``, ``.venv``, ``venv``, ``.tox``, ``.nox``
      (case-insensitive), and build output: ``cmake-build-*`` always, and
      ``build``, ``_build``, ``build-*``, ``build_*`` and ``out`` when they hold a
      build-system marker (``CMakeCache.txt``, ``CMakeFiles``, ``build.ninja``,
      ``.ninja_log``, ``meson-info``, ``config.status``, or setuptools'
      ``lib.*``/``temp.*``/``bdist.*``). A ``build/`` without a marker holds
      sources or build scripts in many projects and is scanned. Also vendored, wherever
      they sit: the git submodules the ``.gitmodules`` of the root's work tree lists
      (:mod:`vado.scan.gitignore`), a directory that
      holds a copy of a known library (CUTLASS's ``include/cutlass/cutlass.h``, fmt's
      ``include/fmt/format.h``, a ``cub`` directory holding ``cub.cuh`` …) and
      single-file libraries by name (``catch.hpp``, ``doctest.h`` …): the table is
      ``knowledge/data/project_scope.yaml``. The root itself is never vendored.
    * ``BINARY``: a NUL byte in the first 8 KiB (UTF-16/32 text with a byte order
      mark excepted), or a prebuilt-code suffix, reported without being read:
      ``.cubin``/``.fatbin`` (NVIDIA device code, which must be rebuilt from
      source) and ``.o .obj .a .lib .so .so.N .dylib .dll .pyd`` (prebuilt code
      that may link CUDA).
    * ``TOO_LARGE``: larger than ``max_file_size`` (judged from ``stat``, the file
      is not opened).
    * ``UNREADABLE``: a directory that cannot be listed or a file that cannot be
      opened (the errno text is the detail), or a broken symlink.
    * ``SYMLINK_LOOP``: a directory symlink to one of its own ancestors, or a
      symlink chain that never resolves (``ELOOP``).
    * ``SYMLINK_OUTSIDE``: a symlink whose target lies outside the root (never
      followed: a scan must not wander off into ``/usr``).
    * ``NOT_A_FILE``: FIFOs, sockets and devices (never opened: opening a FIFO blocks).
    * ``UNDECODABLE``: a C/C++/CUDA file in UTF-16/32 (vado reads sources byte for
      byte and edits them at byte offsets), or a file name that is not valid UTF-8.
    * ``MALFORMED``: a ``.gitignore`` line that is not a valid pattern (recorded
      against the ``.gitignore``; the other lines still apply).

Reading
    :func:`read_source` and :func:`read_text` read a planned file; they live in
    :mod:`vado.scan.reading` (which says how each kind is decoded) and are
    re-exported here, with :class:`SourceFile`, :class:`SourceText` and
    :func:`read_regular`.
"""

from __future__ import annotations

import errno
import functools
import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from vado.errors import ScanError, UsageError
from vado.model import Skip, SkipReason
from vado.scan.classify import FileKind, classify

# The ignore files and submodules of a git work tree, and reading a planned file, live in
# their own modules; their names are re-exported here, where callers have always found them.
from vado.scan.gitignore import (  # noqa: F401  (re-exported)
    _IgnoreFile,
    _any_pattern,
    _is_ignored,
    _linear_stars,
    _load_ignore_file,
    _outer_ignores,
    _parse_ignore_file,
    _root_submodules,
    _submodule_paths,
)
from vado.scan.reading import (  # noqa: F401  (re-exported)
    _BYTE_VIEW,
    DEFAULT_MAX_FILE_SIZE,
    SourceFile,
    SourceText,
    _bom_encoding,
    _display,
    _os_error,
    _special_kind,
    read_regular,
    read_source,
    read_text,
)

__all__ = [
    "DEFAULT_MAX_FILE_SIZE",
    "HEAD_SIZE",
    "ScanPlan",
    "SourceFile",
    "SourceText",
    "VENDORED_DIRS",
    "read_source",
    "read_text",
    "walk",
]

HEAD_SIZE = 8192
"""How many leading bytes are read to tell text from binary and to sniff a kind."""

VENDORED_DIRS = frozenset(
    {
        "third_party", "third-party", "thirdparty", "3rdparty", "3rd_party", "3rd-party",
        "vendor", "vendored", "external", "externals", "extern", "deps", "_deps", "dependencies",
        "node_modules", "site-packages", "dist-packages", "__pypackages__",
        ".venv", "venv", ".tox", ".nox",
    }
)  # fmt: skip
_VCS_DIRS = frozenset({".git", ".hg", ".svn"})
_ALWAYS_BUILD_OUTPUT = re.compile(r"cmake-build-.*", re.IGNORECASE)
_MAYBE_BUILD_OUTPUT = re.compile(r"(?:_?build(?:[-_].*)?|out)", re.IGNORECASE)
_BUILD_MARKERS = frozenset({"CMakeCache.txt", "CMakeFiles", "build.ninja", ".ninja_log", "meson-info", "config.status"})
_SETUPTOOLS_MARKER = re.compile(r"(?:lib|temp|bdist)\..+")

_DEVICE_BINARY = {".cubin": "cubin", ".fatbin": "fatbin"}
_PREBUILT = frozenset({".o", ".obj", ".a", ".lib", ".so", ".dylib", ".dll", ".pyd"})
_VERSIONED_SO = re.compile(r".+\.so(?:\.\d+)+", re.IGNORECASE)

_C_LIKE = re.compile(
    rb"\A(?:\xef\xbb\xbf)?\s*(?://[^\n]*\n\s*|/\*.*?\*/\s*)*"
    rb"#\s*(?:pragma\s+once|ifndef|ifdef|if|include|define)\b",
    re.DOTALL,
)
_EMACS_CXX = re.compile(rb"\A[^\n]*-\*-\s*(?:mode:\s*)?c\+\+", re.IGNORECASE)
_CUDA_MARKERS = re.compile(rb"__global__|__device__|<<<|cuda_runtime|__CUDACC__")
_PYTHON_SHEBANG = re.compile(rb"\A#![^\n]*\bpython[0-9.]*\b")


@dataclass(frozen=True)
class ScanPlan:
    """What :func:`walk` found: files to scan and typed skips, both sorted by path."""

    root: Path
    files: tuple[SourceFile, ...] = ()
    skips: tuple[Skip, ...] = ()

    def __iter__(self) -> Iterator[SourceFile]:
        return iter(self.files)

    def __len__(self) -> int:
        return len(self.files)

    @property
    def total_bytes(self) -> int:
        """Sum of the planned files' sizes."""
        return sum(f.size for f in self.files)

    def of_kind(self, *kinds: FileKind) -> tuple[SourceFile, ...]:
        """The planned files of any of ``kinds``."""
        wanted = set(kinds)
        return tuple(f for f in self.files if f.kind in wanted)


# --- classification by content ----------------------------------------------------


def _sniff(head: bytes) -> FileKind:
    """The kind of an extension-less file from its first bytes (OTHER if none fits)."""
    if _PYTHON_SHEBANG.match(head):
        return FileKind.PYTHON
    if _C_LIKE.match(head) or _EMACS_CXX.match(head):
        return FileKind.CUDA_HEADER if _CUDA_MARKERS.search(head) else FileKind.CXX_HEADER
    return FileKind.OTHER


@functools.lru_cache(maxsize=16384)  # names repeat across a tree
def _prebuilt(name: str) -> str | None:
    """The skip detail of a prebuilt-code file name, or None."""
    lower = name.lower()
    suffix = os.path.splitext(lower)[1]
    if suffix in _DEVICE_BINARY:
        return f"prebuilt NVIDIA device code ({_DEVICE_BINARY[suffix]}): rebuild it from source for another GPU"
    if suffix in _PREBUILT or _VERSIONED_SO.fullmatch(lower):
        return "prebuilt object or library: check whether it was built from CUDA code"
    return None


def _sniffable(name: str) -> bool:
    return "." not in name


def _relevant_name(name: str) -> bool:
    return classify(name) is not FileKind.OTHER or _prebuilt(name) is not None


# --- the walk ---------------------------------------------------------------------


def _open_head(path: str) -> tuple[os.stat_result, bytes]:
    """The stat and first :data:`HEAD_SIZE` bytes of a file, without blocking on a FIFO."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOCTTY", 0))
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            return st, b""
        return st, os.read(fd, HEAD_SIZE)
    finally:
        os.close(fd)


@dataclass
class _Dir:
    rel: str  # relative to the root, "" for the root
    abs: str
    ignores: tuple[_IgnoreFile, ...]
    ancestors: frozenset  # (st_dev, st_ino) of this directory and those above it
    via_symlink: bool


class _Walker:
    def __init__(self, root: Path, respect_gitignore: bool, include_vendored: bool, max_file_size: int,
                 follow_symlinks: bool) -> None:  # fmt: skip
        self.root = root
        self.real_root = os.path.realpath(root)
        self.respect_gitignore = respect_gitignore
        self.include_vendored = include_vendored
        self.max_file_size = max_file_size
        self.follow_symlinks = follow_symlinks
        self.files: list[tuple[SourceFile, tuple[int, int], bool]] = []
        self.skips: list[Skip] = []
        self.visited: set[tuple[int, int]] = set()
        self.deferred: list[tuple[_Dir, str]] = []
        self.record_all = False
        #: Submodule paths of the root's .gitmodules (read by run()).
        self.submodules: frozenset[str] = frozenset()

    # Directories ---------------------------------------------------------------

    def run(self) -> ScanPlan:
        try:
            st = os.stat(self.root)
        except OSError as exc:
            raise ScanError(f"cannot scan {self.root}", _os_error(exc), "check the path") from exc
        key = (st.st_dev, st.st_ino)
        outer: tuple[_IgnoreFile, ...] = ()
        if self.respect_gitignore:
            outer = tuple(_outer_ignores(Path(self.real_root), self.skips))
        try:
            entries = self._list(str(self.root))
        except OSError as exc:
            raise ScanError(
                f"cannot list {self.root}", _os_error(exc), "run vado as a user who may read the tree"
            ) from exc
        if not self.include_vendored:
            # Above the root only where the walk reads the work tree's ignore files too.
            self.submodules = (_root_submodules(Path(self.real_root)) if self.respect_gitignore
                               else _submodule_paths(os.path.join(self.real_root, ".gitmodules")))
        root_dir = _Dir("", str(self.root), outer, frozenset({key}), False)
        self.visited.add(key)
        stack = [(root_dir, entries)]
        while True:
            while stack:
                directory, entries = stack.pop()
                stack.extend(reversed(self._scan_dir(directory, entries)))
            if not self.deferred:
                break
            # Symlinked directories come last, so a tree's real paths win over aliases.
            deferred, self.deferred = sorted(self.deferred, key=lambda d: d[0].rel.split("/")), []
            for directory, detail in deferred:
                try:
                    st = os.stat(directory.abs)
                except OSError as exc:  # removed or changed since it was seen
                    self.skips.append(Skip(directory.rel, SkipReason.UNREADABLE, _os_error(exc)))
                    continue
                key = (st.st_dev, st.st_ino)
                if key in self.visited:
                    why = f"symlink to {detail}, which is scanned already"
                    self.skips.append(Skip(directory.rel, SkipReason.IGNORED, why))
                    continue
                try:
                    entries = self._list(directory.abs)
                except OSError as exc:
                    self.skips.append(Skip(directory.rel, SkipReason.UNREADABLE, _os_error(exc)))
                    continue
                self.visited.add(key)
                directory.ancestors = directory.ancestors | {key}
                stack.append((directory, entries))
        return self._plan()

    @staticmethod
    def _list(path: str) -> list[os.DirEntry]:
        with os.scandir(path) as it:
            return sorted(it, key=lambda e: e.name)

    def _scan_dir(self, directory: _Dir, entries: list[os.DirEntry]) -> list[tuple[_Dir, list]]:
        """Handle the files of one directory; return its subdirectories to walk."""
        ignores = directory.ignores
        if self.respect_gitignore and any(e.name == ".gitignore" for e in entries):
            source = f"{directory.rel}/.gitignore" if directory.rel else ".gitignore"
            found = _load_ignore_file(Path(directory.abs, ".gitignore"), directory.rel, "", source, self.skips)
            if found is not None:
                ignores = ignores + (found,)
        subdirs = []
        # os.path.join(directory.abs, name) for the entries' plain names, joined once.
        abs_prefix = directory.abs if directory.abs.endswith(os.sep) else directory.abs + os.sep
        for entry in entries:
            name = entry.name
            if name in _VCS_DIRS:
                continue
            rel = f"{directory.rel}/{name}" if directory.rel else name
            abs_path = abs_prefix + name
            try:
                link = entry.is_symlink()
                is_dir = entry.is_dir(follow_symlinks=False)
                is_file = entry.is_file(follow_symlinks=False)
            except OSError as exc:
                self._skip_file(name, rel, SkipReason.UNREADABLE, _os_error(exc))
                continue
            if _display(name) != name:
                if is_dir or _relevant_name(name):
                    self.skips.append(Skip(_display(rel), SkipReason.UNDECODABLE, "file name is not valid UTF-8"))
                continue
            if link:
                sub = self._symlink(directory, name, rel, abs_path, ignores)
                if sub is not None:
                    self.deferred.append(sub)
                continue
            if ignores:
                why = _is_ignored(ignores, rel, is_dir)
                if why is not None:
                    if is_dir:
                        self.skips.append(Skip(rel, SkipReason.IGNORED, f"directory {why}"))
                    else:
                        self._skip_file(name, rel, SkipReason.IGNORED, why)
                    continue
            if is_dir:
                listed = self._enter(directory, name, rel, abs_path, ignores, via_symlink=directory.via_symlink)
                if listed is not None:
                    subdirs.append(listed)
            elif is_file:
                self._file(name, rel, abs_path, via_symlink=directory.via_symlink)
            else:
                try:
                    mode = entry.stat(follow_symlinks=False).st_mode
                except OSError as exc:
                    self._skip_file(name, rel, SkipReason.UNREADABLE, _os_error(exc))
                    continue
                self._skip_file(name, rel, SkipReason.NOT_A_FILE, _special_kind(mode))
        return subdirs

    def _enter(self, parent: _Dir, name: str, rel: str, abs_path: str, ignores, via_symlink: bool):
        """The listing of a real subdirectory to walk, or None (skipped or recorded)."""
        if not self.include_vendored and name.lower() in VENDORED_DIRS:  # skip without listing it
            self.skips.append(Skip(rel, SkipReason.VENDORED, self._vendored(name, [])))
            return None
        try:
            entries = self._list(abs_path)
        except OSError as exc:
            self.skips.append(Skip(rel, SkipReason.UNREADABLE, _os_error(exc)))
            return None
        if not self.include_vendored:
            why = self._vendored(name, entries) or self._copy_of(rel, name, abs_path, entries)
            if why is not None:
                self.skips.append(Skip(rel, SkipReason.VENDORED, why))
                return None
        try:
            st = os.stat(abs_path)
        except OSError as exc:
            self.skips.append(Skip(rel, SkipReason.UNREADABLE, _os_error(exc)))
            return None
        key = (st.st_dev, st.st_ino)
        if key in self.visited:  # a bind mount or similar: the same directory twice
            self.skips.append(Skip(rel, SkipReason.IGNORED, "the same directory as one scanned already"))
            return None
        self.visited.add(key)
        return _Dir(rel, abs_path, ignores, parent.ancestors | {key}, via_symlink), entries

    @staticmethod
    def _vendored(name: str, entries: list[os.DirEntry]) -> str | None:
        lower = name.lower()
        if lower in VENDORED_DIRS:
            return "vendored third-party code (pass include_vendored / --include-vendored to scan it)"
        if _ALWAYS_BUILD_OUTPUT.fullmatch(name):
            return "build output directory"
        if _MAYBE_BUILD_OUTPUT.fullmatch(name):
            for e in entries:
                if e.name in _BUILD_MARKERS or _SETUPTOOLS_MARKER.fullmatch(e.name):
                    return f"build output directory (has {e.name})"
        return None

    def _copy_of(self, rel: str, name: str, abs_path: str, entries: list[os.DirEntry]) -> str | None:
        """Why the directory ``rel`` is vendored although its name does not say so (a git
        submodule, a copy of a known library), or None."""
        if rel in self.submodules:
            return "git submodule (listed in .gitmodules; pass include_vendored / --include-vendored to scan it)"
        from vado.knowledge.project_scope import library_copies

        names = {e.name for e in entries}
        for lib in library_copies():
            for marker in lib.markers:
                if marker.split("/", 1)[0] in names and os.path.isfile(os.path.join(abs_path, marker)):
                    return f"a copy of {lib.name} (has {marker}; pass include_vendored / --include-vendored to scan it)"
            if lib.header_dir is not None and name == lib.header_dir[0] and lib.header_dir[1].split("/", 1)[0] in names:
                if os.path.isfile(os.path.join(abs_path, lib.header_dir[1])):
                    return (f"a copy of {lib.name}'s headers (has {lib.header_dir[1]}; "
                            "pass include_vendored / --include-vendored to scan it)")
        return None

    def _symlink(self, parent: _Dir, name: str, rel: str, abs_path: str, ignores) -> tuple[_Dir, str] | None:
        """Handle a symlink; return a directory to walk later, or None."""
        try:
            target = os.readlink(abs_path)
        except OSError:
            target = "?"
        try:
            st = os.stat(abs_path)
        except OSError as exc:
            if exc.errno == errno.ELOOP:
                self._skip_file(name, rel, SkipReason.SYMLINK_LOOP, f"symlink to {target!r} never resolves")
            elif isinstance(exc, FileNotFoundError):
                self._skip_file(name, rel, SkipReason.UNREADABLE, f"broken symlink to {target!r}")
            else:
                self._skip_file(name, rel, SkipReason.UNREADABLE, _os_error(exc))
            return None
        is_dir = stat.S_ISDIR(st.st_mode)
        if ignores:
            why = _is_ignored(ignores, rel, is_dir)
            if why is not None:
                self._skip_any(is_dir, name, rel, SkipReason.IGNORED, why)
                return None
        if not self.follow_symlinks:
            self._skip_any(is_dir, name, rel, SkipReason.IGNORED, f"symlink to {target!r} not followed")
            return None
        real = os.path.realpath(abs_path)
        if not _inside(real, self.real_root):
            why = f"symlink to {target!r} leads outside the root"
            self._skip_any(is_dir, name, rel, SkipReason.SYMLINK_OUTSIDE, why)
            return None
        if is_dir:
            key = (st.st_dev, st.st_ino)
            if key in parent.ancestors:
                self.skips.append(Skip(rel, SkipReason.SYMLINK_LOOP, f"symlink to {target!r}, a directory above it"))
                return None
            if not self.include_vendored:
                try:
                    entries = self._list(abs_path)
                except OSError as exc:
                    self.skips.append(Skip(rel, SkipReason.UNREADABLE, _os_error(exc)))
                    return None
                why = self._vendored(name, entries) or self._copy_of(rel, name, abs_path, entries)
                if why is not None:
                    self.skips.append(Skip(rel, SkipReason.VENDORED, why))
                    return None
            return _Dir(rel, abs_path, ignores, parent.ancestors, True), repr(target)
        if stat.S_ISREG(st.st_mode):
            self._file(name, rel, abs_path, via_symlink=True)
        else:
            self._skip_file(name, rel, SkipReason.NOT_A_FILE, _special_kind(st.st_mode))
        return None

    # Files -------------------------------------------------------------------

    def _skip_any(self, is_dir: bool, name: str, rel: str, reason: SkipReason, detail: str) -> None:
        if is_dir:
            self.skips.append(Skip(rel, reason, detail))
        else:
            self._skip_file(name, rel, reason, detail)

    def _skip_file(self, name: str, rel: str, reason: SkipReason, detail: str) -> None:
        """Record a skip for a file, if its name says vado would have read it."""
        if self.record_all or _relevant_name(name):
            self.skips.append(Skip(_display(rel), reason, detail))

    def _file(self, name: str, rel: str, abs_path: str, via_symlink: bool) -> None:
        kind = classify(name)
        prebuilt = _prebuilt(name)
        if kind is FileKind.OTHER and prebuilt is None and not _sniffable(name):
            return
        try:
            st = os.stat(abs_path)
        except OSError as exc:
            self._skip_file(name, rel, SkipReason.UNREADABLE, _os_error(exc))
            return
        if not stat.S_ISREG(st.st_mode):
            self._skip_file(name, rel, SkipReason.NOT_A_FILE, _special_kind(st.st_mode))
            return
        if prebuilt is not None:  # reported as what it is, whatever its size, and never read
            self.skips.append(Skip(rel, SkipReason.BINARY, prebuilt))
            return
        if not self.include_vendored and kind in _BYTE_VIEW:
            from vado.knowledge.project_scope import single_file_libraries

            library = single_file_libraries().get(name)
            if library is not None:
                why = f"a copy of {library} (single-file library; pass include_vendored / --include-vendored to scan it)"
                self.skips.append(Skip(rel, SkipReason.VENDORED, why))
                return
        if st.st_size > self.max_file_size:
            why = f"{st.st_size} bytes, more than the limit of {self.max_file_size}"
            self._skip_file(name, rel, SkipReason.TOO_LARGE, why)
            return
        try:
            st, head = _open_head(abs_path)
        except OSError as exc:
            self._skip_file(name, rel, SkipReason.UNREADABLE, _os_error(exc))
            return
        if not stat.S_ISREG(st.st_mode):  # replaced between stat and open
            self._skip_file(name, rel, SkipReason.NOT_A_FILE, _special_kind(st.st_mode))
            return
        if kind is FileKind.OTHER:
            kind = _sniff(head)
            if kind is FileKind.OTHER:
                return
        bom = _bom_encoding(head)
        if bom is not None and bom != "utf-8-sig" and kind in _BYTE_VIEW:
            why = f"{bom.upper()} text: vado reads C/C++/CUDA byte for byte; convert the file to UTF-8"
            self.skips.append(Skip(rel, SkipReason.UNDECODABLE, why))
            return
        nul = head.find(b"\0")
        if nul != -1 and bom in (None, "utf-8-sig"):
            self.skips.append(Skip(rel, SkipReason.BINARY, f"NUL byte at offset {nul}"))
            return
        source = SourceFile(rel, Path(abs_path), kind, st.st_size)
        self.files.append((source, (st.st_dev, st.st_ino), via_symlink))

    def _plan(self) -> ScanPlan:
        # One path per file: a real path beats a path through a symlink, then the first in order.
        chosen: dict[tuple[int, int], tuple[SourceFile, bool]] = {}
        order = sorted(self.files, key=lambda f: (f[2], f[0].path.split("/")))
        files = []
        for source, key, via_symlink in order:
            first = chosen.get(key)
            if first is None:
                chosen[key] = (source, via_symlink)
                files.append(source)
            else:
                what = "symlink" if via_symlink else "hard link"
                why = f"{what} alias of {first[0].path}, which is scanned"
                self.skips.append(Skip(source.path, SkipReason.IGNORED, why))
        files.sort(key=lambda f: f.path.split("/"))
        skips = sorted(set(self.skips), key=lambda s: (s.path.split("/"), s.reason.value, s.detail))
        return ScanPlan(Path(self.root), tuple(files), tuple(skips))


def _inside(real: str, real_root: str) -> bool:
    try:
        return os.path.commonpath([real, real_root]) == real_root
    except ValueError:  # different drives on Windows
        return False


def walk(
    root: str | os.PathLike[str],
    *,
    respect_gitignore: bool = True,
    include_vendored: bool = False,
    max_file_size: int = DEFAULT_MAX_FILE_SIZE,
    follow_symlinks: bool = True,
) -> ScanPlan:
    """The files under ``root`` to scan and the skips, sorted by path (see the module docstring).

    ``root`` may be a single file: the plan then holds that file (or a skip for
    it), and ignore and vendoring rules do not apply, since it was asked for by
    name. Raises :class:`~vado.errors.ScanError` when the root does not exist, is
    neither a directory nor a regular file, or cannot be listed; problems with
    anything below the root become skips.
    """
    if max_file_size < 0:
        raise UsageError("max_file_size must not be negative", f"got {max_file_size}")
    path = Path(os.path.abspath(os.fspath(root)))
    try:
        st = os.stat(path)
    except FileNotFoundError as exc:
        raise ScanError(
            f"{root} does not exist", _os_error(exc), "check the path, or run vado from the project's directory"
        ) from exc
    except OSError as exc:
        raise ScanError(f"cannot scan {root}", _os_error(exc), "check the path and its permissions") from exc
    if stat.S_ISDIR(st.st_mode):
        return _Walker(path, respect_gitignore, include_vendored, max_file_size, follow_symlinks).run()
    if stat.S_ISREG(st.st_mode):
        return _single_file(path, max_file_size)
    raise ScanError(
        f"cannot scan {root}", f"it is {_special_kind(st.st_mode)}", "pass a directory or a source file"
    )


def _single_file(path: Path, max_file_size: int) -> ScanPlan:
    walker = _Walker(path.parent, False, True, max_file_size, True)
    walker.record_all = True  # asked for by name: every skip is worth saying
    walker._file(path.name, path.name, str(path), via_symlink=False)
    if not walker.files and not walker.skips:
        raise ScanError(
            f"{path} is not a file vado reads",
            "its name and contents say neither C/C++/CUDA, PTX, Python, nor a build, dependency or container file",
            "pass a .cu/.cuh/.cpp/.h/.py file, a build file, or a directory",
        )
    return walker._plan()
