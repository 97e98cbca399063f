"""WARP rules: code that assumes a warp is 32 lanes wide.

AMD CDNA GPUs (gfx90a, gfx942, gfx950) run 64-wide wavefronts; RDNA runs 32;
SYCL sub-groups are 8, 16 or 32 wide depending on the GPU and the kernel.
Verdicts come from :func:`vado.rules.cuda_syntax.warp_verdict`: manual work (or
automatic edits where a safe rewrite exists) on targets with wave64, as is on
ZLUDA (RDNA only) and on SCALE (which emulates 32-wide warps by default), manual
on oneAPI. The wave mode of the run (``ctx.options["wave"]``, see below) decides
what ROCm targets get: under warp32 emulation (the default) the 32-lane patterns
move as is and WARP009 rewrites the warp functions; under ``native`` the rules
offer the wave64 rewrites.
"""

from __future__ import annotations

import bisect
import re
from typing import Iterable, Mapping

from vado.model import Applicability, Effort, Finding, Fix, Severity, Verdict
from vado.rules import cuda_syntax as cs
from vado.rules.base import FileContext, Rule, verdicts_for
from vado.scan.lexer import Kind

#: Identifiers that name a thread, lane or warp index.
_LANEISH = re.compile(
    r"^(?:threadIdx|thread_?id[xyz]?|thread_?idx|t_?idx?|tid[xyz]?|[lgb]_?tid|local_?tid|global_?tid|"
    r"lane\w*|\w*_lane|\w*Lane\w*|warp(?!_?size|Size|SIZE)\w*|\w*_warp|\w*Warp(?!Size)\w*|wid|wrp|laneid|lid)$"
)
_WARPISH = re.compile(r"^(?:warp(?!_?size|Size|SIZE)\w*|\w*_warp|\w*Warp(?!Size)\w*|wid|wrp)$")
_SYNC_MASKED = frozenset({
    "__shfl_sync", "__shfl_up_sync", "__shfl_down_sync", "__shfl_xor_sync", "__ballot_sync", "__any_sync",
    "__all_sync", "__uni_sync", "__match_any_sync", "__match_all_sync", "__syncwarp", "__reduce_add_sync",
    "__reduce_min_sync", "__reduce_max_sync", "__reduce_and_sync", "__reduce_or_sync", "__reduce_xor_sync",
})
_BALLOTS = frozenset({"__ballot_sync", "__ballot", "__activemask", "__match_any_sync", "__match_all_sync"})
_NARROW_TYPES = ("unsigned int", "unsigned", "uint32_t", "int", "uint", "int32_t", "unsigned long")
_FULL32 = frozenset({0xFFFFFFFF})
_WARP_NOTE = {"scale": cs.SCALE_WARP_NOTE, "scale_source": cs.SCALE_WARP_SOURCE, "hip_source": cs.HIP_WARP_SOURCE}

# --------------------------------------------------------------------------- wave modes
#
# ``vado port --wave warp32`` (the default) keeps the CUDA program's 32-lane warps on a
# 64-lane wavefront: each wavefront runs two warps, lanes 0-31 and 32-63. Every CUDA warp
# function is pointed at a ``vado_*32`` helper (vado.port.wave writes their definitions
# into the port) that acts on the caller's 32-lane half: shuffles with width 32, ballots
# restricted to the half and shifted to bit 0, masks widened to the 64-bit mask HIP
# requires that names the caller's half, lane ids ``& 31``; device ``warpSize`` becomes
# 32. Lane and warp arithmetic with 32 is then right as it stands, so the rules that
# report it (WARP001-WARP006, WARP008) give ROCm targets the verdict "moves as is" and no
# fix. ``--wave native`` rewrites the program for the hardware's wavefront instead
# (``warpSize``-generic code, 64-bit masks): what those rules offer in that mode.

WAVE_MODES = ("warp32", "native")

#: CUDA warp functions warp32 emulation points at a helper, and what the target's HIP must
#: have for it: "" any HIP (the helper is written with mask-less builtins where the *_sync
#: ones are missing or off by default), "6.2"/"7.0" the *_sync builtin of that release, on
#: by default.
WARP32_CALLS = {
    "__shfl_sync": "", "__shfl_up_sync": "", "__shfl_down_sync": "", "__shfl_xor_sync": "",
    "__shfl": "", "__shfl_up": "", "__shfl_down": "", "__shfl_xor": "",
    "__ballot_sync": "", "__any_sync": "", "__all_sync": "", "__activemask": "",
    "__ballot": "", "__any": "", "__all": "",
    "__match_any_sync": "6.2", "__match_all_sync": "6.2", "__syncwarp": "7.0",
    "__reduce_add_sync": "7.0", "__reduce_min_sync": "7.0", "__reduce_max_sync": "7.0",
    "__reduce_and_sync": "7.0", "__reduce_or_sync": "7.0", "__reduce_xor_sync": "7.0",
}
def wave_mode(ctx: FileContext) -> str:
    """The wave mode of the run: ``warp32`` (the default) or ``native`` (``--wave``)."""
    return ctx.options.get("wave") or "warp32"


def warp32_helper(cuda_name: str) -> str:
    """The helper a CUDA warp function becomes under warp32 emulation: ``__shfl_down_sync`` → ``vado_shfl_down_sync32``."""
    return "vado_" + cuda_name[2:] + "32"


def uses_sync_builtins(target) -> bool:
    """Whether the warp32 helpers for ``target`` call HIP's ``*_sync`` builtins (on by default, HIP >= 7.0),
    rather than the mask-less ones every HIP has."""
    return target.family == "rocm" and bool(target.features.get("warp_sync_builtins_default"))


def warp32_renames(cuda_name: str, target) -> bool:
    """Whether warp32 emulation points ``cuda_name`` at its helper on ``target`` (a ROCm target)."""
    need = WARP32_CALLS.get(cuda_name)
    if need is None or target.family != "rocm":
        return False
    return need == "" or (uses_sync_builtins(target) and cs.hip_at_least(target, need))


def port_target(ctx: FileContext):
    """The ROCm target fixes are written for: the first one of the run (``vado port`` passes one), or None."""
    return next((t for t in ctx.targets if t.family == "rocm"), None)


def emulated(ctx: FileContext, cuda_name: str | None = None) -> bool:
    """Whether warp32 emulation covers this file's warp code (for ``cuda_name``, when given) on ROCm.

    Not in a file whose warp code is already written for 64-lane wavefronts (:func:`wide_warps`):
    that code runs the hardware's wavefront, as ``--wave native`` would have it."""
    if wave_mode(ctx) != "warp32" or wide_warps(ctx) is not None:
        return False
    if cuda_name is None:
        return True
    target = port_target(ctx)
    return target is not None and warp32_renames(cuda_name, target)


# --------------------------------------------------------------------------- wavefront-aware code
#
# Some CUDA code bases already run on AMD: they pick their warp width per platform
# (``#ifdef __HIP_PLATFORM_AMD__ / #define WARP_SIZE 64 / #else / #define WARP_SIZE 32``)
# and size their warp helpers with it (``warp_reduce_any<WARP_SIZE>``). Under HIP such
# code computes over 64-lane groups; pointing its warp functions at vado's 32-lane
# helpers would leave lanes 32-63 of each group out (issue 26: MoE routing entries never
# written). Warp32 emulation leaves such a file's warp code as it is.

#: Identifiers of a preprocessor condition that select the HIP (AMD) build.
_HIP_CONDITION = re.compile(r"(?:^|_)(?:HIP|HIPCC|ROCM|AMD|AMDGCN|GFX\d*)(?:_|$)", re.I)
#: Spellings of a 64-lane width: AMD's wavefront size macro, HIP's warpSize.
_WIDE_WORDS = frozenset({"warpSize", "__AMDGCN_WAVEFRONT_SIZE", "__AMDGCN_WAVEFRONT_SIZE__"})
_WARP_NAME = re.compile(r"warp|wave", re.I)


class WideWarps:
    """Why a file's warp code is taken as written for 64-lane wavefronts: where (``start``, ``end``)
    and what (``why``)."""

    __slots__ = ("start", "end", "why", "name")

    def __init__(self, start: int, end: int, why: str, name: str = ""):
        #: the platform width's name (``WARP_SIZE``), when the sign is one
        self.start, self.end, self.why, self.name = start, end, why, name


