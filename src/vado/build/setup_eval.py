"""A bounded evaluator of a ``setup.py``'s syntax tree for one platform: its values without running it.

:mod:`vado.build.torch_setup` asks it what a torch extension's ``setup.py`` hands ``CUDAExtension`` on a
ROCm and on a CUDA build of PyTorch. The file is parsed with :mod:`ast` and walked; nothing of the
project is imported or executed. What the evaluator knows is a small table of the names such files read
(:class:`Platform`: ``torch.version.hip``, ``IS_HIP_EXTENSION``, ``CUDA_HOME``, ``ROCM_HOME``,
``torch.cuda.is_available()``, ``sys.platform``, ``os.getenv``…), pure builtins and ``str``/``list``/
``dict`` methods, ``os.path``/``pathlib``/``glob`` evaluated against the project's tree (inside its root
only), ``itertools.product`` and ``packaging.version``. Everything else is :class:`Unknown`, which
carries where it came from.

Control flow: an ``if`` whose test is decided takes its branch; one that is not runs both branches on
copies and keeps what they agree on (a list keeps its common prefix), recording what the other side
would add as an :class:`Undecidable` naming ``file:line``. A branch that raises is taken as the one the
build does not take (the other is recorded). User functions are called (depth-bounded); loops run over
known iterables (length-bounded). A step budget bounds the whole evaluation: past it, evaluation stops
with :class:`EvalLimit`.
"""

from __future__ import annotations

import ast
import copy
import glob as _glob
import itertools
import os
import posixpath
from dataclasses import dataclass, field
from typing import Any, Callable

#: Nodes evaluated before the evaluation is given up (a setup.py needs a few thousand).
MAX_STEPS = 400_000
#: Nested user-function calls.
MAX_DEPTH = 40
#: Items of one list/str/loop the evaluator makes.
MAX_ITEMS = 20_000
#: Files one glob may return.
MAX_GLOB = 20_000


class EvalLimit(Exception):
    """The evaluation went past one of the bounds above."""


class _Raise(Exception):
    """The evaluated code raised (``raise``, ``sys.exit``): this path stops the build."""

    def __init__(self, line: int):
        super().__init__(line)
        self.line = line


class _Return(Exception):
    def __init__(self, value):
        super().__init__()
        self.value = value


class _Break(Exception):
    pass


class _Continue(Exception):
    pass


@dataclass(frozen=True)
class Unknown:
    """A value the evaluator cannot know here: ``why`` and the line it came from. ``truth`` is its
    truthiness where that is known (``torch.version.hip`` on ROCm: some string, true)."""

    why: str
    line: int = 0
    truth: bool | None = None

    def __deepcopy__(self, memo):
        return self


@dataclass(frozen=True)
class Sym:
    """A name of a module or library function (``os.path.join``, ``torch.version``), resolved lazily."""

    name: str

    def __deepcopy__(self, memo):
        return self


@dataclass(frozen=True, order=True)
class PathV:
    """A ``pathlib.Path`` value (its string, absolute or relative)."""

    path: str

    def __deepcopy__(self, memo):
        return self


@dataclass(eq=False)
class Func:
    """A function of the file (``def`` or ``lambda``), with the locals it closes over."""

    node: ast.AST
    closure: dict | None = None

    def __deepcopy__(self, memo):
        return self


@dataclass
class ExtCall:
    """A call of an extension constructor (``CUDAExtension``, ``CppExtension``, ``Extension``)."""

    kind: str
    line: int
    args: tuple
    kwargs: dict


@dataclass(frozen=True)
class Undecidable:
    """What the reader could not decide: where (``file:line``), what kind, and a sentence."""

    file: str
    line: int
    kind: str  # branch | value | loop | call | exec | raise | limit
    what: str
    platforms: tuple[str, ...] = ()

    def as_dict(self) -> dict:
        """JSON form."""
        return {"at": f"{self.file}:{self.line}", "kind": self.kind, "what": self.what,
                "platforms": list(self.platforms)}


