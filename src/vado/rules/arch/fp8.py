"""ARCH003: CUDA's low-precision float types (FP8, FP6, FP4) and what HIP calls them; the tables of
formats and names, and whether a port writes vado's OCP FP8 definitions (:func:`vado_fp8_applies`).
"""

from __future__ import annotations

import re
from typing import Iterable

from vado.model import Effort, Finding, Severity, Verdict
from vado.rules import cuda_syntax as cs
from vado.rules.arch.common import AUTO, BLOCKED, MANUAL, _includes
from vado.rules.base import FileContext, Rule, verdicts_for


#: What the OCP and FNUZ encodings of each FP8 format do differently (ROCm 7.2.4
#: ``hip/amd_detail/amd_hip_fp8.h``; HIP's "Low precision floating point types" page).
_FP8_FORMATS = {
    "e4m3": "FNUZ E4M3 has exponent bias 8 (OCP: 7), max ±240 (OCP: ±448), one NaN 0x80 (OCP: 0x7F/0xFF) "
            "and no -0, so a byte CUDA wrote decodes to half its value",
    "e5m2": "FNUZ E5M2 has exponent bias 16 (OCP: 15), no infinities (OCP: 0x7C/0xFC), one NaN 0x80 and no -0; "
            "max ±57344 in both, so a byte CUDA wrote decodes to half its value",
}
#: What to do for gfx942, per format.
_FP8_TODO = {
    "e4m3": "build the gfx942 variant with {fnuz}, compute scales against 240 instead of 448, "
            "and convert fp8 data that CUDA or gfx950 wrote",
    "e5m2": "build the gfx942 variant with {fnuz}, keep infinities out of the data, "
            "and convert fp8 data that CUDA or gfx950 wrote",
}
#: CUDA FP8 class → (the OCP type the port writes, the FNUZ type gfx942 device code needs, format).
_FP8_CLASSES = {
    f"__nv_fp8{vec}_{fmt}": (f"__hip_fp8{vec}_{fmt}", f"__hip_fp8{vec}_{fmt}_fnuz", fmt)
    for vec in ("", "x2", "x4") for fmt in ("e4m3", "e5m2")
}
#: CUDA interpretation enumerator → (the OCP one the port writes, the FNUZ one, format).
_FP8_KINDS = {f"__NV_{fmt.upper()}": (f"__HIP_{fmt.upper()}", f"__HIP_{fmt.upper()}_FNUZ", fmt) for fmt in ("e4m3", "e5m2")}
#: FP8 names whose HIP spelling is the same on every architecture.
_FP8_PLAIN = {
    "__nv_fp8_storage_t": "__hip_fp8_storage_t",
    "__nv_fp8x2_storage_t": "__hip_fp8x2_storage_t",
    "__nv_fp8x4_storage_t": "__hip_fp8x4_storage_t",
    "__nv_fp8_interpretation_t": "__hip_fp8_interpretation_t",
}
#: Every name ARCH003 reports as FP8 → (the OCP name, the FNUZ name or "", format or "").
#: The HIP OCP names are there too: a port writes them, and gfx942 still needs the FNUZ ones.
_FP8_NAMES = {
    **{n: v for n, v in _FP8_CLASSES.items()}, **{v[0]: v for v in _FP8_CLASSES.values()},
    **{n: v for n, v in _FP8_KINDS.items()}, **{v[0]: v for v in _FP8_KINDS.values()},
    **{n: (h, "", "") for n, h in _FP8_PLAIN.items()},
}
_FP_SMALL = ("__nv_fp4", "__nv_fp6")
#: Identifiers ARCH003 reads: the FP8 names and every name starting with a _FP_SMALL prefix.
_FP_NAMES = cs.ident_pattern("|".join(
    [re.escape(n) for n in sorted(_FP8_NAMES, key=lambda n: (-len(n), n))]
    + [re.escape(p) + f"[{cs._ID_CHAR}]*" for p in _FP_SMALL]))
