"""WARP008, WARP009: the CUDA warp functions themselves: a ``*_sync`` warp function or ``__activemask``
on a HIP that predates them (HIP < 6.2), and a CUDA warp function or ``warpSize``, which acts on a 64-lane
wavefront on AMD CDNA.
"""

from __future__ import annotations

import bisect
import posixpath
import re
from typing import Iterable

from vado.model import Applicability, Effort, Finding, Fix, Severity, Verdict
from vado.rules import cuda_syntax as cs
from vado.rules.base import FileContext, Rule
from vado.rules.warp.common import (
    taken_by_amd as _taken_by_amd,
    _DECL_PREV, _EXEC_SPACES, _callee, _in_directive, _in_scopes, _own_warp_size_scopes, device_qualifier_macros,
    qualifier_words,
)
from vado.rules.warp.modes import (
    WARP32_CALLS,
    emulated,
    hip_branches,
    hip_regions,
    in_selector_amd_argument,
    port_target,
    warp32_helper,
    warp32_renames,
    wave_mode,
    wide_warps,
    unknown_switch,
)
from vado.rules.warp.own_hip import OWN_HIP_TAG, WIDTHLESS, WRONG_ON_WAVE64, own_hip_lanes
from vado.scan.lexer import Kind


#: CUDA warp functions with a member mask and the mask-less HIP function a HIP
#: without the ``*_sync`` builtins (before 6.2) has for each.
SYNC_LOWERING = {
    "__shfl_sync": "__shfl",
    "__shfl_up_sync": "__shfl_up",
    "__shfl_down_sync": "__shfl_down",
    "__shfl_xor_sync": "__shfl_xor",
    "__ballot_sync": "__ballot",
    "__any_sync": "__any",
    "__all_sync": "__all",
}
_SYNC_SHUFFLES = frozenset({"__shfl_sync", "__shfl_up_sync", "__shfl_down_sync", "__shfl_xor_sync"})
#: The names WARP008 lowers on a HIP without the ``*_sync`` builtins.
LOWERED_SYNC_NAMES = frozenset(SYNC_LOWERING) | {"__activemask"}
#: What HIP 6.2+ defines ``__activemask()`` as (``amd_warp_functions.h``): every active lane.
ACTIVEMASK_LOWERED = "__ballot(1)"
#: Mask names that conventionally mean "every lane" when their definition is not in the file.
FULL_MASK_NAMES = frozenset({"FULL_MASK", "FINAL_MASK"})
_ASSIGN_OPS = frozenset({"=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>="})
#: Calls a mask expression may contain without side effects.
_PURE_MASK_CALLS = frozenset({"__activemask", "__ballot", "__ballot_sync", "static_cast", "unsigned", "int", "long"})


def mask_side_effects(toks, a: int, b: int) -> bool:
    """Whether the mask tokens ``[a, b)`` may have side effects: an assignment, ``++``/``--``, an unknown call."""
    for k in range(a, b):
        t = toks[k]
        if t[0] is Kind.PUNCT and (t[3] in _ASSIGN_OPS or t[3] in ("++", "--")):
            return True
        if t[0] is Kind.IDENT and k + 1 < b and toks[k + 1][3] == "(" and t[3] not in _PURE_MASK_CALLS:
            return True
    return False


#: Calls that only read a mask argument (the warp functions themselves).
_MASK_READERS = frozenset(SYNC_LOWERING) | {"__match_any_sync", "__match_all_sync", "__syncwarp", "__popc", "__ffs",
                                             "vado_match_any_sync"}  # vado.port.compat's stand-in


def lacks_sync_builtins(target) -> bool:
    """Whether ``target`` is a HIP without the ``*_sync`` cross-lane builtins (before 6.2)."""
    return target.family == "rocm" and not target.features.get("warp_sync_builtins", True)


def _full_literal(piece) -> bool:
    """Whether tokens ``piece`` spell an all-lanes literal: ``0xffffffff`` (any suffix), the 64-bit one, ``~0``, ``-1``."""
    texts = [t[3] for t in piece]
    while len(texts) >= 2 and texts[0] == "(" and texts[-1] == ")":
        texts = texts[1:-1]
    if len(texts) == 1:
        value = cs.int_value(texts[0])
        return value in (0xFFFFFFFF, 0xFFFFFFFFFFFFFFFF)
    if len(texts) == 2 and texts[0] in ("~", "-"):
        value = cs.int_value(texts[1])
        return value == 0 if texts[0] == "~" else value == 1
    return False



def _device_outside_bodies(view: cs.DeviceView, toks, i: int, macro_device=None) -> bool:
    """Whether ``warpSize`` at token ``i``, outside every function body vado finds, is read by device code.

    Host code cannot read the device built-in, so outside the bodies it is a device function's default
    argument (a definition's or a prototype's: ``__device__ T sum(T v, int width = warpSize)``), a member's
    default initialiser (``int lanes = warpSize;``), or a device constructor's initialiser list or body
    (``__device__ Lanes() : n(warpSize) {}``, which :func:`cs.find_functions` does not find): each read where
    device code calls the function or builds the object (issue 26: bmf's warpReduceSum kept 64 there and
    doubled its sums). A host function's parameter list and ``offsetof(T, warpSize)`` are left alone."""
    at = toks[i][1]
    if view.function_at(at) is not None or _offsetof_member(toks, i):
        return False
    func = next((f for f in view.functions if f.name_end <= at < f.body_start), None)
    # A host function's default could not read the device built-in.
    return func is None or _device_function(view, toks, func, macro_device)


def _offsetof_member(toks, i: int) -> bool:
    """Whether ``warpSize`` at token ``i`` names a member in ``offsetof(cudaDeviceProp, warpSize)``."""
    if i < 2 or toks[i - 1][3] != "," or toks[i - 2][0] is not Kind.IDENT:
        return False
    k, depth = i - 2, 0
    while k > 0 and toks[k][3] not in (";", "{", "}"):
        depth += {")": 1, "(": -1}.get(toks[k][3], 0)
        if depth < 0:
            return toks[k - 1][3] in ("offsetof", "__builtin_offsetof")
        k -= 1
    return False


def _out_of_class_member(toks, func) -> bool:
    """Whether ``func`` is a member function defined outside its class (``int Cfg::lanes() const {``): a bare
    ``warpSize`` there may be a data member declared in a header vado did not read."""
    return func.name_index > 0 and toks[func.name_index - 1][3] == "::"


def _device_function(view: cs.DeviceView, toks, func, macro_device) -> bool:
    """Whether ``func`` runs on the device: CUDA's qualifiers, an extended ``__device__`` lambda (found as a
    function named so), a project macro among its qualifiers, or, for a member initialiser that
    :func:`cs.find_functions` takes for a function (``n(warpSize) {`` of ``__device__ Lanes() : n(warpSize)
    {}``), the constructor it belongs to."""
    if func.is_device or func.name == "__device__":
        return True
    owner = _initializer_owner_words(view, toks, func.name_index)
    if owner is not None:
        return not owner.isdisjoint(_EXEC_SPACES) or macro_device.any_device(owner)
    return macro_device(func)


