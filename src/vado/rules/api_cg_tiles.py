"""The size of a cooperative-groups tile spelt with a name (API009's tile-size check).

``cg::tiled_partition<TILE>(block)`` and ``cg::thread_block_tile<TILE>`` compile with HIP only for a power of 2 of
at most the 64-lane wavefront (ROCm 7.2.4's ``static_assert``: "Tiled partition with size > wavefront size"), while
CUDA takes up to 512 threads on a ``thread_block``. A size spelt as a literal is read where it stands; this module
reads the sizes a name stands for in the same file:

* ``#define TILE 256`` and ``constexpr int kTile = 128;`` / ``const unsigned kTile{128};`` or a constant
  expression of such names (``WARP_SIZE / LINES_PER_WARP``), every definition of the name in the file (``#if``
  branches may give several), else ``#define TILE 256`` in a project header the file includes;
* a template parameter of the enclosing function or class (``template <int TILE> __global__ void k(…)``): the
  arguments of its explicit instantiations and launches in the file (``template __global__ void k<32>(…);``,
  ``k<128><<<…>>>(…)``), each a literal or a name defined as above, else the parameter's default.

What it cannot read (an argument that is another template's parameter, a name defined in another file, a template
with no instantiation in the file) is *unresolved*: the rule then reports the tile instead of letting the port
claim that nothing remains.
"""

from __future__ import annotations

import ast
import operator
import re
from dataclasses import dataclass

from vado.rules import cuda_syntax as cs
from vado.scan.lexer import Kind

#: Types a non-type template parameter or a constant holding a tile size is declared with.
_INTEGRAL = frozenset({"int", "unsigned", "long", "short", "size_t", "std", "uint32_t", "int32_t", "uint64_t",
                       "int64_t", "auto", "signed", "char", "uint", "u32", "i32"})
#: Names before a parenthesis that are not the templated function's name (``__launch_bounds__(256) k(…)``).
_ATTRIBUTES = frozenset({"__launch_bounds__", "__attribute__", "__declspec", "alignas", "__align__", "decltype"})
_DECL_WORDS = frozenset({"constexpr", "const", "static", "inline", "__device__", "__constant__", "__host__"})


@dataclass(frozen=True)
class TileSizes:
    """What a tile's size names: the values read (``values``), where they come from, and whether some use of the
    name could not be read (``unresolved``, with ``why``)."""

    name: str
    values: frozenset[int]
    unresolved: bool
    why: str = ""
    source: str = ""


def _close_angle(toks, k: int) -> int | None:
    """The index of the ``>`` closing the ``<`` at ``k`` (``>>`` closes two), or None."""
    depth, j = 0, k
    while j < len(toks):
        t = toks[j][3]
        if t in ("(", "["):
            j = _skip_paren(toks, j)
            if j is None:
                return None
        elif t == "<":
            depth += 1
        elif t in (">", ">>"):
            depth -= len(t)
            if depth <= 0:
                return j
        elif t in (";", "{", "}"):
            return None
        j += 1
    return None


def _skip_paren(toks, j: int) -> int | None:
    depth = 0
    while j < len(toks):
        t = toks[j][3]
        depth += 1 if t in ("(", "[") else -1 if t in (")", "]") else 0
        if depth == 0:
            return j
        j += 1
    return None


def _args(toks, open_: int, close: int) -> list[list]:
    """The top-level comma-separated arguments between ``<`` at ``open_`` and ``>`` at ``close``."""
    out, cur, depth = [], [], 0
    for t in toks[open_ + 1:close]:
        s = t[3]
        if s in ("(", "[", "<", "{"):
            depth += 1
        elif s in (")", "]", ">", "}"):
            depth -= 1
        if s == "," and depth == 0:
            out.append(cur)
            cur = []
        else:
            cur.append(t)
    out.append(cur)
    return out


def _literal(tokens) -> int | None:
    """The value of ``128``, ``(128)``, ``128u``: an integer literal, maybe parenthesized."""
    toks = [t for t in tokens if t[3] not in ("(", ")")]
    if len(toks) == 1 and toks[0][0] is Kind.NUMBER:
        return cs.int_value(toks[0][3])
    return None


_OPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.FloorDiv: operator.floordiv,
        ast.Mod: operator.mod, ast.LShift: operator.lshift, ast.RShift: operator.rshift}