#: Every name _FP_NAMES matches contains one of these: a file whose text has none has no match.
_FP_NEEDLES = ("_fp", "_E")
_FP_HEADERS = {"cuda_fp8.h": "hip/hip_fp8.h", "cuda_fp8.hpp": "hip/hip_fp8.h", "cuda_fp4.h": "HIP 7.0 OCP FP4 types",
               "cuda_fp6.h": "HIP 7.0 OCP FP6 types"}


#: The first HIP whose ``hip/hip_fp8.h`` declares the interpretation and saturation enums and storage types
#: vado's FP8 definitions take (HIPIFY's tables date them to 6.2.0; Debian's HIP 5.2 has no such header).
VADO_FP8_FIRST_HIP = (6, 2)


def vado_fp8_applies(target) -> bool:
    """Whether a port for ``target`` writes vado's OCP FP8 definitions (:mod:`vado.port.fp8`)."""
    from vado.knowledge.api import parse_version

    hip = parse_version(target.hip_version)
    return target.family == "rocm" and hip is not None and hip[:2] >= VADO_FP8_FIRST_HIP


#: The macro of the OCP FP8 definitions vado's port writes (``vado/port/data/vado_fp8.h``): a file holding
#: them passes ``__HIP_E4M3``/``__HIP_E5M2`` to vado's conversions, which are CUDA's on every GPU.
VADO_FP8_GUARD = "VADO_FP8_H"


def _fp8_cuda_message(name: str) -> str:
    """What a ROCm port does with CUDA's FP8 type or interpretation ``name`` (vado's own OCP definitions)."""
    ocp, fnuz, fmt = _FP8_NAMES[name]
    if name in _FP8_KINDS:
        return (f"{name}: the port passes {ocp} to vado's OCP FP8 conversions (CUDA's encoding and numbers on "
                f"gfx942 and gfx950 alike, in software). {_FP8_FORMATS[fmt]} in gfx942's FNUZ hardware format; "
                f"for that faster path (other numbers): {_FP8_TODO[fmt].format(fnuz=fnuz)}")
    vado = "vado_" + name.removeprefix("__nv_")
    return (f"{name}: the port writes {vado}, vado's OCP definition with CUDA's conversions bit for bit, on the "
            f"host and on gfx942 (MI300X) and gfx950 (MI355X) alike; ROCm 7.2's {ocp} is host-only in gfx942 device "
            "code and its software conversion differs from CUDA's. The conversions are integer code, slower than "
            f"gfx950's hardware ones. {_FP8_FORMATS[fmt]} in gfx942's FNUZ hardware format; for that faster path "
            f"(other numbers): {_FP8_TODO[fmt].format(fnuz=fnuz)}")


def _fp8_message(name: str) -> tuple[str, str, str]:
    """``(message, key, hip)`` for an FP8 name: ``key`` is the same for a CUDA name and its port."""
    ocp, fnuz, fmt = _FP8_NAMES[name]
    if not fmt:
        return (f"{name}: HIP has {ocp}, the same raw storage; on ROCm the port's conversions (vado's) write "
                "CUDA's OCP bytes in it on every GPU", ocp, ocp)
    todo = _FP8_TODO[fmt].format(fnuz=fnuz)
    if ocp.startswith("__HIP_"):
        what = (f"{name}: the port converts with the OCP interpretation {ocp}, CUDA's encoding, which gfx950 "
                f"(MI355X) converts in hardware; gfx942 (MI300X) hardware converts to FNUZ whatever the argument "
                f"says (amd_hip_fp8.h uses the same instruction), so its bytes differ. {_FP8_FORMATS[fmt]}. "
                f"To run on gfx942: {todo}")
    else:
        what = (f"{name}: the port uses the OCP type {ocp}, CUDA's encoding, native on gfx950 (MI355X); "
                f"ROCm 7.2 declares its device-side conversions host-only on gfx942 (MI300X), whose hardware "
                f"format is FNUZ, so device code using it does not compile for gfx942. {_FP8_FORMATS[fmt]}. "
                f"To run on gfx942: {todo}")
    return what, ocp, ocp


