"""The build model: what one configuration of a project compiles, unit by unit, with which flags.

A :class:`BuildConfig` is read from the project's build (a compile database, CMake's File API, a Make dry
run, a torch extension's ``setup.py``) or, where none can be read, guessed from its build files and
marked as a guess. Each :class:`TranslationUnit` is one compiler invocation on one source: its
directory, language, macros, include paths (with their kind), forced includes, standard, the other
options that change what compiles, and the options that were dropped because they only make sense to
the original compiler (``-arch=sm_80``, ``--threads=0``).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from enum import Enum


class Language(str, Enum):
    """The language a unit is compiled as."""

    CUDA = "cuda"
    HIP = "hip"
    C = "c"
    CXX = "c++"

    @property
    def device(self) -> bool:
        """True for GPU languages (compiled once per offload target)."""
        return self in (Language.CUDA, Language.HIP)


class IncludeKind(str, Enum):
    """How an include directory is searched: ``-iquote`` (quoted only), ``-I``, ``-isystem``, ``-idirafter``."""

    QUOTE = "iquote"
    DIR = "I"
    SYSTEM = "isystem"
    AFTER = "idirafter"

    def flag(self, path: str) -> list[str]:
        """Command-line words naming ``path`` with this kind."""
        return [f"-I{path}"] if self is IncludeKind.DIR else [f"-{self.value}", path]


@dataclass(frozen=True)
class IncludePath:
    """One include directory and its kind."""

    path: str
    kind: IncludeKind = IncludeKind.DIR


@dataclass(frozen=True)
class TranslationUnit:
    """One source the build compiles, with the flags it compiles it with.

    ``source`` is absolute; ``directory`` is where the compiler runs (relative paths of the command
    were resolved against it). ``macros`` keeps ``-D``/``-U`` in their order as ``("D", "N=4")`` /
    ``("U", "NDEBUG")``. ``options`` are other words that change what compiles (``-O3``,
    ``-fopenmp``, ``-Werror``, ``-ffast-math``, ``--offload-arch`` is never one of them); ``dropped``
    the words left out because they belong to another compiler or to linking. ``origin`` says where
    the unit came from (``make -n in DIR``, ``compile_commands.json``, ``CMake File API target T``).
    """

    source: str
    directory: str
    language: Language
    compiler: str = ""
    macros: tuple[tuple[str, str], ...] = ()
    includes: tuple[IncludePath, ...] = ()
    forced_includes: tuple[str, ...] = ()
    std: str = ""
    options: tuple[str, ...] = ()
    dropped: tuple[str, ...] = ()
    origin: str = ""
    target: str = ""

    @property
    def defines(self) -> tuple[str, ...]:
        """``NAME`` or ``NAME=VALUE`` of each ``-D``, in order."""
        return tuple(v for k, v in self.macros if k == "D")

    @property
    def undefines(self) -> tuple[str, ...]:
        """Names of each ``-U``, in order."""
        return tuple(v for k, v in self.macros if k == "U")

    def flag_args(self) -> list[str]:
        """The unit's flags as compiler words: includes by kind (order kept within a kind), macros in
        their order, forced includes, standard, other options. No source, output or offload target."""
        out: list[str] = []
        for kind in (IncludeKind.QUOTE, IncludeKind.DIR, IncludeKind.SYSTEM, IncludeKind.AFTER):
            for inc in self.includes:
                if inc.kind is kind:
                    out += kind.flag(inc.path)
        out += [f"-{k}{v}" for k, v in self.macros]
        for f in self.forced_includes:
            out += ["-include", f]
        if self.std:
            out.append(f"-std={self.std}")
        out += list(self.options)
        return out

    def relpath(self, root: str) -> str:
        """The source relative to ``root`` (with ``/``), or absolute when outside it."""
        rel = os.path.relpath(self.source, root)
        return self.source if rel.startswith("..") else rel.replace(os.sep, "/")


@dataclass(frozen=True)
class BuildConfig:
    """One configuration of a project: the units its build compiles.

    ``reader`` names how it was read (``compile-db``, ``cmake-file-api``, ``make``, ``setup.py``,
    ``guess``); ``guessed`` is True when no build was read and the flags come from reading build
    files as text (every branch at once); ``ran`` lists build-system logic vado executed to read it
    (``make -n in DIR``, ``cmake -S … -B …``), which the CLI says out loud; ``notes`` what was skipped.
    """

    root: str
    units: tuple[TranslationUnit, ...]
    reader: str
    guessed: bool = False
    ran: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    name: str = "default"
    sources_read: tuple[str, ...] = field(default=())

    def for_source(self, path: str) -> tuple[TranslationUnit, ...]:
        """Every unit compiling ``path`` (absolute or relative to the root)."""
        p = os.path.normpath(path if os.path.isabs(path) else os.path.join(self.root, path))
        return tuple(u for u in self.units if os.path.normpath(u.source) == p)
