"""ARCH rules: features of particular NVIDIA architectures (tensor cores, Hopper/Blackwell, FP8, CDP …).

Each rule matches names in the token stream (never in comments or strings) and
reads its per-target verdicts from a small table of facts with sources; see the
``_FACTS`` tables below.
"""

from __future__ import annotations

import functools
import re
from typing import Iterable

from vado.model import Applicability, Effort, Finding, Fix, Severity, Verdict
from vado.rules import cuda_syntax as cs
from vado.rules.base import FileContext, Rule, verdicts_for
from vado.scan.lexer import Kind
from vado.scan.preprocessor import amd_configuration, hip_aware_directives

AS_IS, AUTO, MANUAL, BLOCKED = Verdict.MOVES_AS_IS, Verdict.AUTOMATIC, Verdict.MANUAL, Verdict.BLOCKED

SCALE_DOCS = "https://github.com/spectral-compute/scale-docs/blob/f20700f5f55e411fd0c0c1b03da5b896b5b6eae3/"
HIP_DOCS = "https://github.com/ROCm/HIP/blob/c5e11fcac8249ce4f7e70157588ff9661a870b59/"


def _by_family(table: dict[str, Verdict]):
    """A ``verdict_of(target)`` reading ``table[target.family]``."""
    return lambda t: table.get(t.family)


def _includes(view: cs.DeviceView, headers: dict[str, str]) -> Iterable[tuple[tuple, str]]:
    """``(token, header)`` for each ``<…>`` include operand, or string literal ending in ``.h"``,
    whose base name is one of ``headers``."""
    # Such a token is a slice of the text: a text that never spells one of the names has none
    # (most files), found without reading its directives and strings.
    if not any(h in view.text for h in headers):
        return
    for tok, name in view.header_names:
        if name in headers:
            yield tok, name


class WarpMatrixApi(Rule):
    """The CUDA WMMA API (``nvcuda::wmma``, ``<mma.h>``): tensor-core fragments in C++.

    What it does
    ------------
    Finds ``#include <mma.h>``, ``using namespace nvcuda``/``nvcuda::wmma``
    and ``wmma::mma_sync`` calls.

    Why is this bad?
    ----------------
    HIP has no warp-matrix functions. AMD's equivalent is rocWMMA (ROCm 7.2:
    rocWMMA 2.2.0) over MFMA on CDNA and WMMA on RDNA3+: the API is close
    (``rocwmma::fragment``, ``load_matrix_sync``, ``mma_sync``) but the
    supported shapes and types differ and the fragment-to-lane layout is not
    NVIDIA's, so code that touches ``fragment.x[i]`` directly must change.
    SCALE emulates wmma (all shapes except fp8/fp6/fp4, v1.4.2). A third-party
    probe found ZLUDA dropping kernels that use wmma.

    Example
    -------
    .. code-block:: cuda

        #include <mma.h>
        using namespace nvcuda;
        wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> a;

    Use instead
    -----------
    .. code-block:: cuda

        #include <rocwmma/rocwmma.hpp>
        rocwmma::fragment<rocwmma::matrix_a, 16, 16, 16, rocwmma::float16_t, rocwmma::row_major> a;

    Fix safety
    ----------
    No automatic fix: shapes, types and element layouts must be checked.

    References
    ----------
    - HIP warp matrix functions (unsupported): https://github.com/ROCm/HIP/blob/c5e11fcac8249ce4f7e70157588ff9661a870b59/docs/reference/kernel_language.rst
    - rocWMMA in ROCm 7.2: https://github.com/ROCm/legacy-rocm-build/blob/fff7efbd0c870e1bfba278faa91d517996b7a33a/docs/compatibility/compatibility-matrix.rst
    - SCALE changelog 1.4.2: https://github.com/spectral-compute/scale-docs/blob/f20700f5f55e411fd0c0c1b03da5b896b5b6eae3/docs/manual/changelogs/v1.4.2.md
    - ZLUDA probe (third party): https://github.com/mathiasbourgoin/Sarek/pull/271
    """

    code = "ARCH001"
    name = "warp-matrix-api"
    severity = Severity.HIGH
    file_kinds = cs.CUDA_CXX_KINDS

    _VERDICTS = {"rocm": MANUAL, "oneapi": MANUAL, "scale": AS_IS, "zluda": BLOCKED}

    def check(self, ctx: FileContext) -> Iterable[Finding]:
        view = cs.device_view(ctx)
        toks = view.tokens
        verdicts = verdicts_for(ctx, _by_family(self._VERDICTS))
        data = {"rocm": "rocWMMA (rocwmma::)", "oneapi": "sycl::ext::oneapi::experimental::matrix::joint_matrix"}
        for tok, name in _includes(view, {"mma.h": ""}):
            yield self.finding(ctx, tok[1], tok[2], "<mma.h> is the CUDA WMMA API; on AMD use rocWMMA (<rocwmma/rocwmma.hpp>)",
                               verdicts, effort=Effort(lines=1, constructs=1, hours=0.25), data=data)
        namespace_reported = False
        for i in view.ident_indices(("nvcuda", "mma_sync")):
            tok = toks[i]
            nxt = toks[i + 1][3] if i + 1 < len(toks) else ""
            if tok[3] == "nvcuda" and not namespace_reported and (
                    nxt == "::" or (i > 1 and toks[i - 1][3] == "namespace" and toks[i - 2][3] == "using")):
                namespace_reported = True  # the namespace is ported once per file
                yield self.finding(ctx, tok[1], tok[2], "nvcuda::wmma tensor-core fragments have no HIP equivalent; port to rocWMMA",
                                   verdicts, effort=Effort(lines=1, constructs=1, hours=0.5), data=data)
            elif tok[3] == "mma_sync" and i >= 2 and toks[i - 1][3] == "::" and toks[i - 2][3] == "wmma":
                yield self.finding(ctx, tok[1], tok[2], "wmma::mma_sync: rewrite with rocwmma::mma_sync (check shape, type and layout)",
                                   verdicts, effort=Effort(lines=1, constructs=1, hours=2.0), data=data)


#: Hopper/Blackwell C++ features: name -> (what, verdicts per family, AMD route).
_HOPPER = {
    "__cluster_dims__": ("thread-block clusters", {"rocm": BLOCKED, "oneapi": BLOCKED, "scale": BLOCKED, "zluda": BLOCKED},
                         "none: no clusters on AMD; restructure around thread blocks"),
    "this_cluster": ("thread-block clusters", {"rocm": BLOCKED, "oneapi": BLOCKED, "scale": BLOCKED, "zluda": BLOCKED},
                     "none: no clusters on AMD"),
    "cluster_group": ("thread-block clusters", {"rocm": BLOCKED, "oneapi": BLOCKED, "scale": BLOCKED, "zluda": BLOCKED},
                      "none: no clusters on AMD"),
    "map_shared_rank": ("distributed shared memory", {"rocm": BLOCKED, "oneapi": BLOCKED, "scale": BLOCKED, "zluda": BLOCKED},
                        "none: LDS is private to a workgroup on AMD"),
    "cuTensorMapEncodeTiled": ("TMA descriptors", {"rocm": BLOCKED, "oneapi": BLOCKED, "scale": BLOCKED, "zluda": BLOCKED},
                               "none: rewrite with CK Tile or Triton"),
    "cuTensorMapEncodeIm2col": ("TMA descriptors", {"rocm": BLOCKED, "oneapi": BLOCKED, "scale": BLOCKED, "zluda": BLOCKED},
                                "none: rewrite with CK Tile or Triton"),
    "CUtensorMap": ("TMA descriptors", {"rocm": BLOCKED, "oneapi": BLOCKED, "scale": BLOCKED, "zluda": BLOCKED},
                    "none: rewrite with CK Tile or Triton"),
    "memcpy_async": ("asynchronous copies (cuda::memcpy_async / cooperative_groups::memcpy_async)",
                     {"rocm": MANUAL, "oneapi": MANUAL, "scale": MANUAL, "zluda": MANUAL},
                     "plain loads into __shared__ followed by __syncthreads()"),
    "pipeline": ("cuda::pipeline", {"rocm": MANUAL, "oneapi": MANUAL, "scale": MANUAL, "zluda": MANUAL},
                 "plain loads + __syncthreads(); libhipcxx (preview, not in ROCm 7.2) spells cuda:: names"),
    "barrier": ("cuda::barrier", {"rocm": MANUAL, "oneapi": MANUAL, "scale": MANUAL, "zluda": MANUAL},
                "__syncthreads() for block-wide phases; libhipcxx (preview, not in ROCm 7.2) spells cuda:: names"),
}


