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
      semantics: negations, directory-only patterns, anchored patterns; deeper files
      win over shallower ones, the last matching line of a file wins) or by
      ``.git/info/exclude``. When the root lies inside a git work tree, the
      ``.gitignore`` files between the top of the work tree and the root apply
      too. A directory that is ignored is not entered (as in git, a negation
      cannot bring back a file below it). A root that its work tree ignores is
      scanned with only the ignore files inside it. The user's global excludes file is not
      read, so a plan does not depend on who runs it. Also ``IGNORED``: a symlink
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
      they sit: the git submodules the ``.gitmodules`` of the root's work tree lists, a directory that
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
    :func:`read_source` and :func:`read_text` read a planned file. C/C++/CUDA and
    PTX files are always read as the latin-1 view of their bytes
    (:mod:`vado.model.text`: character offsets are byte offsets), with a note when
    the bytes are not valid UTF-8. The other kinds are decoded as text: UTF-8 (a
    byte order mark is dropped), UTF-16/32 with a byte order mark, Python files by
    their PEP 263 coding line; anything else is ``UNDECODABLE``.
"""

from __future__ import annotations

import codecs
import errno
import functools
import io
import os
import posixpath
import re
import stat
import tokenize as py_tokenize
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Iterator

if TYPE_CHECKING:
    from pathspec import GitIgnoreSpec
    from pathspec.patterns.gitignore.spec import GitIgnoreSpecPattern

from vado.errors import ScanError, UsageError
from vado.model import Skip, SkipReason
from vado.model.text import decode_source
from vado.scan.classify import FileKind, classify

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

DEFAULT_MAX_FILE_SIZE = 64 * 2**20
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

_BYTE_VIEW = frozenset(
    {FileKind.CUDA_SOURCE, FileKind.CUDA_HEADER, FileKind.CXX_SOURCE, FileKind.CXX_HEADER,
     FileKind.HIP_SOURCE, FileKind.PTX}
)  # fmt: skip
_BOMS = (  # longest first: the UTF-32-LE mark starts with the UTF-16-LE one
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
)
_C_LIKE = re.compile(
    rb"\A(?:\xef\xbb\xbf)?\s*(?://[^\n]*\n\s*|/\*.*?\*/\s*)*"
    rb"#\s*(?:pragma\s+once|ifndef|ifdef|if|include|define)\b",
    re.DOTALL,
)
_EMACS_CXX = re.compile(rb"\A[^\n]*-\*-\s*(?:mode:\s*)?c\+\+", re.IGNORECASE)
_CUDA_MARKERS = re.compile(rb"__global__|__device__|<<<|cuda_runtime|__CUDACC__")
_PYTHON_SHEBANG = re.compile(rb"\A#![^\n]*\bpython[0-9.]*\b")


@dataclass(frozen=True, order=True)
class SourceFile:
    """A file to scan: ``path`` is relative to the root, in POSIX form."""

    path: str
    abs_path: Path = field(compare=False)
    kind: FileKind = field(compare=False)
    size: int = field(compare=False)


@dataclass(frozen=True)
class SourceText:
    """A file's text as vado reads it.

    For C/C++/CUDA and PTX ``text`` is the latin-1 view of the bytes and
    ``encoding`` is ``"latin-1"``; otherwise it is the decoded text (offsets are
    character offsets) and ``encoding`` names the codec used. ``note`` says what
    a reader may want to know (bytes that are not UTF-8), or is empty.
    """

    file: SourceFile
    text: str
    encoding: str
    note: str = ""


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


# --- .gitignore ------------------------------------------------------------------


@dataclass(frozen=True)
class _IgnoreFile:
    """One ignore file: its patterns apply to paths below ``base`` (relative to the root).

    ``prefix`` is the root's own path relative to the ignore file's directory, for
    ignore files above the root (empty for those inside it).
    """

    base: str
    prefix: str
    source: str  # shown in details: the ignore file's path relative to the root
    spec: GitIgnoreSpec
    lines: tuple[tuple[int, str], ...]  # (line number, pattern) per spec pattern
    #: One regex matching where any pattern matches (None when it cannot be built).
    any_pattern: re.Pattern | None = None

    def decide(self, path: str):
        """pathspec's result for ``path`` (relative to this file's directory) when a pattern
        decides it, else None. A path no pattern matches (most of them) is settled by one
        regex, ``any_pattern``."""
        if self.any_pattern is not None and self.any_pattern.match(path) is None:
            return None
        result = self.spec.check_file(path)
        return None if result.include is None else result

    def check(self, rel: str, is_dir: bool) -> tuple[bool, str] | None:
        """``(ignored, why)`` when a pattern of this file decides ``rel``, else None."""
        if self.base:
            if not rel.startswith(self.base + "/"):
                return None
            rel = rel[len(self.base) + 1:]
        result = self.decide(self.prefix + rel + ("/" if is_dir else ""))
        if result is None:
            return None
        lineno, pattern = self.lines[result.index]
        return bool(result.include), f"matches {pattern!r} in {self.source}:{lineno}"


def _load_ignore_file(path: Path, base: str, prefix: str, source: str, skips: list[Skip]) -> _IgnoreFile | None:
    try:
        st = os.stat(path)
        key = (str(path), st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)
        cached = _PARSED_IGNORES.get(key)
        if cached is None:
            parsed = _parse_ignore_file(read_regular(path, _MAX_IGNORE_FILE))
            # pathspec is imported here, by the first walk that meets an ignore file: a
            # one-file audit (an editor, a pre-commit hook) never needs it.
            from pathspec import GitIgnoreSpec

            # One pathspec per parsed file, shared by every walk: pathspec only reads it.
            cached = (parsed, GitIgnoreSpec(list(parsed[0])) if parsed[0] else None)
            if len(_PARSED_IGNORES) >= 4096:
                _PARSED_IGNORES.clear()
            _PARSED_IGNORES[key] = cached
    except FileNotFoundError:
        return None
    except OSError as exc:
        skips.append(Skip(_display(source), SkipReason.UNREADABLE, f"ignore file not read: {_os_error(exc)}"))
        return None
    (patterns, lines, malformed, any_pattern), spec = cached
    for detail in malformed:
        skips.append(Skip(_display(source), SkipReason.MALFORMED, detail))
    if spec is None:
        return None
    return _IgnoreFile(base, prefix, _display(source), spec, lines, any_pattern)


#: The bytes of an ignore file that are read (git itself reads any size; none comes near).
_MAX_IGNORE_FILE = 4 * 2**20

#: Parsed ignore files by path and identity (device, inode, size, mtime): the same
#: ``.gitignore`` files above the roots of many walks (a fleet, a port per program) are
#: parsed once, with their pathspec. A file that changes gets a new key.
_PARSED_IGNORES: dict[tuple, tuple[tuple[tuple, tuple, tuple, re.Pattern | None], GitIgnoreSpec | None]] = {}


def _parse_ignore_file(data: bytes) -> tuple[tuple, tuple[tuple[int, str], ...], tuple[str, ...], re.Pattern | None]:
    """``(patterns, (line number, pattern) per pattern, details of the malformed lines, their
    union as one regex)``."""
    from pathspec.patterns.gitignore.spec import GitIgnoreSpecPattern

    patterns = []
    lines = []
    malformed = []
    # Paths from os.scandir carry undecodable bytes as surrogates; decode the same way.
    for lineno, line in enumerate(data.decode("utf-8", "surrogateescape").splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        try:
            pattern = GitIgnoreSpecPattern(line)
        except Exception as exc:  # pathspec raises GitIgnorePatternError, ValueError, re.error
            malformed.append(f"line {lineno}: pattern {_display(line)!r} not used: {exc}")
            continue
        if pattern.include is None:
            continue
        if line.count("**") > _MAX_DOUBLE_STARS:
            malformed.append(f"line {lineno}: pattern {_display(line)!r} not used: more than "
                             f"{_MAX_DOUBLE_STARS} '**' (matching it could take exponential time)")
            continue
        _linear_stars(pattern)
        patterns.append(pattern)
        lines.append((lineno, _display(line)))
    return tuple(patterns), tuple(lines), tuple(malformed), _any_pattern(patterns)


_PLAIN_FLAGS = re.compile("").flags

#: The most ``**`` one ignore pattern may hold: each is a ``.+`` that can span directories,
#: and a path is tried at every split among them.
_MAX_DOUBLE_STARS = 4

_STAR = "[^/]*"
#: What lies between two ``*`` of one path segment in pathspec's regex: escaped or plain
#: characters, ``[^/]`` for ``?`` and bracket classes, each matching exactly one character.
_FIXED_CHUNK = re.compile(r"(?:\\.|[^\\()|*+?{}/.\[\]^$]|\[(?:\\.|[^\]\\])+\])+")


def _linear_stars(pattern: GitIgnoreSpecPattern) -> None:
    """Give ``pattern`` a regex whose ``*`` cannot backtrack exponentially (``a*a*a*…b``).

    pathspec turns each ``*`` into ``[^/]*``; with k of them in one segment a failing
    match tries every split of the name among them. Every ``*`` but the last of a run
    is followed by a fixed-length chunk and another ``*``: taking that chunk at its
    first occurrence loses no match (the next ``*`` absorbs the rest), so
    ``[^/]*CHUNK`` becomes the atomic ``(?>[^/]*?CHUNK)``. The last ``*`` keeps its
    backtracking, which is linear. Same matches: ``tests/fuzz/test_fuzz_targets.py`` compares them.
    """
    regex = getattr(pattern, "regex", None)
    if regex is None or regex.pattern.count(_STAR) < 2:
        return
    text = regex.pattern
    while _STAR + _STAR in text:  # "a**b" inside a segment: two stars are one
        text = text.replace(_STAR + _STAR, _STAR)
    parts = text.split(_STAR)
    if any((len(p) - len(p.rstrip("\\"))) % 2 for p in parts[:-1]):
        return  # a "[^/]*" that is an escaped "[" and text, not pathspec's star: leave the regex as it is
    out = [parts[0]]
    for i in range(1, len(parts)):
        piece = parts[i]
        if i < len(parts) - 1 and _FIXED_CHUNK.fullmatch(piece):
            out.append(f"(?>{_STAR}?{piece})")
        else:
            out.append(_STAR + piece)
    try:
        pattern.regex = re.compile("".join(out), regex.flags)
    except (re.error, AttributeError):
        return


def _any_pattern(patterns: list) -> re.Pattern | None:
    """The patterns' regexes as one alternation (``match`` semantics, as pathspec's), or None.

    pathspec tries each pattern's regex in turn to find the last one that matches;
    a path no pattern matches (most of them) needs only this one search to say so.
    Group names are dropped: every pattern names its trailing-slash group alike.
    """
    try:
        if any(p.regex.flags != _PLAIN_FLAGS for p in patterns):
            return None
        parts = [re.sub(r"\(\?P<\w+>", "(?:", p.regex.pattern) for p in patterns]
        return re.compile("|".join(f"(?:{part})" for part in parts)) if parts else None
    except (AttributeError, re.error):
        return None


def _is_ignored(stack: tuple[_IgnoreFile, ...], rel: str, is_dir: bool) -> str | None:
    """Why ``rel`` is ignored, or None. The deepest deciding ignore file wins."""
    for ignore in reversed(stack):
        decided = ignore.check(rel, is_dir)
        if decided is not None:
            return decided[1] if decided[0] else None
    return None


def _outer_ignores(real_root: Path, skips: list[Skip]) -> list[_IgnoreFile]:
    """``.git/info/exclude`` and the ``.gitignore`` files above the root, outermost first."""
    top = None
    for candidate in (real_root, *real_root.parents):
        if os.path.lexists(candidate / ".git"):
            top = candidate
            break
    if top is None:
        return []
    out: list[_IgnoreFile] = []
    root_in_top = real_root.relative_to(top).as_posix()
    prefix = "" if root_in_top == "." else root_in_top + "/"
    up = "../" * (0 if not prefix else prefix.count("/"))
    git_dir = top / ".git"
    if git_dir.is_file():  # a worktree or submodule: ".git" says "gitdir: <path>"
        try:
            line = git_dir.read_text(encoding="utf-8", errors="replace").strip()
        except OSError:
            line = ""
        if line.startswith("gitdir:"):
            git_dir = (top / line[len("gitdir:"):].strip()).resolve()
    exclude = _load_ignore_file(git_dir / "info" / "exclude", "", prefix, f"{up}.git/info/exclude", skips)
    if exclude is not None:
        out.append(exclude)
    if prefix:
        parts = root_in_top.split("/")
        for depth in range(len(parts)):
            directory = top.joinpath(*parts[:depth])
            sub_prefix = "/".join(parts[depth:]) + "/"
            source = "../" * (len(parts) - depth) + ".gitignore"
            found = _load_ignore_file(directory / ".gitignore", "", sub_prefix, source, skips)
            if found is not None:
                out.append(found)
        # The root was asked for by name: if the work tree ignores it (``vado audit build/``),
        # the ignore files above it would hide everything, so only its own ones apply.
        for ignore in reversed(out):
            result = ignore.decide(ignore.prefix)
            if result is not None:
                return [] if result.include else out
    return out


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


def _bom_encoding(head: bytes) -> str | None:
    for bom, encoding in _BOMS:
        if head.startswith(bom):
            return encoding
    return None


# --- the walk ---------------------------------------------------------------------


def _os_error(exc: OSError) -> str:
    if exc.errno is not None:
        return f"[Errno {exc.errno}] {os.strerror(exc.errno)}"
    return str(exc) or type(exc).__name__


def _display(text: str) -> str:
    """``text`` with undecodable file-name bytes shown as ``\\xNN`` (always encodable)."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")


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


