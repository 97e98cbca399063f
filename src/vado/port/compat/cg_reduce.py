"""``cooperative_groups::reduce`` written into the port for a HIP without
``<hip/cooperative_groups/hip_reduce.h>`` (the ``cg_reduce`` feature of the target profile).
"""

from __future__ import annotations

from vado.model import Applicability, Edit, Fix, Target
from vado.port.compat.placement import _directive
from vado.scan.lexer import Kind

#: What :data:`CG_REDUCE` and the scans and ``invoke_one_broadcast`` of :mod:`vado.port.compat.cg_collectives` share,
#: under one guard (a file holding several gets one copy): the function objects CUDA declares in
#: ``cooperative_groups/details/functional.h`` (``reduce.h`` and ``scan.h`` both bring them) and the group shuffles
#: of any trivially copyable value, arithmetic values through the group's own shuffle, others 32 bits at a time.
CG_COMMON = """\
#ifndef VADO_CG_COMMON
#define VADO_CG_COMMON
namespace cooperative_groups {
template <class T> struct plus { __device__ T operator()(const T& a, const T& b) const { return a + b; } };
template <class T> struct less { __device__ T operator()(const T& a, const T& b) const { return b < a ? b : a; } };
template <class T> struct greater { __device__ T operator()(const T& a, const T& b) const { return a < b ? b : a; } };
template <class T> struct bit_and { __device__ T operator()(const T& a, const T& b) const { return a & b; } };
template <class T> struct bit_or { __device__ T operator()(const T& a, const T& b) const { return a | b; } };
template <class T> struct bit_xor { __device__ T operator()(const T& a, const T& b) const { return a ^ b; } };
// The group's shuffles (HIP's coalesced_group has no shfl_xor), arithmetic values as they are.
struct vado_shfl_xor { template <class G, class T> __device__ static T run(const G& g, T v, unsigned int a) { return g.shfl_xor(v, a); } };
struct vado_shfl_down { template <class G, class T> __device__ static T run(const G& g, T v, unsigned int a) { return g.shfl_down(v, a); } };
struct vado_shfl_up { template <class G, class T> __device__ static T run(const G& g, T v, unsigned int a) { return g.shfl_up(v, a); } };
struct vado_shfl_rank { template <class G, class T> __device__ static T run(const G& g, T v, unsigned int a) { return g.shfl(v, (int)a); } };
template <class Shfl, class Group, class T>
__device__ typename std::enable_if<std::is_arithmetic<T>::value, T>::type
vado_group_shfl(const Group& group, T v, unsigned int arg) {
  return Shfl::run(group, v, arg);
}
template <class Shfl, class Group, class T>
__device__ typename std::enable_if<!std::is_arithmetic<T>::value, T>::type
vado_group_shfl(const Group& group, T v, unsigned int arg) {
  unsigned int words[(sizeof(T) + 3) / 4] = {};
  memcpy(words, &v, sizeof(T));
  for (unsigned int i = 0; i < (sizeof(T) + 3) / 4; ++i) words[i] = Shfl::run(group, words[i], arg);
  memcpy(&v, words, sizeof(T));
  return v;
}
}  // namespace cooperative_groups
#endif
"""

