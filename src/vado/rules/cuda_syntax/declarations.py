"""Declarations found by bracket matching: function definitions with their CUDA qualifiers
(:func:`find_functions` and its Python reference), ``__shared__`` declarations (:func:`find_shared_decls`)
and object-like ``#define`` macros (:func:`find_defines`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from vado.rules.cuda_syntax.tokens import CLOSE, OPEN, bracket_map, directive_ranges, statement_start, text_of
from vado.scan.lexer import Kind, is_native_tokens


#: Words that precede ``(`` without being a function name (``if constexpr (c) {`` is a statement, not a
#: function named constexpr: its body was read as host code inside a kernel).
_NOT_FUNCTIONS = frozenset(
    "if for while switch catch return sizeof alignof decltype typeid static_assert "
    "noexcept new delete throw co_return co_await co_yield __attribute__ __declspec "
    "__launch_bounds__ alignas defined asm __asm__ __asm else do case constexpr consteval".split()
)
#: Tokens that may sit between a parameter list's ``)`` and a function body's ``{``.
_AFTER_PARAMS = frozenset("const volatile noexcept override final mutable throw &".split()) | {"&&"}
#: Execution-space and inlining qualifiers collected for a function.
FUNCTION_QUALIFIERS = frozenset(
    "__global__ __device__ __host__ __forceinline__ __noinline__ inline static extern constexpr "
    "virtual template".split()
)

# --- functions -----------------------------------------------------------------


@dataclass(frozen=True)
class FunctionDef:
    """A function definition: its name, CUDA qualifiers and body.

    ``body_open``/``body_close`` are token indices of the braces; ``start`` is
    the offset of the first qualifier (or the name), ``name_start``/``name_end``
    the name's span.
    """

    name: str
    qualifiers: frozenset[str]
    name_index: int
    body_open: int
    body_close: int
    start: int
    name_start: int
    name_end: int
    body_start: int
    body_end: int

    @property
    def is_kernel(self) -> bool:
        """``__global__``."""
        return "__global__" in self.qualifiers

    @property
    def is_device(self) -> bool:
        """Runs on the device: ``__global__`` or ``__device__`` (also ``__host__ __device__``)."""
        return "__global__" in self.qualifiers or "__device__" in self.qualifiers

    def contains(self, offset: int) -> bool:
        """True when ``offset`` lies inside the body."""
        return self.body_start <= offset < self.body_end


def find_functions(
    tokens: list, pairs: Mapping[int, int] | None = None, *, opens: list[int] | None = None
) -> list[FunctionDef]:
    """Function definitions (free functions, methods, templates) in source order.

    A definition is ``name ( ... ) [qualifiers] {``; qualifiers before the name
    are collected back to the previous ``;``, ``{``, ``}`` or directive end,
    skipping ``__launch_bounds__(...)``/``__attribute__((...))`` groups and
    template parameter lists. ``opens``, when given, are the indices of the
    ``(`` tokens (from a :class:`DeviceView`). Compiled tokens are read in C (with
    their own bracket pairs, which are :func:`bracket_map`'s); :func:`python_find_functions`
    is the reference.
    """
    if is_native_tokens(tokens):
        return [
            FunctionDef(name=tokens[i][3], qualifiers=frozenset(quals), name_index=i, body_open=j, body_close=close,
                        start=start, name_start=name_start, name_end=name_end, body_start=body_start, body_end=body_end)
            for i, j, close, start, name_start, name_end, body_start, body_end, quals
            in tokens.functions(_NOT_FUNCTIONS, _AFTER_PARAMS, FUNCTION_QUALIFIERS)
        ]
    return python_find_functions(tokens, pairs, opens=opens)


def python_find_functions(
    tokens: list, pairs: Mapping[int, int] | None = None, *, opens: list[int] | None = None
) -> list[FunctionDef]:
    """:func:`find_functions` in Python, for any token sequence: the reference of the compiled one."""
    if pairs is None:
        pairs = bracket_map(tokens)
    out: list[FunctionDef] = []
    n = len(tokens)
    if opens is None:
        opens = [k for k, tok in enumerate(tokens) if tok[3] == "("]
    # A definition's name is the token before a "(": look only there.
    for i in [k - 1 for k in opens if k]:
        tok = tokens[i]
        if tok[0] is not Kind.IDENT or tok[3] in _NOT_FUNCTIONS:
            continue
        if (i + 1) not in pairs:
            continue
        if i > 0 and tokens[i - 1][3] in (".", "->", "new", "=", "return", ",", "("):
            continue
        j = pairs[i + 1] + 1
        while j < n:
            t = tokens[j]
            if t[3] in _AFTER_PARAMS:
                j += 1
            elif t[3] in ("__attribute__", "noexcept", "throw", "__launch_bounds__") and j + 1 < n and tokens[j + 1][3] == "(":
                j = pairs.get(j + 1, j) + 1
            elif t[3] == "->":  # trailing return type: skip to the body
                k = j + 1
                while k < n and tokens[k][3] not in ("{", ";"):
                    k += 1
                j = k
                break
            else:
                break
        if j >= n or tokens[j][3] != "{" or j not in pairs:
            continue
        # A constructor initialiser list (": a(x), b(y) {") also reaches "{" only through ":",
        # which the loop above does not skip, so such constructors are simply not found.
        quals, start = _qualifiers_before(tokens, i, pairs)
        close = pairs[j]
        out.append(
            FunctionDef(
                name=tok[3],
                qualifiers=frozenset(quals),
                name_index=i,
                body_open=j,
                body_close=close,
                start=start,
                name_start=tok[1],
                name_end=tok[2],
                body_start=tokens[j][1],
                body_end=tokens[close][2],
            )
        )
    return out


def _qualifiers_before(tokens: list, i: int, pairs: Mapping[int, int]) -> tuple[set[str], int]:
    quals: set[str] = set()
    start = tokens[i][1]
    k = i - 1
    while k >= 0:
        t = tokens[k]
        if t[0] is Kind.EOD or t[0] is Kind.DIRECTIVE or t[3] in (";", "{", "}"):
            break
        if t[3] == ")" and k in pairs:
            opener = pairs[k]
            if opener > 0 and tokens[opener - 1][3] in ("__launch_bounds__", "__attribute__", "__declspec", "alignas", "__align__"):
                k = opener - 2
                start = tokens[opener - 1][1]
                continue
            break
        if t[3] == ">":  # template parameter list: walk back to its "template"
            depth = 0
            m = k
            while m >= 0:
                if tokens[m][3] == ">":
                    depth += 1
                elif tokens[m][3] == ">>":
                    depth += 2
                elif tokens[m][3] == "<":
                    depth -= 1
                    if depth <= 0:
                        break
                elif tokens[m][3] in (";", "{", "}"):
                    break
                m -= 1
            k = m - 1
            continue
        if t[3] == ":" and k > 0 and tokens[k - 1][3] in ("public", "private", "protected"):
            break
        if t[0] is Kind.IDENT and t[3] in FUNCTION_QUALIFIERS:
            quals.add(t[3])
        start = t[1]
        k -= 1
    return quals, start


def enclosing_function(functions: list[FunctionDef], offset: int) -> FunctionDef | None:
    """The innermost function whose body contains ``offset``."""
    best = None
    for f in functions:
        if f.contains(offset) and (best is None or f.body_start >= best.body_start):
            best = f
    return best


# --- __shared__ declarations --------------------------------------------------------------


@dataclass(frozen=True)
class SharedDecl:
    """One declarator of a ``__shared__`` declaration: ``__shared__ float s[32];``.

    ``dims`` are the texts between each pair of brackets (``("32",)``);
    ``extern`` marks ``extern __shared__`` (dynamic) arrays.
    """

    name: str
    type_text: str
    dims: tuple[str, ...]
    volatile: bool
    extern: bool
    start: int
    end: int
    name_start: int
    name_end: int


def find_shared_decls(
    text: str, tokens: list, pairs: Mapping[int, int] | None = None, *, candidates: list[int] | None = None
) -> list[SharedDecl]:
    """Every ``__shared__`` variable declarator, in order (``tokens`` are tokens of ``text``).

    ``candidates``, when given, are the indices of the ``__shared__`` tokens.
    """
    if candidates is None and "__shared__" not in text:
        return []
    if pairs is None:
        pairs = bracket_map(tokens)
    out: list[SharedDecl] = []
    n = len(tokens)
    if candidates is None:
        candidates = [i for i, tok in enumerate(tokens) if tok[3] == "__shared__"]
    for i in candidates:
        tok = tokens[i]
        if tok[0] is not Kind.IDENT:
            continue
        s = statement_start(tokens, i)
        end = i + 1
        depth = 0
        while end < n:
            t = tokens[end][3]
            if t in OPEN:
                depth += 1
            elif t in CLOSE:
                depth -= 1
                if depth < 0:
                    break
            elif t == ";" and depth == 0:
                break
            end += 1
        prefix = [t[3] for t in tokens[s:i]]
        extern = "extern" in prefix
        volatile = "volatile" in prefix
        decl_tokens = list(range(i + 1, end))
        # Split declarators at top-level commas.
        pieces: list[list[int]] = [[]]
        depth = 0
        for k in decl_tokens:
            t = tokens[k][3]
            if t in OPEN:
                depth += 1
            elif t in CLOSE:
                depth -= 1
            if t == "," and depth == 0:
                pieces.append([])
            else:
                pieces[-1].append(k)
        type_text = ""
        for p_idx, piece in enumerate(pieces):
            name_k = None
            dims: list[str] = []
            k_iter = 0
            while k_iter < len(piece):
                k = piece[k_iter]
                t = tokens[k]
                if t[3] == "=":
                    break
                if t[3] == "(" and k in pairs:  # __align__(16), alignas(16)
                    close = pairs[k]
                    while k_iter < len(piece) and piece[k_iter] <= close:
                        k_iter += 1
                    continue
                if t[3] == "[" and k in pairs:
                    close = pairs[k]
                    dims.append(text_of(text, tokens, k + 1, close))
                    while k_iter < len(piece) and piece[k_iter] <= close:
                        k_iter += 1
                    continue
                if t[0] is Kind.IDENT and not dims:
                    if t[3] == "volatile":
                        volatile = True
                    else:
                        name_k = k
                k_iter += 1
            if name_k is None:
                continue
            if p_idx == 0:
                type_text = " ".join(
                    tokens[k][3] for k in piece if k < name_k and tokens[k][3] not in ("volatile",)
                    and tokens[k][0] is Kind.IDENT
                )
            last = piece[-1]
            out.append(
                SharedDecl(
                    name=tokens[name_k][3],
                    type_text=type_text,
                    dims=tuple(dims),
                    volatile=volatile,
                    extern=extern,
                    start=tokens[s][1],
                    end=tokens[last][2],
                    name_start=tokens[name_k][1],
                    name_end=tokens[name_k][2],
                )
            )
    return out


# --- macros ------------------------------------------------------------------------


@dataclass(frozen=True)
class MacroDef:
    """An object-like ``#define NAME body``; ``body`` tokens are kept for inspection."""

    name: str
    body: tuple
    start: int
    end: int
    name_start: int
    name_end: int

    @property
    def body_text(self) -> str:
        """The body tokens joined by spaces."""
        return " ".join(t[3] for t in self.body)


def find_defines(tokens: list, marks: list[int] | None = None) -> list[MacroDef]:
    """Object-like macro definitions (function-like ones, ``#define F(x)``, are skipped).

    ``marks`` are the indices of the DIRECTIVE and EOD tokens when known.
    """
    out: list[MacroDef] = []
    for a, b in directive_ranges(tokens, marks):
        d = tokens[a][3]
        if not d.replace(" ", "").replace("\t", "").endswith("define"):
            continue
        if a + 1 >= b or tokens[a + 1][0] is not Kind.IDENT:
            continue
        name = tokens[a + 1]
        body_first = a + 2
        if body_first < b and tokens[body_first][3] == "(" and tokens[body_first][1] == name[2]:
            continue  # function-like
        out.append(MacroDef(name[3], tuple(tokens[body_first:b]), tokens[a][1], tokens[b][1], name[1], name[2]))
    return out
