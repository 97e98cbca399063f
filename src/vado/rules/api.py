"""API rules: CUDA runtime, driver, device and library names, and what each target makes of them.

Every rule here reads the same per-file resolution (:func:`api_uses`): the
distinct identifiers of the file (from :func:`vado.scan.facts.source_facts`),
each looked up once in the CUDA→HIP table (:mod:`vado.knowledge.api`). A file
with a hundred thousand identifier tokens but two thousand distinct names does
two thousand dict lookups, and the rules then work per name, not per token.

Matching is exact: only names that are in the table are CUDA names (a user
function ``cudaCheck`` is not), and names in comments, strings, member accesses
(``ops.cudaMalloc``), user namespaces (``mylib::cudaFree``) and ``#define``'d
macro names are not uses (see :mod:`vado.scan.facts`).

The HIP facts (API001–API003) only speak for targets that go through HIP names
(``Target.hip_version`` is set: ``rocm-7.2``, ``rocm-6.4``, ``hip-5.2``).
SCALE and ZLUDA keep the CUDA names, and HIPIFY's tables say nothing about
SYCL, so for those targets only API004 and API005 carry a verdict.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from types import ModuleType
from typing import Any, Iterable, Iterator

from vado.model import Effort, Finding, Severity, Target, Verdict
from vado.rules.base import FileContext, Rule
from vado.rules.compiled_span import first_compiled
from vado.scan.classify import FileKind
from vado.scan.facts import source_facts

#: The C/C++/CUDA kinds whose CUDA names matter (``.hip`` files are already ported).
CUDA_KINDS = frozenset(
    {FileKind.CUDA_SOURCE, FileKind.CUDA_HEADER, FileKind.CXX_SOURCE, FileKind.CXX_HEADER}
)

#: Availability statuses, as :func:`vado.knowledge.api.availability` spells them.
AVAILABLE = "available"
RENAMED = "renamed"
UNAVAILABLE = "unavailable"
DEPRECATED = "deprecated"
REMOVED = "removed"
NEWER = "newer-than-target"
UNKNOWN = "unknown"


@dataclass(frozen=True)
class NameUses:
    """One CUDA name of the table used in a file: the table entry and where it is used.

    ``name`` is the name as looked up (``cub::DeviceReduce`` when the table
    spells it qualified); ``starts`` are the offsets of the uses, in file order.
    """

    name: str
    entry: Any
    starts: tuple[int, ...]

    @property
    def library(self) -> str:
        """The entry's library for humans (``CUDA Runtime``, ``cuBLAS`` …)."""
        return library_label(self.entry)


#: Display names of the CUDA→HIP table's library ids that are not library entries.
_LIBRARY_LABELS = {
    "runtime": "CUDA Runtime",
    "driver": "CUDA Driver",
    "device": "CUDA device",
    "complex": "cuComplex",
    "rtc": "NVRTC",
}


def library_label(entry: Any) -> str:
    """``cuBLAS`` for an entry of the ``cublas`` table; header rows are labelled by their section."""
    lib = str(getattr(entry, "library", "") or "")
    if lib == "headers":
        lib = str(getattr(entry, "section", "") or lib)
    if lib in _LIBRARY_LABELS:
        return _LIBRARY_LABELS[lib]
    from vado.knowledge import libraries

    found = libraries.find_library(lib) if lib else None
    return found.name if found is not None else (lib or "CUDA")


def _api():
    from vado.knowledge import api

    return api


def _is_header_row(entry: Any) -> bool:
    return str(getattr(entry, "kind", "")).lower() in ("header", "include")