def _value(tokens, resolve) -> int | None:
    """The value of an integer constant expression of literals, names ``resolve`` gives one value for, ``+ - * / %
    << >>`` and parentheses (``WARP_SIZE / LINES_PER_WARP``); None for anything else."""
    lit = _literal(tokens)
    if lit is not None or resolve is None:
        return lit
    parts = []
    for t in tokens:
        if t[0] is Kind.NUMBER:
            v = cs.int_value(t[3])
            if v is None:
                return None
            parts.append(str(v))
        elif t[0] is Kind.IDENT:
            v = resolve(t[3])
            if v is None:
                return None
            parts.append(f"({v})")
        elif t[3] in ("+", "-", "*", "%", "<<", ">>", "(", ")"):
            parts.append(t[3])
        elif t[3] == "/":
            parts.append("//")  # C's integer division of the non-negative sizes
        else:
            return None
    try:
        tree = ast.parse(" ".join(parts), mode="eval")
    except (SyntaxError, ValueError):
        return None

    def ev(node):
        if isinstance(node, ast.Constant) and isinstance(node.value, int):
            return node.value
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            return -ev(node.operand)
        if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
            left, right = ev(node.left), ev(node.right)
            if isinstance(node.op, (ast.FloorDiv, ast.Mod)) and right == 0:
                raise ZeroDivisionError
            if isinstance(node.op, ast.LShift) and not 0 <= right < 64:
                raise ValueError
            return _OPS[type(node.op)](left, right)
        raise ValueError

    try:
        return ev(tree.body)
    except (ValueError, ZeroDivisionError, RecursionError):
        return None


def constant_values(view, name: str, resolve=None) -> frozenset[int] | None:
    """The values the file gives ``name`` through ``#define name N`` or a ``const``/``constexpr`` integral
    declaration ``name = N`` / ``name{N}``; None where it gives none (or one that is not a literal)."""
    toks, values = view.tokens, set()
    for j in view.ident_indices((name,)):
        if j < 1:
            continue
        prev = toks[j - 1]
        if prev[0] is Kind.DIRECTIVE and prev[3].replace(" ", "").replace("\t", "").endswith("define"):
            end = j + 1
            while end < len(toks) and toks[end][0] is not Kind.EOD:
                end += 1
            body = toks[j + 1:end]
            if body and body[0][3] == "(" and body[0][1] == toks[j][2]:
                return None  # a function-like macro
            v = _value(body, resolve)
            if v is None:
                return None
            values.add(v)
            continue
        if j + 2 >= len(toks) or toks[j + 1][3] not in ("=", "{"):
            continue
        k, words = j - 1, set()
        if toks[k][0] is Kind.IDENT and toks[k][3] not in _INTEGRAL and toks[k][3] not in _DECL_WORDS:
            words.add("type")  # constexpr int_t warp_size = 32: a project's own integer type
            k -= 1
        while k >= 0 and (toks[k][3] in _INTEGRAL or toks[k][3] in _DECL_WORDS or toks[k][3] == "::"):
            words.add(toks[k][3])
            k -= 1
        if not ("constexpr" in words or ("const" in words and words & _INTEGRAL)):
            continue
        end = j + 2
        while end < len(toks) and toks[end][3] not in (";", ",", "}"):
            end += 1
        v = _value(toks[j + 2:end], resolve)
        if v is None:
            return None
        values.add(v)
    return frozenset(values) if values else None


def _template_parameter(view, i: int, name: str) -> tuple[int, int, int | None, str] | None:
    """For ``name`` used at token ``i`` as a parameter of an enclosing ``template <…>``: (the ``template`` token,
    the parameter's position, its default (None if none or not a literal), the templated entity's name)."""
    toks, pairs = view.tokens, view.pairs
    for t in reversed(view.ident_indices(("template",))):
        if t >= i or t + 1 >= len(toks) or toks[t + 1][3] != "<":
            continue
        close = _close_angle(toks, t + 1)
        if close is None:
            continue
        # the templated entity: its name (before the first '(' or the struct's name) and its body's braces
        k, entity, body = close + 1, None, None
        while k < len(toks) and toks[k][3] not in (";",):
            s = toks[k][3]
            if s in ("struct", "class") and k + 1 < len(toks) and toks[k + 1][0] is Kind.IDENT and entity is None:
                entity = toks[k + 1][3]
            elif s == "(" and toks[k - 1][3] in _ATTRIBUTES:
                k = pairs.get(k, k)
            elif s == "(" and entity is None and toks[k - 1][0] is Kind.IDENT:
                entity = toks[k - 1][3]
                k = pairs.get(k, k)
            elif s == "(":
                k = pairs.get(k, k)
            elif s == "{":
                body = (k, pairs.get(k, len(toks)))
                break
            k += 1
        if body is None or not body[0] < i < body[1] or entity is None:
            continue
        for pos, arg in enumerate(_args(toks, t + 1, close)):
            idents = [a for a in arg if a[0] is Kind.IDENT]
            eq = next((n for n, a in enumerate(arg) if a[3] == "="), len(arg))
            if eq >= 1 and arg[eq - 1][3] == name and any(a[3] in _INTEGRAL for a in arg[:eq - 1]):
                return t, pos, _literal(arg[eq + 1:]) if eq < len(arg) else None, entity
            if idents and idents[0][3] in ("typename", "class") and name in [a[3] for a in arg]:
                return None  # a type parameter of that name
    return None



