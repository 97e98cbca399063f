"""The configuration an audit or a port judges: what the project's build decides for each file's ``#if``.

:func:`judged_build` reads the tree's build (:func:`vado.build.read_build`; by default only what the
tree already holds: a ``compile_commands.json``, a CMake File API reply, a ``setup.py`` read without
running it, else the tree's Makefiles read as make reads them without running make,
:mod:`vado.build.make_static`; nothing is executed) and turns it into known macros per file, which the rules and the port read as the rule
options ``build_defines`` and ``build_undefined`` (:func:`vado.scan.preprocessor.build_macros`):

- a translation unit: its ``-D``/``-U`` in order (the last word on a name wins); a source compiled
  by several units keeps only what they all agree on;
- with a complete build (a compile database, a File API reply, a Make dry run or the Makefiles read
  whole without running make, not a guess and not ``setup.py``), a *build switch* the unit does not define is undefined there: a name some unit
  of the build defines or undefines, or that a Makefile or CMake file of the tree can pass with
  ``-D`` (read as text, every branch), or that a comment of a compiled source gives as a ``-DNAME``
  option (``nvcc … -DENABLE_CUDNN``: how to build that file). A name the build never mentions stays
  unknown, whatever the build: a header outside the tree may define it (``CUDART_VERSION``), and so may the compiler
  (names starting with ``_``); names with ``VERSION`` in them are left unknown for the same reason;
- a header: only what every unit of the build agrees on (a macro defined in some units and not in
  others stays unknown), and only when some file of the tree includes a file of that name and the
  build is complete; otherwise nothing;
- a name that a ``#define`` or ``#undef`` of another file of the tree sets is left unknown for the
  file (a header may change it between the command line and the test); the file's own directives
  are evaluated in order by :mod:`vado.scan.preprocessor`.

So a branch is inactive only when the configuration's flags switch it off and no file of the tree
can switch it back on. When no build can be read the result is a guess: no file gets build macros,
and every branch counts as it did without a build model; the summary says so.

Sources of the tree that a complete build neither compiles nor includes anywhere (by file name)
are listed in :attr:`vado.model.audit.BuildSummary.not_built`; their findings are kept.

:func:`judged_build` keeps its result for the process, keyed by the tree's build files and sizes,
so that one command reads a tree once.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Mapping, Sequence

from vado.build.model import BuildConfig, TranslationUnit
from vado.build.read import MODES, BuildOptions, read_build
from vado.model.audit import BuildSummary

__all__ = ["FileMacros", "JudgedBuild", "judge", "judged_build", "EXECUTING_MODES"]

#: Modes that execute the project's build logic (a CMake configure, a Make dry run).
EXECUTING_MODES = frozenset({"auto", "cmake", "make"})
#: Readers whose unit list is the whole configuration (what the build compiles, flags and all).
_COMPLETE_READERS = frozenset({"compile-db", "cmake-file-api", "make", "make-read"})
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_DIRECTIVE = re.compile(
    rb'^[ \t]*#[ \t]*(define|undef|include)[ \t]*(?:([A-Za-z_][A-Za-z0-9_]*)|[<"]([^>"\r\n]+)[>"])', re.MULTILINE)
_MISSING = object()


@dataclass(frozen=True)
class FileMacros:
    """What the build decides for one file: ``defines`` (``NAME=VALUE``) and ``undefined`` names."""

    defines: tuple[str, ...] = ()
    undefined: tuple[str, ...] = ()

    def rule_options(self) -> dict:
        """The rule options that carry them (:func:`vado.scan.preprocessor.build_macros`)."""
        return {"build_defines": self.defines, "build_undefined": self.undefined}

    def __bool__(self) -> bool:
        return bool(self.defines or self.undefined)


@dataclass(frozen=True)
class JudgedBuild:
    """The configuration judged: its :class:`BuildSummary` for reports and the macros per file
    (paths relative to the root, ``/``-separated; a file not listed gets none)."""

    summary: BuildSummary
    files: Mapping[str, FileMacros] = field(default_factory=dict)

    def macros_for(self, path: str) -> FileMacros | None:
        """The build's macros for ``path``, None when the build decides none there."""
        return self.files.get(path)

    def rule_options(self, path: str) -> dict:
        """Rule options for ``path`` (empty when the build decides nothing there)."""
        m = self.files.get(path)
        return m.rule_options() if m else {}

    def digest(self) -> str:
        """A hash of everything this build decides (for caches keyed by a file's findings)."""
        h = hashlib.sha256(repr(self.summary).encode())
        for path in sorted(self.files):
            m = self.files[path]
            h.update(f"\0{path}\0{m.defines}\0{m.undefined}".encode())
        return h.hexdigest()[:24]


