"""The fix that writes :func:`~vado.port.compat.helpers.local_helpers` into a file: each helper's
definition where :mod:`~vado.port.compat.placement` puts it, the calls renamed to it, and the
``atomicAdd`` overloads on 16-bit floating types (:mod:`vado.port.compat.atomic_add`), as one fix.
"""

from __future__ import annotations

from vado.model import Applicability, Edit, Fix, Target
from vado.port.compat.atomic_add import atomic_add_overloads
from vado.port.compat.helpers import local_helpers
from vado.port.compat.placement import insertion_offsets, line_start_insert
from vado.rules.cuda_syntax import EXPRESSION_WORDS, spelling_index
from vado.scan.lexer import Kind


def local_helper_fixes(path: str, text: str, toks: list, target: Target) -> list[Fix]:
    """One fix per CUDA name with a :class:`LocalHelper` on ``target``: the helper's definition
    (where :func:`insertion_offsets` puts it) and every call renamed to it, applied together.

    Member names, macro definitions and declarations of the same name are left alone. Safe: each
    helper computes what the CUDA function does (its docstring names the source).
    """
    helpers = local_helpers()
    index = spelling_index(toks)
    # Most files hold none of the names: the spelling index says so without a token walk.
    if not index.has_any(helpers) and not index.has_any(("atomicAdd",)):
        return []
    candidates = sorted(i for name in helpers for i in index.where(name))
    uses: dict[str, list[int]] = {}
    for i in candidates:
        tok = toks[i]
        if tok[0] is Kind.IDENT and tok[3] in helpers:
            j = i + 1
            while j < len(toks) and toks[j][0] is Kind.COMMENT:
                j += 1
            if j >= len(toks) or toks[j][3] != "(":
                continue
            k = i - 1
            while k >= 0 and toks[k][0] is Kind.COMMENT:
                k -= 1
            if k >= 0 and (toks[k][3] in (".", "->", "::") or toks[k][0] is Kind.DIRECTIVE
                           or toks[k][0] is Kind.IDENT and toks[k][3] not in EXPRESSION_WORDS):
                continue  # a member, a macro being defined, or a declaration
            needs = helpers[tok[3]].call_needs
            if needs is not None and not needs(toks, i):
                continue  # HIP's own overload is the one CUDA's call means
            uses.setdefault(tok[3], []).append(i)
    # (last edit's end, message, insertions, renames) per helper
    groups: list[tuple[int, str, list[Edit], list[Edit]]] = []
    preludes: dict[int, list[str]] = {}  # insertion offset → shared code its helpers need
    for name, idx in uses.items():
        helper = helpers[name]
        if not helper.applies(target):
            continue
        inserts = [line_start_insert(path, text, off, helper.block()) for off in insertion_offsets(text, toks, idx)]
        if helper.prelude:
            for e in inserts:
                preludes.setdefault(e.start, []).append(helper.prelude)
        renames = [Edit(path, toks[i][1], toks[i][2], helper.helper) for i in idx]
        groups.append((renames[-1].end, f"{name} → {helper.helper} (local definition: {helper.why})", inserts, renames))
    for helper, offsets in atomic_add_overloads(text, toks, target):
        inserts = [line_start_insert(path, text, off, helper.block()) for off in offsets]
        groups.append((inserts[-1].end, f"atomicAdd on {helper.helper.removeprefix('vado_atomic_add_')} → a local overload "
                       f"({helper.why})", inserts, []))
    if not groups:
        return []
    # One fix: definitions going to one place are one edit (edits at one offset are applied one per round,
    # and a file may need a dozen). They stand in the order of their helpers' last uses, then names.
    groups.sort(key=lambda g: (g[0], g[1]))
    merged: dict[int, Edit] = {}
    for e in (e for g in groups for e in g[2]):
        prev = merged.get(e.start)
        merged[e.start] = e if prev is None else Edit(path, e.start, e.end, prev.content + e.content.lstrip("\n"))
    for start, shared in preludes.items():
        e = merged[start]
        lead = "\n" if e.content.startswith("\n") else ""
        merged[start] = Edit(path, e.start, e.end, lead + "".join(dict.fromkeys(shared)) + e.content[len(lead):])
    renames = [e for g in groups for e in g[3]]
    what = [g[1] for g in groups]
    return [Fix(tuple(merged.values()) + tuple(renames), Applicability.SAFE, "; ".join(what), ("helper",))]