def _initializer_owner_words(view: cs.DeviceView, toks, name_index: int) -> set[str] | None:
    """The words before the name of the constructor whose initialiser list holds the member initialiser
    at ``name_index`` (``: a(x), n(warpSize) {``), or None when the name does not follow ``:`` or ``,``."""
    pairs = view.pairs
    k = name_index - 1
    while k > 0 and toks[k][3] == ",":  # an earlier initialiser: NAME(...) or NAME{...}
        c = k - 1
        if toks[c][3] in (")", "}") and c in pairs:
            c = pairs[c] - 1
        k = c - 1
    if k <= 0 or toks[k][3] != ":" or toks[k - 1][3] != ")" or (k - 1) not in pairs:
        return None
    name = pairs[k - 1] - 1
    words, j = set(), name - 1
    while j >= 0 and toks[j][0] is not Kind.EOD and toks[j][3] not in (";", "{", "}", ":"):
        if toks[j][0] is Kind.IDENT:
            words.add(toks[j][3])
        j -= 1
    return words


def _global_scope(toks, i: int) -> bool:
    """Whether the ``::`` before token ``i`` names the global scope (``::__ballot_sync(…)``, ``x = ::__shfl(…)``),
    not a namespace, class or template (``cg::``, ``utils::``, ``X<T>::``)."""
    if i < 2:
        return True
    before = toks[i - 2]
    if before[0] is Kind.IDENT:
        return before[3] in _DECL_PREV
    return before[3] not in (">", ">>", ")")


def _unread_qualifiers(view: cs.DeviceView, func) -> tuple[str, ...]:
    """The macro-like words (``STDGPU_DEVICE_ONLY``) among the qualifiers of ``func`` (not device code to vado),
    in order: what vado could not resolve to ``__device__``; ``()`` outside functions."""
    if func is None:
        return ()
    toks, words, k = view.tokens, set(), func.name_index - 1
    while k >= 0 and toks[k][1] >= func.start and toks[k][3] not in (">", ">>"):
        if toks[k][0] is Kind.IDENT:  # back to the template header's '>': its parameters (D_SPLIT) are no qualifiers
            words.add(toks[k][3])
        k -= 1
    return tuple(w for w in sorted(words - _NOT_MACROS) if _MACRO_LIKE.match(w))


_MACRO_LIKE = re.compile(r"^[A-Z][A-Z0-9]*_[A-Z0-9_]*$|^[A-Z]{3,}$")


#: What only code written for AMD's wavefront spells: HIP's unsynchronised 64-lane votes, its lane id and the
#: wavefront's size (CUDA 9 and later have no __ballot/__any/__all; their _sync forms are WARP rules' business).
_AMD_WAVE_WORDS = frozenset({"__ballot", "__any", "__all", "__lane_id", "__AMDGCN_WAVEFRONT_SIZE",
                             "__AMDGCN_WAVEFRONT_SIZE__"})


def _reads_its_wavefront_on_amd(ctx: FileContext, view: cs.DeviceView, func) -> bool:
    """Whether ``func``'s body holds an ``#if`` group of the project's own AMD build (its condition names
    ``__HIP_PLATFORM_AMD__``, ``USE_ROCM`` …) whose branch the AMD build takes spells the wavefront itself
    (:data:`_AMD_WAVE_WORDS`, an ``__builtin_amdgcn_`` builtin). pytorch3d 9381c40's pulsar renderer counts its
    finished pixels there with HIP's 64-bit ``__ballot`` and ``__popcll`` under ``defined(__CUDACC__) &&
    defined(__HIP_PLATFORM_AMD__)`` (taken once PyTorch's hipify writes ``__HIPCC__``) and adds them from rank 0
    of a whole-wave coalesced group: split by half, each wave added its count twice (and the host build of the
    same header lost ``__lane_id``). A branch the AMD build does not take (plain hipcc there) is not the code
    that runs: the group stays CUDA's and is split."""
    toks = view.tokens
    for start, end, _cond in hip_regions(view):
        if end <= func.body_start or start >= func.body_end:
            continue
        a = bisect.bisect_left(view.token_starts, start)
        for k in range(a, len(toks)):
            tok = toks[k]
            if tok[1] >= end:
                break
            if (tok[0] is Kind.IDENT and (tok[3] in _AMD_WAVE_WORDS or tok[3].startswith("__builtin_amdgcn_"))
                    and _taken_by_amd(ctx, tok)):
                return True
    return False


def _in_amd_branch(ctx: FileContext, view: cs.DeviceView, tok) -> bool:
    """Whether ``tok`` lies in an ``#if``/``#elif`` branch whose own condition names the AMD build
    (:func:`hip_branches`; not the group's ``#else``) and the AMD build may take it."""
    return any(s <= tok[1] < e for s, e in hip_branches(view)) and _taken_by_amd(ctx, tok)


def _in_own_amd_code(ctx: FileContext, view: cs.DeviceView, tok) -> bool:
    """Whether ``tok`` lies in a branch of an ``#if`` group naming the AMD build (:func:`hip_regions`) that the
    AMD build takes: code the project wrote for HIP, where ``__ballot`` is HIP's 64-lane vote."""
    return any(s <= tok[1] < e for s, e, _c in hip_regions(view)) and _taken_by_amd(ctx, tok)


def _own_amd_32(ctx: FileContext, view: cs.DeviceView) -> dict[str, str]:
    """The warp-named macros (``WARP_SIZE``) this file's own AMD branch defines as a literal 32, with where
    (``common.h:4``): the project's HIP path sizes its warps at 32 lanes there (:func:`own_hip_lanes`)."""
    from vado.rules.warp.own_hip import warp_named

    out: dict[str, str] = {}
    for m in view.defines:
        if len(m.body) == 1 and cs.int_value(m.body[0][3]) == 32 and warp_named(m.name) \
                and _in_own_amd_code(ctx, view, m.body[0]):
            out.setdefault(m.name, f"{posixpath.basename(ctx.path)}:{view.text.count(chr(10), 0, m.name_start) + 1}")
    return out


def _calls_warp_functions(view: cs.DeviceView, func) -> bool:
    """Whether ``func``'s body calls a CUDA warp function (not a member's): device code whatever its qualifiers
    say to vado. stdgpu's ``STDGPU_DEVICE_ONLY`` is pasted from the backend's name (``STDGPU_HIP_DEVICE_ONLY``),
    which no reading of the macros resolves: its ``warp_convergent_execute`` kept ``lane = tid % warpSize`` 64
    while its ``__activemask()`` became the 32-lane helper, and lanes 32-63 never ran the body."""
    cached = getattr(view, "_vado_warp_calling", None)
    if cached is None:
        toks, cached = view.tokens, set()
        for k in view.ident_indices(frozenset(WARP32_CALLS)):
            if k + 1 < len(toks) and toks[k + 1][3] == "(" and not (
                    k > 0 and (toks[k - 1][3] in (".", "->", "::"))):
                f = view.function_at(toks[k][1])
                if f is not None:
                    cached.add(f.start)
        view._vado_warp_calling = cached
    return func.start in cached


