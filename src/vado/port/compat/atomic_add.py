"""CUDA's ``atomicAdd`` on ``__half``/``__half2``/bf16 values, which HIP lacks, as a local overload
constrained to those types (the file's other ``atomicAdd`` calls stay HIP's).
"""

from __future__ import annotations

from vado.model import Target
from vado.port.compat.helpers import LocalHelper, _api_status
from vado.port.compat.placement import insertion_offsets
from vado.port.translate import split_call_args
from vado.rules.cuda_syntax import EXPRESSION_WORDS, spelling_index
from vado.scan.lexer import Kind

#: CUDA's ``atomicAdd`` overloads for 16-bit floating types that HIP 7.2.4 lacks (it has ``unsafeAtomicAdd``
#: for ``__half2``/``__hip_bfloat162`` only, which may not work on fine-grained memory): HIP type →
#: (spellings that show a file uses the type, CUDA's or the port's; HIP's add of two values; whether it is a pair).
ATOMIC_ADD_TYPES = {
    "__half2": (("half2", "__half2"), "__hadd2", True),
    "__half": (("half", "__half"), "__hadd", False),
    "__hip_bfloat162": (("__nv_bfloat162", "nv_bfloat162", "__hip_bfloat162"), "__hadd2", True),
    "__hip_bfloat16": (("__nv_bfloat16", "nv_bfloat16", "__hip_bfloat16"), "__hadd", False),
}

#: The include guards of the HIP headers declaring those types (ROCm 7.2.4 and HIP 5.2 alike): the overload is
#: compiled only where the type is declared (a variable called ``half`` is no sign of ``<hip/hip_fp16.h>``).
_TYPE_HEADER_GUARD = {"__half": "HIP_INCLUDE_HIP_AMD_DETAIL_HIP_FP16_H", "__hip_bfloat16": "_HIP_INCLUDE_HIP_AMD_DETAIL_HIP_BF16_H_"}


def _atomic_add_overload(hip_type: str) -> LocalHelper:
    """``atomicAdd(T*, T)`` for ``T`` one of :data:`ATOMIC_ADD_TYPES`: a compare-and-swap loop on the
    aligned 32-bit word holding ``*address``, adding with HIP's round-to-nearest ``__hadd``/``__hadd2``
    and returning the old value, as CUDA's does.

    It is an overload of ``atomicAdd`` itself (calls are not renamed: the file's other ``atomicAdd``
    calls stay HIP's), written as a function template constrained to ``T``: a HIP that later declares a
    plain ``atomicAdd(T*, T)`` wins overload resolution over it, so the two never clash. A pair is
    updated as one 32-bit word, which is at least CUDA's guarantee (each half atomic on its own).
    """
    _spellings, add, pair = ATOMIC_ADD_TYPES[hip_type]
    tag = hip_type.strip("_").replace("hip_", "")
    trait, helper = f"vado_atomic_add_{tag}_type", f"vado_atomic_add_{tag}"
    if pair:
        locate = ("  unsigned int* word = reinterpret_cast<unsigned int*>(address);\n"
                  "  const unsigned int shift = 0u, mask = 0xffffffffu;\n")
    else:
        locate = ("  unsigned int* word = reinterpret_cast<unsigned int*>(reinterpret_cast<unsigned long long>(address) & ~3ull);\n"
                  "  const unsigned int shift = (reinterpret_cast<unsigned long long>(address) & 2ull) ? 16u : 0u;\n"
                  "  const unsigned int mask = 0xffffu << shift;\n")
    width = "unsigned int" if pair else "unsigned short"
    code = (
        f"#if defined({_TYPE_HEADER_GUARD[hip_type.rstrip('2')]})\n"
        f"template <class T> struct {trait} {{}};\n"
        f"template <> struct {trait}<{hip_type}> {{ typedef {hip_type} type; }};\n"
        "template <class T>\n"
        f"static __device__ inline typename {trait}<T>::type atomicAdd(T* address, typename {trait}<T>::type value) {{\n"
        f"{locate}"
        "  unsigned int old = *(volatile unsigned int*)word, assumed;\n"
        f"  {width} bits;\n"
        "  T current;\n"
        "  do {\n"
        "    assumed = old;\n"
        f"    bits = ({width})((assumed & mask) >> shift);\n"
        "    __builtin_memcpy((void*)&current, &bits, sizeof current);  // the bits of a 16-bit value or pair\n"
        f"    T sum = {add}(current, value);\n"
        "    __builtin_memcpy(&bits, (const void*)&sum, sizeof bits);\n"
        "    old = atomicCAS(word, assumed, (assumed & ~mask) | ((unsigned int)bits << shift));\n"
        "  } while (old != assumed);\n"
        "  return current;\n"
        "}\n"
        "#endif\n"
    )
    return LocalHelper(
        "atomicAdd", helper, code,
        f"HIP has no atomicAdd({hip_type}*, {hip_type}); CUDA's: add (round to nearest) atomically, return the old value",
        f"CUDA C++ Programming Guide, atomicAdd (the __half2/__nv_bfloat162 forms: each 16-bit half atomic; the __half/"
        f"__nv_bfloat16 forms); ROCm 7.2.4 hip/amd_detail/amd_hip_fp16.h and amd_hip_bf16.h declare only "
        f"unsafeAtomicAdd(__half2*)/unsafeAtomicAdd(__hip_bfloat162*) and {add}; amd_hip_atomic.h atomicCAS(unsigned int*)",
        # fp16 on every ROCm target; bf16 where the port has hip_bf16.h (not HIP 5.2).
        lambda t: t.family == "rocm" and (hip_type.startswith("__half")
                                          or _api_status("__nv_bfloat162", t) in ("renamed", "available")),
    )


