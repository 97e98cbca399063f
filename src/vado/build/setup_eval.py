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
import posixpath
from typing import Any, Callable

from vado.build import setup_classes
from vado.build.setup_expr import ExprEvaluator
from vado.build.setup_values import (MAX_DEPTH, MAX_ITEMS, MAX_STEPS, EvalLimit, ExtCall, Func, PathV, Platform, Sym,
                                     Undecidable, Unknown, _Break, _Continue, _plain, _Raise, _Return, _truth,
                                     inside)

__all__ = ["EvalLimit", "Evaluator", "ExtCall", "PathV", "Platform", "Undecidable", "Unknown", "inside"]


class Evaluator(ExprEvaluator):
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
        self.argv: list | None = None  # sys.argv once read (Platform.argv)
        self.loads: list | None = None  # torch.utils.cpp_extension.load() calls, where the caller collects them
        self.which_read = False  # shutil.which("nvcc"/"hipcc") was asked (an assumption of the platform)
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
            env[s.name] = setup_classes.define(self, s, env)
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
        elif isinstance(target, ast.Attribute):
            # an instance's or class's attribute (self.flags = …) is kept; other attribute stores
            # (torch._C.x = …, os.environ…) change nothing the reader follows
            setup_classes.store(self.expr(target.value, env), target.attr, value)

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
        elif isinstance(t, ast.Attribute):
            obj = self.expr(t.value, env)
            if isinstance(obj, (setup_classes.Instance, setup_classes.ClassV)):
                left = self.attribute(obj, t.attr, s.lineno)
                if isinstance(left, list) and isinstance(s.op, ast.Add) and isinstance(right, (list, tuple)):
                    self._bound(len(left) + len(right))
                    left += list(right)
                else:
                    setup_classes.store(obj, t.attr, self.binop(s.op, left, right, s.lineno))

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
        # Copying the state is work too (a fork in a long loop over big lists): it counts against the bound.
        self.steps += 2 * _weight(state, MAX_STEPS - self.steps)
        self._tick()
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
        if self.loads is not None and (oa is None) != (ob is None) and isinstance(oa or ob, _Return):
            # A run-time loader (vado.build.torch_jit): the arm that returns early is the path that falls back
            # without building (no GPU, already loaded, an old GPU); the load() is on the path that goes on.
            keep = 1 if isinstance(oa, _Return) else 0
            fk, xk, sk, _ = results[keep]
            self.note(line, "branch", f"{test}: not decided; the {'if' if keep == 1 else 'else'} branch returns "
                                      "early (no load() on that path) and is taken as not taken")
            self._adopt(frames, fk, fk, xk, xk, sk, sk, [])
            return
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
        if isinstance(a, setup_classes.Instance) and isinstance(b, setup_classes.Instance) and a.cls is b.cls:
            root = a.origin or a
            obj = root if root is (b.origin or b) else setup_classes.Instance(a.cls)
            memo[key] = obj
            obj.attrs = self.merge(a.attrs, b.attrs, memo, diffs, f"{where}'s attributes")
            return obj
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


def _weight(value, budget: int) -> int:
    """How many items a deep copy of ``value`` visits (containers' elements), counted up to ``budget``;
    past it, :class:`EvalLimit`."""
    seen: set[int] = set()
    stack = [value]
    n = 0
    while stack:
        v = stack.pop()
        if isinstance(v, (list, tuple, set, frozenset, dict)) or isinstance(v, ExtCall):
            if id(v) in seen:
                continue
            seen.add(id(v))
            items = (list(v.args) + list(v.kwargs.values()) if isinstance(v, ExtCall) else
                     [*v.keys(), *v.values()] if isinstance(v, dict) else list(v))
            n += len(items) + 1
            if n > budget:
                raise EvalLimit(f"more than {MAX_STEPS} evaluation steps (copying the state at undecided branches)")
            stack.extend(items)
    return n

