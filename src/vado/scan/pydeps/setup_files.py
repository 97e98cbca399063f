"""setup.cfg and setup.py dependency declarations (setup.py read with ast, never executed)."""

from __future__ import annotations

import ast
import re

from vado.model.text import encode_source
from vado.scan.pydeps.model import DepSource, DependencyFile, Problem, Requirement
from vado.scan.pydeps.requirement import parse_requirement


_CFG_SECTION = re.compile(r"^\[([^\]]+)\]\s*$")
# The key keeps its trailing blanks (stripped by the caller): a lazy key followed by \s*
# backtracked quadratically over a long line without "=".
_CFG_KEY = re.compile(r"^([^\s=:][^=:]*)[=:][ \t]*")
_CFG_REQ_KEYS = {"install_requires", "setup_requires", "tests_require"}


def parse_setup_cfg(text: str, path: str = "setup.cfg") -> DependencyFile:
    """``install_requires``/``setup_requires``/``extras_require`` of a ``setup.cfg``."""
    reqs: list[Requirement] = []
    probs: list[Problem] = []
    section = ""
    group: str | None = None
    offset = 0
    for raw in text.splitlines(keepends=True):
        line = raw.rstrip("\r\n")
        start = offset
        offset += len(raw)
        stripped = line.strip()
        if not stripped or stripped.startswith(("#", ";")):
            continue
        sm = _CFG_SECTION.match(line)
        if sm:
            section = sm.group(1).strip()
            group = None
            continue
        if not line[0].isspace():
            km = _CFG_KEY.match(line)
            group = None
            if not km:
                continue
            key = km.group(1).strip()
            if section == "options" and key in _CFG_REQ_KEYS:
                group = "" if key == "install_requires" else key
            elif section == "options.extras_require":
                group = key
            if group is None:
                continue
            value_s = km.end()
        elif group is not None:
            value_s = len(line) - len(line.lstrip())
        else:
            continue
        value = line[value_s:]
        if not value.strip():
            continue
        r = parse_requirement(value, start + value_s, source=DepSource.SETUP_CFG, group=group)
        (reqs if isinstance(r, Requirement) else probs).append(r)
    return DependencyFile(path, DepSource.SETUP_CFG, tuple(reqs), (), (), (), (), tuple(probs))


# ---------------------------------------------------------------------------
# setup.py (read with ast, never executed)


_SETUP_KEYS = {"install_requires": "", "setup_requires": "setup_requires", "tests_require": "tests_require"}


def source_bytes_offsets(text: str) -> list[int]:
    """Line start offsets of ``text`` (1-based line ``k`` starts at ``[k-1]``), for ast positions.

    Python ends a line at ``\r\n``, ``\n`` or a lone ``\r`` (even inside a string or a
    comment), and numbers ast lines so.
    """
    if "\r" in text:
        return [0, *(m.end() for m in re.finditer(r"\r\n|\r|\n", text))]
    starts = [0]
    i = text.find("\n")
    while i != -1:
        starts.append(i + 1)
        i = text.find("\n", i + 1)
    return starts


def parse_python(text: str) -> ast.Module | SyntaxError:
    """``ast`` of a file's latin-1 view, parsed from its bytes so columns are byte offsets.

    Returns the ``SyntaxError`` (or a ``ValueError`` wrapped as one) instead of raising.
    """
    try:
        return ast.parse(encode_source(text))
    except SyntaxError as exc:
        return exc
    except (ValueError, RecursionError, MemoryError) as exc:
        return SyntaxError(f"{type(exc).__name__}: {exc}")


def node_span(node: ast.AST, starts: list[int]) -> tuple[int, int] | None:
    """Byte span of ``node`` from its ``lineno``/``col_offset`` (None when it has none)."""
    ln = getattr(node, "lineno", None)
    eln = getattr(node, "end_lineno", None)
    if ln is None or eln is None or ln > len(starts) or eln > len(starts):
        return None
    return starts[ln - 1] + node.col_offset, starts[eln - 1] + node.end_col_offset


def string_content_span(text: str, span: tuple[int, int]) -> tuple[int, int] | None:
    """Span of a single string literal's content (quotes and prefix removed), or None."""
    s, e = span
    lit = text[s:e]
    m = re.match(r"(?i)[rbuf]{0,2}('''|\"\"\"|'|\")", lit)
    if not m:
        return None
    q = m.group(1)
    if not lit.endswith(q) or len(lit) < m.end() + len(q):
        return None
    return s + m.end(), e - len(q)


