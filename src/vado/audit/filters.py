"""Which findings an audit keeps: rule selection, per-file ignores, inline suppressions, a baseline.

All four apply in the audit's workers, on each file's findings, before the
file's verdicts are aggregated: a suppressed finding changes no verdict.

Inline suppressions are comments on the finding's first line, or on the line
before it, or anywhere in the file for the whole file::

    int lane = threadIdx.x & 31;  // vado: ignore[WARP001]
    // vado: ignore-next-line[PTX001, WARP]
    # vado: ignore-file[DEP002]        (CMake, Makefiles, requirements, Dockerfiles)

``vado: ignore`` without brackets suppresses every code. Codes in brackets are
codes or prefixes, as in ``--ignore``.

Fingerprints (:func:`fingerprints`) identify a finding across edits that move
it: the code, the text of its first line with blanks collapsed, and its rank
among the findings of the same code on lines with the same text in the file.
The baseline and SARIF's ``partialFingerprints`` both use them.
"""

from __future__ import annotations

import json
import os
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Sequence

from vado.errors import UsageError

_SUPPRESS = re.compile(rb"vado:[ \t]*ignore(-next-line|-file)?(?:\[([A-Za-z0-9_, \t]*)\])?")
_BLANKS = re.compile(r"\s+")
#: The ``partialFingerprints`` key in SARIF; bump the version when :func:`fingerprints` changes.
FINGERPRINT_KEY = "vadoFindingHash/v1"
BASELINE_VERSION = 1


def enabled_codes(select: Sequence[str], extend_select: Sequence[str], ignore: Sequence[str],
                  codes: Iterable[str]) -> frozenset[str]:
    """The codes that ``select``/``extend_select``/``ignore`` prefixes leave on (ruff's precedence).

    For each code the longest matching prefix decides; ``ALL`` is the empty prefix;
    at equal length ``ignore`` wins.
    """
    sel = [("" if p == "ALL" else p) for p in (*select, *extend_select)]
    ign = [("" if p == "ALL" else p) for p in ignore]
    out = set()
    for code in codes:
        best_sel = max((len(p) for p in sel if code.startswith(p)), default=-1)
        best_ign = max((len(p) for p in ign if code.startswith(p)), default=-1)
        if best_sel > best_ign:
            out.add(code)
    return frozenset(out)


def _matches(code: str, prefixes: frozenset[str]) -> bool:
    return "ALL" in prefixes or any(code.startswith(p) for p in prefixes)


def line_starts(data: bytes) -> list[int]:
    """Offsets at which each line starts (index 0 is line 1)."""
    starts = [0]
    find = data.find
    i = find(b"\n")
    while i >= 0:
        starts.append(i + 1)
        i = find(b"\n", i + 1)
    return starts


def _line_text(data: bytes, starts: list[int], line: int) -> str:
    if line <= 0 or line > len(starts):
        return ""
    begin = starts[line - 1]
    end = starts[line] - 1 if line < len(starts) else len(data)
    return data[begin:end].decode("utf-8", "replace")


def fingerprints(findings: Sequence, data: bytes, starts: list[int] | None = None) -> list[str]:
    """One fingerprint per finding of one file whose bytes are ``data`` (see the module docstring)."""
    import hashlib  # only baselines and SARIF need fingerprints: the one-file audit does not load OpenSSL

    if starts is None:
        starts = line_starts(data)
    seen: Counter = Counter()
    out = []
    for f in findings:
        text = _BLANKS.sub(" ", _line_text(data, starts, f.span.line)).strip()
        key = (f.code, text)
        occurrence = seen[key]
        seen[key] += 1
        digest = hashlib.sha256(f"{f.code}\0{text}\0{occurrence}".encode("utf-8")).hexdigest()
        out.append(digest[:32])
    return out


def suppressions(data: bytes, starts: list[int] | None = None) -> tuple[frozenset[str], dict[int, frozenset[str]]]:
    """(codes suppressed in the whole file, {line: codes suppressed on it}); ``ALL`` for every code."""
    file_codes: set[str] = set()
    lines: dict[int, set[str]] = {}
    if b"vado:" not in data:
        return frozenset(), {}
    if starts is None:
        starts = line_starts(data)
    import bisect

    for m in _SUPPRESS.finditer(data):
        kind, codes = m.group(1), m.group(2)
        found = {c.strip().upper() for c in codes.decode("ascii").split(",") if c.strip()} if codes is not None else {"ALL"}
        if not found:
            found = {"ALL"}
        if kind == b"-file":
            file_codes |= found
            continue
        line = bisect.bisect_right(starts, m.start())
        if kind == b"-next-line":
            line += 1
        lines.setdefault(line, set()).update(found)
    return frozenset(file_codes), {k: frozenset(v) for k, v in lines.items()}