def _is_wide(tok) -> bool:
    return tok[3] in _WIDE_WORDS or (tok[0] is Kind.NUMBER and cs.int_value(tok[3]) == 64)


def _hip_regions(view: cs.DeviceView) -> list[tuple[int, int, str]]:
    """``(start, end, condition)`` of each ``#if`` group whose condition (of its ``#if`` or an ``#elif``)
    names the HIP/AMD build (``__HIP_PLATFORM_AMD__``, ``USE_ROCM``, ``__HIPCC__`` …)."""
    toks = view.tokens
    stack: list[list] = []  # [start offset, hip condition text or ""]
    out = []
    for a, b in cs.directive_ranges(toks, view.directive_marks):
        d = toks[a][3].replace(" ", "").replace("\t", "")
        cond = [t for t in toks[a + 1:b] if t[0] is Kind.IDENT]
        hip = next((t[3] for t in cond if _HIP_CONDITION.search(t[3])), "")
        if d in ("#if", "#ifdef", "#ifndef"):
            stack.append([toks[a][1], cs.text_of(view.text, toks, a + 1, b) if hip else ""])
        elif d.startswith("#elif") and stack and hip and not stack[-1][1]:
            stack[-1][1] = cs.text_of(view.text, toks, a + 1, b)
        elif d == "#endif" and stack:
            start, text = stack.pop()
            if text:
                out.append((start, toks[b][1] if b < len(toks) else len(view.text), text))
    return out


def _calls_warp_function(view: cs.DeviceView, name: str) -> bool:
    """Whether a function of the file named ``name`` calls a CUDA warp function."""
    calls = view.ident_indices(WARP32_CALLS)
    if not calls:
        return False
    for f in view.functions:
        if f.name == name and any(f.body_start <= view.tokens[k][1] < f.body_end for k in calls):
            return True
    return False


def wide_warps(ctx: FileContext) -> WideWarps | None:
    """Where the file shows its warp code is already written for 64-lane wavefronts, or None.

    Three signs: a warp width chosen per platform (by the file, or by a project header it includes and
    whose width it uses: :func:`_header_wide_warps`) (a ``#define`` or constant named like a warp or
    wave size, set to 64, ``warpSize`` or ``__AMDGCN_WAVEFRONT_SIZE`` inside an ``#if`` group whose
    condition names the HIP/AMD build), a warp helper instantiated for 64 lanes (``warp_reduce_any<64>(…)``:
    a name with warp/wave in it, or a function of the file that calls a warp function), and a shuffle
    whose width argument is 64 (CUDA's widths stop at 32)."""
    view = cs.device_view(ctx)
    cached = getattr(view, "_vado_wide_warps", False)
    if cached is not False:
        return cached
    found = _find_wide_warps(view) or _header_wide_warps(ctx, view)
    view._vado_wide_warps = found
    return found


def _find_wide_warps(view: cs.DeviceView) -> WideWarps | None:
    toks = view.tokens
    sixty_four = view.number_indices(64)
    # A platform width is named like a warp or wave size: most files spell no such name and no 64.
    warpish = view.spelling_index.spelling_mentions(Kind.IDENT, ("warp", "wave"))
    if not sixty_four and not warpish:
        return None
    if warpish:
        wide = _platform_width(view, sixty_four)
        if wide is not None:
            return wide
    n = len(toks)
    for k in sixty_four:
        if k < 2 or k + 2 >= n:
            continue
        if toks[k - 1][3] == "<" and toks[k + 1][3] == ">" and toks[k + 2][3] == "(" and toks[k - 2][0] is Kind.IDENT:
            name = toks[k - 2][3]
            if _WARP_NAME.search(name) or _calls_warp_function(view, name):
                return WideWarps(toks[k - 2][1], toks[k + 1][2], f"{name}<64> runs a warp helper over 64 lanes")
        if toks[k - 1][3] == "," and toks[k + 1][3] == ")":
            callee = _callee(toks, k, max(0, k - 64))
            if callee.startswith("__shfl"):
                return WideWarps(toks[k][1], toks[k][2], f"{callee} with width 64 shuffles across 64 lanes")
    return None


def _platform_width(view: cs.DeviceView, sixty_four: list[int], names: set[str] | None = None) -> WideWarps | None:
    """A warp or wave width (``names``: one of those) the file defines per platform: a ``#define`` or
    constant named like one, set to 64, ``warpSize`` or ``__AMDGCN_WAVEFRONT_SIZE`` inside an ``#if``
    group whose condition names the HIP/AMD build; or None."""
    toks = view.tokens
    named = [m for m in view.defines if len(m.body) == 1 and _is_wide(m.body[0]) and _WARP_NAME.search(m.name)
             and (names is None or m.name in names)]
    consts = [k - 2 for k in sixty_four if k >= 2 and toks[k - 1][3] == "=" and toks[k - 2][0] is Kind.IDENT
              and _WARP_NAME.search(toks[k - 2][3]) and (names is None or toks[k - 2][3] in names)]
    if named or consts:
        regions = _hip_regions(view)
        for m in named:
            cond = next((c for a, b, c in regions if a <= m.start < b), None)
            if cond is not None:
                return WideWarps(m.name_start, m.body[0][2], f"{m.name} is {m.body[0][3]} under `#if {cond}`", m.name)
        for k in consts:
            cond = next((c for a, b, c in regions if a <= toks[k][1] < b), None)
            if cond is not None:
                return WideWarps(toks[k][1], toks[k + 2][2], f"{toks[k][3]} is 64 under `#if {cond}`", toks[k][3])
    return None


#: Shuffles, whose last argument (when there are four, or three for the mask-less ones) is the width.
_SHUFFLE_ARITY = {"__shfl_sync": 4, "__shfl_up_sync": 4, "__shfl_down_sync": 4, "__shfl_xor_sync": 4,
                  "__shfl": 3, "__shfl_up": 3, "__shfl_down": 3, "__shfl_xor": 3}


def _width_names(view: cs.DeviceView) -> set[str]:
    """The names a platform width may have in this file: the warp- or wave-named identifiers it uses
    (other than CUDA's own) and the identifiers it passes as a shuffle's width, less the macros and
    constants the file defines itself (:func:`_platform_width` has judged those)."""
    index, toks = view.spelling_index, view.tokens
    names = {s for s in index.spellings(Kind.IDENT) if _WARP_NAME.search(s)} - _WIDE_WORDS - set(WARP32_CALLS)
    pairs = None
    for k in view.ident_indices(_SHUFFLE_ARITY):
        if k + 1 >= len(toks) or toks[k + 1][3] != "(":
            continue
        pairs = pairs if pairs is not None else view.pairs
        close = pairs.get(k + 1)
        if close is None or toks[close - 1][0] is not Kind.IDENT or toks[close - 2][3] != ",":
            continue
        depth, commas = 0, 0
        for t in toks[k + 2:close]:
            depth += t[3] in "([{" and t[0] is Kind.PUNCT
            depth -= t[3] in ")]}" and t[0] is Kind.PUNCT
            commas += depth == 0 and t[3] == ","
        if commas + 1 == _SHUFFLE_ARITY[toks[k][3]]:
            names.add(toks[close - 1][3])
    # A macro the file defines itself was judged by :func:`_platform_width` on the file, unless that
    # definition is only a fallback (``#ifndef WARP_SIZE`` / ``#define WARP_SIZE 32``): the header's wins.
    return names - ({m.name for m in view.defines} - _fallback_names(view))


def _fallback_names(view: cs.DeviceView) -> set[str]:
    """Names the file tests for being undefined: ``#ifndef NAME``, ``#if !defined(NAME)``."""
    toks, out = view.tokens, set()
    for a, b in cs.directive_ranges(toks, view.directive_marks):
        d = toks[a][3].replace(" ", "").replace("\t", "")
        if d == "#ifndef" and a + 1 < b:
            out.add(toks[a + 1][3])
        elif d in ("#if", "#elif"):
            for j in range(a + 1, b - 1):
                if toks[j][3] == "!" and toks[j + 1][3] == "defined":
                    k = j + 2 + (j + 2 < b and toks[j + 2][3] == "(")
                    if k < b and toks[k][0] is Kind.IDENT:
                        out.add(toks[k][3])
    return out


