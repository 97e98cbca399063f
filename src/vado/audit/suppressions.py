"""Checks of ``vado: ignore`` comments, and adding them for today's findings (ruff's RUF100 and ``--add-noqa``).

- :func:`unknown_codes`: codes or prefixes in a suppression that match no vado code (``WARP999``): such a
  comment suppresses nothing, and says so nowhere else;
- :func:`unused_suppressions`: suppressions that suppress no finding of an audit that ran without them
  (``vado audit --no-suppressions``), for the codes that audit selected;
- :func:`noqa_edits`: the :class:`~vado.model.Edit` list that puts ``vado: ignore[CODES]`` at the end of each
  finding's line, for :func:`vado.port.apply.apply_edits` (the one applier) to apply.

Where an end-of-line comment would change the file's meaning or not be a comment at all, no edit is made
and the finding is returned as skipped, with the reason: a line continued by a backslash (a macro, a
string), the inside of a block comment or a raw string, a Makefile (a ``#`` after a variable's value
leaves its blanks in the value), a Dockerfile (comments only at a line's start), Python sources.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from typing import Iterable, Sequence

from vado.model import Edit, Finding

#: ``vado: ignore``, ``ignore-next-line``, ``ignore-file``, with the bracket's content as written.
_COMMENT = re.compile(rb"vado:[ \t]*ignore(-next-line|-file)?(?:\[([^\]\r\n]*)\])?")
_CODE = re.compile(r"[A-Z]+[0-9]*\Z")

_C_KINDS = frozenset({"cuda-source", "cuda-header", "cxx-source", "cxx-header"})
#: Kinds whose comment starts with ``#`` and may follow code on a line.
_HASH_KINDS = frozenset({"cmake", "requirements", "conda-env"})


@dataclass(frozen=True)
class Suppression:
    """One ``vado: ignore`` comment: where it is, what it covers, and the codes it names (``ALL``: every code)."""

    line: int
    column: int
    kind: str  # "line", "next-line" or "file"
    codes: tuple[str, ...]
    text: str

    @property
    def covers(self) -> int:
        """The line it suppresses findings on (0: the whole file)."""
        return 0 if self.kind == "file" else self.line + (self.kind == "next-line")


def parse(data: bytes, starts: list[int] | None = None) -> list[Suppression]:
    """Every ``vado: ignore`` comment of a file, in order."""
    if b"vado:" not in data:
        return []
    if starts is None:
        from vado.audit.filters import line_starts

        starts = line_starts(data)
    out = []
    for m in _COMMENT.finditer(data):
        line = bisect.bisect_right(starts, m.start())
        kind = {None: "line", b"-next-line": "next-line", b"-file": "file"}[m.group(1)]
        raw = m.group(2)
        codes = tuple(c.strip().upper() for c in raw.decode("latin-1").split(",") if c.strip()) if raw is not None else ()
        out.append(Suppression(line, m.start() - starts[line - 1] + 1, kind, codes or ("ALL",),
                               m.group(0).decode("latin-1")))
    return out


def unknown_codes(data: bytes, known: Iterable[str]) -> list[tuple[Suppression, str]]:
    """(suppression, code) for each code or prefix that names no vado code (it suppresses nothing)."""
    known = tuple(known)
    out = []
    for sup in parse(data):
        for code in sup.codes:
            if code == "ALL":
                continue
            if not _CODE.match(code) or not any(k.startswith(code) for k in known):
                out.append((sup, code))
    return out


def unused_suppressions(data: bytes, findings: Sequence[Finding], enabled: Iterable[str] | None = None
                        ) -> list[tuple[Suppression, tuple[str, ...]]]:
    """(suppression, codes) for each code of a suppression that matches none of ``findings``.

    ``findings`` are one file's findings from an audit without suppressions; ``enabled`` the codes that
    audit selected (None: all): a code outside it may well have findings the audit did not look for, and
    is not reported (ruff's RUF100 does the same)."""
    enabled = None if enabled is None else frozenset(enabled)
    out = []
    for sup in parse(data):
        here = [f.code for f in findings if sup.covers == 0 or f.span.line == sup.covers]
        unused = []
        for code in sup.codes:
            if enabled is not None and code != "ALL" and not any(c.startswith(code) for c in enabled):
                continue
            if not any(code == "ALL" or c.startswith(code) for c in here):
                unused.append(code)
        if unused:
            out.append((sup, tuple(unused)))
    return out


def noqa_edits(path: str, kind: str, data: bytes, findings: Sequence[Finding]) -> tuple[list[Edit], list[tuple[Finding, str]]]:
    """(edits, skipped): one end-of-line ``vado: ignore[CODES]`` comment per line that has findings, and the
    findings left without one with the reason (see the module docstring)."""
    from vado.audit.filters import line_starts
    from vado.model.text import decode_source

    by_line: dict[int, list[Finding]] = {}
    for f in findings:
        by_line.setdefault(max(1, f.span.line), []).append(f)
    if kind in _C_KINDS:
        marker = "//"
    elif kind in _HASH_KINDS:
        marker = "#"
    else:
        why = {"makefile": "a `#` after a Makefile variable's value keeps the blanks before it in the value",
               "dockerfile": "Dockerfile comments must start their line",
               "python": "an end-of-line comment may land inside a Python string"}.get(kind, f"{kind} files are not edited")
        return [], [(f, why + "; add `vado: ignore-next-line[...]` by hand") for f in findings]
    text = decode_source(data)
    starts = line_starts(data)
    inside = _multiline_token_ends(text) if marker == "//" else []
    edits: list[Edit] = []
    skipped: list[tuple[Finding, str]] = []
    for line, found in sorted(by_line.items()):
        if line > len(starts):
            skipped += [(f, "the line is past the end of the file") for f in found]
            continue
        begin = starts[line - 1]
        end = starts[line] - 1 if line < len(starts) else len(text)
        while end > begin and text[end - 1] == "\r":
            end -= 1
        body = text[begin:end]
        if body.rstrip(" \t").endswith("\\"):
            skipped += [(f, "the line continues on the next (a trailing backslash)") for f in found]
            continue
        if marker == "#" and ("[[" in body or "]]" in body or '"' in body):
            skipped += [(f, "the line holds a quoted or bracket argument a `#` could fall into") for f in found]
            continue
        if any(a < end < b for a, b in inside):
            skipped += [(f, "the line ends inside a block comment or a string") for f in found]
            continue
        codes = sorted({f.code for f in found})
        pad = "" if not body or body[-1] in " \t" else "  "
        edits.append(Edit(path, end, end, f"{pad}{marker} vado: ignore[{', '.join(codes)}]"))
    return edits, skipped


def _multiline_token_ends(text: str) -> list[tuple[int, int]]:
    """(start, end) of every comment or string token that spans lines: a line ending inside one takes no comment."""
    from vado.scan.lexer import Kind, lex

    out = []
    for tok in lex(text):
        if tok[0] in (Kind.COMMENT, Kind.STRING) and "\n" in tok[3]:
            out.append((tok[1], tok[2]))
    return out