@dataclass(frozen=True)
class FindingFilter:
    """What an audit drops; picklable, so workers receive it.

    ``enabled`` is the set of codes left on by select/ignore (None: all).
    ``prefix`` is the audit root relative to the project root (``""`` when they
    are one, None when the root lies outside it): per-file-ignores patterns and
    baseline paths are matched against ``prefix/path``.
    """

    enabled: frozenset[str] | None = None
    per_file_ignores: tuple[tuple[str, frozenset[str]], ...] = ()
    prefix: str | None = ""
    inline: bool = True
    baseline: tuple[tuple[str, str, str], ...] = ()
    _specs: dict = field(default_factory=dict, compare=False, repr=False)

    def project_path(self, path: str) -> str:
        """``path`` (relative to the audit root) relative to the project root."""
        if not self.prefix:
            return path
        return f"{self.prefix}/{path}"

    def _ignored_by_pattern(self, project_path: str) -> frozenset[str]:
        if not self.per_file_ignores:
            return frozenset()
        codes: set[str] = set()
        for pattern, pcodes in self.per_file_ignores:
            spec = self._specs.get(pattern)
            if spec is None:
                from pathspec import GitIgnoreSpec

                spec = self._specs[pattern] = GitIgnoreSpec.from_lines([pattern])
            if spec.match_file(project_path):
                codes |= pcodes
        return frozenset(codes)

    def apply(self, path: str, data: bytes, findings: list) -> list:
        """The findings of file ``path`` (bytes ``data``) that this filter keeps, in their order."""
        if not findings:
            return findings
        if self.enabled is not None:
            findings = [f for f in findings if f.code in self.enabled]
        if self.per_file_ignores and findings:
            dropped = self._ignored_by_pattern(self.project_path(path))
            if dropped:
                findings = [f for f in findings if not _matches(f.code, dropped)]
        starts = None
        if self.inline and findings and b"vado:" in data:
            starts = line_starts(data)
            whole, per_line = suppressions(data, starts)
            findings = [
                f for f in findings
                if not (_matches(f.code, whole) or _matches(f.code, per_line.get(f.span.line, frozenset())))
            ]
        if self.baseline and findings:
            known = self._baseline_for(self.project_path(path))
            if known:
                kept = []
                for f, fp in zip(findings, fingerprints(findings, data, starts)):
                    if known[(f.code, fp)] > 0:
                        known[(f.code, fp)] -= 1
                    else:
                        kept.append(f)
                findings = kept
        return findings

    def _baseline_for(self, project_path: str) -> Counter:
        index = self._specs.get("\0baseline")
        if index is None:
            index = {}
            for p, code, fp in self.baseline:
                index.setdefault(p, Counter())[(code, fp)] += 1
            self._specs["\0baseline"] = index
        found = index.get(project_path)
        return Counter(found) if found else Counter()


def make_filter(config, audit_root: str | os.PathLike, *, inline: bool = True, use_baseline: bool = True) -> FindingFilter | None:
    """The :class:`FindingFilter` of a :class:`vado.config.Config` for an audit of ``audit_root``.

    None when it would keep everything (no selection, no per-file ignores, no
    baseline, inline suppressions off), so that a plain audit does no extra work.
    """
    if not config.ignore and "ALL" in (*config.select, *config.extend_select):
        # Everything is selected and nothing ignored: every code is on, whatever the rules are.
        # Listing them would import every rule family, a third of a one-file audit's time.
        enabled_or_none = None
    else:
        from vado.config import all_codes

        codes = all_codes()
        enabled = enabled_codes(config.select, config.extend_select, config.ignore, codes)
        enabled_or_none = None if enabled == frozenset(codes) else enabled
    root = Path(os.path.abspath(os.fspath(audit_root)))
    if not root.is_dir():
        root = root.parent
    try:
        rel = root.relative_to(Path(os.path.abspath(config.project_root)))
        prefix = "" if str(rel) == "." else rel.as_posix()
    except ValueError:
        prefix = None
    baseline: tuple = ()
    if use_baseline and config.baseline is not None:
        baseline = read_baseline(config.baseline)
    pfi = tuple((pattern, frozenset(codes_)) for pattern, codes_ in config.per_file_ignores)
    if enabled_or_none is None and not pfi and not baseline and not inline:
        return None
    return FindingFilter(enabled=enabled_or_none, per_file_ignores=pfi, prefix=prefix, inline=inline, baseline=baseline)


