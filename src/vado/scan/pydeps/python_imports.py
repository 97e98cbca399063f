"""Imports and embedded GPU code (CuPy raw kernels, inline asm strings) in Python sources."""

from __future__ import annotations

import ast
import re

from vado.scan.pydeps.model import Problem, PyImport, PythonFacts, RawKernel
from vado.scan.pydeps.setup_files import call_name, node_span, parse_python, source_bytes_offsets


_RAW_KERNEL_CALLS = {"RawKernel", "RawModule", "ElementwiseKernel", "ReductionKernel"}
_ASM = re.compile(r"\basm\s*(?:volatile\s*)?\(\s*\"([^\"]*)\"")
_IMPORT_LINE = re.compile(
    r"^[ \t]*(?:from[ \t]+(?P<from>[A-Za-z_][\w.]*)[ \t]+import[ \t]+\(?(?P<names>[\w, \t]+)"
    r"|import[ \t]+(?P<mods>[A-Za-z_][\w.]*(?:[ \t]+as[ \t]+\w+)?(?:[ \t]*,[ \t]*[A-Za-z_][\w.]*(?:[ \t]+as[ \t]+\w+)?)*))",
    re.M,
)


def scan_python_imports(text: str, path: str = "") -> PythonFacts:
    """Absolute imports and CuPy raw-kernel strings of a Python file.

    Parsed with :mod:`ast` from the file's bytes; a file that does not parse is
    read by pattern (imports only, ``approximate=True``) and a :class:`Problem`
    records the syntax error.
    """
    tree = parse_python(text)
    if isinstance(tree, SyntaxError):
        starts = source_bytes_offsets(text)
        line = tree.lineno or 0
        at = starts[line - 1] if 0 < line <= len(starts) else 0
        return PythonFacts(path, tuple(_imports_by_pattern(text)), (),
                           (Problem(at, at, f"does not parse ({tree.msg}, line {line}); imports read by pattern"),))
    starts = source_bytes_offsets(text)
    imports: list[PyImport] = []
    kernels: list[RawKernel] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            st = node_span(node, starts)
            if st is None:
                continue
            for alias in node.names:
                sp = node_span(alias, starts)
                s = sp[0] if sp else st[0]
                imports.append(PyImport(alias.name, s, s + len(alias.name), *st))
        elif isinstance(node, ast.ImportFrom):
            if node.level or not node.module:
                continue
            st = node_span(node, starts)
            if st is None:
                continue
            mod_at = text.find(node.module.split(".")[0], st[0], st[1])
            mod_at = st[0] if mod_at == -1 else mod_at
            for alias in node.names:
                sp = node_span(alias, starts)
                if alias.name == "*" or sp is None:
                    imports.append(PyImport(node.module, mod_at, mod_at + len(node.module), *st))
                else:
                    imports.append(PyImport(f"{node.module}.{alias.name}", mod_at, sp[0] + len(alias.name), *st))
        elif isinstance(node, ast.Call):
            name = call_name(node.func)
            if name.rsplit(".", 1)[-1] not in _RAW_KERNEL_CALLS:
                continue
            code = node.args[0] if node.args else next((k.value for k in node.keywords if k.arg == "code"), None)
            if not (isinstance(code, ast.Constant) and isinstance(code.value, str)):
                continue
            sp = node_span(code, starts)
            if sp is None:
                continue
            ptx = tuple(m.group(1) for m in _ASM.finditer(code.value))
            kernels.append(RawKernel(name, sp[0], sp[1], ptx))
    imports.sort(key=lambda i: (i.start, i.end, i.module))
    kernels.sort(key=lambda k: k.start)
    return PythonFacts(path, tuple(imports), tuple(kernels), ())


def _imports_by_pattern(text: str) -> list[PyImport]:
    out: list[PyImport] = []
    for m in _IMPORT_LINE.finditer(text):
        st = (m.start(), m.end())
        if m.group("from"):
            base = m.group("from")
            if base.startswith("."):
                continue
            for nm in re.finditer(r"[A-Za-z_]\w*", m.group("names")):
                if nm.group(0) == "as":
                    continue
                out.append(PyImport(f"{base}.{nm.group(0)}", m.start("from"), m.start("names") + nm.end(), *st, True))
        else:
            for mm in re.finditer(r"([A-Za-z_][\w.]*)(?:[ \t]+as[ \t]+\w+)?", m.group("mods")):
                s = m.start("mods") + mm.start(1)
                out.append(PyImport(mm.group(1), s, s + len(mm.group(1)), *st, True))
    return out
