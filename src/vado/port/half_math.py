"""Half and bfloat16 intrinsics of CUDA's ``cuda_fp16.h``/``cuda_bf16.h`` that ROCm's headers lack.

Compared name by name against ROCm 7.2.4's ``hip/amd_detail/amd_hip_fp16.h`` and
``amd_hip_bf16.h`` (every function CUDA 13 declares with ``__CUDA_FP16_DECL__`` or
``__CUDA_BF16_DECL__``), these have no HIP counterpart: the comparison masks
(``__heq2_mask`` … ``__hltu2_mask``), the NaN-propagating ``__hmax2_nan``/``__hmin2_nan``,
``__hmax2``/``__hmin2`` on ``__half2`` (HIP declares only the ``__hip_bfloat162`` ones; the helper has
both overloads, as a call's type is not known here),
``__hfma_relu``/``__hfma2_relu``, the complex ``__hcmadd``, ``htanh``/``h2tanh`` and their
``_approx`` forms, ``__half2char_rz``/``__half2uchar_rz``, ``__double2half`` and
``make_bfloat162``. Each becomes a :class:`~vado.port.compat.LocalHelper` written as
CUDA's own header defines it (its non-PTX branch), with an overload per type the
CUDA name has (``__half``/``__half2`` and ``__hip_bfloat16``/``__hip_bfloat162``). Each
overload sits under the include guard of the HIP header that declares its type, so a
file that includes only one of them compiles. Lanes are compared and clamped as
``float`` (exact for both formats), with -0 below +0 where CUDA's instructions order them (max, min,
relu: checked bit for bit against CUDA on an H200, tests/port/test_half_math.py); arithmetic uses HIP's own
``__hfma``/``__hfma2``.
The ``_approx`` forms compute the accurate value (CUDA allows any result within the
approximation's error; AMD has no tanh instruction).
"""

from __future__ import annotations

from dataclasses import dataclass

from vado.port.compat import LocalHelper, _api_status

SOURCE = ("CUDA 13.0 cuda_fp16.hpp/cuda_bf16.hpp (definitions of __heq2_mask, __hmax2_nan, __hfma_relu, __hcmadd, "
          "htanh, __half2char_rz, make_bfloat162 …); ROCm 7.2.4 hip/amd_detail/amd_hip_fp16.h and amd_hip_bf16.h "
          "(none of these names; __hfma, __hfma2, __low2float, __halves2half2, __halves2bfloat162, "
          "__ushort_as_half, __ushort_as_bfloat16 declared)")


@dataclass(frozen=True)
class HalfType:
    """One 16-bit float format as HIP spells it."""

    scalar: str
    pair: str
    guard: str  # the include guard of the HIP header that declares it
    to_float: str
    from_float: str  # round to nearest even
    halves: str
    low: str
    high: str
    from_bits: str


HALF = HalfType("__half", "__half2", "HIP_INCLUDE_HIP_AMD_DETAIL_HIP_FP16_H", "__half2float", "__float2half",
                "__halves2half2", "__low2half", "__high2half", "__ushort_as_half")
BF16 = HalfType("__hip_bfloat16", "__hip_bfloat162", "_HIP_INCLUDE_HIP_AMD_DETAIL_HIP_BF16_H_", "__bfloat162float",
                "__float2bfloat16", "__halves2bfloat162", "__low2bfloat16", "__high2bfloat16", "__ushort_as_bfloat16")

#: Lane conditions of the comparison masks on floats ``x``/``y``: ordered ones are false for NaN, the
#: ``u`` (unordered) ones true.
COMPARISONS = {
    "eq": "x == y", "ne": "x < y || x > y", "ge": "x >= y", "gt": "x > y", "le": "x <= y", "lt": "x < y",
    "equ": "!(x < y || x > y)", "neu": "!(x == y)", "geu": "!(x < y)", "gtu": "!(x <= y)", "leu": "!(x > y)",
    "ltu": "!(x >= y)",
}