def _special_kind(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a regular file"


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


_SUBMODULE_PATH = re.compile(r"^\s*path\s*=\s*(.+?)\s*$", re.MULTILINE)


def _submodule_paths(gitmodules: str) -> frozenset[str]:
    """The ``path =`` values of a ``.gitmodules`` file, as clean relative POSIX paths (none
    when the file is absent, unreadable or not text: the walk goes on without them)."""
    try:
        data = read_regular(gitmodules, _MAX_IGNORE_FILE)
    except OSError:
        return frozenset()
    out = set()
    for m in _SUBMODULE_PATH.finditer(data.decode("utf-8", "surrogateescape")):
        path = posixpath.normpath(m.group(1).strip('"').replace("\\", "/"))
        if path and not path.startswith(("/", "../")) and path != ".":
            out.add(path)
    return frozenset(out)


def _root_submodules(real_root: Path) -> frozenset[str]:
    """The submodule paths of the git work tree holding ``real_root``, relative to ``real_root``
    (the ``.gitmodules`` of the work tree's top, which may lie above the root)."""
    for top in (real_root, *real_root.parents):
        if os.path.lexists(top / ".git") or os.path.lexists(top / ".gitmodules"):
            break
    else:
        return frozenset()
    paths = _submodule_paths(str(top / ".gitmodules"))
    if top == real_root:
        return paths
    prefix = real_root.relative_to(top).as_posix() + "/"
    return frozenset(p[len(prefix):] for p in paths if p.startswith(prefix))


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


# --- reading ----------------------------------------------------------------------


def read_regular(path: str | os.PathLike, limit: int | None = None) -> bytes:
    """The bytes of the regular file at ``path`` (at most ``limit`` of them when given).

    Opened without blocking, so a FIFO (or a device) that took a file's place after
    the walk raises ``OSError`` at once instead of waiting for a writer forever.
    """
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOCTTY", 0))
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise OSError(f"{_special_kind(st.st_mode)}, not a regular file")
        want = st.st_size + 1 if limit is None else min(st.st_size + 1, limit)
        chunks = [os.read(fd, want)]
        got = len(chunks[0])
        while chunks[-1] and (limit is None or got < limit):
            chunks.append(os.read(fd, 1 << 20 if limit is None else min(1 << 20, limit - got)))
            got += len(chunks[-1])
        return b"".join(chunks)
    finally:
        os.close(fd)


def read_source(sf: SourceFile, *, max_file_size: int = DEFAULT_MAX_FILE_SIZE) -> SourceText | Skip:
    """The text of a planned file, or a :class:`~vado.model.Skip` if it cannot be read as text.

    Never raises for a bad file: a file that vanished or became unreadable since
    the walk is ``UNREADABLE``, one that grew past ``max_file_size`` ``TOO_LARGE``.
    """
    try:
        data = read_regular(sf.abs_path, max_file_size + 1)
    except OSError as exc:
        return Skip(sf.path, SkipReason.UNREADABLE, _os_error(exc))
    if len(data) > max_file_size:
        return Skip(sf.path, SkipReason.TOO_LARGE, f"more than the limit of {max_file_size} bytes")
    bom = _bom_encoding(data[:4])
    if sf.kind in _BYTE_VIEW:
        if bom is not None and bom != "utf-8-sig":
            return Skip(sf.path, SkipReason.UNDECODABLE, f"{bom.upper()} text: convert the file to UTF-8")
        note = ""
        try:
            data.decode("utf-8")
        except UnicodeDecodeError as exc:
            note = f"not valid UTF-8 (first bad byte at offset {exc.start}); read byte for byte"
        return SourceText(sf, decode_source(data), "latin-1", note)
    if bom is not None:
        encoding = bom
    elif sf.kind in (FileKind.PYTHON, FileKind.SETUP_PY):
        try:
            encoding, _ = py_tokenize.detect_encoding(io.BytesIO(data).readline)
        except (SyntaxError, LookupError) as exc:
            return Skip(sf.path, SkipReason.UNDECODABLE, f"bad coding declaration: {exc}")
    else:
        encoding = "utf-8"
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as exc:
        return Skip(sf.path, SkipReason.UNDECODABLE, f"not valid {encoding} (first bad byte at offset {exc.start})")
    except LookupError as exc:
        return Skip(sf.path, SkipReason.UNDECODABLE, str(exc))
    if text.startswith("\ufeff"):  # "utf-8-sig" drops it; the utf-16/32 codecs keep a second one
        text = text[1:]
    return SourceText(sf, text, encoding)


def read_text(sf: SourceFile, *, max_file_size: int = DEFAULT_MAX_FILE_SIZE) -> str | Skip:
    """:func:`read_source`'s text, or its skip."""
    got = read_source(sf, max_file_size=max_file_size)
    return got if isinstance(got, Skip) else got.text
