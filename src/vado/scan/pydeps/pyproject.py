"""pyproject.toml: PEP 621/735 dependencies, build-system requires, Poetry, and tool index URLs."""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import unquote

from vado.scan.pydeps.model import DepSource, DependencyFile, IndexOption, Problem, Requirement, local_label, normalize_name
from vado.scan.pydeps.requirement import _archive_name, parse_requirement


@dataclass(frozen=True)
class TomlString:
    """A string value in a TOML file: its key path, raw content and content span."""

    path: tuple[str, ...]
    value: str
    start: int
    end: int
    key_start: int = -1
    key_end: int = -1


_TOML_TOKEN = re.compile(
    r'''
    (?P<ws>[ \t]+)
  | (?P<nl>\r?\n)
  | (?P<comment>\#[^\n]*)
  | (?P<mlbasic>"""(?:[^\\]|\\.)*?"""(?:""?)?)
  | (?P<mllit>\'\'\'.*?\'\'\'\'?\'?)
  | (?P<basic>"(?:[^"\\\n]|\\.)*")
  | (?P<lit>'[^'\n]*')
  | (?P<punct>\[\[|\]\]|[\[\]{}=,.])
  | (?P<bare>[A-Za-z0-9_+:\-]+)
  | (?P<bad>.)
    ''',
    re.VERBOSE | re.DOTALL,
)


#: How deeply :func:`toml_strings` follows nested arrays and inline tables.
_TOML_MAX_DEPTH = 64


def toml_strings(text: str) -> list[TomlString]:
    """Every string value in ``text`` with the key path that leads to it.

    A small tolerant walker over TOML tokens: table headers set the path, keys
    (dotted, quoted) extend it, arrays add nothing, inline tables nest. It
    keeps going after errors (tomllib decides validity), so a broken file still
    yields the strings it can find. Keys are returned unquoted.
    """
    toks = [(m.lastgroup, m.start(), m.end(), m.group()) for m in _TOML_TOKEN.finditer(text)
            if m.lastgroup not in ("ws", "comment")]
    out: list[TomlString] = []
    n = len(toks)
    i = 0
    table: tuple[str, ...] = ()

    def key_text(tok) -> str:
        kind, _, _, t = tok
        return t[1:-1] if kind in ("basic", "lit") else t

    def read_key(i: int) -> tuple[list[str], int, tuple[int, int]]:
        parts: list[str] = []
        last = (-1, -1)
        while i < n and toks[i][0] in ("bare", "basic", "lit"):
            parts.append(key_text(toks[i]))
            last = (toks[i][1] + (1 if toks[i][0] != "bare" else 0), toks[i][2] - (1 if toks[i][0] != "bare" else 0))
            i += 1
            if i < n and toks[i][3] == ".":
                i += 1
                continue
            break
        return parts, i, last

    def skip_nested(i: int) -> int:
        # Past the array or inline table opening at ``i``, without recursion.
        depth = 0
        while i < n:
            t = toks[i][3]
            if t in ("[", "{", "[["):
                depth += len(t)
            elif t in ("]", "}", "]]"):
                depth -= len(t)
                if depth <= 0:
                    return i + 1
            i += 1
        return i

    def value(i: int, path: tuple[str, ...], key_span: tuple[int, int], depth: int = 0) -> int:
        if i >= n:
            return i
        kind, s, e, t = toks[i]
        if depth >= _TOML_MAX_DEPTH and t in ("[", "{"):
            return skip_nested(i)  # no dependency list nests this deep; the recursion would overflow
        if kind in ("basic", "lit"):
            out.append(TomlString(path, t[1:-1], s + 1, e - 1, *key_span))
            return i + 1
        if kind in ("mlbasic", "mllit"):
            body_s = s + 3
            if text.startswith("\n", body_s):
                body_s += 1
            elif text.startswith("\r\n", body_s):
                body_s += 2
            out.append(TomlString(path, text[body_s : e - 3], body_s, e - 3, *key_span))
            return i + 1
        if t == "[":
            i += 1
            while i < n and toks[i][3] != "]":
                if toks[i][0] == "nl" or toks[i][3] == ",":
                    i += 1
                    continue
                j = value(i, path, key_span, depth + 1)
                i = j if j > i else i + 1
            return i + 1
        if t == "{":
            i += 1
            while i < n and toks[i][3] != "}" and toks[i][0] != "nl":
                if toks[i][3] == ",":
                    i += 1
                    continue
                parts, j, kspan = read_key(i)
                if not parts or j >= n or toks[j][3] != "=":
                    i = max(j, i + 1)
                    continue
                i = value(j + 1, path + tuple(parts), kspan, depth + 1)
            return i + 1
        return i + 1  # number, bool, date

    while i < n:
        kind, s, e, t = toks[i]
        if kind == "nl":
            i += 1
            continue
        if t in ("[", "[["):
            close = "]" if t == "[" else "]]"
            parts, j, _ = read_key(i + 1)
            if j < n and toks[j][3] == close:
                table = tuple(parts)
                i = j + 1
            else:
                i = j + 1
            continue
        parts, j, kspan = read_key(i)
        if parts and j < n and toks[j][3] == "=":
            i = value(j + 1, table + tuple(parts), kspan)
            continue
        # Not a key: skip to the end of the line.
        while i < n and toks[i][0] != "nl":
            i += 1
    return out