def _quoted_includes(view: cs.DeviceView) -> list[str]:
    """The operands of the file's ``#include "…"`` directives, in order."""
    toks, out = view.tokens, []
    for i in view.spelling_index.directives():
        if toks[i][3].replace(" ", "").replace("\t", "") == "#include" and i + 1 < len(toks):
            operand = toks[i + 1][3]
            if len(operand) > 2 and operand[0] == '"' and operand[-1] == '"':
                out.append(operand[1:-1])
    return out


def _header_wide_warps(ctx: FileContext, view: cs.DeviceView) -> WideWarps | None:
    """A platform width (:func:`_platform_width`) the file uses but a project header it includes
    defines (vLLM's ``cuda_compat.h``: ``#ifndef USE_ROCM / #define WARP_SIZE 32 / #else /
    #define WARP_SIZE warpSize``), or None. Headers are read only within the audited tree
    (``source_root``), and only those that define one of the names the file uses."""
    root = (ctx.options or {}).get("source_root")
    if not root:
        return None
    names = _width_names(view)
    if not names:
        return None
    includes = _quoted_includes(view)
    if not includes:
        return None
    from vado.scan.lexer import code_tokens, is_native_tokens, lex
    from vado.scan.project_headers import project_headers

    for header, text in project_headers(str(root)).headers_defining(ctx.path, includes, names):
        toks = lex(text)
        code = toks.code() if is_native_tokens(toks) else code_tokens(list(toks))
        hview = cs.DeviceView(text, code)
        wide = _platform_width(hview, hview.number_indices(64), names)
        if wide is None:
            continue
        uses = view.spelling_index.indices_of([wide.name], Kind.IDENT)
        if not uses:
            continue
        at = view.tokens[uses[0]]
        return WideWarps(at[1], at[2], f"{wide.why} in {header}", wide.name)
    return None


def wave_verdicts(ctx: FileContext, *, fixable: bool, covered: bool | None = None, **kw) -> dict[str, Verdict]:
    """:func:`cs.warp_verdict` per target, except "moves as is" on ROCm targets when warp32 emulation
    covers the pattern (``covered``; by default whenever the mode is warp32)."""
    if covered is None:
        covered = emulated(ctx)
    return verdicts_for(ctx, lambda t: Verdict.MOVES_AS_IS if covered and t.family == "rocm"
                        else cs.warp_verdict(t, fixable=fixable, **kw))


def _operand_left(toks: list, i: int, pairs: Mapping[int, int]) -> tuple[int, int]:
    """Token range ``[first, i)`` of the primary expression ending just before ``i``."""
    j = i - 1
    while j >= 0:
        t = toks[j]
        if t[3] in (")", "]") and j in pairs:
            j = pairs[j] - 1
            continue
        if t[0] is Kind.IDENT or t[0] is Kind.NUMBER:
            if j > 0 and toks[j - 1][3] in (".", "->", "::"):
                j -= 2
                continue
            j -= 1
            break
        break
    # j now points before the operand (or at a call name, which belongs to it)
    first = j + 1
    if first < i and toks[first][3] == "(" and first > 0 and toks[first - 1][0] is Kind.IDENT:
        first -= 1
    return first, i


def _operand_right(toks: list, i: int, pairs: Mapping[int, int]) -> tuple[int, int]:
    """Token range ``(i, end)`` of the primary expression just after ``i``."""
    j = i + 1
    n = len(toks)
    if j < n and toks[j][3] == "(" and j in pairs:
        return j, pairs[j] + 1
    k = j
    while k < n and (toks[k][0] in (Kind.IDENT, Kind.NUMBER) or toks[k][3] in (".", "->", "::")):
        k += 1
        if k < n and toks[k][3] in ("[", "(") and k in pairs:
            k = pairs[k] + 1
    return j, k


def _idents(toks: list, a: int, b: int) -> list[str]:
    return [t[3] for t in toks[a:b] if t[0] is Kind.IDENT]


def _is_laneish(names: list[str]) -> bool:
    return any(_LANEISH.match(n) for n in names)


class LiteralWarpWidthArithmetic(Rule):
    """Lane and warp index arithmetic with the literal warp width 32.

    What it does
    ------------
    Finds ``& 31``, ``% 32``, ``/ 32``, ``>> 5`` and ``* 32`` whose other
    operand is a thread, lane or warp index (``threadIdx.x & 31``,
    ``tid / 32``, ``lane_id % 32``, ``warp_id * 32``), and the warp count
    ``blockDim.x / 32``. Arithmetic on other
    values (``n % 32``, ``bytes / 32``) is not reported.

    Why is this bad?
    ----------------
    On AMD CDNA GPUs a wavefront has 64 lanes, so ``threadIdx.x & 31`` is not
    the lane and ``threadIdx.x / 32`` is not the warp. Such code runs but treats
    each wavefront as two 32-lane halves, which is right only if every other
    warp-level step (masks, shuffles, shared arrays) does the same.

    Example
    -------
    .. code-block:: cuda

        int lane = threadIdx.x & 31;
        int warp = threadIdx.x / 32;

    Use instead
    -----------
    .. code-block:: cuda

        int lane = threadIdx.x & (warpSize - 1);
        int warp = threadIdx.x / warpSize;

    Fix safety
    ----------
    In device code vado offers ``& (warpSize - 1)``, ``% warpSize``,
    ``/ warpSize`` and ``* warpSize``. The fix is unsafe: it changes the lane
    range to 0..63 on wave64, which breaks code that still sizes arrays, masks
    or shuffle offsets for 32 lanes; apply it together with the other WARP fixes
    of the kernel. ``>> 5`` → ``/ warpSize`` is unsafe too where the shift is a
    whole expression (``w = tid >> 5;``) and display-only elsewhere (``/``
    binds tighter than ``>>``). Host code gets no fix (``warpSize`` is a
    device-side value).

    Wave mode: under ``vado port --wave warp32`` (the default) the program
    keeps CUDA's 32-lane warps (WARP009), so this pattern is right as it
    stands: ROCm targets get "moves as is" and no fix. The fix above is
    what ``--wave native`` applies.

    References
    ----------
    - HIP warp cross-lane functions: https://github.com/ROCm/HIP/blob/c5e11fcac8249ce4f7e70157588ff9661a870b59/docs/reference/kernel_language.rst
    - SCALE warp-size emulation: https://github.com/spectral-compute/scale-docs/blob/f20700f5f55e411fd0c0c1b03da5b896b5b6eae3/docs/manual/compiler/diagnostic-reference.md
    """

    code = "WARP001"
    can_fix = True
    name = "literal-warp-width-arithmetic"
    severity = Severity.MEDIUM
    file_kinds = cs.CUDA_CXX_KINDS

    _OPS = {"&": 31, "%": 32, "/": 32, ">>": 5, "*": 32}
    _REPL = {"&": "(warpSize - 1)", "%": "warpSize", "/": "warpSize", "*": "warpSize"}
    _WIDTHS = tuple(sorted(set(_OPS.values())))

    def _candidates(self, view: cs.DeviceView) -> list[int]:
        """Indices of the literals that sit beside an operator of their own width (``& 31``,
        ``/ 32``, ``>> 5``, ``31 &``, ``32 *``), in order: the only ones the check reads."""
        # Set work on the spelling index instead of a look at each literal's neighbours: a
        # data table holds thousands of 5s and 32s, and few of them follow an operator.
        if not view.number_indices(*self._WIDTHS):
            return []  # most files: no 5, 31 or 32 at all
        hits: set[int] = set()
        for width in self._WIDTHS:
            literals = view.number_indices(width)
            if not literals:
                continue
            at = set(literals)
            for op, op_width in self._OPS.items():
                if op_width != width:
                    continue
                ops = view.punct_indices(op)
                hits.update(at.intersection([k + 1 for k in ops]))  # X op N
                if op in ("&", "*"):
                    hits.update(at.intersection([k - 1 for k in ops]))  # N op X
        hits.discard(0)
        return sorted(hits)

    def check(self, ctx: FileContext) -> Iterable[Finding]:
        view = cs.device_view(ctx)
        toks = view.tokens
        verdicts = wave_verdicts(ctx, fixable=False)
        covered = emulated(ctx)
        candidates = self._candidates(view)
        pairs = view.pairs if candidates else {}
        for i in candidates:
            tok = toks[i]
            value = cs.int_value(tok[3])
            # literal on the right: X op N
            op = toks[i - 1]
            lit_right = op[0] is Kind.PUNCT and op[3] in self._OPS and self._OPS[op[3]] == value
            lit_left = (i + 1 < len(toks) and toks[i + 1][0] is Kind.PUNCT and toks[i + 1][3] in ("&", "*")
                        and self._OPS[toks[i + 1][3]] == value)
            if lit_right:
                a, b = _operand_left(toks, i - 1, pairs)
                op_tok = op
                if a >= b:
                    continue
                if op[3] in ("&", "*") and (i - 2 < 0 or toks[i - 2][3] in ("(", ",", "=", "return")):
                    continue  # unary & / * (address-of, dereference)
            elif lit_left:
                op_tok = toks[i + 1]
                a, b = _operand_right(toks, i + 1, pairs)
            else:
                continue
            names = _idents(toks, a, b)
            if op_tok[3] == "*":
                if not any(_WARPISH.match(n) for n in names):
                    continue
            elif not _is_laneish(names) and not (op_tok[3] in ("/", ">>") and "blockDim" in names):
                # blockDim.x / 32 is the number of warps in the block.
                continue
            in_dev = view.in_device_code(tok[1])
            if not in_dev and "threadIdx" not in names:
                continue  # host code: a "tid" there is usually a CPU thread id
            start, end = (op_tok[1], tok[2]) if lit_right else (tok[1], op_tok[2])
            fix = None
            if in_dev and op_tok[3] in self._REPL:
                repl = self._REPL[op_tok[3]]
                edit = ctx.edit(tok[1], tok[2], repl)
                fix = Fix((edit,), Applicability.UNSAFE, f"use warpSize instead of {tok[3]}", ("warp",))
            elif in_dev and op_tok[3] == ">>":
                # `x >> 5` is `x / warpSize` only when x is the whole left operand and 5 the whole
                # right one (`/` binds tighter than `>>`), and x is a non-negative index.
                before = toks[a - 1][3] if a > 0 else ";"
                after = toks[i + 1][3] if i + 1 < len(toks) else ";"
                whole = before in ("=", "(", ",", "return", "[", "?", ":", "{", ";") and after in (";", ")", ",", "]", "?", ":", "}")
                fix = Fix((ctx.edit(op_tok[1], tok[2], "/ warpSize"),), Applicability.UNSAFE if whole else Applicability.DISPLAY_ONLY,
                          "divide by warpSize instead of shifting by 5" + ("" if whole else " (mind precedence and sign)"), ("warp",))
            expr = ctx.text[toks[a][1]:toks[b - 1][2]]
            msg = f"`{expr} {op_tok[3]} {tok[3]}` assumes 32-lane warps" if lit_right else f"`{tok[3]} {op_tok[3]} {expr}` assumes 32-lane warps"
            yield self.finding(ctx, start, end, msg, verdicts, fix=None if covered else fix,
                               effort=Effort(lines=1, constructs=1, hours=0.1), data={"operand": expr, **_WARP_NOTE})


