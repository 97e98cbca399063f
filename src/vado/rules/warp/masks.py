"""WARP002, WARP003: 32-bit lane masks (``0xffffffff`` passed to ``*_sync`` intrinsics, ballots stored in
32 bits) and ``__popc``/``__ffs``/``__clz`` applied to a ballot or active-mask result.
"""

from __future__ import annotations

import re
from typing import Iterable

from vado.model import Applicability, Effort, Finding, Fix, Severity
from vado.rules import cuda_syntax as cs
from vado.rules.base import FileContext, Rule
from vado.rules.warp.common import (
    _BALLOTS,
    _NARROW_TYPES,
    _SYNC_MASKED,
    _WARP_NOTE,
    _is_full_mask,
    _is_narrow_literal,
    under_cuda_switch,
)
from vado.rules.warp.modes import emulated, port_target, uses_sync_builtins, wave_verdicts
from vado.scan.lexer import Kind

#: Data key of a finding whose code cuts a 64-bit lane mask to 32 bits (a ballot or active mask stored in 32 bits,
#: counted or searched with __popc/__ffs): right under warp32 emulation, wrong where code runs on 64-lane
#: wavefronts as written, which the project's own HIP path does (vado.audit.scope.judge_own_hip_path).
WAVE64_TRUNCATES = "wave64_truncates"
#: Data key of a finding whose lane arithmetic by 32 stands in a function whose AMD code works over the whole 64-lane
#: wavefront (a width-64 shuffle, ``% 64``, ``warpSize``, the file's 64-lane platform width): the two widths split the
#: wavefront differently (cuSZ d3cde38 histsp: a 64-lane scan, then ``threadIdx.x % 32 == 31`` adds lanes 31 and 63),
#: wrong where the code runs as written, which the project's own HIP path does.
WAVE64_MIXED = "wave64_mixed"
#: Data key of a 32-bit mask literal given to a HIP ``*_sync`` function that ROCm 7 declares with a static assertion
#: ("The mask must be a 64-bit integer"), where no macro of the file or of the project headers vado reads redirects the
#: call: right under warp32 emulation (the port calls vado's helpers), a compile error where the code is built as
#: written, which the project's own HIP path is (cuSZ d3cde38 lrz_c.cuhip.inl: ``__ballot_sync(0xffffffff, …)``).
MASK32_REJECTED = "mask32_rejected"
#: The HIP warp functions ROCm 7 declares with that assertion (amd_warp_sync_functions.h).
_ASSERTS_64BIT_MASK = _SYNC_MASKED - {"__uni_sync"}