class HopperBlackwellFeature(Rule):
    """Hopper/Blackwell C++ features: clusters, distributed shared memory, TMA descriptors, async pipelines.

    What it does
    ------------
    Finds ``__cluster_dims__``, ``cooperative_groups::this_cluster``,
    ``cluster_group``, ``map_shared_rank``, ``cuTensorMapEncodeTiled``/
    ``Im2col``, ``CUtensorMap``, ``cuda::barrier``, ``cuda::pipeline`` and
    ``memcpy_async``.

    Why is this bad?
    ----------------
    AMD GPUs have no thread-block clusters, no distributed shared memory and no
    tensor memory accelerator: code built on them is redesigned (CK Tile or
    Triton for TMA pipelines). ``cuda::barrier``/``cuda::pipeline``/
    ``memcpy_async`` become ordinary loads and ``__syncthreads()``; libhipcxx
    spells the ``cuda::`` names but is an early-access preview outside ROCm 7.2.
    SCALE's runtime lacks the cluster occupancy APIs and its inline PTX lacks
    TMA and mbarrier.

    Example
    -------
    .. code-block:: cuda

        __global__ void __cluster_dims__(2, 1, 1) k(float* x) {
            auto cluster = cooperative_groups::this_cluster();
        }

    Use instead
    -----------
    .. code-block:: cuda

        __global__ void k(float* x) {
            // one workgroup does the work of the cluster; share data through global memory
        }

    Fix safety
    ----------
    No automatic fix.

    References
    ----------
    - Fact base, Hopper TMA / wgmma / mbarrier: https://github.com/ROCm/flash-attention/issues/71
    - libhipcxx: https://rocm.docs.amd.com/projects/libhipcxx/en/latest/what-is-libhipcxx.html
    - SCALE runtime API coverage: https://github.com/spectral-compute/scale-docs/blob/f20700f5f55e411fd0c0c1b03da5b896b5b6eae3/docs/manual/library/apidiff/api-runtime.md
    """

    code = "ARCH002"
    triggers = frozenset(_HOPPER)
    name = "hopper-blackwell-feature"
    severity = Severity.HIGH
    file_kinds = cs.CUDA_CXX_KINDS

    def check(self, ctx: FileContext) -> Iterable[Finding]:
        view = cs.device_view(ctx)
        toks = view.tokens
        for i in view.ident_indices(_HOPPER):
            tok = toks[i]
            name = tok[3]
            if name in ("pipeline", "barrier"):
                # only cuda::pipeline / cuda::barrier (and cuda::std::barrier is host-side C++20; skip it)
                if not (i >= 2 and toks[i - 1][3] == "::" and toks[i - 2][3] == "cuda"):
                    continue
            if name == "memcpy_async" and not (i + 1 < len(toks) and toks[i + 1][3] in ("(", "<")):
                continue
            what, table, route = _HOPPER[name]
            verdicts = verdicts_for(ctx, _by_family(table))
            sev = Severity.CRITICAL if any(v is BLOCKED for v in verdicts.values()) else self.severity
            yield self.finding(ctx, tok[1], tok[2], f"{name} ({what}): no AMD equivalent; {route}", verdicts, severity=sev,
                               effort=Effort(lines=1, constructs=1, hours=8.0 if sev is Severity.CRITICAL else 1.0),
                               data={"feature": what, "route": route})


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


class DeviceSideKernelLaunch(Rule):
    """Dynamic parallelism: kernel launches and ``cudaDeviceSynchronize`` in device code.

    What it does
    ------------
    Finds ``kernel<<<...>>>`` launches and calls of ``cudaDeviceSynchronize``,
    ``cudaLaunchDevice`` and ``cudaGetParameterBuffer`` inside ``__global__``
    or ``__device__`` function bodies. (Building with ``-rdc=true`` is a build
    file matter: BLD rules.)

    Why is this bad?
    ----------------
    HIP does not support dynamic parallelism: AMD GPUs cannot launch kernels
    from device code. SYCL has no device-side enqueue either. SCALE's runtime
    lacks the device-side ``cudaDeviceSynchronize``.

    Example
    -------
    .. code-block:: cuda

        __global__ void parent(int* d) { child<<<1, 32>>>(d); }

    Use instead
    -----------
    .. code-block:: cuda

        // launch child from the host after parent, or fold its work into parent
        parent<<<g, b>>>(d);
        child<<<1, 32>>>(d);

    Fix safety
    ----------
    No automatic fix: the launch structure moves to the host.

    References
    ----------
    - HIP FAQ (dynamic parallelism not supported): https://github.com/ROCm/HIP/blob/c5e11fcac8249ce4f7e70157588ff9661a870b59/docs/how-to/faq.md
    - SCALE runtime API coverage: https://github.com/spectral-compute/scale-docs/blob/f20700f5f55e411fd0c0c1b03da5b896b5b6eae3/docs/manual/library/apidiff/api-runtime.md
    """

    code = "ARCH004"
    triggers = frozenset({"__global__", "__device__"})  # a device function to launch from
    name = "device-side-kernel-launch"
    severity = Severity.CRITICAL
    file_kinds = cs.CUDA_CXX_KINDS

    _VERDICTS = {"rocm": BLOCKED, "oneapi": BLOCKED, "scale": MANUAL, "zluda": MANUAL}
    _CALLS = frozenset({"cudaDeviceSynchronize", "cudaLaunchDevice", "cudaGetParameterBuffer"})

    def check(self, ctx: FileContext) -> Iterable[Finding]:
        view = cs.device_view(ctx)
        toks = view.tokens
        verdicts = verdicts_for(ctx, _by_family(self._VERDICTS))
        # Only a __global__/__device__ function body can hold a device-side launch, and a
        # function is one when those words are among its tokens: no such word in the
        # code, no device function (a macro for it is defined here too, or the tokens
        # would not show the qualifier either).
        if not view.ident_indices(self.triggers):
            return
        opens = set(view.punct_indices("<<<"))
        shifts = view.punct_indices("<<")
        if shifts:  # launches written `k<< <…>> >(…)` (ARCH011)
            opens.update(a for a, _, _, _ in cs.spaced_launches(toks, ctx.text, shifts + sorted(opens)))
        for i in sorted(opens.union(view.ident_indices(self._CALLS))):
            tok = toks[i]
            is_launch = i in opens and i > 0
            is_call = tok[0] is Kind.IDENT and tok[3] in self._CALLS and i + 1 < len(toks) and toks[i + 1][3] == "("
            if not (is_launch or is_call):
                continue
            func = view.function_at(tok[1])
            if func is None or not func.is_device:
                continue
            where = "__global__" if func.is_kernel else "__device__"
            if is_launch:
                a = i - 1
                msg = f"kernel launch of {toks[a][3]} inside {where} {func.name}: AMD GPUs cannot launch kernels from device code"
                start = toks[a][1]
            else:
                msg = f"{tok[3]} in {where} {func.name} is dynamic parallelism, which HIP does not support"
                start = tok[1]
            yield self.finding(ctx, start, tok[2], msg, verdicts, effort=Effort(lines=3, constructs=1, hours=4.0),
                               data={"function": func.name})


_MANAGED = frozenset({"cudaMallocManaged", "__managed__", "cudaMemAdvise", "cudaMemPrefetchAsync", "cudaMemAdvise_v2",
                      "cudaMemPrefetchAsync_v2"})


