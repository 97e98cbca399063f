"""Wave modes (``--wave warp32``, the default, or ``native``) and wavefront-aware code: which CUDA warp
functions warp32 emulation points at a ``vado_*32`` helper, and where a file shows its warp code is
already written for 64-lane wavefronts (:func:`wide_warps`), which warp32 emulation then leaves alone.
"""

from __future__ import annotations

import re

from vado.model import Verdict
from vado.rules import cuda_syntax as cs
from vado.rules.base import FileContext, verdicts_for
from vado.rules.warp.common import _callee
from vado.scan.lexer import Kind

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
#: HIP-named macros no ROCm 6+ build defines (preprocessor.yaml's ``amd`` configuration; ROCm 7.2.4's hipcc
#: with hip_runtime.h defines __HIP_PLATFORM_AMD__ only): a width set under them is not the AMD build's
#: (inplace-abn 1.1.0: WARP_SIZE 64 under __HIP_PLATFORM_HCC__, so ROCm 7 compiles its 32).
#: A condition word naming the CUDA build (``__CUDA_ARCH__``, ``__CUDACC__``, ``AMREX_USE_CUDA``).
_CUDA_CONDITION = re.compile(r"(?:^|_)(?:CUDA|CUDACC|NVCC|NVIDIA)(?:_|$)", re.I)
_NOT_AMD = frozenset({"__HIP_PLATFORM_HCC__", "__HIP_PLATFORM_NVIDIA__", "__HIP_PLATFORM_NVCC__"})
#: Spellings of a 64-lane width: AMD's wavefront size macro, HIP's warpSize.
_WIDE_WORDS = frozenset({"warpSize", "__AMDGCN_WAVEFRONT_SIZE", "__AMDGCN_WAVEFRONT_SIZE__"})
_WARP_NAME = re.compile(r"warp|wave", re.I)


class WideWarps:
    """Why a file's warp code is taken as written for 64-lane wavefronts: where (``start``, ``end``)
    and what (``why``)."""

    __slots__ = ("start", "end", "why", "name", "conds")

    def __init__(self, start: int, end: int, why: str, name: str = "", conds: tuple[str, ...] = ()):
        #: the platform width's name (``WARP_SIZE``), when the sign is one
        self.start, self.end, self.why, self.name = start, end, why, name
        #: the conditions of the HIP ``#if`` groups around a platform width, innermost first (all must hold)
        self.conds = conds


def _is_wide(tok) -> bool:
    return tok[3] in _WIDE_WORDS or (tok[0] is Kind.NUMBER and cs.int_value(tok[3]) == 64)


def hip_regions(view: cs.DeviceView) -> list[tuple[int, int, str]]:
    """``(start, end, condition)`` of each ``#if`` group whose condition (of its ``#if`` or an ``#elif``)
    names the HIP/AMD build (``__HIP_PLATFORM_AMD__``, ``USE_ROCM``, ``__HIPCC__`` …); kept on the view."""
    cached = getattr(view, "_vado_hip_regions", None)
    if cached is None:
        cached = view._vado_hip_regions = _find_hip_regions(view)
    return cached


def _find_hip_regions(view: cs.DeviceView) -> list[tuple[int, int, str]]:
    toks = view.tokens
    stack: list[list] = []  # [start offset, hip condition text or ""]
    out = []
    for a, b in cs.directive_ranges(toks, view.directive_marks):
        d = toks[a][3].replace(" ", "").replace("\t", "")
        cond = [t for t in toks[a + 1:b] if t[0] is Kind.IDENT]
        hip = next((t[3] for t in cond if _HIP_CONDITION.search(t[3]) and t[3] not in _NOT_AMD), "")
        if d in ("#if", "#ifdef", "#ifndef"):
            stack.append([toks[a][1], cs.text_of(view.text, toks, a + 1, b) if hip else ""])
        elif d.startswith("#elif") and stack and hip and not stack[-1][1]:
            stack[-1][1] = cs.text_of(view.text, toks, a + 1, b)
        elif d == "#endif" and stack:
            start, text = stack.pop()
            if text:
                out.append((start, toks[b][1] if b < len(toks) else len(view.text), text))
    return out


#: A function-like macro named for the platforms of its arguments, in order: ``AMREX_HIP_OR_CUDA(a, b)``
#: (``a`` where AMReX builds for HIP, ``b`` for CUDA), ``AMREX_HIP_OR_CUDA_OR_SYCL(a, b, c)``, ``CUDA_OR_HIP(a, b)``.
_SELECTOR = re.compile(r"^(?:\w+_)?(?:HIP|ROCM|AMD|CUDA|NV|NVIDIA|SYCL|CPU|GPU|HOST)(?:_OR_(?:HIP|ROCM|AMD|CUDA|NV|NVIDIA|SYCL|CPU|GPU|HOST))+$")
_AMD_WORDS = frozenset({"HIP", "ROCM", "AMD"})
_CUDA_WORDS = frozenset({"CUDA", "NV", "NVIDIA"})


