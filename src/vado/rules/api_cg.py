"""API rule about cooperative groups that HIP does not have (API009).

HIP's cooperative groups (ROCm 7.2.4, ``hip/amd_detail/amd_hip_cooperative_groups.h``)
are CUDA's minus what a 64-lane wavefront or HIP's implementation leaves out:
tiles are at most one wavefront (64 threads), and ``labeled_partition``, the
scans of ``cooperative_groups/scan.h``, the asynchronous reductions,
``invoke_one``, ``block_tile_memory`` and several ``grid_group`` members
(``block_rank``, ``num_blocks`` …) are not declared, nor ``wait_prior`` (HIP ships no
``cooperative_groups/memcpy_async.h``; a ``memcpy_async`` call is ARCH002's). ``vado port`` writes a local
``cooperative_groups::reduce`` (:data:`vado.port.compat.CG_REDUCE`) for the
groups HIP has, and through this rule's fixes ``labeled_partition``, the scans, ``invoke_one`` and
the group members (:mod:`vado.port.compat.cg_collectives`, :mod:`vado.port.compat.cg_members`);
what this rule reports without a fix stays open work, so a port that cannot
compile never says "nothing remains".
"""

from __future__ import annotations

import re
from typing import Iterable

from vado.model import Applicability, Edit, Effort, Finding, Fix, Severity, Target, Verdict
from vado.rules import cuda_syntax as cs
from vado.rules.api_cg_tiles import _args as _tile_args
from vado.rules.api_cg_tiles import _literal as _tile_literal
from vado.rules.api_cg_tiles import _named_values as _tile_named_values
from vado.rules.api_cg_tiles import tile_sizes
from vado.rules.base import FileContext, Rule
from vado.scan.lexer import Kind

#: The largest tile HIP's ``thread_block_tile``/``tiled_partition`` take: the wavefront (``is_valid_wavefront``).
HIP_MAX_TILE = 64
#: The largest tile CUDA's run-time ``tiled_partition(parent, n)`` makes: CUDA 13.0's cooperative_groups.h aborts for
#: ``n > 32`` or ``n`` not a power of 2 (``_get_tiled_threads``), where ROCm 7.2.4's takes a power of 2 up to the
#: wavefront (``new_tiled_group``: ``__hip_assert`` otherwise, which NDEBUG compiles away), as vado's wave64
#: emulation does (verify/data/hip_on_cuda_wave64_cg.cuh).
CUDA_RUNTIME_TILE = 32
_RUNTIME_TILE = (
    "CUDA makes such tiles only of a power of 2 up to 32 "
    "threads and aborts otherwise; HIP (ROCm 7.2.4) and vado's wave64 emulation make the same tiles for those sizes "
    "and also take 64 (the wavefront), so every size the original runs with gives the same tiles on AMD, and a size "
    "the original aborts on (64) runs there instead; HIP checks the size only by assert (none under NDEBUG). Where "
    "the size is a warp's width computed by the program, check that it is 32 (CUDA's warp) in the port too")
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
    "wait": "cooperative_groups::wait (cooperative_groups/memcpy_async.h)",
}
#: What to write instead, for the names of :data:`MISSING` the port does not write (and the headers HIP lacks).
_ASYNC_COPY = ("copy with the group's threads (a loop over the bytes strided by group.size() from group.thread_rank()) "
               "where memcpy_async is, and group.sync() where wait/wait_prior is")
#: A name that says it is the warp's width: at most one wavefront, whatever its value.
_WARP_WIDTH_NAME = re.compile(r"(?i)^k?_?warp_?(?:size|sz|width|lanes|threads)$")
_WIDE_TILE = ("reduce or scan each 64-lane tile, then combine the tiles' results through shared memory after a "
              "block sync (or use the whole thread_block)")
ADVICE = {
    "reduce_update_async": "cg::reduce, then one thread (thread_rank() == 0) updates the destination atomically",
    "reduce_store_async": "cg::reduce, then one thread (thread_rank() == 0) stores the result",
    "block_tile_memory": "drop it and call this_thread_block() without it; for a tile of more than 64 threads "
                         + _WIDE_TILE,
    "wait": _ASYNC_COPY,
    "wait_prior": _ASYNC_COPY,
    "cooperative_groups/memcpy_async.h": _ASYNC_COPY,
    "tile": _WIDE_TILE,
}
#: Names older HIP releases lack: name → (the first HIP release taken to have it, what it is). HIP 5.2 has no
#: binary_partition (measured: Debian's libamdhip64-dev 5.2.3); ROCm 7.2.4 has it; releases between are not
#: measured, and 6.0 is where vado draws the line (no target of vado's lies between 5.2 and 6.4).
MISSING_BEFORE = {"binary_partition": ("6.0", "cooperative_groups::binary_partition")}
#: Headers of CUDA's cooperative groups that HIP does not ship. (A ``memcpy_async`` call is ARCH002's: asynchronous
#: copies have no AMD equivalent on any target; the include here, which breaks the build on its own.)
MISSING_HEADERS = {"cooperative_groups/scan.h": "cooperative_groups::inclusive_scan / exclusive_scan",
                   "cooperative_groups/memcpy_async.h": "cooperative_groups::memcpy_async / wait / wait_prior"}