class ManagedMemoryAssumption(Rule):
    """Managed (unified) memory: ``cudaMallocManaged``, ``__managed__``, ``cudaMemAdvise``, ``cudaMemPrefetchAsync``.

    What it does
    ------------
    Finds managed-memory allocations, ``__managed__`` variables and the
    advice/prefetch calls that tune page migration.

    Why is this bad?
    ----------------
    It mostly is not: HIP supports managed memory and ``__managed__`` on Linux
    (the AMD driver manages it through Linux HMM), and SCALE implements the
    calls. The verdict for ROCm is therefore *moves as is* (the rename is an
    API finding). Performance is the caveat: page migration depends on the GPU
    and driver (HIP recommends checking ``hipDeviceAttributeManagedMemory``), so
    code tuned with ``cudaMemAdvise``/prefetch hints for NVIDIA should be
    measured again. SYCL has ``malloc_shared`` but no ``__managed__``
    variables.

    Example
    -------
    .. code-block:: cuda

        __managed__ int counter;
        cudaMallocManaged(&buf, n);

    Use instead
    -----------
    .. code-block:: cuda

        __managed__ int counter;  // unchanged on HIP
        hipMallocManaged(&buf, n);

    Fix safety
    ----------
    No fix from this rule (API rules rename the calls).

    References
    ----------
    - HIP programming manual, managed memory: https://github.com/ROCm/HIP/blob/c5e11fcac8249ce4f7e70157588ff9661a870b59/docs/how-to/programming_manual.md
    - SCALE runtime API coverage: https://github.com/spectral-compute/scale-docs/blob/f20700f5f55e411fd0c0c1b03da5b896b5b6eae3/docs/manual/library/apidiff/api-runtime.md
    """

    code = "ARCH005"
    triggers = _MANAGED
    name = "managed-memory-assumption"
    severity = Severity.INFO
    file_kinds = cs.CUDA_CXX_KINDS

    _VERDICTS = {"rocm": AS_IS, "oneapi": MANUAL, "scale": AS_IS, "zluda": MANUAL}

    def check(self, ctx: FileContext) -> Iterable[Finding]:
        view = cs.device_view(ctx)
        toks = view.tokens
        verdicts = verdicts_for(ctx, _by_family(self._VERDICTS))
        for i in view.ident_indices(_MANAGED):
            tok = toks[i]
            if tok[3] != "__managed__" and not (i + 1 < len(toks) and toks[i + 1][3] == "("):
                continue
            yield self.finding(ctx, tok[1], tok[2], f"{tok[3]}: managed memory works on ROCm (Linux HMM); re-measure migration performance",
                               verdicts, effort=Effort(lines=0, constructs=1, hours=0.25), data={"name": tok[3]})


#: Warp-level intrinsics whose availability depends on the target: name -> (first HIP version, note).
_VERSIONED = {
    "__syncwarp": ("7.0", "HIP 7.0 added __syncwarp"),
    "__reduce_add_sync": ("7.0", "HIP 7.0 added __reduce_*_sync"),
    "__reduce_min_sync": ("7.0", "HIP 7.0 added __reduce_*_sync"),
    "__reduce_max_sync": ("7.0", "HIP 7.0 added __reduce_*_sync"),
    "__reduce_and_sync": ("7.0", "HIP 7.0 added __reduce_*_sync"),
    "__reduce_or_sync": ("7.0", "HIP 7.0 added __reduce_*_sync"),
    "__reduce_xor_sync": ("7.0", "HIP 7.0 added __reduce_*_sync"),
    "__match_any_sync": ("6.2", "HIP 6.2 documents __match_any_sync with a 64-bit mask"),
    "__match_all_sync": ("6.2", "HIP 6.2 documents __match_all_sync with a 64-bit mask"),
    "__nanosleep": (None, "HIP has no __nanosleep; use __builtin_amdgcn_s_sleep(N) (about 64 clocks per unit)"),
}


class VersionDependentWarpIntrinsic(Rule):
    """Warp-level intrinsics whose availability depends on the target's HIP version.

    What it does
    ------------
    Finds ``__syncwarp``, ``__reduce_*_sync``, ``__match_any_sync``/
    ``__match_all_sync``, and ``__nanosleep`` calls and checks
    them against each target.

    Why is this bad?
    ----------------
    HIP added ``__syncwarp`` and ``__reduce_*_sync`` in 7.0 and the
    ``_sync`` cross-lane functions in 6.2 (opt-in until 7.0, with 64-bit masks),
    so older ROCm targets such as Debian's HIP 5.2 do not compile them. HIP has
    no ``__nanosleep``.

    Example
    -------
    .. code-block:: cuda

        __syncwarp();
        int s = __reduce_add_sync(0xffffffff, v);
        __nanosleep(100);

    Use instead
    -----------
    .. code-block:: cuda

        __syncwarp();  // HIP >= 7.0; on older HIP the wavefront is already in lockstep
        int s = __reduce_add_sync(0xffffffffffffffffull, v);  // HIP >= 7.0
        __builtin_amdgcn_s_sleep(2);

    Fix safety
    ----------
    No automatic fix: the replacement depends on the target version.

    References
    ----------
    - HIP changelog (7.0 warp functions): https://github.com/ROCm/rocm-systems/blob/develop/projects/clr/CHANGELOG.md
    - HIP kernel language: https://github.com/ROCm/HIP/blob/c5e11fcac8249ce4f7e70157588ff9661a870b59/docs/reference/kernel_language.rst
    - SCALE inline PTX (match, redux, nanosleep supported): https://github.com/spectral-compute/scale-docs/blob/f20700f5f55e411fd0c0c1b03da5b896b5b6eae3/docs/manual/compiler/inline-ptx.md
    """

    code = "ARCH006"
    triggers = frozenset(_VERSIONED)
    name = "version-dependent-warp-intrinsic"
    severity = Severity.MEDIUM
    file_kinds = cs.CUDA_CXX_KINDS

    def check(self, ctx: FileContext) -> Iterable[Finding]:
        view = cs.device_view(ctx)
        toks = view.tokens
        for i in view.ident_indices(_VERSIONED):
            tok = toks[i]
            if i + 1 >= len(toks) or toks[i + 1][3] != "(":
                continue
            if i > 0 and toks[i - 1][3] in (".", "->", "::") or (i > 0 and toks[i - 1][0] is Kind.IDENT and toks[i - 1][3] not in ("return", "else")):
                continue  # a member, or a declaration of a function with the same name
            min_hip, note = _VERSIONED[tok[3]]
            name = tok[3]

            def verdict_of(target, min_hip=min_hip, name=name):
                fam = target.family
                if fam == "rocm":
                    if min_hip is None:
                        return MANUAL
                    return AS_IS if cs.hip_at_least(target, min_hip) else MANUAL
                if fam == "oneapi":
                    return MANUAL
                if fam in ("scale", "zluda"):
                    return AS_IS
                return None

            verdicts = verdicts_for(ctx, verdict_of)
            if all(v is AS_IS for v in verdicts.values()):
                continue
            yield self.finding(ctx, tok[1], tok[2], f"{name}: {note}", verdicts,
                               effort=Effort(lines=1, constructs=1, hours=0.25), data={"min_hip": min_hip, "name": name})


# --------------------------------------------------------------------------- preprocessor tests of CUDA


def _directive_of(toks, i: int) -> int | None:
    """Index of the directive token (``#if``, ``#ifdef`` …) whose line holds token ``i``, or None in code."""
    for j in range(i - 1, -1, -1):
        kind = toks[j][0]
        if kind is Kind.DIRECTIVE:
            return j
        if kind is Kind.EOD:
            return None
    return None


def _directive_name(tok) -> str:
    return tok[3].replace(" ", "").replace("\t", "")


def _defined_operand(toks, i: int) -> tuple[int, int] | None:
    """For a name at ``i`` tested by ``defined X`` / ``defined(X)``: ``(first, end)`` token range of the test."""
    if i >= 1 and toks[i - 1][3] == "defined":
        return i - 1, i + 1
    if i >= 2 and toks[i - 1][3] == "(" and toks[i - 2][3] == "defined" and i + 1 < len(toks) and toks[i + 1][3] == ")":
        return i - 2, i + 2
    return None


def _tested_name(toks, i: int) -> str | None:
    """How the name at ``i`` is tested: ``ifdef`` (``#ifdef``/``#ifndef``/``defined``), ``value`` (in an
    ``#if``/``#elif`` expression), ``define`` (a ``#define``/``#undef`` of it or its body), ``code``."""
    d = _directive_of(toks, i)
    if d is None:
        return "code"
    name = _directive_name(toks[d])
    if name in ("#ifdef", "#ifndef") and d == i - 1:
        return "ifdef"
    if name in ("#if", "#elif"):
        return "ifdef" if _defined_operand(toks, i) else "value"
    if name in ("#define", "#undef"):
        return "define"
    return None


_PREPROC_VERDICTS = {"rocm": AUTO, "oneapi": MANUAL, "scale": AS_IS, "zluda": AS_IS}

#: The oldest NVIDIA architecture CUDA 13 compiles for (sm_75) and the first one with
#: Hopper's features (sm_90): a comparison of ``__CUDA_ARCH__`` with a level at or below
#: the first, or at or above the second, has one answer for every GPU vado treats AMD's as.
CUDA_ARCH_FLOOR = 750
CUDA_ARCH_HOPPER = 900
_CMP = {">=": lambda a, b: a >= b, ">": lambda a, b: a > b, "<": lambda a, b: a < b, "<=": lambda a, b: a <= b,
        "==": lambda a, b: a == b, "!=": lambda a, b: a != b}
DEVICE_PASS = "defined(__HIP_DEVICE_COMPILE__)"


#: Tokens of code no AMD GPU can run: inline assembly (PTX, in a CUDA program).
_PTX_TOKENS = frozenset({"asm", "__asm__", "__asm"})


