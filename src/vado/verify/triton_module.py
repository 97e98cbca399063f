"""The module vado's Triton driver runs: built by vado from a validated AST, never copied from the tree.

``triton.compile`` needs the kernel as a live Python function, so something must be
executed; and Triton's code generator itself calls Python callables a kernel names
(``visit_Call`` calls any function it resolves, ``tl.core.os.system("…")`` included).
So nothing of a kernel file runs as written. :func:`build_module` makes a new module:

- imports it writes itself, only of :data:`ALLOWED_MODULES` (``triton``,
  ``triton.language`` and its public submodules) under the file's aliases; every
  other import is left out, and a kernel that uses a name it brought is refused;
- constants that are literals (``N = 4``) or ``constexpr(<literal>)``, written again
  from their values;
- each ``@triton.jit`` function whose every part passes :func:`_check_kernel`:
  ``autotune`` and ``heuristics`` decorators are dropped (they carry configurations
  and lambdas: tree code), any other decorator but ``jit`` refuses the kernel,
  ``jit``'s own arguments must be literals, annotations must be
  names from ``triton.language`` (or ``int``/``float``/``bool``/``str``), defaults
  literals or kept constants; the body may read only its parameters and locals, the
  kept constants, other accepted kernels, the allowed modules through attribute
  chains (no ``_private`` or dunder attribute anywhere) and Triton's own built-ins
  (:data:`ALLOWED_BUILTINS`, without ``getattr``/``hasattr``); no nested functions,
  lambdas, classes, imports, ``global``, ``with`` or ``try``.

A kernel that fails is *refused* with the reason (never compiled, never run). The
attribute chains a kernel reads from the allowed modules are handed to the driver,
which resolves them before compiling and refuses a kernel whose chain passes through
or ends at anything but Triton's language, or ends at a module (a module held in a
local would escape these checks) (:func:`chain_problem`).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

#: Modules a kernel module may import (and reach through attribute chains).
ALLOWED_MODULES = frozenset({
    "triton", "triton.language", "triton.language.math", "triton.language.standard", "triton.language.random",
    "triton.language.extra", "triton.language.extra.libdevice", "triton.language.extra.hip",
    "triton.language.extra.hip.libdevice", "triton.language.extra.cuda", "triton.language.extra.cuda.libdevice",
})
#: Objects outside ``triton.language`` a kernel may name.
ALLOWED_TRITON = frozenset({"triton.jit", "triton.cdiv", "triton.next_power_of_2", "triton.language"})
#: Decorators left out of the module (their arguments hold configurations and lambdas: tree code);
#: the kernel is compiled with the signature and constexprs vado was given.
DROPPED_DECORATORS = frozenset({"triton.autotune", "triton.heuristics"})
#: Triton's built-in namespace (its code generator's), without getattr and hasattr.
ALLOWED_BUILTINS = frozenset({"range", "min", "max", "len", "int", "float", "print", "isinstance", "list"})
#: Annotations a parameter may carry besides ``triton.language`` names.
PLAIN_HINTS = frozenset({"int", "float", "bool", "str"})
#: Statements and expressions a kernel body may not hold.
FORBIDDEN = (ast.Import, ast.ImportFrom, ast.Global, ast.Nonlocal, ast.ClassDef, ast.FunctionDef,
             ast.AsyncFunctionDef, ast.Lambda, ast.Await, ast.Yield, ast.YieldFrom, ast.AsyncFor, ast.AsyncWith,
             ast.With, ast.Try, ast.Delete) + ((ast.TryStar,) if hasattr(ast, "TryStar") else ())
#: The module-level name vado's own ``import triton`` binds (no kernel may use it).
TRITON_ALIAS = "vado_triton_"


class Refused(Exception):
    """A kernel vado will not load, with the reason."""


@dataclass
class BuiltModule:
    """The module's source, the kernels refused (name → reason) and, per accepted kernel, the
    dotted names it reads from the allowed modules (for the driver's check)."""

    source: str
    refused: dict[str, str] = field(default_factory=dict)
    chains: dict[str, list[str]] = field(default_factory=dict)


def _literal(node: ast.expr):
    """The value of a literal expression (numbers, strings, booleans, None, tuples/lists of them)."""
    value = ast.literal_eval(node)
    if not _plain(value):
        raise ValueError("not a plain literal")
    return value


def _plain(value) -> bool:
    if value is None or isinstance(value, (bool, int, float, str)):
        return True
    if isinstance(value, (tuple, list)):
        return all(_plain(v) for v in value)
    return False


def _imports(tree: ast.Module) -> tuple[dict[str, str], dict[str, str]]:
    """(alias → allowed dotted name, dropped alias → the module it came from), top-level imports only."""
    kept: dict[str, str] = {}
    dropped: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.asname:
                    (kept if a.name in ALLOWED_MODULES else dropped)[a.asname] = a.name
                else:
                    top = a.name.split(".")[0]
                    if a.name in ALLOWED_MODULES:
                        kept[top] = top
                    else:
                        dropped.setdefault(top, a.name)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            for a in node.names:
                full = f"{node.module}.{a.name}"
                name = a.asname or a.name
                if a.name == "*":
                    continue
                if node.module in ALLOWED_MODULES and (full in ALLOWED_MODULES or full in ALLOWED_TRITON
                                                       or node.module.startswith("triton.language")):
                    kept[name] = full
                else:
                    dropped[name] = full
    return kept, dropped


def _chain(node: ast.expr) -> list[str] | None:
    """``a.b.c`` as ``["a", "b", "c"]``; None when the chain does not start at a name."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        return [node.id, *reversed(parts)]
    return None


def _dotted(chain: list[str], aliases: dict[str, str]) -> str:
    return ".".join([aliases[chain[0]], *chain[1:]])


def _allowed_dotted(dotted: str) -> bool:
    """Static part of the check: a chain into ``triton.language`` (any public name) or a listed object."""
    if dotted in ALLOWED_MODULES or dotted in ALLOWED_TRITON:
        return True
    return dotted.startswith("triton.language.")


def _hint_ok(node: ast.expr, aliases: dict[str, str]) -> bool:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return True
    chain = _chain(node)
    if chain is None or any(p.startswith("_") for p in chain):
        return False
    if len(chain) == 1 and chain[0] in PLAIN_HINTS:
        return True
    # triton.language.NAME and no deeper: an annotation is evaluated when the function is defined.
    return chain[0] in aliases and _dotted(chain, aliases).startswith("triton.language.") and \
        _dotted(chain, aliases).count(".") == 2


def _is_jit(dec: ast.expr, aliases: dict[str, str]) -> bool:
    target = dec.func if isinstance(dec, ast.Call) else dec
    chain = _chain(target)
    return bool(chain) and chain[0] in aliases and _dotted(chain, aliases) == "triton.jit"


def _jit_decorator(fn: ast.FunctionDef, aliases: dict[str, str]) -> ast.expr:
    """vado's own ``@vado_triton_.jit`` (with the file's literal keyword arguments)."""
    target = ast.Attribute(ast.Name(TRITON_ALIAS, ast.Load()), "jit", ast.Load())
    for dec in fn.decorator_list:
        if isinstance(dec, ast.Call) and _is_jit(dec, aliases):
            if dec.args:
                raise Refused("@jit(...) with positional arguments")
            kws = []
            for kw in dec.keywords:
                if kw.arg is None:
                    raise Refused("@jit(**...)")
                try:
                    kws.append(ast.keyword(kw.arg, ast.parse(repr(_literal(kw.value)), mode="eval").body))
                except ValueError:
                    raise Refused(f"@jit's {kw.arg}= is not a literal") from None
            return ast.Call(target, [], kws)
    return target


def _check_kernel(fn: ast.FunctionDef, aliases: dict[str, str], dropped: dict[str, str],
                  constants: set[str], kernels: set[str]) -> tuple[ast.FunctionDef, list[str]]:
    """The kernel as vado will write it, and the dotted names it reads; :class:`Refused` otherwise."""
    args = fn.args
    if args.vararg or args.kwarg or args.kwonlyargs or args.posonlyargs:
        raise Refused("*args, **kwargs, keyword-only or positional-only parameters")
    for dec in fn.decorator_list:
        chain = _chain(dec.func if isinstance(dec, ast.Call) else dec)
        dotted = _dotted(chain, aliases) if chain and chain[0] in aliases else ""
        if dotted != "triton.jit" and dotted not in DROPPED_DECORATORS:
            raise Refused(f"the decorator {ast.unparse(dec)[:80]} is not Triton's jit, autotune or heuristics")
    params = [a.arg for a in args.args]
    new_args = []
    for a in args.args:
        if a.annotation is not None and not _hint_ok(a.annotation, aliases):
            raise Refused(f"the annotation of {a.arg} ({ast.unparse(a.annotation)}) is not a triton.language name")
        new_args.append(ast.arg(a.arg, a.annotation))
    defaults = []
    for d in args.defaults:
        if isinstance(d, ast.Name) and d.id in constants:
            defaults.append(ast.Name(d.id, ast.Load()))
            continue
        try:
            defaults.append(ast.parse(repr(_literal(d)), mode="eval").body)
        except ValueError:
            raise Refused(f"a default value ({ast.unparse(d)}) is not a literal") from None
    local: set[str] = set(params)
    for node in ast.walk(fn):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            local.add(node.id)
    chains: list[str] = []
    parents: dict[int, ast.AST] = {}
    for stmt in fn.body:
        for node in ast.walk(stmt):
            for child in ast.iter_child_nodes(node):
                parents[id(child)] = node
    for stmt in fn.body:
        for node in ast.walk(stmt):
            if isinstance(node, FORBIDDEN):
                raise Refused(f"line {node.lineno}: {type(node).__name__.lower()} in a kernel")
            if isinstance(node, ast.Attribute) and node.attr.startswith("_"):
                raise Refused(f"line {node.lineno}: the attribute {node.attr}")
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
                name = node.id
                if name in kernels and name not in local:
                    parent = parents.get(id(node))
                    # Called, nothing else: a JITFunction's attributes lead to its Python function and globals.
                    if not (isinstance(parent, ast.Call) and parent.func is node):
                        raise Refused(f"line {node.lineno}: the kernel {name} used other than by a call")
                    continue
                if name in local or name in constants or name in ALLOWED_BUILTINS:
                    continue
                if name in aliases:
                    parent = parents.get(id(node))
                    if not (isinstance(parent, ast.Attribute) and parent.value is node) and aliases[name] in ALLOWED_MODULES:
                        raise Refused(f"line {node.lineno}: the module {name} used as a value")
                    continue
                if name in dropped:
                    raise Refused(f"line {node.lineno}: {name} comes from {dropped[name]}, which vado does not load")
                raise Refused(f"line {node.lineno}: {name} is not a parameter, a local, a literal constant, "
                              "a kernel of this file or a triton.language name")
            if isinstance(node, ast.Attribute) and not isinstance(parents.get(id(node)), ast.Attribute):
                chain = _chain(node)
                if chain and chain[0] in aliases and chain[0] not in local:
                    dotted = _dotted(chain, aliases)
                    if not _allowed_dotted(dotted):
                        raise Refused(f"line {node.lineno}: {dotted} is not part of triton.language")
                    chains.append(dotted)
    for name, full in aliases.items():
        if full not in ALLOWED_MODULES and any(n.id == name for n in ast.walk(fn) if isinstance(n, ast.Name)):
            chains.append(full)
    extra = {"type_params": []} if "type_params" in ast.FunctionDef._fields else {}
    new = ast.FunctionDef(name=fn.name, args=ast.arguments(posonlyargs=[], args=new_args, vararg=None, kwonlyargs=[],
                                                           kw_defaults=[], kwarg=None, defaults=defaults),
                          body=fn.body, decorator_list=[_jit_decorator(fn, aliases)], returns=None, **extra)
    return new, sorted(set(chains))


def _constants(tree: ast.Module, aliases: dict[str, str]) -> dict[str, ast.stmt]:
    """Top-level literal constants and ``constexpr(<literal>)`` ones, written again from their values."""
    out: dict[str, ast.stmt] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            name, value = node.targets[0].id, node.value
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None:
            name, value = node.target.id, node.value
        else:
            continue
        if name == TRITON_ALIAS:
            continue
        try:
            lit = ast.parse(repr(_literal(value)), mode="eval").body
            out[name] = ast.Assign([ast.Name(name, ast.Store())], lit)
            continue
        except ValueError:
            pass
        if isinstance(value, ast.Call) and len(value.args) == 1 and not value.keywords:
            chain = _chain(value.func)
            if chain and chain[0] in aliases and _dotted(chain, aliases) == "triton.language.constexpr":
                try:
                    lit = ast.parse(repr(_literal(value.args[0])), mode="eval").body
                except ValueError:
                    continue
                call = ast.Call(ast.Attribute(ast.Attribute(ast.Name(TRITON_ALIAS, ast.Load()), "language", ast.Load()),
                                              "constexpr", ast.Load()), [lit], [])
                out[name] = ast.Assign([ast.Name(name, ast.Store())], call)
    return out


def build_module(text: str) -> BuiltModule:
    """The module for the kernels of ``text`` (a Python file), built as the module docstring says.

    Raises :class:`SyntaxError` for a file that does not parse.
    """
    tree = ast.parse(text)
    aliases, dropped = _imports(tree)
    aliases.pop(TRITON_ALIAS, None)
    constants = _constants(tree, aliases)
    for name in constants:
        aliases.pop(name, None)
    fns = [n for n in tree.body if isinstance(n, ast.FunctionDef) and any(_is_jit(d, aliases) for d in n.decorator_list)]
    refused: dict[str, str] = {}
    accepted: dict[str, tuple[ast.FunctionDef, list[str]]] = {}
    # A kernel that calls a refused kernel is refused too: repeat until nothing changes.
    names = {f.name for f in fns}
    while True:
        accepted.clear()
        for fn in fns:
            if fn.name in refused:
                continue
            try:
                accepted[fn.name] = _check_kernel(fn, aliases, dropped, set(constants), names - set(refused))
            except Refused as exc:
                refused[fn.name] = str(exc)
        if all(name in accepted for name in names - set(refused)):
            break
    body: list[ast.stmt] = [ast.Import([ast.alias("triton", TRITON_ALIAS)])]
    body += [ast.Import([ast.alias("triton.language", None)])]
    for alias, full in sorted(aliases.items()):
        if full in ALLOWED_MODULES:
            body.append(ast.Import([ast.alias(full, None if alias == full else alias)]))
        else:
            module, _, attr = full.rpartition(".")
            body.append(ast.ImportFrom(module, [ast.alias(attr, None if alias == attr else alias)], 0))
    body += list(constants.values())
    body += [accepted[f.name][0] for f in fns if f.name in accepted]
    module = ast.fix_missing_locations(ast.Module(body=body, type_ignores=[]))
    return BuiltModule(ast.unparse(module) + "\n", refused, {n: c for n, (_, c) in accepted.items()})


def chain_problem(dotted: str, resolve) -> str:
    """Why a kernel may not read ``dotted`` ("" when it may); ``resolve(name)`` imports/gets an object.

    Used by the driver, with Triton imported: every prefix of the chain that is a module
    must be one of :data:`ALLOWED_MODULES`, every other prefix and the end must be defined
    in ``triton.language``, be one of :data:`ALLOWED_TRITON` or be a plain value, and the
    end must not be a module. A name that does not resolve is left to Triton (it fails
    the compile with its own message).
    """
    import types

    parts = dotted.split(".")
    for i in range(1, len(parts) + 1):
        name = ".".join(parts[:i])
        try:
            obj = resolve(name)
        except (ImportError, AttributeError):
            return ""
        if isinstance(obj, types.ModuleType):
            if obj.__name__ not in ALLOWED_MODULES:
                return f"{name} is the module {obj.__name__}, outside triton.language"
            if i == len(parts) and i > 1:
                return f"{name} is a module used as a value"
            continue
        if name in ALLOWED_TRITON or _plain(obj):
            continue
        where = getattr(obj, "__module__", None)
        if not isinstance(where, str):
            where = type(obj).__module__
        if not where.startswith("triton.language"):
            return f"{name} is defined in {where}, not in triton.language"
    return ""
