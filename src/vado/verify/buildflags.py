"""Include paths, macros and language standard for compiling a port's units.

Pragmatic on purpose: vado does not run the project's build. It reads the flags
that matter for compiling one translation unit on its own:

1. ``compile_commands.json`` (at the port's root or under ``build/``): the entry
   for the unit, read from ``arguments`` or ``command``. Kept: ``-I``,
   ``-isystem``, ``-iquote``, ``-D``, ``-U``, ``-include``, ``-std=``. Relative
   paths are taken relative to the entry's ``directory``.
2. Otherwise the build files of the port, through :mod:`vado.scan.buildfiles`'s
   readers: in a Makefile every word of the form ``-I…``/``-D…``/``-std=…``
   (after comments are cut) and in CMake ``include_directories``,
   ``target_include_directories``, ``add_definitions``,
   ``add_compile_definitions``, ``target_compile_definitions`` and
   ``CMAKE_{CXX,HIP,CUDA}_STANDARD``. Make variables (``$(X)``) in a path are
   not expanded; such paths are dropped.
3. Always: the unit's own directory and the port's root (and ``include/`` when
   it exists), the way most CUDA samples expect to find their headers.
"""

from __future__ import annotations

import json
import os
import re
import shlex
from dataclasses import dataclass
from pathlib import Path

from vado.model.text import decode_source
from vado.scan.buildfiles import cmake_commands


@dataclass(frozen=True)
class BuildFlags:
    """Flags for one unit: ``includes`` (dirs), ``defines`` (``NAME`` or ``NAME=V``), ``std`` and extras."""

    includes: tuple[str, ...] = ()
    defines: tuple[str, ...] = ()
    undefines: tuple[str, ...] = ()
    std: str = ""
    forced_includes: tuple[str, ...] = ()
    source: str = "defaults"

    def args(self) -> list[str]:
        """Compiler arguments in a stable order."""
        out = [f"-I{d}" for d in self.includes]
        out += [f"-D{d}" for d in self.defines]
        out += [f"-U{u}" for u in self.undefines]
        out += [a for f in self.forced_includes for a in ("-include", f)]
        if self.std:
            out.append(f"-std={self.std}")
        return out


def _compile_db(root: Path) -> list[dict] | None:
    for cand in (root / "compile_commands.json", root / "build" / "compile_commands.json"):
        if cand.is_file():
            try:
                data = json.loads(cand.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                return None
            return data if isinstance(data, list) else None
    return None


#: Options vado keeps from a compile command: (option, bucket, value is a path).
_KEPT = (("-isystem", "inc", True), ("-iquote", "inc", True), ("-include", "forced", True),
         ("-I", "inc", True), ("-D", "def", False), ("-U", "undef", False))


def _from_args(words: list[str], directory: str) -> tuple[list, list, list, str, list]:
    got: dict[str, list[str]] = {"inc": [], "def": [], "undef": [], "forced": []}
    std = ""
    k = 0
    while k < len(words):
        w = words[k]
        if w.startswith("-std="):
            std = w[5:]
        for opt, bucket, is_path in _KEPT:
            if not w.startswith(opt):
                continue
            if w == opt:
                if k + 1 >= len(words):
                    break
                k += 1
                val = words[k]
            else:
                val = w[len(opt):]
            if is_path and not os.path.isabs(val):
                val = os.path.normpath(os.path.join(directory, val))
            got[bucket].append(val)
            break
        k += 1
    return got["inc"], got["def"], got["undef"], std, got["forced"]


_MAKE_WORD = re.compile(r"(?<![\w-])(-I\s*[^\s\\]+|-D[A-Za-z_][^\s\\]*|-std=[^\s\\]+)")
_STD_VAR = re.compile(r"^CMAKE_(?:CXX|HIP|CUDA)_STANDARD$")


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
            vals = values[1:] if name.startswith("target_") else values
            for v in vals:
                if v in skip or "$" in v or "<" in v:
                    continue
                incs.append(v if os.path.isabs(v) else str((base / v).resolve()))
        elif name in ("add_definitions", "add_compile_definitions", "target_compile_definitions"):
            vals = values[1:] if name.startswith("target_") else values
            for v in vals:
                if v in skip or "$" in v:
                    continue
                defs.append(v[2:] if v.startswith("-D") else v)
        elif name == "set" and len(values) >= 2 and _STD_VAR.match(values[0]):
            std = std or f"c++{values[1]}"
    return incs, defs, std


def flags_for(root: str | os.PathLike, unit: str | os.PathLike) -> BuildFlags:
    """Flags for compiling ``unit`` (a path inside ``root``) on its own."""
    root = Path(root).resolve()
    unit = Path(unit).resolve()
    base_incs = [str(unit.parent), str(root)]
    if (root / "include").is_dir():
        base_incs.append(str(root / "include"))
    db = _compile_db(root)
    if db:
        for entry in db:
            if not isinstance(entry, dict) or "file" not in entry:
                continue
            directory = str(entry.get("directory") or root)
            f = Path(entry["file"])
            f = f if f.is_absolute() else Path(directory) / f
            if f.resolve() != unit:
                continue
            words = entry.get("arguments") or shlex.split(str(entry.get("command", "")))
            incs, defs, undefs, std, forced = _from_args([str(w) for w in words], directory)
            return BuildFlags(tuple(dict.fromkeys(base_incs + incs)), tuple(dict.fromkeys(defs)),
                              tuple(dict.fromkeys(undefs)), std, tuple(forced), "compile_commands.json")
    incs: list[str] = []
    defs: list[str] = []
    std = ""
    sources = []
    # The build files nearest the unit first: its own directory, then up to the root.
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
            text = decode_source(p.read_bytes())
            i, df, s = (_from_cmake if name == "CMakeLists.txt" else _from_make)(text, directory)
            incs += i
            defs += df
            std = std or s
            sources.append(str(p.relative_to(root)))
    return BuildFlags(
        tuple(dict.fromkeys(base_incs + incs)),
        tuple(dict.fromkeys(defs)),
        (),
        std,
        (),
        ", ".join(sources) if sources else "defaults",
    )