def _branches(toks, d: int) -> tuple[range, range] | None:
    """Token ranges of the branch an ``#if``/``#elif`` at ``d`` selects and of the branches after it
    (its ``#elif``s and ``#else``, up to its ``#endif``); None where the group is not closed."""
    n = len(toks)
    j = d + 1
    while j < n and toks[j][0] is not Kind.EOD:
        j += 1
    start, split, depth = j + 1, None, 0
    for k in range(start, n):
        if toks[k][0] is not Kind.DIRECTIVE:
            continue
        name = _directive_name(toks[k])
        if name in ("#if", "#ifdef", "#ifndef"):
            depth += 1
        elif name == "#endif":
            if depth == 0:
                split = k if split is None else split
                return range(start, split), range(split, k)
            depth -= 1
        elif name in ("#elif", "#else") and depth == 0 and split is None:
            split = k
    return None


def _negations(toks, d: int, i: int) -> int:
    """How many ``!`` apply to the comparison at ``i`` in the directive at ``d`` (``!(… >= 800)``)."""
    stack: list[bool] = []
    for k in range(d + 1, i):
        text = toks[k][3]
        if text == "(":
            stack.append(toks[k - 1][3] == "!")
        elif text == ")" and stack:
            stack.pop()
    return sum(stack) + (toks[i - 1][3] == "!")


def _has_error(toks, span: range) -> bool:
    """Whether ``span`` holds an ``#error`` directive."""
    return any(toks[k][0] is Kind.DIRECTIVE and _directive_name(toks[k]) == "#error" for k in span)


def _has_code(toks, span: range) -> bool:
    return any(toks[k][0] is not Kind.DIRECTIVE and toks[k][0] is not Kind.EOD for k in span)


def _has_ptx(toks, span: range) -> bool:
    return any(toks[k][0] is Kind.IDENT and toks[k][3] in _PTX_TOKENS for k in span)


def _comparison_branches(toks, i: int) -> tuple[range, range] | None:
    """Token ranges of the branch compiled when the comparison at ``i`` is true and of the one compiled
    when it is false, for a comparison in an ``#if``/``#elif``; None elsewhere or in an unclosed group."""
    d = _directive_of(toks, i)
    spans = _branches(toks, d) if d is not None and _directive_name(toks[d]) in ("#if", "#elif") else None
    if spans is None:
        return None
    selected, others = spans
    if _negations(toks, d, i) % 2:
        selected, others = others, selected
    return selected, others


#: Why the port does not take the branch of an #error: the test demands an NVIDIA architecture level.
_ERROR_REASON = ("the branch CUDA takes there is an #error that demands another NVIDIA architecture level, which "
                 "an AMD GPU is not: the port takes the other branch (what the code needs of the GPU is judged by "
                 "the findings on the code it uses)")


def _one_level(toks, i: int, device: bool) -> tuple[bool, str]:
    """The device-pass value of a comparison that every GPU from sm_75 to before sm_90 answers ``device``,
    and why: that answer, unless its branch is an ``#error`` (a demand for an architecture level, which
    would fail every device pass of the port) or inline PTX beside a portable branch (which no AMD GPU
    runs: ``red.relaxed.gpu.global.add.noftz.f16x2`` vs ``atomicAdd``)."""
    why = ("every NVIDIA GPU from sm_75 to before sm_90 (what AMD's GPUs are counted as) "
           f"{'takes' if device else 'skips'} this branch")
    spans = _comparison_branches(toks, i)
    if spans is None:
        return device, why
    taken, other = spans if device else spans[::-1]
    if _has_error(toks, taken) and not _has_error(toks, other):
        return not device, _ERROR_REASON
    if _has_ptx(toks, taken) and not _has_ptx(toks, other) and _has_code(toks, other):
        return not device, ("CUDA takes the inline-PTX branch for these GPUs, which no AMD GPU runs: the port "
                            "takes the program's portable branch")
    return device, why


def _between_levels(toks, i: int, newer: bool) -> tuple[bool, Applicability, str]:
    """The device-pass value of an ``__CUDA_ARCH__`` comparison at ``i`` that sm_75 and sm_89 answer
    differently (``newer``: sm_89's answer), how safe that choice is, and why.

    AMD's Instinct GPUs are counted as Ampere-class (sm_80–sm_89, the A100 and L40 the workload
    moves from): the branches these levels guard are bf16/fp8 types and intrinsics HIP has, where the
    older branch is a polyfill that collides with HIP's or an ``assert(false)`` for GPUs without them.
    The exception is a newer branch written in inline PTX (``cp.async``, ``ldmatrix``): no AMD GPU
    runs it, and the older branch is the program's own portable version (what CUDA builds for sm_75)."""
    spans = _comparison_branches(toks, i)
    if spans is None:
        return newer, Applicability.UNSAFE, "the fix assumes the newer branch, check it"
    selected, others = spans
    newer_code, older_code = (selected, others) if newer else (others, selected)
    if _has_error(toks, newer_code) and not _has_error(toks, older_code):
        return not newer, Applicability.SAFE, _ERROR_REASON
    if _has_error(toks, older_code) and not _has_error(toks, newer_code):
        return newer, Applicability.SAFE, _ERROR_REASON
    newer_ptx, older_ptx = _has_ptx(toks, newer_code), _has_ptx(toks, older_code)
    if newer_ptx and older_ptx:
        return newer, Applicability.UNSAFE, "both branches are inline PTX, which no AMD GPU runs; the fix assumes the newer one"
    if newer_ptx and not _has_code(toks, older_code):
        # No other branch: taking "none" would drop what the PTX does, silently; keeping it fails to compile.
        return newer, Applicability.UNSAFE, "the newer branch is inline PTX and there is no other: port it by hand"
    if newer_ptx:
        return not newer, Applicability.SAFE, ("the newer branch is inline PTX, which no AMD GPU runs: the port takes "
                                               "the program's portable branch, the one CUDA builds for sm_75")
    return newer, Applicability.SAFE, ("the port takes the branch of Ampere-class GPUs (sm_80–sm_89: A100, L40), whose "
                                       "bf16/fp8 types and intrinsics HIP has")


def _static_assert_comparison(toks, i: int) -> int | None:
    """For ``static_assert(__CUDA_ARCH__ OP N`` + ``,`` or ``)`` at ``i``: the end (exclusive) of ``__CUDA_ARCH__ OP N``."""
    n = len(toks)
    if i < 2 or toks[i - 1][3] != "(" or toks[i - 2][3] != "static_assert" or i + 3 >= n:
        return None
    op, num, after = toks[i + 1], toks[i + 2], toks[i + 3]
    if op[3] in _CMP and num[0] is Kind.NUMBER and after[3] in (",", ")"):
        return i + 3
    return None


