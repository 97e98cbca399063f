"""CUDA's OCP FP8 types and conversions on AMD: vado's own, with CUDA's numbers, written into the port.

ROCm 7.2's ``hip/hip_fp8.h`` has OCP types of CUDA's names' meaning (``__hip_fp8_e4m3`` …), but

- in gfx942 (MI300X) device code it declares their conversions (to float, to the vector types …)
  host-only (gfx942's hardware converts only to the FNUZ encoding), so a port using them does not
  compile for MI300X;
- its software conversion, which the host always runs, differs from CUDA's: measured over every
  float against CUDA 13's ``cuda_fp8.hpp`` host code, tiny inputs (around 1e-23) give nonzero codes
  (its code shifts past the operand's width there: undefined behaviour), NaN inputs a negative NaN,
  and NOSAT inputs just above the largest finite value a NaN where CUDA rounds them down to it.

So on the ROCm targets the port renames CUDA's FP8 types and ``__nv_cvt_*`` functions to the
``vado_`` ones of ``data/vado_fp8.h`` and writes that header's text (guarded, so a header and its
includer may both hold it) before the first use. Its conversions are integer code, checked bit for
bit against CUDA's for every float, half and bfloat16 input, 16 million doubles, every FP8 value and
the types' constructors and vector conversions (``tests/port/test_fp8.py``); on the device they are
slower than gfx950's hardware conversion, which is the price of the same numbers on both GPUs.
"""

from __future__ import annotations

import functools

from vado.model import Applicability, Edit, Fix, Target
from vado.package_files import files
from vado.port.compat import insertion_offsets, line_start_insert
from vado.rules.arch import VADO_FP8_GUARD, vado_fp8_applies
from vado.rules.cuda_syntax import spelling_index
from vado.scan.lexer import Kind

#: CUDA's FP8 names (``cuda_fp8.h``) → the names of vado's definitions.
SHIM_NAMES: dict[str, str] = {
    **{f"__nv_fp8{w}_{f}": f"vado_fp8{w}_{f}" for w in ("", "x2", "x4") for f in ("e4m3", "e5m2")},
    **{f"__nv_cvt_{c}": f"vado_cvt_{c}" for c in (
        "float_to_fp8", "double_to_fp8", "float2_to_fp8x2", "double2_to_fp8x2", "halfraw_to_fp8",
        "halfraw2_to_fp8x2", "bfloat16raw_to_fp8", "bfloat16raw2_to_fp8x2", "fp8_to_halfraw", "fp8x2_to_halfraw2")},
}
#: The macro the header defines: a file holding it has vado's definitions already.
GUARD = VADO_FP8_GUARD


@functools.cache
def shim_text() -> str:
    """The C++ text of ``data/vado_fp8.h`` that the port writes into a file."""
    return (files("vado.port") / "data" / "vado_fp8.h").read_text(encoding="utf-8")


def applies(target: Target) -> bool:
    """Whether ``target`` gets vado's FP8 definitions (:func:`vado.rules.arch.vado_fp8_applies`)."""
    return vado_fp8_applies(target)


def fp8_fixes(path: str, text: str, toks: list, target: Target) -> list[Fix]:
    """One fix: every use of a :data:`SHIM_NAMES` name renamed and the definitions written before the first.

    Members (``x.__nv_fp8_e4m3``) and qualified names are left alone. Safe: the definitions compute
    what CUDA's do, bit for bit.
    """
    if not applies(target):
        return []
    index = spelling_index(toks)
    if not index.has_any(SHIM_NAMES):
        return []
    uses = []
    for i in sorted(i for name in SHIM_NAMES for i in index.where(name)):
        if toks[i][0] is not Kind.IDENT or toks[i][3] not in SHIM_NAMES:
            continue
        k = i - 1
        while k >= 0 and toks[k][0] is Kind.COMMENT:
            k -= 1
        if k >= 0 and toks[k][3] in (".", "->", "::"):
            continue
        uses.append(i)
    if not uses:
        return []
    block = shim_text()
    if not block.endswith("\n"):
        block += "\n"
    inserts = [] if GUARD in text else [line_start_insert(path, text, off, block + "\n")
                                        for off in insertion_offsets(text, toks, uses)]
    renames = [Edit(path, toks[i][1], toks[i][2], SHIM_NAMES[toks[i][3]]) for i in uses]
    names = sorted({toks[i][3] for i in uses})
    return [Fix(tuple(inserts) + tuple(renames), Applicability.SAFE,
                f"{', '.join(names)} → vado's OCP FP8 definitions (CUDA's conversions; HIP's are host-only on gfx942)",
                ("helper",))]
