"""WARP040, WARP041: CUB's warp width, which hipCUB takes from the hardware (64 lanes on AMD Instinct).

CUB's warp-level primitives (``cub::WarpReduce<T>``, ``WarpScan``, ``WarpLoad``, ``WarpStore``,
``WarpExchange``, ``WarpMergeSort``) default their logical warp to ``CUB_PTX_WARP_THREADS``, 32.
hipCUB 4.2.0 (ROCm 7.2.4, ``hipcub/backend/rocprim/warp/*.hpp``) defaults the same parameter to
``HIPCUB_DEVICE_WARP_THREADS``, ``rocprim::arch::wavefront::max_size()``: 64 on gfx90a, gfx942 and
gfx950; and ``CUB_PTX_WARP_THREADS`` renamed ``HIPCUB_WARP_THREADS`` is ``rocprim::warp_size()``, 64
there too. A CUDA kernel that reduces with ``cub::WarpReduce<float>`` and reads the result on
``lane_id == 0`` (``threadIdx.x & 31``) then adds a 64-lane sum and a partial one on a wave64 GPU:
the port builds and reports nothing, and the result differs (rapidsai/raft
``sparse/linalg/detail/utils.cuh`` ``faster_dot_on_csr_kernel``).

Under warp32 emulation (``vado port``'s default) the program keeps CUDA's 32-lane warps; these rules
write CUB's width there explicitly (``WarpReduce<float, 32>``, ``CUB_PTX_WARP_THREADS`` → ``32``), which
hipCUB runs as logical warps of lanes 0-31 and 32-63 of the wavefront: what CUDA computes.
"""

from __future__ import annotations

from typing import Iterable

from vado.model import Applicability, Effort, Finding, Fix, Severity, Verdict
from vado.rules import cuda_syntax as cs
from vado.rules.base import FileContext, Rule
from vado.rules.warp.common import _WARP_NOTE, _in_directive
from vado.rules.warp.modes import emulated, port_target, wave_verdicts
from vado.scan.lexer import Kind

#: CUB's warp-level class templates: the index of the logical-warp-width parameter, and the defaults
#: of the parameters before it that a width needs written out (WarpLoad/WarpStore: the algorithm).
WARP_PRIMITIVES = {
    "WarpReduce": (1, ()),
    "WarpScan": (1, ()),
    "WarpExchange": (2, ()),
    "WarpMergeSort": (2, ()),
    "WarpLoad": (3, ((2, "WARP_LOAD_DIRECT"),)),
    "WarpStore": (3, ((2, "WARP_STORE_DIRECT"),)),
}
#: CUB's warp-width macros and what they are for a 32-lane warp; the function-like ones take an arch.
WIDTH_MACROS = {"CUB_PTX_WARP_THREADS": "32", "CUB_PTX_LOG_WARP_THREADS": "5",
                "CUB_WARP_THREADS": "32", "CUB_LOG_WARP_THREADS": "5"}
_FUNCTION_LIKE = frozenset({"CUB_WARP_THREADS", "CUB_LOG_WARP_THREADS"})


def _uses_cub_namespace(view: cs.DeviceView) -> bool:
    """Whether the file says ``using namespace cub;`` (its CUB names may stand unqualified)."""
    toks = view.tokens
    for k in view.ident_indices(("cub",)):
        if k >= 2 and toks[k - 1][3] == "namespace" and toks[k - 2][3] == "using":
            return True
    return False


def _cub_aliases(view: cs.DeviceView) -> frozenset[str]:
    """Names the file gives CUB's namespace (``namespace cg_cub = cub;``, ``= ::cub;``), besides ``cub``.

    Only aliases of ``cub`` itself: ``namespace bnb_cub = hipcub;`` (bitsandbytes' HIP branch) names
    hipCUB, whose width the project chose."""
    toks, out = view.tokens, {"cub"}
    for k in view.ident_indices(("namespace",)):
        j = k + 3 + (k + 3 < len(toks) and toks[k + 3][3] == "::")
        if (k + 1 < len(toks) and toks[k + 1][0] is Kind.IDENT and k + 2 < len(toks) and toks[k + 2][3] == "="
                and j + 1 < len(toks) and toks[j][3] == "cub" and toks[j + 1][3] == ";"):
            out.add(toks[k + 1][3])
    return frozenset(out)


def _cub_qualified(toks, k: int, names: frozenset[str]) -> str | None:
    """``"cub::"`` (the namespace as written before token ``k``) when ``k`` is qualified by CUB's namespace
    or an alias of it, ``""`` when it is unqualified, None when another namespace qualifies it
    (``hipcub::WarpReduce``)."""
    if k >= 2 and toks[k - 1][3] == "::":
        return toks[k - 2][3] + "::" if toks[k - 2][3] in names else None
    return ""


