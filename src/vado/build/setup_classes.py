"""Classes of a ``setup.py`` for the bounded evaluator: a class the file defines, its instances and their methods.

stainx 0.1.6 makes its CUDAExtension in a method (``CUDAExtensionBuilder(project_root).build()``, whose
``__init__`` keeps helpers in ``self``): without classes the reader saw ``setup(ext_modules=<unknown>)``.
A ``class`` statement's body is evaluated once, in its own namespace (class attributes, methods); calling
the class makes an :class:`Instance` and runs ``__init__``; ``obj.attr`` looks in the instance, then the
class and its known bases; ``self.x = v`` stores into the instance. ``@staticmethod``/``@classmethod``
are honoured, ``@property`` is called on access. A base the file does not define (``BuildExtension``) is
left unknown: what the class itself does not define reads as :class:`Unknown`. Nothing is imported or run.
"""

from __future__ import annotations

import ast
import copy
from dataclasses import dataclass, field

from vado.build.setup_values import Func, Unknown


@dataclass(eq=False)
class ClassV:
    """A class the file defines: its name, namespace (attributes and methods, as :class:`Func`) and known bases."""

    name: str
    namespace: dict
    bases: tuple = ()
    line: int = 0

    def __deepcopy__(self, memo):
        return self  # a class body is evaluated once; its namespace is not forked

    def lookup(self, attr: str):
        """The class attribute ``attr`` (own, then the known bases', depth first), or None."""
        if attr in self.namespace:
            return self.namespace[attr]
        for base in self.bases:
            found = base.lookup(attr)
            if found is not None:
                return found
        return None


@dataclass(eq=False)
class Instance:
    """An object made by calling a :class:`ClassV`. At an undecided branch each arm works on a copy whose
    ``origin`` is the object the state held before; the merge writes what the arms agree on back into that
    object, so every name bound to it (the caller's ``obj = Builder()``) sees it."""

    cls: ClassV
    attrs: dict = field(default_factory=dict)
    origin: Instance | None = None

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        twin = Instance(self.cls, origin=self.origin or self)
        memo[id(self)] = twin
        twin.attrs = copy.deepcopy(self.attrs, memo)
        return twin


@dataclass(eq=False)
class Bound:
    """A function bound to its first argument (an instance's method, a classmethod's class)."""

    func: Func
    first: object

    def __deepcopy__(self, memo):
        return Bound(self.func, copy.deepcopy(self.first, memo))


_DECORATORS = ("staticmethod", "classmethod", "property")


def _decorator(node: ast.AST) -> str:
    names = [d.id for d in getattr(node, "decorator_list", ()) if isinstance(d, ast.Name) and d.id in _DECORATORS]
    return names[0] if names else ""


def define(ev, node: ast.ClassDef, env: dict) -> ClassV | Unknown:
    """Evaluate a ``class`` statement's body in its own namespace (methods stay functions)."""
    bases = []
    for b in node.bases:
        v = ev.expr(b, env)
        if isinstance(v, ClassV):
            bases.append(v)
    ns: dict = {}
    closure = env if env is not ev.globals else None
    for s in node.body:
        if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)):
            ns[s.name] = Func(s, closure)
        elif isinstance(s, ast.ClassDef):
            ns[s.name] = define(ev, s, env)
        else:
            ev.stmt(s, ns)
    return ClassV(node.name, ns, tuple(bases), node.lineno)


def instantiate(ev, cls: ClassV, args: list, kwargs: dict, line: int) -> Instance:
    """``cls(*args, **kwargs)``: a new instance, its ``__init__`` run where the class has one."""
    obj = Instance(cls)
    init = cls.lookup("__init__")
    if isinstance(init, Func):
        ev.call_func(init, [obj, *args], dict(kwargs), line)
    return obj


def attribute(ev, obj, attr: str, line: int):
    """``obj.attr`` of an :class:`Instance` or a :class:`ClassV`."""
    if isinstance(obj, Instance):
        if attr in obj.attrs:
            return obj.attrs[attr]
        v = obj.cls.lookup(attr)
        if isinstance(v, Func):
            kind = _decorator(v.node)
            if kind == "staticmethod":
                return v
            if kind == "classmethod":
                return Bound(v, obj.cls)
            if kind == "property":
                return ev.call_func(v, [obj], {}, line)
            return Bound(v, obj)
        if v is not None:
            return v
        return Unknown(f"`.{attr}` of a {obj.cls.name} (not set by the class here)", line)
    v = obj.lookup(attr)
    if isinstance(v, Func) and _decorator(v.node) == "classmethod":
        return Bound(v, obj)
    if v is not None:
        return v
    return Unknown(f"`{obj.name}.{attr}` (not defined by the class here)", line)


def call(ev, fn, args: list, kwargs: dict, line: int):
    """Call a class (an instance) or a bound method; None where ``fn`` is neither."""
    if isinstance(fn, ClassV):
        return instantiate(ev, fn, args, kwargs, line)
    if isinstance(fn, Bound):
        return ev.call_func(fn.func, [fn.first, *args], kwargs, line)
    return None


def store(obj, attr: str, value) -> bool:
    """``obj.attr = value`` on an instance (True), or nothing the reader follows (False)."""
    if isinstance(obj, Instance):
        obj.attrs[attr] = value
        return True
    if isinstance(obj, ClassV):
        obj.namespace[attr] = value
        return True
    return False
