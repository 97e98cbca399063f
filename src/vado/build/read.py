"""Choosing how a project's build is read: :func:`read_build`.

Modes (the CLI's ``--build``):

- ``compile-db``: only what the project already holds: a ``compile_commands.json`` or a CMake File
  API reply (at the root or under ``build/``), a ``setup.py`` read without running it, and its
  Makefiles read as text (:mod:`vado.build.make_static`: the commands ``make -n`` would print, worked
  out without running make; beside a setup.py, the units only they compile). Nothing of the project
  runs. The default of the library, the MCP server and the agent.
- ``cmake``: configure the project with CMake in vado's build directory and read the File API reply.
- ``make``: dry-run the Makefiles (``make -n``).
- ``auto``: ``compile-db`` first; then CMake when the root holds ``CMakeLists.txt``, else Make when
  it holds a Makefile. The CLI's default: it prints what it ran.
- ``none``: read no build; guess (every source a unit, flags from build files read as text).

Whatever mode, when nothing can be read (no database, a configure that fails, a dry run that
compiles nothing) the result is the guess, with the reason in its notes and ``guessed=True``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Mapping, Sequence

from vado.build.model import BuildConfig

MODES = ("auto", "cmake", "make", "compile-db", "none")


@dataclass(frozen=True)
class BuildOptions:
    """How to read a build: ``mode`` (see the module docstring), make variables, CMake arguments, and
    the tools the build should find (``{"hipcc": path}``; a CMake or Make run of a port finds them)."""

    mode: str = "compile-db"
    make_vars: Mapping[str, str] = field(default_factory=dict)
    cmake_args: Sequence[str] = ()
    cmake: str = "cmake"
    make: str = "make"
    tools: Mapping[str, str] = field(default_factory=dict)
    timeout_s: float = 300.0


def _existing(root: Path) -> tuple[BuildConfig | None, list[str]]:
    """A compile database, File API reply or literal setup.py already in the tree."""
    from vado.build.compdb import find_compile_db, read_compile_db
    from vado.build.fileapi import find_reply, read_file_api
    from vado.build.setuppy import read_setup_py

    notes: list[str] = []
    reply = find_reply(root)
    if reply is not None:
        try:
            return read_file_api(reply, root), notes
        except ValueError as exc:
            notes.append(str(exc))
    db = find_compile_db(root)
    if db is not None:
        try:
            return read_compile_db(db, root), notes
        except ValueError as exc:
            notes.append(str(exc))
    setup = root / "setup.py"
    if setup.is_file() and not setup.is_symlink():
        cfg = read_setup_py(setup)
        if cfg is not None and cfg.units:
            return cfg, notes
        if cfg is not None:
            notes += list(cfg.notes)
    return None, notes


def read_build(root: str | os.PathLike, options: BuildOptions = BuildOptions()) -> BuildConfig:
    """The build config of the project at ``root`` (a directory; a file reads its directory's build).

    Never raises for a build that cannot be read: the result is then the guess, saying why.
    Raises :class:`ValueError` for an unknown mode.
    """
    from vado.build.guess import guess_config

    if options.mode not in MODES:
        raise ValueError(f"unknown build mode {options.mode!r} (one of {', '.join(MODES)})")
    root_p = Path(root).resolve()
    if root_p.is_file():
        return guess_config(root_p, "a single file")
    if options.mode == "none":
        return guess_config(root_p, "--build none")
    notes: list[str] = []
    if options.mode in ("auto", "compile-db"):
        cfg, notes = _existing(root_p)
        if cfg is not None:
            return _or_guess(_with_makefile_units(cfg, root_p, options), root_p, notes)
        if options.mode == "compile-db":
            read = _makefiles_read(root_p, options)
            if read is not None and read.units and not read.notes:
                return replace(read, notes=(*notes, "the Makefiles were read without running make: "
                                            + ", ".join(read.sources_read)))
            why = "no compile_commands.json, CMake File API reply or setup.py extension in the tree"
            if read is not None and read.notes:
                notes = [*notes, *read.notes]
            return _guess(root_p, why, notes)
    has_cmake = (root_p / "CMakeLists.txt").is_file()
    from vado.build.make import dry_run, has_makefile

    use = options.mode
    if use == "auto":
        use = "cmake" if has_cmake else ("make" if has_makefile(root_p) else "")
        if not use:
            return _guess(root_p, "no compile database, CMakeLists.txt or Makefile at the root", notes)
    if use == "cmake":
        if not has_cmake:
            return _guess(root_p, "--build cmake: no CMakeLists.txt at the root", notes)
        from vado.build.cmake import configure

        try:
            cfg = configure(root_p, cmake=options.cmake, args=options.cmake_args, timeout_s=options.timeout_s)
        except ValueError as exc:
            return _guess(root_p, str(exc), notes)
        except Exception as exc:  # a cmake that cannot start (ToolchainError) is a reason to guess
            return _guess(root_p, f"cmake could not run: {getattr(exc, 'what', exc)}", notes)
        return _or_guess(cfg, root_p, notes)
    if not has_makefile(root_p) and not any(has_makefile(p) for p in root_p.iterdir() if p.is_dir()):
        return _guess(root_p, "--build make: no Makefile in the tree", notes)
    try:
        cfg = dry_run(root_p, variables=options.make_vars, make=options.make, tools=options.tools,
                      timeout_s=min(options.timeout_s, 120.0))
    except Exception as exc:  # make missing (ToolchainError), an unreadable tree (OSError)
        return _guess(root_p, f"make -n could not run: {getattr(exc, 'what', exc)}", notes)
    return _or_guess(cfg, root_p, notes)


def _makefiles_read(root: Path, options: BuildOptions) -> BuildConfig | None:
    """The tree's Makefiles read without running make (:func:`vado.build.make_static.read_makefiles`), or None
    where the tree holds none."""
    from vado.build.make import makefile_dirs
    from vado.build.make_static import read_makefiles

    if not makefile_dirs(root, 1):
        return None
    return read_makefiles(root, variables=options.make_vars)


def _with_makefile_units(cfg: BuildConfig, root: Path, options: BuildOptions) -> BuildConfig:
    """A setup.py's config with the units only the tree's Makefiles compile (dgSPARSE-Lib 973a972: setup.py builds
    the PyTorch extension, src/ge-spmm/Makefile the library's own kernels), read without running make. A compile
    database or CMake reply is the build as it ran: nothing is added to it."""
    if cfg.reader != "setup.py":
        return cfg
    read = _makefiles_read(root, options)
    if read is None:
        return cfg
    have = {u.source for u in cfg.units}
    extra = tuple(u for u in read.units if u.source not in have)
    said = (f"{len(extra)} unit{'' if len(extra) == 1 else 's'} only the Makefiles compile, read from them without "
            "running make",) if extra else ()
    return replace(cfg, units=cfg.units + extra, notes=cfg.notes + said + read.notes,
                   sources_read=cfg.sources_read + read.sources_read)


def _guess(root: Path, why: str, notes: Sequence[str]) -> BuildConfig:
    from vado.build.guess import guess_config

    g = guess_config(root, why)
    return replace(g, notes=tuple(notes) + g.notes)


def _or_guess(cfg: BuildConfig, root: Path, notes: Sequence[str]) -> BuildConfig:
    """``cfg``, or the guess when it compiles nothing (what was run is kept)."""
    if cfg.units:
        return replace(cfg, notes=tuple(notes) + cfg.notes)
    g = _guess(root, f"the {cfg.reader} build compiles no C/C++/CUDA/HIP unit", [*notes, *cfg.notes])
    return replace(g, ran=cfg.ran)