def _string_items(node: ast.AST, names: dict[str, ast.AST], depth: int = 0) -> list[ast.Constant]:
    """String constants of a list/tuple expression, following simple names and ``+``."""
    if depth > 8:
        return []
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        return [e for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
    if isinstance(node, ast.Name) and node.id in names:
        return _string_items(names[node.id], names, depth + 1)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return _string_items(node.left, names, depth + 1) + _string_items(node.right, names, depth + 1)
    return []


def _module_assignments(tree: ast.Module) -> dict[str, ast.AST]:
    names: dict[str, ast.AST] = {}
    for stmt in tree.body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
            names[stmt.targets[0].id] = stmt.value
        elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name) and stmt.value is not None:
            names[stmt.target.id] = stmt.value
    return names


def call_name(node: ast.AST) -> str:
    """Dotted name of a call's function (``setuptools.setup``), ``""`` when not a name."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return ""


def parse_setup_py(text: str, path: str = "setup.py") -> DependencyFile:
    """``install_requires``/``extras_require``/``setup_requires`` of a ``setup.py``.

    The file is parsed with :mod:`ast` and never executed. Literal lists, simple
    module-level names and ``+`` of those are followed; anything computed
    (``open('requirements.txt').read()``) is out of reach and not reported.
    When the file does not parse, the lists are read by pattern and a
    :class:`Problem` says so.
    """
    tree = parse_python(text)
    if isinstance(tree, SyntaxError):
        reqs, probs = _setup_py_by_pattern(text)
        line = tree.lineno or 0
        starts = source_bytes_offsets(text)
        at = starts[line - 1] if 0 < line <= len(starts) else 0
        probs.insert(0, Problem(at, at, f"setup.py does not parse ({tree.msg}, line {line}); "
                                       "dependency lists read by pattern", ""))
        return DependencyFile(path, DepSource.SETUP_PY, tuple(reqs), (), (), (), (), tuple(probs))
    starts = source_bytes_offsets(text)
    names = _module_assignments(tree)
    reqs: list[Requirement] = []
    probs: list[Problem] = []

    def add(const: ast.Constant, group: str) -> None:
        sp = node_span(const, starts)
        content = string_content_span(text, sp) if sp else None
        if content is None:
            return
        r = parse_requirement(text[content[0] : content[1]], content[0], source=DepSource.SETUP_PY, group=group)
        (reqs if isinstance(r, Requirement) else probs).append(r)

    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or call_name(node.func).rsplit(".", 1)[-1] != "setup":
            continue
        for kw in node.keywords:
            if kw.arg in _SETUP_KEYS:
                for c in _string_items(kw.value, names):
                    add(c, _SETUP_KEYS[kw.arg])
            elif kw.arg == "extras_require":
                value = kw.value
                if isinstance(value, ast.Name) and value.id in names:
                    value = names[value.id]
                if isinstance(value, ast.Dict):
                    for k, v in zip(value.keys, value.values):
                        if isinstance(k, ast.Constant) and isinstance(k.value, str):
                            for c in _string_items(v, names):
                                add(c, k.value)
    reqs.sort(key=lambda r: r.start)
    return DependencyFile(path, DepSource.SETUP_PY, tuple(reqs), (), (), (), (), tuple(probs))


_PY_STRING = re.compile(r"""(?P<q>'''|\"\"\"|'|")(?P<body>(?:\\.|(?!(?P=q)).)*?)(?P=q)""", re.S)
_SETUP_KW = re.compile(r"\b(install_requires|setup_requires|tests_require|extras_require)\s*=\s*([\[({])")


def _setup_py_by_pattern(text: str) -> tuple[list[Requirement], list[Problem]]:
    """Requirement strings inside ``install_requires=[…]``-style brackets, for unparsable files."""
    reqs: list[Requirement] = []
    probs: list[Problem] = []
    pairs = {"[": "]", "(": ")", "{": "}"}
    for m in _SETUP_KW.finditer(text):
        kw = m.group(1)
        i = m.end()
        stack = [pairs[m.group(2)]]
        key = ""
        limit = min(len(text), i + 200_000)
        while i < limit and stack:
            ch = text[i]
            if ch in "'\"":
                sm = _PY_STRING.match(text, i)
                if not sm:
                    break
                s, e = sm.start("body"), sm.end("body")
                after = text[sm.end() : sm.end() + 40].lstrip()
                if kw == "extras_require" and after.startswith(":") and len(stack) == 1:
                    key = sm.group("body")
                else:
                    group = key if kw == "extras_require" else _SETUP_KEYS.get(kw, "")
                    r = parse_requirement(text[s:e], s, source=DepSource.SETUP_PY, group=group)
                    (reqs if isinstance(r, Requirement) else probs).append(r)
                i = sm.end()
                continue
            if ch == "#":
                nl = text.find("\n", i)
                i = len(text) if nl == -1 else nl
                continue
            if ch in pairs:
                stack.append(pairs[ch])
            elif stack and ch == stack[-1]:
                stack.pop()
            i += 1
    return reqs, probs