#: The runtime's and the driver's warp size attributes, and the calls that query them.
#: HIP's spellings too: the port's later rounds and its open findings read the renamed text.
_WARP_SIZE_ATTRIBUTES = frozenset({"cudaDevAttrWarpSize", "CU_DEVICE_ATTRIBUTE_WARP_SIZE", "hipDeviceAttributeWarpSize"})
_ATTRIBUTE_CALLS = frozenset({"cudaDeviceGetAttribute", "cuDeviceGetAttribute", "hipDeviceGetAttribute"})


class _MacroQualified:
    """Whether a function is device code through a project macro among its qualifiers (``DEV float f()``
    with ``#define DEV __device__ __forceinline__``): :func:`device_qualifier_macros`, asked once per file
    for the words before the names of the functions it is asked about."""

    def __init__(self, ctx: FileContext, view: cs.DeviceView) -> None:
        self.ctx, self.view = ctx, view
        self.macros: frozenset[str] | None = None
        self.asked: set[str] = set()

    def __call__(self, func) -> bool:
        if func is None or func.is_device:
            return False
        return self.any_device(qualifier_words(self.view, func))

    def any_device(self, words: set[str]) -> bool:
        """Whether one of ``words`` is a device-qualifier macro."""
        words = words - _NOT_MACROS
        if self.macros is None or not words <= self.asked:
            # Every non-device function's words at once: the project headers are searched one time (again
            # only for words first seen later, a constructor's before its initialiser list).
            if self.macros is None:
                for f in self.view.functions:
                    if not f.is_device:
                        self.asked |= qualifier_words(self.view, f) - _NOT_MACROS
            self.asked |= words
            self.macros = device_qualifier_macros(self.ctx, self.view, self.asked)
        return not words.isdisjoint(self.macros)


#: Qualifier-position words that are never a project's macro.
_NOT_MACROS = frozenset({"static", "inline", "extern", "constexpr", "template", "typename", "class", "struct",
                         "const", "unsigned", "signed", "void", "int", "float", "double", "char", "long", "short",
                         "bool", "auto", "__host__", "__forceinline__", "__noinline__", "virtual"})


