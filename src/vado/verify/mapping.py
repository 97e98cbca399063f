"""Compiler diagnostics mapped back to the original CUDA line and to a finding code.

A port keeps the line structure of its original almost everywhere (renames,
header swaps and most fixes change text within lines), so a line-level
alignment with :class:`difflib.SequenceMatcher` between the original file and
the ported file maps a line of the port to the line it came from. Lines that a
fix inserted map to the nearest original line before them, marked
``exact=False``.

The finding code comes from the rules themselves: the port file is checked with
:func:`vado.rules.engine.check_text` for the same target, and the first finding
whose span covers the diagnostic's line (error findings first, then by code) is
attached. Inline PTX that survived the port is PTX002/PTX003 there; a CUDA name
whose HIP counterpart is missing from the target is API002/API003.
"""

from __future__ import annotations

import bisect
import difflib
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from vado.model import Finding, Target
from vado.model.text import decode_source

#: ``file:line:col: error: message`` (clang/hipcc) and ``file(line): error: message`` (nvcc/EDG).
_CLANG = re.compile(r"^(?P<file>[^:\n<>][^:\n]*):(?P<line>\d+):(?P<col>\d+): (?P<sev>fatal error|error|warning): (?P<msg>.*)$")
_EDG = re.compile(r"^(?P<file>[^(\n]+)\((?P<line>\d+)\): (?P<sev>error|warning)[^:]*: (?P<msg>.*)$")


@dataclass(frozen=True)
class Diagnostic:
    """One compiler diagnostic, with where it came from in the original and its finding code.

    ``file``/``line``/``col`` are in the port (as the compiler printed them,
    ``file`` made relative to the port root when inside it). ``original_file``
    and ``original_line`` are the CUDA source it maps to (empty/0 when unknown);
    ``exact`` says whether the line is unchanged-aligned or only nearest.
    ``code`` is the finding code covering the line (empty when none).
    """

    file: str
    line: int
    col: int
    severity: str
    message: str
    original_file: str = ""
    original_line: int = 0
    exact: bool = False
    code: str = ""
    finding: str = ""

    def to_json(self) -> dict:
        """Plain JSON for :attr:`vado.model.Evidence.detail`."""
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


def parse_diagnostics(stderr: str, *, errors_only: bool = True) -> list[Diagnostic]:
    """Diagnostics in compiler output, in order (errors only unless asked)."""
    out: list[Diagnostic] = []
    for line in stderr.splitlines():
        m = _CLANG.match(line) or _EDG.match(line)
        if not m:
            continue
        sev = m.group("sev")
        if errors_only and "error" not in sev:
            continue
        col = int(m.groupdict().get("col") or 0)
        out.append(Diagnostic(m.group("file").strip(), int(m.group("line")), col, sev, m.group("msg").strip()))
    return out


def line_map(original: str, port: str) -> list[tuple[int, bool]]:
    """For each line of ``port`` (index 0 = line 1): ``(original line, exact)``.

    Equal blocks map one to one; a replaced block maps line by line while both
    sides have lines, then to the block's last original line; an inserted line
    maps to the original line before it.
    """
    a = original.splitlines()
    b = port.splitlines()
    result: list[tuple[int, bool]] = [(0, False)] * len(b)
    sm = difflib.SequenceMatcher(None, a, b, autojunk=False)
    for tag, i1, i2, j1, j2 in sm.get_opcodes():
        for k, j in enumerate(range(j1, j2)):
            if tag == "equal":
                result[j] = (i1 + k + 1, True)
            elif tag == "replace":
                # A rewritten line (rename, header swap) is still the same line.
                result[j] = (min(i1 + k, i2 - 1) + 1, k < i2 - i1)
            else:  # insert
                result[j] = (max(i1, 1), False)
    return result


def _line_starts(text: str) -> list[int]:
    starts = [0]
    for m in re.finditer("\n", text):
        starts.append(m.end())
    return starts


def findings_by_line(path: str, text: str, targets: Sequence[Target]) -> dict[int, list[Finding]]:
    """Findings of the rules on ``text``, indexed by every line their span covers."""
    from vado.rules.engine import check_text

    starts = _line_starts(text)
    index: dict[int, list[Finding]] = {}
    for f in check_text(path, text, targets):
        first = bisect.bisect_right(starts, f.span.start)
        last = bisect.bisect_right(starts, max(f.span.start, f.span.end - 1))
        for line in range(first, last + 1):
            index.setdefault(line, []).append(f)
    return index


def _best(findings: list[Finding]) -> Finding:
    """The most severe finding on a line; ties go to the lowest code."""
    return sorted(findings, key=lambda f: (-f.severity.rank, f.code))[0]


class DiagnosticMapper:
    """Maps diagnostics of files in ``port_root`` to ``original_root`` and finding codes.

    Reading and checking each port file happens once per file (cached).
    ``original_root`` may be None: the codes are still attached, the original
    line is not.
    """

    def __init__(self, port_root: str | os.PathLike, original_root: str | os.PathLike | None,
                 targets: Sequence[Target]) -> None:
        self.port_root = Path(port_root).resolve()
        self.original_root = Path(original_root).resolve() if original_root else None
        self.targets = tuple(targets)
        self._maps: dict[str, list[tuple[int, bool]] | None] = {}
        self._findings: dict[str, dict[int, list[Finding]]] = {}

    def _rel(self, file: str, cwd: Path | None) -> str | None:
        p = Path(file)
        if not p.is_absolute() and cwd is not None:
            p = cwd / p
        try:
            return p.resolve().relative_to(self.port_root).as_posix()
        except (ValueError, OSError):
            return None

    def _line_map(self, rel: str) -> list[tuple[int, bool]] | None:
        if rel not in self._maps:
            m = None
            if self.original_root is not None:
                orig = self.original_root / rel
                if orig.is_file():
                    m = line_map(decode_source(orig.read_bytes()), decode_source((self.port_root / rel).read_bytes()))
            self._maps[rel] = m
        return self._maps[rel]

    def _by_line(self, rel: str) -> dict[int, list[Finding]]:
        if rel not in self._findings:
            text = decode_source((self.port_root / rel).read_bytes())
            self._findings[rel] = findings_by_line(rel, text, self.targets)
        return self._findings[rel]

    def map(self, diag: Diagnostic, cwd: Path | None = None) -> Diagnostic:
        """``diag`` with its original line and finding code filled in where known."""
        rel = self._rel(diag.file, cwd)
        if rel is None or not (self.port_root / rel).is_file():
            return diag
        orig_file, orig_line, exact = "", 0, False
        lm = self._line_map(rel)
        if lm is not None and 1 <= diag.line <= len(lm):
            orig_line, exact = lm[diag.line - 1]
            orig_file = rel
        hits = self._by_line(rel).get(diag.line, [])
        code, message = "", ""
        if hits:
            best = _best(hits)
            code, message = best.code, best.message
        return Diagnostic(rel, diag.line, diag.col, diag.severity, diag.message,
                          orig_file, orig_line, exact, code, message)
