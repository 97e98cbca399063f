"""Reading a torch extension's ``setup.py`` without running it.

The file is parsed (``ast``), never executed. The extensions it makes on CUDA come from
:func:`vado.build.torch_setup.derive` (a bounded evaluator of the file's own logic); where that derives none, every call of ``CUDAExtension``, ``CppExtension`` or
``Extension`` whose arguments are literals (strings, lists, tuples, dicts; names assigned a literal
once at module level; ``os.path.join``/``glob`` are not evaluated) gives units: its ``sources``
(the second positional argument or ``sources=``), ``include_dirs``, ``define_macros`` and
``extra_compile_args`` (a list, or a dict with ``cxx`` and ``nvcc`` lists). What cannot be read
literally is named in the notes. torch's own headers are added as system include directories when
torch is installed (found by ``importlib.util.find_spec``, not imported).
"""

from __future__ import annotations

import ast
import importlib.util
import os
from pathlib import Path

from vado.build.cmdline import language_of, parse_flags
from vado.build.model import BuildConfig, IncludeKind, IncludePath, TranslationUnit

_EXT_CALLS = {"CUDAExtension", "CppExtension", "Extension", "HIPExtension"}


def _literal(node: ast.AST, names: dict[str, ast.AST], depth: int = 0):
    """The value of a literal expression: constants, lists, tuples, dicts, module-level names bound to
    one, and ``+`` of lists or strings. Raises :class:`ValueError` for anything else."""
    if depth > 20:
        raise ValueError("too deep")
    if isinstance(node, ast.Name) and node.id in names:
        return _literal(names[node.id], names, depth + 1)
    if isinstance(node, ast.Constant) and isinstance(node.value, (str, int, float, bool, type(None))):
        return node.value
    if isinstance(node, (ast.List, ast.Tuple)):
        items = [_literal(e, names, depth + 1) for e in node.elts]
        return items if isinstance(node, ast.List) else tuple(items)
    if isinstance(node, ast.Dict) and all(k is not None for k in node.keys):
        return {_literal(k, names, depth + 1): _literal(v, names, depth + 1) for k, v in zip(node.keys, node.values)}
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _literal(node.left, names, depth + 1), _literal(node.right, names, depth + 1)
        if type(left) is type(right) and isinstance(left, (list, tuple, str)):
            return left + right
    raise ValueError("not a literal")


def _torch_includes() -> list[str]:
    try:
        spec = importlib.util.find_spec("torch")
    except (ImportError, ValueError):
        return []
    if spec is None or not spec.submodule_search_locations:
        return []
    base = Path(list(spec.submodule_search_locations)[0]) / "include"
    dirs = [base, base / "torch" / "csrc" / "api" / "include"]
    return [str(d) for d in dirs if d.is_dir()]


def read_setup_py(path: str | os.PathLike) -> BuildConfig | None:
    """The units of the extensions a ``setup.py`` declares, or None when it declares none.

    The extensions setup.py makes on CUDA are derived first (:func:`vado.build.torch_setup.derive`: globs,
    ``os.path.join``, helper functions, ``CUDA_HOME`` gates followed without running it); where that derives none,
    the calls whose arguments are literals are read as they stand."""
    path = Path(path)
    derived = _derived_units(path)
    if derived is not None:
        return derived
    return _literal_units(path)


def _source_unit(root: str, src: str, cxx, nvcc, include_dirs, macros, ext_name: str, origin: str,
                 torch_inc: list[str]) -> TranslationUnit | None:
    """One source of an extension as its unit: nvcc's flags for ``.cu``/``.hip``, the C++ compiler's otherwise,
    the extension's include dirs (relative to ``root``), torch's headers, its macros (``(name, value)``, value
    None for a bare name) and ``TORCH_EXTENSION_NAME``; None for a source of no compiled language."""
    cuda = src.endswith((".cu", ".hip"))
    acc, _ = parse_flags([str(w) for w in (nvcc if cuda else cxx)], "nvcc" if cuda else "cxx", root)
    for inc in include_dirs:
        acc.include(str(inc), IncludeKind.DIR)
    for inc in torch_inc:
        acc.includes.append(IncludePath(inc, IncludeKind.SYSTEM))
    for name, value in macros:
        acc.macros.append(("D", f"{name}" if value is None else f"{name}={value}"))
    acc.macros.append(("D", f"TORCH_EXTENSION_NAME={ext_name.rsplit('.', 1)[-1]}"))
    lang = language_of(src, "nvcc" if cuda else "cxx", None)
    if lang is None:
        return None
    return acc.unit(os.path.normpath(os.path.join(root, src)), lang, "nvcc" if cuda else "c++", origin, ext_name)