class WarpSyncIntrinsicWithoutSyncBuiltins(Rule):
    """A ``*_sync`` warp function or ``__activemask`` on a HIP that predates them (HIP < 6.2).

    What it does
    ------------
    On targets whose HIP has no ``*_sync`` cross-lane builtins (``hip-5.2``),
    finds ``__shfl_sync``, ``__shfl_up_sync``, ``__shfl_down_sync``,
    ``__shfl_xor_sync``, ``__ballot_sync``, ``__any_sync``, ``__all_sync`` and
    ``__activemask()`` calls, and lowers each to the HIP function that target
    has: the same call without the mask (``__shfl_down(v, d)``, ``__any(p)``),
    and ``__ballot(1)`` for ``__activemask()``.

    Why is this bad?
    ----------------
    HIP added the ``*_sync`` functions (with 64-bit masks) and ``__activemask``
    in 6.2; on an older HIP the names are undeclared and the file does not
    compile. The mask-less functions have been in HIP from the start.

    Example
    -------
    .. code-block:: cuda

        #define MASK 0xffffffff
        v += __shfl_down_sync(mask, v, 1);
        bool dup = __any_sync(MASK, p);
        int others = __any_sync(group_mask, p);

    Use instead
    -----------
    .. code-block:: cuda

        v += __shfl_down(v, 1);
        bool dup = __any(p);
        int others = (__ballot(p) & group_mask) != 0;   // by hand: the mask names a subset

    Fix safety
    ----------
    What HIP itself does is the yardstick. ROCm's own ``__shfl*_sync``
    (clr ``hipamd/include/hip/amd_detail/amd_warp_sync_functions.h``, ROCm
    6.2.0) runs ``__hip_check_mask``, a loop whose only effect is
    ``__hip_assert`` checks (each lane's mask is non-zero and equals the set
    of lanes calling with it; the asserts compile to nothing under
    ``NDEBUG``), and then returns ``__shfl(var, srcLane, width)``: the mask
    never changes the value. CUDA leaves the value undefined when the source
    lane is not taking part in the call, and otherwise the mask-less shuffle
    reads the same lane. So dropping a shuffle's mask, whatever it is, is as
    safe as ROCm's own ``__shfl_sync`` (unsafe only when the mask expression
    may have side effects, which the rewrite would drop). What the rewrite
    loses is the debug-build trap on a mask that does not match the calling
    lanes. ``__activemask()`` → ``__ballot(1)`` is safe: it is HIP 6.2's own
    definition (``amd_warp_functions.h``).

    The votes differ: ROCm computes ``__ballot_sync`` as ``__ballot(p) & mask``,
    ``__any_sync`` and ``__all_sync`` from that, so the mask decides which lanes
    are counted. Dropping it is safe only when the mask names every lane: a
    literal ``0xffffffff``/``~0``/``-1`` (or the 64-bit one), ``__activemask()``,
    a ``#define`` of the file whose body is one of those, or a variable of the
    same function initialised to one and never written again (``FULL_MASK``
    and ``FINAL_MASK`` count as full where their definition is not in the
    file, by convention). Any other mask gives an unsafe fix and a finding that
    stays: the mask-less vote counts every active lane, which differs when the
    mask names fewer lanes than are active (one group of a partitioned warp).
    ``(__ballot(p) & mask)`` is not offered: a 32-bit CUDA mask leaves lanes
    32-63 of a 64-lane wavefront out, and ROCm rejects 32-bit masks.

    Wave mode: this lowering is ``--wave native``'s. Under ``--wave warp32``
    (the default) WARP009 points these calls at ``vado_*32`` helpers written
    with the mask-less builtins, which keep CUDA's 32-lane warp (a lowered
    ``__any`` would vote over 64 lanes), and this rule reports nothing.

    References
    ----------
    - ROCm clr ``amd_warp_sync_functions.h`` (rocm-6.2.0): https://github.com/ROCm/clr/blob/34a5465f4dca206b122b628f52dd4f21bee2d8bd/hipamd/include/hip/amd_detail/amd_warp_sync_functions.h
    - ROCm clr ``amd_warp_functions.h`` (``__activemask``): https://github.com/ROCm/clr/blob/34a5465f4dca206b122b628f52dd4f21bee2d8bd/hipamd/include/hip/amd_detail/amd_warp_functions.h
    - CUDA warp shuffle functions (undefined result for a non-participating source lane): https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#warp-shuffle-functions
    """

    code = "WARP008"
    triggers = LOWERED_SYNC_NAMES
    can_fix = True
    name = "warp-sync-intrinsic-without-sync-builtins"
    severity = Severity.MEDIUM
    file_kinds = cs.CUDA_CXX_KINDS

    def check(self, ctx: FileContext) -> Iterable[Finding]:
        lacking = [t for t in ctx.targets if lacks_sync_builtins(t)]
        if not lacking:
            return
        view = cs.device_view(ctx)
        hits = view.ident_indices(LOWERED_SYNC_NAMES)
        if not hits:
            return
        toks, pairs = view.tokens, view.pairs
        n = len(toks)
        hip = lacking[0].hip_version
        for i in hits:
            tok = toks[i]
            if i + 1 >= n or toks[i + 1][3] != "(" or (i + 1) not in pairs:
                continue
            prev = toks[i - 1] if i > 0 else None
            if prev is not None and (prev[3] in (".", "->", "::") or prev[0] is Kind.DIRECTIVE or (
                    prev[0] is Kind.IDENT and prev[3] not in cs.EXPRESSION_WORDS)):
                continue  # a member, a macro being defined, or a declaration of a function with the same name
            close = pairs[i + 1]
            name = tok[3]
            if emulated(ctx, name):
                continue  # warp32 emulation points the call at its vado_*32 helper (WARP009)
            if name == "__activemask":
                if close != i + 2:
                    continue
                fix = Fix((ctx.edit(tok[1], toks[close][2], ACTIVEMASK_LOWERED),), Applicability.SAFE,
                          f"__activemask() → {ACTIVEMASK_LOWERED} (HIP 6.2's own definition)", ("warp", "sync-lowering"))
                yield self._finding(ctx, lacking, tok, toks[close][2], f"__activemask is not in HIP {hip} (added in 6.2); "
                                    f"{ACTIVEMASK_LOWERED} is equivalent: it is HIP's own definition of it", fix, {"call": name})
                continue
            args = cs.split_args(toks, i + 1, close)
            if len(args) < 2 or args[0][0] >= args[0][1]:
                continue
            (a, b), new = args[0], SYNC_LOWERING[name]
            mask = cs.text_of(ctx.text, toks, a, b)
            edits = (ctx.edit(tok[1], tok[2], new), ctx.edit(toks[a][1], toks[args[1][0]][1], ""))
            effects = mask_side_effects(toks, a, b)
            head = f"{name} is not in HIP {hip} (added in 6.2)"
            if name in _SYNC_SHUFFLES:
                safe = not effects
                why = ("a shuffle's value does not depend on its mask; ROCm's own __shfl*_sync ignores it" if safe
                       else f"mask `{mask}` may have side effects, which the rewrite would drop")
            else:
                full = None if effects else self._full_mask(ctx, view, a, b, tok[1])
                safe = full is not None
                why = (f"mask `{mask}` names every lane ({full})" if safe else
                       f"{new} counts every active lane, and mask `{mask}` may name fewer")
            fix = Fix(edits, Applicability.SAFE if safe else Applicability.UNSAFE,
                      f"{name} → {new} without the mask ({why})", ("warp", "sync-lowering"))
            message = f"{head}; {new} without the mask " + ("is equivalent: " if safe else "may differ: ") + why
            yield self._finding(ctx, lacking, tok, toks[close][2], message, fix, {"call": name, "lowered": new, "mask": mask})

    def _finding(self, ctx: FileContext, lacking: list, tok, end: int, message: str, fix: Fix, data: dict) -> Finding:
        safe = fix.applicability is Applicability.SAFE
        verdicts = {t.name: Verdict.AUTOMATIC if safe else Verdict.MANUAL for t in lacking}
        return self.finding(ctx, tok[1], end, message, verdicts, fix=fix,
                            effort=Effort(lines=1, constructs=1, hours=0.0 if safe else 0.25), data=data)

    def _full_mask(self, ctx: FileContext, view: cs.DeviceView, a: int, b: int, at: int, depth: int = 0) -> str | None:
        """How the mask tokens ``[a, b)`` are known to name every lane, or None."""
        toks = view.tokens
        piece = toks[a:b]
        if _full_literal(piece):
            return "a full-mask literal"
        texts = "".join(t[3] for t in piece)
        if texts == "__activemask()":
            return "the active lanes"
        if len(piece) != 1 or piece[0][0] is not Kind.IDENT:
            return None
        name = piece[0][3]
        defs = [m for m in view.defines if m.name == name]
        if defs:
            # Every definition (one per #if branch, say) must be a full mask.
            if all(_full_literal(m.body) or "".join(t[3] for t in m.body) == "__activemask()" for m in defs):
                return f"#define {name} {defs[0].body_text}"
            return None
        if name in FULL_MASK_NAMES:
            return f"{name}, by convention"
        if depth == 0:
            return self._full_local(ctx, view, name, at)
        return None

    def _full_local(self, ctx: FileContext, view: cs.DeviceView, name: str, at: int) -> str | None:
        """``T name = <full mask>;`` declared once in the function around ``at`` and never written again."""
        func = view.function_at(at)
        if func is None:
            return None
        toks = view.tokens
        lo = bisect.bisect_left(view.token_starts, func.body_start)
        hi = bisect.bisect_left(view.token_starts, func.body_end)
        decl = None
        for k in view.ident_indices((name,)):
            if not lo <= k < hi:
                continue
            prev = toks[k - 1]
            nxt = toks[k + 1][3] if k + 1 < len(toks) else ""
            if prev[3] in (".", "->", "::"):
                continue
            declares = prev[0] is Kind.IDENT and prev[3] not in ("return", "case", "else") and nxt == "="
            if declares:
                if decl is not None:
                    return None  # declared twice in the function (nested scopes): not provable
                decl = k
                continue
            if nxt in _ASSIGN_OPS or nxt in ("++", "--") or prev[3] in ("++", "--"):
                return None
            if prev[3] == "&" and k >= 2 and toks[k - 2][3] in ("(", ",", "=", "return", "{"):
                return None  # address taken: it may be written through the pointer
            if prev[3] in ("(", ",") and nxt in (")", ",") and _callee(toks, k, lo) not in _MASK_READERS:
                return None  # an argument of a call that may take it by reference
        if decl is None or toks[decl][1] >= at:
            return None
        end = decl + 2
        while end < hi and toks[end][3] not in (";", ","):
            end += 1
        if self._full_mask(ctx, view, decl + 2, end, at, depth=1) is None:
            return None
        return f"{name} is initialised to {cs.text_of(ctx.text, toks, decl + 2, end)} and never written again"