_POETRY_DEP_TABLES = (("tool", "poetry", "dependencies"), ("tool", "poetry", "dev-dependencies"))
_TOOL_INDEX_KEYS = {"url", "index-url", "extra-index-url", "find-links", "index_url", "extra_index_url"}


def _poetry_group(path: tuple[str, ...]) -> tuple[str, tuple[str, ...]] | None:
    """``(group, rest)`` when ``path`` is under a Poetry dependency table."""
    for base in _POETRY_DEP_TABLES:
        if path[: len(base)] == base and len(path) > len(base):
            return ("" if base[-1] == "dependencies" else "dev"), path[len(base):]
    if path[:3] == ("tool", "poetry", "group") and len(path) > 5 and path[4] == "dependencies":
        return path[3], path[5:]
    return None


def parse_pyproject(text: str, path: str = "pyproject.toml") -> DependencyFile:
    """Dependencies and index URLs declared in ``pyproject.toml``."""
    import tomllib

    probs: list[Problem] = []
    try:
        tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        probs.append(Problem(0, 0, f"pyproject.toml is not valid TOML ({exc}); dependencies read best-effort"))
    except RecursionError:  # tomllib recurses once per nested array or inline table
        probs.append(Problem(0, 0, "pyproject.toml nests arrays or tables too deeply to parse; dependencies read best-effort"))
    reqs: list[Requirement] = []
    idx: list[IndexOption] = []
    for s in toml_strings(text):
        p = s.path
        group: str | None = None
        source = DepSource.PYPROJECT
        if p == ("project", "dependencies"):
            group = ""
        elif len(p) == 3 and p[:2] == ("project", "optional-dependencies"):
            group = p[2]
        elif len(p) == 2 and p[0] == "dependency-groups":
            group = p[1]
        elif p == ("build-system", "requires"):
            group = "build-system"
        if group is not None:
            r = parse_requirement(s.value, s.start, source=source, group=group)
            (reqs if isinstance(r, Requirement) else probs).append(r)
            continue
        pg = _poetry_group(p)
        if pg is not None:
            grp, rest = pg
            name = rest[0]
            if name.lower() == "python":
                continue
            if len(rest) == 1 or rest[1:] == ("version",):
                # ``torch = "2.1.0+cu121"`` or ``torch = {version = "…"}``: the
                # name is the key; for the table form the key span is the
                # ``version`` key, so find the name token on its own.
                ks, ke = (s.key_start, s.key_end) if len(rest) == 1 else (s.start, s.start)
                spec = s.value.strip()
                exact = spec if re.fullmatch(r"=?=?\s*[0-9][A-Za-z0-9.+!_-]*", spec) else ""
                reqs.append(Requirement(
                    name, normalize_name(name), s.start, s.end, ks, ke, s.start, s.end, (), spec, "", "",
                    exact.lstrip("= "), local_label(spec), DepSource.POETRY, grp,
                ))
            elif rest[1:] in (("url",), ("git",), ("path",)):
                arch = _archive_name(unquote(s.value.split("#", 1)[0]))
                version = arch[1] if arch and rest[1] == "url" else ""
                reqs.append(Requirement(
                    name, normalize_name(name), s.start, s.end, s.start, s.start, s.start, s.end, (), "", "",
                    s.value, version, local_label(version), DepSource.POETRY, grp,
                ))
            continue
        if p and p[0] == "tool" and p[-1] in _TOOL_INDEX_KEYS and re.match(r"^(?:https?|file)://", s.value):
            idx.append(IndexOption(p[-1], s.value, s.start, s.end, s.start, s.end, DepSource.PYPROJECT))
    return DependencyFile(path, DepSource.PYPROJECT, tuple(reqs), tuple(idx), (), (), (), tuple(probs))