@dataclass
class Platform:
    """The build the file is evaluated for: ``rocm`` or ``cuda``, and what is assumed of the machine."""

    name: str
    torch_version: str = "2.13.0"
    env: dict = field(default_factory=dict)
    gpu_visible: bool = True

    @property
    def rocm(self) -> bool:
        return self.name == "rocm"


_EXT_KINDS = {"CUDAExtension": "CUDAExtension", "CppExtension": "CppExtension", "Extension": "Extension",
              "HIPExtension": "CUDAExtension"}
_EXT_MODULES = ("torch.utils.cpp_extension.", "setuptools.", "setuptools.extension.", "distutils.core.",
                "distutils.extension.")
_PURE_BUILTINS = {"len": len, "str": str, "int": int, "float": float, "bool": bool, "abs": abs, "min": min,
                  "max": max, "any": any, "all": all, "sorted": sorted, "repr": repr, "tuple": tuple,
                  "list": list, "set": set, "dict": dict, "reversed": lambda x: list(reversed(x)),
                  "enumerate": lambda *a: list(enumerate(*a)), "zip": lambda *a: list(zip(*a)),
                  "round": round, "ord": ord, "chr": chr, "frozenset": frozenset, "hasattr": None}
_STR_METHODS = frozenset({"split", "rsplit", "join", "replace", "strip", "lstrip", "rstrip", "startswith",
                          "endswith", "lower", "upper", "splitlines", "partition", "rpartition", "find", "rfind",
                          "count", "format", "isdigit", "isalpha", "removeprefix", "removesuffix", "index",
                          "casefold", "title", "zfill", "encode"})
_LIST_MUTATORS = frozenset({"append", "extend", "insert", "remove", "pop", "sort", "reverse", "clear"})
_DICT_METHODS = frozenset({"get", "items", "keys", "values", "update", "setdefault", "pop", "copy"})


def _truth(v) -> bool | None:
    if isinstance(v, Unknown):
        return v.truth
    if isinstance(v, (Sym, Func, ExtCall, PathV)):
        return True
    try:
        return bool(v)
    except Exception:  # noqa: BLE001 - a value of ours that has no truth
        return None


def _plain(v, depth: int = 0) -> str:
    """A short rendering of a value for a message (an unknown part is ``?``)."""
    if isinstance(v, Unknown) or depth > 6:
        return "?"
    if isinstance(v, list):
        return "[" + ", ".join(_plain(x, depth + 1) for x in v[:40]) + (", …" if len(v) > 40 else "") + "]"
    if isinstance(v, tuple):
        return "(" + ", ".join(_plain(x, depth + 1) for x in v[:40]) + ")"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{_plain(k, depth + 1)}: {_plain(x, depth + 1)}" for k, x in list(v.items())[:20]) + "}"
    if isinstance(v, (Sym, Func, ExtCall, PathV)):
        return type(v).__name__
    return repr(v)


def _first_unknown(v, depth: int = 0) -> Unknown | None:
    if isinstance(v, Unknown):
        return v
    if depth < 50 and isinstance(v, (list, tuple, set, frozenset)):
        for x in v:
            u = _first_unknown(x, depth + 1)
            if u is not None:
                return u
    if depth < 50 and isinstance(v, dict):
        for x in (*v.keys(), *v.values()):
            u = _first_unknown(x, depth + 1)
            if u is not None:
                return u
    return None


def _has_unknown(v, depth: int = 0) -> bool:
    if depth > 50:
        return True
    if isinstance(v, Unknown):
        return True
    if isinstance(v, (list, tuple, set, frozenset)):
        return any(_has_unknown(x, depth + 1) for x in v)
    if isinstance(v, dict):
        return any(_has_unknown(x, depth + 1) for x in (*v.keys(), *v.values()))
    return False


