"""Conversions between ``__half`` and bfloat16 written as a template's ``static_cast<T>(v)``.

CUDA converts the two 16-bit formats into each other: ``__half`` has a converting constructor
from ``__nv_bfloat16`` and ``__nv_bfloat16`` an explicit one from ``__half``, both rounding
through ``float`` to nearest even (CUDA 13.0 ``cuda_bf16.h``). HIP's ``__half`` and
``__hip_bfloat16`` have neither; each has implicit conversion operators to several arithmetic
types (``float``, ``int``, ``short``, ``char`` … ROCm 7.2.4 ``amd_hip_bf16.h``), so
``static_cast<__half>(b)`` is ambiguous: "conversion from '__hip_bfloat16' to '_Float16' is
ambiguous" (HeCBench conversion's ``cvt<half, __nv_bfloat16>`` kernel).

In a template the cast's type is a parameter, and which types meet is known only where the
template is instantiated. :func:`half_cast_fixes` rewrites ``static_cast<T>(`` with ``T`` a
template type parameter into ``vado_convert<T>(``, in files that name both a half and a
bfloat16 type (the only ones where the pair can meet): a helper that is ``static_cast`` for
every pair of types except these two, which it converts as CUDA does. Safe: the result is
CUDA's for every instantiation.
"""

from __future__ import annotations

from vado.model import Applicability, Edit, Fix, Target
from vado.port.compat import _api_status, guarded_block, insertion_offsets, line_start_insert
from vado.port.dependent_templates import template_heads, template_parameters
from vado.port.overloads import _next_code
from vado.rules.cuda_syntax import spelling_index
from vado.scan.lexer import Kind

HELPER = "vado_convert"
#: Spellings that show a file uses each format (CUDA's or the port's).
HALF_NAMES = ("__half", "half")
BF16_NAMES = ("__nv_bfloat16", "nv_bfloat16", "__hip_bfloat16")

WHY = ("HIP's __half and __hip_bfloat16 convert to each other ambiguously (each has conversion operators to several "
       "arithmetic types); CUDA converts through float, to nearest even. Every other cast is static_cast")
# The specialisations are compiled only where both HIP headers are in (their include guards, ROCm 7.2.4).
CODE = """template <class VadoTo, class VadoFrom> struct vado_convert_impl {
  static __host__ __device__ constexpr VadoTo convert(const VadoFrom& v) { return static_cast<VadoTo>(v); }
};
#if defined(HIP_INCLUDE_HIP_AMD_DETAIL_HIP_FP16_H) && defined(_HIP_INCLUDE_HIP_AMD_DETAIL_HIP_BF16_H_)
template <> struct vado_convert_impl<__half, __hip_bfloat16> {
  static __host__ __device__ inline __half convert(const __hip_bfloat16& v) { return __float2half(__bfloat162float(v)); }
};
template <> struct vado_convert_impl<__hip_bfloat16, __half> {
  static __host__ __device__ inline __hip_bfloat16 convert(const __half& v) { return __float2bfloat16(__half2float(v)); }
};
#endif
template <class VadoTo, class VadoFrom>
static __host__ __device__ constexpr VadoTo vado_convert(const VadoFrom& v) {
  return vado_convert_impl<VadoTo, VadoFrom>::convert(v);
}
"""
#: The helper's own parameters start so: its ``static_cast`` is the one every other pair of types gets.
OWN_PREFIX = "Vado"
SOURCE = ("CUDA 13.0 cuda_bf16.h (__half::__half(const __nv_bfloat16), explicit __nv_bfloat16(const __half): "
          "through float, round to nearest even); ROCm 7.2.4 amd_hip_fp16.h, amd_hip_bf16.h (conversion operators, "
          "no converting constructors), measured with its hipcc for gfx942")



def template_type_parameters(toks) -> set[str]:
    """Names declared ``typename T`` / ``class T`` in the file's ``template <…>`` parameter lists, but the
    helper's own (:data:`OWN_PREFIX`)."""
    return {name for name in template_parameters(toks, template_heads(toks), types_only=True)
            if not name.startswith(OWN_PREFIX)}


def half_cast_fixes(path: str, text: str, toks: list, target: Target) -> list[Fix]:
    """``static_cast<T>(`` → ``vado_convert<T>(`` for template type parameters ``T``, with the helper, in
    files naming both a half and a bfloat16 type, on ROCm targets with HIP's bfloat16 type."""
    if target.family != "rocm":
        return []
    index = spelling_index(toks)
    if not index.has_any(("static_cast",)) or not index.has_any(HALF_NAMES) or not index.has_any(BF16_NAMES):
        return []
    if _api_status("__nv_bfloat16", target) not in ("renamed", "available"):
        return []
    params = template_type_parameters(toks)
    uses: list[int] = []
    for i in index.where("static_cast"):
        if toks[i][0] is not Kind.IDENT:
            continue
        a = _next_code(toks, i)
        b = _next_code(toks, a)
        c = _next_code(toks, b)
        d = _next_code(toks, c)
        if (d < len(toks) and toks[a][3] == "<" and toks[b][0] is Kind.IDENT and toks[b][3] in params
                and toks[c][3] == ">" and toks[d][3] == "("):
            uses.append(i)
    if not uses:
        return []
    block = guarded_block(WHY, HELPER.upper(), CODE)
    inserts = [line_start_insert(path, text, off, block) for off in insertion_offsets(text, toks, uses)]
    renames = [Edit(path, toks[i][1], toks[i][2], HELPER) for i in uses]
    return [Fix((*inserts, *renames), Applicability.SAFE,
                f"static_cast<T> in templates → {HELPER}<T> (__half ↔ bfloat16 as CUDA converts them)", ("helper",))]