class ThirtyTwoBitLaneMask(Rule):
    """32-bit lane masks: ``0xffffffff`` passed to ``*_sync`` intrinsics, ballots stored in 32 bits.

    What it does
    ------------
    Finds the full 32-lane mask (``0xffffffff``, ``0xFFFFFFFFu``, ``~0u``) as
    the mask argument of ``__shfl*_sync``, ``__ballot_sync``, ``__any_sync``,
    ``__all_sync``, ``__match_*_sync``, ``__reduce_*_sync`` and ``__syncwarp``,
    and the result of ``__ballot*``/``__activemask``/``__match_any_sync``
    stored in a 32-bit variable; also a partial 32-bit literal mask
    (``0x0000ffff``) passed to those intrinsics. ``0xffffffff`` elsewhere
    (hash constants, bit twiddling) is not reported.

    Why is this bad?
    ----------------
    HIP's lane masks are 64-bit: ``__ballot`` and ``__activemask`` return
    ``unsigned long long`` and the ``_sync`` functions take a 64-bit mask (HIP
    checks the mask type at compile time). A 32-bit mask names only lanes 0-31
    of a 64-lane wavefront, and a 32-bit ballot drops lanes 32-63.

    Example
    -------
    .. code-block:: cuda

        float v = __shfl_down_sync(0xffffffff, x, 1);
        unsigned m = __ballot_sync(0xffffffff, pred);

    Use instead
    -----------
    .. code-block:: cuda

        float v = __shfl_down_sync(0xffffffffffffffffull, x, 1);
        unsigned long long m = __ballot_sync(0xffffffffffffffffull, pred);

    Fix safety
    ----------
    The mask rewrite is safe: NVIDIA's 32-bit mask parameter truncates the
    64-bit all-ones value to the same ``0xffffffff``, and on AMD it names every
    lane of the wavefront, which is what a full mask meant. Widening a
    32-bit ballot variable to ``unsigned long long`` is unsafe: CUDA's 32-bit
    value zero-extends, but later uses may still treat the mask as 32 bits
    (``1u << lane``, comparisons with ``0xffffffff``); ``__popc``/``__ffs`` of
    it become ``__popcll``/``__ffsll`` by WARP003. A partial literal mask
    gets an unsafe ``ull`` suffix: the same lanes, but on a 64-lane wavefront
    lanes 32-63 stay out, which only the author can say is right.

    Wave mode: under ``vado port --wave warp32`` (the default) the program
    keeps CUDA's 32-lane warps (WARP009), so this pattern is right as it
    stands: ROCm targets get "moves as is" and no fix. The fix above is
    what ``--wave native`` applies.

    References
    ----------
    - HIP warp vote and ballot (64-bit masks): https://github.com/ROCm/HIP/blob/c5e11fcac8249ce4f7e70157588ff9661a870b59/docs/reference/kernel_language.rst
    - SCALE wave64 advice (use ``auto`` for masks): https://github.com/spectral-compute/scale-docs/blob/f20700f5f55e411fd0c0c1b03da5b896b5b6eae3/docs/manual/library/troubleshooting.md
    """

    code = "WARP002"
    triggers = _SYNC_MASKED | _BALLOTS
    can_fix = True
    name = "thirty-two-bit-lane-mask"
    severity = Severity.HIGH
    file_kinds = cs.CUDA_CXX_KINDS

    def check(self, ctx: FileContext) -> Iterable[Finding]:
        view = cs.device_view(ctx)
        toks = view.tokens
        n = len(toks)
        hits = view.ident_indices(_SYNC_MASKED | _BALLOTS)
        pairs = view.pairs if hits else {}
        for i in hits:
            tok = toks[i]
            name = tok[3]
            if name in _SYNC_MASKED and i + 1 < n and toks[i + 1][3] == "(" and (i + 1) in pairs:
                args = cs.split_args(toks, i + 1, pairs[i + 1])
                if not args:
                    continue
                a, b = args[0]
                piece = toks[a:b]
                full = (len(piece) == 1 and _is_full_mask(piece[0])) or (
                    len(piece) == 2 and piece[0][3] == "~" and piece[1][0] is Kind.NUMBER and cs.int_value(piece[1][3]) == 0
                    and "l" not in piece[1][3].lower())
                rejected = {MASK32_REJECTED: True} if (full or (len(piece) == 1 and _is_narrow_literal(piece[0]))) \
                    and _rejects_mask32(ctx, view, name) and not under_cuda_switch(view, tok[1]) else {}
                if full:
                    start, end = piece[0][1], piece[-1][2]
                    fix = Fix((ctx.edit(start, end, "0xffffffffffffffffull"),), Applicability.SAFE,
                              "use a 64-bit full lane mask", ("warp",))
                    covered = emulated(ctx, name)
                    verdicts = wave_verdicts(ctx, fixable=True, covered=covered)
                    fix = None if covered else fix
                    yield self.finding(ctx, start, end, f"32-bit full mask `{ctx.text[start:end]}` passed to {name}; HIP masks are 64-bit",
                                       verdicts, fix=fix, effort=Effort(lines=1, constructs=1),
                                       data={"call": name, **rejected, **_WARP_NOTE})
                elif len(piece) == 1 and _is_narrow_literal(piece[0]):
                    # A partial 32-bit mask (0x0000ffff): HIP's *_sync functions reject a
                    # 32-bit mask type; the ull suffix keeps the same lanes, but which
                    # lanes a 64-lane wavefront should include is the author's call.
                    start, end = piece[0][1], piece[0][2]
                    lit = piece[0][3].rstrip("uUlL")
                    fix = Fix((ctx.edit(start, end, lit + "ull"),), Applicability.UNSAFE,
                              "make the mask 64-bit (same lanes; lanes 32-63 of a wave64 stay out)", ("warp",))
                    covered = emulated(ctx, name)
                    verdicts = wave_verdicts(ctx, fixable=False, covered=covered)
                    fix = None if covered else fix
                    yield self.finding(ctx, start, end,
                                       f"partial 32-bit mask `{piece[0][3]}` passed to {name}; HIP masks are 64-bit and a wavefront may have 64 lanes",
                                       verdicts, fix=fix, effort=Effort(lines=1, constructs=1, hours=0.25),
                                       data={"call": name, **rejected, **_WARP_NOTE})
            if name in _BALLOTS and i + 1 < n and toks[i + 1][3] == "(" and i >= 2 and toks[i - 1][3] == "=":
                var = toks[i - 2]
                if var[0] is not Kind.IDENT:
                    continue
                k = i - 3
                type_tokens = []
                while k >= 0 and toks[k][0] is Kind.IDENT and toks[k][3] not in ("return",):
                    type_tokens.insert(0, toks[k])
                    k -= 1
                type_text = " ".join(t[3] for t in type_tokens if t[3] not in ("const", "volatile", "static", "register"))
                if type_text not in _NARROW_TYPES:
                    continue
                core = [t for t in type_tokens if t[3] not in ("const", "volatile", "static", "register")]
                fix = Fix((ctx.edit(core[0][1], core[-1][2], "unsigned long long"),), Applicability.UNSAFE,
                          "declare the mask unsigned long long (HIP's ballot type; CUDA's 32-bit value zero-extends)", ("warp",))
                covered = emulated(ctx, name)
                verdicts = wave_verdicts(ctx, fixable=False, covered=covered)
                fix = None if covered else fix
                yield self.finding(ctx, core[0][1], var[2], f"result of {name} stored in 32-bit `{type_text} {var[3]}`; HIP returns 64-bit masks",
                                   verdicts, fix=fix, effort=Effort(lines=1, constructs=1, hours=0.25),
                                   data={"call": name, WAVE64_TRUNCATES: True, **_WARP_NOTE})