def _is_narrow_literal(tok) -> bool:
    """An integer literal that fits 32 bits and has no 64-bit suffix (``0x0000ffff``, ``0xffu``)."""
    if tok[0] is not Kind.NUMBER:
        return False
    value = cs.int_value(tok[3])
    return value is not None and 0 <= value <= 0xFFFFFFFF and "l" not in tok[3].lower()


def _is_full_mask(tok) -> bool:
    return tok[0] is Kind.NUMBER and cs.int_value(tok[3]) in _FULL32 and not tok[3].lower().rstrip("u").endswith("l")


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
                if full:
                    start, end = piece[0][1], piece[-1][2]
                    fix = Fix((ctx.edit(start, end, "0xffffffffffffffffull"),), Applicability.SAFE,
                              "use a 64-bit full lane mask", ("warp",))
                    covered = emulated(ctx, name)
                    verdicts = wave_verdicts(ctx, fixable=True, covered=covered)
                    fix = None if covered else fix
                    yield self.finding(ctx, start, end, f"32-bit full mask `{ctx.text[start:end]}` passed to {name}; HIP masks are 64-bit",
                                       verdicts, fix=fix, effort=Effort(lines=1, constructs=1), data={"call": name, **_WARP_NOTE})
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
                                       verdicts, fix=fix, effort=Effort(lines=1, constructs=1, hours=0.25), data={"call": name, **_WARP_NOTE})
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
                                   verdicts, fix=fix, effort=Effort(lines=1, constructs=1, hours=0.25), data={"call": name, **_WARP_NOTE})


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
                               data={"call": tok[3], "mask": inner[3], **_WARP_NOTE})


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


def _lane_or_warp_index(toks: list, a: int, b: int) -> bool:
    """Whether the subscript ``toks[a:b]`` picks a slot per lane or per warp.

    A lane or warp name (``lane``, ``warp_id``, ``tid``) does; ``threadIdx`` only
    through a lane/warp extraction (``threadIdx.x % 32``, ``threadIdx.x / warpSize``,
    ``>> 5``, ``& 31``). A bare ``threadIdx.x`` (or ``threadIdx.x + i``) is one slot
    per *thread*: ``s[32]`` indexed so assumes a 32-thread block, which a
    wavefront of 64 does not break (HeCBench concurrentKernels ``s_clocks``).
    """
    names = _idents(toks, a, b)
    if _is_laneish([n for n in names if n != "threadIdx"]):
        return True
    return "threadIdx" in names and any(t[0] is Kind.PUNCT and t[3] in ("%", "/", ">>", "&") for t in toks[a:b])


def _warp_size_macros(view: cs.DeviceView) -> set[str]:
    """Names of object-like macros (and constants) defined as 32 that look like a warp width."""
    out = set()
    for m in view.defines:
        if len(m.body) == 1 and cs.int_value(m.body[0][3]) == 32 and re.search(r"warp|wave|lane", m.name, re.I):
            out.add(m.name)
    return out


