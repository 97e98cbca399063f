"""API rule about cooperative groups that HIP does not have (API009).

HIP's cooperative groups (ROCm 7.2.4, ``hip/amd_detail/amd_hip_cooperative_groups.h``)
are CUDA's minus what a 64-lane wavefront or HIP's implementation leaves out:
tiles are at most one wavefront (64 threads), and ``labeled_partition``, the
scans of ``cooperative_groups/scan.h``, the asynchronous reductions and
``invoke_one`` are not declared, nor ``wait_prior`` (HIP ships no
``cooperative_groups/memcpy_async.h``; a ``memcpy_async`` call is ARCH002's). ``vado port`` writes a local
``cooperative_groups::reduce`` (:data:`vado.port.compat.CG_REDUCE`) for the
groups HIP has; what this rule reports stays open work, so a port that cannot
compile never says "nothing remains".
"""

from __future__ import annotations

import re
from typing import Iterable

from vado.model import Effort, Finding, Severity, Target, Verdict
from vado.rules import cuda_syntax as cs
from vado.rules.base import FileContext, Rule
from vado.scan.lexer import Kind

#: The largest tile HIP's ``thread_block_tile``/``tiled_partition`` take: the wavefront (``is_valid_wavefront``).
HIP_MAX_TILE = 64
#: Cooperative-groups names CUDA declares and ROCm 7.2.4's HIP does not, and what each is.
MISSING = {
    "labeled_partition": "labeled_partition (HIP has binary_partition and tiled_partition only)",
    "inclusive_scan": "cooperative_groups::inclusive_scan (cooperative_groups/scan.h)",
    "exclusive_scan": "cooperative_groups::exclusive_scan (cooperative_groups/scan.h)",
    "reduce_update_async": "cooperative_groups::reduce_update_async",
    "reduce_store_async": "cooperative_groups::reduce_store_async",
    "invoke_one": "cooperative_groups::invoke_one",
    "invoke_one_broadcast": "cooperative_groups::invoke_one_broadcast",
    "block_tile_memory": "cooperative_groups::block_tile_memory (tiles of more than 32 threads in CUDA)",
    "wait_prior": "cooperative_groups::wait_prior (cooperative_groups/memcpy_async.h)",
}
#: Names older HIP releases lack: name → (the first HIP release taken to have it, what it is). HIP 5.2 has no
#: binary_partition (measured: Debian's libamdhip64-dev 5.2.3); ROCm 7.2.4 has it; releases between are not
#: measured, and 6.0 is where vado draws the line (no target of vado's lies between 5.2 and 6.4).
MISSING_BEFORE = {"binary_partition": ("6.0", "cooperative_groups::binary_partition")}
#: Headers of CUDA's cooperative groups that HIP does not ship. (A ``memcpy_async`` call is ARCH002's: asynchronous
#: copies have no AMD equivalent on any target; the include here, which breaks the build on its own.)
MISSING_HEADERS = {"cooperative_groups/scan.h": "cooperative_groups::inclusive_scan / exclusive_scan",
                   "cooperative_groups/memcpy_async.h": "cooperative_groups::memcpy_async / wait / wait_prior"}
_TILES = frozenset({"tiled_partition", "thread_block_tile"})
_NAMESPACE = "cooperative_groups"


def _rocm_targets(ctx: FileContext) -> tuple[Target, ...]:
    return tuple(t for t in ctx.targets if t.family == "rocm" and t.hip_version)


def _cg_names(toks, uses: list[int]) -> tuple[set[str], bool]:
    """The names that stand for ``cooperative_groups`` in the file (itself and ``namespace X = cooperative_groups``
    aliases), and whether the file says ``using namespace cooperative_groups``; ``uses``: where it is spelt."""
    names, using = {_NAMESPACE}, False
    for i in uses:
        if i < 2:
            continue
        if toks[i - 1][3] == "=" and toks[i - 2][0] is Kind.IDENT and i >= 3 and toks[i - 3][3] == "namespace":
            names.add(toks[i - 2][3])
        elif toks[i - 1][3] == "namespace" and toks[i - 2][3] == "using":
            using = True
    return names, using


def _qualifier(toks, i: int) -> str | None:
    """``cg`` for ``cg::name`` at ``i``; ``""`` for an unqualified name; None for a member (``x.name``)."""
    if i > 0 and toks[i - 1][3] in (".", "->"):
        return None
    if i > 1 and toks[i - 1][3] == "::":
        return toks[i - 2][3] if toks[i - 2][0] is Kind.IDENT else None
    return ""


def _tile_size(toks, i: int, pairs) -> int | None:
    """The literal size of ``tiled_partition<N>`` / ``thread_block_tile<N, …>`` / ``tiled_partition(g, N)``."""
    if i + 2 >= len(toks):
        return None
    nxt = toks[i + 1][3]
    if nxt == "<" and toks[i + 2][0] is Kind.NUMBER and i + 3 < len(toks) and toks[i + 3][3] in (">", ","):
        return cs.int_value(toks[i + 2][3])
    if nxt == "(" and toks[i][3] == "tiled_partition":
        close = pairs.get(i + 1)
        if close is not None and close - 2 > i + 1 and toks[close - 1][0] is Kind.NUMBER and toks[close - 2][3] == ",":
            return cs.int_value(toks[close - 1][3])
    return None