def api_uses(ctx: FileContext) -> list[NameUses]:
    """The table's CUDA names used in ``ctx``'s file, in order of first use.

    Computed once per file and kept on the context (every API rule reads it).
    A qualified use (``ns::cudaFree``) matches only a table entry spelt with
    that qualifier (``cub::DeviceReduce``); a bare table name used under a user
    namespace or class is the user's own symbol and does not match.
    """
    cached = getattr(ctx, "_vado_api_uses", None)
    if cached is not None:
        return cached
    facts = source_facts(ctx)
    api = _api()
    lookup = api.lookup
    qualifiers = facts.qualifiers
    idents = facts.idents
    found: dict[str, tuple[Any, list[int]]] = {}
    # The set intersection finds the table's names among the file's at C speed; the
    # lookups that follow are the hits only. (A stand-in table without api_table,
    # as tests use, is asked name by name.)
    table = getattr(api, "api_table", None)
    if table is not None:
        # One pass over the file's names finds both kinds of candidate below: the table's
        # names and the last components of its qualified names.
        by_name = table().by_name
        # (frozenset.intersection iterates the file's names; ``keys() & frozenset`` would
        # iterate the whole table, as a frozenset is not an exact set to the keys view.)
        candidates = _names_and_tails(table).intersection(idents.keys())
        direct: Iterable[str] = [n for n in candidates if n in by_name]
        tails: set[str] | None = candidates & _qualified_tails(table)
    else:
        direct, tails = list(idents), None
    for name in direct:
        entry = lookup(name)
        if entry is None or _is_header_row(entry) or "::" in str(getattr(entry, "cuda_name", name)):
            continue
        starts = idents[name]
        plain = [s for s in starts if s not in qualifiers] if qualifiers else starts
        if plain:
            found[name] = (entry, list(plain))
    qualified = qualifiers.keys()
    # A qualified lookup can only hit a table name whose last component is the name:
    # the others are left out by a set intersection (all of them with a stand-in table).
    for name in (tails if tails is not None else list(idents)) if qualifiers else ():
        starts = idents[name]
        if qualified.isdisjoint(starts):
            continue
        # Qualified spellings are rare; look up each distinct one once.
        for s in starts:
            q = qualifiers.get(s)
            if q is None:
                continue
            full = f"{q}::{name}"
            hit = found.get(full)
            if hit is not None:
                hit[1].append(s)
                continue
            entry_q = lookup(full)
            if entry_q is not None and not _is_header_row(entry_q):
                found[full] = (entry_q, [s])
    uses = [NameUses(n, e, tuple(sorted(st))) for n, (e, st) in found.items()]
    uses.sort(key=lambda u: (u.starts[0], u.name))
    setattr(ctx, "_vado_api_uses", uses)
    return uses


@functools.cache
def _names_and_tails(api_table) -> frozenset[str]:
    """The table's names and :func:`_qualified_tails`: every name :func:`api_uses` looks at."""
    return frozenset(api_table().by_name) | _qualified_tails(api_table)


@functools.cache
def _qualified_tails(api_table) -> frozenset[str]:
    """The last components of the table's qualified names (``Sum`` of ``cub::DeviceReduce::Sum``)."""
    return frozenset(n.rsplit("::", 1)[1] for n in api_table().by_name if "::" in n)


def availability(ctx: FileContext, entry: Any, target: Target) -> Any:
    """:func:`vado.knowledge.api.availability` of ``entry`` on ``target``, memoised.

    The answer depends on the table row and the target's name, family and versions
    only, so it is kept for the process (a tree asks for the same few hundred rows
    in file after file); a stand-in table (as tests use) is asked every time.
    """
    api = _api()
    if not isinstance(api, ModuleType):
        return api.availability(entry, target)
    key = (id(entry), target.name, target.family, target.version, target.hip_version)
    hit = _AVAILABILITY.get(key)
    if hit is None or hit[0] is not entry:
        av = api.availability(entry, target)
        if len(_AVAILABILITY) < 262144:
            _AVAILABILITY[key] = (entry, av)  # entry kept alive: its id stays unique
        return av
    return hit[1]


_AVAILABILITY: dict[tuple, tuple[Any, Any]] = {}


