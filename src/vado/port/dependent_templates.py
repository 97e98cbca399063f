"""The ``template`` keyword before a member template of a dependent type, which nvcc lets programs omit.

In ``vec_cast<T, S>::cast<N>(dst, src)`` inside a template, ``vec_cast<T, S>`` depends on the
template's parameters, so C++ reads ``cast < N > (…)`` as comparisons unless the name is marked as a
template: ``vec_cast<T, S>::template cast<N>(…)`` ([temp.names]). nvcc's front end (EDG) accepts
the unmarked form; clang, hence hipcc, rejects it: "reference to overloaded function could not be
resolved" (FlashInfer's ``vec_dtypes.cuh``, HeCBench attentionMultiHeadKVCache).

:func:`dependent_template_fixes` inserts the keyword where the qualifier's template arguments name a
parameter of a template in the file and the member is declared as a template in the file. Safe: the
keyword only says what the name is; were it not a template, the compiler would say so.
"""

from __future__ import annotations

from vado.model import Applicability, Edit, Fix
from vado.port.overloads import _next_code, _prev_code
from vado.port.translate import split_call_args
from vado.rules.cuda_syntax import spelling_index
from vado.scan.lexer import Kind




def template_heads(toks) -> list[tuple[int, int]]:
    """``(first, last)`` token indices of each ``template <…>`` head's parameter list (its ``<`` and ``>``)."""
    heads = []
    for t in spelling_index(toks).where("template"):
        j = _next_code(toks, t)
        if j < len(toks) and toks[j][3] == "<" and toks[t][0] is Kind.IDENT:
            parsed = split_call_args(toks, j, angle=True)
            if parsed is not None:
                heads.append((j, parsed[0]))
    return heads


def template_parameters(toks, heads: list[tuple[int, int]], *, types_only: bool = False) -> set[str]:
    """The names the heads declare: the last name of each parameter before its default (``class T``,
    ``size_t N``, ``typename... Ts``); with ``types_only``, those of type parameters (``typename``/``class``
    first: not ``size_t N``, not a template template parameter)."""
    names: set[str] = set()
    for open_i, _close in heads:
        parsed = split_call_args(toks, open_i, angle=True)
        for first, last in parsed[1] if parsed else ():
            if types_only and toks[first][3] not in ("typename", "class"):
                continue
            end = last
            for k in range(first, last + 1):
                if toks[k][3] == "=":
                    end = k - 1
                    break
            if end >= first and toks[end][0] is Kind.IDENT and toks[end][3] not in ("class", "typename"):
                names.add(toks[end][3])
    return names


def member_templates(toks, heads: list[tuple[int, int]]) -> set[str]:
    """Names declared right after a ``template <…>`` head as functions (the name before the first ``(``)."""
    names: set[str] = set()
    for _open, close in heads:
        for k in range(close + 1, min(len(toks), close + 40)):
            text = toks[k][3]
            if text in (";", "{", "}", "=") or toks[k][0] is Kind.DIRECTIVE:
                break
            if text == "(":
                prev = _prev_code(toks, k)
                if prev > close and toks[prev][0] is Kind.IDENT:
                    names.add(toks[prev][3])
                break
    return names


def dependent_template_fixes(path: str, text: str, toks: list) -> list[Fix]:
    """``Q<…P…>::name<…>(`` → ``Q<…P…>::template name<…>(`` where ``P`` is a template parameter and
    ``name`` a function template declared in the file."""
    index = spelling_index(toks)
    if not index.has_any(("template",)) or not index.has_any(("::",)):
        return []
    heads = template_heads(toks)
    members = member_templates(toks, heads)
    if not members:
        return []
    params = template_parameters(toks, heads)
    edits: list[Edit] = []
    for c in index.where("::"):
        name = _next_code(toks, c)
        after = _next_code(toks, name)
        if after >= len(toks) or toks[name][0] is not Kind.IDENT or toks[name][3] not in members or toks[after][3] != "<":
            continue
        args = split_call_args(toks, after, angle=True)
        call = _next_code(toks, args[0]) if args else len(toks)
        if call >= len(toks) or toks[call][3] != "(":
            continue  # not `name<…>(`: a comparison, say
        close = _prev_code(toks, c)
        if close < 0 or toks[close][3] != ">":
            continue
        # the qualifier's '<': walk back over its balanced argument list
        depth, k = 0, close
        while k >= 0:
            t = toks[k][3]
            depth += {">": 1, ">>": 2, "<": -1}.get(t, 0)
            if depth == 0:
                break
            if t in (";", "{", "}"):
                k = -1
            k -= 1
        if k <= 0 or toks[_prev_code(toks, k)][0] is not Kind.IDENT:
            continue
        if not any(toks[m][0] is Kind.IDENT and toks[m][3] in params for m in range(k + 1, close)):
            continue  # not dependent: no keyword needed
        edits.append(Edit(path, toks[name][1], toks[name][1], "template "))
    if not edits:
        return []
    return [Fix(tuple(edits), Applicability.SAFE,
                "`template` before a member template of a dependent type (nvcc accepts it unmarked, clang does not)",
                ("syntax",))]
