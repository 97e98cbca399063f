"""Expressions of :mod:`vado.build.setup_eval`'s evaluator: names, operators, comparisons, comprehensions,
f-strings, subscripts. A value computed from an :class:`~vado.build.setup_values.Unknown` is unknown with the
same origin; a truth that is known (``CUDA_HOME is not None`` on CUDA) decides tests.
"""

from __future__ import annotations

import ast
import posixpath
from typing import Callable

from vado.build.setup_values import _PURE_BUILTINS, EvalLimit, ExtCall, Func, PathV, Sym, Unknown, _first_unknown, _has_unknown, _truth


class ExprEvaluator:
    """The expression half of :class:`vado.build.setup_eval.Evaluator` (a mixin: it uses the evaluator's
    state, ``_tick``, ``note``, ``_src``, ``_why``, ``merge``, ``call`` and ``attribute``)."""

    def load_name(self, name: str, env: dict, line: int):
        for scope in self._scopes(env):
            if name in scope:
                return scope[name]
        if name in _PURE_BUILTINS or name in ("print", "open", "exec", "eval", "isinstance", "range", "map",
                                                "filter", "getattr", "__import__", "iter", "next", "type",
                                                "super", "ValueError", "RuntimeError", "Exception"):
            return Sym(f"builtins.{name}")
        if name in ("True", "False", "None"):
            return {"True": True, "False": False, "None": None}[name]
        return Unknown(f"`{name}` is not bound here", line)

    def _scopes(self, env: dict):
        yield env
        closure = env.get("__closure__") if isinstance(env, dict) else None
        while isinstance(closure, dict):
            yield closure
            closure = closure.get("__closure__")
        if env is not self.globals:
            yield self.globals

    def expr(self, node: ast.AST, env: dict):  # noqa: C901 - one dispatch over expression kinds
        self._tick()
        line = getattr(node, "lineno", 0)
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.Name):
            value = self.load_name(node.id, env, line)
            return self.resolve(value, line) if isinstance(value, Sym) else value
        if isinstance(node, ast.Attribute):
            return self.attribute(self.expr(node.value, env), node.attr, line)
        if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
            items: list = []
            for e in node.elts:
                if isinstance(e, ast.Starred):
                    v = self.expr(e.value, env)
                    seq = self.iterate(v, line, self._src(e.value))
                    items.extend(seq if seq is not None else [Unknown(f"*{self._src(e.value)}", line)])
                else:
                    items.append(self.expr(e, env))
                self._bound(len(items))
            if isinstance(node, ast.Tuple):
                return tuple(items)
            return items if isinstance(node, ast.List) else self._set(items, line)
        if isinstance(node, ast.Dict):
            d = {}
            for k, v in zip(node.keys, node.values):
                if k is None:
                    inner = self.expr(v, env)
                    if isinstance(inner, dict):
                        d.update(inner)
                    continue
                key = self.expr(k, env)
                try:
                    d[key] = self.expr(v, env)
                except TypeError:
                    return Unknown("a dict with a key not known here", line)
            return d
        if isinstance(node, ast.BoolOp):
            return self.boolop(node, env)
        if isinstance(node, ast.UnaryOp):
            v = self.expr(node.operand, env)
            if isinstance(node.op, ast.Not):
                t = _truth(v)
                return Unknown(f"not {self._src(node.operand)}", line) if t is None else (not t)
            if isinstance(v, (int, float)) and not isinstance(v, bool):
                return -v if isinstance(node.op, ast.USub) else (+v if isinstance(node.op, ast.UAdd) else ~v)
            return Unknown(f"`{self._src(node)}`", line)
        if isinstance(node, ast.BinOp):
            return self.binop(node.op, self.expr(node.left, env), self.expr(node.right, env), line)
        if isinstance(node, ast.Compare):
            return self.compare(node, env)
        if isinstance(node, ast.IfExp):
            t = _truth(self.expr(node.test, env))
            if t is True:
                return self.expr(node.body, env)
            if t is False:
                return self.expr(node.orelse, env)
            a, b = self.expr(node.body, env), self.expr(node.orelse, env)
            diffs: list[str] = []
            merged = self.merge(a, b, {}, diffs, f"`{self._src(node)}`")
            if diffs or isinstance(merged, Unknown):
                self.note(line, "branch", f"`{self._src(node.test)}` is not decided here: "
                                          f"`{self._src(node, 80)}` is one of two values — " + "; ".join(diffs))
            return merged
        if isinstance(node, ast.JoinedStr):
            parts = []
            for v in node.values:
                if isinstance(v, ast.Constant):
                    parts.append(str(v.value))
                    continue
                val = self.expr(v.value, env) if isinstance(v, ast.FormattedValue) else self.expr(v, env)
                if isinstance(val, PathV):
                    val = val.path
                if _has_unknown(val) or isinstance(val, (Sym, Func, ExtCall)):
                    return Unknown(f"f-string with `{self._src(v.value if isinstance(v, ast.FormattedValue) else v)}`",
                                   line, None)
                spec = ""
                if isinstance(v, ast.FormattedValue) and v.format_spec is not None:
                    spec_v = self.expr(v.format_spec, env)
                    if not isinstance(spec_v, str):
                        return Unknown("f-string format spec", line)
                    spec = spec_v
                try:
                    parts.append(format(val, spec) if v.conversion == -1 else
                                 format({115: str, 114: repr, 97: ascii}[v.conversion](val), spec))
                except (ValueError, TypeError, KeyError):
                    return Unknown("f-string", line)
            return self._str("".join(parts))
        if isinstance(node, ast.Subscript):
            return self.subscript(self.expr(node.value, env), node.slice, env, line)
        if isinstance(node, ast.Slice):
            parts = [self.expr(p, env) if p is not None else None for p in (node.lower, node.upper, node.step)]
            if any(isinstance(p, Unknown) for p in parts):
                return Unknown("a slice not known here", line)
            return slice(*parts)
        if isinstance(node, (ast.ListComp, ast.GeneratorExp, ast.SetComp)):
            out = self.comprehension(node.generators, lambda e: self.expr(node.elt, e), env, line)
            if isinstance(out, Unknown):
                return out
            return self._set(out, line) if isinstance(node, ast.SetComp) else out
        if isinstance(node, ast.DictComp):
            pairs = self.comprehension(node.generators, lambda e: (self.expr(node.key, e), self.expr(node.value, e)),
                                       env, line)
            if isinstance(pairs, Unknown):
                return pairs
            try:
                return dict(pairs)
            except TypeError:
                return Unknown("a dict comprehension with keys not known here", line)
        if isinstance(node, ast.Lambda):
            return Func(node, env if env is not self.globals else None)
        if isinstance(node, ast.Call):
            return self.call(node, env)
        if isinstance(node, ast.Starred):
            return self.expr(node.value, env)
        if isinstance(node, ast.NamedExpr):
            v = self.expr(node.value, env)
            self.assign(node.target, v, env, line)
            return v
        return Unknown(f"`{type(node).__name__}` expression", line)

    def _str(self, s: str) -> str:
        if len(s) > 100_000:
            raise EvalLimit("a string of more than 100000 characters")
        return s

    def _set(self, items: list, line: int):
        try:
            return set(items)
        except TypeError:
            return Unknown("a set of values not known here", line)

    def boolop(self, node: ast.BoolOp, env: dict):
        line = node.lineno
        last = None
        unknown = None
        for v_node in node.values:
            v = self.expr(v_node, env)
            t = _truth(v)
            if isinstance(node.op, ast.And):
                if t is False:
                    return v
                if t is None:
                    unknown = unknown or v
            else:
                if t is True:
                    return v if unknown is None else Unknown(self._why(unknown), line, True)
                if t is None:
                    unknown = unknown or v
            last = v
        if unknown is not None:
            u = _first_unknown(unknown)
            return Unknown(u.why, u.line or line) if u is not None else Unknown("a value not known here", line)
        return last

    def compare(self, node: ast.Compare, env: dict):
        line = node.lineno
        left = self.expr(node.left, env)
        result = True
        for op, right_node in zip(node.ops, node.comparators):
            right = self.expr(right_node, env)
            r = self._compare1(op, left, right, line)
            if r is False:
                return False
            if not isinstance(r, bool):
                result = r
            left = right
        return result

    def _compare1(self, op, a, b, line: int):
        if isinstance(op, (ast.Is, ast.IsNot)):
            for x, y in ((a, b), (b, a)):
                if y is None and isinstance(x, Unknown) and x.truth is True:
                    return isinstance(op, ast.IsNot)  # a truthy value is not None
                if y is None and isinstance(x, (Sym, Func, PathV, ExtCall, str, list, dict, int)):
                    return isinstance(op, ast.IsNot)
            if isinstance(a, Unknown) or isinstance(b, Unknown):
                return self._cause(a, b, line)
            return (a is b) if isinstance(op, ast.Is) else (a is not b)
        if isinstance(op, (ast.In, ast.NotIn)) and isinstance(b, Sym) and b.name == "os.environ" and isinstance(a, str):
            # `"X" in os.environ` (xformers' XFORMERS_SELECTIVE_BUILD): set only where the platform's env names it.
            self.getenv(a, None, line)  # recorded among the variables read (an assumption when unset)
            r = a in self.platform.env
            return r if isinstance(op, ast.In) else not r
        if isinstance(op, (ast.In, ast.NotIn)) and isinstance(b, (list, tuple, set, dict, str)) \
                and not isinstance(a, Unknown) and not _has_unknown(b):
            try:
                r = a in b
            except TypeError:
                return Unknown("an `in` test", line)
            return r if isinstance(op, ast.In) else not r
        if _has_unknown(a) or _has_unknown(b) or isinstance(a, (Sym, Func)) or isinstance(b, (Sym, Func)):
            return self._cause(a, b, line)
        if isinstance(a, PathV):
            a = a.path
        if isinstance(b, PathV):
            b = b.path
        fn = {ast.Eq: lambda x, y: x == y, ast.NotEq: lambda x, y: x != y, ast.Lt: lambda x, y: x < y,
              ast.LtE: lambda x, y: x <= y, ast.Gt: lambda x, y: x > y, ast.GtE: lambda x, y: x >= y,
              ast.In: lambda x, y: x in y, ast.NotIn: lambda x, y: x not in y}.get(type(op))
        if fn is None:
            return Unknown("a comparison", line)
        try:
            return bool(fn(a, b))
        except TypeError:
            return Unknown("a comparison of values of different types", line)

    def _cause(self, a, b, line: int) -> Unknown:
        """The Unknown behind a value computed from ``a`` and ``b`` (its first unknown part's origin)."""
        for v in (a, b):
            u = _first_unknown(v)
            if u is not None:
                return Unknown(u.why, u.line or line)
        return Unknown("a value not known here", line)

    def binop(self, op, a, b, line: int):
        if isinstance(op, ast.Div) and isinstance(a, PathV) and isinstance(b, (str, PathV)):
            return PathV(posixpath.join(a.path, b.path if isinstance(b, PathV) else b))
        if isinstance(op, ast.Div) and isinstance(a, str) and isinstance(b, PathV):
            return PathV(posixpath.join(a, b.path))
        if isinstance(op, ast.Add) and (isinstance(a, list) and isinstance(b, Unknown) or
                                         isinstance(b, list) and isinstance(a, Unknown)):
            # The known part of a list stays; the unknown part is one unknown item (reported where it is used).
            self._bound(len(a if isinstance(a, list) else b) + 1)
            return [*a, b] if isinstance(a, list) else [a, *b]
        if isinstance(op, ast.Add) and isinstance(a, (list, tuple)) and type(a) is type(b):
            # Known items stay where they are; an unknown item is reported where the list is used
            # (fast3d_kmeans: ['-O3', ...] + [f"-arch=sm_{capability}"]).
            self._bound(len(a) + len(b))
            return a + b
        if _has_unknown(a) or _has_unknown(b):
            return self._cause(a, b, line)
        if isinstance(a, (Sym, Func, PathV)) or isinstance(b, (Sym, Func, PathV)):
            return Unknown(f"`{type(op).__name__}` of {type(a).__name__} and {type(b).__name__}", line)
        try:
            if isinstance(op, ast.Add):
                if isinstance(a, (list, tuple, str)) and type(a) is type(b):
                    self._bound(len(a) + len(b))
                    return a + b
                if isinstance(a, (int, float)) and isinstance(b, (int, float)):
                    return a + b
            elif isinstance(op, ast.Mult):
                seq, n = (a, b) if isinstance(a, (list, tuple, str)) else (b, a)
                if isinstance(seq, (list, tuple, str)) and isinstance(n, int):
                    self._bound(len(seq) * max(n, 0))
                    return seq * n
                if isinstance(a, (int, float)) and isinstance(b, (int, float)):
                    return a * b
            elif isinstance(op, ast.Mod) and isinstance(a, str):
                return self._str(a % b)
            elif isinstance(a, (int, float)) and isinstance(b, (int, float)):
                if isinstance(op, ast.Sub):
                    return a - b
                if isinstance(op, ast.FloorDiv) and b:
                    return a // b
                if isinstance(op, ast.Div) and b:
                    return a / b
            elif isinstance(op, ast.BitOr) and isinstance(a, (set, dict)) and type(a) is type(b):
                return a | b
            elif isinstance(op, (ast.Sub, ast.BitAnd)) and isinstance(a, (set, frozenset)) \
                    and isinstance(b, (set, frozenset)):
                # xformers: list(set(source_cuda) - set(source_hip_generated))
                return a - b if isinstance(op, ast.Sub) else a & b
        except (TypeError, ValueError, OverflowError):
            pass
        return Unknown(f"`{type(op).__name__}` of {type(a).__name__} and {type(b).__name__}", line)

    def subscript(self, obj, slice_node, env, line: int):
        key = self.expr(slice_node, env)
        if isinstance(obj, Sym) and obj.name == "os.environ":
            if isinstance(key, str):
                return self.getenv(key, None, line, required=True)
            return Unknown("os.environ[…]", line)
        if isinstance(obj, Unknown) or isinstance(key, Unknown) or isinstance(key, (Sym, Func)):
            return Unknown(f"an item of a value not known here ({self._why(obj if isinstance(obj, Unknown) else key)})",
                           line)
        try:
            return obj[key]
        except (KeyError, IndexError, TypeError):
            return Unknown(f"`[{key!r}]` of a value that has no such item", line)

    def comprehension(self, gens: list[ast.comprehension], elt: Callable, env: dict, line: int):
        """The items of a comprehension over known iterables; Unknown (recorded) where an iterable or a
        test is not known."""
        out: list = []
        local: dict = {"__closure__": env}

        def walk(k: int):
            if k == len(gens):
                out.append(elt(local))
                self._bound(len(out))
                return None
            g = gens[k]
            it = self.expr(g.iter, local)
            items = self.iterate(it, line, self._src(g.iter))
            if items is None:
                return Unknown(f"a comprehension over `{self._src(g.iter)}` ({self._why(it)})", line)
            for v in items:
                self.assign(g.target, v, local, line)
                keep = True
                for cond in g.ifs:
                    t = _truth(self.expr(cond, local))
                    if t is None:
                        return Unknown(f"a comprehension's test `{self._src(cond)}` is not decided here", line)
                    if not t:
                        keep = False
                        break
                if keep:
                    r = walk(k + 1)
                    if r is not None:
                        return r
            return None

        self.frames.append(local)
        try:
            r = walk(0)
        finally:
            self.frames.pop()
        if r is not None:
            self.note(line, "value", r.why)
            return r
        return out
