"""Reading the preprocessor tests of CUDA macros: which directive holds a name, how the name is tested
(``#ifdef``, a value in ``#if``, a ``#define``, code), and the branches a comparison selects. Shared by
ARCH007-ARCH010, with the verdicts of a preprocessor test per target family.
"""

from __future__ import annotations

from dataclasses import dataclass

from vado.rules.arch.common import AS_IS, AUTO, MANUAL
from vado.rules.cuda_syntax.tokens import enclosing_paren
from vado.scan.lexer import Kind


def _directive_of(toks, i: int) -> int | None:
    """Index of the directive token (``#if``, ``#ifdef`` …) whose line holds token ``i``, or None in code."""
    for j in range(i - 1, -1, -1):
        kind = toks[j][0]
        if kind is Kind.DIRECTIVE:
            return j
        if kind is Kind.EOD:
            return None
    return None


def _directive_name(tok) -> str:
    return tok[3].replace(" ", "").replace("\t", "")


def _defined_operand(toks, i: int) -> tuple[int, int] | None:
    """For a name at ``i`` tested by ``defined X`` / ``defined(X)``: ``(first, end)`` token range of the test."""
    if i >= 1 and toks[i - 1][3] == "defined":
        return i - 1, i + 1
    if i >= 2 and toks[i - 1][3] == "(" and toks[i - 2][3] == "defined" and i + 1 < len(toks) and toks[i + 1][3] == ")":
        return i - 2, i + 2
    return None


def _tested_name(toks, i: int) -> str | None:
    """How the name at ``i`` is tested: ``ifdef`` (``#ifdef``/``#ifndef``/``defined``), ``value`` (in an
    ``#if``/``#elif`` expression), ``define`` (a ``#define``/``#undef`` of it or its body), ``code``."""
    d = _directive_of(toks, i)
    if d is None:
        return "code"
    name = _directive_name(toks[d])
    if name in ("#ifdef", "#ifndef") and d == i - 1:
        return "ifdef"
    if name in ("#if", "#elif"):
        return "ifdef" if _defined_operand(toks, i) else "value"
    if name in ("#define", "#undef"):
        return "define"
    return None


_PREPROC_VERDICTS = {"rocm": AUTO, "oneapi": MANUAL, "scale": AS_IS, "zluda": AS_IS}

#: The oldest NVIDIA architecture CUDA 13 compiles for (sm_75) and the first one with
#: Hopper's features (sm_90): a comparison of ``__CUDA_ARCH__`` with a level at or below
#: the first, or at or above the second, has one answer for every GPU vado treats AMD's as.
CUDA_ARCH_FLOOR = 750
CUDA_ARCH_HOPPER = 900
_CMP = {">=": lambda a, b: a >= b, ">": lambda a, b: a > b, "<": lambda a, b: a < b, "<=": lambda a, b: a <= b,
        "==": lambda a, b: a == b, "!=": lambda a, b: a != b}
DEVICE_PASS = "defined(__HIP_DEVICE_COMPILE__)"


#: Tokens of code no AMD GPU can run: inline assembly (PTX, in a CUDA program).
_PTX_TOKENS = frozenset({"asm", "__asm__", "__asm"})


@dataclass(frozen=True)
class Branch:
    """One branch of a conditional group: its directive's token index and its body's token range."""

    directive: int
    body: range