class CudaArchMacroTest(Rule):
    """Preprocessor tests of ``__CUDA_ARCH__`` (and ``__CUDACC__``, ``__NVCC__``), which HIP does not define.

    What it does
    ------------
    Finds ``#ifdef __CUDA_ARCH__``, ``defined(__CUDA_ARCH__)``, ``#if
    __CUDA_ARCH__ >= 700``-style comparisons, ``__CUDA_ARCH__`` used as a
    value in code, and ``#ifdef __CUDACC__`` / ``#ifdef __NVCC__`` (nvcc's
    "compiled as CUDA" tests).

    Why is this bad?
    ----------------
    nvcc defines ``__CUDA_ARCH__`` in the device pass (to the target's compute
    capability, ``700`` for sm_70); hipcc defines ``__HIP_DEVICE_COMPILE__``
    there instead (and per-architecture macros such as ``__gfx942__``), never
    ``__CUDA_ARCH__``. A port that keeps the test compiles every device pass
    as if it were the host pass: ``#ifdef __CUDA_ARCH__`` branches vanish,
    kernels whose bodies sit in such a branch compile to empty functions, and
    ``#if __CUDA_ARCH__ >= 700`` silently selects the legacy branch. Nothing
    fails to compile. hipcc defines ``__HIPCC__``, not ``__CUDACC__`` or
    ``__NVCC__``: a ``#ifdef __NVCC__`` that marks helpers ``__device__``
    leaves them host-only (HeCBench ssim).

    Example
    -------
    .. code-block:: cuda

        #ifdef __CUDA_ARCH__
          v = __ldg(p);
        #endif
        #if __CUDA_ARCH__ >= 700
          __syncwarp();
        #endif

    Use instead
    -----------
    .. code-block:: cuda

        #ifdef __HIP_DEVICE_COMPILE__
          v = __ldg(p);
        #endif
        #if defined(__HIP_DEVICE_COMPILE__)
          __syncwarp();
        #endif

    Fix safety
    ----------
    ``defined(__CUDA_ARCH__)`` → ``defined(__HIP_DEVICE_COMPILE__)`` (and
    ``#ifdef``/``#ifndef``, and a bare ``#if __CUDA_ARCH__``) is safe: both
    name the device pass. ``__CUDACC__`` and ``__NVCC__`` → ``__HIPCC__`` are safe (each
    is defined in both passes of a CUDA compile, as ``__HIPCC__`` is in a HIP one). A comparison
    ``__CUDA_ARCH__ OP N`` is evaluated for both passes: on the host pass
    ``__CUDA_ARCH__`` is undefined, so it is ``0 OP N``; on the device pass
    vado counts an AMD GPU as an NVIDIA architecture from sm_75 (the oldest
    CUDA 13 compiles for: the C++ features those levels gate, fp16 and
    double atomics, ``__ldg``, the ``*_sync`` warp functions, exist in HIP)
    up to, not including, sm_90 (Hopper's clusters, TMA and wgmma do not
    exist on AMD). Where the answer is the same for the whole range
    (``N <= 750`` or ``N >= 900``) the comparison becomes
    ``defined(__HIP_DEVICE_COMPILE__)``, its negation, ``1`` or ``0``: safe,
    since the branch kept is the one CUDA takes for every such GPU, and what
    HIP lacks inside it is then reported by its own rule (ARCH001 for
    wmma, PTX rules for inline PTX) instead of vanishing. Levels in between
    (``< 800``, ``>= 800``) are answered for an Ampere-class GPU (sm_80–sm_89,
    the A100 or L40 the workload moves from), also safe: what these levels
    guard is bf16/fp8 support HIP has, and the older branch is a polyfill that
    collides with HIP's own functions or an ``assert(false)`` for GPUs
    without it (HeCBench attention-paged, attentionMultiHeadKVCache). Where
    the branch so chosen is inline PTX (``cp.async``, ``ldmatrix``, or
    ``red.relaxed.gpu.global.add.noftz.f16x2`` under ``>= 700``), which no AMD
    GPU runs, and the other branch is portable code (``atomicAdd``), the port
    takes the other branch. Where the branch so chosen holds an ``#error``
    (a demand for an NVIDIA architecture level, ``#if __CUDA_ARCH__ < 900``
    / ``#error "needs sm_90"``), the port takes the other branch: kept, it
    would fail every device pass; what the code needs of the GPU is judged by
    the findings on the code it uses. Likewise ``static_assert(__CUDA_ARCH__
    >= 800, …)`` in code (undeclared in both passes of a HIP compile) becomes
    ``static_assert(true, …)``. PTX in both branches, PTX with no other branch
    (taking none would drop what it does), or a comparison outside an ``#if``,
    gets the newer branch with an unsafe fix: choose by hand. ``==``/``!=``
    tests and ``__CUDA_ARCH__`` used as a value in code get no fix. A
    ``__CUDACC__``/``__NVCC__`` test in a conditional that also tests a HIP
    macro (``#if defined(__NVCC__) … #elif defined(__HIP_PLATFORM_AMD__)``,
    or the project's own HIP option given as the rule option ``amd_defines``)
    is the project's own HIP path: it is left as written, with no finding.

    References
    ----------
    - HIP porting guide (``__HIP_DEVICE_COMPILE__`` replaces ``__CUDA_ARCH__``): https://github.com/ROCm/HIP/blob/c5e11fcac8249ce4f7e70157588ff9661a870b59/docs/how-to/hip_porting_guide.md
    - CUDA programming guide, ``__CUDA_ARCH__``: https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#cuda-arch
    - CUDA 13.0 release notes (sm_75 is the oldest supported architecture): https://docs.nvidia.com/cuda/cuda-toolkit-release-notes/index.html
    """

    code = "ARCH007"
    triggers = frozenset({"__CUDA_ARCH__", "__CUDACC__", "__NVCC__"})
    can_fix = True
    name = "cuda-arch-macro-test"
    severity = Severity.HIGH
    file_kinds = cs.CUDA_CXX_KINDS

    def check(self, ctx: FileContext) -> Iterable[Finding]:
        view = cs.device_view(ctx)
        toks = view.tokens
        hits = view.ident_indices(self.triggers)
        # The program's own #define of the name: its tests mean what the program says.
        own = {toks[i][3] for i in hits if _tested_name(toks, i) == "define" and _directive_name(toks[i - 1]) == "#define"}
        aware = None
        for i in hits:
            tok = toks[i]
            name = tok[3]
            if name in own:
                continue
            how = _tested_name(toks, i)
            if how is None or how == "define" and _directive_name(toks[i - 1]) in ("#define", "#undef"):
                continue
            if name in ("__CUDACC__", "__NVCC__"):
                if aware is None:
                    aware = hip_aware_directives(toks, view.directive_marks, amd_configuration(ctx.options))
                if aware and _directive_of(toks, i) in aware:
                    continue  # the project's own HIP path: the conditional tells HIP apart already
                if how in ("ifdef", "value"):
                    yield self._fixed(ctx, tok[1], tok[2], "__HIPCC__", Applicability.SAFE,
                                      f"hipcc defines __HIPCC__, not {name}: the test is false in every pass of the port")
                continue
            if how == "ifdef":
                yield self._fixed(ctx, tok[1], tok[2], "__HIP_DEVICE_COMPILE__", Applicability.SAFE,
                                  "HIP does not define __CUDA_ARCH__: the device pass compiles the host branch "
                                  "(use __HIP_DEVICE_COMPILE__)")
                continue
            if how == "value":
                yield from self._value(ctx, toks, i)
                continue
            end = _static_assert_comparison(toks, i) if how == "code" else None
            if end is not None:
                text = cs.text_of(ctx.text, toks, i, end)
                yield self._fixed(ctx, tok[1], toks[end - 1][2], "true", Applicability.SAFE,
                                  f"static_assert({text}) demands an NVIDIA architecture level, and HIP does not "
                                  "define __CUDA_ARCH__ (an undeclared name in both passes of the port): the port "
                                  "answers it as met; what the code needs of the GPU is judged by the findings on "
                                  "the code it uses")
                continue
            yield self.finding(ctx, tok[1], tok[2], "__CUDA_ARCH__ is not defined by HIP; this use needs a value by hand "
                               "(AMD GPUs: __gfx942__, __gfx950__ … in the device pass)",
                               verdicts_for(ctx, _by_family({**_PREPROC_VERDICTS, "rocm": MANUAL})),
                               effort=Effort(lines=1, constructs=1, hours=0.5), data={"macro": name})

    def _value(self, ctx: FileContext, toks, i: int) -> Iterable[Finding]:
        tok = toks[i]
        n = len(toks)
        op = toks[i + 1] if i + 1 < n else None
        if op is None or op[0] is Kind.EOD or op[3] in ("&&", "||", ")", "?"):
            if i == 0 or toks[i - 1][3] in ("(", "!", "&&", "||") or toks[i - 1][0] is Kind.DIRECTIVE:
                yield self._fixed(ctx, tok[1], tok[2], DEVICE_PASS, Applicability.SAFE,
                                  "HIP does not define __CUDA_ARCH__: `#if __CUDA_ARCH__` is false in the device pass")
                return
        num = toks[i + 2] if i + 2 < n else None
        level = cs.int_value(num[3]) if num is not None and num[0] is Kind.NUMBER else None
        if op is not None and op[3] in _CMP and level is not None and op[3] not in ("==", "!="):
            host = _CMP[op[3]](0, level)
            low, high = _CMP[op[3]](CUDA_ARCH_FLOOR, level), _CMP[op[3]](CUDA_ARCH_HOPPER - 1, level)
            text = cs.text_of(ctx.text, toks, i, i + 3)
            why = f"HIP does not define __CUDA_ARCH__, so `{text}` is {'true' if host else 'false'} in every pass of the port; "
            safe = Applicability.SAFE
            if low == high:
                device, reason = _one_level(toks, i, low)
                why += reason
            else:
                device, safe, reason = _between_levels(toks, i, high)
                why += f"sm_75 and sm_89 answer differently: {reason}"
            repl = {(True, False): DEVICE_PASS, (False, True): f"!{DEVICE_PASS}",
                    (True, True): "1", (False, False): "0"}[(device, host)]
            yield self._fixed(ctx, tok[1], num[2], repl, safe, why)
            return
        yield self.finding(ctx, tok[1], tok[2], "HIP does not define __CUDA_ARCH__: this test of its value is false in the device "
                           "pass; rewrite it with __HIP_DEVICE_COMPILE__ or __gfx942__-style macros",
                           verdicts_for(ctx, _by_family({**_PREPROC_VERDICTS, "rocm": MANUAL})),
                           effort=Effort(lines=1, constructs=1, hours=0.5), data={"macro": "__CUDA_ARCH__"})

    def _fixed(self, ctx: FileContext, start: int, end: int, repl: str, applicability: Applicability, why: str) -> Finding:
        safe = applicability is Applicability.SAFE
        fix = Fix((ctx.edit(start, end, repl),), applicability, f"{ctx.text[start:end]} → {repl}", ("arch",))
        verdicts = verdicts_for(ctx, _by_family({**_PREPROC_VERDICTS, "rocm": AUTO if safe else MANUAL}))
        return self.finding(ctx, start, end, why, verdicts, fix=fix,
                            effort=Effort(lines=1, constructs=1, hours=0.0 if safe else 0.25),
                            data={"replacement": repl})