def _selector_amd_index(name: str) -> int | None:
    """The argument of selector macro ``name`` that the AMD build compiles (see :data:`_SELECTOR`), or None when
    ``name`` is not one that tells HIP and CUDA apart."""
    if "_OR_" not in name or not _SELECTOR.match(name):
        return None
    words = [part.rsplit("_", 1)[-1] for part in name.split("_OR_")]
    amd = [k for k, w in enumerate(words) if w in _AMD_WORDS]
    if len(amd) != 1 or not any(w in _CUDA_WORDS for w in words):
        return None
    return amd[0]


def selector_amd_arguments(view: cs.DeviceView) -> list[tuple[int, int]]:
    """``(start, end)`` offsets of the arguments of per-platform selector macros that the AMD build compiles:
    the project's own HIP code, written for its 64-lane wavefront (AMReX 92679ba: ``AMREX_HIP_OR_CUDA(
    __shfl_down(x, offset), __shfl_down_sync(0xffffffff, x, offset))`` inside a reduction over
    ``Gpu::Device::warp_size``, 64 where AMReX builds for HIP). The macro's definitions may live in a header
    vado does not read (AMReX's ``AMReX_GpuControl.H``, included as ``<…>``), so the name tells the argument
    order (:data:`_SELECTOR`). Kept on the view."""
    cached = getattr(view, "_vado_selector_args", None)
    if cached is not None:
        return cached
    toks, pairs, out = view.tokens, view.pairs, []
    names = [n for n in view.spelling_index.spellings(Kind.IDENT) if "_OR_" in n]
    for name in names:
        index = _selector_amd_index(name)
        if index is None:
            continue
        for i in view.ident_indices((name,)):
            if i + 1 >= len(toks) or toks[i + 1][3] != "(" or (i + 1) not in pairs or (
                    i > 0 and toks[i - 1][0] is Kind.DIRECTIVE):
                continue  # not an invocation (the #define itself, a bare mention)
            args = cs.split_args(toks, i + 1, pairs[i + 1])
            if index < len(args):
                a, b = args[index]  # b: exclusive
                if a < b:
                    out.append((toks[a][1], toks[b - 1][2]))
    out.sort()
    view._vado_selector_args = out
    return out


def in_selector_amd_argument(view: cs.DeviceView, offset: int) -> bool:
    """Whether ``offset`` lies in an argument :func:`selector_amd_arguments` finds."""
    return any(a <= offset < b for a, b in selector_amd_arguments(view))


def hip_branches(view: cs.DeviceView) -> list[tuple[int, int]]:
    """``(start, end)`` of each ``#if``/``#ifdef``/``#elif`` branch whose own condition names the HIP/AMD build
    (:data:`_HIP_CONDITION`) without negating it: the branch itself, not the group's ``#else`` or its other
    ``#elif`` branches (which :func:`hip_regions` spans). Kept on the view."""
    cached = getattr(view, "_vado_hip_branches", None)
    if cached is not None:
        return cached
    toks, out = view.tokens, []
    stack: list[int | None] = []  # per open group: where its current HIP branch starts, else None
    for a, b in cs.directive_ranges(toks, view.directive_marks):
        d = toks[a][3].replace(" ", "").replace("\t", "")
        if d in ("#if", "#ifdef", "#ifndef", "#elif", "#else", "#endif") or d.startswith("#elif"):
            if stack and stack[-1] is not None and d not in ("#if", "#ifdef", "#ifndef"):
                out.append((stack[-1], toks[a][1]))  # the HIP branch ends where the next branch begins
                stack[-1] = None
        if d in ("#if", "#ifdef", "#ifndef") or d.startswith("#elif"):
            cond = toks[a + 1:b]
            names = [t[3] for t in cond if t[0] is Kind.IDENT and _HIP_CONDITION.search(t[3]) and t[3] not in _NOT_AMD]
            # negated, or shared with a CUDA build (#if defined(USE_ROCM) || defined(__CUDA_ARCH__)): not the AMD
            # build's alone
            negated = d == "#ifndef" or any(t[3] == "!" or (t[0] is Kind.IDENT and _CUDA_CONDITION.search(t[3]))
                                            for t in cond)
            start = toks[b][2] if b < len(toks) else len(view.text)
            if d in ("#if", "#ifdef", "#ifndef"):
                stack.append(start if names and not negated else None)
            elif stack:
                stack[-1] = start if names and not negated else None
        elif d == "#endif" and stack:
            stack.pop()
    view._vado_hip_branches = out
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