def atomic_add_overloads(text: str, toks: list, target: Target) -> list[tuple[LocalHelper, list[int]]]:
    """The ``atomicAdd`` overloads (:func:`_atomic_add_overload`) a file needs and where they go: one for each
    16-bit floating type that the file spells and that an ``atomicAdd`` call follows, before the first such
    call. A file that holds an overload already (its guard) does not get it again."""
    index = spelling_index(toks)
    if target.family != "rocm" or not index.has_any(("atomicAdd",)):
        return []
    named = [i for i in index.where("atomicAdd") if toks[i][0] is Kind.IDENT and i + 1 < len(toks) and toks[i + 1][3] == "("
             and not (i > 0 and toks[i - 1][3] in (".", "->", "::"))]
    # A name after a type (``void atomicAdd(half* a, half v) {``) declares the project's own overload, no call.
    defined = [i for i in named if i > 0 and toks[i - 1][0] is Kind.IDENT and toks[i - 1][3] not in _NOT_TYPES]
    calls = [i for i in named if i not in defined]
    out: list[tuple[LocalHelper, list[int]]] = []
    for hip_type, (spellings, _add, _pair) in ATOMIC_ADD_TYPES.items():
        helper = _atomic_add_overload(hip_type)
        if f"#ifndef {helper.guard}" in text or not helper.applies(target):
            continue
        if any(_first_parameter_type(toks, i + 1) in spellings for i in defined):
            continue  # the file declares atomicAdd for the type itself (exllama 0.1.0's cuda_compat.cuh under USE_ROCM)
        # The type is spelled as one: a declarator, ``*``, ``&`` or a template's ``>`` follows (not ``int half = 2``).
        first = min((i for name in spellings for i in index.where(name) if toks[i][0] is Kind.IDENT and i + 1 < len(toks)
                     and (toks[i + 1][0] is Kind.IDENT or toks[i + 1][3] in ("*", "&", ">"))), default=None)
        # Calls that end after it (``atomicAdd((half2*)p, v)`` spells it in its own arguments).
        uses = [i for i in calls if first is not None and (split_call_args(toks, i + 1) or (i,))[0] > first]
        if uses:
            out.append((helper, insertion_offsets(text, toks, uses)))
    return out


#: Identifiers that may stand before a call of ``atomicAdd`` (``return atomicAdd(p, v);``), not a return type.
_NOT_TYPES = EXPRESSION_WORDS


def _first_parameter_type(toks: list, open_paren: int) -> str:
    """The type name of the first parameter of a declaration whose ``(`` is token ``open_paren``
    (``half`` in ``atomicAdd(half* address, half val)``, ``__half`` in ``(const __half *a, …)``): its first
    identifier other than ``const``/``volatile``; "" where there is none."""
    for k in range(open_paren + 1, min(open_paren + 6, len(toks))):
        t = toks[k]
        if t[3] in (",", ")"):
            return ""
        if t[0] is Kind.IDENT and t[3] not in ("const", "volatile"):
            return t[3]
    return ""