class CooperativeGroupsTheTargetLacks(Rule):
    """A cooperative-groups name or tile size that HIP does not have (``labeled_partition``, tiles over 64 threads).

    What it does
    ------------
    On ROCm targets, finds uses of ``cooperative_groups`` (or an alias such as
    ``cg``, or the names after ``using namespace cooperative_groups``) that HIP
    does not declare: ``labeled_partition``, ``inclusive_scan``,
    ``exclusive_scan``, ``reduce_update_async``, ``reduce_store_async``,
    ``invoke_one``, ``invoke_one_broadcast``, ``block_tile_memory``,
    ``wait_prior``; the includes of ``cooperative_groups/scan.h``
    and ``cooperative_groups/memcpy_async.h``; ``binary_partition`` on a HIP before 6.0
    (HIP 5.2 has none); and ``tiled_partition<N>``,
    ``thread_block_tile<N>`` and ``tiled_partition(group, N)`` with a literal
    ``N`` above 64.

    Why is this bad?
    ----------------
    HIP's cooperative groups (ROCm 7.2.4) stop at the wavefront: a tile is a
    power of 2 up to 64 threads (``static_assert``: "Tiled partition with size >
    wavefront size. Currently not supported"; the run-time form asserts), and
    the names above are not declared, so the port does not compile. A
    ``cooperative_groups::reduce`` over such a group cannot be rewritten either:
    vado's local reduce covers the groups HIP has (tiles of up to 64 threads and
    coalesced groups: ``coalesced_threads``, ``binary_partition``).

    Example
    -------
    .. code-block:: cuda

        auto tile = cg::tiled_partition<128>(block);
        auto same = cg::labeled_partition(warp, key);
        int sum = cg::reduce(same, v, cg::plus<int>());

    Use instead
    -----------
    .. code-block:: cuda

        // a block-level reduction through shared memory for 128 threads; for labels,
        // a loop of binary_partition or __match_any_sync with a masked reduction
        auto tile = cg::tiled_partition<64>(block);

    Fix safety
    ----------
    No fix: each needs a choice of algorithm (a shared-memory stage for a tile
    wider than a wavefront, a split by label). The finding stays after the port
    so that it is not reported as done.

    References
    ----------
    - ROCm 7.2.4 ``hip/amd_detail/amd_hip_cooperative_groups.h`` and ``hip_cooperative_groups_helper.h``
      (``is_valid_tile_size``: power of 2 and at most 64; no labeled_partition, no scan, no invoke_one, no
      memcpy_async: ``grep -r memcpy_async /opt/rocm-7.2.4/include/hip`` finds nothing)
    - CUDA Programming Guide, cooperative groups (``labeled_partition``, ``cg::reduce``, ``inclusive_scan``,
      tiles up to 1024 threads): https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#cooperative-groups
    """

    code = "API009"
    name = "cooperative-groups-the-target-lacks"
    severity = Severity.HIGH
    file_kinds = cs.CUDA_CXX_KINDS

    def check(self, ctx: FileContext) -> Iterable[Finding]:
        targets = _rocm_targets(ctx)
        if not targets:
            return
        view = cs.device_view(ctx)
        toks = view.tokens
        for header, what in MISSING_HEADERS.items():
            if header in view.text:
                for m in re.finditer(rf'^[ \t]*#[ \t]*include[ \t]*[<"]{re.escape(header)}[>"]', view.text, re.M):
                    yield self._finding(ctx, m.start(), m.end(), f"HIP ships no <{header}> ({what})", targets)
        names, using = _cg_names(toks, view.ident_indices((_NAMESPACE,)))
        for i in view.ident_indices(tuple(MISSING) + tuple(_TILES) + tuple(MISSING_BEFORE)):
            q = _qualifier(toks, i)
            if q is None or not (q in names or (q == "" and using)):
                continue
            name = toks[i][3]
            if name in MISSING:
                yield self._finding(ctx, toks[i][1], toks[i][2], f"HIP has no {MISSING[name]}", targets)
                continue
            if name in MISSING_BEFORE:
                since, what = MISSING_BEFORE[name]
                old = tuple(t for t in targets if not cs.hip_at_least(t, since))
                if old:
                    yield self._finding(ctx, toks[i][1], toks[i][2],
                                        f"HIP before {since} has no {what} ({', '.join(t.name for t in old)})", old)
                continue
            size = _tile_size(toks, i, view.pairs)
            if size is not None and size > HIP_MAX_TILE:
                yield self._finding(
                    ctx, toks[i][1], toks[i][2],
                    f"{name} of {size} threads: HIP's tiles are at most one wavefront ({HIP_MAX_TILE} threads)",
                    targets)

    def _finding(self, ctx: FileContext, start: int, end: int, message: str, targets) -> Finding:
        return self.finding(ctx, start, end, message, {t.name: Verdict.MANUAL for t in targets},
                            effort=Effort(lines=1, constructs=1, hours=1.0))
