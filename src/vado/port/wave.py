"""Warp32 emulation: the ``vado_*32`` helpers a ``--wave warp32`` port (the default) calls.

WARP009 (:class:`vado.rules.warp.WarpFunctionOnWavefront`) points each CUDA warp
function at a helper named ``vado_<name without __>32`` and device ``warpSize`` at
32; this module writes the helpers' definitions into every file that calls one, as
:mod:`vado.port.compat` does for its local definitions: the helpers the file calls
(and those they call), each under an ``#ifndef VADO_<HELPER>`` guard, after one
``// vado:`` comment, before the top-level construct that holds the first call (a
copy per ``#if`` branch that needs one).

Each helper acts on the caller's CUDA warp: lanes 0-31 or 32-63 of a 64-lane
wavefront (on a 32-lane wavefront the half is always 0 and the helpers are the
plain functions). Votes, ballots and shuffles are written with the mask-less
builtins every HIP has (``__ballot``, ``__shfl*`` with CUDA's default width 32):
a wavefront's lanes run in lockstep, so the lanes that execute a call are the
ones CUDA's mask names, and the vote is masked as CUDA defines it
(``__ballot(p) & mask``); ballots and active masks are shifted back by
``__lane_id() & 32``, so bit i is lane i of the caller's warp, as in CUDA.
ROCm 7's own ``*_sync`` builtins are not used for them: their mask check
(``__hip_check_mask``, on unless ``NDEBUG``) traps where CUDA code names lanes
that never arrive (a block of 400 threads, an ``if (threadIdx.y == 0)`` over
16-wide rows) or passes a per-lane mask (``__ballot_sync(lanemask_lt, p)``), all
of which CUDA tolerates; seen on jacobi, marchingCubes, btree, segsort and bscan
under emulated wave64.

``__match_*_sync``, ``__reduce_*_sync`` and ``__syncwarp(mask)`` have no
mask-less form: where the target's HIP has them (7.0, 6.2 for match) their
helpers pass ``vado_mask64(mask)``, the 32-bit CUDA mask shifted to the caller's
half and cut to the lanes that run the call, which ROCm's check accepts (the two
halves' masks partition the active lanes).
"""

from __future__ import annotations

import re

from vado.model import Applicability, Fix, Target
from vado.port.compat import insertion_offsets, line_start_insert
from vado.rules.cuda_syntax import spelling_index
from vado.rules.warp import WARP32_CALLS, warp32_helper, warp32_renames
from vado.scan.lexer import Kind

_WHY = ("warp32 emulation: CUDA's 32-lane warps on 64-lane wavefronts (lanes 0-31 and 32-63 are two warps); "
        "masks, ballots and lane ids name the caller's 32-lane half (vado port --wave warp32)")

_F = "static __device__ __forceinline__"


def _nvidia(nvidia: str, amd: str) -> str:
    """A definition with its HIP-on-NVIDIA form (``__HIP_PLATFORM_NVIDIA__``: CUDA's 32-lane warps, no ``__lane_id``
    or mask-less ``__ballot``), so that a port also builds for a differential run on an NVIDIA GPU."""
    return f"#if defined(__HIP_PLATFORM_NVIDIA__)\n{nvidia}#else\n{amd}#endif\n"

