"""Porting one file: rules' fixes + token translation, applied to a fixpoint.

Every change is a :class:`~vado.model.Fix`; :func:`vado.port.apply.fixpoint`
applies them round after round until nothing changes, so the result is stable:
porting the output again changes nothing.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Any, Sequence

from vado.model import Applicability, Finding, Fix, Severity, Target, Verdict
from vado.model.text import decode_source, encode_source
from vado.model.span import Span
from vado.port import torch_ext
from vado.port.apply import fixpoint
from vado.port.passes import PassInput, run_passes
from vado.rules.base import FileContext
from vado.rules.engine import check_context, check_text, file_context
from vado.rules.registry import all_rules
from vado.rules.warp.own_hip import OWN_HIP_TAG

#: The tag of vado.port.wave's helper block: placed before the first use, which may be a rewritten own-HIP call.
_WARP32_HELPERS = "warp32-helpers"
from vado.scan.classify import FileKind
from vado.scan.lexer import lex
from vado.rules.cuda_syntax import device_view
from vado.scan.preprocessor import (
    Conditionals,
    amd_configuration,
    cuda_configuration,
    file_conditionals,
    kept_renamed_spans,
)


@dataclass(frozen=True)
class PortOptions:
    """How to port: ``launch`` is ``chevron`` (keep ``<<<>>>``) or ``ggl``; ``roc`` prefers roc* libraries;
    ``unsafe`` also applies fixes whose applicability is unsafe; ``wave`` is ``warp32`` (keep CUDA's
    32-lane warps on 64-lane wavefronts, :mod:`vado.port.wave`) or ``native`` (rewrite for the wavefront)."""

    launch: str = "chevron"
    roc: bool = False
    unsafe: bool = False
    wave: str = "warp32"
    rule_options: dict[str, Any] = field(default_factory=dict)
    #: ``.cu`` sources (paths relative to the tree root) renamed to ``.hip`` by ``--rename-sources``.
    renamed: tuple[str, ...] = ()
    #: ``(folder, library id)`` for each folder of the tree whose sources include a library that must
    #: be linked on ROCm though CUDA needs no link for it (NVTX 3 → ROCTx): the Makefiles above that
    #: folder link it (:func:`vado.port.build.makefile_link_fixes`).
    source_links: tuple[tuple[str, str], ...] = ()
    #: Folders whose CMake file enables CUDA (not HIP), which the port turns into HIP: the CMake files
    #: below them that enable no GPU language compile their ``.cu`` sources as HIP
    #: (:func:`vado.port.build.cmake_cuda_dirs`).
    cmake_cuda_dirs: tuple[str, ...] = ()
    #: ``auto`` (a tree port asks :func:`vado.port.torch_ext.is_torch_extension`), ``on`` or ``off``:
    #: with ``on`` the CUDA spelling of C-family sources stays (PyTorch hipifies at build time) and
    #: every other change is written inside ``#if defined(USE_ROCM)`` (:mod:`vado.port.torch_ext`).
    #: A single file is ported as ``off`` unless ``on`` is given.
    torch_extension: str = "auto"
    #: Unsafe fixes carrying one of these tags are applied although ``unsafe`` is off: a new output tree's
    #: build fixes (``("build",)``) in a Python module that builds a torch extension just in time
    #: (``cpp_extension.load``: its nvcc flags, as setup.py's), and none of that module's other unsafe fixes.
    unsafe_tags: tuple[str, ...] = ()


@dataclass(frozen=True)
class FilePort:
    """The outcome for one file: new bytes, fixes applied per tag, findings still open."""

    before: bytes
    after: bytes
    applied: dict[str, int]
    remaining: tuple[Finding, ...]
    #: What each applied unsafe fix did (its description), in the order applied: the edits a
    #: reviewer must look at in the diff.
    unsafe_applied: tuple[str, ...] = ()
    #: What the port changed and why: each applied fix's description (its tag where it has none) with how
    #: many times it was applied, in the order first applied.
    changes: dict[str, int] = field(default_factory=dict)

    @property
    def changed(self) -> bool:
        """Whether the port differs from the original."""
        return self.before != self.after


def _rule_options(options: PortOptions) -> dict[str, Any]:
    return dict(options.rule_options, roc=options.roc, wave=options.wave,
                torch_extension=options.torch_extension == "on")


def _check(path: str, kind: FileKind, text: str, target: Target, options: PortOptions) -> list[Finding]:
    return check_text(path, text, [target], kind=kind, options=_rule_options(options))


def _context(path: str, kind: FileKind, text: str, target: Target, options: PortOptions, tokens: Sequence | None):
    return file_context(path, text, [target], kind=kind, options=_rule_options(options), tokens=tokens)


@functools.cache
def fixing_rules() -> tuple[type, ...]:
    """The rules whose findings may carry a fix (``can_fix``): the only ones a rewriting round needs."""
    return tuple(r for r in all_rules() if r.can_fix)


@functools.cache
def reporting_rules() -> tuple[type, ...]:
    """The rules that never fix: run once, on the ported text, for what remains."""
    return tuple(r for r in all_rules() if not r.can_fix)


def produce_fixes(
    path: str,
    kind: FileKind,
    text: str,
    target: Target,
    options: PortOptions,
    findings: list[Finding] | None = None,
    *,
    tokens: Sequence | None = None,
) -> list[Fix]:
    """All fixes for one round on ``text``: the rules' fixes and those of the registered passes
    (:mod:`vado.port.passes`), in the passes' order and precedence.

    ``findings`` are the rules' findings on ``text`` when the caller has them already,
    ``tokens`` its tokens (:func:`vado.scan.lexer.lex`) when the caller lexed it.
    """
    if findings is None:
        findings = _check(path, kind, text, target, options)
    rule_fixes = [finding.fix for finding in findings if finding.fix is not None]
    toks = (tokens if tokens is not None else lex(text)) if kind.is_c_family else None
    return run_passes(rule_fixes, kind, PassInput(path, kind, text, toks, target, options))


def untouched_regions(ctx: FileContext, target: Target) -> Conditionals | None:
    """The bodies of ``ctx``'s text a port for ``target`` leaves as they are, None when none.

    For a ROCm target: the conditional bodies that the AMD build certainly does not compile
    (``#if !defined(PROJECT_USE_HIP)`` with the project's HIP option among the rule option
    ``amd_defines``, ``#ifdef GGML_USE_SYCL`` with that name in ``amd_undefined``), and those
    that nvcc certainly does not compile, which the AMD build does or may (the project's own
    HIP code: ``#if defined(__HIP_PLATFORM_AMD__)``, ``#ifdef GGML_USE_HIP`` with that option among
    ``amd_defines``: :func:`~vado.scan.preprocessor.cuda_configuration`).
    Directive lines lie outside every body: the edits that rewrite a condition stay, except those of
    ``__CUDACC__``/``__NVCC__`` in a conditional that also tests HIP (it tells the builds apart already).
    """
    if target.family != "rocm":
        return None
    config = amd_configuration(ctx.options)
    amd = file_conditionals(ctx, config)
    cuda = file_conditionals(ctx, cuda_configuration(ctx.options))
    view = device_view(ctx)
    # HIPIFY's table renames __CUDACC__ to __HIPCC__ everywhere; where the conditional tests HIP itself
    # (#if defined __CUDACC__ … #elif defined __HIPCC__) that would send hipcc down the CUDA branch.
    names = Conditionals(kept_renamed_spans(view.tokens, view.directive_marks, view.spelling_index, config))
    both = amd.union(cuda).union(names)
    return both or None


def _not_hipifys(findings, text: str) -> tuple:
    """``findings`` less those whose fix PyTorch's build-time hipify makes (renames, includes, a compiler macro it
    renames as the fix would: :func:`vado.port.torch_ext.hipify_makes`)."""
    from vado.port import torch_ext

    return tuple(f for f in findings if f.fix is None or not (torch_ext.HIPIFY_TAGS.intersection(f.fix.tags)
                                                              or torch_ext.hipify_makes(f, text)))


def _unguarded_finding(path: str, text: str, u: "torch_ext.Unguarded", target: Target) -> Finding:
    """A change the torch-extension port could not write inside ``#if defined(USE_ROCM)``: open work."""
    lines = text.splitlines(keepends=True)
    start = sum(len(x) for x in lines[: u.first - 1])
    end = start + sum(len(x) for x in lines[u.first - 1: u.last])
    return Finding(
        torch_ext.UNGUARDED, "torch-extension-unguarded", Severity.MEDIUM,
        Span(path, start, end, u.first, 1, u.last, 1),
        f"lines {u.first}-{u.last}: the ROCm change here was not written ({u.why}); "
        f"add a #if defined(USE_ROCM) branch by hand (vado port --torch-extension off shows the change)",
        {target.name: Verdict.MANUAL},
    )