def hip_targets(ctx: FileContext) -> tuple[Target, ...]:
    """The audited targets that go through HIP names (their ``hip_version`` is set)."""
    return tuple(t for t in ctx.targets if t.hip_version)


def _status(av: Any) -> str:
    status = getattr(av, "status", UNKNOWN)
    return str(getattr(status, "value", status))


def _hip_name(entry: Any, ctx: FileContext) -> str:
    """The replacement spelling: roc* when the user asked for roc libraries and one exists."""
    if ctx.options.get("roc") and getattr(entry, "roc_name", None):
        return str(entry.roc_name)
    return str(getattr(entry, "rocm_name", None) or getattr(entry, "hip_name", "") or "")


def _reason(av: Any) -> str:
    return str(getattr(av, "reason", "") or "")


def _line_count(ctx: FileContext, starts: Iterable[int]) -> int:
    return len({ctx.lines.position(s)[0] for s in starts})


class _PerTargetStatusRule(Rule):
    """Shared body of API001–API003: one finding per use of a name with a given status."""

    statuses: frozenset[str] = frozenset()

    def verdict(self, ctx: FileContext, use: NameUses, target: Target, av: Any) -> Verdict:
        raise NotImplementedError  # pragma: no cover - interface

    def message(self, use: NameUses, hits: list[tuple[Target, Any]], ctx: FileContext) -> str:
        raise NotImplementedError  # pragma: no cover - interface

    def effort(self, use: NameUses, hits: list[tuple[Target, Any]]) -> Effort:
        return Effort(lines=1, constructs=1, hours=0.5)

    def reported_elsewhere(self, use: NameUses, target: Target) -> bool:
        """Whether another rule reports (and fixes) this use on ``target``, so this one stays silent."""
        return False

    def check(self, ctx: FileContext) -> Iterable[Finding]:
        targets = hip_targets(ctx)
        uses = api_uses(ctx) if targets else ()
        if not uses:
            return ()  # no table name in the file (most headers): no generator to run
        return self._findings(ctx, targets, uses)

    def _findings(self, ctx: FileContext, targets: tuple[Target, ...], uses: list[NameUses]) -> Iterator[Finding]:
        for use in uses:
            hits = []
            for t in targets:
                av = availability(ctx, use.entry, t)
                if _status(av) in self.statuses and not self.reported_elsewhere(use, t):
                    hits.append((t, av))
            if not hits:
                continue
            verdicts = {t.name: self.verdict(ctx, use, t, av) for t, av in hits}
            message = self.message(use, hits, ctx)
            effort = self.effort(use, hits)
            data = {
                "cuda_name": use.name,
                "library": use.library,
                "hip_name": _hip_name(use.entry, ctx),
                "status": {t.name: _status(av) for t, av in hits},
            }
            name_len = len(use.name.rsplit("::", 1)[-1])
            for s in use.starts:
                yield self.finding(ctx, s, s + name_len, message, dict(verdicts), effort=effort, data=dict(data))


def port_helper(name: str, target: Target) -> Any:
    """The local definition ``vado port`` writes for every call of ``name`` on ``target``
    (:class:`vado.port.compat.LocalHelper`), or None."""
    from vado.port.compat import local_helpers

    helper = local_helpers().get(name)
    if helper is None or helper.call_needs is not None or not helper.applies(target):
        return None
    return helper


def _library_blocked_on(name: str, target: Target) -> str | None:
    """A reason when the library that owns ``name`` has no counterpart on ``target`` at all."""
    try:
        from vado.knowledge import libraries
    except ImportError:  # pragma: no cover - the library table ships with vado
        return None
    lib = libraries.library_for_identifier(name)
    if lib is None:
        return None
    from vado.rules.lib import library_verdict

    verdict, reason = library_verdict(lib, target)
    return reason if verdict is Verdict.BLOCKED else None


def _targets_text(hits: list[tuple[Target, Any]]) -> str:
    return ", ".join(t.name for t, _ in hits)