class CubWarpPrimitiveWidth(Rule):
    """A CUB warp-level primitive that takes its logical warp width from the platform.

    What it does
    ------------
    Finds ``cub::WarpReduce``, ``WarpScan``, ``WarpLoad``, ``WarpStore``,
    ``WarpExchange`` and ``WarpMergeSort`` instantiated without their
    ``LOGICAL_WARP_THREADS`` argument.

    Why is this bad?
    ----------------
    CUB's default is 32 lanes. hipCUB (ROCm 7.2.4) defaults the same parameter
    to the hardware wavefront: 64 lanes on gfx90a, gfx942 and gfx950. A kernel
    that reduces with ``cub::WarpReduce<float>`` and takes the result on lane 0
    of each 32-lane warp (``threadIdx.x & 31``) reads a 64-lane sum on lane 0
    and an undefined partial value on lane 32; per-warp ``TempStorage[blockDim.x / 32]``
    is indexed for warps hipCUB does not have. The port builds and runs with a
    different result.

    Example
    -------
    .. code-block:: cuda

        typedef cub::WarpReduce<float> WarpReduce;
        float s = WarpReduce(temp[threadIdx.x / 32]).Sum(v);
        if ((threadIdx.x & 31) == 0) atomicAdd(out, s);

    Use instead
    -----------
    .. code-block:: cuda

        typedef hipcub::WarpReduce<float, 32> WarpReduce;  // CUDA's warp, on a 64-lane wavefront

    Fix safety
    ----------
    Under warp32 emulation (``vado port``'s default) the width is written out
    as 32 (and WarpLoad/WarpStore's algorithm argument before it, at its
    default): hipCUB then runs logical warps of lanes 0-31 and 32-63 of each
    wavefront, which is what CUDA computes for its two warps. Safe. With
    ``--wave native``, or in a file whose warp code is written for 64-lane
    wavefronts already, there is no fix: whether the program wants the
    wavefront or 32 lanes is for a person to decide. An argument list vado
    cannot split (a ``>>`` closing it) is reported without a fix.

    References
    ----------
    - hipCUB 4.2.0 ``backend/rocprim/warp/warp_reduce.hpp`` (``LOGICAL_WARP_THREADS = HIPCUB_DEVICE_WARP_THREADS``), ``config.hpp`` (``rocprim::arch::wavefront::max_size()``): https://github.com/ROCm/rocm-libraries/blob/develop/projects/hipcub/hipcub/include/hipcub/backend/rocprim/warp/warp_reduce.hpp
    - CUB ``WarpReduce`` (``LOGICAL_WARP_THREADS = CUB_PTX_WARP_THREADS``): https://nvidia.github.io/cccl/cub/api/classcub_1_1WarpReduce.html
    """

    code = "WARP040"
    triggers = frozenset(WARP_PRIMITIVES)
    can_fix = True
    name = "cub-warp-primitive-width"
    severity = Severity.HIGH
    file_kinds = cs.CUDA_CXX_KINDS

    def check(self, ctx: FileContext) -> Iterable[Finding]:
        view = cs.device_view(ctx)
        hits = view.ident_indices(WARP_PRIMITIVES)
        if not hits:
            return
        from vado.port.translate import split_call_args

        toks = view.tokens
        covered = emulated(ctx) and port_target(ctx) is not None
        manual = wave_verdicts(ctx, fixable=False, covered=False)
        automatic = _automatic(ctx, manual)
        unqualified_ok = None
        names = _cub_aliases(view) if view.ident_indices(("namespace",)) else frozenset({"cub"})
        for k in hits:
            qual = _cub_qualified(toks, k, names)
            if qual is None:
                continue
            if qual == "":
                if unqualified_ok is None:
                    unqualified_ok = _uses_cub_namespace(view)
                if not unqualified_ok or (k > 0 and toks[k - 1][3] in (".", "->")):
                    continue
            if k + 1 >= len(toks) or toks[k + 1][3] != "<" or _in_directive(toks, k):
                continue
            name = toks[k][3]
            width_at, defaults = WARP_PRIMITIVES[name]
            parsed = split_call_args(toks, k + 1, angle=True)
            if parsed is not None and len(parsed[1]) > width_at:
                continue  # the width is written: CUB's macros in it are WARP041's
            if parsed is not None and len(parsed[1]) < min([width_at, *(i for i, _ in defaults)]):
                continue  # not an instantiation vado can read (too few arguments for the class)
            fix = None
            if covered and parsed is not None:
                close, args = parsed
                missing = [default for i, default in defaults if i >= len(args)]
                ns = "hipcub::" if qual else ""
                insert = "".join(f", {ns}{d}" for d in missing) + ", 32"
                at = toks[close][1]
                fix = Fix((ctx.edit(at, at, insert),), Applicability.SAFE,
                          f"{name}: write CUB's logical warp width, 32 (hipCUB defaults to the 64-lane wavefront)",
                          ("warp", "warp32"))
            verdicts = manual if fix is None else automatic
            end = toks[parsed[0]][2] if parsed is not None else toks[k][2]
            yield self.finding(ctx, toks[k][1], end,
                               f"{qual}{name} without a logical warp width: 32 lanes in CUB, the 64-lane wavefront "
                               "in hipCUB on gfx90a/gfx942/gfx950", verdicts, fix=fix,
                               effort=Effort(lines=1, constructs=1, hours=0.0 if fix else 0.5),
                               data={"class": name, **_WARP_NOTE})


