"""The warp rules' shared vocabulary: names that look like lane or warp indices, the CUDA warp
functions that take masks, operand scanning around an operator, and how a declaration of ``warpSize``
looks (``declares_warp_size``).
"""

from __future__ import annotations

import re
from typing import Mapping

from vado.rules import cuda_syntax as cs
from vado.scan.lexer import Kind

#: Identifiers that name a thread, lane or warp index.
_LANEISH = re.compile(
    r"^(?:threadIdx|thread_?id[xyz]?|thread_?idx|t_?idx?|tid[xyz]?|[lgb]_?tid|local_?tid|global_?tid|"
    r"lane\w*|\w*_lane|\w*Lane\w*|warp(?!_?size|Size|SIZE)\w*|\w*_warp|\w*Warp(?!Size)\w*|wid|wrp|laneid|lid)$"
)
_WARPISH = re.compile(r"^(?:warp(?!_?size|Size|SIZE)\w*|\w*_warp|\w*Warp(?!Size)\w*|wid|wrp)$")
_SYNC_MASKED = frozenset({
    "__shfl_sync", "__shfl_up_sync", "__shfl_down_sync", "__shfl_xor_sync", "__ballot_sync", "__any_sync",
    "__all_sync", "__uni_sync", "__match_any_sync", "__match_all_sync", "__syncwarp", "__reduce_add_sync",
    "__reduce_min_sync", "__reduce_max_sync", "__reduce_and_sync", "__reduce_or_sync", "__reduce_xor_sync",
})
_BALLOTS = frozenset({"__ballot_sync", "__ballot", "__activemask", "__match_any_sync", "__match_all_sync"})
_NARROW_TYPES = ("unsigned int", "unsigned", "uint32_t", "int", "uint", "int32_t", "unsigned long")
_FULL32 = frozenset({0xFFFFFFFF})
_WARP_NOTE = {"scale": cs.SCALE_WARP_NOTE, "scale_source": cs.SCALE_WARP_SOURCE, "hip_source": cs.HIP_WARP_SOURCE}


def _operand_left(toks: list, i: int, pairs: Mapping[int, int]) -> tuple[int, int]:
    """Token range ``[first, i)`` of the primary expression ending just before ``i``."""
    j = i - 1
    while j >= 0:
        t = toks[j]
        if t[3] in (")", "]") and j in pairs:
            j = pairs[j] - 1
            continue
        if t[0] is Kind.IDENT or t[0] is Kind.NUMBER:
            if j > 0 and toks[j - 1][3] in (".", "->", "::"):
                j -= 2
                continue
            j -= 1
            break
        break
    # j now points before the operand (or at a call name, which belongs to it)
    first = j + 1
    if first < i and toks[first][3] == "(" and first > 0 and toks[first - 1][0] is Kind.IDENT:
        first -= 1
    return first, i


def _operand_right(toks: list, i: int, pairs: Mapping[int, int]) -> tuple[int, int]:
    """Token range ``(i, end)`` of the primary expression just after ``i``."""
    j = i + 1
    n = len(toks)
    if j < n and toks[j][3] == "(" and j in pairs:
        return j, pairs[j] + 1
    k = j
    while k < n and (toks[k][0] in (Kind.IDENT, Kind.NUMBER) or toks[k][3] in (".", "->", "::")):
        k += 1
        if k < n and toks[k][3] in ("[", "(") and k in pairs:
            k = pairs[k] + 1
    return j, k


def _idents(toks: list, a: int, b: int) -> list[str]:
    return [t[3] for t in toks[a:b] if t[0] is Kind.IDENT]


def _is_laneish(names: list[str]) -> bool:
    return any(_LANEISH.match(n) for n in names)


def _is_narrow_literal(tok) -> bool:
    """An integer literal that fits 32 bits and has no 64-bit suffix (``0x0000ffff``, ``0xffu``)."""
    if tok[0] is not Kind.NUMBER:
        return False
    value = cs.int_value(tok[3])
    return value is not None and 0 <= value <= 0xFFFFFFFF and "l" not in tok[3].lower()