#: The names each of :data:`MISSING_HEADERS` declares. A file that includes one and uses none of them loses
#: nothing when the port drops the ``#include`` (DCNv4 1.0.0.post2 includes memcpy_async.h in seven files and
#: calls none of it); a use in a file that gets them through this one is reported where it is (ARCH002's
#: ``memcpy_async``, :data:`MISSING`'s ``wait``/``wait_prior``/scans).
HEADER_NAMES = {"cooperative_groups/scan.h": ("inclusive_scan", "exclusive_scan"),
                "cooperative_groups/memcpy_async.h": ("memcpy_async", "wait", "wait_prior")}
_TILES = frozenset({"tiled_partition", "thread_block_tile"})
#: Names the port defines where the target's HIP has what the definition needs (HIP 6.0 and later, as for
#: ``labeled_partition``): name → (the guard a file holding the definition spells, the block, what it is).
#: :mod:`vado.port.compat.cg_collectives` holds the blocks.
_LOCAL = {"inclusive_scan": "scan", "exclusive_scan": "scan", "invoke_one": "invoke", "invoke_one_broadcast": "invoke"}
#: The group kinds whose members HIP lacks, by the call that makes one (``cg::this_grid()``).
_MAKERS = {"this_grid": "grid_group", "this_thread_block": "thread_block"}
_NAMESPACE = "cooperative_groups"
#: The guard of the local ``labeled_partition``; a file that holds it has its definition.
LABELED_GUARD = "VADO_CG_LABELED_PARTITION"
#: ``cooperative_groups::labeled_partition`` for a HIP with ``binary_partition`` (the API009 fix). CUDA declares
#: it for a ``coalesced_group`` and a ``thread_block_tile<32>`` with an ``int`` or ``unsigned int`` label; HIP's
#: ``binary_partition`` takes a coalesced group and any ``thread_block_tile`` and returns a ``coalesced_group``.
#: The split starts from the lanes that make the call: for a tile, the caller's tile of ``coalesced_threads()``
#: (EXEC), not the tile itself. CUDA's labeled_partition of a tile is a ``__match_any_sync`` over the tile's
#: mask, which leaves out lanes that have left the kernel (PTX ``match.sync``, sm_70 on: it waits for the
#: non-exited threads of the mask; gsplat's projection backward returns early, then labels its warp); HIP's
#: ``binary_partition`` of a tile ballots with the tile's full ``build_mask()``, and ``__hip_check_mask``
#: traps (``__builtin_trap`` unless NDEBUG) when a lane of the mask does not make the call.
LABELED_PARTITION = f"""\
// vado: HIP has no cooperative_groups::labeled_partition: the group's threads with the same label as a
// coalesced_group, found by splitting the group on each bit of the label (one binary_partition, a ballot,
// per bit): what is left holds exactly the threads whose labels are equal, ranked in lane order. A tile is
// first narrowed to its lanes that make the call (as CUDA, which leaves out lanes that have returned; HIP's
// binary_partition of the tile itself names every lane of the tile and traps when one has returned).
// HIP on NVIDIA has CUDA's own.
#include <hip/hip_cooperative_groups.h>
#include <type_traits>
#ifndef {LABELED_GUARD}
#define {LABELED_GUARD}
#if !defined(__HIP_PLATFORM_NVIDIA__)
namespace cooperative_groups {{
__device__ inline coalesced_group vado_labeled_start(const coalesced_group& parent) {{ return parent; }}
template <unsigned int Size, class Parent>
__device__ coalesced_group vado_labeled_start(const thread_block_tile<Size, Parent>&) {{
  coalesced_group group = coalesced_threads();  // the wave's lanes here (EXEC), then the caller's tile of them
  for (unsigned int bit = Size; bit < static_cast<unsigned int>(warpSize); bit *= 2)
    group = binary_partition(group, (__lane_id() & bit) != 0);
  return group;
}}
template <class Group, class Label>
__device__ coalesced_group labeled_partition(const Group& parent, Label label) {{
  static_assert(std::is_integral<Label>::value, "labeled_partition takes an integer label");
  typedef typename std::make_unsigned<Label>::type Bits;
  const Bits bits = static_cast<Bits>(label);
  coalesced_group group = vado_labeled_start(parent);
  for (unsigned int bit = 0; bit < 8 * sizeof(Bits); ++bit) group = binary_partition(group, ((bits >> bit) & 1u) != 0);
  return group;
}}
}}  // namespace cooperative_groups
#endif  // !__HIP_PLATFORM_NVIDIA__
#endif

"""
#: A group's shuffle members. CUDA's take any trivially copyable value (moved 32 bits at a time); HIP's (ROCm 7.2.4:
#: ``thread_block_tile::shfl_xor(T var, ...)`` is ``__shfl_xor(var, ...)``) take the types ``__shfl`` has
#: overloads for: the integer and floating scalars, ``__half``, ``__half2``, ``__hip_bfloat16``.
_SHUFFLES = ("shfl", "shfl_up", "shfl_down", "shfl_xor")
#: CUDA's vector types (``uint4``, ``float2``, ``dim3`` …): no ``__shfl`` overload takes one.
_VECTOR_TYPE = re.compile(r"(?:u?char|u?short|u?int|u?long|u?longlong|float|double)[1-4]|dim3")
#: Tokens that may stand between a declaration's type and its name.
_DECL_SKIP = frozenset({"const", "volatile", "&", "__restrict__", "__restrict", "register"})


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
    (HIP 5.2 has none); ``tiled_partition<N>``,
    ``thread_block_tile<N>`` and ``tiled_partition(group, N)`` with a literal
    ``N`` above 64; and the members of CUDA's ``grid_group`` (``block_rank``,
    ``num_blocks``, ``block_index``, ``dim_blocks``, ``thread_index``,
    ``dim_threads``) and ``thread_block`` (``dim_threads``) that HIP's lack.
    A ``tiled_partition(group, n)`` whose ``n`` is known only at run time (or
    is a constant CUDA's run-time tiles abort on) gets a low note that moves as
    is: CUDA 13's run-time tiles are a power of 2 up to 32 threads (it aborts
    otherwise), HIP's and vado's wave64 emulation's up to 64, so every size
    the original runs with makes the same tiles (``warpSize`` as the size is
    the WARP rules').

    Why is this bad?
    ----------------
    HIP's cooperative groups (ROCm 7.2.4) stop at the wavefront: a tile is a
    power of 2 up to 64 threads (``static_assert``: "Tiled partition with size >
    wavefront size. Currently not supported"; the run-time form asserts), and
    the names above are not declared, so the port does not compile. A
    ``cooperative_groups::reduce`` over such a group cannot be rewritten either:
    vado's local reduce covers the groups HIP has (tiles of up to 64 threads and
    coalesced groups: ``coalesced_threads``, ``binary_partition``, and the
    ``labeled_partition`` the port writes). CUDA's group
    shuffles move any trivially copyable value; HIP's pass the value to ``__shfl_xor``
    and friends, which have no overload for a ``uint4`` or a struct ("no matching
    function for call to '__shfl_xor'", measured with ROCm 7.2.4's hipcc).

    Example
    -------
    .. code-block:: cuda

        auto tile = cg::tiled_partition<128>(block);
        auto same = cg::labeled_partition(warp, key);
        int sum = cg::reduce(same, v, cg::plus<int>());
        uint4 q = warp.shfl_xor(v4, 1);

    Use instead
    -----------
    .. code-block:: cuda

        // a block-level reduction through shared memory for 128 threads; for labels,
        // a loop of binary_partition or __match_any_sync with a masked reduction
        auto tile = cg::tiled_partition<64>(block);
        uint4 q = vado_cg_shfl_xor(warp, v4, 1);  // what vado port writes: 32 bits at a time

    Fix safety
    ----------
    A group shuffle of a vector type or a struct on a group named by a plain name
    (``tile.shfl_xor(v4, 1)``) becomes ``vado_cg_shfl_xor(tile, v4, 1)``, a helper the
    port writes into the file (:mod:`vado.port.compat.cg_shuffle`) that moves the value
    32 bits at a time through the group's own shuffle of an ``unsigned int``, as CUDA's
    group shuffle does: safe, the same lanes and the same bits. Another group expression
    (``holder.tile.shfl_xor(…)``) is reported without a fix. On a HIP with
    ``binary_partition`` (6.0 and later), ``labeled_partition(group, label)`` gets a
    local ``cooperative_groups::labeled_partition`` (:data:`LABELED_PARTITION`, once per
    file, before its first use): the group split on each bit of the integer label, one
    ``binary_partition`` (a ballot) per bit, which leaves exactly the threads whose
    labels are equal, ranked in lane order, as CUDA's coalesced group of them is: safe,
    one ballot per label bit where CUDA uses one match. A tile is first narrowed to its
    lanes that make the call (``coalesced_threads()`` split by tile): CUDA leaves out
    lanes that have returned, where HIP's ``binary_partition`` of the tile itself names
    all of them and traps. On such a HIP the scans and
    ``invoke_one``/``invoke_one_broadcast`` get local definitions
    (:mod:`vado.port.compat.cg_collectives`: CUDA's own algorithms, a scan of the group's
    ``shfl_up`` with ``op(own partial, partial below)``, rank 0 calling and its result
    shuffled to the group), in place of the ``scan.h`` include or before the first use:
    safe, the same values in the same order of ``op`` (the stand-in checks of
    ``tests/verify/cg_emulation`` run them with HIP's own groups). ``g.block_rank()`` of a
    ``g`` known to be a ``grid_group`` (``cg::this_grid()``, a declaration, ``auto g =
    cg::this_grid()``) becomes ``vado_cg_block_rank(g)``, a helper of
    :mod:`vado.port.compat.cg_members` that takes only a ``grid_group`` and computes what
    CUDA's member does from ``blockIdx``/``gridDim``/``blockDim``: safe; a receiver whose type
    is not found (a template parameter) is reported without a fix. ``__shared__
    cg::block_tile_memory<N> btm;`` becomes a comment and ``this_thread_block(btm)``
    ``this_thread_block()`` when the name has no other use in its block: safe, HIP's tiles
    are one wavefront at most and take no scratch (tiles over 64 threads stay reported).
    The rest has no fix: each
    needs a choice of algorithm (a shared-memory stage for a tile wider than a
    wavefront, a split by label). The finding stays after the port so that it is not
    reported as done.

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
    can_fix = True
    file_kinds = cs.CUDA_CXX_KINDS

    def check(self, ctx: FileContext) -> Iterable[Finding]:
        targets = _rocm_targets(ctx)
        if not targets:
            return
        view = cs.device_view(ctx)
        toks = view.tokens
        since = MISSING_BEFORE["binary_partition"][0]
        local_targets = tuple(t for t in targets if cs.hip_at_least(t, since))
        scan_included = False
        for header, what in MISSING_HEADERS.items():
            if header in view.text:
                unused = not view.ident_indices(HEADER_NAMES[header])
                for m in re.finditer(rf'^[ \t]*#[ \t]*include[ \t]*[<"]{re.escape(header)}[>"]', view.text, re.M):
                    if unused:
                        yield self._unused_header(ctx, m.start(), m.end(), header, what, targets)
                    elif header == "cooperative_groups/scan.h" and local_targets:
                        scan_included = True
                        yield from self._scan_header(ctx, m.start(), m.end(), targets, local_targets)
                    else:
                        advice = f": {ADVICE[header]}" if header in ADVICE else ""
                        yield self._finding(ctx, m.start(), m.end(), f"HIP ships no <{header}> ({what}){advice}",
                                            targets)
        names, using = _cg_names(toks, view.ident_indices((_NAMESPACE,)))
        labeled_done = view.spelling_index.has_any((LABELED_GUARD,))
        labeled_fix = True  # the first labeled_partition of the file carries the definition
        from vado.port.compat.cg_collectives import INVOKE_ONE_GUARD, SCAN_GUARD

        # a block the port writes (or has written) covers every use in the file: only the first carries it
        local_pending = {"scan": not scan_included and not view.spelling_index.has_any((SCAN_GUARD,)),
                         "invoke": not view.spelling_index.has_any((INVOKE_ONE_GUARD,))}
        local_covered = {"scan": scan_included or not local_pending["scan"], "invoke": not local_pending["invoke"]}
        for i in view.ident_indices(tuple(MISSING) + tuple(_TILES) + tuple(MISSING_BEFORE)):
            q = _qualifier(toks, i)
            if q is None or not (q in names or (q == "" and using)):
                continue
            name = toks[i][3]
            if name == "labeled_partition":
                if labeled_done:
                    continue  # the port's local definition is in the file
                yield from self._labeled(ctx, view, i, targets, labeled_fix)
                labeled_fix = False
                continue
            if name == "block_tile_memory":
                fix = _drop_block_tile_memory(ctx, view, i)
                if fix is not None:
                    yield self.finding(ctx, toks[i][1], toks[i][2],
                                       "HIP has no cooperative_groups::block_tile_memory: its tiles (one wavefront at "
                                       "most) need no scratch; the port drops it and this_thread_block()'s argument",
                                       {t.name: Verdict.AUTOMATIC for t in targets}, fix=fix,
                                       effort=Effort(lines=1, constructs=1, hours=0.0))
                    continue
            if name in _LOCAL and local_targets:
                block = _LOCAL[name]
                if local_covered[block]:
                    continue
                yield from self._local(ctx, view, i, targets, local_targets, block, local_pending[block])
                local_pending[block] = False
                continue
            if name in MISSING:
                advice = f": {ADVICE[name]}" if name in ADVICE else ""
                yield self._finding(ctx, toks[i][1], toks[i][2], f"HIP has no {MISSING[name]}{advice}", targets)
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
                    f"{name} of {size} threads: HIP's tiles are at most one wavefront ({HIP_MAX_TILE} threads): "
                    f"{ADVICE['tile']}",
                    targets)
            elif size is None:
                yield from self._named_tile(ctx, view, i, targets)
                yield from self._runtime_tile(ctx, view, i, targets)
        if view.ident_indices((_NAMESPACE, *_TILES, "coalesced_threads", "coalesced_group")):  # groups in use
            yield from self._shuffles(ctx, view, targets)
        if view.ident_indices(tuple(_MAKERS) + tuple(_MAKERS.values())):
            yield from self._members(ctx, view, names, using, targets)

    # A size named as the warp's width (WARP_SIZE, warp_size, kWarpSize) is CUDA's 32 lanes, or 64 on a project's
    # own HIP path: never over a wavefront (lightseq a7ab0da defines WARP_SIZE 32 in a header reached through -I,
    # which vado does not read: twelve "could not read" findings said nothing true).
    def _named_tile(self, ctx: FileContext, view, i: int, targets) -> Iterable[Finding]:
        """A tile whose size is a name (``tiled_partition<TILE>``): reported where a value the file gives it is over
        64 threads, or where the size cannot be read and the tile is made here (``tiled_partition``; a
        ``thread_block_tile<N>`` parameter takes the size of a tile made elsewhere)."""
        toks = view.tokens
        sizes = tile_sizes(view, i, ctx)
        if sizes is None:
            return
        name = toks[i][3]
        wide = sorted(v for v in sizes.values if v > HIP_MAX_TILE)
        if wide:
            yield self._finding(
                ctx, toks[i][1], toks[i][2],
                f"{name}<{sizes.name}> of {', '.join(map(str, wide))} threads ({sizes.source}): HIP's tiles are at "
                f"most one wavefront ({HIP_MAX_TILE} threads) and a larger one does not compile: {ADVICE['tile']}",
                targets)
        elif sizes.unresolved and name == "tiled_partition" and not _WARP_WIDTH_NAME.search(sizes.name):
            yield self._finding(
                ctx, toks[i][1], toks[i][2],
                f"tiled_partition<{sizes.name}>: vado could not read the size ({sizes.why}); HIP's tiles are at most "
                f"one wavefront ({HIP_MAX_TILE} threads) and a larger one does not compile: check it is at most "
                f"{HIP_MAX_TILE}, else {ADVICE['tile']}",
                targets)

    def _runtime_tile(self, ctx: FileContext, view, i: int, targets) -> Iterable[Finding]:
        """``tiled_partition(g, n)`` whose ``n`` is not a constant the file gives (:data:`_RUNTIME_TILE`): a note,
        not work. A size named ``warpSize`` is the WARP rules' (32 under warp32 emulation, 64 natively)."""
        toks = view.tokens
        if toks[i][3] != "tiled_partition" or i + 1 >= len(toks) or toks[i + 1][3] != "(":
            return
        close = view.pairs.get(i + 1)
        if close is None:
            return
        args = _tile_args(toks, i + 1, close)
        if len(args) != 2 or not args[1]:
            return
        arg = [a for a in args[1] if a[3] not in ("(", ")")]
        if _tile_literal(args[1]) is not None or (len(arg) == 1 and arg[0][3] == "warpSize"):
            return  # a literal: judged by its value above; warpSize: the WARP rules'
        expr = " ".join(ctx.text[args[1][0][1]:args[1][-1][2]].split())
        head = f"tiled_partition(…, {expr}): a tile size known at run time"
        if len(arg) == 1 and arg[0][0] is Kind.IDENT:
            values = _tile_named_values(view, ctx, arg[0][3])
            if values and all(0 < v <= CUDA_RUNTIME_TILE and v & (v - 1) == 0 for v in values):
                return  # a constant the file gives, a tile CUDA and HIP make alike
            if values:
                head = (f"tiled_partition(…, {expr}) of {', '.join(map(str, sorted(values)))} threads, a size CUDA's "
                        "run-time tiles abort on")
        yield self.finding(ctx, toks[i][1], toks[i][2], f"{head}. {_RUNTIME_TILE}",
                           {t.name: Verdict.MOVES_AS_IS for t in targets}, severity=Severity.LOW,
                           effort=Effort(lines=1, constructs=1, hours=0.0), data={"tile_size": expr})

    def _shuffles(self, ctx: FileContext, view, targets) -> Iterable[Finding]:
        """A group's shuffle of a value whose declared type is a vector type or a struct (see the class)."""
        toks, pairs = view.tokens, view.pairs
        for i in view.ident_indices(_SHUFFLES):
            if not (0 < i < len(toks) - 2 and toks[i - 1][3] in (".", "->") and toks[i + 1][3] == "("):
                continue
            close = pairs.get(i + 1)
            if close is None:
                continue
            end = next((k for k in range(i + 2, close) if toks[k][3] == ","), close)
            kind = _value_type(view, i + 2, end)
            if kind is None:
                continue
            name = toks[i][3]
            group = toks[i - 2] if i >= 2 and toks[i - 1][3] == "." and toks[i - 2][0] is Kind.IDENT else None
            if group is None or (i >= 3 and toks[i - 3][3] in (".", "->", "::")):
                yield self._finding(
                    ctx, toks[i][1], toks[i][2],
                    f"{name} of a {kind}: HIP's group shuffles take the scalar types __shfl has "
                    f"(shuffle each scalar member instead)", targets)
                continue
            # g.shfl_xor(v, m) → vado_cg_shfl_xor(g, v, m): the value moved 32 bits at a time through g's own
            # shuffle of an unsigned int, as CUDA's group shuffle moves it (vado.port.compat.cg_shuffle).
            helper = f"vado_cg_{name}"
            fix = Fix((Edit(ctx.path, group[1], toks[i + 1][2], f"{helper}({group[3]}, "),), Applicability.SAFE,
                      f"{group[3]}.{name}(…) of a {kind} → {helper}({group[3]}, …): 32 bits at a time, as CUDA does",
                      ("cg", "cg-shuffle"))
            yield self.finding(ctx, toks[i][1], toks[i][2],
                               f"{name} of a {kind}: HIP's group shuffles take the scalar types __shfl has; "
                               f"the port moves it 32 bits at a time through {helper}",
                               {t.name: Verdict.AUTOMATIC for t in targets}, fix=fix,
                               effort=Effort(lines=1, constructs=1, hours=0.0))

    def _members(self, ctx: FileContext, view, names: set[str], using: bool, targets) -> Iterable[Finding]:
        """``g.block_rank()`` and the other members CUDA's ``grid_group``/``thread_block`` have and HIP's lack
        (:data:`vado.port.compat.cg_members.CG_MEMBER_HELPERS`): ``vado_cg_block_rank(g)`` where ``g`` is known
        to be such a group (``cg::this_grid()``, a name declared ``grid_group`` or ``auto g = cg::this_grid()``);
        a finding without a fix where the receiver's type is not found in a file that makes such groups."""
        from vado.port.compat.cg_members import CG_MEMBER_HELPERS

        toks = view.tokens
        members = {m for kind in CG_MEMBER_HELPERS.values() for m in kind} | {"group_dim"}
        clusters = bool(view.ident_indices(("this_cluster", "cluster_group")))
        for i in view.ident_indices(tuple(members)):
            if not (1 < i < len(toks) - 2 and toks[i - 1][3] == "." and toks[i + 1][3] == "(" and toks[i + 2][3] == ")"):
                continue
            name = toks[i][3]
            start, kind = _receiver(view, i - 2, names, using)
            if kind == "":
                continue  # a name declared as another type
            if kind is None:
                if start is not None and not clusters and name not in ("thread_index", "group_dim"):
                    recv = toks[start][3]
                    yield self._finding(ctx, toks[i][1], toks[i][2],
                                        f"{recv}.{name}(): if {recv} is a cooperative-groups grid_group or thread_block, "
                                        f"HIP's has no {name} (compute it from blockIdx/gridDim/blockDim)", targets)
                continue
            helper = CG_MEMBER_HELPERS[kind].get(name)
            what = f"HIP's {kind} has no {name}"
            if name == "group_dim" and kind == "thread_block" and _declared_const(view, toks[i - 2], i - 2):
                # HIP's thread_block::group_dim() is not a const member (CUDA's is static): "'this' argument to
                # member function 'group_dim' has type 'const cg::thread_block'" (ROCm 7.2.4); it is blockDim
                helper, what = CG_MEMBER_HELPERS["thread_block"]["dim_threads"], "HIP's thread_block::group_dim is not const"
            if helper is None:
                continue
            recv_text = view.text[toks[start][1]:toks[i - 2][2]]
            fix = Fix((Edit(ctx.path, toks[start][1], toks[i + 1][2], f"{helper}({recv_text}"),), Applicability.SAFE,
                      f"{recv_text}.{name}() → {helper}({recv_text}): what CUDA's {kind}::{name} returns",
                      ("cg", "cg-members"))
            yield self.finding(ctx, toks[i][1], toks[i][2],
                               f"{what}; the port computes it from the built-in indices ({helper})", {t.name: Verdict.AUTOMATIC for t in targets}, fix=fix,
                               effort=Effort(lines=1, constructs=1, hours=0.0))

    def _scan_header(self, ctx: FileContext, start: int, end: int, targets, local_targets) -> Iterable[Finding]:
        """``#include <cooperative_groups/scan.h>`` in a file that uses the scans: the port's local scans in its place."""
        from vado.port.compat.cg_collectives import CG_SCAN

        old = tuple(t for t in targets if t not in local_targets)
        if old:
            yield self._finding(ctx, start, end, "HIP ships no <cooperative_groups/scan.h> (cooperative_groups::"
                                f"inclusive_scan / exclusive_scan; {', '.join(t.name for t in old)})", old)
        fix = Fix((Edit(ctx.path, start, end, CG_SCAN.rstrip("\n")),), Applicability.SAFE,
                  "#include <cooperative_groups/scan.h> → local cooperative_groups::inclusive_scan / exclusive_scan",
                  ("cg", "cg-scan"))
        yield self.finding(ctx, start, end, "HIP ships no <cooperative_groups/scan.h>; the port writes "
                           "cooperative_groups::inclusive_scan and exclusive_scan over tiles and coalesced groups",
                           {t.name: Verdict.AUTOMATIC for t in local_targets}, fix=fix,
                           effort=Effort(lines=1, constructs=1, hours=0.0))

    def _local(self, ctx: FileContext, view, i: int, targets, local_targets, block: str,
               with_fix: bool) -> Iterable[Finding]:
        """A scan or ``invoke_one`` at token ``i`` (no ``scan.h`` include to replace): the block before its
        top-level construct, on the first use of the file."""
        from vado.port.compat.cg_collectives import CG_INVOKE_ONE, CG_SCAN
        from vado.port.compat.placement import insertion_offsets, line_start_insert

        toks = view.tokens
        name = toks[i][3]
        old = tuple(t for t in targets if t not in local_targets)
        if old:
            yield self._finding(ctx, toks[i][1], toks[i][2], f"HIP has no {MISSING[name]} "
                                f"({', '.join(t.name for t in old)})", old)
        fix = None
        if with_fix:
            at = insertion_offsets(view.text, toks, [i])[0]
            text = CG_SCAN if block == "scan" else CG_INVOKE_ONE
            fix = Fix((line_start_insert(ctx.path, ctx.text, at, text),), Applicability.SAFE,
                      f"a local {MISSING[name]} (CUDA's own algorithm over HIP's group shuffles)", ("cg", f"cg-{block}"))
        yield self.finding(ctx, toks[i][1], toks[i][2], f"HIP has no {MISSING[name]}; the port writes one",
                           {t.name: Verdict.AUTOMATIC for t in local_targets}, fix=fix,
                           effort=Effort(lines=1, constructs=1, hours=0.0))

    def _labeled(self, ctx: FileContext, view, i: int, targets, with_fix: bool) -> Iterable[Finding]:
        """``labeled_partition`` at token ``i``: a local definition where the target's HIP has ``binary_partition``."""
        toks = view.tokens
        since = MISSING_BEFORE["binary_partition"][0]
        new = tuple(t for t in targets if cs.hip_at_least(t, since))
        old = tuple(t for t in targets if t not in new)
        if old:
            yield self._finding(ctx, toks[i][1], toks[i][2], f"HIP has no {MISSING['labeled_partition']}; before {since} "
                                f"no binary_partition to write it with ({', '.join(t.name for t in old)})", old)
        if not new:
            return
        fix = None
        if with_fix:
            from vado.port.compat.placement import insertion_offsets, line_start_insert

            at = insertion_offsets(view.text, toks, [i])[0]
            fix = Fix((line_start_insert(ctx.path, ctx.text, at, LABELED_PARTITION),), Applicability.SAFE,
                      "a local cooperative_groups::labeled_partition (binary_partition on each bit of the label)",
                      ("cg", "cg-labeled-partition"))
        yield self.finding(ctx, toks[i][1], toks[i][2],
                           f"HIP has no {MISSING['labeled_partition']}; the port writes one: the group split on each "
                           f"bit of the label", {t.name: Verdict.AUTOMATIC for t in new}, fix=fix,
                           effort=Effort(lines=1, constructs=1, hours=0.0))

    def _unused_header(self, ctx: FileContext, start: int, end: int, header: str, what: str, targets) -> Finding:
        """An ``#include`` of a header HIP lacks whose names the file does not use: the port drops it."""
        fix = Fix((Edit(ctx.path, start, end, f"// vado: HIP ships no <{header}>; this file uses none of it"),),
                  Applicability.SAFE, f"drop #include <{header}> (HIP has none; nothing of it is used)",
                  ("cg", "cg-unused-header"))
        return self.finding(ctx, start, end,
                            f"HIP ships no <{header}> ({what}); this file uses none of it, so the port drops the "
                            f"#include", {t.name: Verdict.AUTOMATIC for t in targets}, fix=fix,
                            effort=Effort(lines=1, constructs=1, hours=0.0))

    def _finding(self, ctx: FileContext, start: int, end: int, message: str, targets) -> Finding:
        return self.finding(ctx, start, end, message, {t.name: Verdict.MANUAL for t in targets},
                            effort=Effort(lines=1, constructs=1, hours=1.0))


def _structs(view) -> dict[str, tuple[int, int]]:
    """``struct``/``class`` definitions of the file: name → the token range of the body."""
    toks, out = view.tokens, {}
    for i in view.ident_indices(("struct", "class")):
        if i + 2 < len(toks) and toks[i + 1][0] is Kind.IDENT:
            k = i + 2
            if toks[k][3] == ":":  # struct S : Base {
                while k < len(toks) and toks[k][3] not in ("{", ";"):
                    k += 1
            if k < len(toks) and toks[k][3] == "{" and k in view.pairs:
                out.setdefault(toks[i + 1][3], (k, view.pairs[k]))
    return out


def _declared_type(view, name: str, lo: int, hi: int) -> str | None:
    """The type name of the last declaration of ``name`` among tokens ``lo``..``hi`` (``uint4 v``, ``const
    S &s``, ``uint4 x, y``); None where none is found or it declares a pointer."""
    toks = view.tokens
    for j in reversed([j for j in view.ident_indices((name,)) if lo <= j < hi]):
        k = j - 1
        while k - 1 > lo and toks[k][3] == "," and toks[k - 1][0] is Kind.IDENT:  # uint4 x, y: y's type is x's
            k -= 2
        while k > lo and toks[k][3] in _DECL_SKIP:
            k -= 1
        if k <= lo or toks[k][0] is not Kind.IDENT or toks[k][3] in ("return", "case", "else", "do"):
            continue
        if toks[k - 1][3] in (".", "->"):
            continue
        return toks[k][3]
    return None


def _value_type(view, a: int, b: int) -> str | None:
    """What a shuffle's value (tokens ``a``..``b``) is when it is one HIP's shuffles do not take: ``uint4``
    (a vector type) or ``struct S``; None for anything else or where its declaration is not found."""
    toks = view.tokens
    shape = [t[3] for t in toks[a:b]]
    if len(shape) == 1 and toks[a][0] is Kind.IDENT:
        kind = _declared_type(view, shape[0], 0, a)
    elif len(shape) == 3 and shape[1] in (".", "->") and toks[a][0] is Kind.IDENT and toks[a + 2][0] is Kind.IDENT:
        base = _declared_type(view, shape[0], 0, a)
        body = _structs(view).get(base or "")
        kind = _declared_type(view, shape[2], body[0], body[1]) if body else None
    else:
        return None
    if kind is None:
        return None
    if _VECTOR_TYPE.fullmatch(kind):
        return kind
    return f"struct {kind}" if kind in _structs(view) else None


def _receiver(view, last: int, names: set[str], using: bool) -> tuple[int | None, str | None]:
    """The receiver of a member call whose ``.`` follows token ``last``: (its first token, what it is). What it
    is: a group kind of :data:`_MAKERS` (``cg::this_grid()``, a name declared ``cg::grid_group`` or ``auto g =
    cg::this_grid()``), ``""`` for a name declared as something else, None where no declaration is found. The
    first token is None for an expression other than those."""
    toks, pairs = view.tokens, view.pairs
    if toks[last][3] == ")":
        opened = pairs.get(last)  # the call's "(" (the map holds both directions)
        if opened is None or opened < 1 or toks[opened + 1][3] != ")" or toks[opened - 1][3] not in _MAKERS:
            return None, None
        maker = opened - 1
        q = _qualifier(toks, maker)
        if q is None or not (q in names or (q == "" and using)):
            return None, None
        return (maker - 2 if q else maker), _MAKERS[toks[maker][3]]
    if toks[last][0] is not Kind.IDENT or (last > 0 and toks[last - 1][3] in (".", "->", "::")):
        return None, None
    name = toks[last][3]
    for j in reversed([j for j in view.ident_indices((name,)) if 2 <= j < last]):
        k = j - 1
        while k > 0 and toks[k][3] in _DECL_SKIP:
            k -= 1
        if toks[k][3] == "auto" and j + 2 < len(toks) and toks[j + 1][3] in ("=", "{", "("):
            m = j + 2
            if m + 2 < len(toks) and toks[m][0] is Kind.IDENT and toks[m + 1][3] == "::":
                if toks[m][3] not in names:
                    return last, None
                m += 2
            elif not using:
                return last, None
            if m + 1 < len(toks) and toks[m][3] in _MAKERS and toks[m + 1][3] == "(":
                return last, _MAKERS[toks[m][3]]
            return last, None  # auto g = f(): not read
        if toks[k][0] is not Kind.IDENT or toks[k][3] in ("return", "case", "else", "do", "typedef", "using",
                                                           "throw", "sizeof", "new", "delete", "co_return"):
            continue
        if toks[k - 1][3] in (".", "->"):
            continue  # a use, not a declaration (x.t g)
        if toks[k][3] in _MAKERS.values():
            if toks[k - 1][3] == "::" and toks[k - 2][3] not in names:
                return last, ""
            if toks[k - 1][3] != "::" and not using:
                return last, ""
            return last, toks[k][3]
        if _template_parameter(view, toks[k][3]):
            return last, None  # template <class Group> … Group const& g: may be a grid_group
        return last, ""  # declared as another type
    return last, None


def _drop_block_tile_memory(ctx: FileContext, view, i: int) -> Fix | None:
    """``__shared__ cg::block_tile_memory<…> btm;`` at token ``i`` and ``this_thread_block(btm)``: the declaration
    becomes a comment and the argument goes (HIP's ``this_thread_block()`` takes none; its tiles are at most one
    wavefront and use no scratch; CUDA needs it only for tiles over 32 threads before sm_80). None where the
    declaration has another shape, the name has another use, or a tile of its block has a size vado does not read
    as at most 64 threads (:func:`tile_sizes`; it may be over 64: the finding then stays as the stop)."""
    toks = view.tokens
    k = i + 1
    if k >= len(toks) or toks[k][3] != "<":
        return None
    depth = 0
    while k < len(toks):
        depth += {"<": 1, ">": -1, ">>": -2}.get(toks[k][3], 0)
        if depth <= 0:
            break
        k += 1
    if depth != 0 or k + 2 >= len(toks) or toks[k + 1][0] is not Kind.IDENT or toks[k + 2][3] != ";":
        return None
    name, end = toks[k + 1][3], toks[k + 2][2]
    start = i - 2 if i >= 2 and toks[i - 1][3] == "::" else i
    if start >= 1 and toks[start - 1][3] == "__shared__":
        start -= 1
    edits = [Edit(ctx.path, toks[start][1], end, "// vado: HIP's tiles (one wavefront at most) need no block_tile_memory")]
    depth, o = 0, start - 1  # the block holding the declaration: its uses are there (another kernel may reuse the name)
    while o >= 0 and not (toks[o][3] == "{" and depth == 0):
        depth += {"}": 1, "{": -1}.get(toks[o][3], 0)
        o -= 1
    close = view.pairs.get(o, len(toks)) if o >= 0 else len(toks)
    for j in view.ident_indices(tuple(_TILES)):
        # a tile whose size is known only at instantiation (cuda-samples reduction: tiled_partition<MultiWarpGroupSize>
        # of up to 512 threads): HIP's stop at 64, so the scratch's finding stays, without a fix
        if max(o, 0) < j < close and j + 2 < len(toks) and toks[j + 1][3] == "<" and toks[j + 2][0] is not Kind.NUMBER:
            sizes = tile_sizes(view, j, ctx)
            if sizes is None or sizes.unresolved or not sizes.values or max(sizes.values) > HIP_MAX_TILE:
                return None
    for j in view.ident_indices((name,)):
        if j == k + 1 or not k < j < close:
            continue
        if not (1 < j < len(toks) - 1 and toks[j - 1][3] == "(" and toks[j + 1][3] == ")"
                and toks[j - 2][3] == "this_thread_block"):
            return None
        edits.append(Edit(ctx.path, toks[j][1], toks[j][2], ""))
    return Fix(tuple(edits), Applicability.SAFE,
               f"drop block_tile_memory {name} and this_thread_block({name})'s argument", ("cg", "cg-block-tile-memory"))


def _declared_const(view, tok, last: int) -> bool:
    """Whether the name ``tok`` (token ``last``) was last declared ``const`` (``const cg::thread_block& b``,
    ``cg::thread_block const& b``)."""
    toks = view.tokens
    if tok[0] is not Kind.IDENT:
        return False
    for j in reversed([j for j in view.ident_indices((tok[3],)) if 2 <= j < last]):
        k = j - 1
        seen_const = False
        while k > 0 and toks[k][3] in _DECL_SKIP:
            seen_const = seen_const or toks[k][3] == "const"
            k -= 1
        if toks[k][3] != "thread_block":
            continue
        if toks[k - 1][3] == "::":
            k -= 2
        return seen_const or (k >= 1 and toks[k - 1][3] == "const")
    return False


def _template_parameter(view, name: str) -> bool:
    """Whether the file declares ``name`` as a template type parameter (``template <class Group>``)."""
    toks = view.tokens
    return any(i >= 2 and toks[i - 1][3] in ("class", "typename") and toks[i - 2][3] in ("<", ",")
               for i in view.ident_indices((name,)))
