"""Where a local definition goes in a file: before the top-level construct holding its first use, at file
scope, one guarded copy per ``#if`` branch that needs its own (:func:`insertion_offsets`).
"""

from __future__ import annotations

from vado.model import Edit
from vado.scan.lexer import Kind


def _directive(tok) -> str:
    return tok[3].replace(" ", "").replace("\t", "")


def _top_level_starts(toks: list, wanted: list[int]) -> dict[int, tuple[int, tuple[int, ...]]]:
    """For each token index in ``wanted``: the index of the first token of the top-level
    construct holding it (a declaration, a function, a namespace or ``extern "C"``
    block, or a file-scope preprocessor line such as the ``#define`` whose body
    holds it), and the ``#if`` branches open at file scope there (the token
    indices of their ``#if``/``#elif``/``#else`` lines, outermost first).

    A construct ends at a file-scope ``;``, at the ``}`` closing a file-scope
    block (not one opened by ``struct``/``class``/``union``/``enum``/``typedef``,
    whose ``}`` the declarator and ``;`` follow), or with a preprocessor line.
    When unsure the start stays earlier, which is still at file scope.
    """
    out: dict[int, tuple[int, tuple[int, ...]]] = {}
    todo = sorted(set(wanted))
    w = 0
    depth = 0
    start = 0
    boundary = True  # the next code or directive token starts a construct
    branches: list[int] = []
    directive_at = -1  # first token of the directive line being read, -1 outside one
    own_line = False  # that directive line stands between constructs (not inside a declaration)
    aggregate = False
    template_params = -1  # depth of ``<`` in a template parameter list being read, -1 outside one
    for i, tok in enumerate(toks):
        while w < len(todo) and todo[w] == i:
            at = directive_at if directive_at >= 0 and own_line else start
            out[i] = (at, tuple(branches))
            w += 1
        if w >= len(todo):
            break
        kind, text = tok[0], tok[3]
        if kind is Kind.COMMENT:
            continue
        if kind is Kind.DIRECTIVE:
            directive_at = i
            own_line = depth == 0 and boundary
            if own_line:
                start, boundary = i, False
            if depth == 0:
                d = _directive(tok)
                if d in ("#if", "#ifdef", "#ifndef"):
                    branches.append(i)
                elif d in ("#elif", "#else") and branches:
                    branches[-1] = i
                elif d == "#endif" and branches:
                    branches.pop()
            continue
        if kind is Kind.EOD:
            directive_at = -1
            boundary = boundary or own_line
            own_line = False
            continue
        if directive_at >= 0:
            continue
        if depth == 0 and boundary:
            start, boundary, aggregate = i, False, False
        if depth == 0 and kind is Kind.IDENT and text == "template":
            template_params = 0  # ``template <class T>``: a parameter's ``class`` starts no aggregate
        elif template_params >= 0 and kind is Kind.PUNCT and text in ("<", ">", ">>"):
            template_params += {"<": 1, ">": -1, ">>": -2}[text]
            if template_params <= 0:
                template_params = -1
        elif depth == 0 and template_params < 0 and kind is Kind.IDENT and text in ("struct", "class", "union", "enum", "typedef"):
            aggregate = True
        if kind is Kind.PUNCT:
            if text == "{":
                depth += 1
            elif text == "}":
                depth = max(0, depth - 1)
                if depth == 0 and not aggregate:
                    boundary = True
            elif text == ";" and depth == 0:
                boundary = True
    return out


def insertion_offsets(text: str, toks: list, uses: list[int]) -> list[int]:
    """Where to put a helper so that every use (token index) in ``uses`` sees one.

    The first copy goes at the start of the line of the top-level construct
    holding the first use. A later use is covered by an earlier copy when that
    copy's ``#if`` branches are a prefix of the use's own (same branch or an
    enclosing one); otherwise it gets a copy of its own.
    """
    placed: list[tuple[int, tuple[int, ...]]] = []
    starts = _top_level_starts(toks, uses)
    offsets: list[int] = []
    for u in sorted(uses):
        first, branches = starts[u]
        if any(branches[: len(b)] == b for _, b in placed):
            continue
        placed.append((first, branches))
        offsets.append(toks[first][1] if first < len(toks) else len(text))
    return offsets


def line_start_insert(path: str, text: str, offset: int, block: str) -> Edit:
    """Insert ``block`` (ending with a newline) at the start of the line of ``offset``,
    or at ``offset`` behind a newline when code precedes it on that line."""
    line = text.rfind("\n", 0, offset) + 1
    if text[line:offset].strip():
        return Edit(path, offset, offset, "\n" + block)
    return Edit(path, line, line, block)