#: ``cooperative_groups::reduce`` over the groups HIP has (a ``thread_block_tile`` of up to 64 threads, a
#: ``coalesced_group``: ``coalesced_threads()``, ``binary_partition``, ``tiled_partition`` of a coalesced group)
#: and the function objects CUDA declares with it, for a HIP without ``<hip/cooperative_groups/hip_reduce.h>``.
CG_REDUCE = """\
// vado: HIP {hip} has no <cooperative_groups/reduce.h>: cooperative_groups::reduce over a
// thread_block_tile (a butterfly of the tile's shfl_xor, so every thread gets the result) or a
// coalesced_group (binary_partition, coalesced_threads: a tree of the group's shfl_down, then the
// result from rank 0), and the function objects CUDA declares with it (less and greater pick the
// smaller and larger value). HIP's shuffles take arithmetic types; other values (a struct of a max
// and a sum) are shuffled as 32-bit words, as CUDA's reduce does for any trivially copyable type.
#include <hip/hip_cooperative_groups.h>
#include <string.h>
#include <type_traits>
{common}#ifndef VADO_CG_REDUCE
#define VADO_CG_REDUCE
namespace cooperative_groups {{
template <unsigned int Size, class Parent, class TyVal, class TyOp>
__device__ auto reduce(const thread_block_tile<Size, Parent>& tile, TyVal&& val, TyOp&& op) -> decltype(op(val, val)) {{
  decltype(op(val, val)) acc = val;
  for (unsigned int offset = Size / 2; offset > 0; offset /= 2) acc = op(acc, vado_group_shfl<vado_shfl_xor>(tile, acc, offset));
  return acc;
}}
template <class TyVal, class TyOp>
__device__ auto reduce(const coalesced_group& group, TyVal&& val, TyOp&& op) -> decltype(op(val, val)) {{
  decltype(op(val, val)) acc = val;
  const unsigned int n = group.size(), rank = group.thread_rank();
  for (unsigned int offset = 1; offset < n; offset *= 2) {{
    decltype(op(val, val)) other = vado_group_shfl<vado_shfl_down>(group, acc, offset);
    if (rank % (2 * offset) == 0 && rank + offset < n) acc = op(acc, other);
  }}
  return vado_group_shfl<vado_shfl_rank>(group, acc, 0u);
}}
}}  // namespace cooperative_groups
#endif"""

#: Where the facts behind :data:`CG_REDUCE` come from.
CG_REDUCE_SOURCES = (
    "CUDA Programming Guide, cooperative groups: cg::reduce(group, val, op) over thread_block_tile / coalesced_group, "
    "returning decltype(op(val, val)) to every thread; plus, less, greater, bit_and, bit_or, bit_xor",
    "HIP's later implementation (ROCm/clr hipamd/include/hip/amd_detail/amd_hip_cooperative_groups_reduce.h): "
    "less → __reduce_min_sync, greater → __reduce_max_sync",
    "HIP 5.2 (/usr/include/hip/amd_detail/amd_hip_cooperative_groups.h): thread_block_tile<size, Parent>::shfl_xor(var, laneMask) "
    "shuffles within the tile; no reduce and no function objects",
    "ROCm 7.2.4 (hip/amd_detail/amd_hip_cooperative_groups.h): tiles of up to 64 threads (static_assert beyond); "
    "coalesced_group::shfl(var, srcRank) and shfl_down(var, delta) by group rank (the caller's own value past the "
    "last member), no shfl_xor; binary_partition and tiled_partition of a coalesced group give a coalesced_group; "
    "no labeled_partition",
)


def cg_reduce_fixes(path: str, text: str, toks: list, target: Target) -> list[Fix]:
    """``#include <cooperative_groups/reduce.h>`` → :data:`CG_REDUCE` on targets whose profile says
    they lack it (feature ``cg_reduce: false``).

    Safe for the reductions it compiles: over a tile the butterfly combines every
    lane's value once, and ``op`` is applied to pairs that are the same on both
    partners, so all lanes end with one value; over a coalesced group (any size,
    any lanes) a tree of ``shfl_down`` by group rank combines each member's value
    once into rank 0, whose result ``shfl`` gives every member. A floating-point
    sum may round differently from CUDA's (which does not specify its order).
    Groups HIP itself lacks (``labeled_partition``, tiles of more than 64 threads)
    are not covered: API009 reports them, so the port does not claim them fixed.
    """
    if target.family != "rocm" or target.features.get("cg_reduce", True) or "cooperative_groups/reduce.h" not in text:
        return []
    fixes: list[Fix] = []
    for i, tok in enumerate(toks):
        if tok[0] is not Kind.DIRECTIVE or not _directive(tok).endswith("include") or i + 1 >= len(toks):
            continue
        operand = toks[i + 1]
        if operand[0] not in (Kind.HEADER, Kind.STRING) or operand[3][1:-1] != "cooperative_groups/reduce.h":
            continue
        end = toks[i + 2][1] if i + 2 < len(toks) and toks[i + 2][0] is Kind.EOD else operand[2]
        block = CG_REDUCE.format(hip=target.hip_version or target.version, common=CG_COMMON)
        fixes.append(Fix((Edit(path, tok[1], end, block),), Applicability.SAFE,
                         f"#include {operand[3]} → a local cooperative_groups::reduce (HIP {target.hip_version} lacks it)",
                         ("helper",)))
    return fixes