def _is_full_mask(tok) -> bool:
    return tok[0] is Kind.NUMBER and cs.int_value(tok[3]) in _FULL32 and not tok[3].lower().rstrip("u").endswith("l")


def _callee(toks, k: int, lo: int) -> str:
    """The name before the ``(`` whose argument list holds token ``k`` (``""`` when none is found from ``lo``)."""
    depth = 0
    for j in range(k - 1, lo - 1, -1):
        t = toks[j][3]
        if t in (")", "]", "}"):
            depth += 1
        elif t in ("(", "[", "{"):
            if depth == 0:
                return toks[j - 1][3] if t == "(" and j > 0 and toks[j - 1][0] is Kind.IDENT else ""
            depth -= 1
    return ""


#: Words after which a name is an operand, not a declarator: a call after one is a call (``not done and
#: __all_sync(m, p)``, DeepEP's combine kernels).
_DECL_PREV = frozenset({"return", "else", "case", "throw", "do", "co_return"}) | cs.OPERATOR_WORDS


def _in_directive(toks, i: int) -> bool:
    """Whether token ``i`` is an operand of a preprocessor line (a ``#define`` body, an ``#if`` condition)."""
    for j in range(i - 1, -1, -1):
        kind = toks[j][0]
        if kind is Kind.DIRECTIVE:
            return True
        if kind is Kind.EOD:
            return False
    return False


#: Words that may stand before a declared name's type (``static const int* warpSize``).
_DECL_SPECIFIERS = frozenset({"const", "volatile", "static", "extern", "register", "constexpr", "inline", "unsigned",
                              "signed", "long", "short", "struct", "class", "__shared__", "__device__", "__constant__",
                              "__restrict__", "auto"})
#: Type words a parameter list may hold before ``*``/``&`` and a name (``f(int* warpSize)``): in
#: ``f(n * warpSize)`` the word before ``*`` is a value, which these never are.
_TYPE_WORDS = frozenset({"int", "unsigned", "signed", "long", "short", "char", "float", "double", "bool", "void",
                         "size_t", "int32_t", "uint32_t", "int64_t", "uint64_t", "auto", "const"})
#: Words before a name that make it an operand, not a declaration (``return warpSize``, ``sizeof warpSize``).
_NOT_DECL_PREV = _DECL_PREV | {"sizeof", "alignof", "new", "delete", "co_yield", "co_await", "typeid", "decltype"}


def declares_warp_size(toks, k: int) -> bool:
    """Whether ``warpSize`` at token ``k`` is declared by the program: a macro (``#define warpSize …``),
    a variable or a parameter (``int warpSize``, ``const int* warpSize = …``, ``f(int& warpSize)``).

    A product or a bitwise and is not a declaration: ``tl = blockIdx.x * warpSize;``,
    ``f(n * warpSize)`` and ``x & warpSize`` read the built-in (issue 26: reading the first as a
    pointer declaration turned the whole file's rewrite off).
    """
    if k <= 0:
        return False
    prev = toks[k - 1]
    if prev[0] is Kind.DIRECTIVE:
        return True  # #define warpSize …
    if _in_directive(toks, k):
        return False  # a macro body: #define LANES warpSize
    nxt = toks[k + 1][3] if k + 1 < len(toks) else ";"
    if prev[0] is Kind.IDENT:
        return prev[3] not in _NOT_DECL_PREV
    if prev[3] not in ("*", "&", "&&") or k < 2 or nxt not in ("=", ";", ",", ")", "[", "{"):
        return False
    kind_word = toks[k - 2]
    if kind_word[0] is not Kind.IDENT or kind_word[3] in _NOT_DECL_PREV:
        return False
    before = toks[k - 3] if k >= 3 else None
    if before is None or before[0] is Kind.EOD or before[3] in (";", "{", "}"):
        return True  # a statement that starts with `T* warpSize`
    if before[0] is Kind.IDENT:
        return before[3] in _DECL_SPECIFIERS or kind_word[3] in _TYPE_WORDS
    if before[3] in ("(", ","):
        return kind_word[3] in _TYPE_WORDS  # a parameter list, as far as the words show
    return False