def _unit_state(unit: TranslationUnit) -> dict[str, str | None]:
    """Name → value (``None``: undefined) after the unit's ``-D``/``-U`` words, in order."""
    state: dict[str, str | None] = {}
    for kind, word in unit.macros:
        name, eq, value = word.partition("=")
        name = name.strip()
        if not _NAME.match(name):
            continue
        state[name] = None if kind == "U" else (value.strip() if eq else "1")
    return state


#: Words of a command whose content vado does not read: a response file, an nvcc options file, ``-imacros``.
_OPAQUE_OPTIONS = ("-optf", "--options-file", "-imacros")


def _opaque(unit: TranslationUnit, root: str) -> bool:
    """Whether the unit's macros may come from somewhere vado did not read (``@file``, ``-optf``,
    ``-imacros``, a forced include outside the tree): then it decides nothing."""
    for w in unit.dropped:
        if w.startswith("@") or w.split("=", 1)[0] in _OPAQUE_OPTIONS:
            return True
    return any(_relpath(f, root) is None for f in unit.forced_includes)


def _agreed(states: Sequence[Mapping[str, str | None]]) -> dict[str, str | None]:
    """The names every state gives the same value (or undefines alike)."""
    if not states:
        return {}
    first, rest = states[0], states[1:]
    out = {}
    for name, value in first.items():
        if all(st.get(name, _MISSING) == value for st in rest):
            out[name] = value
    return out


def _switch_by_absence(name: str) -> bool:
    """Whether a build switch the unit leaves out may count as undefined (not the compiler's or a
    toolkit header's: reserved names, version macros)."""
    return not name.startswith("_") and "VERSION" not in name.upper()


def build_file_switches(root: str | os.PathLike, build_files: Iterable[str]) -> set[str]:
    """Names the tree's Makefiles and CMake files can pass with ``-D`` (read as text, every branch)."""
    from vado.build.guess import _from_cmake, _from_make
    from vado.model.text import decode_source

    names: set[str] = set()
    root = Path(root)
    for rel in build_files:
        p = root / rel
        try:
            if p.is_symlink() or not p.is_file() or p.stat().st_size > 4 * 2**20:
                continue
            text = decode_source(p.read_bytes())
        except OSError:
            continue
        reader = _from_cmake if p.name == "CMakeLists.txt" or p.suffix == ".cmake" else _from_make
        try:
            _, defs, _ = reader(text, p.parent)
        except Exception:  # a build file vado cannot read as text decides nothing
            continue
        for d in defs:
            name = d.partition("=")[0].strip()
            if _NAME.match(name):
                names.add(name)
    return names


#: A ``-DNAME`` word: a compiler's define option, as a comment shows how to build a file.
_DEFINE_WORD = re.compile(r"(?<![\w-])-D([A-Za-z_][A-Za-z0-9_]*)")


def documented_switches(root: str | os.PathLike, sources: Iterable[str]) -> set[str]:
    """Names the comments of the build's own sources give as ``-DNAME`` options (llm.c's attention_forward.cu:
    ``nvcc … -DENABLE_CUDNN …`` in its header, ``can be enabled via nvcc "-DENABLE_CUDNN"``): a switch the file
    documents for its command line, so the build's command, which vado read whole, decides it."""
    from vado.scan.lexer import Kind, tokenize
    from vado.model.text import decode_source

    names: set[str] = set()
    for src in sources:
        if _relpath(src, str(root)) is None:
            continue
        p = Path(src)
        try:
            if p.is_symlink() or not p.is_file() or p.stat().st_size > _MAX_SCANNED_BYTES:
                continue
            data = p.read_bytes()
        except OSError:
            continue
        if not re.search(rb"(?<![\w-])-D[A-Za-z_]", data):
            continue
        for tok in tokenize(decode_source(data)):
            if tok[0] is Kind.COMMENT and "-D" in tok[3]:
                names.update(m.group(1) for m in _DEFINE_WORD.finditer(tok[3]))
    return names