class CudaNameWithoutHipEquivalent(_PerTargetStatusRule):
    """A CUDA name that has no HIP equivalent on the target.

    What it does
    ------------
    Flags every use of a CUDA runtime, driver, device or library name that
    HIPIFY's support tables mark as unsupported by HIP (or by the hip*/roc*
    library that replaces the CUDA library), for each audited target that goes
    through HIP names. One finding per use site, so each call site can be
    rewritten and tracked.

    Why is this bad?
    ----------------
    hipify leaves such a name untouched; the port then fails to compile on AMD
    (``use of undeclared identifier``). The call has to be replaced by hand with
    a different HIP API, a helper of your own, or a redesign. When the whole
    library has no ROCm counterpart the file is blocked, not just hard.

    Example
    -------
    .. code-block:: cuda

        cudaGraphInstantiateWithParams(&exec, graph, &params);

    Use instead
    -----------
    An equivalent sequence of supported calls (here ``hipGraphInstantiate`` plus
    explicit upload), guarded by ``#ifdef __HIP_PLATFORM_AMD__`` if the file must
    still build with nvcc.

    Fix safety
    ----------
    No fix from this rule: the replacement depends on what the call is used
    for. Where a faithful definition is short, ``vado port`` writes one into
    the file and points the calls at it (``vado.port.compat``: the cache-hinted
    loads and stores ``__ldcs``/``__stcs`` …, ``__dp4a``, ``__vmaxs4``, bf16
    pair builders …): for those names the verdict is "moves with automatic
    edits" and the message names the helper.

    References
    ----------
    - HIPIFY support tables, https://github.com/ROCm/HIPIFY/tree/014177bc2e434ce3e834aa4f3d0e2abb1efa9796/docs/tables
    - ``vado explain LIB010`` for the library-level view
    """

    code = "API001"
    name = "cuda-name-without-hip-equivalent"
    severity = Severity.HIGH
    file_kinds = CUDA_KINDS
    statuses = frozenset({UNAVAILABLE})

    def reported_elsewhere(self, use: NameUses, target: Target) -> bool:
        """A host-callback calling-convention macro (``CUDA_CB``) has nothing to rewrite: ``vado port``
        drops it on ROCm (:data:`vado.port.translate.CALLBACK_CONVENTIONS`)."""
        from vado.port.translate import CALLBACK_CONVENTIONS

        return target.family == "rocm" and use.name in CALLBACK_CONVENTIONS

    def verdict(self, ctx: FileContext, use: NameUses, target: Target, av: Any) -> Verdict:
        if _library_blocked_on(use.name, target):
            return Verdict.BLOCKED
        return Verdict.AUTOMATIC if port_helper(use.name, target) is not None else Verdict.MANUAL

    def message(self, use: NameUses, hits: list[tuple[Target, Any]], ctx: FileContext) -> str:
        text = f"`{use.name}` ({use.library}) has no HIP equivalent on {_targets_text(hits)}"
        reason = _reason(hits[0][1])
        blocked = _library_blocked_on(use.name, hits[0][0])
        helped = [t.name for t, _ in hits if port_helper(use.name, t) is not None]
        if blocked:
            text += f"; {blocked}"
        elif helped:
            helper = port_helper(use.name, hits[0][0]) or port_helper(use.name, next(t for t, _ in hits if t.name in helped))
            where = "" if len(helped) == len(hits) else f" on {', '.join(helped)}"
            return text + f"; vado port writes a local definition{where}, {helper.helper}: {helper.why}"
        elif reason:
            text += f" ({reason})"
        return text + "; rewrite this use by hand"


