"""The fallback when no build can be read: flags guessed from build files read as text.

Every ``-I``/``-D``/``-std=`` word of a Makefile (all branches at once: that is why it is a guess) and
CMake's ``include_directories``, ``add_compile_definitions``, ``target_*`` and
``CMAKE_{CXX,HIP,CUDA}_STANDARD`` apply to the units under their directory; the unit's own directory,
the root and ``include/`` are searched too. Units are the tree's C/C++/CUDA/HIP sources. Every
config this module makes has ``guessed=True`` and says so in its notes.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from vado.build.model import BuildConfig, IncludeKind, IncludePath, Language, TranslationUnit
from vado.model.text import decode_source
from vado.scan.buildfiles import cmake_commands

_MAKE_WORD = re.compile(r"(?<![\w-])(-I\s*[^\s\\]+|-D[A-Za-z_][^\s\\]*|-std=[^\s\\]+)")
_STD_VAR = re.compile(r"^CMAKE_(?:CXX|HIP|CUDA)_STANDARD$")
_HIP_MARKERS = re.compile(r"#\s*include\s*[<\"]hip/|__global__|__device__|<<<|hipLaunchKernelGGL")


@dataclass(frozen=True)
class GuessedFlags:
    """What the build files of one unit's directories say, read as text."""

    includes: tuple[str, ...]
    defines: tuple[str, ...]
    std: str
    sources: tuple[str, ...]


def _from_make(text: str, base: Path) -> tuple[list, list, str]:
    incs, defs = [], []
    std = ""
    for raw in text.splitlines():
        line = raw.split("#", 1)[0]
        for m in _MAKE_WORD.finditer(line):
            w = m.group(1)
            if w.startswith("-I"):
                p = w[2:].strip().strip("\"'")
                if "$" not in p:
                    incs.append(str((base / p).resolve()) if not os.path.isabs(p) else p)
            elif w.startswith("-D"):
                if "$" not in w:
                    defs.append(w[2:].strip("\"'"))
            else:
                std = std or w[5:]
    return incs, defs, std


def _from_cmake(text: str, base: Path) -> tuple[list, list, str]:
    incs, defs = [], []
    std = ""
    cmds, _ = cmake_commands(text)
    skip = {"PUBLIC", "PRIVATE", "INTERFACE", "SYSTEM", "BEFORE", "AFTER"}
    for cmd in cmds:
        values = [a.text.strip('"') for a in cmd.args]
        name = cmd.lname
        if name in ("include_directories", "target_include_directories"):
            for v in (values[1:] if name.startswith("target_") else values):
                if v in skip or "$" in v or "<" in v:
                    continue
                incs.append(v if os.path.isabs(v) else str((base / v).resolve()))
        elif name in ("add_definitions", "add_compile_definitions", "target_compile_definitions"):
            for v in (values[1:] if name.startswith("target_") else values):
                if v in skip or "$" in v:
                    continue
                defs.append(v[2:] if v.startswith("-D") else v)
        elif name == "set" and len(values) >= 2 and _STD_VAR.match(values[0]):
            std = std or f"c++{values[1]}"
    return incs, defs, std


def guessed_flags(root: str | os.PathLike, unit: str | os.PathLike) -> GuessedFlags:
    """The build files from ``unit``'s directory up to ``root``, read as text, nearest first."""
    root = Path(root).resolve()
    unit = Path(unit).resolve()
    incs: list[str] = []
    defs: list[str] = []
    std = ""
    sources = []
    d = unit.parent
    chain = []
    while True:
        chain.append(d)
        if d == root or root not in d.parents:
            break
        d = d.parent
    for directory in chain:
        for name in ("Makefile", "makefile", "GNUmakefile", "CMakeLists.txt"):
            p = directory / name
            if not p.is_file():
                continue
            try:
                text = decode_source(p.read_bytes())
            except OSError:
                continue
            i, df, s = (_from_cmake if name == "CMakeLists.txt" else _from_make)(text, directory)
            incs += i
            defs += df
            std = std or s
            sources.append(str(p.relative_to(root)))
    return GuessedFlags(tuple(dict.fromkeys(incs)), tuple(dict.fromkeys(defs)), std, tuple(sources))


def default_includes(root: Path, unit: Path) -> list[IncludePath]:
    """Where most CUDA samples find their headers: the unit's directory and the root for quoted
    includes only (``-iquote``: a project's ``dev/unistd.h`` must not shadow ``<unistd.h>``), and
    ``include/`` as ``-I``."""
    out = [IncludePath(str(unit.parent), IncludeKind.QUOTE), IncludePath(str(root), IncludeKind.QUOTE)]
    if (root / "include").is_dir():
        out.append(IncludePath(str(root / "include"), IncludeKind.DIR))
    return out


def guessed_unit(root: str | os.PathLike, path: str | os.PathLike, language: Language) -> TranslationUnit:
    """One unit with guessed flags (its origin names the build files read, or ``defaults``)."""
    root = Path(root).resolve()
    path = Path(path).resolve()
    g = guessed_flags(root, path)
    incs = tuple(dict.fromkeys(default_includes(root, path) + [IncludePath(p, IncludeKind.DIR) for p in g.includes]))
    return TranslationUnit(
        source=str(path), directory=str(root), language=language, includes=incs,
        macros=tuple(("D", d) for d in g.defines),
        std="" if (language is Language.C) == g.std.startswith(("c++", "gnu++")) else g.std,
        origin="guess: " + (", ".join(g.sources) if g.sources else "defaults"),
    )


def guess_config(root: str | os.PathLike, why: str) -> BuildConfig:
    """Every C/C++/CUDA/HIP source of the tree as a unit with guessed flags; ``why`` no build was read."""
    from vado.scan.classify import FileKind
    from vado.scan.discover import walk

    root_p = Path(root).resolve()
    base = root_p if root_p.is_dir() else root_p.parent
    plan = walk(root_p)
    units: list[TranslationUnit] = []
    for f in plan.files:
        if f.kind in (FileKind.CUDA_SOURCE, FileKind.HIP_SOURCE):
            lang = Language.HIP
        elif f.kind is FileKind.CXX_SOURCE:
            try:
                text = decode_source(f.abs_path.read_bytes())
            except OSError:
                continue
            hip = bool(_HIP_MARKERS.search(text))
            lang = Language.HIP if hip else (Language.C if f.abs_path.suffix == ".c" else Language.CXX)
        else:
            continue
        units.append(guessed_unit(base, f.abs_path, lang))
    skipped = tuple(f"{s.path}: {s.reason.value}: {s.detail}".rstrip(": ") for s in plan.skips)
    return BuildConfig(str(base), tuple(units), "guess", guessed=True,
                       notes=(f"no build read ({why}): units and flags are guessed from the files",) + skipped)