#: Files read for ``#define``/``#undef``/``#include`` beyond the audited ones (vendored, ignored by git).
_MAX_SCANNED_FILES = 200_000
_MAX_SCANNED_BYTES = 8 * 2**20


def _tree_c_files(root: Path) -> list[str]:
    """Every C-family file under ``root`` (vendored and git-ignored ones too, not under ``.git``, no
    symlinked directories): a switch a vendored header defines must keep the switch unknown."""
    from vado.scan.classify import classify

    out: list[str] = []
    for cur, dirs, names in os.walk(root):
        dirs[:] = [d for d in dirs if d != ".git" and not os.path.islink(os.path.join(cur, d))]
        for n in names:
            if classify(n).is_c_family:
                out.append(os.path.relpath(os.path.join(cur, n), root).replace(os.sep, "/"))
                if len(out) >= _MAX_SCANNED_FILES:
                    return out
    return out


def _scan_tree(root: Path, files: Sequence[str], wanted: set[str]) -> tuple[dict[str, set[str]], set[str]]:
    """For the tree's C-family ``files``: the files whose ``#define``/``#undef`` set each name of
    ``wanted``, and the file names (last component) that some ``#include`` names."""
    touched: dict[str, set[str]] = {}
    included: set[str] = set()
    for rel in files:
        try:
            p = root / rel
            if p.is_symlink() or p.stat().st_size > _MAX_SCANNED_BYTES:
                continue
            data = p.read_bytes()
        except OSError:
            continue
        if b"#" not in data:
            continue
        for m in _DIRECTIVE.finditer(data):
            if m.group(1) == b"include":
                if m.group(3):
                    included.add(m.group(3).decode("latin-1").rsplit("/", 1)[-1])
            elif m.group(2):
                name = m.group(2).decode("latin-1")
                if name in wanted:
                    touched.setdefault(name, set()).add(rel)
    return touched, included


def _relpath(path: str, root: str) -> str | None:
    rel = os.path.relpath(path, root)
    return None if rel.startswith("..") or os.path.isabs(rel) else rel.replace(os.sep, "/")


def _partial(config: BuildConfig) -> bool:
    """Whether the configuration may lack units (entries skipped, a dry run that failed somewhere, a
    ``setup.py`` read as text): then headers get no macros and nothing is said to be not built."""
    if config.guessed or config.reader not in _COMPLETE_READERS:
        return True
    return any(" entries of " in n or n.startswith("make -n in ") or (n.startswith("the Makefile in ")
               and " was not read (" in n) for n in config.notes)


def _source_words(config: BuildConfig, root: str) -> str:
    """Where the configuration came from, in words."""
    if config.guessed:
        why = next((n for n in config.notes if n.startswith("no build read (")), "")
        why = why[len("no build read ("):].split("): units and flags", 1)[0] if why else "no build could be read"
        return f"guessed: no build could be read ({why})"
    if config.reader == "compile-db":
        src = config.sources_read[0] if config.sources_read else "compile_commands.json"
        return _relpath(src, root) or src
    if config.reader == "cmake-file-api":
        targets = sorted({u.target for u in config.units if u.target})
        shown = ", ".join(targets[:5]) + (f" and {len(targets) - 5} more" if len(targets) > 5 else "")
        where = "a CMake configure vado ran" if config.ran else "the CMake File API reply in the tree"
        return (f"{where}, configuration {config.name}" + (f", target{'s' if len(targets) > 1 else ''} {shown}"
                                                              if targets else ""))
    if config.reader == "make":
        dirs = [r.rsplit(" in ", 1)[-1] for r in config.ran]
        return "make -n in " + (", ".join(dirs[:5]) + (" …" if len(dirs) > 5 else "") if dirs else ".")
    if config.reader == "make-read":
        dirs = sorted({posixpath_dir(p) for p in config.sources_read})
        return ("the Makefiles in " + (", ".join(dirs[:5]) + (" …" if len(dirs) > 5 else "") if dirs else ".")
                + " (read, not run)")
    if config.reader == "setup.py":
        return "setup.py (read, not run)"
    return config.reader