class WarpFunctionOnWavefront(Rule):
    """A CUDA warp function or ``warpSize``, which acts on a 64-lane wavefront on AMD CDNA.

    What it does
    ------------
    Under warp32 emulation (``vado port --wave warp32``, the default), finds
    host reads of the device property ``prop.warpSize`` (64 on wave64 GPUs; 32, the
    kernels' warp, in the port), and
    the CUDA warp functions (``__shfl*_sync``, ``__ballot_sync``,
    ``__any_sync``, ``__all_sync``, ``__activemask``, ``__match_*_sync``,
    ``__reduce_*_sync``, ``__syncwarp(mask)``, the mask-less ``__shfl*``,
    ``__ballot``, ``__any``, ``__all``) and ``warpSize`` in device code, and
    points each at a ``vado_*32`` helper that keeps CUDA's 32-lane warp:
    ``__any_sync`` → ``vado_any_sync32``, ``__shfl_down_sync`` →
    ``vado_shfl_down_sync32``, ``warpSize`` → ``32``. The port writes the
    helpers into the file (each under a ``VADO_<HELPER>`` guard). Device
    ``warpSize`` is rewritten in every function, whether or not it calls a
    warp function: host code that launches ``n / 32`` blocks assumes the
    kernels' ``blockIdx.x * warpSize`` is 32 too. Device code is a
    ``__global__``/``__device__`` function, one qualified through a project
    macro, an extended ``__device__`` lambda, or any function that calls a
    warp function (its qualifier may be pasted from a backend name);
    ``warpSize`` in a function whose macro-like qualifiers vado cannot
    resolve and that calls none is a manual finding. ``warpSize`` read in
    host code becomes 32 too: CUDA's host compiler reads 32 there, and HIP 7
    rejects the device built-in in a ``__host__`` function. A ``warpSize``
    the program declares itself (a parameter or local: in that function; a
    template parameter: in that template; a macro or a file-scope variable:
    in the file) is its own and is left as it is. ``::__ballot_sync(…)``
    names CUDA's function from the global scope and is rewritten like the
    unqualified call, except inside an overload of that function, where it
    forwards to the builtin.

    Code already written for AMD's 64-lane wavefronts is left as it is too,
    with one "moves as is" note: a file that picks its warp width per
    platform (``#ifdef __HIP_PLATFORM_AMD__`` / ``#define WARP_SIZE 64`` /
    ``#else`` / ``#define WARP_SIZE 32``; ``USE_ROCM``, ``__HIPCC__`` and the
    like count too; in the file or, in a tree audit or port, in a project
    header it includes, as vLLM's ``csrc/cuda_compat.h``), instantiates a warp helper for 64 lanes
    (``warp_reduce_any<64>(…)``) or shuffles with width 64. Its warp helpers
    compute over 64-lane groups under HIP; the 32-lane helpers would leave
    lanes 32-63 of each group out. The other WARP rules judge such a file as
    under ``--wave native`` (:func:`wide_warps`). So is the project's own HIP
    code inside a file: the argument a per-platform selector macro gives the
    AMD build (AMReX's ``AMREX_HIP_OR_CUDA(__shfl_down(x, i),
    __shfl_down_sync(…))``: a macro named for its platforms in argument order,
    whose definition may sit in a header vado does not read), a HIP vote in a
    branch the AMD build takes, and ``prop.warpSize`` or
    ``hipDeviceAttributeWarpSize`` read in an ``#if``/``#elif`` branch whose
    own condition names the AMD build. ``cg::coalesced_threads()`` is split by
    32-lane half wherever it is called: CUDA declares it for device code only.

    Not all of a project's own HIP code is wavefront-aware. A HIP ``__shfl``,
    ``__shfl_up``, ``__shfl_down``, ``__ballot``, ``__any`` or ``__all``
    without a width in its AMD branch, called directly or from a
    function-like ``#define`` (torch_sparse 0.6.18: ``#ifdef USE_ROCM`` /
    ``#define SHFL_SYNC(mask, var, delta) __shfl(var, delta)``), whose every
    user (the function around it, or each function that invokes the macro, in
    the file or, in a tree, in the files that include it) indexes lanes by 32
    (``& 31``, ``& (32 - 1)``, ``% 32``, ``>> 5``, ``/ 32``, ``< 32``, a
    32-bit full mask argument) and none by the wavefront's width
    (``warpSize``, a ``WARP_SIZE``-like name, ``& 63``, ``64``, ``__popcll``,
    ``__lane_id``, an ``__builtin_amdgcn_`` builtin), is 32-lane code: it
    gets the 32-lane helper as the CUDA branch does, and the finding names the
    evidence. For ``__shfl`` and the votes it says the project's ROCm path is
    wrong on 64-lane wavefronts (lanes 32-63 read or vote with lanes 0-31),
    and the audit's verdict says so too. ``__shfl_xor`` with a lane mask
    below 32 never leaves its half and is not judged; mixed or absent
    evidence leaves the finding for a person.

    Why is this bad?
    ----------------
    On gfx90a, gfx942 and gfx950 a wavefront has 64 lanes, while the CUDA
    program was written for 32-lane warps. ``__any_sync(0xffffffff, p)``
    becomes a vote over 64 lanes, ``__ballot_sync`` returns a 64-bit mask whose
    upper half belongs to the next CUDA warp, shuffles use width 64 (lane 31
    reads lane 32 in ``__shfl_down``), and ``warpSize`` is 64 beside code that
    indexes with ``& 31``. ROCm 7 also rejects a 32-bit mask in every
    ``*_sync`` function with a static assertion (``amd_warp_sync_functions.h``:
    "The mask must be a 64-bit integer").

    Example
    -------
    .. code-block:: cuda

        bool dup = __any_sync(0xffffffff, p);
        unsigned m = __ballot_sync(0xffffffff, v > 0);
        v += __shfl_down_sync(0xffffffff, v, 16);

    Use instead
    -----------
    .. code-block:: cuda

        bool dup = vado_any_sync32(0xffffffff, p);       // vote over the caller's 32 lanes
        unsigned m = vado_ballot_sync32(0xffffffff, v > 0); // bit i = lane i of the caller's warp
        v += vado_shfl_down_sync32(0xffffffff, v, 16);     // width 32

    Fix safety
    ----------
    Safe. Each helper computes what the CUDA function computes for a 32-lane
    warp made of lanes 0-31 or 32-63 of the wavefront: the 32-bit mask is
    shifted by ``__lane_id() & 32`` to the 64-bit mask of the caller's half
    (what ROCm's ``*_sync`` functions require, and what their mask check
    accepts: the halves partition the active lanes), the ballot is shifted
    back to bit 0, shuffles get CUDA's default width 32 unless the call
    passes one. With every warp function and ``warpSize`` so rewritten, the
    program's warps are 32 lanes as on NVIDIA: literal ``& 31``, ``/ 32``,
    ``[32]`` arrays and shuffle loops from 16 stay right, so WARP001-WARP006
    report them as moving as is on ROCm. A wavefront runs its two warps in
    lockstep, as one instruction stream: code that needs two CUDA warps to
    make progress independently, where one spins until a warp of the same
    wavefront (warps 2k and 2k+1 of a block) writes a flag, does not finish
    on AMD (no independent thread scheduling across the halves of a
    wavefront); vado does not find such waits (named-barrier PTX, which such
    kernels usually pair them with, is PTX002's manual work). On a
    HIP whose ``*_sync`` builtins are missing or off by default (hip-5.2,
    rocm-6.4), the helpers use the mask-less builtins (the mask only selects
    lanes of the vote, as in ROCm's own definitions), and ``__match_*_sync``,
    ``__reduce_*_sync`` and ``__syncwarp(mask)`` are left to WARP008/ARCH006.
    ``--wave native`` turns this rule off and the WARP001-WARP008 fixes on
    instead: the program then runs 64-lane warps (``warpSize``-generic code,
    full 64-bit masks), which is faster for reductions but only right once
    every 32-lane assumption is gone (those fixes are unsafe).

    References
    ----------
    - ROCm 7.2 ``amd_warp_sync_functions.h`` (64-bit mask static assertion, mask checks): https://github.com/ROCm/rocm-systems/blob/develop/projects/clr/hipamd/include/hip/amd_detail/amd_warp_sync_functions.h
    - SCALE warp-size emulation on wave64 hardware: https://github.com/spectral-compute/scale-docs/blob/f20700f5f55e411fd0c0c1b03da5b896b5b6eae3/docs/manual/compiler/diagnostic-reference.md
    - CUDA warp functions (32-bit masks, default width warpSize): https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#warp-shuffle-functions
    """

    code = "WARP009"
    triggers = frozenset(WARP32_CALLS) | {"warpSize", "coalesced_threads"} | _WARP_SIZE_ATTRIBUTES
    can_fix = True
    name = "warp-function-on-wavefront"
    severity = Severity.HIGH
    file_kinds = cs.CUDA_CXX_KINDS

    def check(self, ctx: FileContext) -> Iterable[Finding]:
        target = port_target(ctx)
        if wave_mode(ctx) != "warp32" or target is None:
            return
        view = cs.device_view(ctx)
        hits = view.ident_indices(self.triggers)
        if not hits:
            return
        wide = wide_warps(ctx)
        if wide is not None:
            switch = unknown_switch(wide, ctx.options)
            toks = view.tokens
            # A bare __syncwarp() syncs the whole wavefront either way: only the other warp functions and
            # warpSize act differently in the branch the port's build may take.
            sensitive = any(toks[k][3] != "__syncwarp" or k + 2 >= len(toks) or toks[k + 2][3] != ")" for k in hits)
            if switch and sensitive:
                manual = {t.name: Verdict.MANUAL for t in ctx.targets if t.family == "rocm"}
                yield self.finding(ctx, wide.start, wide.end,
                                   f"this file's warp code is written for 64-lane wavefronts where {switch} is defined "
                                   f"({wide.why}), and no build of the port is known to define it: built without it, "
                                   "the other branch sizes warps for 32 lanes while warp32 emulation leaves the warp "
                                   f"functions acting on 64; build the port with the project's ROCm switch ({switch}) "
                                   "or port the file for 32-lane warps by hand", manual,
                                   severity=Severity.MEDIUM, effort=Effort(lines=1, constructs=1, hours=0.5),
                                   data={"wide": wide.why, "switch": switch})
                return
            as_is = {t.name: Verdict.MOVES_AS_IS for t in ctx.targets if t.family == "rocm"}
            yield self.finding(ctx, wide.start, wide.end,
                               f"this file's warp code is written for 64-lane wavefronts already ({wide.why}): warp32 "
                               "emulation leaves its warp functions and warpSize as they are", as_is,
                               severity=Severity.INFO, effort=Effort(lines=0, constructs=0, hours=0.0),
                               data={"wide": wide.why})
            return
        toks = view.tokens
        n = len(toks)
        verdicts = {t.name: Verdict.AUTOMATIC for t in ctx.targets if t.family == "rocm"}
        own = _own_warp_size_scopes(view, [k for k in hits if toks[k][3] == "warpSize"])
        macro_device = _MacroQualified(ctx, view)
        for i in hits:
            tok = toks[i]
            func = view.function_at(tok[1])
            if func is not None and func.name.startswith("vado_"):
                continue  # a helper of vado's own (vado.port.wave, vado.port.compat)
            if in_selector_amd_argument(view, tok[1]):
                continue  # the project's own HIP code: AMREX_HIP_OR_CUDA(__shfl_down(x, i), …) over its 64 lanes
            prev = toks[i - 1] if i > 0 else None
            if tok[3] == "coalesced_threads":
                yield from self._coalesced(ctx, view, toks, i, target)
                continue
            if tok[3] in _WARP_SIZE_ATTRIBUTES:
                yield from self._attribute_query(ctx, view, toks, i, verdicts)
                continue
            if prev is not None and prev[3] in (".", "->") and tok[3] == "warpSize" and i >= 2:
                yield from self._host_property(ctx, view, toks, i, verdicts)
                continue
            start = tok[1]
            if prev is not None and prev[3] == "::" and _global_scope(toks, i):
                if func is not None and func.name in WARP32_CALLS:
                    continue  # an overload of the warp function forwarding to the builtin (WARP015's c10::Half block)
                # ::__ballot_sync(…): CUDA's own function, named from the global scope (nvdiffrast's singleLane);
                # the helper replaces the qualified name (vado's helpers may stand inside a namespace)
                start, prev = prev[1], (toks[i - 2] if i >= 2 else None)
            elif prev is not None and prev[3] in (".", "->", "::"):
                continue  # a member (cg::tiled_partition's shfl)
            name = tok[3]
            if name == "warpSize":
                device = (view.in_device_code(tok[1]) or _in_directive(toks, i)
                          or _device_outside_bodies(view, toks, i, macro_device)
                          or (func is not None and (_device_function(view, toks, func, macro_device)
                                                    or _calls_warp_functions(view, func))))
                if _in_scopes(own, tok[1]):
                    continue  # the program's own warpSize (a macro, variable or parameter)
                if not device:
                    unread = _unread_qualifiers(view, func)
                    if unread:
                        # Host code cannot read the device built-in: a function that does is device code behind a
                        # qualifier vado cannot resolve (one pasted from a backend's name), or invalid host code.
                        manual = {t.name: Verdict.MANUAL for t in ctx.targets if t.family == "rocm"}
                        yield self.finding(ctx, tok[1], tok[2], f"warpSize in `{func.name}`, whose qualifiers "
                                           f"({', '.join(unread)}) vado cannot resolve to device or host code: on the "
                                           "device it is 64 on wave64 GPUs while the port's warp functions keep "
                                           "CUDA's 32 lanes; if it runs there, write 32 by hand", manual,
                                           effort=Effort(lines=1, constructs=1, hours=0.1),
                                           data={"call": name, "qualifiers": list(unread)})
                    elif func is not None and not _offsetof_member(toks, i) and not _out_of_class_member(toks, func):
                        yield self._host_builtin(ctx, tok, verdicts)
                    continue
                fix = Fix((ctx.edit(tok[1], tok[2], "32"),), Applicability.SAFE,
                          "warpSize → 32: the CUDA program's warp under warp32 emulation", ("warp", "warp32"))
                yield self.finding(ctx, tok[1], tok[2], "warpSize is 64 on wave64 GPUs (gfx90a, gfx942, gfx950); under warp32 "
                                   "emulation the program's warp is 32 lanes", verdicts, fix=fix,
                                   effort=Effort(lines=1, constructs=1, hours=0.0), data={"call": name, "helper": "32"})
                continue
            if i + 1 >= n or toks[i + 1][3] != "(" or (i + 1) not in view.pairs:
                continue
            if prev is not None and (prev[0] is Kind.DIRECTIVE or (prev[0] is Kind.IDENT and prev[3] not in _DECL_PREV)):
                continue  # a macro being defined, or a declaration of a function with the same name
            if name == "__syncwarp" and view.pairs[i + 1] == i + 2:
                continue  # __syncwarp(): every lane of the wavefront, which holds both warps: right as it is
            if not warp32_renames(name, target):
                continue
            helper = warp32_helper(name)
            if name in WIDTHLESS and _in_own_amd_code(ctx, view, tok):
                lanes = own_hip_lanes(ctx, view, i, _own_amd_32(ctx, view))
                if lanes is not None and lanes.thirty_two:
                    yield self._own_hip_32(ctx, view, toks, i, start, helper, lanes, verdicts)
                    continue
                if name in _AMD_WAVE_WORDS:
                    continue  # HIP's own unsynchronised vote in the project's AMD branch: 64 lanes as written
            fix = Fix((ctx.edit(start, tok[2], helper),), Applicability.SAFE,
                      f"{name} → {helper} (CUDA's 32-lane warp on a 64-lane wavefront)", ("warp", "warp32"))
            yield self.finding(ctx, start, toks[view.pairs[i + 1]][2],
                               f"{name} acts on the whole 64-lane wavefront on gfx90a/gfx942/gfx950"
                               + (" (and ROCm 7 rejects 32-bit masks)" if name.endswith("_sync") else "")
                               + f"; {helper} keeps CUDA's 32-lane warp", verdicts, fix=fix,
                               effort=Effort(lines=1, constructs=1, hours=0.0), data={"call": name, "helper": helper})

    def _own_hip_32(self, ctx: FileContext, view, toks, i: int, start: int, helper: str, lanes, verdicts) -> Finding:
        """A HIP cross-lane call without a width in the project's own AMD branch whose every user indexes 32-lane
        warps (:func:`own_hip_lanes`): the project's ROCm path is wrong on 64-lane wavefronts (torch_sparse 0.6.18's
        ``SHFL_SYNC`` → ``__shfl(var, delta)`` under ``USE_ROCM``, read by kernels with ``lane_idx = thread_idx &
        (32 - 1)``: lanes 32-63 read the other row's values). It gets the 32-lane helper, as the CUDA branch does;
        the port applies this fix inside the branch it otherwise leaves as written (tag :data:`OWN_HIP_TAG`)."""
        name = toks[i][3]
        where = f"`{lanes.macro}`, used" if lanes.macro else "the call, run"
        wrong = name in WRONG_ON_WAVE64
        effect = ("the project's existing ROCm path is wrong on 64-lane wavefronts (lanes 32-63 read or vote with "
                  "lanes 0-31)" if wrong else
                  "on a 64-lane wavefront the lanes next to the 32-lane halves' boundary read across it (lane 31 "
                  "reads lane 32 in __shfl_down, lane 32 reads lane 31 in __shfl_up), which CUDA's 32-lane warp never "
                  "does")
        why = (f"{name} in the project's own AMD branch acts on the whole 64-lane wavefront on gfx90a/gfx942/gfx950, "
               f"but {where} by {lanes.users} function{' that indexes' if lanes.users == 1 else 's that index'} 32-lane warps "
               f"({lanes.evidence()}) and never the wavefront's width: {effect}; {helper} keeps CUDA's 32-lane warp")
        fix = Fix((ctx.edit(start, toks[i][2], helper),), Applicability.SAFE,
                  f"{name} → {helper} in the project's own AMD branch, whose users index 32-lane warps",
                  ("warp", "warp32", OWN_HIP_TAG))
        return self.finding(ctx, start, toks[view.pairs[i + 1]][2], why, verdicts, fix=fix,
                            effort=Effort(lines=1, constructs=1, hours=0.0),
                            data={"call": name, "helper": helper, "own_hip_32": [f"{p} {t}" for p, t in lanes.narrow],
                                  "own_hip_wrong": wrong})

    def _host_builtin(self, ctx: FileContext, tok, verdicts) -> Finding:
        """The built-in ``warpSize`` read in a host function (flashinfer's ``dim3(warpSize, NUM_WARPS)`` launch
        shape): nvcc's host compiler reads CUDA's 32; ROCm 7.2's hipcc rejects it (``reference to __device__
        function 'operator int' in __host__ function``). 32 is CUDA's value and the port's kernels' warp."""
        fix = Fix((ctx.edit(tok[1], tok[2], "32"),), Applicability.SAFE,
                  "warpSize → 32 in host code: CUDA's host value and the kernels' warp under warp32 emulation",
                  ("warp", "warp32"))
        return self.finding(ctx, tok[1], tok[2], "warpSize read in host code: CUDA's host compiler reads 32, and "
                            "HIP 7 rejects the device built-in in a __host__ function; the port's kernels keep "
                            "CUDA's 32-lane warps", verdicts, fix=fix, effort=Effort(lines=1, constructs=1, hours=0.0),
                            data={"call": "warpSize", "helper": "32", "host": True})

    def _coalesced(self, ctx: FileContext, view, toks, i: int, target) -> Iterable[Finding]:
        """``cg::coalesced_threads()`` (device code wherever it stands): on a 64-lane wavefront HIP's group holds the active lanes
        of both 32-lane halves, where CUDA's holds those of the caller's warp: ``size()`` reaches 64,
        ``thread_rank()`` 63, ``shfl(v, 0)`` reads the other warp's leader. The port splits it by half,
        ``binary_partition(coalesced_threads(), vado_half32() != 0u)`` (HIP 6.0+): the active lanes of the
        caller's half, ranked in lane order, as CUDA's coalesced group is."""
        if i + 2 >= len(toks) or toks[i + 1][3] != "(" or toks[i + 2][3] != ")":
            return
        start, ns = toks[i][1], ""
        if i >= 2 and toks[i - 1][3] == "::" and toks[i - 2][0] is Kind.IDENT:
            start, ns = toks[i - 2][1], toks[i - 2][3] + "::"
        first = i - 2 if ns else i
        if first >= 2 and toks[first - 1][3] == "(" and toks[first - 2][3] == "binary_partition":
            return  # split already (the port's own form, or the program's)
        before = toks[first - 1] if first >= 1 else None
        if before is not None and (before[3] in (".", "->") or before[0] is Kind.DIRECTIVE
                                   or (before[0] is Kind.IDENT and before[3] not in _DECL_PREV)):
            return  # a member, a macro being defined, or a declaration of a function of that name (a shim's)
        # No test for device code: CUDA declares coalesced_threads() for device code only, so the call runs on the
        # device whatever vado reads of its function's qualifiers (warpcore 3745e9d: a kernel and a device lambda
        # qualified through GLOBALQUALIFIER/DEVICEQUALIFIER, macros of a library its build downloads, kept HIP's
        # whole-wavefront group while the port said nothing remained).
        func = view.function_at(toks[i][1])
        if func is not None and _reads_its_wavefront_on_amd(ctx, view, func):
            return  # the group is the project's own, used as the whole wavefront in its AMD branch
        end = toks[i + 2][2]
        why = ("cooperative_groups::coalesced_threads() on a 64-lane wavefront holds the active lanes of both 32-lane "
               "warps (size() up to 64, thread_rank() up to 63) where CUDA's holds its warp's")
        if not cs.hip_at_least(target, "6.0"):
            manual = {t.name: Verdict.MANUAL for t in ctx.targets if t.family == "rocm"}
            yield self.finding(ctx, start, end, why + "; this HIP has no binary_partition to split it by warp",
                               manual, effort=Effort(lines=1, constructs=1, hours=0.5), data={"call": "coalesced_threads"})
            return
        verdicts = {t.name: Verdict.AUTOMATIC for t in ctx.targets if t.family == "rocm"}
        call = ctx.text[start:end]
        fix = Fix((ctx.edit(start, end, f"{ns}binary_partition({call}, vado_half32() != 0u)"),), Applicability.SAFE,
                  "coalesced_threads() split by 32-lane half: CUDA's coalesced group of the caller's warp",
                  ("warp", "warp32"))
        yield self.finding(ctx, start, end, why + "; split by half it is the caller's warp's", verdicts, fix=fix,
                           effort=Effort(lines=1, constructs=1, hours=0.0),
                           data={"call": "coalesced_threads", "helper": "binary_partition"})

    def _attribute_query(self, ctx: FileContext, view, toks, i: int, verdicts) -> Iterable[Finding]:
        """``cudaDeviceGetAttribute(&ws, cudaDevAttrWarpSize, dev)`` (or the driver's ``cuDeviceGetAttribute``
        with ``CU_DEVICE_ATTRIBUTE_WARP_SIZE``) in host code: HIP's ``hipDeviceAttributeWarpSize`` is 64 on
        wave64 GPUs, as ``prop.warpSize`` is, while the port's kernels keep 32-lane warps. The port sets the
        value to 32 after the call's statement where that statement stands alone in a block (not the body of
        an ``if``/loop, not a ``return``); elsewhere the finding is left for review."""
        if view.in_device_code(toks[i][1]) or i < 4 or toks[i - 1][3] != "," or _in_amd_branch(ctx, view, toks[i]):
            return  # device code, another shape, or the project's AMD branch asking for its wavefront
        # The attribute is the call's second argument: walk back over the first to the "(".
        k, depth = i - 2, 0
        while k > 0 and not (depth == 0 and toks[k][3] == "("):
            depth += {")": 1, "]": 1, "(": -1, "[": -1}.get(toks[k][3], 0)
            if toks[k][3] in (";", "{", "}"):
                return
            k -= 1
        if toks[k - 1][3] not in _ATTRIBUTE_CALLS or k not in view.pairs:
            return
        call, open_i, close_i = k - 1, k, view.pairs[k]
        first = cs.split_args(toks, open_i, close_i)[0]
        if first[0] >= first[1]:
            return
        target = ctx.text[toks[first[0]][1]:toks[first[1] - 1][2]]
        words = [t[3] for t in toks[first[0]:first[1]]]
        if words[0] == "&" and len(words) > 1 and all(w in (".", "->") or w.isidentifier() for w in words[1:]):
            target = ctx.text[toks[first[0] + 1][1]:toks[first[1] - 1][2]]  # &ws -> ws
        else:
            target = f"*({target})"
        start = cs.statement_start(toks, call)
        end, depth = start, 0  # the statement's ";" (through a CHECK(...) wrapper)
        while end < len(toks) and not (depth == 0 and toks[end][3] == ";"):
            depth += {"(": 1, "[": 1, ")": -1, "]": -1}.get(toks[end][3], 0)
            if toks[end][3] in ("{", "}") or depth < 0:
                end = len(toks)
                break
            end += 1
        if end < len(toks) and ctx.text[toks[end][2]:toks[end][2] + len(target) + 12].lstrip().startswith(
                f"{target} = 32;"):
            return  # set to 32 already (by a port)
        control = {"if", "else", "for", "while", "do", "switch", "case", "return", "goto", "throw", "co_return"}
        alone = (end < len(toks) and not any(t[3] in control for t in toks[start:call])
                 and (start == 0 or toks[start - 1][3] in (";", "{", "}")))
        why = ("the device's warp size attribute is 64 on wave64 GPUs (gfx90a, gfx942, gfx950), where the port's "
               "kernels keep CUDA's 32-lane warps (warp32 emulation): host code that sizes launches or loops with "
               "it must use 32")
        if not alone:
            manual = {t.name: Verdict.MANUAL for t in ctx.targets if t.family == "rocm"}
            yield self.finding(ctx, toks[call][1], toks[close_i][2], why + f"; set {target} to 32 after this call",
                               manual, effort=Effort(lines=1, constructs=1, hours=0.1),
                               data={"call": toks[call][3], "helper": "32"})
            return
        at = toks[end][2]
        fix = Fix((ctx.edit(at, at, f" {target} = 32;"),), Applicability.SAFE,
                  f"{target} = 32 after the query: the kernels' warp under warp32 emulation", ("warp", "warp32"))
        yield self.finding(ctx, toks[call][1], toks[close_i][2], why, verdicts, fix=fix,
                           effort=Effort(lines=1, constructs=1, hours=0.0), data={"call": toks[call][3], "helper": "32"})

    def _host_property(self, ctx: FileContext, view, toks, i: int, verdicts) -> Iterable[Finding]:
        """``prop.warpSize`` read in host code (``hipDeviceProp_t``): 64 on wave64 GPUs, where the port's kernels
        keep 32-lane warps, so host arithmetic with it (``grid = rows * prop.warpSize / block``) sizes launches
        for warps the kernels do not have. Rewritten to 32 for a plain ``NAME.warpSize`` read."""
        obj = toks[i - 2]
        if obj[0] is not Kind.IDENT or view.in_device_code(obj[1]):
            return
        if _in_amd_branch(ctx, view, toks[i]):
            return  # the project's AMD branch checks its wavefront (AMReX 92679ba: warp_size == device_prop.warpSize)
        if i >= 3 and toks[i - 3][3] in (".", "->", "::"):
            return  # a longer access path: left alone
        if i + 1 < len(toks) and toks[i + 1][3] in ("=", "+=", "-=", "*=", "/="):
            return  # written, not read
        fix = Fix((ctx.edit(obj[1], toks[i][2], "32"),), Applicability.SAFE,
                  f"{ctx.text[obj[1]:toks[i][2]]} → 32: the kernels' warp under warp32 emulation", ("warp", "warp32"))
        yield self.finding(ctx, obj[1], toks[i][2], "the device's warpSize property is 64 on wave64 GPUs (gfx90a, gfx942, "
                           "gfx950), where the port's kernels keep CUDA's 32-lane warps (warp32 emulation): host code "
                           "that sizes launches or loops with it must use 32", verdicts, fix=fix,
                           effort=Effort(lines=1, constructs=1, hours=0.0), data={"call": "warpSize", "helper": "32"})
