"""The build model: which translation units a project's build compiles, and with which flags.

:func:`read_build` reads it (compile database, CMake File API, Make dry run, ``setup.py``, or a
marked guess); :class:`BuildConfig` and :class:`TranslationUnit` carry it to verify, and
:mod:`vado.build.judged` to rules and port (each file's macros for its ``#if`` branches). See
``DESIGN.md``, "The build model".
"""

from vado.build.model import BuildConfig, IncludeKind, IncludePath, Language, TranslationUnit
from vado.build.read import MODES, BuildOptions, read_build

__all__ = ["BuildConfig", "BuildOptions", "IncludeKind", "IncludePath", "Language", "MODES", "TranslationUnit",
           "read_build"]