def is_open_work(finding: Finding, target: Target) -> bool:
    """Whether a finding in the *ported* text is work left for humans.

    Whatever a rule still reports with a verdict other than "moves as is" after
    the fixpoint is open work (no fix, a display-only fix, or an unsafe one not
    asked for), except informational notes whose verdict is "moves with
    automatic edits": in a port those edits are done (LIB010's "uses Thrust"
    about a rocThrust port, say).
    """
    verdict = finding.verdicts.get(target.name, Verdict.MOVES_AS_IS)
    if verdict is Verdict.MOVES_AS_IS:
        return False
    return not (verdict is Verdict.AUTOMATIC and finding.severity is Severity.INFO and finding.fix is None)


def port_bytes(path: str, kind: FileKind, data: bytes, target: Target, options: PortOptions | None = None) -> FilePort:
    """Port one file's bytes for ``target``; ``path`` is its name in findings and edits."""
    options = options or PortOptions()
    text = decode_source(data)
    torch = options.torch_extension == "on" and kind.is_c_family
    # Each round runs only the rules that can fix (their findings are all a round uses);
    # the fixpoint's last round finds nothing to apply, and its findings plus those of
    # the rules that never fix, run once on the final text, are what remains. One
    # context per text: its tokens and facts are shared by the rules and the translator.
    contexts: dict[str, FileContext] = {}
    last: dict[str, list[Finding]] = {}

    def context_of(t: str) -> FileContext:
        if t not in contexts:
            contexts.clear()
            contexts[t] = _context(path, kind, t, target, options, lex(t) if kind.is_c_family else None)
        return contexts[t]

    def findings_of(t: str) -> list[Finding]:
        if t not in last:
            last.clear()
            last[t] = check_context(context_of(t), fixing_rules())
        return last[t]

    # What the port leaves alone: the bodies of the original text that the AMD build does not
    # compile and those that only it compiles (the project's own HIP code). Found once, on the
    # original text (its conditions are what the project wrote; the port rewrites some), and
    # moved with every round's edits, none of which touches them.
    kept = untouched_regions(context_of(text), target) if kind.is_c_family else None
    regions = {text: kept} if kept else {}

    def fixes_of(t: str) -> list[Fix]:
        fixes = produce_fixes(path, kind, t, target, options, findings_of(t),
                              tokens=context_of(t).tokens if kind.is_c_family else None)
        # A fix whose every edit writes back the text it replaces (rocThrust's <thrust/sort.h> for
        # Thrust's) changes nothing: no change to apply, count or list in the report.
        fixes = [f for f in fixes if not _changes_nothing(f, t)]
        if torch:
            # PyTorch's build-time hipify does these: the CUDA spelling stays.
            fixes = [g for g in (torch_ext.without_hipify(f, t) for f in fixes) if g is not None]
        around = regions.get(t)
        # The project's own HIP code is left as written, except a cross-lane call WARP009 proves 32-lane code
        # (vado.rules.warp.own_hip: every function that runs it indexes 32-lane warps), and the helper
        # definitions its rewrite calls, which stand before their first use.
        return fixes if not around else [f for f in fixes if OWN_HIP_TAG in f.tags or _WARP32_HELPERS in f.tags
                                         or not any(around.overlaps(e.start, e.end) for e in f.edits)]

    def moved(old: str, edits, new: str) -> None:
        around = regions.pop(old, None)
        if around is not None:
            regions[new] = around.shifted((e.start, e.end, len(encode_source(e.content))) for e in edits)

    unsafe, produce = options.unsafe, fixes_of
    if not unsafe and options.unsafe_tags:
        def produce(t: str) -> list[Fix]:
            return [f for f in fixes_of(t) if f.applicability is not Applicability.UNSAFE
                    or any(tag in options.unsafe_tags for tag in f.tags)]
        unsafe = True
    result = fixpoint(text, produce, unsafe=unsafe, on_round=moved)
    applied: dict[str, int] = {}
    unsafe_applied: list[str] = []
    changes: dict[str, int] = {}
    for fix in result.applied:
        tag = fix.tags[0] if fix.tags else "rule"
        applied[tag] = applied.get(tag, 0) + 1
        what = fix.description or tag
        changes[what] = changes.get(what, 0) + 1
        if fix.applicability is Applicability.UNSAFE:
            unsafe_applied.append(fix.description)
    after = encode_source(result.text)
    final = sorted([*findings_of(result.text), *check_context(context_of(result.text), reporting_rules())],
                   key=Finding.sort_key)
    remaining = tuple(f for f in final if is_open_work(f, target))
    if torch and result.text != text:
        guarded, left = torch_ext.guard_lines(text, result.text)
        after = encode_source(guarded)
        # What remains is read on the AMD side (the unguarded port, as hipify sees it); what hipify
        # does itself is no work left. Line numbers are those of that AMD-side text.
        remaining = _not_hipifys(remaining, result.text)
        remaining += tuple(_unguarded_finding(path, text, u, target) for u in left)
    elif torch:
        remaining = _not_hipifys(remaining, result.text)
    return FilePort(data, after, applied, remaining, tuple(unsafe_applied), changes)


def _changes_nothing(fix: Fix, text: str) -> bool:
    """Whether each of ``fix``'s edits replaces a span of ``text`` with the same text."""
    return all(encode_source(text[e.start:e.end]) == encode_source(e.content) for e in fix.edits)