class HipCounterpartDeprecatedOrRemoved(_PerTargetStatusRule):
    """A CUDA name whose HIP counterpart is deprecated or removed in the target's HIP version.

    What it does
    ------------
    Flags every use of a CUDA name whose HIP (or hip*/roc* library) counterpart
    the support tables mark as deprecated or removed at or before the target's
    HIP version: texture and surface references, ``hipblasDatatype_t`` (removed
    in hipBLAS 3), the old ``hipMemsetParams`` layout and the like.

    Why is this bad?
    ----------------
    A *removed* counterpart means the renamed code does not compile on that
    target: the rename is mechanical but its result names nothing. A
    *deprecated* one compiles with a warning today and breaks on a later ROCm,
    so it is worth replacing during the port rather than after.

    Example
    -------
    .. code-block:: cuda

        texture<float, 1, cudaReadModeElementType> tex;   // texture reference
        cublasGemmEx(h, ta, tb, m, n, k, &a, A, CUDA_R_16F, lda, ...);  // hipblasDatatype_t on hipBLAS 3

    Use instead
    -----------
    The API the tables name as replacement: texture objects
    (``cudaCreateTextureObject``) instead of texture references, ``hipDataType``
    and ``hipblasComputeType_t`` with hipBLAS 3.

    Fix safety
    ----------
    No fix: replacements change types and call shapes.

    References
    ----------
    - HIPIFY support tables (HIP and library versions per entry), https://github.com/ROCm/HIPIFY/tree/014177bc2e434ce3e834aa4f3d0e2abb1efa9796/docs/tables
    - hipBLAS deprecations, https://rocm.docs.amd.com/projects/hipBLAS/en/develop/_sources/reference/deprecation.rst
    """

    code = "API002"
    name = "hip-counterpart-deprecated-or-removed"
    severity = Severity.MEDIUM
    file_kinds = CUDA_KINDS
    statuses = frozenset({DEPRECATED, REMOVED})

    def verdict(self, ctx: FileContext, use: NameUses, target: Target, av: Any) -> Verdict:
        # A deprecated counterpart still exists: the rename works, with a warning.
        return Verdict.MANUAL if _status(av) == REMOVED else Verdict.AUTOMATIC

    def message(self, use: NameUses, hits: list[tuple[Target, Any]], ctx: FileContext) -> str:
        hip = _hip_name(use.entry, ctx) or "its HIP counterpart"
        # Targets with the same status and reason share one clause.
        clauses: dict[tuple[str, str], list[str]] = {}
        for t, av in hits:
            clauses.setdefault((_status(av), _reason(av)), []).append(t.name)
        parts = []
        for (status, reason), names in clauses.items():
            word = "removed" if status == REMOVED else "deprecated"
            parts.append(f"{word} on {', '.join(names)}" + (f" ({reason})" if reason else ""))
        text = f"`{use.name}` maps to `{hip}`, which is " + "; ".join(parts)
        replacement = getattr(hits[0][1], "replacement", None)
        if replacement and replacement != hip:
            text += f"; use `{replacement}` instead"
        return text

    def effort(self, use: NameUses, hits: list[tuple[Target, Any]]) -> Effort:
        removed = any(_status(av) == REMOVED for _, av in hits)
        return Effort(lines=1, constructs=1, hours=0.5 if removed else 0.25)