class CubWarpWidthMacro(Rule):
    """CUB's warp-width macros, which hipCUB gives the 64-lane wavefront's value on AMD Instinct.

    What it does
    ------------
    Finds ``CUB_PTX_WARP_THREADS``, ``CUB_WARP_THREADS(arch)``,
    ``CUB_PTX_LOG_WARP_THREADS`` and ``CUB_LOG_WARP_THREADS(arch)``.

    Why is this bad?
    ----------------
    They are 32 and 5 in CUB. HIPIFY renames ``CUB_PTX_WARP_THREADS`` to
    ``HIPCUB_WARP_THREADS``, which is ``rocprim::warp_size()``: 64 on gfx90a,
    gfx942 and gfx950, beside a program whose warps the port keeps at 32 lanes
    (``lane = threadIdx.x % CUB_PTX_WARP_THREADS`` then names lanes 0-63 of a
    warp the ``vado_*32`` helpers treat as 32). hipCUB has no
    ``CUB_WARP_THREADS``/``CUB_LOG_WARP_THREADS`` at all.

    Example
    -------
    .. code-block:: cuda

        int lane = threadIdx.x % CUB_PTX_WARP_THREADS;

    Use instead
    -----------
    .. code-block:: cuda

        int lane = threadIdx.x % 32;  // the program's warp under warp32 emulation

    Fix safety
    ----------
    Safe under warp32 emulation (``vado port``'s default): the macro becomes
    its CUDA value (32, or 5 for the log forms), host and device alike, as
    device ``warpSize`` and ``prop.warpSize`` become 32 (WARP009). With
    ``--wave native``, or in a file whose warp code is written for 64-lane
    wavefronts already, no fix: the program then runs the hardware's width.

    References
    ----------
    - hipCUB 4.2.0 ``config.hpp`` (``HIPCUB_WARP_THREADS ::rocprim::warp_size()``): https://github.com/ROCm/rocm-libraries/blob/develop/projects/hipcub/hipcub/include/hipcub/config.hpp
    - CUB ``util_arch.cuh`` (``CUB_PTX_WARP_THREADS``): https://github.com/NVIDIA/cccl/blob/main/cub/cub/util_arch.cuh
    """

    code = "WARP041"
    triggers = frozenset(WIDTH_MACROS)
    can_fix = True
    name = "cub-warp-width-macro"
    severity = Severity.HIGH
    file_kinds = cs.CUDA_CXX_KINDS

    def check(self, ctx: FileContext) -> Iterable[Finding]:
        view = cs.device_view(ctx)
        hits = view.ident_indices(WIDTH_MACROS)
        if not hits:
            return
        toks = view.tokens
        covered = emulated(ctx) and port_target(ctx) is not None
        manual = wave_verdicts(ctx, fixable=False, covered=False)
        for k in hits:
            name = toks[k][3]
            prev = toks[k - 1] if k > 0 else None
            if prev is not None and (prev[0] is Kind.DIRECTIVE or prev[3] in (".", "->", "::")):
                continue  # #define/#ifdef of the name, or a member
            end = k
            if name in _FUNCTION_LIKE:
                close = view.pairs.get(k + 1) if k + 1 < len(toks) and toks[k + 1][3] == "(" else None
                if close is None:
                    continue
                end = close
            value = WIDTH_MACROS[name]
            text = ctx.text[toks[k][1]:toks[end][2]]
            fix = None
            verdicts = manual
            if covered:
                fix = Fix((ctx.edit(toks[k][1], toks[end][2], value),), Applicability.SAFE,
                          f"{text} → {value}: the CUDA program's warp under warp32 emulation", ("warp", "warp32"))
                verdicts = _automatic(ctx, manual)
            yield self.finding(ctx, toks[k][1], toks[end][2],
                               f"{text} is {value} in CUB; hipCUB's width is the 64-lane wavefront on gfx90a/gfx942/"
                               "gfx950 (HIPCUB_WARP_THREADS), where the port keeps 32-lane warps", verdicts, fix=fix,
                               effort=Effort(lines=1, constructs=1, hours=0.0 if fix else 0.25),
                               data={"macro": name, "value": value, **_WARP_NOTE})



def _automatic(ctx: FileContext, manual: dict) -> dict:
    """``manual`` with ROCm targets moving with automatic edits (the warp32 fix covers them)."""
    return {**manual, **{t.name: Verdict.AUTOMATIC for t in ctx.targets if t.family == "rocm"}}