class Evaluator:
    """Evaluates one parsed ``setup.py`` for one :class:`Platform` (see the module docstring)."""

    def __init__(self, tree: ast.Module, root: str, file: str, platform: Platform):
        self.tree, self.root, self.file, self.platform = tree, root, file, platform
        self.steps = 0
        self.depth = 0
        self.frames: list[dict] = []  # the locals of the calls (and comprehensions) under way, innermost last
        self.globals: dict[str, Any] = {"__file__": posixpath.join(root, file), "__name__": "__main__"}
        self.undecidable: list[Undecidable] = []
        self.extensions: list[ExtCall] = []
        self.setup_calls: list[tuple[int, dict]] = []
        self.env_read: dict[str, Any] = {}
        self.stopped: Undecidable | None = None

    # -- records -------------------------------------------------------------------------------
    def note(self, line: int, kind: str, what: str) -> None:
        """Record an undecidable item (once per line and sentence)."""
        item = Undecidable(self.file, line, kind, what, (self.platform.name,))
        if item not in self.undecidable:
            self.undecidable.append(item)

    def _src(self, node: ast.AST, limit: int = 100) -> str:
        try:
            text = ast.unparse(node)
        except Exception:  # noqa: BLE001 - unparse of a strange tree
            text = type(node).__name__
        return text if len(text) <= limit else text[: limit - 1] + "…"

    def _tick(self) -> None:
        self.steps += 1
        if self.steps > MAX_STEPS:
            raise EvalLimit(f"more than {MAX_STEPS} evaluation steps")

    # -- running -------------------------------------------------------------------------------
    def run(self) -> None:
        """Evaluate the module body; a path that raises stops it (recorded in ``stopped``)."""
        try:
            self.block(self.tree.body, self.globals)
        except _Raise as exc:
            self.stopped = Undecidable(self.file, exc.line, "raise",
                                       f"the build stops here on {self.platform.name} (raise/exit reached)",
                                       (self.platform.name,))
        except (_Return, _Break, _Continue):
            pass

    def block(self, stmts: list[ast.stmt], env: dict) -> None:
        for s in stmts:
            self.stmt(s, env)

    def stmt(self, s: ast.stmt, env: dict) -> None:  # noqa: C901 - one dispatch over statement kinds
        self._tick()
        if isinstance(s, ast.Expr):
            self.expr(s.value, env)
        elif isinstance(s, ast.Assign):
            value = self.expr(s.value, env)
            for t in s.targets:
                self.assign(t, value, env, s.lineno)
        elif isinstance(s, ast.AnnAssign):
            if s.value is not None:
                self.assign(s.target, self.expr(s.value, env), env, s.lineno)
        elif isinstance(s, ast.AugAssign):
            self.aug_assign(s, env)
        elif isinstance(s, (ast.Import, ast.ImportFrom)):
            self.import_(s, env)
        elif isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)):
            env[s.name] = Func(s, env if env is not self.globals else None)
        elif isinstance(s, ast.ClassDef):
            env[s.name] = Unknown(f"class {s.name} (not evaluated)", s.lineno, True)
        elif isinstance(s, ast.If):
            self.if_(s, env)
        elif isinstance(s, ast.For):
            self.for_(s, env)
        elif isinstance(s, ast.While):
            self.while_(s, env)
        elif isinstance(s, ast.With):
            for item in s.items:
                value = self.expr(item.context_expr, env)
                if item.optional_vars is not None:
                    self.assign(item.optional_vars, Unknown(f"the value of `with {self._src(item.context_expr)}`",
                                                            s.lineno) if not isinstance(value, PathV) else value,
                                env, s.lineno)
            self.block(s.body, env)
        elif isinstance(s, ast.Try):
            # The body as written; handlers run where the body raised (import guards: `except: raise`).
            try:
                self.block(s.body, env)
            except _Raise:
                if not s.handlers:
                    raise
                self.block(s.handlers[0].body, env)
            else:
                self.block(s.orelse, env)
            self.block(s.finalbody, env)
        elif isinstance(s, ast.Return):
            raise _Return(self.expr(s.value, env) if s.value is not None else None)
        elif isinstance(s, ast.Raise):
            raise _Raise(s.lineno)
        elif isinstance(s, ast.Break):
            raise _Break()
        elif isinstance(s, ast.Continue):
            raise _Continue()
        elif isinstance(s, ast.Delete):
            for t in s.targets:
                if isinstance(t, ast.Name):
                    env.pop(t.id, None)
        elif isinstance(s, (ast.Global, ast.Nonlocal, ast.Pass, ast.Assert)):
            pass
        else:
            self.note(s.lineno, "value", f"`{type(s).__name__}` statement not evaluated")

    def assign(self, target: ast.AST, value, env: dict, line: int) -> None:
        if isinstance(target, ast.Name):
            env[target.id] = value
        elif isinstance(target, (ast.Tuple, ast.List)):
            n = len(target.elts)
            if isinstance(value, (list, tuple)) and len(value) == n:
                for t, v in zip(target.elts, value):
                    self.assign(t, v, env, line)
            else:
                for t in target.elts:
                    self.assign(t, value if isinstance(value, Unknown) else
                                Unknown(f"unpacking {type(value).__name__}", line), env, line)
        elif isinstance(target, ast.Subscript):
            obj = self.expr(target.value, env)
            key = self.expr(target.slice, env)
            if isinstance(obj, (dict, list)) and not isinstance(key, Unknown):
                try:
                    obj[key] = value
                except (TypeError, IndexError, KeyError):
                    pass
            elif isinstance(obj, dict):
                self.note(line, "value", f"`{self._src(target)}` set with a key not known here")
        # attribute stores (torch._C.x = …, os.environ…) change nothing the reader follows

    def aug_assign(self, s: ast.AugAssign, env: dict) -> None:
        right = self.expr(s.value, env)
        t = s.target
        if isinstance(t, ast.Name):
            left = self.load_name(t.id, env, s.lineno)
            if isinstance(left, list) and isinstance(s.op, ast.Add) and isinstance(right, (list, tuple)):
                self._bound(len(left) + len(right))
                left += list(right)  # in place: every name bound to the list sees it (torch_cluster's nvcc_flags)
                return
            (env if t.id in env else self._scope_of(t.id, env))[t.id] = self.binop(s.op, left, right, s.lineno)
        elif isinstance(t, ast.Subscript):
            obj = self.expr(t.value, env)
            key = self.expr(t.slice, env)
            if isinstance(obj, (dict, list)) and not isinstance(key, Unknown):
                try:
                    left = obj[key]
                except (KeyError, IndexError, TypeError):
                    self.note(s.lineno, "value", f"`{self._src(t)}` is not set before `+=`")
                    return
                if isinstance(left, list) and isinstance(s.op, ast.Add) and isinstance(right, (list, tuple)):
                    self._bound(len(left) + len(right))
                    left += list(right)
                else:
                    obj[key] = self.binop(s.op, left, right, s.lineno)
            elif isinstance(obj, dict):
                self.note(s.lineno, "value", f"`{self._src(t)}` grown under a key not known here")

    def _scope_of(self, name: str, env: dict) -> dict:
        return env if name in env or env is self.globals else (self.globals if name in self.globals else env)

    def import_(self, s, env: dict) -> None:
        if isinstance(s, ast.Import):
            for a in s.names:
                if a.asname:
                    env[a.asname] = Sym(a.name)
                else:
                    top = a.name.split(".")[0]
                    env[top] = Sym(top)
        else:
            if s.level:
                for a in s.names:
                    env[a.asname or a.name] = Unknown(f"relative import of {a.name}", s.lineno)
                return
            for a in s.names:
                if a.name == "*":
                    continue
                env[a.asname or a.name] = Sym(f"{s.module}.{a.name}")

    # -- control flow --------------------------------------------------------------------------
    def if_(self, s: ast.If, env: dict) -> None:
        test = self.expr(s.test, env)
        t = _truth(test)
        if t is True:
            self.block(s.body, env)
        elif t is False:
            self.block(s.orelse, env)
        else:
            self.fork(s.lineno, f"`{self._src(s.test, 80)}` ({self._why(test)})", env,
                      lambda e: self.block(s.body, e), lambda e: self.block(s.orelse, e))

    def _why(self, v) -> str:
        if isinstance(v, Unknown):
            return f"{v.why}, line {v.line}" if v.line else v.why
        return "not decided here"

    def fork(self, line: int, test: str, env: dict, body: Callable, orelse: Callable) -> None:
        """Run both arms on copies of the whole state (the module's names, every active frame, the extensions
        made); keep what they agree on, in place, and record the rest."""
        frames = [self.globals, *self.frames]
        at = next(i for i, f in enumerate(frames) if f is env) if any(f is env for f in frames) else None
        if at is None:  # a scope the state does not hold (should not happen): evaluate the else arm only
            self.note(line, "branch", f"{test}: not decided; the else branch is taken")
            orelse(env)
            return
        state = (frames, self.extensions, self.setup_calls)
        results = []
        saved = (self.globals, self.frames, self.extensions, self.setup_calls)
        for arm in (body, orelse):
            fr, x, sc = copy.deepcopy(state)
            self.globals, self.frames, self.extensions, self.setup_calls = fr[0], fr[1:], x, sc
            outcome: BaseException | None = None
            try:
                arm(fr[at])
            except (_Raise, _Return, _Break, _Continue) as exc:
                outcome = exc
            results.append((fr, x, sc, outcome))
        self.globals, self.frames, self.extensions, self.setup_calls = saved
        (fa, xa, sa, oa), (fb, xb, sb, ob) = results
        if isinstance(oa, _Raise) != isinstance(ob, _Raise):
            # The arm that stops the build is the one a build that finishes does not take.
            keep = 1 if isinstance(oa, _Raise) else 0
            fk, xk, sk, ok = results[keep]
            self.note(line, "raise", f"{test}: not decided; the {'if' if keep == 1 else 'else'} branch stops the "
                                     "build (raise/exit) and is taken as not taken")
            self._adopt(frames, fk, fk, xk, xk, sk, sk, [])
            if ok is not None:
                raise ok
            return
        if isinstance(oa, _Raise):
            raise oa
        diffs: list[str] = []
        self._adopt(frames, fa, fb, xa, xb, sa, sb, diffs)
        ret = None
        if isinstance(oa, _Return) or isinstance(ob, _Return):
            ret = self.merge(oa.value if isinstance(oa, _Return) else None,
                             ob.value if isinstance(ob, _Return) else None, {}, diffs, "the function's result")
            if type(oa) is not type(ob):
                diffs.append("the function returns on one side only")
        if diffs:
            self.note(line, "branch", f"{test}: not decided; " + "; ".join(dict.fromkeys(diffs)) + " — left out")
        if ret is not None or isinstance(oa, _Return):
            raise _Return(ret)
        if oa is not None and type(oa) is type(ob):
            raise oa

    def _adopt(self, frames: list, fa: list, fb: list, xa: list, xb: list, sa: list, sb: list,
               diffs: list[str]) -> None:
        """Write the merge of two arms' states back into the original frames (their identities kept)."""
        memo: dict = {}
        for orig, a, b in zip(frames, fa, fb):
            memo[(id(a), id(b))] = orig
        for orig, a, b in zip(frames, fa, fb):
            merged = {}
            for k in a:
                if k == "__closure__":
                    merged[k] = self.merge(a[k], b.get(k), memo, [], k)
                elif k in b:
                    merged[k] = self.merge(a[k], b[k], memo, diffs, f"`{k}`")
                else:
                    diffs.append(f"`{k}` is set on one side only")
            for k in b:
                if k not in a:
                    diffs.append(f"`{k}` is set on one side only")
            orig.clear()
            orig.update(merged)
        kept = []
        for e in xa:
            twin = next((f for f in xb if self._same_ext(e, f)), None)
            if twin is None:
                diffs.append(f"{e.kind}(…) of line {e.line} is made on one side only")
            else:
                kept.append(self.merge(e, twin, memo, diffs, e.kind))
        for f in xb:
            if not any(self._same_ext(f, e) for e in xa):
                diffs.append(f"{f.kind}(…) of line {f.line} is made on one side only")
        self.extensions[:] = kept
        self.setup_calls[:] = [self.merge(a, b, memo, diffs, "setup()") for a, b in zip(sa, sb)] \
            if len(sa) == len(sb) else []

    def _same(self, a, b) -> bool:
        try:
            return type(a) is type(b) and a == b
        except Exception:  # noqa: BLE001
            return False

    def _same_ext(self, a: ExtCall, b: ExtCall) -> bool:
        return a.kind == b.kind and a.line == b.line and self._same(a.args, b.args) and self._same(a.kwargs, b.kwargs)

    def merge(self, a, b, memo: dict, diffs: list[str], where: str = "the value"):
        """What two arms agree on: equal values stay, lists keep their common prefix, dicts merge per key."""
        key = (id(a), id(b))
        if key in memo:
            return memo[key]
        if isinstance(a, list) and isinstance(b, list):
            out: list = []
            memo[key] = out
            n = 0
            while n < min(len(a), len(b)) and self._same(a[n], b[n]):
                n += 1
            out.extend(a[:n])
            if n < len(a) or n < len(b):
                diffs.append(f"{where} gets {self._show(a[n:])} on one side and {self._show(b[n:])} on the other")
            return out
        if isinstance(a, dict) and isinstance(b, dict):
            d: dict = {}
            memo[key] = d
            for k in a:
                if k in b:
                    d[k] = self.merge(a[k], b[k], memo, diffs, f"{where}[{k!r}]")
                else:
                    diffs.append(f"{where}[{k!r}] is set on one side only")
            for k in b:
                if k not in a:
                    diffs.append(f"{where}[{k!r}] is set on one side only")
            return d
        if self._same(a, b) or a is b or (isinstance(a, ExtCall) and isinstance(b, ExtCall) and self._same_ext(a, b)):
            memo[key] = a
            return a
        if isinstance(a, (Func, Sym)) or isinstance(b, (Func, Sym)):
            return a if a is b else Unknown(f"{where} differs between the branches")
        if not (isinstance(a, Unknown) and isinstance(b, Unknown)):
            diffs.append(f"{where} is {self._show(a)} on one side and {self._show(b)} on the other")
        out_u = Unknown(f"{where} differs between the branches of an undecided test")
        memo[key] = out_u
        return out_u

    def _show(self, v) -> str:
        if isinstance(v, Unknown):
            return "(not known)"
        if isinstance(v, list) and not v:
            return "nothing"
        text = _plain(v)
        return text if len(text) <= 120 else text[:119] + "…"

    def for_(self, s: ast.For, env: dict) -> None:
        it = self.expr(s.iter, env)
        items = self.iterate(it, s.lineno, self._src(s.iter))
        if items is None:
            def once(e: dict) -> None:
                self.assign(s.target, Unknown(f"an item of `{self._src(s.iter)}`", s.lineno), e, s.lineno)
                try:
                    self.block(s.body, e)
                except (_Break, _Continue):
                    pass
            self.fork(s.lineno, f"`for … in {self._src(s.iter)}` ({self._why(it)}: how often the body runs)",
                      env, once, lambda e: None)
            return
        for v in items:
            self.assign(s.target, v, env, s.lineno)
            try:
                self.block(s.body, env)
            except _Break:
                return
            except _Continue:
                continue
        self.block(s.orelse, env)

    def while_(self, s: ast.While, env: dict) -> None:
        for _ in range(1000):
            t = _truth(self.expr(s.test, env))
            if t is None:
                self.note(s.lineno, "loop", f"`while {self._src(s.test)}`: not decided; the loop is not evaluated")
                return
            if not t:
                self.block(s.orelse, env)
                return
            try:
                self.block(s.body, env)
            except _Break:
                return
            except _Continue:
                continue
        self.note(s.lineno, "loop", "a `while` loop ran 1000 times: stopped")

    def iterate(self, v, line: int, what: str) -> list | None:
        if isinstance(v, (list, tuple, str, set, frozenset)):
            return list(v)
        if isinstance(v, dict):
            return list(v.keys())
        if isinstance(v, range):
            if len(v) > MAX_ITEMS:
                raise EvalLimit(f"a range of {len(v)} items")
            return list(v)
        return None

    def _bound(self, n: int) -> None:
        if n > MAX_ITEMS:
            raise EvalLimit(f"a value of more than {MAX_ITEMS} items")

    # -- expressions ---------------------------------------------------------------------------
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

    # -- attributes and calls: see vado.build.setup_lib --------------------------------------
    def attribute(self, obj, attr: str, line: int):
        from vado.build import setup_lib

        return setup_lib.attribute(self, obj, attr, line)

    def resolve(self, sym: Sym, line: int):
        from vado.build import setup_lib

        return setup_lib.resolve(self, sym, line)

    def getenv(self, key: str, default, line: int, required: bool = False):
        """An environment variable: the platform's ``env`` when it names it, else the default (recorded)."""
        if key in self.platform.env:
            self.env_read[key] = self.platform.env[key]
            return self.platform.env[key]
        self.env_read.setdefault(key, default)
        if required:
            return Unknown(f"os.environ[{key!r}] (unset here)", line)
        return default

    def call(self, node: ast.Call, env: dict):
        from vado.build import setup_lib

        return setup_lib.call(self, node, env)

    def call_func(self, fn: Func, args: list, kwargs: dict, line: int):
        """Call a function of the file with evaluated arguments."""
        if self.depth >= MAX_DEPTH:
            raise EvalLimit(f"calls nested more than {MAX_DEPTH} deep")
        node = fn.node
        a = node.args
        local: dict = {"__closure__": fn.closure}
        params = [p.arg for p in (*a.posonlyargs, *a.args)]
        defaults = list(a.defaults)
        first_default = len(params) - len(defaults)
        for i, p in enumerate(params):
            if i < len(args):
                local[p] = args[i]
            elif p in kwargs:
                local[p] = kwargs.pop(p)
            elif i >= first_default:
                local[p] = self.expr(defaults[i - first_default], self.globals)
            else:
                local[p] = Unknown(f"argument `{p}` not given", line)
        if a.vararg is not None:
            local[a.vararg.arg] = tuple(args[len(params):])
        for p, d in zip(a.kwonlyargs, a.kw_defaults):
            local[p.arg] = kwargs.pop(p.arg) if p.arg in kwargs else (
                self.expr(d, self.globals) if d is not None else Unknown(f"argument `{p.arg}`", line))
        if a.kwarg is not None:
            local[a.kwarg.arg] = dict(kwargs)
        self.depth += 1
        self.frames.append(local)
        try:
            if isinstance(node, ast.Lambda):
                return self.expr(node.body, local)
            self.block(node.body, local)
            return None
        except _Return as r:
            return r.value
        finally:
            self.frames.pop()
            self.depth -= 1


