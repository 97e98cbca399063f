"""Shared by the DEP/IMG/BLD rule tests: apply every fix once, then audit again."""

from __future__ import annotations

from vado.model.text import decode_source, encode_source
from vado.port.apply import apply_edits
from vado.rules.engine import check_text


def targets():
    from vado.knowledge.targets import default_audit_targets

    return default_audit_targets()


def findings(name: str, text: str, codes: tuple[str, ...] = ()):
    got = check_text(name, text, targets())
    return [f for f in got if not codes or f.code in codes]


def fix_all(name: str, text: str) -> str:
    """``text`` with every fix applied (non-overlapping, in file order)."""
    edits = []
    for f in findings(name, text):
        if f.fix is None:
            continue
        if any(e.overlaps(o) for e in f.fix.edits for o in edits):
            continue
        edits.extend(f.fix.edits)
    return decode_source(apply_edits(encode_source(text), edits))
