"""Cooperative-groups collectives CUDA declares and HIP (ROCm 7.2.4) does not, written into the port.

- ``cooperative_groups::inclusive_scan`` / ``exclusive_scan`` (``<cooperative_groups/scan.h>``) over a
  ``thread_block_tile`` or a ``coalesced_group`` (the groups CUDA's scans take): :data:`CG_SCAN`;
- ``cooperative_groups::invoke_one`` (any group) and ``invoke_one_broadcast`` (a tile or a coalesced group),
  which CUDA declares in ``<cooperative_groups.h>`` itself: :data:`CG_INVOKE_ONE`.

API009 writes them (:mod:`vado.rules.api_cg`): the block goes before the top-level construct holding the
file's first use, and an ``#include <cooperative_groups/scan.h>`` (a header HIP does not ship) becomes a comment.
Each block is HIP code over the groups HIP has, so its meaning on a 64-lane wavefront is HIP's: a tile of 32
is half a wavefront, a coalesced group is ranked over the whole wavefront (see
``tests/verify/cg_emulation/cg_wave64_checks.hip``, run on the CPU stand-in with ROCm 7.2.4's own headers).
"""

from __future__ import annotations

from vado.port.compat.cg_reduce import CG_COMMON

#: The guard of :data:`CG_SCAN`; a file that spells it holds the definitions.
SCAN_GUARD = "VADO_CG_SCAN"
#: The guard of :data:`CG_INVOKE_ONE`.
INVOKE_ONE_GUARD = "VADO_CG_INVOKE_ONE"

#: The value type CUDA's two-argument scans and ``invoke_one_broadcast`` return: their argument's or result's
#: type without reference and cv qualifiers. One guarded alias, written before each block that uses it.
CG_VALUE_T = """\
#ifndef VADO_CG_VALUE_T
#define VADO_CG_VALUE_T
namespace cooperative_groups {
template <class T> using vado_cg_value_t = typename std::remove_cv<typename std::remove_reference<T>::type>::type;
}  // namespace cooperative_groups
#endif
"""

#: CUDA's scans as its own code computes them for a single-warp tile (``details/coalesced_scan.h``,
#: ``inclusive_scan_contiguous``): a Hillis-Steele scan of the group's ``shfl_up`` in which each thread combines
#: ``op(own partial, partial from rank - d)``, in that order; the exclusive scan is the inclusive one moved up one
#: rank, with a value-initialised ``T{}`` at rank 0 (``convert_inclusive_to_exclusive``; for an integral
#: ``plus`` CUDA subtracts the thread's value, which is the same number). HIP's ``shfl_up`` of a tile and of a
#: coalesced group goes by group rank, so one loop serves both (CUDA's non-contiguous coalesced scan finds the
#: same ranks by a search over the lane mask).
CG_SCAN = """\
// vado: HIP ships no <cooperative_groups/scan.h>: cooperative_groups::inclusive_scan and exclusive_scan over a
// thread_block_tile or a coalesced_group, as CUDA computes them (a scan of the group's shfl_up by rank, each
// thread combining op(its partial, the partial d ranks below); exclusive: the inclusive result one rank up,
// T{} at rank 0), with the function objects CUDA declares with them.
#include <hip/hip_cooperative_groups.h>
#include <string.h>
#include <type_traits>
""" + CG_COMMON + CG_VALUE_T + f"""\
#ifndef {SCAN_GUARD}
#define {SCAN_GUARD}
namespace cooperative_groups {{
template <class Group, class TyVal, class TyOp>
__device__ auto vado_inclusive_scan(const Group& group, TyVal&& val, TyOp&& op) -> decltype(op(val, val)) {{
  decltype(op(val, val)) acc = val;
  const unsigned int n = group.size(), rank = group.thread_rank();
  for (unsigned int d = 1; d < n; d *= 2) {{
    decltype(op(val, val)) below = vado_group_shfl<vado_shfl_up>(group, acc, d);
    if (d <= rank) acc = op(acc, below);
  }}
  return acc;
}}
template <class Group, class TyVal, class TyOp>
__device__ auto vado_exclusive_scan(const Group& group, TyVal&& val, TyOp&& op) -> decltype(op(val, val)) {{
  decltype(op(val, val)) inc = vado_inclusive_scan(group, val, op);
  decltype(op(val, val)) up = vado_group_shfl<vado_shfl_up>(group, inc, 1u);
  if (group.thread_rank() == 0) return decltype(op(val, val)){{}};
  return up;
}}
template <unsigned int Size, class Parent, class TyVal, class TyOp>
__device__ auto inclusive_scan(const thread_block_tile<Size, Parent>& g, TyVal&& val, TyOp&& op) -> decltype(op(val, val)) {{
  return vado_inclusive_scan(g, val, op);
}}
template <class TyVal, class TyOp>
__device__ auto inclusive_scan(const coalesced_group& g, TyVal&& val, TyOp&& op) -> decltype(op(val, val)) {{
  return vado_inclusive_scan(g, val, op);
}}
template <unsigned int Size, class Parent, class TyVal, class TyOp>
__device__ auto exclusive_scan(const thread_block_tile<Size, Parent>& g, TyVal&& val, TyOp&& op) -> decltype(op(val, val)) {{
  return vado_exclusive_scan(g, val, op);
}}
template <class TyVal, class TyOp>
__device__ auto exclusive_scan(const coalesced_group& g, TyVal&& val, TyOp&& op) -> decltype(op(val, val)) {{
  return vado_exclusive_scan(g, val, op);
}}
template <unsigned int Size, class Parent, class TyVal>
__device__ vado_cg_value_t<TyVal>
inclusive_scan(const thread_block_tile<Size, Parent>& g, TyVal&& val) {{
  return vado_inclusive_scan(g, val, plus<vado_cg_value_t<TyVal>>());
}}
template <class TyVal>
__device__ vado_cg_value_t<TyVal>
inclusive_scan(const coalesced_group& g, TyVal&& val) {{
  return vado_inclusive_scan(g, val, plus<vado_cg_value_t<TyVal>>());
}}
template <unsigned int Size, class Parent, class TyVal>
__device__ vado_cg_value_t<TyVal>
exclusive_scan(const thread_block_tile<Size, Parent>& g, TyVal&& val) {{
  return vado_exclusive_scan(g, val, plus<vado_cg_value_t<TyVal>>());
}}
template <class TyVal>
__device__ vado_cg_value_t<TyVal>
exclusive_scan(const coalesced_group& g, TyVal&& val) {{
  return vado_exclusive_scan(g, val, plus<vado_cg_value_t<TyVal>>());
}}
}}  // namespace cooperative_groups
#endif

"""