#: The largest baseline read (a baseline of a million findings is about 150 MB).
MAX_BASELINE_BYTES = 256 << 20


def read_baseline(path: str | os.PathLike) -> tuple[tuple[str, str, str], ...]:
    """``(project path, code, fingerprint)`` entries of a baseline file written by :func:`baseline_document`.

    The path may come from a tree's own configuration: it is read only as a regular file
    (a FIFO or device such as ``/dev/zero`` is refused without blocking) and up to
    :data:`MAX_BASELINE_BYTES`; each refusal is a :class:`UsageError` (exit 2).
    """
    from vado.scan.discover import read_regular

    try:
        raw = read_regular(path, MAX_BASELINE_BYTES + 1)
        if len(raw) > MAX_BASELINE_BYTES:
            raise UsageError(f"baseline {path} is too large", f"more than {MAX_BASELINE_BYTES >> 20} MiB",
                             "check the baseline setting") from None
        doc = json.loads(raw)
    except FileNotFoundError:
        raise UsageError(f"baseline {path} does not exist", "", "write one with `vado audit PATH --write-baseline FILE`") from None
    except OSError as exc:
        raise UsageError(f"cannot read baseline {path}", exc.strerror or str(exc)) from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise UsageError(f"baseline {path} is not JSON", str(exc), "write it again with --write-baseline") from None
    if not isinstance(doc, dict) or doc.get("vado_baseline") != BASELINE_VERSION or not isinstance(doc.get("findings"), list):
        raise UsageError(f"{path} is not a vado baseline (version {BASELINE_VERSION})", "", "write it again with --write-baseline")
    out = []
    for item in doc["findings"]:
        try:
            out.append((str(item["path"]), str(item["code"]), str(item["fingerprint"])))
        except (KeyError, TypeError):
            raise UsageError(f"{path}: a baseline entry lacks path, code or fingerprint", repr(item)[:120]) from None
    return tuple(out)


def read_file_bytes(result, path: str) -> bytes | None:
    """The current bytes of ``path`` (relative to ``result.root``), or None when it cannot be read.

    A file whose size is no longer the audited size is treated as unreadable:
    its lines would not be the audited ones.
    """
    root = Path(result.root)
    full = root if root.is_file() and root.name == path else root / path
    size = next((fr.size for fr in result.files if fr.path == path), None)
    from vado.scan.discover import read_regular

    try:
        data = read_regular(full, None if size is None else size + 1)
    except OSError:
        return None
    if size is not None and len(data) != size:
        return None
    return data


def result_fingerprints(result, reader=None) -> dict[int, str]:
    """``{index in result.findings: fingerprint}`` for the findings whose file can be read."""
    reader = reader or (lambda p: read_file_bytes(result, p))
    by_path: dict[str, list[int]] = {}
    for i, f in enumerate(result.findings):
        by_path.setdefault(f.span.path, []).append(i)
    out: dict[int, str] = {}
    for path, idx in by_path.items():
        data = reader(path)
        if data is None:
            continue
        for i, fp in zip(idx, fingerprints([result.findings[i] for i in idx], data)):
            out[i] = fp
    return out


def baseline_document(result, prefix: str | None, reader=None) -> dict:
    """The baseline of ``result``: every finding as (project path, code, fingerprint), sorted."""
    fps = result_fingerprints(result, reader)
    items = []
    for i, f in enumerate(result.findings):
        if i not in fps:
            continue
        path = f.span.path if not prefix else f"{prefix}/{f.span.path}"
        items.append({"path": path, "code": f.code, "fingerprint": fps[i], "line": f.span.line})
    items.sort(key=lambda d: (d["path"], d["line"], d["code"], d["fingerprint"]))
    return {"vado_baseline": BASELINE_VERSION, "tool": "vado", "findings": items}