class LowPrecisionFloatTypes(Rule):
    """FP8, FP6 and FP4 types from ``cuda_fp8.h``/``cuda_fp6.h``/``cuda_fp4.h``.

    What it does
    ------------
    Finds the ``__nv_fp8_*``, ``__nv_fp6_*`` and ``__nv_fp4_*`` types, the FP8
    interpretations ``__NV_E4M3``/``__NV_E5M2``, the headers that declare them,
    and, in HIP code such as a port, the OCP FP8 names the port writes for them
    (``__hip_fp8_e4m3``, ``__HIP_E4M3`` …).

    Why is this bad?
    ----------------
    HIP's FP8 types live in ``hip/hip_fp8.h`` in two encodings. OCP
    (``__hip_fp8_e4m3``) is NVIDIA's: gfx950 (MI350X/MI355X) and gfx12 convert
    it in hardware. FNUZ (``__hip_fp8_e4m3_fnuz``) is gfx942's (MI300X) only
    hardware format: exponent bias 8 instead of 7 (E4M3) or 16 instead of 15
    (E5M2), E4M3 max ±240 instead of ±448, one NaN (0x80), no infinities and no
    -0. The same byte holds half the value, so scales and stored FP8 data
    differ between the two.

    ROCm 7.2.4 has no FP8 type that works in device code on both MI300X and
    MI355X: ``amd_hip_fp8.h`` declares the OCP types' device-side conversions
    host-only when compiling for gfx942, and the FNUZ ones host-only for gfx950
    (checked with hipcc 7.2.4: each fails to compile on the other architecture).
    Nor can one source pick a type with ``#if defined(__gfx942__)``: the host
    pass defines no ``__gfx*__`` macro, so a kernel taking the type would get
    another signature on the host than on the device. The conversion functions
    with an interpretation argument (``__hip_cvt_float_to_fp8``) compile on both,
    but gfx942's instructions write FNUZ bytes even when asked for OCP.

    And HIP's software OCP conversion (what the host always runs) differs
    from CUDA's: measured over every float, tiny inputs (around 1e-23) give
    nonzero codes, NaN inputs a negative NaN, NOSAT inputs just above the
    largest finite value a NaN where CUDA rounds them down.

    The port's strategy on ROCm targets: CUDA's FP8 classes and ``__nv_cvt_*``
    functions become vado's own OCP definitions (``vado_fp8_e4m3`` …,
    :mod:`vado.port.fp8`), integer code checked bit for bit against CUDA's
    conversions, which compile on the host and for gfx942 and gfx950 and give
    CUDA's numbers and stored bytes on each (in software: slower than gfx950's
    hardware conversion; gfx942 has none for OCP). ``__NV_E4M3`` becomes
    ``__HIP_E4M3``, which vado's conversions take. This rule reports those
    names as moving with automatic edits and says what gfx942's faster FNUZ
    path would change; HIP's own OCP names in HIP code keep the manual
    verdict. SCALE does not support the fp8 format. The fact base records OCP
    FP4/FP6 types from HIP 7.0.

    Example
    -------
    .. code-block:: cuda

        #include <cuda_fp8.h>
        __nv_fp8_e4m3 q = __nv_fp8_e4m3(x * scale);   // scale = 448 / amax

    Use instead
    -----------
    .. code-block:: cuda

        #include <hip/hip_fp8.h>
        __hip_fp8_e4m3 q(x * scale);             // gfx950: scale = 448 / amax
        // a separate gfx942 build: __hip_fp8_e4m3_fnuz q(x * scale), scale = 240 / amax

    Fix safety
    ----------
    No fix of its own: the port writes vado's OCP definitions; choosing FNUZ
    for gfx942 changes numbers and data, which only the owner of the code can
    decide.

    References
    ----------
    - HIP FP8 numbers (OCP vs FNUZ per device): https://github.com/ROCm/HIP/blob/c5e11fcac8249ce4f7e70157588ff9661a870b59/docs/reference/fp8_numbers.rst
    - ROCm 7.2.4 ``hip/amd_detail/amd_hip_fp8.h`` (``HIP_FP8_TYPE_OCP``/``HIP_FP8_TYPE_FNUZ`` per gfx target)
    - OCP types from HIP 6.3 (guarded by ``HIP_VERSION >= 60300000``): https://github.com/ROCm/TransformerEngine/pull/173
    - OCP FP8 on gfx950 in Composable Kernel: https://github.com/ROCm/composable_kernel/pull/1710
    - SCALE inline PTX (fp8 unsupported): https://github.com/spectral-compute/scale-docs/blob/f20700f5f55e411fd0c0c1b03da5b896b5b6eae3/docs/manual/compiler/inline-ptx.md
    """

    code = "ARCH003"
    name = "low-precision-float-types"
    severity = Severity.MEDIUM
    file_kinds = cs.CUDA_CXX_KINDS

    @staticmethod
    def _cuda_verdict(target) -> Verdict | None:
        """For CUDA's FP8 classes and interpretations: a ROCm port writes vado's definitions."""
        if vado_fp8_applies(target):
            return AUTO
        return LowPrecisionFloatTypes._verdict(target)

    @staticmethod
    def _verdict(target) -> Verdict | None:
        if target.family == "rocm":
            return MANUAL
        if target.family == "oneapi":
            return MANUAL
        if target.family == "scale":
            return BLOCKED
        if target.family == "zluda":
            return MANUAL  # not verified either way: the FP8 header has software paths below sm_89
        return None

    def check(self, ctx: FileContext) -> Iterable[Finding]:
        view = cs.device_view(ctx)
        verdicts = verdicts_for(ctx, self._verdict)
        cuda_verdicts = verdicts_for(ctx, self._cuda_verdict)
        for tok, name in _includes(view, _FP_HEADERS):
            fp8 = name.startswith("cuda_fp8")
            extra = "; on ROCm the port adds vado's OCP FP8 definitions (CUDA's conversions)" if fp8 else ""
            yield self.finding(ctx, tok[1], tok[2],
                               f"<{name}> declares NVIDIA low-precision types; HIP: {_FP_HEADERS[name]}{extra}",
                               cuda_verdicts if fp8 else verdicts, effort=Effort(lines=1, constructs=1, hours=0.25),
                               data={"hip": _FP_HEADERS[name]})
        if not any(n in view.text for n in _FP_NEEDLES):
            return
        seen: set[str] = set()
        with_vado_fp8 = VADO_FP8_GUARD in view.text
        for i in view.idents_matching(_FP_NAMES):
            tok = view.tokens[i]
            name = tok[3]
            if with_vado_fp8 and name in ("__HIP_E4M3", "__HIP_E5M2"):
                continue  # arguments of vado's conversions (or the definitions themselves)
            # CUDA's FP8 names move with the port's edits (vado's definitions); HIP's own need a person.
            found, hours = verdicts, 1.0
            if name in _FP8_NAMES:
                message, key, hip = _fp8_message(name)
                if name in _FP8_CLASSES or name in _FP8_KINDS or name in _FP8_PLAIN:
                    found, hours = cuda_verdicts, 0.0
                    if name not in _FP8_PLAIN:
                        message = _fp8_cuda_message(name)
            elif name.startswith(_FP_SMALL):
                hip = "HIP 7.0 OCP FP4/FP6 types (hardware FP4/FP6 on gfx950)"
                message, key = f"{name}: HIP has {hip}", name
            else:
                continue
            if key in seen:
                continue
            seen.add(key)  # one finding per type and file (its CUDA and HIP names alike): a type is ported once
            yield self.finding(ctx, tok[1], tok[2], message, found,
                               effort=Effort(lines=1, constructs=1, hours=hours), data={"hip": hip})