def parse_setup(text: bytes | str, name: str) -> ast.Module:
    """Parse a setup.py; raises ``SyntaxError``/``ValueError``/``RecursionError``/``MemoryError`` as ``ast`` does."""
    return ast.parse(text, filename=name)


def inside(root: str, path: str) -> bool:
    """Whether ``path`` (absolute, normalised) lies in ``root``."""
    return path == root or path.startswith(root.rstrip("/") + "/")


def glob_in(root: str, pattern: str, recursive: bool = False) -> list[str] | None:
    """``glob.glob(pattern)`` run with the project's root as working directory, results sorted; None when the
    pattern reaches outside the root. Absolute results stay absolute, relative ones relative."""
    absolute = pattern.startswith("/")
    full = posixpath.normpath(pattern if absolute else posixpath.join(root, pattern))
    if not inside(root, full):
        return None
    rel = posixpath.relpath(full, root)
    found: list[str] = []
    for hit in _glob.iglob(rel, root_dir=root, recursive=recursive):
        real = os.path.realpath(os.path.join(root, hit))
        if not inside(os.path.realpath(root), real):
            continue  # a link out of the tree is not the project's
        found.append(posixpath.join(root, hit) if absolute else
                     (hit if not pattern.startswith("./") else "./" + hit))
        if len(found) > MAX_GLOB:
            raise EvalLimit(f"a glob of more than {MAX_GLOB} files")
    return sorted(found)


def product(*seqs) -> list:
    """``itertools.product`` of known sequences (bounded)."""
    n = 1
    for s in seqs:
        n *= max(len(s), 1)
    if n > MAX_ITEMS:
        raise EvalLimit(f"a product of {n} items")
    return list(itertools.product(*seqs))
