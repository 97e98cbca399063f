"""Include paths, macros and language standard of one unit, as :mod:`vado.verify.build` needs them.

A thin view over the build model (:mod:`vado.build`): the unit's :class:`~vado.build.model.TranslationUnit`
from the project's compile database or CMake File API reply when the tree holds one (nothing of the
project runs), else the guess of :mod:`vado.build.guess` (build files read as text; the unit's
directory and the root searched for quoted includes only, ``include/`` with ``-I``).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from vado.build.model import BuildConfig, TranslationUnit


@dataclass(frozen=True)
class BuildFlags:
    """Flags for one unit: ``includes`` (dirs, every kind, in search order), ``defines`` (``NAME`` or
    ``NAME=V``), ``undefines``, ``std``, ``forced_includes``; ``source`` says where they came from;
    ``tu`` is the build model's unit they were read from."""

    includes: tuple[str, ...] = ()
    defines: tuple[str, ...] = ()
    undefines: tuple[str, ...] = ()
    std: str = ""
    forced_includes: tuple[str, ...] = ()
    source: str = "defaults"
    tu: TranslationUnit | None = None

    def args(self) -> list[str]:
        """Compiler arguments in a stable order (the unit's own, include kinds kept)."""
        if self.tu is not None:
            return self.tu.flag_args()
        out = [f"-I{d}" for d in self.includes]
        out += [f"-D{d}" for d in self.defines]
        out += [f"-U{u}" for u in self.undefines]
        out += [a for f in self.forced_includes for a in ("-include", f)]
        if self.std:
            out.append(f"-std={self.std}")
        return out


def flags_of(tu: TranslationUnit) -> BuildFlags:
    """The :class:`BuildFlags` view of a build model unit."""
    origin = tu.origin[len("guess: "):] if tu.origin.startswith("guess: ") else tu.origin
    return BuildFlags(tuple(i.path for i in tu.includes), tu.defines, tu.undefines, tu.std, tu.forced_includes,
                      origin, tu)


def flags_for(root: str | os.PathLike, unit: str | os.PathLike, config: BuildConfig | None = None) -> BuildFlags:
    """Flags for compiling ``unit`` (a path inside ``root``) on its own: its unit in ``config`` (default:
    the compile database or File API reply the tree holds), else guessed."""
    from vado.build.guess import guessed_unit
    from vado.build.model import Language
    from vado.build.read import BuildOptions, read_build

    root_p = Path(root).resolve()
    unit_p = Path(unit).resolve()
    if config is None:
        config = read_build(root_p, BuildOptions(mode="compile-db"))
    if not config.guessed:
        tus = config.for_source(str(unit_p))
        if tus:
            return flags_of(tus[0])
    lang = Language.C if unit_p.suffix == ".c" else Language.HIP
    return flags_of(guessed_unit(root_p, unit_p, lang))
