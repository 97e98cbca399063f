"""CUDA's cache-hinted loads and stores (``__ldcs``, ``__stcs`` …) as local helpers for HIP.

CUDA declares ``__ldca``/``__ldcg``/``__ldcs``/``__ldlu``/``__ldcv`` and
``__stcg``/``__stcs``/``__stwb``/``__stwt`` for every scalar (``char`` …
``double``), the vector types (``char2`` … ``double2``) and, with their headers,
``__half``/``__half2``/``__nv_bfloat16``/``__nv_bfloat162``. ROCm 7.2.4's HIP
declares only ``__ldcg``/``__ldca``/``__ldcs`` for ``__half``/``__half2``, as
plain loads (``hip/amd_detail/amd_hip_fp16.h``), and no store at all.

A hint never changes the value read or written, so a plain access is always
right. What each helper does beyond that, per function (the same for every
type CUDA accepts):

- ``__ldcs``/``__ldlu``/``__stcs`` (evict first, last use: data touched once)
  keep their intent as non-temporal accesses (clang's
  ``__builtin_nontemporal_load``/``_store``: the ``nt`` bit of
  ``global_load``/``global_store`` on gfx942 and gfx950, checked in the
  assembly hipcc 7.2.4 writes for every type in the list);
- ``__ldcv`` (do not cache, fetch again: memory another agent writes) is a
  ``volatile`` load, which the AMDGPU memory model makes bypass the caches
  (``sc0 sc1`` on gfx942) and which the compiler neither removes nor hoists out
  of a polling loop;
- ``__ldca``/``__ldcg``/``__stcg``/``__stwb``/``__stwt`` (which level caches
  the line, write-back or write-through) are plain accesses: the cache policy
  of a plain access on AMD is the default one.

The non-temporal and volatile accesses reach each type through a word the
builtins take: the scalar itself, a HIP vector type's native vector (as HIP's
own ``get_native_pointer`` reads it), or the 2 or 4 bytes of a half or
bfloat16 type (read as a ``may_alias`` word); a type none fits (a struct) gets
the plain access. Under ``__HIP_PLATFORM_NVIDIA__`` (HIP on CUDA, for a
differential run on an NVIDIA GPU; nvcc has no such builtins) each helper is
the plain access.
"""

from __future__ import annotations

#: CUDA's cache-hinted loads and stores (PTX ``ld.ca``/``ld.cg``/``ld.cs``/``ld.lu``/``ld.cv`` and
#: ``st.cg``/``st.cs``/``st.wb``/``st.wt``) → what the hint asks for, in words.
CACHE_HINTS = {
    "__ldca": "cache at all levels", "__ldcg": "cache in L2, not L1", "__ldcs": "evict-first (streaming)",
    "__ldlu": "last use", "__ldcv": "do not cache, fetch again",
    "__stcg": "cache in L2, not L1", "__stcs": "evict-first (streaming)", "__stwb": "write back", "__stwt": "write through",
}

#: How each helper reaches memory on AMD: ``nontemporal``, ``volatile`` or ``plain`` (see the module's doc).
ACCESS = {
    "__ldcs": "nontemporal", "__ldlu": "nontemporal", "__stcs": "nontemporal", "__ldcv": "volatile",
    "__ldca": "plain", "__ldcg": "plain", "__stcg": "plain", "__stwb": "plain", "__stwt": "plain",
}

_F = "static __device__ __forceinline__"