_VERSION_MACROS = frozenset({"CUDART_VERSION", "CUDA_VERSION", "__CUDACC_VER_MAJOR__", "__CUDACC_VER_MINOR__",
                             "__CUDACC_VER_BUILD__", "__NVCC_VER_MAJOR__"})


#: How each version macro reads a CUDA release ``(major, minor)``: ``CUDART_VERSION`` and ``CUDA_VERSION``
#: are ``1000 * major + 10 * minor`` (12040 for 12.4, cuda_runtime_api.h / cuda.h), the compiler's
#: ``__CUDACC_VER_MAJOR__`` the major number. The minor and build numbers alone decide nothing.
_VERSION_VALUE = {
    "CUDART_VERSION": lambda v: 1000 * v[0] + 10 * v[1],
    "CUDA_VERSION": lambda v: 1000 * v[0] + 10 * v[1],
    "__CUDACC_VER_MAJOR__": lambda v: v[0],
    "__NVCC_VER_MAJOR__": lambda v: v[0],
}
_LACKING = frozenset({"unavailable", "removed", "newer-than-target"})
#: Sections of HIPIFY's tables HIP implements little of at any version (graphics interoperability): they
#: say nothing about how far HIP follows CUDA's compute API (CUDA 9.1 added 24 EGL functions and nothing else).
_INTEROP_SECTIONS = ("EGL", "OpenGL", "Direct3D", "VDPAU", "Graphics Interoperability")


@functools.lru_cache(maxsize=16)
def _cuda_api_level(name: str, family: str, level: str) -> tuple[int, int] | None:
    from vado.knowledge.api import api_table, availability
    from vado.knowledge.targets import get_target

    target = get_target(name)
    per_release: dict[tuple[int, int], list[int]] = {}
    for e in api_table().entries:
        if e.library not in ("runtime", "driver") or e.kind != "function" or not e.cuda_added:
            continue
        if any(word in e.section for word in _INTEROP_SECTIONS):
            continue
        release = cs.version_tuple(e.cuda_added)[:2]
        if len(release) < 2:
            continue
        counts = per_release.setdefault(release, [0, 0])
        counts[0] += 1
        counts[1] += availability(e, target).status.value not in _LACKING
    found = None
    for release in sorted(per_release):
        total, has = per_release[release]
        if 2 * has < total:
            break
        found = release
    return found


def cuda_api_level(target) -> tuple[int, int] | None:
    """The CUDA release whose runtime API ``target``'s HIP follows, by a stated rule over HIPIFY's tables
    (``knowledge/data/api``: each function's ``cuda_added`` against the target's HIP version): the
    CUDA releases, oldest first, each of whose new runtime and driver functions the target mostly
    (at least half) has, form a run; the level is the last release of that run (graphics
    interoperability left out). For ROCm 7.2 that is CUDA 11.7: HIP 7.2 has 8 of the 11 functions
    11.7 added and none of the 8 that 11.8 added (12.0: 4 of 23, 12.1: 0 of 12), and it keeps CUDA
    11's signatures where CUDA 12 changed them (``hipGraphInstantiate`` takes five arguments).
    None for a target without API facts (not ROCm)."""
    if target.family != "rocm":
        return None
    return _cuda_api_level(target.name, target.family, target.hip_version or target.version)


class CudaVersionMacroTest(Rule):
    """Preprocessor tests of the CUDA toolkit version (``CUDART_VERSION``, ``CUDA_VERSION``, ``__CUDACC_VER_MAJOR__``).

    What it does
    ------------
    Finds ``#if CUDART_VERSION >= 11000``, ``#if CUDA_VERSION < 12000``,
    ``#if __CUDACC_VER_MAJOR__ >= 11`` and ``#ifdef CUDART_VERSION`` /
    ``defined(CUDA_VERSION)``.

    Why is this bad?
    ----------------
    HIP defines none of them, so in the port every comparison sees 0:
    ``>=`` tests are false and the branch written for old CUDA toolkits (or
    nothing) is compiled, silently. ``#ifdef CUDART_VERSION`` (is the runtime
    API header included?) is false too.

    Example
    -------
    .. code-block:: cuda

        #if CUDART_VERSION >= 12000
          cudaGraphInstantiate(&exec, graph, 0);
        #else
          cudaGraphInstantiate(&exec, graph, NULL, NULL, 0);
        #endif

    Use instead
    -----------
    .. code-block:: cuda

        // the branch whose API matches HIP's (hipGraphInstantiate keeps the 5-argument form)
        #if 0
          hipGraphInstantiate(&exec, graph, 0);
        #else
          hipGraphInstantiate(&exec, graph, NULL, NULL, 0);
        #endif

    Fix safety
    ----------
    ``defined(CUDART_VERSION)``/``defined(CUDA_VERSION)`` → ``defined(HIP_VERSION)``
    is safe: CUDA defines them in the runtime and driver API headers, and
    ``HIP_VERSION`` comes with ``hip_runtime.h``/``hip_runtime_api.h``, which
    the port includes in their place. A comparison ``NAME OP N`` of
    ``CUDART_VERSION``, ``CUDA_VERSION`` or ``__CUDACC_VER_MAJOR__`` is decided
    for the ROCm target, safely, by a stated rule: the target's HIP follows
    the CUDA API of the release :func:`cuda_api_level` finds in vado's API
    tables (CUDA 11.7 for ROCm 7.2: the end of the run of releases, oldest
    first, whose new runtime and driver functions HIP 7.2 mostly has; 11.8
    added 8 and HIP has none), so the comparison becomes ``1`` or
    ``0`` as that release answers it. Two exceptions, each stated in the
    finding: where the branch so chosen calls a CUDA function the target
    lacks and the other branch calls none, the port takes the other branch
    (the one whose APIs the target has); where the branch so chosen is an
    ``#error`` demanding a toolkit version, the port takes the other one (the
    calls are judged by their own findings). The minor and build numbers
    alone, ``==``/``!=`` and tests outside an ``#if`` get no fix: choose by
    hand.

    References
    ----------
    - HIP version macros (``hip_version.h``): https://rocm.docs.amd.com/projects/HIP/en/latest/reference/hip_runtime_api/modules/version.html
    - CUDA runtime API (``CUDART_VERSION``): https://docs.nvidia.com/cuda/cuda-runtime-api/
    - HIPIFY's support tables (the CUDA release each function was added in, the HIP release that has it): https://github.com/ROCm/HIPIFY/tree/014177bc2e434ce3e834aa4f3d0e2abb1efa9796/docs/tables
    """

    code = "ARCH008"
    triggers = _VERSION_MACROS
    can_fix = True
    name = "cuda-version-macro-test"
    severity = Severity.MEDIUM
    file_kinds = cs.CUDA_CXX_KINDS

    def check(self, ctx: FileContext) -> Iterable[Finding]:
        view = cs.device_view(ctx)
        toks = view.tokens
        hits = view.ident_indices(self.triggers)
        own = {toks[i][3] for i in hits if i > 0 and _directive_name(toks[i - 1]) == "#define"}
        for i in hits:
            tok = toks[i]
            name = tok[3]
            if name in own:
                continue
            how = _tested_name(toks, i)
            if how == "ifdef" and name in ("CUDART_VERSION", "CUDA_VERSION"):
                fix = Fix((ctx.edit(tok[1], tok[2], "HIP_VERSION"),), Applicability.SAFE, f"{name} → HIP_VERSION", ("arch",))
                yield self.finding(ctx, tok[1], tok[2], f"HIP does not define {name}: the test is false in the port "
                                   "(HIP_VERSION comes with the HIP runtime headers)",
                                   verdicts_for(ctx, _by_family(_PREPROC_VERDICTS)), fix=fix,
                                   effort=Effort(lines=1, constructs=1), data={"macro": name})
            elif how in ("ifdef", "value"):
                n = len(toks)
                cmp = toks[i + 1][3] if i + 1 < n else ""
                num = toks[i + 2] if i + 2 < n else None
                value = cs.int_value(num[3]) if num is not None and num[0] is Kind.NUMBER else None
                if how == "value" and cmp in _CMP and value is not None:
                    decided = self._decided(ctx, toks, i, cmp, value)
                    if decided is not None:
                        yield decided
                        continue
                    taken = _CMP[cmp](0, value)
                    text = cs.text_of(ctx.text, toks, i, i + 3)
                    msg = (f"HIP does not define {name}: `{text}` is {'true' if taken else 'false'} in the port, which compiles "
                           f"the {'guarded' if taken else 'other'} branch; choose the branch whose API matches HIP by hand")
                else:
                    msg = f"HIP does not define {name}: the port reads it as 0; choose the branch whose API matches HIP by hand"
                yield self.finding(ctx, tok[1], tok[2], msg, verdicts_for(ctx, _by_family({**_PREPROC_VERDICTS, "rocm": MANUAL})),
                                   effort=Effort(lines=2, constructs=1, hours=0.25), data={"macro": name})

    def _decided(self, ctx: FileContext, toks, i: int, cmp: str, value: int) -> Finding | None:
        """The finding with a fix that answers ``NAME cmp value`` for the first ROCm target, or None."""
        name = toks[i][3]
        read = _VERSION_VALUE.get(name)
        target = next((t for t in ctx.targets if t.family == "rocm"), None)
        level = cuda_api_level(target) if read is not None and target is not None and cmp not in ("==", "!=") else None
        spans = _comparison_branches(toks, i) if level is not None else None
        if spans is None:
            return None
        text = cs.text_of(ctx.text, toks, i, i + 3)
        release = f"{level[0]}.{level[1]}"
        answer = _CMP[cmp](read(level), value)
        why = (f"HIP does not define {name} (it reads 0 there, and `{text}` would silently be "
               f"{'true' if _CMP[cmp](0, value) else 'false'}); {target.name}'s HIP follows the CUDA API up to CUDA "
               f"{release} (the last of the CUDA releases, oldest first, whose new runtime and driver functions it "
               f"mostly has, per HIPIFY's tables), for which `{text}` is {'true' if answer else 'false'}")
        taken, other = spans if answer else spans[::-1]
        if _has_error(toks, taken) and not _has_error(toks, other):
            answer = not answer
            why += ("; that branch is an #error demanding a CUDA toolkit version, which a HIP build is not: the port "
                    "takes the other branch (its calls are judged by their own findings)")
        else:
            lacking = _lacking_apis(toks, taken, target)
            if lacking and not _lacking_apis(toks, other, target) and _has_code(toks, other):
                answer = not answer
                why += (f"; that branch calls {', '.join(lacking[:3])}, which {target.name} lacks, and the other "
                        "branch's calls it has: the port takes the other branch")
        repl = "1" if answer else "0"
        fix = Fix((ctx.edit(toks[i][1], toks[i + 2][2], repl),), Applicability.SAFE, f"{text} → {repl}", ("arch",))
        return self.finding(ctx, toks[i][1], toks[i][2], why, verdicts_for(ctx, _by_family(_PREPROC_VERDICTS)), fix=fix,
                            effort=Effort(lines=1, constructs=1),
                            data={"macro": name, "replacement": repl, "cuda_api_level": release})