#: Names CUDA declares for device code only (``__CUDA_FP16_DECL__``; the rest are host and device): their
#: helpers call HIP's ``__hfma``, itself device code.
DEVICE_ONLY = frozenset({"__hfma_relu", "__hfma2_relu", "__hcmadd", "htanh", "htanh_approx", "h2tanh", "h2tanh_approx"})


def _helper_name(cuda_name: str) -> str:
    return "vado_" + cuda_name.lstrip("_")


def _nan(t: HalfType) -> str:
    return f"{t.from_bits}((unsigned short)0x7FFFU)"  # CUDART_NAN_FP16 / CUDART_NAN_BF16


def _overloads(cuda_name: str, t: HalfType) -> str:
    """The helper's definition for type ``t``."""
    h = _helper_name(cuda_name)
    s, p = t.scalar, t.pair
    hd = "static __device__ inline" if cuda_name in DEVICE_ONLY else "static __host__ __device__ inline"
    if cuda_name.endswith("2_mask"):
        cond = COMPARISONS[cuda_name[len("__h"):-len("2_mask")]]
        return (f"{hd} unsigned int {h}(const {p} a, const {p} b) {{\n"
                f"  float x = __low2float(a), y = __low2float(b);\n"
                f"  const unsigned int lo = ({cond}) ? 0xFFFFU : 0U;\n"
                f"  x = __high2float(a);\n  y = __high2float(b);\n"
                f"  return lo | (({cond}) ? 0xFFFF0000U : 0U);\n}}\n")
    if cuda_name in ("__hmax2", "__hmin2", "__hmax2_nan", "__hmin2_nan"):
        op = cuda_name[3:6]
        # -0 is below +0, as in CUDA's max.NaN/min.NaN (measured on an H200: max(+0, -0) is +0). A NaN lane: the
        # _nan forms give the canonical NaN; the others give the other input's lane, and two NaN lanes the
        # canonical NaN (CUDA's documented behaviour).
        pick = "x > y || (x == y && !signbit(x))" if op == "max" else "x < y || (x == y && signbit(x))"
        nan = (f"    if (x != x || y != y) return {_nan(t)};\n" if cuda_name.endswith("_nan") else
               f"    if (x != x) return y != y ? {_nan(t)} : v;\n    if (y != y) return u;\n")
        return (f"{hd} {p} {h}(const {p} a, const {p} b) {{\n"
                f"  auto lane = [](const {s} u, const {s} v) -> {s} {{\n"
                f"    const float x = {t.to_float}(u), y = {t.to_float}(v);\n"
                f"{nan}"
                f"    return ({pick}) ? u : v;\n  }};\n"
                f"  return {t.halves}(lane({t.low}(a), {t.low}(b)), lane({t.high}(a), {t.high}(b)));\n}}\n")
    relu = (f"  auto relu = [](const {s} r) -> {s} {{\n"
            f"    const float x = {t.to_float}(r);\n"
            f"    if (x != x) return {_nan(t)};\n"
            f"    return x > 0.0f ? r : {t.from_float}(0.0f);  // -0 becomes +0, as in CUDA's fma.rn.relu\n  }};\n")
    if cuda_name == "__hfma_relu":
        return f"{hd} {s} {h}(const {s} a, const {s} b, const {s} c) {{\n{relu}  return relu(__hfma(a, b, c));\n}}\n"
    if cuda_name == "__hfma2_relu":
        return (f"{hd} {p} {h}(const {p} a, const {p} b, const {p} c) {{\n{relu}"
                f"  const {p} r = __hfma2(a, b, c);\n"
                f"  return {t.halves}(relu({t.low}(r)), relu({t.high}(r)));\n}}\n")
    if cuda_name == "__hcmadd":
        lo_a, hi_a, lo_b, hi_b = f"{t.low}(a)", f"{t.high}(a)", f"{t.low}(b)", f"{t.high}(b)"
        return (f"{hd} {p} {h}(const {p} a, const {p} b, const {p} c) {{\n"
                f"  // (a.re + i a.im) (b.re + i b.im) + (c.re + i c.im), in CUDA's order of fused operations\n"
                f"  {s} re = __hfma({lo_a}, {lo_b}, {t.low}(c));\n"
                f"  {s} im = __hfma({lo_a}, {hi_b}, {t.high}(c));\n"
                f"  re = __hfma({t.from_float}(-{t.to_float}({hi_a})), {hi_b}, re);\n"
                f"  im = __hfma({hi_a}, {lo_b}, im);\n"
                f"  return {t.halves}(re, im);\n}}\n")
    if cuda_name in ("htanh", "htanh_approx"):
        return f"{hd} {s} {h}(const {s} a) {{ return {t.from_float}(tanhf({t.to_float}(a))); }}\n"
    if cuda_name in ("h2tanh", "h2tanh_approx"):
        return (f"{hd} {p} {h}(const {p} a) {{\n"
                f"  return {t.halves}({t.from_float}(tanhf(__low2float(a))), {t.from_float}(tanhf(__high2float(a))));\n"
                f"}}\n")
    if cuda_name in ("__half2char_rz", "__half2uchar_rz"):
        signed = cuda_name == "__half2char_rz"
        r, lo, hi = ("signed char", "-128.0f", "127.0f") if signed else ("unsigned char", "0.0f", "255.0f")
        return (f"{hd} {r} {h}(const {s} a) {{\n"
                f"  const float f = {t.to_float}(a);\n"
                f"  if (f != f) return 0;\n"
                f"  if (f > {hi}) return ({r}){hi[:-3]};\n"
                f"  if (f < {lo}) return ({r}){lo[:-3]};\n"
                f"  return ({r})f;  // toward zero\n}}\n")
    if cuda_name == "__double2half":
        return f"{hd} {s} {h}(const double a) {{ return {s}(a); }}  // one rounding, to nearest even\n"
    if cuda_name == "make_bfloat162":
        return f"{hd} {p} {h}(const {s} x, const {s} y) {{ return {t.halves}(x, y); }}\n"
    raise KeyError(cuda_name)