def judge(config: BuildConfig, root: str | os.PathLike, files: Sequence[tuple[str, object]],
          build_files: Iterable[str] = ()) -> JudgedBuild:
    """The macros ``config`` decides for each of ``files`` (``(path relative to root, FileKind)`` of
    the tree's files), with ``build_files`` (relative paths of Makefiles and CMake files) read for
    build switches. See the module docstring for the rules."""
    from vado.scan.classify import FileKind

    root_s = str(Path(root).resolve())
    # A guess's units are every source with guessed flags: none of them is judged, so none is counted.
    summary = BuildSummary(reader=config.reader, source=_source_words(config, root_s), configuration=config.name,
                           guessed=config.guessed, units=0 if config.guessed else len(config.units),
                           ran=tuple(config.ran), notes=tuple(config.notes))
    if config.guessed or not config.units:
        return JudgedBuild(summary)
    if not any(_relpath(u.source, root_s) is not None for u in config.units):
        # A database of another tree (a copy that still names the original's files) says nothing of this one.
        why = f"the {config.reader} build compiles no file of this tree"
        return JudgedBuild(BuildSummary(reader="guess", source=f"guessed: no build could be read ({why})",
                                        guessed=True, notes=(why, *config.notes)))
    complete = config.reader in _COMPLETE_READERS
    partial = _partial(config)
    states: dict[str, list[dict[str, str | None]]] = {}
    every: list[dict[str, str | None]] = []
    switches: set[str] = set()
    unit_states = []
    for u in config.units:
        st = _unit_state(u)
        switches.update(st)
        unit_states.append((u, None if _opaque(u, root_s) else st))
    if complete:
        switches |= build_file_switches(root_s, build_files)
        switches |= documented_switches(root_s, {u.source for u in config.units})
    absent = {n for n in switches if _switch_by_absence(n)}
    kinds = dict(files)
    c_files = [rel for rel, kind in files if getattr(kind, "is_c_family", False)]
    touched, included = _scan_tree(Path(root_s), sorted(set(c_files) | set(_tree_c_files(Path(root_s)))), switches)
    for u, st in unit_states:
        # An opaque unit (a response file …) decides nothing, for its source and for the headers it includes.
        full = dict(st) if st is not None else {}
        if complete and st is not None:
            for n in absent:
                full.setdefault(n, None)
        every.append(full)
        rel = _relpath(u.source, root_s)
        if rel is not None:
            states.setdefault(rel, []).append(full)
        included.update(os.path.basename(f) for f in u.forced_includes)
    common = _agreed(every) if not partial else {}
    out: dict[str, FileMacros] = {}
    not_built: list[str] = []
    sources = {FileKind.CUDA_SOURCE, FileKind.CXX_SOURCE, FileKind.HIP_SOURCE}
    for rel in c_files:
        if rel in states and posix_basename(rel) not in included:
            agreed = _agreed(states[rel])
        elif posix_basename(rel) in included:
            # A header, or a unit source another unit may #include too (#include "kernel.cu"): compiled
            # with whichever unit's flags, so only what every unit agrees on.
            agreed = common
        else:
            if not partial and kinds.get(rel) in sources:
                not_built.append(rel)
            continue
        # A name another file of the tree sets may change between the command line and the test.
        agreed = {n: v for n, v in agreed.items() if not (touched.get(n, set()) - {rel})}
        macros = FileMacros(tuple(f"{n}={v}" for n, v in sorted(agreed.items()) if v is not None),
                            tuple(sorted(n for n, v in agreed.items() if v is None)))
        if macros:
            out[rel] = macros
    from dataclasses import replace

    return JudgedBuild(replace(summary, not_built=tuple(sorted(not_built))), out)


def posixpath_dir(rel: str) -> str:
    """The directory of a relative path, ``.`` for the root."""
    d = os.path.dirname(rel).replace(os.sep, "/")
    return d or "."


def posix_basename(rel: str) -> str:
    """The last component of a ``/``-separated path."""
    return rel.rsplit("/", 1)[-1]