def _lacking_apis(toks, span: range, target) -> list[str]:
    """The CUDA runtime/driver names called in ``span`` that ``target`` lacks (HIPIFY's tables), in order."""
    from vado.knowledge.api import availability, lookup

    out: list[str] = []
    for k in span:
        tok = toks[k]
        if tok[0] is Kind.IDENT and tok[3].startswith("cu") and tok[3] not in out:
            entry = lookup(tok[3])
            if entry is not None and availability(entry, target).status.value in _LACKING:
                out.append(tok[3])
    return out


#: Include guards of CUDA headers and the guard of the HIP header the port includes in their place.
#: CUDA side: the headers of CUDA 13.0 (runtime, driver, fp16) and cuda-samples' helper_cuda.h
#: (library headers); HIP side: the headers of ROCm 7.2.4.
CUDA_HEADER_GUARDS = {
    "__CUDA_RUNTIME_H__": ("cuda_runtime.h", "HIP_INCLUDE_HIP_HIP_RUNTIME_H", True),
    "__CUDA_RUNTIME_API_H__": ("cuda_runtime_api.h", "HIP_INCLUDE_HIP_HIP_RUNTIME_API_H", True),
    "__DRIVER_TYPES_H__": ("driver_types.h", "HIP_INCLUDE_HIP_DRIVER_TYPES_H", True),
    "__cuda_cuda_h__": ("cuda.h", "HIP_INCLUDE_HIP_HIP_RUNTIME_API_H", True),
    "__CUDA_FP16_H__": ("cuda_fp16.h", "HIP_INCLUDE_HIP_HIP_FP16_H", True),
    "CUBLAS_API_H_": ("cublas_api.h", "HIPBLAS_H", False),
    "CURAND_H_": ("curand.h", "HIPRAND_H_", False),
    "_CUFFT_H_": ("cufft.h", "HIPFFT_H_", False),
    "CUSPARSEAPI": ("cusparse.h", "HIPSPARSE_H", False),
    "CUSOLVER_COMMON_H_": ("cusolver_common.h", "HIPSOLVER_H", False),
    "NV_NPPIDEFS_H": ("nppdefs.h", "", False),
    "NVJPEGAPI": ("nvjpeg.h", "", False),
}


class CudaHeaderGuardTest(Rule):
    """Tests of a CUDA header's include guard (``#ifdef __DRIVER_TYPES_H__``), the helper_cuda.h idiom.

    What it does
    ------------
    Finds ``#ifdef``/``#ifndef``/``defined()`` tests of the include guards of
    CUDA headers: ``__CUDA_RUNTIME_H__``, ``__CUDA_RUNTIME_API_H__``,
    ``__DRIVER_TYPES_H__``, ``__cuda_cuda_h__``, ``__CUDA_FP16_H__`` and the
    library guards cuda-samples' ``helper_cuda.h`` tests (``CUBLAS_API_H_``,
    ``CURAND_H_``, ``_CUFFT_H_``, ``CUSPARSEAPI``, ``CUSOLVER_COMMON_H_``,
    ``NV_NPPIDEFS_H``, ``NVJPEGAPI``). A header's own guard (``#ifndef X``
    followed by ``#define X``) is not reported.

    Why is this bad?
    ----------------
    The port includes HIP headers, whose guards have other names, so the test
    is false and the code under it (error-string helpers, setup code) is
    silently dropped.

    Example
    -------
    .. code-block:: cuda

        #ifdef __DRIVER_TYPES_H__
        static const char* _cudaGetErrorEnum(cudaError_t e) { return cudaGetErrorName(e); }
        #endif

    Use instead
    -----------
    .. code-block:: cuda

        #ifdef HIP_INCLUDE_HIP_DRIVER_TYPES_H
        static const char* _cudaGetErrorEnum(hipError_t e) { return hipGetErrorName(e); }
        #endif

    Fix safety
    ----------
    The runtime, driver and fp16 guards become the guards of the HIP headers
    the port includes instead (``hip/hip_runtime.h`` includes
    ``hip_runtime_api.h`` and ``driver_types.h``): safe. A library guard
    becomes the guard of the hip* library's header (``HIPBLAS_H``,
    ``HIPRAND_H_``, ``HIPFFT_H_``, ``HIPSPARSE_H``, ``HIPSOLVER_H``): unsafe,
    since the code it brings back may name statuses the hip* library lacks;
    no fix with ``--roc`` or for NPP and nvJPEG (no HIP header in their place).

    References
    ----------
    - CUDA 13.0 headers (``cuda_runtime.h``, ``driver_types.h``, ``cuda.h``, ``cuda_fp16.h`` guards)
    - cuda-samples ``Common/helper_cuda.h``: https://github.com/NVIDIA/cuda-samples/blob/master/Common/helper_cuda.h
    - ROCm 7.2 headers (``hip/hip_runtime.h``, ``hip/driver_types.h``, ``hipblas/hipblas.h`` … guards): https://github.com/ROCm/rocm-systems/tree/develop/projects/hip/include/hip
    """

    code = "ARCH009"
    triggers = frozenset(CUDA_HEADER_GUARDS)
    can_fix = True
    name = "cuda-header-guard-test"
    severity = Severity.HIGH
    file_kinds = cs.CUDA_CXX_KINDS

    def check(self, ctx: FileContext) -> Iterable[Finding]:
        view = cs.device_view(ctx)
        toks = view.tokens
        roc = bool(ctx.options.get("roc"))
        for i in view.ident_indices(self.triggers):
            tok = toks[i]
            if _tested_name(toks, i) != "ifdef":
                continue
            d = _directive_of(toks, i)
            if _directive_name(toks[d]) == "#ifndef" and self._own_guard(toks, i):
                continue
            header, hip_guard, core = CUDA_HEADER_GUARDS[tok[3]]
            fix = None
            if hip_guard and (core or not roc):
                fix = Fix((ctx.edit(tok[1], tok[2], hip_guard),), Applicability.SAFE if core else Applicability.UNSAFE,
                          f"{tok[3]} → {hip_guard}, the guard of the HIP header the port includes", ("arch",))
            safe = fix is not None and fix.applicability is Applicability.SAFE
            msg = (f"{tok[3]} is the include guard of CUDA's {header}; the port includes a HIP header with another guard, "
                   "so this test is false and the code under it is dropped")
            yield self.finding(ctx, tok[1], tok[2], msg, verdicts_for(ctx, _by_family({**_PREPROC_VERDICTS, "rocm": AUTO if safe else MANUAL})),
                               fix=fix, effort=Effort(lines=1, constructs=1, hours=0.0 if safe else 0.25),
                               data={"guard": tok[3], "header": header, "hip_guard": hip_guard})

    @staticmethod
    def _own_guard(toks, i: int) -> bool:
        """``#ifndef X`` whose next line is ``#define X``: a header guarding itself with the name."""
        k = i + 1
        while k < len(toks) and toks[k][0] in (Kind.EOD, Kind.COMMENT):
            k += 1
        return (k + 1 < len(toks) and toks[k][0] is Kind.DIRECTIVE and _directive_name(toks[k]) == "#define"
                and toks[k + 1][3] == toks[i][3])