def group_branches(toks, d: int) -> list[Branch] | None:
    """Every branch of the conditional group whose ``#if``/``#elif`` directive is at ``d``, from its
    opening ``#if`` to its ``#endif``; None where the group is not closed or not found."""
    opener, depth = d, 0
    while _directive_name(toks[opener]) in ("#elif", "#else"):
        k = opener - 1
        while k >= 0:
            if toks[k][0] is Kind.DIRECTIVE:
                name = _directive_name(toks[k])
                if name == "#endif":
                    depth += 1
                elif name in ("#if", "#ifdef", "#ifndef"):
                    if depth == 0:
                        break
                    depth -= 1
                elif name in ("#elif", "#else") and depth == 0:
                    break
            k -= 1
        if k < 0:
            return None
        opener = k
    out: list[Branch] = []
    n = len(toks)
    current, depth = opener, 0
    for k in range(opener + 1, n):
        if toks[k][0] is not Kind.DIRECTIVE:
            continue
        name = _directive_name(toks[k])
        if name in ("#if", "#ifdef", "#ifndef"):
            depth += 1
        elif name == "#endif" and depth:
            depth -= 1
        elif depth == 0 and name in ("#elif", "#else", "#endif"):
            out.append(Branch(current, range(_after_line(toks, current), k)))
            if name == "#endif":
                return out
            current = k
    return None


def _after_line(toks, d: int) -> int:
    """The index of the first token after the end of the directive line at ``d``."""
    n = len(toks)
    j = d + 1
    while j < n and toks[j][0] is not Kind.EOD:
        j += 1
    return j + 1


def _branches(toks, d: int) -> tuple[range, range] | None:
    """Token ranges of the branch an ``#if``/``#elif`` at ``d`` selects and of the branches after it
    (its ``#elif``s and ``#else``, up to its ``#endif``); None where the group is not closed."""
    group = group_branches(toks, d)
    if group is None:
        return None
    i = next(i for i, b in enumerate(group) if b.directive == d)
    end = group[-1].body.stop  # the #endif
    return group[i].body, range(group[i + 1].directive if i + 1 < len(group) else end, end)


def _negations(toks, d: int, i: int) -> int:
    """How many ``!`` apply to the comparison at ``i`` in the directive at ``d`` (``!(… >= 800)``)."""
    stack: list[bool] = []
    for k in range(d + 1, i):
        text = toks[k][3]
        if text == "(":
            stack.append(toks[k - 1][3] == "!")
        elif text == ")" and stack:
            stack.pop()
    return sum(stack) + (toks[i - 1][3] == "!")


def _has_error(toks, span: range) -> bool:
    """Whether ``span`` holds an ``#error`` directive."""
    return any(toks[k][0] is Kind.DIRECTIVE and _directive_name(toks[k]) == "#error" for k in span)


def _has_code(toks, span: range) -> bool:
    return any(toks[k][0] is not Kind.DIRECTIVE and toks[k][0] is not Kind.EOD for k in span)


def _has_ptx(toks, span: range) -> bool:
    return any(toks[k][0] is Kind.IDENT and toks[k][3] in _PTX_TOKENS for k in span)


def _comparison_branches(toks, i: int) -> tuple[range, range] | None:
    """Token ranges of the branch compiled when the comparison at ``i`` is true and of the one compiled
    when it is false, for a comparison in an ``#if``/``#elif``; None elsewhere or in an unclosed group."""
    d = _directive_of(toks, i)
    spans = _branches(toks, d) if d is not None and _directive_name(toks[d]) in ("#if", "#elif") else None
    if spans is None:
        return None
    selected, others = spans
    if _negations(toks, d, i) % 2:
        selected, others = others, selected
    return selected, others


def _static_assert_condition(toks, i: int) -> tuple[int, int] | None:
    """For a name at ``i`` inside the condition of ``static_assert(COND, …)`` / ``static_assert(COND)``: the
    token range ``(start, end)`` of ``COND``; None elsewhere."""
    k = enclosing_paren(toks, i, comma_stops=True)
    if k is None or k < 1 or toks[k - 1][3] not in ("static_assert", "_Static_assert"):
        return None
    start, depth, j, n = k + 1, 0, i, len(toks)
    while j < n:
        t = toks[j][3]
        if t == "(":
            depth += 1
        elif t == ")":
            if depth == 0:
                break
            depth -= 1
        elif t in (";", "{", "}") or (t == "," and depth == 0):
            break
        j += 1
    if j >= n or toks[j][3] not in (",", ")"):
        return None
    return start, j