#: CUDA name → the formats it exists for in CUDA's headers.
NAMES: dict[str, tuple[HalfType, ...]] = {
    **{f"__h{c}2_mask": (HALF, BF16) for c in COMPARISONS},
    "__hmax2": (HALF, BF16), "__hmin2": (HALF, BF16),
    "__hmax2_nan": (HALF, BF16), "__hmin2_nan": (HALF, BF16),
    "__hfma_relu": (HALF, BF16), "__hfma2_relu": (HALF, BF16), "__hcmadd": (HALF, BF16),
    "htanh": (HALF, BF16), "htanh_approx": (HALF, BF16), "h2tanh": (HALF, BF16), "h2tanh_approx": (HALF, BF16),
    "__half2char_rz": (HALF,), "__half2uchar_rz": (HALF,), "__double2half": (HALF,),
    "make_bfloat162": (BF16,),
}


#: Names HIP declares for ``__hip_bfloat162`` only (amd_hip_bf16.h), not for ``__half2``.
BF16_ONLY_IN_HIP = frozenset({"__hmax2", "__hmin2"})


def _applies(cuda_name: str):
    # ROCm targets whose API data lists no counterpart; CUDA 12.8's tanh forms are not in the tables yet.
    return lambda t: t.family == "rocm" and _api_status(cuda_name, t) in ("unavailable", "unknown")


def half_math_helper(cuda_name: str) -> LocalHelper:
    """The :class:`LocalHelper` for one name of :data:`NAMES`."""
    code = "".join(f"#ifdef {t.guard}\n{_overloads(cuda_name, t)}#endif\n" for t in NAMES[cuda_name])
    approx = " (the accurate value, within the approximation CUDA allows)" if cuda_name.endswith("_approx") else ""
    return LocalHelper(
        cuda_name, _helper_name(cuda_name), code,
        f"HIP has no {cuda_name}{' for __half2 (only for __hip_bfloat162)' if cuda_name in BF16_ONLY_IN_HIP else ''}: "
        f"written as CUDA's header defines it{approx}", SOURCE, _applies(cuda_name))


def half_math_helpers() -> list[LocalHelper]:
    """Every helper of this module."""
    return [half_math_helper(n) for n in NAMES]