#: CUDA declaration specifiers hipcc does not know (no HIP header defines them), with what each means.
#: Source: CUDA 13.0 ``crt/host_defines.h`` (their definitions), CUDA programming guide (``__grid_constant__``,
#: ``__maxnreg__``); ROCm 7.2.4 ``hip/`` headers and clang 22's HIP wrappers define none of them.
CUDA_ONLY_SPECIFIERS = {
    "__grid_constant__": ("a const kernel parameter kept in the parameter space so that its address can be taken "
                          "without a copy (CUDA 11.7); the parameter stays const, and taking its address gives a "
                          "copy's, which holds the same value"),
    "__maxnreg__": "a kernel's register limit (CUDA 12.4), a tuning hint for NVIDIA's register file",
    "__local_maxnreg__": "a device function's register limit (CUDA 12.8), a tuning hint for NVIDIA's register file",
}


class CudaOnlyDeclarationSpecifier(Rule):
    """CUDA declaration specifiers HIP does not have: ``__grid_constant__``, ``__maxnreg__(N)``.

    What it does
    ------------
    Finds ``__grid_constant__`` on kernel parameters and the register limits
    ``__maxnreg__(N)`` / ``__local_maxnreg__(N)``.

    Why is this bad?
    ----------------
    nvcc defines them (``crt/host_defines.h``); no HIP header does, so the
    port does not compile: "unknown type name '__grid_constant__'"
    (HeCBench attentionMultiHeadKVCache, FlashInfer's decode kernels).

    Example
    -------
    .. code-block:: cuda

        __global__ void decode(const __grid_constant__ Params params) { … }

    Use instead
    -----------
    .. code-block:: cpp

        __global__ void decode(const Params params) { … }

    Fix safety
    ----------
    Removing them is safe. ``__grid_constant__`` only lets CUDA skip a copy
    when the address of a const parameter is taken: the value is the same,
    and HIP passes kernel arguments in a read-only segment already. The
    register limits are tuning hints; on AMD the register budget follows from
    ``__launch_bounds__`` (measure the kernel again).

    References
    ----------
    - CUDA programming guide, ``__grid_constant__`` and ``__maxnreg__``: https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#grid-constant
    - CUDA 13.0 ``crt/host_defines.h``; ROCm 7.2.4 ``hip/`` headers (no such names)
    """

    code = "ARCH010"
    triggers = frozenset(CUDA_ONLY_SPECIFIERS)
    can_fix = True
    name = "cuda-only-declaration-specifier"
    severity = Severity.HIGH
    file_kinds = cs.CUDA_CXX_KINDS

    def check(self, ctx: FileContext) -> Iterable[Finding]:
        view = cs.device_view(ctx)
        toks = view.tokens
        text = ctx.text
        own = {toks[i][3] for i in view.ident_indices(self.triggers)
               if i > 0 and _directive_name(toks[i - 1]) in ("#define", "#undef")}
        for i in view.ident_indices(self.triggers):
            tok = toks[i]
            name = tok[3]
            if name in own or _directive_of(toks, i) is not None:
                continue  # the program defines it itself, or a directive names it
            end = tok[2]
            if name != "__grid_constant__":
                close = view.pairs.get(i + 1) if i + 1 < len(toks) and toks[i + 1][3] == "(" else None
                if close is None:
                    continue  # a name without its register count: not the specifier
                end = toks[close][2]
            while end < len(text) and text[end] in " \t":
                end += 1  # the space after it goes too
            fix = Fix((ctx.edit(tok[1], end, ""),), Applicability.SAFE, f"{name} removed", ("arch",))
            yield self.finding(ctx, tok[1], tok[2], f"HIP does not define {name}, {CUDA_ONLY_SPECIFIERS[name]}: "
                               "the port leaves it out", verdicts_for(ctx, _by_family(_PREPROC_VERDICTS)),
                               fix=fix, effort=Effort(lines=1, constructs=1), data={"specifier": name})


class SpacedLaunchChevrons(Rule):
    """A kernel launch whose ``<<<`` or ``>>>`` is split by spaces: ``k<< <grid, block >> >(args)``.

    What it does
    ------------
    Finds launches written ``<< <`` … ``>> >`` (or ``< <<``, or one side
    split only), which clang-format writes when it formats old CUDA code as
    C++ shifts and comparisons.

    Why is this bad?
    ----------------
    nvcc accepts the split chevrons; clang, and so hipcc, reads ``<<<`` and
    ``>>>`` as launch syntax only when the three characters touch: hipcc
    7.2.4 stops at the launch with "expected expression". The rest of the
    port does not see a launch there either (``--launch ggl``, the launch
    checks of the other rules).

    Example
    -------
    .. code-block:: cuda

        add<< <blocks, threads >> >(a, b, n);

    Use instead
    -----------
    .. code-block:: cuda

        add<<<blocks, threads>>>(a, b, n);

    Fix safety
    ----------
    Safe: only the spaces inside the chevrons go; the launch is the one nvcc
    compiled. ZLUDA runs nvcc's build (moves as is); SCALE is not judged
    (whether its compiler takes the split spelling is not checked here).

    References
    ----------
    - CUDA programming guide, execution configuration: https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#execution-configuration
    - clang's lexer (``<<<``/``>>>`` as tokens in CUDA/HIP mode): https://github.com/llvm/llvm-project/blob/main/clang/lib/Lex/Lexer.cpp
    """

    code = "ARCH011"
    can_fix = True
    name = "spaced-launch-chevrons"
    severity = Severity.HIGH
    file_kinds = cs.CUDA_CXX_KINDS

    _VERDICTS = {"rocm": AUTO, "oneapi": MANUAL, "zluda": AS_IS}

    def check(self, ctx: FileContext) -> Iterable[Finding]:
        view = cs.device_view(ctx)
        starts = view.punct_indices("<<") + view.punct_indices("<<<")
        if not starts:
            return
        toks = view.tokens
        verdicts = None
        for a, b, c, d in cs.spaced_launches(toks, ctx.text, starts):
            if verdicts is None:
                verdicts = verdicts_for(ctx, _by_family(self._VERDICTS))
            edits = []
            if b > a:
                edits.append(ctx.edit(toks[a][1], toks[b][2], "<<<"))
            if d > c:
                edits.append(ctx.edit(toks[c][1], toks[d][2], ">>>"))
            name = toks[a - 1][3]
            fix = Fix(tuple(edits), Applicability.SAFE, f"join the launch chevrons of {name}", ("launch",))
            yield self.finding(ctx, toks[a][1], toks[d][2],
                               f"launch of {name} with spaces inside `<<<`/`>>>` ({cs.text_of(ctx.text, toks, a, b + 1)} "
                               f"… {cs.text_of(ctx.text, toks, c, d + 1)}): nvcc accepts it, hipcc (clang) does not",
                               verdicts, fix=fix, effort=Effort(lines=1, constructs=1), data={"kernel": name})
