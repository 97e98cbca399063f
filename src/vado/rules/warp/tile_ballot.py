"""WARP042: a cooperative-groups ``ballot`` whose 64-bit HIP type changes what the code computes.

CUDA's ``thread_block_tile<N>::ballot`` and ``coalesced_group::ballot`` return ``unsigned int``. HIP's (ROCm 7.2.4,
``amd_hip_cooperative_groups.h``) return ``unsigned long long``, packed by rank (``internal::helper::adjust_mask``):
bit ``i`` is the group's rank ``i``, so a tile of at most 32 threads (upper half of a wave64 included) fills bits
0..N-1 exactly as on CUDA and bits 32..63 are 0. The value is the same; the type is not. What reads the same bits
gives the same answer (``if (m)``, ``__ffs(m)``, ``__popc(m)``, ``unsigned m = g.ballot(p)``, ``m & lane_mask``);
what creates bits the value does not have differs: ``~m`` sets bits 32..63 (``~m == 0`` is never true,
``__popcll(~m)`` counts 32 more, ``(~m) >> k`` shifts ones into bit 31), ``m << k`` keeps bits CUDA drops, and
``m == -1`` / ``m == ~0`` compare with 64 ones (never true where CUDA's ``0xffffffff`` was).
"""

from __future__ import annotations

import re
from typing import Iterable

from vado.model import Applicability, Effort, Finding, Fix, Severity
from vado.rules import cuda_syntax as cs
from vado.rules.base import FileContext, Rule
from vado.rules.warp.common import _SYNC_MASKED, _WARP_NOTE
from vado.rules.warp.functions import _taken_by_amd
from vado.rules.warp.modes import wave_mode, wave_verdicts
from vado.scan.lexer import Kind

#: A 32-bit function or declaration that takes the value back to 32 bits, so bits 32..63 of ``~m`` drop as CUDA's
#: type drops them (``__ffs`` of a 64-bit value goes through vado's int helper: vado.port.compat.helpers).
_NARROWING_CALLS = frozenset({"__popc", "__ffs", "__brev", "__clz"})
_NARROW_DECL = frozenset({"unsigned", "unsigned int", "uint32_t", "uint", "int", "int32_t", "unsigned int const",
                          "const unsigned int", "const unsigned", "const uint32_t", "const int"})
#: Comparands that are 64 ones once converted to ``unsigned long long`` but 32 ones as CUDA's ``unsigned int``.
_ALL_ONES_SIGNED = ("-1", "~0", "~0l", "~0ll", "(-1)", "(~0)")
_MAX_TILE_EXACT = 32


def _tile_size(text: str, name: str) -> int | None:
    """The literal size of the tile ``name`` is declared as in this file (``thread_block_tile<16> name`` or
    ``name = …tiled_partition<16>(…)``), or None when it is not spelt with a literal here."""
    n = re.escape(name)
    for pat in (rf"thread_block_tile\s*<\s*(\d+)[^>;]*>\s*(?:const\s*)?&?\s*{n}\b",
                rf"\b{n}\s*=\s*(?:\w+\s*::\s*)*tiled_partition\s*<\s*(\d+)\s*>"):
        sizes = {int(m.group(1)) for m in re.finditer(pat, text)}
        if len(sizes) == 1:
            return sizes.pop()
    return None


def _own_class(text: str, scope: str, name: str) -> bool:
    """Whether ``name`` is declared in ``scope`` (the enclosing function) as an object of a struct/class ``text``
    defines (a voter of the project's own with a ``ballot`` member, not a cooperative group)."""
    n = re.escape(name)
    for m in re.finditer(rf"\b(\w+)\s*(?:const\s*)?[&*]?\s*{n}\s*[,)=;{{]", scope):
        if re.search(rf"\b(?:struct|class)\s+{re.escape(m.group(1))}\b[^;]*?{{", text):
            return True
    return False


def _coalesced(scope: str, name: str) -> bool:
    """Whether ``name`` is a coalesced group in ``scope``: declared ``coalesced_group name`` or initialised from
    ``coalesced_threads()``."""
    n = re.escape(name)
    return bool(re.search(rf"coalesced_group\s*(?:const\s*)?&?\s*{n}\b", scope)
                or re.search(rf"\b{n}\s*=\s*(?:\w+\s*::\s*)*coalesced_threads\s*\(", scope))