#: The access words and modes the non-plain helpers share (written once before them, under its own guard).
CORE = f"""// vado: the words CUDA's cache-hinted types are accessed through (vado_ldcs, vado_stcs ...)
#ifndef VADO_CACHE_ACCESS
#define VADO_CACHE_ACCESS
#if !defined(__HIP_PLATFORM_NVIDIA__)
namespace vado_cache {{
// Overload ranks: a more derived tag matches better, so the first access that compiles is used.
struct plain {{}};
struct word : plain {{}};
struct scalar : word {{}};
struct vector : scalar {{}};
typedef unsigned short __attribute__((may_alias)) word2;  // the bytes of a half or bfloat16 type
typedef unsigned int __attribute__((may_alias)) word4;
template <unsigned N> struct word_of {{}};
template <> struct word_of<2> {{ typedef word2 type; }};
template <> struct word_of<4> {{ typedef word4 type; }};
struct nontemporal {{
  template <class W> {_F} W load(const W* p) {{ return __builtin_nontemporal_load(p); }}
  template <class W> {_F} void store(W* p, W v) {{ __builtin_nontemporal_store(v, p); }}
}};
struct fresh {{  // volatile: not kept in a cache, not removed or hoisted by the compiler
  template <class W> {_F} W load(const W* p) {{ return *(const volatile W*)p; }}
}};
// HIP's vector types (float4, int2 ...): their native vector.
template <class M, class T>
{_F} auto load(const T* p, vector) -> decltype(typename T::Native_vec_(), T()) {{
  typename T::Native_vec_ v = M::load(reinterpret_cast<const typename T::Native_vec_*>(p));
  T r;
  __builtin_memcpy((void*)&r, &v, sizeof r);
  return r;
}}
// char ... double.
template <class M, class T>
{_F} auto load(const T* p, scalar) -> decltype(__builtin_nontemporal_load(p)) {{ return M::load(p); }}
// __half, __half2, the bfloat16 types: their 2 or 4 bytes as one word.
template <class M, class T, class W = typename word_of<sizeof(T) == alignof(T) ? sizeof(T) : 0>::type>
{_F} T load(const T* p, word) {{
  W w = M::load(reinterpret_cast<const W*>(p));
  T r;
  __builtin_memcpy((void*)&r, &w, sizeof r);
  return r;
}}
template <class M, class T>
{_F} T load(const T* p, plain) {{ return *p; }}
template <class M, class T>
{_F} auto store(T* p, const T& v, vector) -> decltype(typename T::Native_vec_(), void()) {{
  typename T::Native_vec_ w;
  __builtin_memcpy(&w, (const void*)&v, sizeof w);
  M::store(reinterpret_cast<typename T::Native_vec_*>(p), w);
}}
template <class M, class T>
{_F} auto store(T* p, const T& v, scalar) -> decltype(__builtin_nontemporal_store(v, p)) {{ M::store(p, v); }}
template <class M, class T, class W = typename word_of<sizeof(T) == alignof(T) ? sizeof(T) : 0>::type>
{_F} void store(T* p, const T& v, word) {{
  W w;
  __builtin_memcpy(&w, (const void*)&v, sizeof w);
  M::store(reinterpret_cast<W*>(p), w);
}}
template <class M, class T>
{_F} void store(T* p, const T& v, plain) {{ *p = v; }}
}}  // namespace vado_cache
#endif
#endif

"""


def prelude(cuda_name: str) -> str:
    """The shared code the helper of ``cuda_name`` needs before it (:data:`CORE`), or ``""``."""
    return "" if ACCESS[cuda_name] == "plain" else CORE


def helper_code(cuda_name: str) -> str:
    """The definition of ``vado_<name>`` for ``cuda_name`` (:func:`prelude` goes before it)."""
    helper = "vado_" + cuda_name.lstrip("_")
    access = ACCESS[cuda_name]
    if cuda_name.startswith("__ld"):
        head = f"template <class T>\n{_F} T {helper}(const T* p) {{"
        mode = "nontemporal" if access == "nontemporal" else "fresh"
        amd = f" return vado_cache::load<vado_cache::{mode}>(p, vado_cache::vector()); }}\n"
        plain = " return *p; }\n"
    else:
        # CUDA's parameter has the pointee's type: the value converts to it, as in CUDA's call.
        head = f"template <class T, class V>\n{_F} void {helper}(T* p, V v) {{"
        amd = "\n  const T t = v;\n  vado_cache::store<vado_cache::nontemporal>(p, t, vado_cache::vector());\n}\n"
        plain = " *p = v; }\n"
    if access == "plain":
        return head + plain
    return "#if defined(__HIP_PLATFORM_NVIDIA__)\n" + head + plain + "#else\n" + head + amd + "#endif\n"


def why(cuda_name: str) -> str:
    """The ``// vado:`` line above the helper."""
    access = ACCESS[cuda_name]
    how = {"nontemporal": "a non-temporal", "volatile": "a volatile (uncached)", "plain": "a plain"}[access]
    kind = "load" if cuda_name.startswith("__ld") else "store"
    return (f"HIP has no {cuda_name} for most types; {how} {kind} for every type CUDA's takes (the "
            f"{CACHE_HINTS[cuda_name]} hint only affects caching, not the value)")