#: ``helper: (definition, helpers it calls)`` for both variants; the shuffles and the sync-only ones are added below.
_COMMON = {
    "vado_half32": (f"// The caller's 32-lane half of the wavefront: 0 for lanes 0-31, 32 for lanes 32-63 (0 on wave32).\n"
                    + _nvidia(f"{_F} unsigned vado_half32() {{ return 0u; }}  // HIP on NVIDIA: 32-lane warps\n",
                              f"{_F} unsigned vado_half32() {{ return __lane_id() & 32u; }}\n"), ()),
    "vado_lane32": (f"// The lane in the caller's CUDA warp (PTX %laneid).\n"
                    + _nvidia(f"{_F} unsigned vado_lane32() {{  // warps are consecutive linear thread ids\n"
                              "  return (threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z)) & 31u;\n}\n",
                              f"{_F} unsigned vado_lane32() {{ return __lane_id() & 31u; }}\n"), ()),
    # Only lanes that run the call: CUDA code often names all 32 lanes where fewer arrive (a block of
    # 400 threads, an `if (threadIdx.y == 0)` over 16-wide rows), which CUDA tolerates and ROCm 7's
    # __hip_check_mask traps on (seen on jacobi, marchingCubes, btree, segsort under emulated wave64).
    "vado_mask64": (f"// A CUDA 32-lane mask as the 64-bit HIP mask of the same lanes of the caller's half,\n"
                    f"// less the lanes that do not run this call.\n"
                    f"{_F} unsigned long long vado_mask64(unsigned mask) {{\n"
                    f"  return ((unsigned long long)mask << vado_half32()) & (unsigned long long)__activemask();\n}}\n",
                    ("vado_half32",)),
    "vado_ballot32": (_nvidia(f"{_F} unsigned vado_ballot32(int pred) {{ return __ballot_sync(__activemask(), pred); }}\n",
                              f"{_F} unsigned vado_ballot32(int pred) {{ return (unsigned)(__ballot(pred) >> vado_half32()); }}\n"),
                      ("vado_half32",)),
    "vado_any32": (f"{_F} int vado_any32(int pred) {{ return vado_ballot32(pred) != 0u; }}\n", ("vado_ballot32",)),
}

_VOTES = {
    "vado_activemask32": (_nvidia(f"{_F} unsigned vado_activemask32() {{ return __activemask(); }}\n",
                                  f"{_F} unsigned vado_activemask32() {{ return (unsigned)(__ballot(1) >> vado_half32()); }}\n"),
                          ("vado_half32",)),
    "vado_ballot_sync32": (f"{_F} unsigned vado_ballot_sync32(unsigned mask, int pred) {{ return vado_ballot32(pred) & mask; }}\n",
                           ("vado_ballot32",)),
    "vado_any_sync32": (f"{_F} int vado_any_sync32(unsigned mask, int pred) {{ return vado_ballot_sync32(mask, pred) != 0u; }}\n",
                        ("vado_ballot_sync32",)),
    # CUDA: true when the predicate holds for every non-exited lane the mask names (a partial warp's
    # absent lanes do not count), so: no lane of the mask that runs the call says false.
    "vado_all_sync32": (f"{_F} int vado_all_sync32(unsigned mask, int pred) {{ return vado_ballot_sync32(mask, !pred) == 0u; }}\n",
                        ("vado_ballot_sync32",)),
}

_SHUFFLES = (("shfl", "int src"), ("shfl_up", "unsigned int delta"), ("shfl_down", "unsigned int delta"),
             ("shfl_xor", "int lane_mask"))


def _shuffles() -> dict[str, tuple[str, tuple[str, ...]]]:
    out = {}
    for name, arg in _SHUFFLES:
        var = arg.split()[-1]
        out[f"vado_{name}32"] = (f"template <class T>\n{_F} T vado_{name}32(T var, {arg}, int width = 32) {{\n"
                                 f"  return __{name}(var, {var}, width);\n}}\n", ())
        out[f"vado_{name}_sync32"] = (f"template <class T>\n{_F} T vado_{name}_sync32(unsigned mask, T var, {arg}, "
                                      f"int width = 32) {{\n"
                                      f"  (void)mask;  // the lanes that run the call are the ones it names (lockstep)\n"
                                      f"  return __{name}(var, {var}, width);\n}}\n", ())
    return out


_MATCH = {
    "vado_match_any_sync32": ("template <class T>\n"
                              f"{_F} unsigned vado_match_any_sync32(unsigned mask, T value) {{\n"
                              "  return (unsigned)(__match_any_sync(vado_mask64(mask), value) >> vado_half32());\n}\n",
                              ("vado_mask64", "vado_half32")),
    "vado_match_all_sync32": ("template <class T>\n"
                              f"{_F} unsigned vado_match_all_sync32(unsigned mask, T value, int* pred) {{\n"
                              "  return (unsigned)(__match_all_sync(vado_mask64(mask), value, pred) >> vado_half32());\n}\n",
                              ("vado_mask64", "vado_half32")),
}

_SYNC7 = {
    "vado_syncwarp32": (f"{_F} void vado_syncwarp32(unsigned mask) {{ __syncwarp(vado_mask64(mask)); }}\n", ("vado_mask64",)),
    **{f"vado_reduce_{op}_sync32": (f"template <class T>\n{_F} T vado_reduce_{op}_sync32(unsigned mask, T value) {{\n"
                                    f"  return __reduce_{op}_sync(vado_mask64(mask), value);\n}}\n", ("vado_mask64",))
       for op in ("add", "min", "max", "and", "or", "xor")},
}