#: CUDA's ``invoke_one`` and ``invoke_one_broadcast`` as its own code computes them where it does not use the
#: ``elect`` instruction (``details/invoke.h``, ``invoke_one_impl<false>``): rank 0 of the group calls the
#: invocable; the broadcast returns rank 0's result to every thread through the group's shuffle (any trivially
#: copyable result, 32 bits at a time where HIP's shuffle does not take it). With ``elect.sync`` (sm_90) CUDA
#: picks "a single arbitrary thread", which a program may not rely on being any particular one.
CG_INVOKE_ONE = """\
// vado: HIP has no cooperative_groups::invoke_one / invoke_one_broadcast: rank 0 of the group calls the
// invocable (CUDA picks one arbitrary thread); the broadcast gives its result to every thread of the tile or
// coalesced group through the group's shuffle.
#include <hip/hip_cooperative_groups.h>
#include <string.h>
#include <type_traits>
#include <utility>
""" + CG_COMMON + CG_VALUE_T + f"""\
#ifndef {INVOKE_ONE_GUARD}
#define {INVOKE_ONE_GUARD}
namespace cooperative_groups {{
template <class Group, class Fn, class... Args>
__device__ void invoke_one(const Group& group, Fn&& fn, Args&&... args) {{
  if (group.thread_rank() == 0) std::forward<Fn>(fn)(std::forward<Args>(args)...);
}}
template <class Group, class Fn, class... Args>
__device__ auto vado_invoke_one_broadcast(const Group& group, Fn&& fn, Args&&... args)
    -> vado_cg_value_t<decltype(fn(args...))> {{
  typedef vado_cg_value_t<decltype(fn(args...))> Result;
  static_assert(!std::is_same<Result, void>::value, "For invocables returning void invoke_one should be used instead");
  Result result{{}};
  if (group.thread_rank() == 0) result = std::forward<Fn>(fn)(std::forward<Args>(args)...);
  return vado_group_shfl<vado_shfl_rank>(group, result, 0u);
}}
template <unsigned int Size, class Parent, class Fn, class... Args>
__device__ auto invoke_one_broadcast(const thread_block_tile<Size, Parent>& group, Fn&& fn, Args&&... args)
    -> decltype(vado_invoke_one_broadcast(group, std::forward<Fn>(fn), std::forward<Args>(args)...)) {{
  return vado_invoke_one_broadcast(group, std::forward<Fn>(fn), std::forward<Args>(args)...);
}}
template <class Fn, class... Args>
__device__ auto invoke_one_broadcast(const coalesced_group& group, Fn&& fn, Args&&... args)
    -> decltype(vado_invoke_one_broadcast(group, std::forward<Fn>(fn), std::forward<Args>(args)...)) {{
  return vado_invoke_one_broadcast(group, std::forward<Fn>(fn), std::forward<Args>(args)...);
}}
}}  // namespace cooperative_groups
#endif

"""

#: Where the facts behind these blocks come from.
CG_COLLECTIVES_SOURCES = (
    ("CUDA 13 cooperative_groups/details/coalesced_scan.h: inclusive_scan_contiguous (out = op(out, shfl_up(out, d)) "
     "for d <= rank), convert_inclusive_to_exclusive (shfl_up by 1, {} at rank 0; result - val for an integral plus)"),
    ("CUDA 13 cooperative_groups/details/scan.h: scans take thread_block_tile and coalesced_group; the two-argument "
     "forms use cooperative_groups::plus<T>"),
    ("CUDA 13 cooperative_groups/details/invoke.h: invoke_one_impl<false> (rank 0 calls; the broadcast is "
     "group.shfl(result, 0)); invoke_one_broadcast takes a thread_block_tile or a coalesced_group"),
    ("ROCm 7.2.4 hip/amd_detail/amd_hip_cooperative_groups.h: no scan, no invoke_one; thread_block_tile and "
     "coalesced_group shfl_up(var, delta) and shfl(var, srcRank) by group rank"),
)
