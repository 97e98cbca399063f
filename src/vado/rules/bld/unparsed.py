"""BLD007: where vado could not read a build file to its end (a CMake tokenizer or Python parser stop)."""

from __future__ import annotations

from typing import Iterator

from vado.model import Finding, Severity
from vado.rules.base import FileContext, Rule
from vado.rules.bld.common import build_facts
from vado.scan.classify import FileKind


class UnparsedBuildFile(Rule):
    """vado could not fully read a build file (a syntax error, an unclosed CMake command).

    What it does
    ------------
    Reports where the CMake tokenizer or Python's parser stopped in a
    ``CMakeLists.txt`` or ``setup.py``. What could be read is still checked
    (``setup.py`` by pattern), but findings after that point may be missing.

    Why is this bad?
    ----------------
    An audit that silently skips part of a file would claim less work than
    there is. The file probably does not build as it is, either.

    Example
    -------
    .. code-block:: cmake

        project(demo LANGUAGES CXX CUDA

    Use instead
    -----------
    .. code-block:: cmake

        project(demo LANGUAGES CXX CUDA)

    Fix safety
    ----------
    No fix: vado does not guess what a broken file meant.

    References
    ----------
    - https://cmake.org/cmake/help/latest/manual/cmake-language.7.html
    - https://docs.python.org/3/library/ast.html
    """

    code = "BLD007"
    name = "unparsed-build-file"
    severity = Severity.INFO
    file_kinds = frozenset({FileKind.CMAKE, FileKind.SETUP_PY})

    def check(self, ctx: FileContext) -> Iterator[Finding]:
        for p in build_facts(ctx).problems:
            end = min(p.end, p.start + 200) if p.end > p.start else p.start
            # No verdicts: the problem is vado's view of the file, not a target's gap.
            yield self.finding(ctx, p.start, end, f"{p.reason}; findings after this point may be missing", {},
                               data={"reason": p.reason})
