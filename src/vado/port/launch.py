"""Kernel launches: ``k<<<grid, block, shmem, stream>>>(args)`` → ``hipLaunchKernelGGL``.

hip-clang accepts the triple-chevron syntax, so vado keeps it by default; this
transform is for ``--launch ggl`` (code bases that also build with older HIP or
that want the explicit macro). The output follows hipify-clang's spelling:
``hipLaunchKernelGGL(NAME, dim3(grid), dim3(block), shmem, stream, args...)``,
with ``HIP_KERNEL_NAME(...)`` around template kernel names so the macro sees one
argument, ``dim3(...)`` added only where the argument is not already a ``dim3(...)``
expression, and ``0`` for a missing shared-memory size or stream. A launch whose chevrons
clang-format split (``k<< <grid, block >> >(args)``, which nvcc accepts) is rewritten the
same way; in the default chevron mode ARCH011 joins them.
"""

from __future__ import annotations

from dataclasses import dataclass

from vado.model import Applicability, Edit, Fix
from vado.rules.cuda_syntax import chevron_run
from vado.scan.lexer import Kind

_OPEN = {"(": ")", "[": "]", "{": "}"}
_CLOSE = {")", "]", "}"}


@dataclass(frozen=True)
class Launch:
    """A triple-chevron launch located in a token list (indices into it)."""

    name_start: int  # token index of the kernel name's first token
    open_chevron: int  # index of '<<<'
    close_chevron: int  # index of '>>>'
    args_open: int  # index of '(' after '>>>'
    args_close: int  # index of the matching ')'
    config: tuple[tuple[int, int], ...]  # (first, last) token index of each config argument
    templated: bool


def _match_forward(toks: list, i: int) -> int:
    """Index of the bracket closing the one at ``i`` (or -1)."""
    depth = 0
    for j in range(i, len(toks)):
        kind, _, _, text = toks[j]
        if kind is not Kind.PUNCT:
            continue
        if text in _OPEN:
            depth += 1
        elif text in _CLOSE:
            depth -= 1
            if depth == 0:
                return j
    return -1


def _name_start(toks: list, i: int) -> tuple[int, bool] | None:
    """First token of the kernel name ending just before index ``i`` ('<<<')."""
    j = i - 1
    templated = False
    if j >= 0 and toks[j][0] is Kind.PUNCT and toks[j][3] in (">", ">>"):
        # Walk back over balanced template arguments.
        depth = 0
        while j >= 0:
            text = toks[j][3]
            if toks[j][0] is Kind.PUNCT:
                if text == ">":
                    depth += 1
                elif text == ">>":
                    depth += 2
                elif text == "<":
                    depth -= 1
                elif text in (";", "{", "}"):
                    return None
            if depth == 0:
                break
            j -= 1
        if j < 0:
            return None
        templated = True
        j -= 1
    if j < 0 or toks[j][0] is not Kind.IDENT:
        return None
    # Qualified names: ns::sub::kernel
    while j >= 2 and toks[j - 1][3] == "::" and toks[j - 2][0] is Kind.IDENT:
        j -= 2
    if j >= 1 and toks[j - 1][3] == "::":  # ::kernel (global scope)
        j -= 1
    return j, templated


def find_launches(toks: list, source: str | None = None) -> list[Launch]:
    """Every well-formed triple-chevron launch in ``toks`` (comments excluded).

    With the ``source`` text, launches whose chevrons are split by spaces (``k<< <g, b >> >(x)``, which
    nvcc accepts: :func:`vado.rules.cuda_syntax.chevron_run`) count too; ``open_chevron`` and
    ``close_chevron`` are then the first tokens of each run."""
    out: list[Launch] = []
    n = len(toks)
    for i, tok in enumerate(toks):
        if tok[0] is not Kind.PUNCT or tok[3] not in ("<<<", "<<", "<"):
            continue
        open_last = i if tok[3] == "<<<" else chevron_run(toks, source, i) if source is not None else -1
        if open_last < 0:
            continue
        named = _name_start(toks, i)
        if named is None:
            continue
        start, templated = named
        # Config arguments up to the matching '>>>' (brackets balanced, top-level commas split).
        depth = 0
        config = []
        first = open_last + 1
        j = open_last + 1
        close = close_last = -1
        while j < n:
            kind, _, _, text = toks[j]
            if kind is Kind.PUNCT:
                if text in _OPEN:
                    depth += 1
                elif text in _CLOSE:
                    depth -= 1
                elif depth == 0 and (text == ">>>" or source is not None and text[0] == ">"
                                     and chevron_run(toks, source, j) >= 0):
                    close, close_last = j, j if text == ">>>" else chevron_run(toks, source, j)
                    break
                elif text == "," and depth == 0:
                    config.append((first, j - 1))
                    first = j + 1
                elif text in (";", "<<<"):
                    break
            j += 1
        if close < 0 or first > close - 1:
            continue
        config.append((first, close - 1))
        if not 2 <= len(config) <= 4:
            continue
        if close_last + 1 >= n or toks[close_last + 1][3] != "(":
            continue
        args_close = _match_forward(toks, close_last + 1)
        if args_close < 0:
            continue
        out.append(Launch(start, i, close, close_last + 1, args_close, tuple(config), templated))
    return out


def _is_dim3_expr(toks: list, first: int, last: int) -> bool:
    if toks[first][3] != "dim3" or first + 1 > last or toks[first + 1][3] != "(":
        return False
    return _match_forward(toks, first + 1) == last


def launch_fixes(path: str, text: str, toks: list) -> list[Fix]:
    """Fixes that rewrite every launch in ``toks`` (tokens of ``text``) as hipLaunchKernelGGL."""
    code = [t for t in toks if t[0] is not Kind.COMMENT]
    fixes = []
    for launch in find_launches(code, text):
        name_text = text[code[launch.name_start][1] : code[launch.open_chevron - 1][2]]
        name = f"HIP_KERNEL_NAME({name_text})" if launch.templated else name_text
        parts = []
        for idx, (a, b) in enumerate(launch.config):
            arg = text[code[a][1] : code[b][2]].strip()
            if idx < 2 and not _is_dim3_expr(code, a, b):
                arg = f"dim3({arg})"
            parts.append(arg)
        while len(parts) < 4:
            parts.append("0")
        args_start = code[launch.args_open][2]
        args_end = code[launch.args_close][1]
        args = text[args_start:args_end]
        head = f"hipLaunchKernelGGL({name}, {', '.join(parts)}"
        replacement = head + (f", {args.strip()}" if args.strip() else "") + ")"
        start = code[launch.name_start][1]
        end = code[launch.args_close][2]
        fixes.append(
            Fix(
                (Edit(path, start, end, replacement),),
                Applicability.SAFE,
                f"launch {name_text} with hipLaunchKernelGGL",
                ("launch",),
            )
        )
    return fixes