#: Parameter names in the definitions above, and what they are written as: a program's macros are
#: still defined where the helpers go (HeCBench jaccard has ``#define mask 0xFFFFFFFF``), so the
#: helpers use names of vado's own.
_PARAMS = {"mask": "vado_mask", "pred": "vado_pred", "var": "vado_var", "src": "vado_src", "delta": "vado_delta",
           "lane_mask": "vado_lane_mask", "width": "vado_width", "value": "vado_value", "T": "VadoT"}
_PARAM_RE = re.compile(r"\b(?:" + "|".join(_PARAMS) + r")\b")


def _hygienic(code: str) -> str:
    """``code`` with its parameter names made vado's own (comments left as they are)."""
    out = []
    for line in code.splitlines(keepends=True):
        body, sep, comment = line.partition("//")
        out.append(_PARAM_RE.sub(lambda m: _PARAMS[m.group(0)], body) + sep + comment)
    return "".join(out)


def helpers(target: Target) -> dict[str, tuple[str, tuple[str, ...]]]:
    """``{helper: (definition, helpers it calls)}`` on ``target``, in the order they are written."""
    return {h: (_hygienic(code), deps) for h, (code, deps) in _helpers(target).items()}


def _helpers(target: Target) -> dict[str, tuple[str, tuple[str, ...]]]:
    out = dict(_COMMON)
    out.update(_VOTES)
    out["vado_all32"] = (f"{_F} int vado_all32(int pred) {{ return vado_ballot32(pred) == vado_activemask32(); }}\n",
                         ("vado_ballot32", "vado_activemask32"))
    out.update(_shuffles())
    if warp32_renames("__match_any_sync", target):
        out.update(_MATCH)
    if warp32_renames("__reduce_add_sync", target):
        out.update(_SYNC7)
    return out


def guard(helper: str) -> str:
    """The macro that keeps a second copy of ``helper`` (a header and its includer) from redefining it."""
    return helper.upper()


def helper_block(target: Target, wanted) -> str:
    """The text inserted into a file for the helpers ``wanted`` and those they call, each under its own guard."""
    table = helpers(target)
    need: set[str] = set()
    todo = [w for w in wanted if w in table]
    while todo:
        h = todo.pop()
        if h not in need:
            need.add(h)
            todo.extend(table[h][1])
    parts = [f"// vado: {_WHY}\n"]
    for h, (code, _) in table.items():
        if h in need:
            parts.append(f"#ifndef {guard(h)}\n#define {guard(h)}\n{code}#endif\n")
    return "".join(parts) + "\n"


#: Every helper name a port may call (``vado_lane32`` also comes from the PTX lowering of ``%laneid``).
HELPER_NAMES = frozenset({warp32_helper(n) for n in WARP32_CALLS} | {"vado_lane32", "vado_mask64", "vado_half32"})


def warp32_helper_fixes(path: str, text: str, toks, target: Target, wave: str) -> list[Fix]:
    """The helper block for a file that calls a ``vado_*32`` helper and has none, where each use needs one.

    Safe: the block only defines ``static`` helpers under a guard of vado's own.
    """
    if wave != "warp32" or target.family != "rocm":
        return []
    index = spelling_index(toks)
    if not index.has_any(HELPER_NAMES):
        return []
    table = helpers(target)
    # A helper whose guard the file spells is defined here already (or by the program itself).
    missing = {name for name in HELPER_NAMES & set(table) if index.has_any((name,)) and not index.has_any((guard(name),))}
    uses = sorted(i for name in missing for i in index.where(name)
                  if toks[i][0] is Kind.IDENT and i + 1 < len(toks) and toks[i + 1][3] == "(")
    if not uses:
        return []
    block = helper_block(target, {toks[i][3] for i in uses})
    edits = tuple(line_start_insert(path, text, off, block) for off in insertion_offsets(text, toks, uses))
    return [Fix(edits, Applicability.SAFE, "define the vado_*32 warp32 helpers this file calls", ("warp", "warp32-helpers"))]
