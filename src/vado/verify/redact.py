"""Compiler diagnostics that quote no file outside a root.

A compiler quotes the line of every diagnostic and often its words (``unknown type
name 'root'``). A source that includes ``/etc/shadow`` would then show that file's
first line to whoever reads the diagnostics: over MCP or to an agent's model, that
is anyone who can send a file to compile. :func:`redact_diagnostics` keeps every
diagnostic located in the root (or in a toolchain's public headers) and replaces
each one located elsewhere, with the source lines and carets under it, by a line
that names only the place.

This is the second, weaker layer. The first is confinement: compilers run where
only the root, the toolchain and a scratch directory exist (:mod:`vado.verify.sandbox`),
so a file outside the root cannot be read at all. Redaction by location cannot stop a
file's bytes printed at a location *inside* the root: ``#embed "/etc/shadow"`` in a
template argument shows the bytes in a diagnostic of the root's own file, and
``__has_include`` answers whether a host path exists without any diagnostic. Where
confinement is not available (``Outcome.confinement`` starts with ``none``), callers
say so beside the redacted output.
"""

from __future__ import annotations

import dataclasses
import os
import re
from typing import Any, Iterable

#: ``PATH:LINE[:COL]: `` at the start of a diagnostic (clang, gcc, nvcc's
#: ``PATH(LINE): error``), or the ``In file included from PATH:LINE`` chain.
_HEAD = re.compile(
    r"^(?P<lead>(?:In file included from |\s+from |In module .* imported from )?)"
    r"(?P<path>[^\s:(][^:\n(]*?)(?::(?P<line>\d+)(?::(?P<col>\d+))?|\((?P<pline>\d+)\)):?"
)

#: Directories of public headers a compile may quote: the system's and ROCm's.
SYSTEM_DIRS = ("/usr/include", "/usr/local/include", "/usr/lib", "/usr/lib64", "/opt/rocm", "/usr/local/cuda")

WITHHELD = "[diagnostic withheld: the file is outside the root]"


def _inside(path: str, dirs: Iterable[str]) -> bool:
    return any(path == d or path.startswith(d.rstrip("/") + "/") for d in dirs)


def _allowed_dirs(roots: Iterable[str | os.PathLike], extra: Iterable[str | os.PathLike]) -> tuple[str, ...]:
    out = []
    for d in (*roots, *extra):
        out.append(os.path.realpath(os.fspath(d)))
    for d in SYSTEM_DIRS:
        out.append(d)
        out.append(os.path.realpath(d))
    parent = "/opt"
    try:
        out.extend(os.path.join(parent, n) for n in os.listdir(parent) if n.startswith("rocm"))
    except OSError:
        pass
    return tuple(dict.fromkeys(out))


def redact_diagnostics(text: str, roots: Iterable[str | os.PathLike], *, cwd: str | os.PathLike | None = None,
                       extra_dirs: Iterable[str | os.PathLike] = ()) -> str:
    """``text`` (compiler output) without the diagnostics located outside ``roots``.

    A diagnostic's location is resolved against ``cwd`` (the compile's directory) and
    symlinks are followed. Its first line becomes ``PATH:LINE: [diagnostic withheld…]``;
    the lines quoted under it are dropped until the next diagnostic starts. Locations in
    a root, in ``extra_dirs`` or in :data:`SYSTEM_DIRS` are kept as they are.
    """
    if not text:
        return text
    allowed = _allowed_dirs(roots, extra_dirs)
    base = os.fspath(cwd) if cwd is not None else os.getcwd()
    out: list[str] = []
    hiding = False
    cache: dict[str, bool] = {}
    for line in text.splitlines(keepends=True):
        m = _HEAD.match(line)
        path = m.group("path").strip() if m else ""
        if m and path and (os.sep in path or "." in path):
            ok = cache.get(path)
            if ok is None:
                real = os.path.realpath(os.path.join(base, path))
                ok = cache[path] = _inside(real, allowed)
            if ok:
                hiding = False
                out.append(line)
            else:
                hiding = True
                where = m.group("line") or m.group("pline") or "?"
                out.append(f"{m.group('lead')}{path}:{where}: {WITHHELD}\n")
            continue
        if hiding and (line.startswith((" ", "\t")) or line.strip() in ("", "^")):
            continue  # the quoted source line, its caret and fix-it lines
        hiding = False
        out.append(line)
    return "".join(out)


def redact_value(value: Any, roots: Iterable[str | os.PathLike], **kwargs: Any) -> Any:
    """:func:`redact_diagnostics` over every string in ``value`` (dicts, lists, tuples)."""
    roots = tuple(roots)
    if isinstance(value, str):
        return redact_diagnostics(value, roots, **kwargs) if ":" in value else value
    if isinstance(value, dict):
        return {k: redact_value(v, roots, **kwargs) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(redact_value(v, roots, **kwargs) for v in value)
    return value


def redact_evidence(evidence, roots: Iterable[str | os.PathLike], **kwargs: Any):
    """An :class:`~vado.model.Evidence` whose output and detail quote nothing outside ``roots``."""
    roots = tuple(roots)
    detail = dict(evidence.detail)
    diags = detail.get("diagnostics")
    if isinstance(diags, list):
        detail["diagnostics"] = [_redact_record(d, roots, **kwargs) for d in diags]
    return dataclasses.replace(
        evidence,
        stdout=redact_diagnostics(evidence.stdout, roots, **kwargs),
        stderr=redact_diagnostics(evidence.stderr, roots, **kwargs),
        detail=redact_value(detail, roots, **kwargs),
    )


def _redact_record(record: Any, roots: tuple, *, cwd: str | os.PathLike | None = None,
                   extra_dirs: Iterable[str | os.PathLike] = ()) -> Any:
    """A parsed diagnostic (``{"file", "line", "message", ...}``) whose file lies outside
    ``roots`` keeps its place and loses its words."""
    if not isinstance(record, dict) or not isinstance(record.get("file"), str):
        return record
    allowed = _allowed_dirs(roots, extra_dirs)
    bases = [os.fspath(cwd)] if cwd is not None else []
    bases += [os.fspath(r) for r in roots]
    # A relative file name may be relative to the compile's directory or to the root: kept
    # only when every reading of it is inside.
    real = [os.path.realpath(os.path.join(b, record["file"])) for b in bases] or [os.path.realpath(record["file"])]
    if all(_inside(r, allowed) for r in real):
        return record
    return {**record, "message": WITHHELD, "code": "", "finding": ""}


__all__ = ["redact_diagnostics", "redact_evidence", "redact_value", "SYSTEM_DIRS", "WITHHELD"]