class SharedArrayOfWarpWidth(Rule):
    """``__shared__`` arrays of 32 elements indexed by lane or warp id.

    What it does
    ------------
    Finds ``__shared__`` arrays whose size is 32 (or a ``WARP_SIZE``-like macro
    defined as 32) that the same function indexes with a lane or warp index
    (``s[lane]``, ``s[threadIdx.x / 32]``, ``s[warp_id]``, ``s[threadIdx.x & 31]``).
    Arrays of 32 indexed by other values are not reported.

    Why is this bad?
    ----------------
    One slot per lane overflows when a wavefront has 64 lanes; one slot per warp
    is enough for 1024 threads only with 32-lane warps (with 64-lane warps the
    count halves, so it still fits, but code that assumes 32 slots are all used
    reads stale entries).

    Example
    -------
    .. code-block:: cuda

        __shared__ float partial[32];
        partial[threadIdx.x % 32] = v;

    Use instead
    -----------
    .. code-block:: cuda

        __shared__ float partial[64];  // the widest wavefront
        partial[threadIdx.x % warpSize] = v;

    Fix safety
    ----------
    A one-dimensional array gets ``[32]`` → ``[64]`` (64 is the widest
    wavefront; on 32-lane hardware the upper half is unused). Growing the
    array keeps every index valid and every value where it was, so the fix is
    safe when every use in the function is subscripted; when the array is
    also used whole (``sizeof``, passed on) it is unsafe. The cost is LDS:
    32 more elements per block. Indexing stays as it is (the lane and warp
    arithmetic is WARP001). Arrays of more dimensions (tiles) get no fix.

    Wave mode: under ``vado port --wave warp32`` (the default) the program
    keeps CUDA's 32-lane warps (WARP009), so this pattern is right as it
    stands: ROCm targets get "moves as is" and no fix. The fix above is
    what ``--wave native`` applies.

    References
    ----------
    - HIP hardware implementation (wavefront sizes): https://github.com/ROCm/HIP/blob/c5e11fcac8249ce4f7e70157588ff9661a870b59/docs/understand/hardware_implementation.rst
    """

    code = "WARP004"
    triggers = frozenset({"__shared__"})
    can_fix = True
    name = "shared-array-of-warp-width"
    severity = Severity.MEDIUM
    file_kinds = cs.CUDA_CXX_KINDS

    def check(self, ctx: FileContext) -> Iterable[Finding]:
        view = cs.device_view(ctx)
        if not view.shared:
            return
        toks = view.tokens
        macros = None
        covered = emulated(ctx)
        manual = wave_verdicts(ctx, fixable=False, covered=covered)
        for decl in view.shared:
            verdicts = manual
            if not decl.dims:
                continue
            dim = decl.dims[0].strip()
            if not (cs.int_value(dim) == 32 or dim == "32"):
                if macros is None:
                    macros = _warp_size_macros(view)
                if dim not in macros:
                    continue
            pairs, starts = view.pairs, view.token_starts
            func = view.function_at(decl.name_start)
            lo, hi = (func.body_start, func.body_end) if func else (decl.end, len(ctx.text))
            lo = max(lo, decl.name_end + 1)
            first, last = bisect.bisect_left(starts, lo), bisect.bisect_left(starts, hi)
            for i in range(first, last):
                tok = toks[i]
                if tok[0] is not Kind.IDENT or tok[3] != decl.name or i + 1 >= len(toks) or toks[i + 1][3] != "[":
                    continue
                close = pairs.get(i + 1)
                if close is None:
                    continue
                if not _lane_or_warp_index(toks, i + 2, close):
                    continue
                idx = cs.text_of(ctx.text, toks, i + 2, close)
                fix = None if covered else self._grow_fix(ctx, view, decl, first, last)
                if fix is not None and fix.applicability is Applicability.SAFE:
                    verdicts = wave_verdicts(ctx, fixable=True, covered=False)
                yield self.finding(ctx, decl.name_start, decl.name_end,
                                   f"__shared__ {decl.name}[{dim}] has one slot per lane/warp (indexed by `{idx}`) of a 32-lane warp",
                                   verdicts, fix=fix, effort=Effort(lines=2, constructs=1, hours=0.5),
                                   data={"array": decl.name, "size": dim, "index": idx, **_WARP_NOTE})
                break

    @staticmethod
    def _grow_fix(ctx: FileContext, view: cs.DeviceView, decl, first: int, last: int) -> Fix | None:
        """``[32]`` → ``[64]`` for a one-dimensional array: the slot count of the widest wavefront.

        A larger array holds every index the old one did, so the values read and
        written stay the same; the fix is safe when every use in the function is
        subscripted (``sizeof(a)`` or ``std::size(a)`` would see the new size).
        """
        if len(decl.dims) != 1:
            return None
        toks, pairs = view.tokens, view.pairs
        j = bisect.bisect_left(view.token_starts, decl.name_end)
        if j + 2 >= len(toks) or toks[j][3] != "[" or pairs.get(j) != j + 2:
            return None
        subscripted = all(
            toks[k + 1][3] == "[" for k in range(first, last)
            if toks[k][0] is Kind.IDENT and toks[k][3] == decl.name and k + 1 < len(toks)
        )
        return Fix((ctx.edit(toks[j + 1][1], toks[j + 1][2], "64"),),
                   Applicability.SAFE if subscripted else Applicability.UNSAFE,
                   f"size {decl.name} for 64-lane wavefronts", ("warp",))


class HardCodedWarpSize(Rule):
    """A warp-size constant defined as 32, or ``warpSize`` used as a compile-time constant.

    What it does
    ------------
    Finds ``#define WARP_SIZE 32``-style macros, ``constexpr``/``const``
    integers named like a warp size and set to 32 (``constexpr int kWarpSize = 32``),
    and uses of ``warpSize`` where C++ needs a constant expression: array
    bounds, template arguments, ``static_assert``, ``constexpr`` initialisers
    and ``case`` labels.

    Why is this bad?
    ----------------
    On CDNA the warp is 64 lanes, so the constant is wrong there. HIP 7.0 made
    ``warpSize`` a run-time value, so constant-expression uses stop compiling.

    Example
    -------
    .. code-block:: cuda

        #define WARP_SIZE 32
        constexpr int kWarps = 256 / warpSize;

    Use instead
    -----------
    .. code-block:: cuda

        #if defined(__GFX9__)
        #define WARP_SIZE 64
        #else
        #define WARP_SIZE 32
        #endif
        int warps = blockDim.x / warpSize;  // at run time

    Fix safety
    ----------
    A ``#define`` whose every use in the file is run-time device code (not an
    array bound, template argument, ``constexpr`` or ``case`` label) gets an
    unsafe fix: define it as ``warpSize``. Unsafe because other files that
    include the header may use the macro on the host or as a constant. Other
    cases get no fix: whether a per-architecture constant or a run-time value
    is right depends on how the constant is used (host code cannot see the
    device's warp size at compile time).

    Wave mode: under ``vado port --wave warp32`` (the default) the program
    keeps CUDA's 32-lane warps (WARP009), so this pattern is right as it
    stands: ROCm targets get "moves as is" and no fix. The fix above is
    what ``--wave native`` applies.

    References
    ----------
    - HIP 7.0 changelog (warpSize not constexpr): https://github.com/ROCm/rocm-systems/blob/develop/projects/clr/CHANGELOG.md
    - HIP kernel language: https://github.com/ROCm/HIP/blob/c5e11fcac8249ce4f7e70157588ff9661a870b59/docs/reference/kernel_language.rst
    """

    code = "WARP005"
    can_fix = True
    name = "hard-coded-warp-size"
    severity = Severity.MEDIUM
    file_kinds = cs.CUDA_CXX_KINDS

    _NAME = re.compile(r"^k?_?(?:warp|wave(?:front)?)_?(?:size|width|sz|lanes?)$|^(?:WARP|WAVE)_?(?:SIZE|WIDTH|SZ|LANES)$|^(?:warp|wave)(?:Size|Width)$|^kWarp(?:Size|Width)$", re.I)

    def check(self, ctx: FileContext) -> Iterable[Finding]:
        view = cs.device_view(ctx)
        # Every name _NAME accepts spells "warp" or "wave" (any case), warpSize included, and
        # every name this rule reads is an identifier of the code: the file's distinct
        # identifiers, a small part of its text, decide.
        if not view.spelling_index.spelling_mentions(Kind.IDENT, ("warp", "wave")):
            return
        toks = view.tokens
        covered = emulated(ctx)
        const_verdicts = wave_verdicts(ctx, fixable=False, covered=covered)
        wide = wide_warps(ctx)
        platform_width = wide.name if wide is not None else ""
        for m in view.defines:
            if m.name == platform_width:
                continue  # the other platforms' value of a width chosen per platform (64 under HIP)
            if len(m.body) == 1 and cs.int_value(m.body[0][3]) == 32 and self._NAME.match(m.name):
                fix = None
                uses = [k for k in view.ident_indices((m.name,)) if toks[k][1] != m.name_start]
                if not covered and uses and all(view.in_device_code(toks[k][1]) and self._constant_context(toks, k, view.pairs) is None
                                                for k in uses):
                    fix = Fix((ctx.edit(m.body[0][1], m.body[0][2], "warpSize"),), Applicability.UNSAFE,
                              f"define {m.name} as warpSize (every use in this file is run-time device code)", ("warp",))
                yield self.finding(ctx, m.name_start, m.body[0][2], f"{m.name} is defined as 32; AMD CDNA wavefronts are 64 lanes",
                                   const_verdicts, fix=fix, effort=Effort(lines=1, constructs=1, hours=0.5), data={"name": m.name, **_WARP_NOTE})
        n = len(toks)
        warp_size = view.ident_indices(("warpSize",))
        pairs = view.pairs if warp_size else {}
        # ``NAME = 32``: the literal two tokens on; then the uses of warpSize.
        for i in sorted({k - 2 for k in view.number_indices(32) if k >= 2} | set(warp_size)):
            tok = toks[i]
            if tok[0] is Kind.IDENT and self._NAME.match(tok[3]) and i + 2 < n and toks[i + 1][3] == "=" \
                    and toks[i + 2][0] is Kind.NUMBER and cs.int_value(toks[i + 2][3]) == 32 \
                    and (i + 3 >= n or toks[i + 3][3] in (";", ",")):
                prefix = {t[3] for t in toks[cs.statement_start(toks, i):i]}
                if prefix & {"const", "constexpr", "static"} and tok[3] != "warpSize" or tok[3] == "warpSize" and prefix:
                    yield self.finding(ctx, tok[1], toks[i + 2][2], f"{tok[3]} = 32 hard-codes the warp width",
                                       const_verdicts, effort=Effort(lines=1, constructs=1, hours=0.5), data={"name": tok[3], **_WARP_NOTE})
            if tok[0] is Kind.IDENT and tok[3] == "warpSize":
                ctx_kind = self._constant_context(toks, i, pairs)
                if ctx_kind:
                    verdicts = verdicts_for(ctx, lambda t: Verdict.MOVES_AS_IS if covered and t.family == "rocm"
                                            else self._constexpr_verdict(t))
                    yield self.finding(ctx, tok[1], tok[2], f"warpSize used as a constant expression ({ctx_kind}); HIP 7.0 made it a run-time value",
                                       verdicts, severity=Severity.HIGH, effort=Effort(lines=1, constructs=1, hours=0.5),
                                       data={"context": ctx_kind})

    @staticmethod
    def _constexpr_verdict(target) -> Verdict | None:
        if target.family == "rocm":
            return Verdict.MOVES_AS_IS if target.features.get("warpsize_constexpr") else Verdict.MANUAL
        if target.family == "oneapi":
            return Verdict.MANUAL
        if target.family in ("scale", "zluda"):
            # SCALE documents warpSize as a compile-time constant (inline-ptx.md, "Querying warp
            # size"); ZLUDA runs binaries that nvcc compiled, where warpSize is constant.
            return Verdict.MOVES_AS_IS
        return None

    @staticmethod
    def _constant_context(toks: list, i: int, pairs: Mapping[int, int]) -> str | None:
        s = cs.statement_start(toks, i)
        head = [t[3] for t in toks[s:i]]
        if "constexpr" in head or "static_assert" in head:
            return "constexpr" if "constexpr" in head else "static_assert"
        if "case" in head[:1]:
            return "case label"
        # inside [...] of a declaration: T name[warpSize]
        depth_open = None
        for j in range(i - 1, s - 1, -1):
            if toks[j][3] == "[" and pairs.get(j, -1) > i:
                depth_open = j
                break
        if depth_open is not None and depth_open >= 2 and toks[depth_open - 1][0] is Kind.IDENT \
                and toks[depth_open - 2][0] is Kind.IDENT and toks[depth_open - 2][3] not in ("return", "delete"):
            return "array bound"
        # template argument: name<... warpSize ...>
        j = i - 1
        depth = 0
        while j >= s:
            t = toks[j][3]
            if t == ">":
                depth += 1
            elif t == "<":
                if depth == 0:
                    if j > 0 and toks[j - 1][0] is Kind.IDENT and toks[j - 1][3][:1].isalpha() and toks[j - 1][3] not in ("if", "while", "return"):
                        k = i + 1
                        while k < len(toks) and toks[k][3] not in (">", ";", "{", ")", "<"):
                            k += 1
                        if k < len(toks) and toks[k][3] == ">" and k + 1 < len(toks) and toks[k + 1][3] in ("(", "::", "{"):
                            return "template argument"
                    break
                depth -= 1
            elif t in (";", "{", "}", "("):
                break
            j -= 1
        return None


