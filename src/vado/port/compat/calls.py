"""Call shapes the compat fixes read: a named function's calls with their arguments, an argument's text,
and whether a variable may be written between two tokens.
"""

from __future__ import annotations

from vado.port.translate import split_call_args
from vado.scan.lexer import Kind


def _calls(toks: list, names: set[str]) -> list[tuple[int, str, int, list[tuple[int, int]]]]:
    """``(name index, name, ')' index, arguments)`` of the calls of ``names`` (comments skipped)."""
    out = []
    for i, tok in enumerate(toks):
        if tok[0] is Kind.IDENT and tok[3] in names and i + 1 < len(toks) and toks[i + 1][3] == "(":
            split = split_call_args(toks, i + 1)
            if split is not None:
                out.append((i, tok[3], split[0], split[1]))
    return out


def _arg_text(toks: list, arg: tuple[int, int]) -> str:
    return "".join(t[3] for t in toks[arg[0] : arg[1] + 1])


def _written_between(toks: list, name: str, lo: int, hi: int) -> bool:
    """Whether ``name`` may be written in tokens ``(lo, hi)``: assigned, incremented, or its address taken."""
    assign = {"=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>=", "++", "--"}
    for k in range(lo + 1, hi):
        if toks[k][0] is not Kind.IDENT or toks[k][3] != name:
            continue
        nxt = toks[k + 1][3] if k + 1 < len(toks) else ""
        prev = toks[k - 1][3] if k > 0 else ""
        if nxt in assign or prev in ("++", "--", "&"):
            return True
    return False
