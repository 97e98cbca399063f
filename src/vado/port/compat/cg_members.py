"""Members of CUDA's ``grid_group`` and ``thread_block`` that HIP's (ROCm 7.2.4) lack, as helpers the port calls.

HIP's ``grid_group`` has ``thread_rank``, ``size``/``num_threads``, ``group_dim``, ``is_valid`` and ``sync``; CUDA's
also has ``block_rank``, ``num_blocks``, ``block_index``, ``dim_blocks``, ``thread_index`` and ``dim_threads``
(cudf's parquet decoders: ``cg::this_grid().block_rank()``). HIP's ``thread_block`` has no ``dim_threads``. API009
rewrites ``g.block_rank()`` to ``vado_cg_block_rank(g)`` where ``g`` is known to be such a group; the helpers take
the group type itself, so a call on anything else does not compile, and compute what CUDA's members compute
(``cooperative_groups/details/helpers.h``, namespaces ``grid`` and ``cta``) from the built-in indices.
"""

from __future__ import annotations

#: The guard of :data:`CG_MEMBERS`.
MEMBERS_GUARD = "VADO_CG_GROUP_MEMBERS"
#: Group kind → the members CUDA has and HIP lacks → the helper API009's fix calls.
CG_MEMBER_HELPERS = {
    "grid_group": {"block_rank": "vado_cg_block_rank", "num_blocks": "vado_cg_num_blocks",
                   "block_index": "vado_cg_block_index", "dim_blocks": "vado_cg_dim_blocks",
                   "thread_index": "vado_cg_thread_index", "dim_threads": "vado_cg_dim_threads"},
    "thread_block": {"dim_threads": "vado_cg_dim_threads"},
}
#: Every helper name (what the helper pass looks for).
MEMBER_HELPER_NAMES = tuple(sorted({h for members in CG_MEMBER_HELPERS.values() for h in members.values()}))

CG_MEMBERS = f"""\
#ifndef {MEMBERS_GUARD}
#define {MEMBERS_GUARD}
// vado: HIP's grid_group has no block_rank, num_blocks, block_index, dim_blocks, thread_index, dim_threads and its
// thread_block no dim_threads: what CUDA's members return, from the built-in indices.
#include <hip/hip_cooperative_groups.h>
static __device__ __forceinline__ unsigned long long vado_cg_block_rank(const cooperative_groups::grid_group&) {{
  return ((unsigned long long)blockIdx.z * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x;
}}
static __device__ __forceinline__ unsigned long long vado_cg_num_blocks(const cooperative_groups::grid_group&) {{
  return (unsigned long long)gridDim.x * (gridDim.y * gridDim.z);
}}
static __device__ __forceinline__ dim3 vado_cg_block_index(const cooperative_groups::grid_group&) {{
  return dim3(blockIdx.x, blockIdx.y, blockIdx.z);
}}
static __device__ __forceinline__ dim3 vado_cg_dim_blocks(const cooperative_groups::grid_group&) {{
  return dim3(gridDim.x, gridDim.y, gridDim.z);
}}
static __device__ __forceinline__ dim3 vado_cg_thread_index(const cooperative_groups::grid_group&) {{
  return dim3(blockIdx.x * blockDim.x + threadIdx.x, blockIdx.y * blockDim.y + threadIdx.y,
              blockIdx.z * blockDim.z + threadIdx.z);
}}
static __device__ __forceinline__ dim3 vado_cg_dim_threads(const cooperative_groups::grid_group&) {{
  return dim3(gridDim.x * blockDim.x, gridDim.y * blockDim.y, gridDim.z * blockDim.z);
}}
static __device__ __forceinline__ dim3 vado_cg_dim_threads(const cooperative_groups::thread_block&) {{
  return dim3(blockDim.x, blockDim.y, blockDim.z);
}}
#endif
"""