class HipCounterpartNewerThanTarget(_PerTargetStatusRule):
    """A CUDA name whose HIP counterpart is newer than the target's HIP version.

    What it does
    ------------
    Flags every use of a CUDA name whose HIP counterpart exists, but only from
    a HIP (or hip*/roc* library) version later than the one the target ships.
    Typical on ``hip-5.2`` (Debian's toolchain) or ``rocm-6.4`` with code that
    uses APIs HIP gained in 6.x or 7.x. The finding only carries a verdict for
    the targets that are too old.

    Why is this bad?
    ----------------
    hipify renames the call, but the target's headers do not declare the new
    name, so the port fails to build there while it builds on a newer ROCm.

    Example
    -------
    .. code-block:: cuda

        cudaMallocAsync(&p, bytes, stream);   // hipMallocAsync needs HIP >= 5.3

    Use instead
    -----------
    Move the deployment to a newer ROCm (``rocm-7.2``), or guard the call with
    ``#if HIP_VERSION >= …`` and keep an older code path.

    Fix safety
    ----------
    No fix: whether to raise the ROCm floor or keep two paths is a decision.
    The ``*_sync`` warp functions on a HIP before 6.2 are WARP008's: that rule
    lowers them to the mask-less builtins and reports them instead of this one.

    References
    ----------
    - HIPIFY support tables (the HIP version each entry appeared in), https://github.com/ROCm/HIPIFY/tree/014177bc2e434ce3e834aa4f3d0e2abb1efa9796/docs/tables
    """

    code = "API003"
    name = "hip-counterpart-newer-than-target"
    severity = Severity.MEDIUM
    file_kinds = CUDA_KINDS
    statuses = frozenset({NEWER})

    def verdict(self, ctx: FileContext, use: NameUses, target: Target, av: Any) -> Verdict:
        return Verdict.MANUAL

    def reported_elsewhere(self, use: NameUses, target: Target) -> bool:
        # The *_sync warp functions on a HIP before 6.2: WARP008 lowers them to the mask-less
        # builtins and says whether that is safe, with the verdict that follows.
        from vado.rules.warp import LOWERED_SYNC_NAMES, lacks_sync_builtins

        return use.name in LOWERED_SYNC_NAMES and lacks_sync_builtins(target)

    def message(self, use: NameUses, hits: list[tuple[Target, Any]], ctx: FileContext) -> str:
        hip = _hip_name(use.entry, ctx) or "its HIP counterpart"
        if not ctx.options.get("roc"):
            # A name with one row per HIP spelling answers with the spelling it is missing
            # (hipblasDotEx_v2 from HIP 6.0 on hip-5.2, not hipblasDotEx from 7.0).
            hip = getattr(hits[0][1], "replacement", None) or hip
        parts = []
        for t, av in hits:
            since = getattr(av, "since", None)
            parts.append(f"{t.name} has HIP {t.hip_version}" + (f", `{hip}` needs {since}" if since else ""))
        return f"`{use.name}` maps to `{hip}`, newer than the target ({'; '.join(parts)})"

    def effort(self, use: NameUses, hits: list[tuple[Target, Any]]) -> Effort:
        return Effort(lines=1, constructs=1, hours=0.25)


def _library_is_rework(entry: Any) -> bool:
    """True when the entry's library is a rework on ROCm (cuDNN → MIOpen): its renames are no automatic port."""
    from vado.knowledge import libraries

    lib_id = str(getattr(entry, "library", "") or "")
    lib = libraries.find_library(lib_id) if lib_id and lib_id not in _LIBRARY_LABELS else None
    return lib is not None and lib.rocm is not None and lib.rocm.api_shape in ("rework", "none")


def _rename_verdict(target: Target) -> tuple[Verdict, str]:
    """What a file full of 1:1 renames means on ``target``, and why."""
    if target.hip_version:
        return Verdict.AUTOMATIC, "hipify renames them"
    if target.family in ("scale", "zluda"):
        return Verdict.MOVES_AS_IS, f"{target.name} keeps the CUDA names"
    return Verdict.MANUAL, f"{target.name} needs a SYCL migration (SYCLomatic); the HIP mapping says nothing about SYCL"