def _derived_units(path: Path) -> BuildConfig | None:
    """The units of the extensions :func:`vado.build.torch_setup.derive` finds setup.py making on CUDA."""
    from vado.build.torch_setup import derive

    if path.name != "setup.py":
        return None
    root = str(path.parent.resolve())
    d = derive(root)
    exts = d.extensions.get("cuda", ())
    if d.skipped or not exts:
        return None
    torch_inc = _torch_includes()
    units: list[TranslationUnit] = []
    notes = [f"{u.file}:{u.line}: {u.what}" for u in d.undecidable if "cuda" in u.platforms or not u.platforms]
    for ext in exts:
        for src in ext.sources:
            unit = _source_unit(root, src, ext.cxx, ext.nvcc, ext.include_dirs, ext.define_macros, ext.name,
                                f"{path.name}:{ext.line} {ext.kind} (derived)", torch_inc)
            if unit is not None:
                units.append(unit)
    if not units:
        return None
    if not torch_inc:
        notes.append("torch is not installed here: its headers (torch/extension.h) are not on the include path")
    return BuildConfig(root, tuple(units), "setup.py", notes=tuple(notes), sources_read=(str(path),))


def _literal_units(path: Path) -> BuildConfig | None:
    """The units of the extension calls of ``path`` whose arguments are literals."""
    root = str(path.parent.resolve())
    try:
        tree = ast.parse(path.read_bytes())
    except (OSError, SyntaxError, ValueError) as exc:
        return BuildConfig(root, (), "setup.py", notes=(f"{path.name} cannot be parsed: {exc}",))
    names: dict[str, ast.AST] = {}
    for stmt in tree.body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            names[stmt.targets[0].id] = stmt.value
    units: list[TranslationUnit] = []
    notes: list[str] = []
    found = False
    torch_inc = _torch_includes()
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        fname = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", "")
        if fname not in _EXT_CALLS:
            continue
        found = True
        kw = {k.arg: k.value for k in node.keywords if k.arg}
        try:
            name = _literal(node.args[0], names) if node.args else _literal(kw["name"], names)
            sources = _literal(node.args[1], names) if len(node.args) > 1 else _literal(kw["sources"], names)
        except (ValueError, KeyError, TypeError):
            notes.append(f"{path.name}:{node.lineno}: {fname}'s name or sources are not literals: not read")
            continue
        def opt(key, default):
            if key not in kw:
                return default
            try:
                return _literal(kw[key], names)
            except (ValueError, TypeError):
                notes.append(f"{path.name}:{node.lineno}: {key} is not a literal: left out")
                return default
        incs = opt("include_dirs", [])
        macros = opt("define_macros", [])
        extra = opt("extra_compile_args", [])
        cxx, nv = (extra.get("cxx", []), extra.get("nvcc", [])) if isinstance(extra, dict) else (extra, extra)
        pairs = [(m[0], m[1]) for m in (macros if isinstance(macros, (list, tuple)) else [])
                 if isinstance(m, (list, tuple)) and len(m) == 2]
        for src in sources if isinstance(sources, (list, tuple)) else []:
            unit = _source_unit(root, str(src), cxx, nv, incs if isinstance(incs, (list, tuple)) else [], pairs,
                                str(name), f"{path.name}:{node.lineno} {fname}", torch_inc)
            if unit is not None:
                units.append(unit)
    if not found:
        return None
    if not torch_inc:
        notes.append("torch is not installed here: its headers (torch/extension.h) are not on the include path")
    return BuildConfig(root, tuple(units), "setup.py", notes=tuple(notes), sources_read=(str(path),))