def _define_value(body) -> tuple | None:
    """The one token an object-like macro's body is, inside any number of parentheses
    (``#define WARP_SIZE (warpSize)``, exllamav2's rms_norm.cu under ``USE_ROCM``); None otherwise."""
    while len(body) >= 3 and body[0][3] == "(" and body[-1][3] == ")":
        body = body[1:-1]
    return body[0] if len(body) == 1 else None


def _platform_width(view: cs.DeviceView, sixty_four: list[int], names: set[str] | None = None) -> WideWarps | None:
    """A warp or wave width (``names``: one of those) the file defines per platform: a ``#define`` or
    constant named like one, set to 64, ``warpSize`` or ``__AMDGCN_WAVEFRONT_SIZE`` inside an ``#if``
    group whose condition names the HIP/AMD build; or None."""
    toks = view.tokens
    named = [m for m in view.defines if _define_value(m.body) is not None and _is_wide(_define_value(m.body))
             and _WARP_NAME.search(m.name) and (names is None or m.name in names)]
    consts = [k - 2 for k in sixty_four if k >= 2 and toks[k - 1][3] == "=" and toks[k - 2][0] is Kind.IDENT
              and _WARP_NAME.search(toks[k - 2][3]) and (names is None or toks[k - 2][3] in names)]
    if named or consts:
        regions = hip_regions(view)
        for m in named:
            conds = tuple(c for a, b, c in regions if a <= m.start < b)
            if conds:
                return WideWarps(m.name_start, m.body[-1][2],
                                 f"{m.name} is {_define_value(m.body)[3]} under `#if {conds[0]}`", m.name, conds)
        for k in consts:
            conds = tuple(c for a, b, c in regions if a <= toks[k][1] < b)
            if conds:
                return WideWarps(toks[k][1], toks[k + 2][2], f"{toks[k][3]} is 64 under `#if {conds[0]}`", toks[k][3],
                                 conds)
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
        return WideWarps(at[1], at[2], f"{wide.why} in {header}", wide.name, wide.conds)
    return None


#: HIP-naming macros a HIP build of the port defines whatever the project's build options: the compiler's
#: own (``__HIP_PLATFORM_AMD__``, ``__HIPCC__``, ``__AMDGCN_WAVEFRONT_SIZE``, ``__gfx942__`` …), HIP's and
#: ROCm's version macros, and PyTorch's ``USE_ROCM`` (cpp_extension defines it for every ROCm build).
_PLATFORM_DEFINED = re.compile(r"^(?:__\w+|HIP_VERSION\w*|ROCM_VERSION\w*|USE_ROCM)$")
_IDENT = re.compile(r"[A-Za-z_]\w*")


def unknown_switch(wide: WideWarps, options) -> str:
    """The project's own HIP switch a platform width depends on (``USE_AMD_ROCM``, ``GGML_USE_HIP``) when
    no HIP build of the port is known to define it, or ``""``.

    The width is 64 only in a build that takes the ``#if`` group: each enclosing group's condition must
    name a macro every HIP build defines (:data:`_PLATFORM_DEFINED`) or one the project's own ROCm build
    is known to define (the rule option ``amd_defines``). A port built without that switch takes the
    ``#else`` branch, sized for 32-lane warps, while warp32 emulation leaves the file's warp functions
    acting on 64 lanes (faiss's ``DeviceDefs.cuh`` under ``USE_AMD_ROCM``, ported without its CMake option).
    """
    if not wide.conds:
        return ""
    defined = {str(d).partition("=")[0].strip() for d in _define_names((options or {}).get("amd_defines"))}
    for cond in wide.conds:
        names = [n for n in _IDENT.findall(cond) if _HIP_CONDITION.search(n)]
        if names and not any(_PLATFORM_DEFINED.match(n) or n in defined for n in names):
            return names[0]
    return ""


def _define_names(value) -> tuple[str, ...]:
    if not value:
        return ()
    if isinstance(value, str):
        value = value.replace(";", ",").split(",")
    return tuple(str(v) for v in value)


def wave_verdicts(ctx: FileContext, *, fixable: bool, covered: bool | None = None, **kw) -> dict[str, Verdict]:
    """:func:`cs.warp_verdict` per target, except "moves as is" on ROCm targets when warp32 emulation
    covers the pattern (``covered``; by default whenever the mode is warp32)."""
    if covered is None:
        covered = emulated(ctx)
    return verdicts_for(ctx, lambda t: Verdict.MOVES_AS_IS if covered and t.family == "rocm"
                        else cs.warp_verdict(t, fixable=fixable, **kw))