def _rejects_mask32(ctx: FileContext, view, name: str) -> bool:
    """Whether the port target's HIP declares ``name`` with the 64-bit mask assertion (ROCm 7: its ``*_sync``
    functions are on by default) and neither this file nor a project header it includes (read within the tree)
    defines ``name`` as a macro (ggml's ``vendors/hip.h``: ``#define __shfl_xor_sync(mask, var, laneMask, width)
    __shfl_xor(var, laneMask, width)``)."""
    target = port_target(ctx)
    if name not in _ASSERTS_64BIT_MASK or target is None or not uses_sync_builtins(target):
        return False
    cache = getattr(view, "_vado_mask32_redirects", None)
    if cache is None:
        cache = view._vado_mask32_redirects = {}
    if name in cache:
        return cache[name]
    pattern = re.compile(rf"^[ \t]*#[ \t]*define[ \t]+{re.escape(name)}\b", re.M)
    redirected = bool(pattern.search(ctx.text))
    root = (ctx.options or {}).get("source_root")
    if not redirected and root:
        from vado.scan.project_headers import project_headers, quoted_includes

        quoted = quoted_includes(ctx.text)
        if quoted:
            redirected = any(pattern.search(text) for _, text in
                             project_headers(str(root)).headers_defining(ctx.path, quoted, {name}))
    cache[name] = not redirected
    return not redirected


