"""A torch extension built at run time: ``torch.utils.cpp_extension.load(...)`` in the package's Python, read, not run.

Some packages ship their ``.cu``/``.cpp`` sources and build nothing in ``setup.py``: a module calls
``load(name=..., sources=[...], extra_cflags=[...], extra_cuda_cflags=[...], extra_include_paths=[...])`` the
first time it is imported or an op is used (fast3d_kmeans 0.1.4, eden_simple_knn 0.1.0a1, adafactor8bit 0.4.6).
On ROCm, ``load`` hipifies the sources and hands ``extra_cuda_cflags`` to hipcc as a ``CUDAExtension`` does,
so the description is the same. :func:`derive_loads` finds the project's Python files that call it, evaluates
each with the bounded evaluator of :mod:`vado.build.setup_eval` (the module body, then every function that
calls ``load``, with its parameters' defaults) and keeps each ``load`` call the evaluation reaches on any path:
a loader is written to build the extension when it is called, and the paths that do not reach it (no GPU,
already loaded, an old GPU) are the ones that fall back to no extension. ``load_inline`` (sources as strings)
is not read. Nothing of the project is imported or run.
"""

from __future__ import annotations

import ast
import os
import re

from vado.build.setup_eval import EvalLimit, Evaluator, Platform, Undecidable
from vado.build.setup_values import ExtCall, Func, _Break, _Continue, _Raise, _Return, inside

#: Python files larger than this, or more of them than this, are not read for load() calls.
MAX_PY_BYTES = 1024 * 1024
MAX_PY_FILES = 400
_SKIP_DIRS = frozenset({".git", "build", "dist", "docs", "doc", "tests", "test", "examples", "node_modules",
                        "__pycache__", "third_party", "3rdparty"})
_LOAD = re.compile(rb"\bload\s*\(")
#: load()'s parameters in order (torch 2.x), and the CUDAExtension keyword each becomes.
LOAD_PARAMS = ("name", "sources", "extra_cflags", "extra_cuda_cflags", "extra_sycl_cflags", "extra_ldflags",
               "extra_include_paths")


def load_call(line: int, args: list, kwargs: dict) -> ExtCall:
    """The extension a ``load(...)`` call builds, as the ``CUDAExtension`` setup.py would make for it."""
    given = dict(zip(LOAD_PARAMS, args))
    given.update({k: v for k, v in kwargs.items() if k in LOAD_PARAMS or k == "with_cuda"})
    kind = "CppExtension" if given.get("with_cuda") is False else "CUDAExtension"
    kw = {"sources": given.get("sources", []),
          "extra_compile_args": {"cxx": given.get("extra_cflags") or [], "nvcc": given.get("extra_cuda_cflags") or []}}
    if given.get("extra_include_paths") is not None:
        kw["include_dirs"] = given["extra_include_paths"]
    return ExtCall(kind, line, (given.get("name"),), kw)


def _python_files(root: str) -> list[str]:
    """The project's Python files that may call load() (relative paths, sorted; bounded)."""
    found: list[str] = []
    for top, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in _SKIP_DIRS and not d.startswith(".")
                         and not os.path.islink(os.path.join(top, d)))
        for f in sorted(files):
            if not f.endswith(".py") or f == "setup.py" and top == root:
                continue
            path = os.path.join(top, f)
            if os.path.islink(path) or not os.path.isfile(path):
                continue
            found.append(os.path.relpath(path, root))
            if len(found) >= MAX_PY_FILES:
                return found
    return found


def _read(root: str, rel: str) -> bytes | None:
    path = os.path.join(root, rel)
    try:
        if not inside(root, os.path.realpath(path)) or os.path.getsize(path) > MAX_PY_BYTES:
            return None
        with open(path, "rb") as fh:
            return fh.read(MAX_PY_BYTES + 1)
    except OSError:
        return None


def _calls_load(fn: ast.AST) -> bool:
    for node in ast.walk(fn):
        if isinstance(node, ast.Call):
            f = node.func
            if isinstance(f, ast.Name) and f.id == "load" or isinstance(f, ast.Attribute) and f.attr == "load":
                return True
    return False


def _module_level(stmts: list) -> list:
    """The statements of a module's top level and of the blocks under it (if/try/with/for), not in functions."""
    out: list = []
    for s in stmts:
        out.append(s)
        if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        for block in ("body", "orelse", "finalbody"):
            out += _module_level(getattr(s, block, None) or [])
        for h in getattr(s, "handlers", None) or []:
            out += _module_level(h.body)
    return out


def evaluate_loads(tree: ast.Module, root: str, rel: str, platform: Platform) -> tuple[list[ExtCall], list[Undecidable]]:
    """The load() calls ``rel`` reaches on ``platform``: its module body, then each function calling load()."""
    ev = Evaluator(tree, root, rel, platform)
    ev.loads = []  # kept outside the state an undecided branch copies: a load() reached on any path counts
    ev.run()
    notes = list(ev.undecidable)
    # A loader defined under `try: from . import _C` / `except ImportError:` is not reached by the module body
    # (a relative import is not known to fail): the imports of every module-level block are its names.
    for s in _module_level(tree.body):
        if isinstance(s, (ast.Import, ast.ImportFrom)):
            names = [a.asname or a.name.split(".")[0] for a in s.names]
            if any(n not in ev.globals for n in names):
                ev.import_(s, ev.globals)
    for node in ast.walk(tree):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) or not _calls_load(node):
            continue
        try:
            ev.call_func(Func(node, None), [], {}, node.lineno)
        except (_Raise, _Return, _Break, _Continue):
            pass
    for u in ev.undecidable:
        if u not in notes:
            notes.append(u)
    seen: dict[int, ExtCall] = {}
    for call in ev.loads:
        seen.setdefault(call.line, call)  # a loader reached twice (module body, then called): one extension
    return list(seen.values()), notes


def derive_loads(root: str, platforms: dict[str, Platform]):
    """``(file, {platform: [ExtCall]}, undecidable)`` of the first Python file of the project (sorted paths) whose
    load() calls the evaluation reaches; None where none does. A file past the evaluator's bounds is passed over."""
    for rel in _python_files(root):
        data = _read(root, rel)
        if data is None or b"cpp_extension" not in data or not _LOAD.search(data):
            continue
        try:
            tree = ast.parse(data, filename=rel)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
        found: dict[str, list[ExtCall]] = {}
        notes: list[Undecidable] = []
        for name, plat in platforms.items():
            try:
                calls, more = evaluate_loads(tree, root, rel, plat)
            except (EvalLimit, RecursionError, MemoryError):
                calls, more = [], []
            found[name] = calls
            notes += more
        if any(found.values()):
            return rel, found, notes
    return None