def _cast_to_32(toks, first: int, pairs) -> bool:
    """Whether the expression starting at ``first`` is cast to a 32-bit type (``(unsigned int)g.ballot(p)``,
    ``static_cast<unsigned>(g.ballot(p))``, ``uint32_t(g.ballot(p))``): CUDA's type again."""
    j = first - 1
    if j >= 0 and toks[j][3] == ")" and j in pairs:
        words = " ".join(t[3] for t in toks[pairs[j] + 1:j])
        return words in _NARROW_DECL
    if j >= 0 and toks[j][3] == "(" and j > 0:
        k = j - 1
        if toks[k][3] == ">" and k > 0:  # static_cast<unsigned int>(
            m = k - 1
            while m > 0 and toks[m][3] != "<":
                m -= 1
            return " ".join(t[3] for t in toks[m + 1:k]) in _NARROW_DECL and toks[m - 1][3] == "static_cast"
        return toks[k][3] in ("uint32_t", "unsigned")
    return False


def _group_name(toks, dot: int, pairs) -> tuple[int, str | None]:
    """For the ``.`` of ``g.ballot(``: (index of the object's first token, its name when it is one identifier)."""
    j = dot - 1
    if j >= 0 and toks[j][3] == ")" and j in pairs:  # the map holds close -> open as well
        k = pairs[j] - 1  # cg::tiled_partition<32>(block).ballot(p): the call's name and template arguments
        while k > 0 and (toks[k][0] in (Kind.IDENT, Kind.NUMBER) or toks[k][3] in ("::", "<", ">")):
            k -= 1
        return k + 1, None
    return j, toks[j][3] if j >= 0 and toks[j][0] is Kind.IDENT else None


def _lane_mask_use(toks, first: int, last: int, n: int, size: int | None) -> str | None:
    """Under ``--wave native``: the ballot value (``toks[first..last]``) given as the lane mask of a ``*_sync``
    function. HIP packs a tile's ballot by rank, so the upper tile<32> of a wave64 has its lanes 32-63 in bits
    0-31, which as a wave lane mask name lanes 0-31; on CUDA a whole warp's tile ranks are its lanes."""
    if size is not None and size < 32:
        return None  # rank-relative on CUDA as well: the same lanes on both
    if first > 1 and toks[first - 1][3] == "(" and toks[first - 2][3] in _SYNC_MASKED and last + 1 < n \
            and toks[last + 1][3] == ",":
        return (f"as the lane mask of {toks[first - 2][3]} it names wavefront lanes 0-31, where the upper 32-lane "
                f"tile's own lanes are 32-63 (HIP packs a group's ballot by rank)")
    return None


def _width_use(toks, first: int, last: int, n: int, size: int | None) -> str | None:
    """What, around the expression ``toks[first..last]`` (the 64-bit ballot value of a group of ``size`` threads,
    None when not known), makes its width show, or None.

    A tile of fewer than 32 threads leaves CUDA's bits N..31 of ``~m`` set as well, so ``~m == 0`` and ``if (~m)``
    answer the same on both (never / always); ``m << k`` with a literal ``k <= 32 - N`` loses no bit on CUDA."""
    before = toks[first - 1][3] if first > 0 else ""
    after = toks[last + 1][3] if last + 1 < n else ""
    small = size is not None and size < 32
    if before == "~" and small:
        outer = toks[first - 2][3] if first > 1 else ""
        zero = after in ("==", "!=") and last + 2 < n and toks[last + 2][0] is Kind.NUMBER and cs.int_value(
            toks[last + 2][3]) == 0 and (last + 3 >= n or toks[last + 3][3] in (")", ";", "&&", "||", "?", ","))
        truth = after in (")", "&&", "||", "?") and outer in ("(", "!", "&&", "||")
        if zero or truth:
            return None
    if before == "~":
        # ~m narrowed straight back to 32 bits: __popc(~m), unsigned x = ~m;
        outer = toks[first - 2][3] if first > 1 else ""
        closes = last + 1 < n and toks[last + 1][3] in (")", ";", ",")
        if outer == "(" and first > 2 and toks[first - 3][3] in _NARROWING_CALLS and after == ")":
            return None
        if outer == "=" and closes and after == ";":
            k, words = first - 4, []
            while k >= 0 and toks[k][0] is Kind.IDENT:
                words.insert(0, toks[k][3])
                k -= 1
            if " ".join(words) in _NARROW_DECL:
                return None
        return "`~` of it sets bits 32-63 (CUDA's `~` of the 32-bit mask leaves them out)"
    if after == "<<":
        k = toks[last + 2] if last + 2 < n else None
        if size is not None and k is not None and k[0] is Kind.NUMBER and cs.int_value(k[3]) is not None \
                and cs.int_value(k[3]) <= 32 - size:
            return None
        return "`<<` on it keeps the bits shifted past bit 31 that CUDA's 32-bit mask drops"
    if after in ("==", "!=") and last + 2 < n:
        j = last + 2
        lit = "".join(t[3] for t in toks[j:j + 3] if t[3] in ("-", "~", "(", ")") or t[0] is Kind.NUMBER)
        lit = lit.lower().rstrip("l") if lit else lit
        for cand in _ALL_ONES_SIGNED if not small else ():
            if lit.startswith(cand.rstrip("l")) and "u" not in lit and "x" not in lit:
                return f"`{after} {cand}` compares with 64 one bits (CUDA: 32), so it never holds for a full mask"
    return None


