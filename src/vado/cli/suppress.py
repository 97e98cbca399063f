"""The suppression side of ``vado audit``: unknown codes, ``--unused-suppressions`` and ``--add-noqa``."""

from __future__ import annotations

from vado.cli.params import CommandExit


def _files_with_comments(result):
    """(path, bytes) of each audited file whose bytes hold ``vado:`` (read again: the audit kept no text)."""
    from vado.audit.filters import read_file_bytes

    for fr in sorted(result.files, key=lambda fr: fr.path):
        data = read_file_bytes(result, fr.path)
        if data is not None and b"vado:" in data:
            yield fr, data


def warn_unknown_codes(term, result) -> None:
    """A warning, with its place, for each code in a ``vado: ignore[...]`` that names no vado code."""
    from vado.audit.suppressions import unknown_codes
    from vado.config import all_codes
    from vado.report.concise import display_path

    known = None
    for fr, data in _files_with_comments(result):
        if known is None:
            known = all_codes()
        for sup, code in unknown_codes(data, known):
            term.warn(f"{display_path(result.root, fr.path)}:{sup.line}:{sup.column}: {sup.text} names {code}, "
                      f"which is no vado code or prefix: it suppresses nothing (`vado explain` lists the codes)")


def report_unused(term, result, filters) -> int:
    """Print each suppression that matched no finding of ``result`` (an audit without suppressions); 1 if any."""
    from vado.audit.suppressions import unused_suppressions
    from vado.report.concise import display_path

    enabled = None if filters is None else filters.enabled
    by_path: dict[str, list] = {}
    for f in result.findings:
        by_path.setdefault(f.span.path, []).append(f)
    lines = []
    for fr, data in _files_with_comments(result):
        for sup, codes in unused_suppressions(data, by_path.get(fr.path, ()), enabled):
            where = "in this file" if sup.kind == "file" else f"on line {sup.covers}"
            lines.append(f"{display_path(result.root, fr.path)}:{sup.line}:{sup.column}: unused suppression "
                         f"{sup.text}: no {', '.join(codes)} finding {where}")
    if lines:
        term.data("\n".join(lines))
    term.info(f"{len(lines)} unused suppression{'s' if len(lines) != 1 else ''}")
    return 1 if lines else 0


def add_noqa(term, result) -> int:
    """Add ``vado: ignore[CODES]`` to the lines of today's findings through the one edit applier; 0, or 3
    when a file could not be written."""
    from vado.audit.filters import read_file_bytes
    from vado.audit.suppressions import noqa_edits
    from vado.errors import PortError
    from vado.port.apply import apply_edits, write_atomic
    from vado.report.concise import display_path

    by_path: dict[str, list] = {}
    for f in result.findings:
        by_path.setdefault(f.span.path, []).append(f)
    kinds = {fr.path: fr.kind for fr in result.files}
    added = files = 0
    skipped = []
    failed = False
    for path, found in sorted(by_path.items()):
        data = read_file_bytes(result, path)
        shown = display_path(result.root, path)
        if data is None:
            skipped += [(shown, f, "the file changed since the audit read it") for f in found]
            continue
        edits, left = noqa_edits(path, kinds.get(path, ""), data, found)
        skipped += [(shown, f, why) for f, why in left]
        if not edits:
            continue
        full = _full_path(result, path)
        try:
            # The file must still hold the bytes the edits were made for; a link is not written through.
            write_atomic(full, apply_edits(data, edits), expected=data, overwrite=True)
        except PortError as exc:
            term.error(f"cannot add suppressions to {shown}: {exc.why or exc.what}", exc.tip)
            failed = True
            continue
        added += len(edits)
        files += 1
    for shown, f, why in skipped:
        term.warn(f"{shown}:{f.span.line}: {f.code} not suppressed: {why}")
    term.info(f"added {added} suppression comment{'s' if added != 1 else ''} in {files} file{'s' if files != 1 else ''}"
              + (f"; {len(skipped)} finding{'s' if len(skipped) != 1 else ''} left as they are" if skipped else ""))
    return 3 if failed else 0


def _full_path(result, path: str):
    from pathlib import Path

    root = Path(result.root)
    return root if root.is_file() and root.name == path else root / path


__all__ = ["CommandExit", "add_noqa", "report_unused", "warn_unknown_codes"]