class ShuffleReductionFrom16(Rule):
    """Warp shuffle loops whose offsets start at 16: a 32-lane reduction or scan.

    What it does
    ------------
    Finds ``for`` loops whose counter starts at 16 and halves (``o >>= 1``,
    ``o /= 2``) or that count 1, 2, 4 … up to 32 (``o < 32``, ``o <= 16``), and
    whose body calls ``__shfl_down*``/``__shfl_xor*``/``__shfl_up*`` with the
    counter as the offset.

    Why is this bad?
    ----------------
    On a 64-lane wavefront such a loop reduces lanes 0-31 and 32-63 separately:
    lane 0 ends with half the sum. It is right only if the surrounding code also
    treats each wavefront as two 32-lane halves (``lane = tid & 31``, one
    result per half).

    Example
    -------
    .. code-block:: cuda

        for (int offset = 16; offset > 0; offset >>= 1)
            v += __shfl_down_sync(0xffffffff, v, offset);

    Use instead
    -----------
    .. code-block:: cuda

        for (int offset = warpSize / 2; offset > 0; offset >>= 1)
            v += __shfl_down_sync(0xffffffffffffffffull, v, offset);

    Fix safety
    ----------
    vado offers ``16`` → ``warpSize / 2`` (or ``32`` → ``warpSize`` as the
    bound of an ascending loop) as an unsafe fix: the reduction then spans the
    whole wavefront, which is wrong if other code still collects one result per
    32 lanes.

    Wave mode: under ``vado port --wave warp32`` (the default) the program
    keeps CUDA's 32-lane warps (WARP009), so this pattern is right as it
    stands: ROCm targets get "moves as is" and no fix. The fix above is
    what ``--wave native`` applies.

    References
    ----------
    - HIP warp shuffle functions: https://github.com/ROCm/HIP/blob/c5e11fcac8249ce4f7e70157588ff9661a870b59/docs/reference/kernel_language.rst
    """

    code = "WARP006"
    can_fix = True
    name = "shuffle-reduction-from-16"
    severity = Severity.HIGH
    file_kinds = cs.CUDA_CXX_KINDS

    _SHUFFLES = frozenset({"__shfl_down_sync", "__shfl_xor_sync", "__shfl_up_sync", "__shfl_down", "__shfl_xor", "__shfl_up"})
    triggers = _SHUFFLES

    def check(self, ctx: FileContext) -> Iterable[Finding]:
        view = cs.device_view(ctx)
        # A loop matches only when its body calls a shuffle: no shuffle, no finding.
        if not view.ident_indices(self._SHUFFLES):
            return
        toks, pairs = view.tokens, view.pairs
        n = len(toks)
        covered = emulated(ctx)
        verdicts = wave_verdicts(ctx, fixable=False, covered=covered)
        for i in view.ident_indices(("for",)):
            tok = toks[i]
            if i + 1 >= n or toks[i + 1][3] != "(" or (i + 1) not in pairs:
                continue
            close = pairs[i + 1]
            header = toks[i + 2:close]
            texts = [t[3] for t in header]
            semis = [k for k, t in enumerate(texts) if t == ";"]
            if len(semis) != 2:
                continue
            init, cond, step = header[:semis[0]], header[semis[0] + 1:semis[1]], header[semis[1] + 1:]
            eq = [k for k, t in enumerate(init) if t[3] == "="]
            if not eq:
                continue
            var_tok = init[eq[0] - 1]
            start_tok = init[eq[0] + 1] if eq[0] + 1 < len(init) else None
            if var_tok[0] is not Kind.IDENT or start_tok is None or start_tok[0] is not Kind.NUMBER:
                continue
            start_val = cs.int_value(start_tok[3])
            step_text = "".join(t[3] for t in step)
            var = var_tok[3]
            edit_tok = None
            if start_val == 16 and re.search(rf"{re.escape(var)}(>>=1|/=2|={re.escape(var)}>>1|={re.escape(var)}/2)", step_text):
                edit_tok, repl = start_tok, "warpSize / 2"
            elif start_val == 1 and re.search(rf"{re.escape(var)}(<<=1|\*=2|={re.escape(var)}<<1|={re.escape(var)}\*2)", step_text):
                nums = [t for t in cond if t[0] is Kind.NUMBER]
                cond_text = "".join(t[3] for t in cond)
                if len(nums) == 1 and ((cs.int_value(nums[0][3]) == 32 and "<" in cond_text and "<=" not in cond_text)
                                       or (cs.int_value(nums[0][3]) == 16 and "<=" in cond_text)):
                    edit_tok = nums[0]
                    repl = "warpSize" if cs.int_value(nums[0][3]) == 32 else "warpSize / 2"
            if edit_tok is None:
                continue
            # the body: a braced block or one statement
            b0 = close + 1
            if b0 < n and toks[b0][3] == "{" and b0 in pairs:
                body = range(b0, pairs[b0])
            else:
                e = b0
                while e < n and toks[e][3] != ";":
                    e += 1
                body = range(b0, e)
            uses = False
            for k in body:
                if toks[k][3] in self._SHUFFLES and k + 1 < n and (k + 1) in pairs:
                    args = cs.split_args(toks, k + 1, pairs[k + 1])
                    offset_arg = args[2] if toks[k][3].endswith("_sync") and len(args) >= 3 else (args[1] if len(args) >= 2 else None)
                    if offset_arg and var in _idents(toks, *offset_arg):
                        uses = True
                        break
            if not uses:
                continue
            fix = None if covered else Fix((ctx.edit(edit_tok[1], edit_tok[2], repl),), Applicability.UNSAFE,
                                           f"let the shuffle loop span the wavefront ({repl})", ("warp",))
            yield self.finding(ctx, tok[1], toks[close][2], f"shuffle loop over `{var}` covers 32 lanes; a 64-lane wavefront is reduced in two halves",
                               verdicts, fix=fix, effort=Effort(lines=2, constructs=1, hours=0.5), data={"counter": var, **_WARP_NOTE})