def _read(root: Path, options: BuildOptions, static_make: bool = True) -> BuildConfig:
    """The build read with ``options``; where nothing can be read in ``compile-db`` or ``none`` mode,
    a guess without units (a judged build uses none of a guess's flags, and guessing them reads
    every build file once per source)."""
    if options.mode in ("compile-db", "none") and root.is_dir():
        from vado.build.read import _existing

        if options.mode == "none":
            why, notes = "--build none", []
        else:
            from dataclasses import replace

            found, notes = _existing(root)
            if found is not None and found.units:
                return replace(found, notes=(*notes, *found.notes))
            # The tree's Makefiles read as make reads them, without running make (vado.build.make_static):
            # what a dry run would print, where no construct needs make itself to run.
            from vado.build.read import _makefiles_read

            # Only where Make is the project's build: beside a root CMakeLists.txt or meson.build (kokkos 28848df,
            # whose example directories hold Makefiles) the Makefiles' units are not the configuration.
            made = None if not static_make or _other_build_at_root(root) else _makefiles_read(root, options)
            if made is not None and made.units:
                return replace(made, notes=(*notes, *made.notes))
            if made is not None:
                notes = [*notes, *made.notes]
            why = "no compile_commands.json, CMake File API reply, setup.py extension or Makefile vado could read in the tree"
        return BuildConfig(str(root), (), "guess", guessed=True,
                           notes=(f"no build read ({why}): units and flags are guessed from the files", *notes))
    return read_build(root, options)


def _other_build_at_root(root: Path) -> bool:
    """Whether the root holds a build other than Make (CMake, Meson): then its Makefiles are not the build."""
    return any((root / n).is_file() for n in ("CMakeLists.txt", "meson.build"))


_CACHE: dict[tuple, JudgedBuild] = {}
_CACHE_SIZE = 8


def _fingerprint(root: Path, plan) -> tuple:
    """What a judged build depends on: the tree's files (paths and sizes), and its build files'
    and build databases' times (a regenerated compile database keeps its size, rarely its time)."""
    from vado.build.compdb import CANDIDATES

    parts: list[tuple] = []
    for f in plan.files:
        if f.kind.is_build or f.kind.value == "compile-commands":
            try:
                st = os.stat(f.abs_path)
                parts.append((f.path, st.st_size, st.st_mtime_ns))
            except OSError:
                parts.append((f.path, -1, 0))
        else:
            parts.append((f.path, f.size))
    for rel in (*CANDIDATES, "setup.py", ".cmake/api/v1/reply", "build/.cmake/api/v1/reply"):
        try:
            st = os.stat(root / rel)
            parts.append((rel, st.st_size, st.st_mtime_ns))
        except OSError:
            pass
    return tuple(parts)


def judged_build(root: str | os.PathLike, plan=None, options: BuildOptions | str = "compile-db", *,
                 static_make: bool = True) -> JudgedBuild:
    """The configuration that the tree at ``root`` (a directory) is judged on: its build read with
    ``options`` (a :class:`BuildOptions` or a mode of :data:`vado.build.read.MODES`; ``compile-db``,
    the default, executes nothing), made into macros per file (:func:`judge`). ``plan`` is the walk
    of the tree (:func:`vado.scan.discover.walk`; walked here when None). ``static_make``: in
    ``compile-db`` mode, read the tree's Makefiles without running make where nothing else is there
    (:mod:`vado.build.make_static`); False keeps such a tree a guess.

    Never raises for a build that cannot be read (the result is then a guess, saying why); raises
    :class:`ValueError` for an unknown mode. A CMake configure of the original is for CUDA with the
    ``nvcc`` on ``PATH``. The result is kept for the process (see the module docstring).
    """
    if isinstance(options, str):
        options = BuildOptions(mode=options)
    if options.mode not in MODES:
        raise ValueError(f"unknown build mode {options.mode!r} (one of {', '.join(MODES)})")
    root_p = Path(root).resolve()
    if plan is None:
        from vado.scan.discover import walk

        plan = walk(root_p)
    key = (str(root_p), options.mode, tuple(sorted(options.make_vars.items())), tuple(options.cmake_args),
           static_make, _fingerprint(root_p, plan))
    hit = _CACHE.get(key)
    if hit is not None:
        return hit
    if options.mode in ("auto", "cmake") and not any(a.startswith("-DCMAKE_CUDA_COMPILER") for a in options.cmake_args):
        nvcc = shutil.which("nvcc")
        if nvcc:
            from dataclasses import replace

            from vado.build.cmake import cuda_args

            options = replace(options, cmake_args=(*cuda_args(nvcc), *options.cmake_args))
    config = _read(root_p, options, static_make)
    build_files = [f.path for f in plan.files if f.kind.value in ("cmake", "makefile")]
    result = judge(config, root_p, [(f.path, f.kind) for f in plan.files], build_files)
    if len(_CACHE) >= _CACHE_SIZE:
        _CACHE.pop(next(iter(_CACHE)))
    _CACHE[key] = result
    return result