def _own_warp_size_scopes(view: cs.DeviceView, uses: list[int]) -> list[tuple[int, int]]:
    """The ``(start, end)`` offsets where ``warpSize`` is the program's own: the function that declares
    it (as a parameter or local), or the whole file for a macro or a file-scope declaration."""
    toks = view.tokens
    out = []
    for k in uses:
        if not declares_warp_size(toks, k):
            continue
        at = toks[k][1]
        func = view.function_at(at) or next((f for f in view.functions if f.name_end <= at < f.body_start), None)
        if func is not None and toks[k - 1][0] is not Kind.DIRECTIVE:
            out.append((func.start, func.body_end))
        elif toks[k - 1][0] is not Kind.DIRECTIVE and (scope := _template_scope(view, k)) is not None:
            out.append(scope)
        elif toks[k - 1][0] is not Kind.DIRECTIVE and (scope := _parameter_scope(view, k)) is not None:
            out.append(scope)
        else:
            out.append((0, len(view.text)))
    return out


def _template_scope(view: cs.DeviceView, k: int) -> tuple[int, int] | None:
    """For a template parameter ``warpSize`` (``template <int warpSize, typename T> __device__ T sum(T v)``):
    from ``template`` through the end of the declaration it heads (the function's or class's closing brace,
    or its ``;``). None when token ``k`` is not in a ``template <…>`` parameter list.

    Such a parameter is the template's own, not the file's (issue 26: AMGX's nbinormalization.cu declares
    ``template <int warpSize, typename T>`` for two reductions, and the built-in ``warpSize`` its kernels pass
    to ``utils::shfl`` stayed 64 beside the 32-lane shuffle helpers)."""
    toks, pairs = view.tokens, view.pairs
    j, depth = k - 1, 0
    while j > 0 and toks[j][3] not in (";", "{", "}") and toks[j][0] is not Kind.EOD:
        t = toks[j][3]
        if t in (">", ">>"):
            depth += len(t)
        elif t == "<":
            if depth == 0:
                break
            depth -= 1
        elif t in (")", "]") and j in pairs:
            j = pairs[j]
        j -= 1
    if j <= 0 or toks[j][3] != "<" or toks[j - 1][3] != "template":
        return None
    m, level = j + 1, 1
    while m < len(toks) and level:  # past the closing '>' of the parameter list
        t = toks[m][3]
        level += (t == "<") - (t == ">") - 2 * (t == ">>")
        if t in ("(", "[") and m in pairs:
            m = pairs[m]
        m += 1
    while m < len(toks):
        t = toks[m][3]
        if t == ";":
            return toks[j - 1][1], toks[m][2]
        if t == "{" and m in pairs:
            return toks[j - 1][1], toks[pairs[m]][2]
        if t in ("(", "[") and m in pairs:
            m = pairs[m]
        m += 1
    return toks[j - 1][1], len(view.text)


def _parameter_scope(view: cs.DeviceView, k: int) -> tuple[int, int] | None:
    """For a parameter ``warpSize`` of a function vado does not find as one (a prototype, a constructor
    with an initialiser list): from its parameter list through the declaration's ``;`` or its body's ``}``.
    None when token ``k`` is not inside parentheses."""
    toks, pairs = view.tokens, view.pairs
    j = cs.enclosing_paren(toks, k)
    if j is None or j not in pairs:
        return None
    m, level = pairs[j] + 1, 0
    while m < len(toks):
        t = toks[m][3]
        if t in ("(", "["):
            level += 1
        elif t in (")", "]"):
            level -= 1
        elif level == 0 and t == ";":
            return toks[j][1], toks[m][2]
        elif level == 0 and t == "{" and m in pairs:
            return toks[j][1], toks[pairs[m]][2]
        m += 1
    return toks[j][1], len(view.text)


def _in_scopes(scopes: list[tuple[int, int]], at: int) -> bool:
    return any(a <= at < b for a, b in scopes)


#: Execution-space words a project macro may hold for a function's qualifiers.
_EXEC_SPACES = frozenset({"__device__", "__global__"})