class BitCountOfLaneMask(Rule):
    """``__popc``/``__ffs``/``__clz`` applied to a ballot or active-mask result.

    What it does
    ------------
    Finds ``__popc(__ballot_sync(...))``, ``__ffs(__activemask())``,
    ``__clz(__ballot(...))`` and the like: 32-bit bit-count functions applied
    to a lane mask, directly or through a variable of the same function that
    was initialised from one (``unsigned m = __ballot_sync(...); __popc(m)``).

    Why is this bad?
    ----------------
    On HIP a lane mask is 64-bit; the 32-bit functions truncate it and ignore
    lanes 32-63 of a wave64 wavefront.

    Example
    -------
    .. code-block:: cuda

        int votes = __popc(__ballot_sync(mask, pred));

    Use instead
    -----------
    .. code-block:: cuda

        int votes = __popcll(__ballot_sync(mask, pred));

    Fix safety
    ----------
    ``__popc`` → ``__popcll`` and ``__ffs`` → ``__ffsll`` are safe: on CUDA the
    32-bit mask is zero-extended, so the 64-bit function returns the same value;
    on HIP it counts all lanes. Through a variable the fix is safe when the
    variable is unsigned or 64-bit (a signed ``int`` would sign-extend, so it
    gets no fix). ``__clz`` has no fix (``__clzll`` of a
    zero-extended 32-bit value differs by 32): rewrite by hand.

    Wave mode: under ``vado port --wave warp32`` (the default) the program
    keeps CUDA's 32-lane warps (WARP009), so this pattern is right as it
    stands: ROCm targets get "moves as is" and no fix. The fix above is
    what ``--wave native`` applies.

    References
    ----------
    - HIP integer intrinsics and ballot: https://github.com/ROCm/HIP/blob/c5e11fcac8249ce4f7e70157588ff9661a870b59/docs/reference/kernel_language.rst
    """

    code = "WARP003"
    triggers = frozenset({"__popc", "__ffs", "__clz"})
    can_fix = True
    name = "bit-count-of-lane-mask"
    severity = Severity.HIGH
    file_kinds = cs.CUDA_CXX_KINDS

    _FIX = {"__popc": "__popcll", "__ffs": "__ffsll"}

    def check(self, ctx: FileContext) -> Iterable[Finding]:
        view = cs.device_view(ctx)
        toks = view.tokens
        n = len(toks)
        hits = view.ident_indices(self.triggers)
        pairs = view.pairs if hits else {}
        for i in hits:
            tok = toks[i]
            if i + 2 >= n or toks[i + 1][3] != "(" or (i + 1) not in pairs:
                continue
            inner = toks[i + 2]
            if inner[0] is not Kind.IDENT or i + 3 >= n:
                continue
            held = None
            if inner[3] in _BALLOTS and toks[i + 3][3] == "(":
                pass
            elif toks[i + 3][3] == ")" and (held := _held_mask(view, inner)) is not None:
                pass
            else:
                continue
            # A signed 32-bit variable sign-extends into __popcll: only unsigned or 64-bit holders are safe.
            fixable = tok[3] in self._FIX and (held is None or held[1])
            fix = None
            if fixable:
                fix = Fix((ctx.edit(tok[1], tok[2], self._FIX[tok[3]]),), Applicability.SAFE,
                          f"use {self._FIX[tok[3]]} on the 64-bit mask", ("warp",))
            covered = emulated(ctx, inner[3] if held is None else held[0])
            verdicts = wave_verdicts(ctx, fixable=fixable, covered=covered)
            fix = None if covered else fix
            end = toks[pairs[i + 1]][2]
            what = inner[3] if held is None else f"{held[0]} (held in `{inner[3]}`)"
            yield self.finding(ctx, tok[1], end, f"{tok[3]} truncates the 64-bit result of {what} on HIP",
                               verdicts, fix=fix, effort=Effort(lines=1, constructs=1, hours=0.0 if fixable else 0.25),
                               data={"call": tok[3], "mask": inner[3], WAVE64_TRUNCATES: True, **_WARP_NOTE})


_UNSIGNED_OR_WIDE = frozenset({"unsigned int", "unsigned", "uint32_t", "uint", "unsigned long", "unsigned long long",
                               "uint64_t", "unsigned long long int", "auto", "long long", "int64_t"})


def _held_mask(view: cs.DeviceView, use) -> tuple[str, bool] | None:
    """For an identifier token ``use``: ``(ballot call, unsigned_or_wide)`` when the same function declared it
    earlier as ``T name = __ballot...(...)``, else None."""
    func = view.function_at(use[1])
    if func is None:
        return None
    toks = view.tokens
    found = None
    for i in view.ident_indices(_BALLOTS):
        tok = toks[i]
        if not (func.body_start <= tok[1] < use[1]) or i < 3 or toks[i - 1][3] != "=" or toks[i - 2][3] != use[3]:
            continue
        if i + 1 >= len(toks) or toks[i + 1][3] != "(":
            continue
        k = i - 3
        words = []
        while k >= 0 and toks[k][0] is Kind.IDENT and toks[k][3] != "return":
            words.insert(0, toks[k][3])
            k -= 1
        words = [w for w in words if w not in ("const", "volatile", "static", "register")]
        if words:
            found = (tok[3], " ".join(words) in _UNSIGNED_OR_WIDE)
    return found