def header_values(ctx, text: str, name: str) -> frozenset[int] | None:
    """The values ``#define name N`` gives ``name`` in the project headers the file includes (quoted includes,
    read within the audited tree, ``source_root``, as :class:`vado.scan.project_headers.ProjectHeaders` finds
    them); None where none defines it, or one defines it as something other than an integer literal."""
    from vado.scan.project_headers import project_headers, quoted_includes

    root = (getattr(ctx, "options", None) or {}).get("source_root")
    quoted = quoted_includes(text)
    if not root or not quoted:
        return None

    values: set[int] = set()
    define = re.compile(rf"^[ \t]*#[ \t]*define[ \t]+{re.escape(name)}\b(\(?)[ \t]*([^\r\n]*)", re.M)
    for _, header in project_headers(str(root)).headers_defining(ctx.path, quoted, {name}):
        for m in define.finditer(header):
            body = re.sub(r"//.*|/\*.*?\*/", "", m.group(2)).strip()
            if m.group(1):
                return None  # a function-like macro
            lit = re.fullmatch(r"\(?\s*((?:0[xX][0-9a-fA-F]+|\d+)[uUlL]*)\s*\)?", body)
            if lit is None:
                return None
            values.add(cs.int_value(lit.group(1)))
    return frozenset(values) if values else None


def _named_values(view, ctx, name: str, _depth: int = 0) -> frozenset[int] | None:
    """The values the file, else the project headers it includes, give ``name`` (an expression's names read
    the same way, 4 deep)."""
    def resolve(other: str) -> int | None:
        if _depth >= 4 or other == name:
            return None
        vals = _named_values(view, ctx, other, _depth + 1)
        return next(iter(vals)) if vals and len(vals) == 1 else None

    values = constant_values(view, name, resolve)
    if values is None and ctx is not None:
        values = header_values(ctx, view.text, name)
    return values


def tile_sizes(view, i: int, ctx=None) -> TileSizes | None:
    """The sizes of the tile whose name is at token ``i`` (``tiled_partition`` / ``thread_block_tile``) when its
    size is a name (``tiled_partition<TILE>``); None for a literal size or another shape."""
    toks = view.tokens
    if not (i + 3 < len(toks) and toks[i + 1][3] == "<" and toks[i + 2][0] is Kind.IDENT
            and toks[i + 3][3] in (">", ",", ">>")):
        return None
    name = toks[i + 2][3]
    bound = asserted_sizes(view, i, name)
    if bound is not None and max(bound[0]) > 64:
        bound = None  # an assertion that allows more than a wavefront says nothing of the sizes used
    param = _template_parameter(view, i, name)
    if param is None:
        values = _named_values(view, ctx, name)
        if values is None:
            if bound is not None:
                return TileSizes(name, bound[0], False, source=bound[1])
            declared = _declared_here(view, i, name)
            clamp = _clamped(declared)
            if clamp is not None and clamp <= 64:
                return TileSizes(name, frozenset(p for p in _POWERS if p <= clamp), False,
                                 source=f"{name} = {declared}")
            shown = re.sub(r" ?(::|\.|->) ?", r"\1", declared)  # SetRef :: cg_size -> SetRef::cg_size
            why = (f"{name} is computed here from values vado cannot read ({shown})" if declared
                   else f"{name} is not defined in this file or a header it includes")
            return TileSizes(name, frozenset(), True, why)
        return TileSizes(name, values, False, source=f"the value this file gives {name}")
    t, pos, default, entity = param
    values, unresolved, why = set(), False, ""
    found = False
    for j in view.ident_indices((entity,)):
        if j + 1 >= len(toks) or toks[j + 1][3] != "<":
            continue
        close = _close_angle(toks, j + 1)
        if close is None:
            continue
        args = _args(toks, j + 1, close)
        if pos >= len(args):
            continue
        found = True
        v = _literal(args[pos]) if args[pos] else default  # k<>: the default argument
        if v is not None:
            values.add(v)
            continue
        arg = [a for a in args[pos] if a[3] not in ("(", ")")]
        consts = _named_values(view, ctx, arg[0][3]) if len(arg) == 1 and arg[0][0] is Kind.IDENT else None
        if consts is None:
            unresolved = True
            why = f"{entity}<{' '.join(a[3] for a in args[pos])}> is not resolved in this file"
        else:
            values |= consts
    if (unresolved or not found) and bound is not None:
        return TileSizes(name, bound[0], False, source=bound[1])
    if not found:
        if default is not None:
            return TileSizes(name, frozenset({default}), False, source=f"{entity}'s default argument")
        return TileSizes(name, frozenset(), True, f"{entity} is not instantiated with a size in this file")
    return TileSizes(name, frozenset(values), unresolved, why, source=f"{entity}'s instantiations in this file")


