"""CUDA facts in build files (CMake, Make, setup.py) with exact byte spans.

Three readers share one result type, :class:`BuildFact`: a kind, the span of
the thing to rewrite, its text and a small ``data`` dict. ``vado audit`` turns
facts into BLD findings; ``vado port`` rewrites the spans (``CUDA`` →
``HIP`` in ``project()``, ``-arch=sm_80`` → ``--offload-arch=gfx942`` …).

- CMake is tokenised the way CMake reads it (commands, quoted, bracket and
  unquoted arguments, line and bracket comments), so a ``CUDA`` in a comment or
  a string of another command is never a fact.
- Makefiles are read line by line with comments removed; flags are found as
  words, so ``-ffast-math`` is not ``--use_fast_math``.
- ``setup.py`` is read with :mod:`ast` (never executed); a file that does not
  parse is read by pattern and says so in ``problems``.

Offsets are byte offsets into the file's latin-1 view.

Layout: :mod:`.facts` (:class:`FactKind`, :class:`BuildFact`, :class:`BuildFacts`, and how a reader
finishes its list), :mod:`.nvcc_flags` (nvcc flags, CUDA libraries and paths as words: shared by the three
readers), :mod:`.makefile` (:func:`parse_makefile`, the Makefile conditionals and other-platform branches),
:mod:`.cmake_syntax` (CMake's tokens and commands: :func:`cmake_commands`, read by other modules too),
:mod:`.cmake` (:func:`parse_cmake`) and :mod:`.setup_py` (:func:`parse_setup_py_build`).
"""

from __future__ import annotations

from vado.scan.buildfiles.cmake import parse_cmake
from vado.scan.buildfiles.cmake_syntax import CMakeArg, CMakeCommand, cmake_commands
from vado.scan.buildfiles.facts import BuildFact, BuildFacts, FactKind
from vado.scan.buildfiles.makefile import (
    MakeConditional,
    makefile_conditionals,
    other_platform_ranges,
    parse_makefile,
    tested_for_value,
)
from vado.scan.buildfiles.nvcc_flags import CUDA_LIBRARIES, classify_flag, flag_facts, sm_numbers
from vado.scan.buildfiles.setup_py import parse_setup_py_build

__all__ = [
    "BuildFact",
    "BuildFacts",
    "CMakeArg",
    "CMakeCommand",
    "CUDA_LIBRARIES",
    "FactKind",
    "MakeConditional",
    "classify_flag",
    "cmake_commands",
    "flag_facts",
    "makefile_conditionals",
    "other_platform_ranges",
    "parse_cmake",
    "parse_makefile",
    "parse_setup_py_build",
    "sm_numbers",
    "tested_for_value",
]
