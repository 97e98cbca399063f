"""WARP001, WARP004, WARP005, WARP010: the warp width as a number: lane and warp index arithmetic with
32, ``__shared__`` arrays of 32 indexed by lane or warp id, a warp-size constant of 32 (or ``warpSize`` as a
compile-time constant), host code that sizes a launch for 32-lane warps beside kernels that use ``warpSize``.
"""

from __future__ import annotations

import bisect
import re
from typing import Iterable, Mapping

from vado.model import Applicability, Effort, Finding, Fix, Severity, Verdict
from vado.rules import cuda_syntax as cs
from vado.rules.base import FileContext, Rule, verdicts_for
from vado.rules.warp.common import (
    _WARPISH,
    _WARP_NOTE,
    _callee,
    _idents,
    _in_directive,
    _is_laneish,
    _operand_left,
    _operand_right,
    taken_by_amd,
    under_cuda_switch,
)
from vado.rules.warp.masks import WAVE64_MIXED, WAVE64_TRUNCATES
from vado.rules.warp.modes import emulated, wave_verdicts, wide_warps
from vado.scan.lexer import Kind


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
            data = {"operand": expr, **_WARP_NOTE}
            if in_dev and op_tok[3] in ("&", "%") and lit_right and _shifts_a_lane_mask(view, a, i):
                # The lane id of a 32-lane warp builds a lane mask: right under warp32 emulation, wrong where the
                # code runs as written on 64-lane wavefronts (the project's own HIP path): lanes 32-63 get the
                # bits of lanes 0-31 (gunrock's lanemask_lt, beside its __activemask ranks).
                msg += ("; it builds a lane mask (a shift by the lane id) that names lanes 0-31: right for a 32-lane warp, "
                        "not where the code runs as written on a 64-lane wavefront")
                data[WAVE64_TRUNCATES] = True
            if in_dev and not covered:
                wide_at = _wide_in_function(ctx, view, tok[1])
                if wide_at is not None:
                    line = ctx.text.count("\n", 0, wide_at[0]) + 1
                    msg += (f"; this function's code works over the whole 64-lane wavefront (line {line}: "
                            f"`{wide_at[1]}`), which this lane arithmetic splits in two 32-lane halves: the two widths pick "
                            "different lanes (`% 32 == 31` holds for lanes 31 and 63)")
                    data[WAVE64_MIXED] = True
            yield self.finding(ctx, start, end, msg, verdicts, fix=None if covered else fix,
                               effort=Effort(lines=1, constructs=1, hours=0.1), data=data)


_SHIFTS = ("<<", ">>")
#: Lane arithmetic with the 64-lane wavefront's width: (operator, literal).
_WIDE_LANE_OPS = {("%", 64), ("&", 63), ("/", 64), (">>", 6)}


def _wide_in_function(ctx: FileContext, view: cs.DeviceView, at: int) -> tuple[int, str] | None:
    """(offset, text) of the first sign, in the function around offset ``at`` of a file whose warp code is written
    for 64-lane wavefronts (:func:`wide_warps`), that the function works over the whole wavefront: a shuffle of
    width 64, lane arithmetic by 64 (``lane % 64``, ``& 63``), ``warpSize`` or ``__AMDGCN_WAVEFRONT_SIZE``, or the
    file's platform width name (``WARP_SIZE`` defined 64 under HIP). None in any other file or function."""
    wide = wide_warps(ctx)
    if wide is None:
        return None
    func = view.function_at(at)
    toks = view.tokens
    if func is None or not taken_by_amd(ctx, (None, at, at + 1)) or under_cuda_switch(view, at):
        return None  # outside functions, or in a branch the AMD build does not compile (the CUDA path's own 32)
    names = {"warpSize", "__AMDGCN_WAVEFRONT_SIZE"} | ({wide.name} if wide.name else set())
    hits = sorted(k for k in view.ident_indices(names) if func.body_start <= toks[k][1] < func.body_end)
    for k in view.number_indices(64, 63, 6):
        if not func.body_start <= toks[k][1] < func.body_end or k < 2:
            continue
        value, prev = cs.int_value(toks[k][3]), toks[k - 1]
        if (prev[3], value) in _WIDE_LANE_OPS:
            a, b = _operand_left(toks, k - 1, view.pairs)
            if a < b and _is_laneish(_idents(toks, a, b)):
                hits.append(k)
        elif value == 64 and prev[3] == "," and k + 1 < len(toks) and toks[k + 1][3] == ")":
            if _callee(toks, k, max(0, k - 64)).startswith("__shfl"):
                hits.append(k)
    hits = [k for k in hits if taken_by_amd(ctx, toks[k])]
    if not hits:
        return None
    at = toks[min(hits)][1]
    start = ctx.text.rfind("\n", 0, at) + 1
    end = ctx.text.find("\n", at)
    line = " ".join(ctx.text[start:end if end >= 0 else len(ctx.text)].split())
    return at, line if len(line) <= 80 else line[:77] + "..."


def _shifts_a_lane_mask(view: cs.DeviceView, a: int, i: int) -> bool:
    """Whether the lane extraction ``toks[a:i + 1]`` (``threadIdx.x & 31``) is a shift count: directly
    (``1u << (threadIdx.x & 31)``, ``mask >> (tid % 32)``), or through the variable it initialises or is
    assigned to, shifted by in the same function (``int lane = threadIdx.x & 31; return (1 << lane) - 1;``)."""
    toks, pairs = view.tokens, view.pairs
    if a >= 2 and toks[a - 1][3] == "(" and pairs.get(a - 1) == i + 1 and toks[a - 2][3] in _SHIFTS:
        return True
    if a >= 2 and toks[a - 1][3] in _SHIFTS:
        return True
    if not (a >= 2 and toks[a - 1][3] == "=" and toks[a - 2][0] is Kind.IDENT and i + 1 < len(toks)
            and toks[i + 1][3] in (";", ",")):
        return False
    name = toks[a - 2][3]
    func = view.function_at(toks[a][1])
    if func is None:
        return False
    for k in view.ident_indices((name,)):
        if not func.body_start <= toks[k][1] < func.body_end or k < 2:
            continue
        prev = toks[k - 1][3]
        if prev in _SHIFTS or (prev == "(" and toks[k - 2][3] in _SHIFTS):
            return True
    return False


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