def _declared_here(view, i: int, name: str) -> str:
    """The initializer of a ``constexpr``/``const`` declaration of ``name`` before token ``i`` in the function around
    it (``constexpr size_t tx = feat_in / vec_size;``, a constant of template parameters), or ""."""
    toks = view.tokens
    func = view.function_at(toks[i][1])
    for j in view.ident_indices((name,)):
        if j >= i or j + 2 >= len(toks) or toks[j + 1][3] not in ("=", "{"):
            continue
        if func is not None and not func.body_start <= toks[j][1] < func.body_end:
            continue
        words = {t[3] for t in toks[max(0, j - 4):j]}
        if "constexpr" not in words and "const" not in words:
            continue
        end = j + 2
        while end < len(toks) and toks[end][3] not in (";", ",", "}"):
            end += 1
        return " ".join(t[3] for t in toks[j + 2:end]) if end > j + 2 else ""
    return ""


def _clamped(expr: str) -> int | None:
    """The bound N of an initializer that clamps a name to at most N: ``X > N ? N : X``, ``X >= N ? N : X``,
    ``X < N ? X : N``, ``X <= N ? X : N``, ``min(X, N)`` (marian c9f287d reduce_all.h: ``constexpr int
    partitionSize = blockSize > 32 ? 32 : blockSize;``); None for any other shape."""
    words = [w for w in expr.replace("std :: ", "").split() if w not in ("(", ")")]
    nums = [cs.int_value(w) for w in words]
    if len(words) == 7 and words[3] == "?" and words[5] == ":" and nums[2] is not None:
        x, op, n, a, b = words[0], words[1], nums[2], words[4], words[6]
        if op in (">", ">=") and cs.int_value(a) == n and b == x:
            return n
        if op in ("<", "<=") and a == x and cs.int_value(b) == n:
            return n
    if len(words) == 4 and words[0] in ("min", "std::min") and words[2] == ",":
        for w in (words[1], words[3]):
            if cs.int_value(w) is not None:
                return cs.int_value(w)
    return None


#: Powers of 2 a tile size can be (CUDA and HIP both require one).
_POWERS = tuple(1 << k for k in range(11))


def asserted_sizes(view, i: int, name: str) -> tuple[frozenset[int], str] | None:
    """The sizes a ``static_assert`` in the function around token ``i`` allows ``name`` (``static_assert(32 % tx ==
    0)``: the powers of 2 dividing 32; ``static_assert(TILE <= 64)``: those up to 64), with its text; None where no
    such assertion bounds it (punica 591b598 bgmv_expand_kernel: ``constexpr size_t tx = feat_in / vec_size;``
    with ``static_assert(32 % tx == 0)``, a tile of at most 32 threads that vado could not read)."""
    toks, pairs = view.tokens, view.pairs
    func = view.function_at(toks[i][1])
    if func is None:
        return None
    for a in view.ident_indices(("static_assert",)):
        if not func.body_start <= toks[a][1] < func.body_end or a + 1 >= len(toks) or toks[a + 1][3] != "(":
            continue
        close = pairs.get(a + 1)
        if close is None:
            continue
        cond = cs.split_args(toks, a + 1, close)[0]
        # the conjuncts of the condition at the top level
        parts, start, depth = [], cond[0], 0
        for k in range(cond[0], cond[1]):
            w = toks[k][3]
            depth += 1 if w in ("(", "[") else -1 if w in (")", "]") else 0
            if depth == 0 and w in ("&&", "and"):
                parts.append((start, k))
                start = k + 1
        parts.append((start, cond[1]))
        for s, e in parts:
            words = [t[3] for t in toks[s:e] if t[3] not in ("(", ")")]
            nums = [cs.int_value(w) for w in words]
            allowed = None
            if len(words) == 5 and words[1] == "%" and words[2] == name and words[3] == "==" and nums[4] == 0 and nums[0]:
                allowed = {p for p in _POWERS if nums[0] % p == 0}
            elif len(words) == 3 and nums[2] is not None and words[0] == name and words[1] in ("<=", "<"):
                allowed = {p for p in _POWERS if p < nums[2] or (words[1] == "<=" and p == nums[2])}
            elif len(words) == 3 and nums[0] is not None and words[2] == name and words[1] in (">=", ">"):
                allowed = {p for p in _POWERS if p < nums[0] or (words[1] == ">=" and p == nums[0])}
            if allowed:
                text = " ".join(t[3] for t in toks[cond[0]:cond[1]])
                return frozenset(allowed), f"static_assert({text})"
    return None