class ImplicitWarpSynchronousReduction(Rule):
    """Warp-synchronous shared-memory code without ``__syncwarp``: the unrolled ``tid < 32`` reduction.

    What it does
    ------------
    Finds ``if (tid < 32)`` (or ``<= 31``) blocks that update a shared or
    ``volatile`` array from offsets 32, 16, 8 … (``sdata[tid] += sdata[tid + 16]``)
    with no ``__syncwarp()``/``__syncthreads()`` between the steps.

    Why is this bad?
    ----------------
    The code relies on the 32 lanes running in lockstep. AMD wavefronts do run
    in lockstep (32 lanes of a 64-lane wavefront included), so on ROCm, SCALE and
    ZLUDA it works as it did before Volta. SYCL sub-groups are 8-32 lanes and
    work-items of different sub-groups are not in lockstep, so on oneAPI it
    races. Even on NVIDIA it is undefined behaviour since independent thread
    scheduling (Volta).

    Example
    -------
    .. code-block:: cuda

        if (tid < 32) {
            volatile float* s = sdata;
            s[tid] += s[tid + 32];
            s[tid] += s[tid + 16];
        }

    Use instead
    -----------
    .. code-block:: cuda

        if (tid < 32) {
            float v = sdata[tid] + sdata[tid + 32];
            for (int o = 16; o > 0; o >>= 1) v += __shfl_down(v, o, 32);
            if (tid == 0) sdata[0] = v;
        }

    Fix safety
    ----------
    No automatic fix: the rewrite restructures the reduction.

    References
    ----------
    - HIP warp cross-lane functions (lockstep): https://github.com/ROCm/HIP/blob/c5e11fcac8249ce4f7e70157588ff9661a870b59/docs/reference/kernel_language.rst
    """

    code = "WARP007"
    name = "implicit-warp-synchronous-reduction"
    severity = Severity.LOW
    file_kinds = cs.CUDA_CXX_KINDS

    @staticmethod
    def _verdict(target) -> Verdict | None:
        if target.family in ("rocm", "scale", "zluda"):
            return Verdict.MOVES_AS_IS
        if target.family == "oneapi":
            return Verdict.MANUAL
        return None

    def check(self, ctx: FileContext) -> Iterable[Finding]:
        view = cs.device_view(ctx)
        toks = view.tokens
        n = len(toks)
        # The condition ends in ``< 32`` or ``<= 31``: start from those literals and
        # walk out to the ``if`` whose parenthesis the literal closes.
        candidates = []
        pairs = None
        for k in view.number_indices(32, 31):
            if k + 1 < n and toks[k + 1][3] == ")":
                if pairs is None:
                    pairs = view.pairs
                o = pairs.get(k + 1)
                if o is not None and o < k + 1 and o >= 1 and toks[o - 1][3] == "if":
                    candidates.append(o - 1)
        for i in candidates:
            tok = toks[i]
            if i + 1 >= n or toks[i + 1][3] != "(" or (i + 1) not in pairs:
                continue
            close = pairs[i + 1]
            cond = toks[i + 2:close]
            if len(cond) < 3:
                continue
            cmp_ok = (cond[-2][3] == "<" and cs.int_value(cond[-1][3]) == 32) or (cond[-2][3] == "<=" and cs.int_value(cond[-1][3]) == 31)
            if not cmp_ok or not _is_laneish(_idents(toks, i + 2, close - 2)):
                continue
            b0 = close + 1
            if b0 >= n or toks[b0][3] != "{" or b0 not in pairs:
                continue
            body_end = pairs[b0]
            steps = 0
            synced = False
            for k in range(b0, body_end):
                t = toks[k][3]
                if t in ("__syncwarp", "__syncthreads", "__syncthreads_count"):
                    synced = True
                if t == "[" and k in pairs:
                    inner = toks[k + 1:pairs[k]]
                    if len(inner) >= 3 and inner[-2][3] == "+" and cs.int_value(inner[-1][3]) in (32, 16, 8, 4, 2, 1) \
                            and _is_laneish(_idents(toks, k + 1, pairs[k])):
                        steps += 1
            if steps < 2 or synced:
                continue
            verdicts = verdicts_for(ctx, self._verdict)
            yield self.finding(ctx, tok[1], toks[close][2],
                               f"{steps} shared-memory steps under `{cs.text_of(ctx.text, toks, i + 2, close)}` rely on warp lockstep without __syncwarp",
                               verdicts, effort=Effort(lines=steps, constructs=1, hours=0.5), data={"steps": steps})


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


def _callee(toks, k: int, lo: int) -> str:
    """The name before the ``(`` whose argument list holds token ``k`` (``""`` when none is found from ``lo``)."""
    depth = 0
    for j in range(k - 1, lo - 1, -1):
        t = toks[j][3]
        if t in (")", "]", "}"):
            depth += 1
        elif t in ("(", "[", "{"):
            if depth == 0:
                return toks[j - 1][3] if t == "(" and j > 0 and toks[j - 1][0] is Kind.IDENT else ""
            depth -= 1
    return ""


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
                    prev[0] is Kind.IDENT and prev[3] not in ("return", "else", "case", "throw"))):
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


_DECL_PREV = frozenset({"return", "else", "case", "throw", "do", "co_return"})