class CudaNamesWithHipRenames(Rule):
    """CUDA names that translate 1:1 to HIP names (one finding per file and library).

    What it does
    ------------
    Counts the CUDA names of each library (CUDA Runtime, Driver, cuBLAS, cuFFT …)
    that have a HIP counterpart with a different spelling on every HIP target
    audited (``cudaMalloc`` → ``hipMalloc``, ``cublasSgemm`` → ``hipblasSgemm``),
    and reports them as one informational finding per file and library, at the
    first use, with the count of each name in ``data``. Names that are the same
    in HIP (``__syncthreads``, ``atomicAdd``) are not counted: they move as is.
    Names of a library whose ROCm counterpart is a rework (cuDNN → MIOpen,
    per the library facts) are not counted either: HIPIFY renames them, but
    the rename does not make the port automatic, and the LIB rules report them.

    Why is this bad?
    ----------------
    It is not bad: it is the part of the port that costs nothing. It is
    reported so the verdict and the effort are complete, and so a report shows
    how much of a file is mechanical. One finding per library keeps reports of
    large trees readable instead of listing every ``cudaMalloc``.

    Example
    -------
    .. code-block:: cuda

        cudaMalloc(&d, n); cudaMemcpy(d, h, n, cudaMemcpyHostToDevice);

    Use instead
    -----------
    .. code-block:: cpp

        hipMalloc(&d, n); hipMemcpy(d, h, n, hipMemcpyHostToDevice);

    On SCALE and ZLUDA the CUDA spellings stay. For oneAPI the names need a
    SYCL migration (SYCLomatic), which this mapping does not describe.

    Fix safety
    ----------
    The renames are applied by ``vado port`` together with the include changes
    of API005; they are exact token replacements and safe.

    References
    ----------
    - HIPIFY support tables, https://github.com/ROCm/HIPIFY/tree/014177bc2e434ce3e834aa4f3d0e2abb1efa9796/docs/tables
    - SYCLomatic, https://oneapi-src.github.io/SYCLomatic/dev_guide/index.html
    """

    code = "API004"
    name = "cuda-names-with-hip-renames"
    severity = Severity.INFO
    file_kinds = CUDA_KINDS

    def check(self, ctx: FileContext) -> Iterable[Finding]:
        uses = api_uses(ctx)
        return self._findings(ctx, uses) if uses else ()

    def _findings(self, ctx: FileContext, uses: list[NameUses]) -> Iterator[Finding]:
        hips = hip_targets(ctx)
        groups: dict[str, list[NameUses]] = {}
        for use in uses:
            hip = _hip_name(use.entry, ctx)
            if not hip or hip == use.name:
                continue
            # A rename: available with another spelling on every HIP target (or,
            # with no HIP target audited, in the table at all). Names with other
            # statuses belong to API001–API003 on the targets concerned, and
            # deprecated ones still rename.
            if hips and not all(
                _status(availability(ctx, use.entry, t)) in (RENAMED, AVAILABLE, DEPRECATED) for t in hips
            ):
                continue
            if _library_is_rework(use.entry):
                continue
            groups.setdefault(use.library, []).append(use)
        for library, uses in groups.items():
            counts = {u.name: len(u.starts) for u in uses}
            total = sum(counts.values())
            first = min(uses, key=lambda u: u.starts[0])
            verdicts: dict[str, Verdict] = {}
            reasons: dict[str, str] = {}
            for t in ctx.targets:
                verdicts[t.name], reasons[t.name] = _rename_verdict(t)
            distinct = len(counts)
            sample = ", ".join(f"{n}→{_hip_name(u.entry, ctx)}" for n, u in list((u.name, u) for u in uses)[:3])
            more = f" and {distinct - 3} more" if distinct > 3 else ""
            message = (
                f"{total} use{'s' if total != 1 else ''} of {distinct} {library} name"
                f"{'s' if distinct != 1 else ''} rename 1:1 to HIP ({sample}{more})"
            )
            all_starts = [s for u in uses for s in u.starts]
            start, end = first_compiled(
                ctx, (first.starts[0], first.starts[0] + len(first.name.rsplit("::", 1)[-1])),
                [(s, s + len(u.name.rsplit("::", 1)[-1])) for u in uses for s in u.starts])
            yield self.finding(
                ctx,
                start,
                end,
                message,
                verdicts,
                effort=Effort(lines=_line_count(ctx, all_starts)),
                data={
                    "library": library,
                    "counts": counts,
                    "renames": {u.name: _hip_name(u.entry, ctx) for u in uses},
                    "reasons": reasons,
                },
            )


