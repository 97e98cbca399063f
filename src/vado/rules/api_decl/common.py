"""What the API-declaration rules share: the ROCm targets of a file, line starts, directive words, the
``#if`` group tests that show a region already written for HIP (:func:`_hip_aware`), the guard they write
and the token walks that find a declaration's start and enclosing block.
"""

from __future__ import annotations

import bisect
import re

from vado.model import Target, Verdict
from vado.rules import cuda_syntax as cs
from vado.rules.base import FileContext
from vado.scan.lexer import Kind


AUTO, MANUAL = Verdict.AUTOMATIC, Verdict.MANUAL


def _rocm_targets(ctx: FileContext) -> tuple[Target, ...]:
    return tuple(t for t in ctx.targets if t.family == "rocm" and t.hip_version)


def _line_start(text: str, offset: int) -> int:
    return text.rfind("\n", 0, offset) + 1


def _directive_word(tok: tuple) -> str:
    """``#  ifndef`` → ``ifndef``."""
    return tok[3].lstrip("#").strip()


_CONDITIONALS = frozenset({"if", "ifdef", "ifndef"})
#: Preprocessor names that show a region already written for HIP.
_HIP_MACROS = re.compile(r"__HIP_PLATFORM_AMD__|__HIP_PLATFORM_HCC__|__HIP_PLATFORM_NVIDIA__|__HIPCC__|__HIP__\b|__HIP_DEVICE_COMPILE__")
GUARD = "#if !defined(__HIP_PLATFORM_AMD__)"


def _enclosing_open(view: cs.DeviceView, opens: list[int], i: int) -> int | None:
    """The innermost ``{`` whose block holds token ``i``."""
    pairs = view.pairs
    k = bisect.bisect_left(opens, i) - 1
    while k >= 0:
        o = opens[k]
        if pairs.get(o, -1) > i:
            return o
        k -= 1
    return None


def _declaration_start(toks, i: int) -> int | None:
    """The first token of the declaration whose ``operator`` keyword is at ``i``; None for a template."""
    k = i - 1
    while k >= 0 and (toks[k][0] is Kind.IDENT or toks[k][3] in ("&", "*", "::")):
        k -= 1
    if k >= 0 and not (toks[k][3] in (";", "}", "{") or toks[k][0] is Kind.EOD):
        return None
    return k + 1


def _hip_aware(view: cs.DeviceView, defs: list) -> set[int]:
    """Indices (into ``defs``, in token order; each has a ``first`` token index: an ``OperatorDef`` or an
    ``AtomicDef``) of definitions inside an ``#if`` group that tests a HIP macro."""
    toks = view.tokens
    marks = view.directive_marks
    inside: set[int] = set()
    stack: list[bool] = []
    m = 0
    for n, d in enumerate(defs):
        while m < len(marks) and marks[m] < d.first:
            tok = toks[marks[m]]
            if tok[0] is Kind.DIRECTIVE:
                word = _directive_word(tok)
                if word in _CONDITIONALS:
                    end = marks[m + 1] if m + 1 < len(marks) else len(toks)
                    stack.append(any(_HIP_MACROS.search(t[3]) for t in toks[marks[m] + 1:end]))
                elif word == "endif" and stack:
                    stack.pop()
                elif word in ("elif", "else") and stack and not stack[-1]:
                    end = marks[m + 1] if m + 1 < len(marks) else len(toks)
                    stack[-1] = any(_HIP_MACROS.search(t[3]) for t in toks[marks[m] + 1:end])
            m += 1
        if any(stack):
            inside.add(n)
    return inside