def _in_directive(toks, i: int) -> bool:
    """Whether token ``i`` is an operand of a preprocessor line (a ``#define`` body, an ``#if`` condition)."""
    for j in range(i - 1, -1, -1):
        kind = toks[j][0]
        if kind is Kind.DIRECTIVE:
            return True
        if kind is Kind.EOD:
            return False
    return False


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
    kernels' ``blockIdx.x * warpSize`` is 32 too. A ``warpSize`` the program
    declares itself (a parameter or local: in that function; a macro or a
    file-scope variable: in the file) is its own and is left as it is.

    Code already written for AMD's 64-lane wavefronts is left as it is too,
    with one "moves as is" note: a file that picks its warp width per
    platform (``#ifdef __HIP_PLATFORM_AMD__`` / ``#define WARP_SIZE 64`` /
    ``#else`` / ``#define WARP_SIZE 32``; ``USE_ROCM``, ``__HIPCC__`` and the
    like count too; in the file or, in a tree audit or port, in a project
    header it includes, as vLLM's ``csrc/cuda_compat.h``), instantiates a warp helper for 64 lanes
    (``warp_reduce_any<64>(…)``) or shuffles with width 64. Its warp helpers
    compute over 64-lane groups under HIP; the 32-lane helpers would leave
    lanes 32-63 of each group out. The other WARP rules judge such a file as
    under ``--wave native`` (:func:`wide_warps`).

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
    report them as moving as is on ROCm. A wavefront keeps running its two
    warps in lockstep, which CUDA code may rely on less, never more. On a
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
    triggers = frozenset(WARP32_CALLS) | {"warpSize"}
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
        for i in hits:
            tok = toks[i]
            func = view.function_at(tok[1])
            if func is not None and func.name.startswith("vado_"):
                continue  # a helper of vado's own (vado.port.wave, vado.port.compat)
            prev = toks[i - 1] if i > 0 else None
            if prev is not None and prev[3] in (".", "->") and tok[3] == "warpSize" and i >= 2:
                yield from self._host_property(ctx, view, toks, i, verdicts)
                continue
            if prev is not None and prev[3] in (".", "->", "::"):
                continue  # a member (cg::tiled_partition's shfl)
            name = tok[3]
            if name == "warpSize":
                if not (view.in_device_code(tok[1]) or _in_directive(toks, i)) or _in_scopes(own, tok[1]):
                    continue  # host code, or the program's own warpSize (a macro, variable or parameter)
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
            fix = Fix((ctx.edit(tok[1], tok[2], helper),), Applicability.SAFE,
                      f"{name} → {helper} (CUDA's 32-lane warp on a 64-lane wavefront)", ("warp", "warp32"))
            yield self.finding(ctx, tok[1], toks[view.pairs[i + 1]][2],
                               f"{name} acts on the whole 64-lane wavefront on gfx90a/gfx942/gfx950"
                               + (" (and ROCm 7 rejects 32-bit masks)" if name.endswith("_sync") else "")
                               + f"; {helper} keeps CUDA's 32-lane warp", verdicts, fix=fix,
                               effort=Effort(lines=1, constructs=1, hours=0.0), data={"call": name, "helper": helper})

    def _host_property(self, ctx: FileContext, view, toks, i: int, verdicts) -> Iterable[Finding]:
        """``prop.warpSize`` read in host code (``hipDeviceProp_t``): 64 on wave64 GPUs, where the port's kernels
        keep 32-lane warps, so host arithmetic with it (``grid = rows * prop.warpSize / block``) sizes launches
        for warps the kernels do not have. Rewritten to 32 for a plain ``NAME.warpSize`` read."""
        obj = toks[i - 2]
        if obj[0] is not Kind.IDENT or view.in_device_code(obj[1]):
            return
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



#: Words that may stand before a declared name's type (``static const int* warpSize``).
_DECL_SPECIFIERS = frozenset({"const", "volatile", "static", "extern", "register", "constexpr", "inline", "unsigned",
                              "signed", "long", "short", "struct", "class", "__shared__", "__device__", "__constant__",
                              "__restrict__", "auto"})
#: Type words a parameter list may hold before ``*``/``&`` and a name (``f(int* warpSize)``): in
#: ``f(n * warpSize)`` the word before ``*`` is a value, which these never are.
_TYPE_WORDS = frozenset({"int", "unsigned", "signed", "long", "short", "char", "float", "double", "bool", "void",
                         "size_t", "int32_t", "uint32_t", "int64_t", "uint64_t", "auto", "const"})
#: Words before a name that make it an operand, not a declaration (``return warpSize``, ``sizeof warpSize``).
_NOT_DECL_PREV = _DECL_PREV | {"sizeof", "alignof", "new", "delete", "co_yield", "co_await", "typeid", "decltype"}


def declares_warp_size(toks, k: int) -> bool:
    """Whether ``warpSize`` at token ``k`` is declared by the program: a macro (``#define warpSize …``),
    a variable or a parameter (``int warpSize``, ``const int* warpSize = …``, ``f(int& warpSize)``).

    A product or a bitwise and is not a declaration: ``tl = blockIdx.x * warpSize;``,
    ``f(n * warpSize)`` and ``x & warpSize`` read the built-in (issue 26: reading the first as a
    pointer declaration turned the whole file's rewrite off).
    """
    if k <= 0:
        return False
    prev = toks[k - 1]
    if prev[0] is Kind.DIRECTIVE:
        return True  # #define warpSize …
    if _in_directive(toks, k):
        return False  # a macro body: #define LANES warpSize
    nxt = toks[k + 1][3] if k + 1 < len(toks) else ";"
    if prev[0] is Kind.IDENT:
        return prev[3] not in _NOT_DECL_PREV
    if prev[3] not in ("*", "&", "&&") or k < 2 or nxt not in ("=", ";", ",", ")", "[", "{"):
        return False
    kind_word = toks[k - 2]
    if kind_word[0] is not Kind.IDENT or kind_word[3] in _NOT_DECL_PREV:
        return False
    before = toks[k - 3] if k >= 3 else None
    if before is None or before[0] is Kind.EOD or before[3] in (";", "{", "}"):
        return True  # a statement that starts with `T* warpSize`
    if before[0] is Kind.IDENT:
        return before[3] in _DECL_SPECIFIERS or kind_word[3] in _TYPE_WORDS
    if before[3] in ("(", ","):
        return kind_word[3] in _TYPE_WORDS  # a parameter list, as far as the words show
    return False


def _own_warp_size_scopes(view: cs.DeviceView, uses: list[int]) -> list[tuple[int, int]]:
    """The ``(start, end)`` offsets where ``warpSize`` is the program's own: the function that declares
    it (as a parameter or local), or the whole file for a macro or a file-scope declaration."""
    toks = view.tokens
    out = []
    for k in uses:
        if not declares_warp_size(toks, k):
            continue
        at = toks[k][1]
        func = view.function_at(at) or next((f for f in view.functions if f.name_end <= at < f.body_start), None)
        out.append((0, len(view.text)) if func is None or toks[k - 1][0] is Kind.DIRECTIVE
                   else (func.start, func.body_end))
    return out


def _in_scopes(scopes: list[tuple[int, int]], at: int) -> bool:
    return any(a <= at < b for a, b in scopes)


_GRID_NAMES = re.compile(r"grid|block|warp|thread|lane|wave", re.I)


class HostWarpWidthArithmetic(Rule):
    """Host code that sizes a launch for 32-lane warps beside kernels that use ``warpSize``.

    What it does
    ------------
    In a file whose device code reads ``warpSize``, finds host-code
    arithmetic with the literal 32 (``* 32``, ``/ 32``, ``32 *``) in a kernel
    launch's configuration, a ``dim3`` initialiser, or an assignment to a
    grid, block, warp or thread count (``int grid = rows * 32 / block;``).

    Why is this bad?
    ----------------
    The host decides how many warps a launch has assuming 32 lanes each, and
    the kernel divides the block by ``warpSize``. On wave64 GPUs the kernel
    sees half the warps the host planned for: rows are skipped, or each warp
    does the work of two.

    Example
    -------
    .. code-block:: cuda

        __global__ void spmv(...) { int warp = (blockIdx.x * blockDim.x + threadIdx.x) / warpSize; ... }
        int grid = (rows * 32 + 255) / 256;
        spmv<<<grid, 256>>>(...);

    Use instead
    -----------
    .. code-block:: cuda

        int ws = prop.warpSize;          // hipDeviceProp_t: 64 on CDNA
        int grid = (rows * ws + 255) / 256;

    Fix safety
    ----------
    No fix. Under warp32 emulation (the default port) ``warpSize`` becomes 32
    in device code, so host and device agree again: ROCm targets get "moves
    as is". With ``--wave native`` the host arithmetic must read the device's
    warp size (``hipDeviceProp_t::warpSize``) by hand.

    References
    ----------
    - HIP device properties (warpSize): https://rocm.docs.amd.com/projects/HIP/en/latest/doxygen/html/structhip_device_prop__t.html
    """

    code = "WARP010"
    triggers = frozenset({"warpSize"})
    name = "host-warp-width-arithmetic"
    severity = Severity.MEDIUM
    file_kinds = cs.CUDA_CXX_KINDS

    def check(self, ctx: FileContext) -> Iterable[Finding]:
        view = cs.device_view(ctx)
        toks = view.tokens
        if not any(view.in_device_code(toks[k][1]) and not (k > 0 and toks[k - 1][3] in (".", "->"))
                   for k in view.ident_indices(("warpSize",))):
            return
        n = len(toks)
        verdicts = None
        for i in view.number_indices(32):
            tok = toks[i]
            if view.in_device_code(tok[1]) or _in_directive(toks, i):
                continue
            before = toks[i - 1][3] if i > 0 else ""
            after = toks[i + 1][3] if i + 1 < n else ""
            if before not in ("*", "/") and after != "*":
                continue
            s = cs.statement_start(toks, i)
            e = i
            while e < n and toks[e][3] not in (";", "{", "}"):
                e += 1
            stmt = toks[s:e]
            words = [t[3] for t in stmt if t[0] is Kind.IDENT]
            launch = "dim3" in words or any(t[3] == "<<<" or t[3] == "<<" and k + 1 < len(stmt) and stmt[k + 1][3] == "<"
                                            for k, t in enumerate(stmt))  # `<< <`: a launch clang-format split
            assigned = next((t[3] for k, t in enumerate(stmt[:-1]) if t[0] is Kind.IDENT and stmt[k + 1][3] == "="), None)
            if not (launch or (assigned and _GRID_NAMES.search(assigned))):
                continue
            if verdicts is None:
                verdicts = wave_verdicts(ctx, fixable=False)
            what = "a launch configuration" if launch else f"`{assigned}`"
            yield self.finding(ctx, (toks[i - 1] if before in ("*", "/") else tok)[1], (tok if before in ("*", "/") else toks[i + 1])[2],
                               f"host code sizes {what} for 32-lane warps while the kernels divide by warpSize (64 on wave64 GPUs)",
                               verdicts, effort=Effort(lines=1, constructs=1, hours=0.25), data={"assigned": assigned or ""})