class CudaHeaderInclude(Rule):
    """An ``#include`` of a CUDA or CUDA-library header, and the HIP header that replaces it.

    What it does
    ------------
    Reports each ``#include`` of a header that the CUDA→HIP table knows
    (``cuda_runtime.h``, ``cublas_v2.h``, ``curand_kernel.h`` …) with the HIP
    header that replaces it, in the ROCm ≥ 6 spelling (``hip/hip_runtime.h``,
    ``hipblas/hipblas.h``). Quoted includes count when they name such a header;
    a user header such as ``"my_cudnn_helpers.h"`` is not in the table and is
    not reported.

    This is a rule of its own rather than part of API004: an include is one
    line with one edit (few per file, so one finding each stays readable), and
    a header can have no HIP counterpart or a newer one while the names in the
    file rename fine, which needs its own verdict.

    Why is this bad?
    ----------------
    The CUDA headers do not exist on AMD; until the include changes, nothing
    after it compiles. It is informational when the HIP header exists.

    Example
    -------
    .. code-block:: cuda

        #include <cuda_runtime.h>
        #include <cublas_v2.h>

    Use instead
    -----------
    .. code-block:: cpp

        #include <hip/hip_runtime.h>
        #include <hipblas/hipblas.h>

    Fix safety
    ----------
    The replacement is a fixed header path per CUDA header, applied by
    ``vado port``; safe.

    References
    ----------
    - HIPIFY support tables, https://github.com/ROCm/HIPIFY/tree/014177bc2e434ce3e834aa4f3d0e2abb1efa9796/docs/tables
    - ROCm 6 header layout (``hipblas/hipblas.h``), https://rocm.docs.amd.com/projects/hipBLAS/en/latest/
    """

    code = "API005"
    name = "cuda-header-include"
    severity = Severity.INFO
    file_kinds = CUDA_KINDS

    def check(self, ctx: FileContext) -> Iterator[Finding]:
        lookup = _api().lookup
        for inc in source_facts(ctx).includes:
            entry = lookup(inc.path)
            if entry is None or not _is_header_row(entry):
                continue
            hip = _hip_name(entry, ctx)
            if hip == inc.path:
                continue  # the same header on ROCm (rocThrust's <thrust/…>): nothing to change
            verdicts: dict[str, Verdict] = {}
            notes = []
            for t in ctx.targets:
                if not t.hip_version:
                    verdicts[t.name] = _rename_verdict(t)[0]
                    continue
                av = availability(ctx, entry, t)
                status = _status(av)
                if status in (RENAMED, AVAILABLE, DEPRECATED):
                    # An empty HIP header (device_launch_parameters.h): the port drops the #include.
                    verdicts[t.name] = Verdict.AUTOMATIC
                else:
                    verdicts[t.name] = Verdict.MANUAL
                    note = f"{status} on {t.name}"
                    if _reason(av):
                        note += f": {_reason(av)}"
                    notes.append(note)
            library = library_label(entry)
            if hip and not notes:
                message = f"<{inc.path}> ({library}) becomes <{hip}> on HIP"
            elif not notes:
                message = f"<{inc.path}> ({library}) is not needed on HIP: the port drops the #include"
            elif hip:
                message = f"<{inc.path}> ({library}) maps to <{hip}>, " + "; ".join(notes)
            else:
                message = f"<{inc.path}> ({library}) has no HIP header; " + "; ".join(notes)
            clean = not notes
            yield self.finding(
                ctx,
                inc.start,
                inc.end,
                message,
                verdicts,
                severity=Severity.INFO if clean else Severity.MEDIUM,
                effort=Effort(lines=1, constructs=0 if clean else 1, hours=0.0 if clean else 0.5),
                data={"cuda_header": inc.path, "hip_header": hip, "library": library, "system": inc.system},
            )