class TileBallotWidth(Rule):
    """A cooperative-groups ``ballot`` read as if it were CUDA's 32-bit ``unsigned int``.

    What it does
    ------------
    Finds ``g.ballot(p)`` of a ``thread_block_tile`` or ``coalesced_group``
    (in a file that uses cooperative groups), directly or held in an ``auto``
    variable of the same function, where its width changes the result:
    ``~`` of it (unless narrowed straight back: ``__popc(~m)``,
    ``unsigned x = ~m;``), ``<<`` on it, and ``== -1`` / ``== ~0``. Under
    ``--wave native`` also a tile<32>'s or coalesced group's ballot given
    as the lane mask of a ``*_sync`` function (ranks are not wavefront
    lanes for the upper tile), and a coalesced group's ballot stored in 32
    bits (the group may have 64 members there).

    Why is this bad?
    ----------------
    CUDA's ``ballot`` returns ``unsigned int``; HIP's (ROCm 7.2.4) returns
    ``unsigned long long`` packed by the group's rank (bit ``i`` = rank ``i``),
    so for a tile of at most 32 threads the bits are CUDA's and bits 32-63
    are 0. ``~m`` then sets bits 32-63 (``~m == 0``, ``if (~m)``,
    ``__popcll(~m)``, ``(~m) >> k`` change), ``m << k`` keeps bits CUDA
    drops, and ``m == -1`` compares with 64 ones. Reads of the same bits
    (``if (m)``, ``__ffs(m)``, ``__popc(m)``, ``m & x``,
    ``unsigned m = g.ballot(p)``) are not reported. For a tile of fewer than
    32 threads ``~m == 0`` / ``if (~m)`` and ``m << k`` with ``k <= 32 - N``
    answer as on CUDA and are not reported either.

    Example
    -------
    .. code-block:: cuda

        auto m = tile32.ballot(v > 0);
        bool none_failed = (~m == 0);

    Use instead
    -----------
    .. code-block:: cuda

        auto m = (unsigned int)tile32.ballot(v > 0);
        bool none_failed = (~m == 0);

    Fix safety
    ----------
    The cast to ``unsigned int`` is safe for a tile whose size this file
    spells as a literal of at most 32 (``thread_block_tile<16> t``,
    ``t = tiled_partition<32>(b)``): HIP puts its lanes in bits 0..N-1, so
    the cast keeps every bit and gives CUDA's type. A coalesced group or a
    tile of unknown size gets no fix: on a 64-lane wavefront (``--wave
    native``) a coalesced group may have more than 32 members, whose bits the
    cast would drop.

    References
    ----------
    - ROCm 7.2.4 ``amd_hip_cooperative_groups.h`` (``ballot`` returns ``unsigned long long`` via ``adjust_mask``): https://github.com/ROCm/rocm-systems/blob/develop/projects/hip/include/hip/amd_detail/amd_hip_cooperative_groups.h
    - CUDA cooperative groups ``ballot`` (``unsigned int``): https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#warp-vote-functions
    """

    code = "WARP042"
    triggers = frozenset({"ballot"})
    can_fix = True
    name = "tile-ballot-width"
    severity = Severity.MEDIUM
    file_kinds = cs.CUDA_CXX_KINDS

    def check(self, ctx: FileContext) -> Iterable[Finding]:
        text = ctx.text
        if "cooperative_groups" not in text and "coalesced_group" not in text and "thread_block_tile" not in text:
            return
        view = cs.device_view(ctx)
        toks = view.tokens
        n = len(toks)
        hits = view.ident_indices({"ballot"})
        if not hits:
            return
        pairs = view.pairs
        for i in hits:
            if i < 2 or toks[i - 1][3] not in (".", "->") or i + 1 >= n or toks[i + 1][3] != "(" or (i + 1) not in pairs:
                continue
            first, group = _group_name(toks, i - 1, pairs)
            if _cast_to_32(toks, first, pairs) or not _taken_by_amd(ctx, toks[i]):
                continue  # CUDA's type again; or a branch the AMD build does not compile (the project's own HIP path)
            func = view.function_at(toks[i][1])
            scope = text[func.start:func.body_end] if func is not None else text
            if group is not None and _own_class(text, scope, group):
                continue
            close = pairs[i + 1]
            size = _tile_size(text, group) if group else None
            if group is None and (lit := re.match(r"(?:\w+\s*::\s*)*tiled_partition\s*<\s*(\d+)\s*>",
                                                  text[toks[first][1]:toks[i][1]])):
                size = int(lit.group(1))  # cg::tiled_partition<32>(block).ballot(p)
            call_text = text[toks[first][1]:toks[close][2]]
            if group is not None and wave_mode(ctx) == "native" and _coalesced(scope, group):
                narrow = self._narrow_holder(toks, first, close, n)
                if narrow is not None:
                    msg = (f"`{call_text}` of a coalesced group stored in 32-bit `{narrow[0]}`: on a 64-lane wavefront "
                           f"(--wave native) HIP's coalesced group may have up to 64 members, and bits 32-63 "
                           f"(ranks 32-63) are dropped; keep it unsigned long long (then __popcll/__ffsll) or "
                           f"split the group to 32 lanes")
                    yield self.finding(ctx, toks[narrow[1]][1], toks[close][2], msg,
                                       wave_verdicts(ctx, fixable=False, covered=False), fix=None,
                                       effort=Effort(lines=1, constructs=1, hours=0.5),
                                       data={"call": "ballot", "group": group, **_WARP_NOTE})
            uses = []
            native = wave_mode(ctx) == "native"
            lane_mask = False  # a use as a *_sync lane mask, which no cast mends
            why = _width_use(toks, first, close, n, size)
            if why is None and native and (why := _lane_mask_use(toks, first, close, n, size)):
                lane_mask = True
            if why:
                uses.append((toks[first - 1][1] if toks[first - 1][3] == "~" else toks[first][1], toks[close][2], why))
            held = self._held_name(toks, first, close, n)
            if held is not None:
                end = func.body_end if func is not None else len(text)
                for j in range(close + 1, n):
                    t = toks[j]
                    if t[1] >= end:
                        break
                    if t[0] is not Kind.IDENT or t[3] != held or toks[j - 1][3] in (".", "->"):
                        continue
                    w = _width_use(toks, j, j, n, size)
                    if w is None and native and (w := _lane_mask_use(toks, j, j, n, size)):
                        lane_mask = True
                    if w:
                        s = toks[j - 1][1] if toks[j - 1][3] == "~" else t[1]
                        uses.append((s, t[2], f"{w}; `{held}` holds it"))
            if not uses:
                continue
            # The cast gives CUDA's type, and the port then no longer sees the call: not where a use needs more.
            fixable = size is not None and size <= _MAX_TILE_EXACT and not lane_mask
            for n_use, (start, stop, why) in enumerate(uses):
                fix = None
                if fixable and n_use == 0:  # one cast per call, however many uses show the width
                    cast = "(unsigned int)" + call_text
                    fix = Fix((ctx.edit(toks[first][1], toks[close][2], cast),), Applicability.SAFE,
                              f"cast to CUDA's unsigned int (HIP puts the {size} lanes in bits 0-{size - 1})", ("warp",))
                what = f"tile of {size}" if size is not None else "group"
                tail = ("" if fixable else "; build the mask from the wavefront's lanes by hand" if lane_mask
                        else "; cast the ballot to unsigned int where the group has at most 32 members")
                msg = (f"`{call_text}` is unsigned long long on HIP (unsigned int on CUDA), the {what}'s ranks in the "
                       f"low bits: {why}{tail}")
                verdicts = wave_verdicts(ctx, fixable=fixable, covered=False)
                yield self.finding(ctx, start, stop, msg, verdicts, fix=fix,
                                   effort=Effort(lines=1, constructs=1, hours=0.0 if fixable else 0.25),
                                   data={"call": "ballot", "group": group or "", **_WARP_NOTE})

    @staticmethod
    def _narrow_holder(toks, first: int, close: int, n: int) -> tuple[str, int] | None:
        """(``T NAME``, index of ``T``'s first token) of ``T NAME = g.ballot(p);`` with a 32-bit ``T``, else None."""
        if close + 1 >= n or toks[close + 1][3] != ";" or first < 3 or toks[first - 1][3] != "=":
            return None
        var = toks[first - 2]
        k, words = first - 3, []
        while k >= 0 and toks[k][0] is Kind.IDENT:
            words.insert(0, toks[k][3])
            k -= 1
        typ = " ".join(words)
        return (f"{typ} {var[3]}", k + 1) if var[0] is Kind.IDENT and typ in _NARROW_DECL else None

    @staticmethod
    def _held_name(toks, first: int, close: int, n: int) -> str | None:
        """``NAME`` of ``auto [const] NAME = g.ballot(p);`` (a 64-bit holder on HIP), else None."""
        if close + 1 >= n or toks[close + 1][3] != ";" or first < 3 or toks[first - 1][3] != "=":
            return None
        var = toks[first - 2]
        if var[0] is not Kind.IDENT:
            return None
        k, words = first - 3, []
        while k >= 0 and toks[k][0] is Kind.IDENT:
            words.append(toks[k][3])
            k -= 1
        return var[3] if "auto" in words or "decltype" in words else None