def device_qualifier_macros(ctx, view: cs.DeviceView, candidates: set[str]) -> frozenset[str]:
    """Those of ``candidates`` that are object-like macros standing for a device qualifier
    (``#define DEV __device__ __forceinline__``, ``#define KERNEL __global__``, or a macro whose body names
    another such macro), defined in the file or in a project header it includes (read within the audited
    tree, ``source_root``, as :func:`vado.rules.warp.modes._header_wide_warps` reads them).

    :func:`cs.find_functions` collects CUDA's own qualifier words only, so a function qualified through
    such a macro is not device code to :meth:`DeviceView.in_device_code` (issue 26: its ``warpSize``
    stayed 64 beside shuffles the port narrowed to 32 lanes)."""
    if not candidates:
        return frozenset()
    bodies = {m.name: {t[3] for t in m.body} for m in view.defines}
    root = (ctx.options or {}).get("source_root")
    missing = candidates - bodies.keys()
    if root and missing:
        from vado.rules.warp.modes import _quoted_includes
        from vado.scan.lexer import code_tokens, is_native_tokens, lex
        from vado.scan.project_headers import project_headers

        includes = _quoted_includes(view)
        if includes:
            for _, text in project_headers(str(root)).headers_defining(ctx.path, includes, missing):
                toks = lex(text)
                code = toks.code() if is_native_tokens(toks) else code_tokens(list(toks))
                for m in cs.DeviceView(text, code).defines:
                    bodies.setdefault(m.name, {t[3] for t in m.body})
    device = {name for name, words in bodies.items() if words & _EXEC_SPACES}
    grew = True
    while grew:  # #define HD_INLINE DEV inline
        more = {name for name, words in bodies.items() if name not in device and words & device}
        device |= more
        grew = bool(more)
    return frozenset(device & candidates)


def qualifier_words(view: cs.DeviceView, func) -> set[str]:
    """The identifiers written before ``func``'s name, from its first qualifier on (macros among them)."""
    toks, out = view.tokens, set()
    k = func.name_index - 1
    while k >= 0 and toks[k][1] >= func.start:
        if toks[k][0] is Kind.IDENT:
            out.add(toks[k][3])
        k -= 1
    return out


def taken_by_amd(ctx, tok) -> bool:
    """Whether the AMD build compiles ``tok`` (no branch it does not take holds it)."""
    from vado.scan.preprocessor import amd_configuration, file_conditionals

    inactive = file_conditionals(ctx, amd_configuration(ctx.options))  # kept on the context per configuration
    return not (inactive and inactive.covers(tok[1], tok[2]))


def under_cuda_switch(view, offset: int) -> bool:
    """Whether ``offset`` lies in an ``#if`` branch whose condition names a CUDA switch (``RAJA_CUDA_ACTIVE``,
    ``GGML_USE_CUDA``, ``__CUDA_ARCH__``): a project with its own HIP build leaves such code out of it, though
    vado does not know the switch's value (RAJA 2141422b policy/cuda/*.hpp under ``#if defined(RAJA_CUDA_ACTIVE)``)."""
    toks = view.tokens
    stack: list[list[bool]] = []  # per open group: [this branch is the CUDA switch's, its #else would be]
    for a, b in cs.directive_ranges(toks, view.directive_marks):
        if toks[a][1] >= offset:
            break
        d = toks[a][3].replace(" ", "").replace("\t", "")
        cuda = any(t[0] is Kind.IDENT and "CUDA" in t[3] for t in toks[a + 1:b])
        negated = d == "#ifndef" or any(t[3] in ("!", "not") for t in toks[a + 1:b])
        if d in ("#if", "#ifdef", "#ifndef"):
            stack.append([cuda and not negated, cuda and negated])
        elif d.startswith("#elif") and stack:
            stack[-1] = [cuda and not negated, False]
        elif d == "#else" and stack:
            stack[-1] = [stack[-1][1], False]
        elif d == "#endif" and stack:
            stack.pop()
    return any(branch for branch, _ in stack)
