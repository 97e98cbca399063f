"""Running rules over one file. The audit pipeline and tests both go through here."""

from __future__ import annotations

import dataclasses
import functools
from typing import Any, Iterable, Sequence

from vado.model import Finding, Target
from vado.model.text import decode_source
from vado.rules.base import FileContext, Rule
from vado.rules.cuda_syntax import CUDA_CXX_KINDS, device_view
from vado.rules.registry import rules_for_kind
from vado.scan.classify import FileKind, classify


def rules_for(kind: FileKind, rules: Iterable[type[Rule]] | None = None) -> list[Rule]:
    """Instances of the rules that read files of ``kind`` (of ``rules``, default all)."""
    return list(_instances(kind, tuple(rules) if rules is not None else rules_for_kind(kind)))


@functools.lru_cache(maxsize=256)
def _instances(kind: FileKind, rules: tuple[type[Rule], ...]) -> tuple[Rule, ...]:
    # Rules keep no state of their own (everything per file lives on the FileContext),
    # so one instance per class serves every file: port asks three times per file.
    return tuple(r() for r in rules if kind in r.file_kinds)


def check_text(
    path: str,
    text: str,
    targets: Sequence[Target],
    *,
    kind: FileKind | None = None,
    options: dict[str, Any] | None = None,
    rules: Iterable[type[Rule]] | None = None,
) -> list[Finding]:
    """Findings for one file's text (latin-1 view), sorted deterministically.

    ``kind`` defaults to what the name says. Findings with the same code and span
    from different rules are kept; identical findings are dropped.
    """
    return check_context(file_context(path, text, targets, kind=kind, options=options), rules)


def file_context(
    path: str,
    text: str,
    targets: Sequence[Target],
    *,
    kind: FileKind | None = None,
    options: dict[str, Any] | None = None,
    tokens: Sequence | None = None,
) -> FileContext:
    """The :class:`FileContext` :func:`check_text` reads, for callers that run rules on it in parts."""
    kind = kind or classify(path)
    ctx = FileContext(path=path, kind=kind, text=text, targets=tuple(targets), options=dict(options or {}))
    if tokens is not None and kind.is_c_family:
        ctx._tokens = tokens
    return ctx


def check_context(ctx: FileContext, rules: Iterable[type[Rule]] | None = None) -> list[Finding]:
    """The findings of ``rules`` (all by default) on ``ctx``, sorted and without duplicates.

    Running disjoint sets of rules on one context and merging their findings by
    :meth:`Finding.sort_key` gives what one run of all of them gives: a code
    belongs to one rule, so duplicates never span two sets. Facts and tokens
    computed for ``ctx`` are shared by every call.
    """
    kind = ctx.kind
    found: list[Finding] = []
    seen: set[tuple] = set()
    index = None
    for rule in rules_for(kind, rules):
        if rule.triggers is not None and kind in CUDA_CXX_KINDS:
            # Most rules look for a few names that most files lack: one look-up in the
            # file's spelling index spares the rule's own set-up.
            if index is None:
                index = device_view(ctx).spelling_index
            if not index.has_any(rule.triggers):
                continue
        for f in rule.check(ctx):
            key = (f.code, f.span.start, f.span.end, f.message)
            if key not in seen:
                seen.add(key)
                found.append(f)
    found.sort(key=Finding.sort_key)
    return mark_inactive(ctx, found)


def mark_inactive(ctx: FileContext, findings: list[Finding]) -> list[Finding]:
    """``findings`` with those whose span lies in a conditional branch the AMD build does not take
    moved out of the ROCm targets' verdicts into ``inactive`` (:attr:`Finding.inactive`).

    The AMD build is :func:`vado.scan.preprocessor.amd_configuration` of the rule options
    (``amd_defines``, ``amd_undefined``): a branch whose condition may hold there (an unknown
    macro) is compiled as far as vado knows, and its findings count.
    """
    if not findings or not ctx.kind.is_c_family:
        return findings
    rocm = [t.name for t in ctx.targets if t.family == "rocm"]
    if not rocm:
        return findings
    from vado.scan.preprocessor import amd_configuration, file_conditionals

    regions = file_conditionals(ctx, amd_configuration(ctx.options))
    if not regions:
        return findings
    covers = regions.covers
    out = []
    for f in findings:
        if covers(f.span.start, f.span.end):
            moved = {n: f.verdicts[n] for n in rocm if n in f.verdicts}
            if moved:
                f = dataclasses.replace(f, verdicts={k: v for k, v in f.verdicts.items() if k not in moved},
                                        inactive={**f.inactive, **moved})
        out.append(f)
    return out


def check_bytes(path: str, data: bytes, targets: Sequence[Target], **kwargs) -> list[Finding]:
    """:func:`check_text` on raw file bytes."""
    return check_text(path, decode_source(data), targets, **kwargs)
