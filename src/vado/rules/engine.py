"""Running rules over one file. The audit pipeline and tests both go through here."""

from __future__ import annotations

import bisect
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
    """``findings`` with those whose span lies in a conditional branch a target's build does not
    take moved out of that target's verdicts into ``inactive`` (:attr:`Finding.inactive`).

    ROCm targets are judged on the AMD build: :func:`vado.scan.preprocessor.amd_configuration` of
    the rule options (``amd_defines``, ``amd_undefined``, and the file's ``build_defines`` and
    ``build_undefined`` where a build was read, :mod:`vado.build.judged`). The other targets
    compile the CUDA source as the read build does: where the file's build macros are known, a
    finding in a branch those macros switch off (``#ifdef USE_FAST_PATH`` in a build without
    ``-DUSE_FAST_PATH``) is inactive for them too. A branch whose condition may hold (an unknown
    macro) is compiled as far as vado knows, and its findings count.
    """
    if not findings or not ctx.kind.is_c_family:
        return findings
    rocm = [t.name for t in ctx.targets if t.family == "rocm"]
    from vado.scan.preprocessor import (amd_configuration, cuda_configuration, deciding_directive, file_conditionals,
                                        has_build_macros)

    others = [t.name for t in ctx.targets if t.family != "rocm"] if has_build_macros(ctx.options) else []
    if not rocm and not others:
        return findings
    regions = None
    if rocm:
        config = amd_configuration(ctx.options)
        regions = file_conditionals(ctx, config)
        edits = _port_condition_edits(ctx, findings, config, regions)
        if edits:
            regions = _conditionals_as_ported(ctx, edits, config)
    built = plain = None
    if others:
        # Only what the build's macros decide: the platform's own branches (#ifdef __HIP_PLATFORM_AMD__)
        # count for these targets as they do without a build model.
        built = file_conditionals(ctx, cuda_configuration(ctx.options))
        plain = file_conditionals(ctx, cuda_configuration(ctx.options, with_build=False))
        if not built:
            others = []
    if not regions and not others:
        return findings
    out = []
    directives = None  # the file's directive list, read once for the findings that move
    for f in findings:
        off = []
        if regions and regions.covers(f.span.start, f.span.end):
            off += rocm
        if others and built.covers(f.span.start, f.span.end) and not plain.covers(f.span.start, f.span.end):
            off += others
        moved = {n: f.verdicts[n] for n in off if n in f.verdicts}
        if moved:
            data = f.data
            if rocm and any(n in moved for n in rocm) and "inactive_branch" not in data:
                # Which test switches the code off, for reports ("#ifdef ENABLE_CUDNN").
                view = device_view(ctx)
                if directives is None:
                    from vado.scan.preprocessor import _directives

                    directives = _directives(view.tokens, view.directive_marks)
                why = deciding_directive(ctx.text, view.tokens, view.directive_marks, f.span.start, regions,
                                         directives)
                if why:
                    data = {**data, "inactive_branch": why}
            f = dataclasses.replace(f, verdicts={k: v for k, v in f.verdicts.items() if k not in moved},
                                    inactive={**f.inactive, **moved}, data=data)
        out.append(f)
    return out


#: The rules whose safe fixes rewrite a preprocessor condition to what hipcc will see
#: (``__CUDA_ARCH__ >= 900`` → ``0``, ``CUDART_VERSION < 11000`` → ``0``).
_CONDITION_RULES = frozenset({"ARCH007", "ARCH008"})


def _port_condition_edits(ctx: FileContext, findings: list[Finding], config, regions) -> list:
    """The edits of the safe ARCH007/ARCH008 fixes among ``findings`` that lie inside directive lines
    and that ``vado port`` applies: the port skips a fix touching a body it leaves as it is (see
    :func:`vado.port.file.untouched_regions`), and overlapping fixes are taken first come.

    Unsafe fixes (applied only with ``--unsafe-fixes``) are not assumed.
    """
    from vado.model import Applicability

    candidates = [f.fix for f in findings
                  if f.code in _CONDITION_RULES and f.fix is not None and f.fix.applicability is Applicability.SAFE]
    if not candidates:
        return []
    from vado.scan.preprocessor import (Conditionals, _directives, cuda_configuration, file_conditionals,
                                        kept_renamed_spans)

    view = device_view(ctx)
    toks = view.tokens
    lines = sorted((toks[d][1], toks[eod][2] if eod < len(toks) else len(ctx.text))
                   for d, eod, _ in _directives(toks, view.directive_marks))
    starts = [s for s, _ in lines]
    kept = regions.union(file_conditionals(ctx, cuda_configuration(ctx.options))).union(
        Conditionals(kept_renamed_spans(toks, view.directive_marks, view.spelling_index, config)))

    def in_directive(e) -> bool:
        i = bisect.bisect_right(starts, e.start) - 1
        return i >= 0 and e.end <= lines[i][1] and e.path == ctx.path

    edits: list = []
    for fix in candidates:
        if not all(in_directive(e) and not kept.overlaps(e.start, e.end) for e in fix.edits):
            continue
        if any(e.overlaps(o) for e in fix.edits for o in edits):
            continue
        edits.extend(fix.edits)
    return sorted(edits, key=lambda e: (e.start, e.end))


def _conditionals_as_ported(ctx: FileContext, edits: list, config):
    """The AMD build's inactive bodies of ``ctx``'s text once ``edits`` (sorted, disjoint, all inside
    directive lines) are applied, in the original text's offsets. Bodies lie between directive
    lines, so no body's end falls inside an edit and the map back is a shift."""
    from vado.scan.preprocessor import file_conditionals

    text = ctx.text
    parts, pos = [], 0
    for e in edits:
        parts.append(text[pos:e.start])
        parts.append(e.content)
        pos = e.end
    parts.append(text[pos:])
    ported = file_context(ctx.path, "".join(parts), ctx.targets, kind=ctx.kind, options=ctx.options)
    found = file_conditionals(ported, config)
    # The inverse edits, in the ported text's offsets: each replaced its content by the original span.
    back, delta = [], 0
    for e in edits:
        start = e.start + delta
        back.append((start, start + len(e.content), e.end - e.start))
        delta += e.delta
    return found.shifted(back)


def check_bytes(path: str, data: bytes, targets: Sequence[Target], **kwargs) -> list[Finding]:
    """:func:`check_text` on raw file bytes."""
    return check_text(path, decode_source(data), targets, **kwargs)
