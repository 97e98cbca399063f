// vado HIP-on-CUDA, wave64 layer for cooperative groups: HIP's cooperative groups on the emulated 64-lane wave.
//
// Included by the generated hip/hip_cooperative_groups.h under --wave 64, after CUDA's <cooperative_groups.h>
// (whose grid_group does the grid-wide barrier) and vado_hip_on_cuda.h (the wave64 device layer). A port that
// says cooperative_groups:: (or cg = cooperative_groups) reaches these classes, not CUDA's 32-lane ones:
// `cooperative_groups` is a macro for vado_w64_cg below (pushed away around CUDA library headers, which keep
// CUDA's own cooperative groups).
//
// What HIP does on a 64-lane wavefront, call by call (ROCm 7.2.4: hip/amd_detail/amd_hip_cooperative_groups.h,
// hip_cooperative_groups_helper.h, amd_warp_functions.h, amd_warp_sync_functions.h, amd_device_functions.h; the
// semantics are HIP's, the code is vado's), audited line by line against those headers. [check] names the expect()
// of tests/verify/cg_emulation/cg_wave64_checks.hip that asserts the row when it runs on an NVIDIA GPU
// (benchmarks/wave64_device.sh). Its expected outputs are also computed by HIP's own code without a GPU: ROCm
// 7.2.4's cooperative-groups and warp-function headers built for the host and run on a CPU stand-in for a wave64
// GPU (tests/verify/cg_emulation/hip_wave64_sim; test_the_checks_expectations_are_what_hips_own_cooperative_
// groups_compute): every expect() passes there. Not measured on AMD hardware. [hipcc+nvcc] rows
// are compile-time facts tested without a GPU by tests/verify/test_cg_emulation.py (HIP_REJECTS: rejected by the
// emulation with nvcc and by ROCm 7.2.4's hipcc; the checks program itself compiles with hipcc for gfx942/gfx950).
//
// tiled_partition<N>(block or tile<M>), thread_block_tile<N>  (N a power of 2 <= 64; N > 64 or N > M: static_assert
//     [hipcc+nvcc]; numThreads is private [hipcc+nvcc])
//   size() N; thread_rank() = linear block rank & (N-1)                        [check tile<64>: size 64, rank ...]
//   meta_group_rank() = parent.thread_rank() / N, meta_group_size() = ceil(parent.num_threads() / N); parent a
//     tile<M>: (rank & (M-1)) / N and M / N; kept by the conversion to thread_block_tile<N> (void parent)
//                                                    [check tile<64>: ..., tile<32> in a block of 96, tile<16> of tile<64>]
//   shfl(v, r) = __shfl(v, r, N): lane (r & (N-1)) of the caller's N-lane segment (r >= N or r < 0 wrap)
//   shfl_down(v, d): lane + d, the caller's own value when (lane & (N-1)) + d >= N
//   shfl_up(v, d): lane - d, the caller's own value below the segment's first lane
//                                                    [check tile<64>: shfl ..., tile shuffles out of range]
//   shfl_xor(v, m): lane ^ m, the own value only when that is at or past the segment's end: a mask with bit 5
//     lets an upper-half lane read the lower half (lane 40 of a tile<32> or tile<8>, m = 32 or 40, reads lane
//     40 ^ m); m < 0 reads lane (lane ^ m) & 63          [check tile<64>: shfl_xor 33, tile shfl_xor with lane mask bit 5]
//   value types: those __shfl has overloads for (arithmetic through promotion, __half, __half2, bfloat16) or a
//     program's own __shfl* overload (found by the unqualified call); float2, uint4, structs do not compile [hipcc+nvcc]
//   ballot(p) -> unsigned long long: the tile's lanes of the wave (build_mask: N bits at ((rank % 64) / N) * N)
//     packed from bit 0 (adjust_mask); N = 64 gives all 64 bits        [check tile<64>: ballot is 64 bits, tile<32> ...]
//   any(p) / all(p): __ballot_sync(build_mask, p) != 0 / == build_mask   [check tile any/all (64 and 8 lanes)]
//   match_any(v) -> unsigned long long: lanes of the tile whose value == v, packed; match_all(v, pred): all ones
//     packed (N bits) and pred 1 when every lane's value == the first's, else 0 and pred 0. == on the type:
//     -0.0 matches 0.0, a NaN matches nothing (match_all 0; HIP's match_any never ends: the emulation traps);
//     v a 4- or 8-byte integer or floating type only [hipcc+nvcc]
//                                        [check tile<64>: match_any and match_all, match_any/match_all compare with ==]
//   sync(): a fence (lock step); here the tile's warps meet                [check tile<64>.sync() orders shared ...]
// tiled_partition(parent, n) (run time; n a power of 2 <= 64, else HIP's __hip_assert traps unless NDEBUG, and
//     so does the emulation; with NDEBUG both go on with n)
//   of a thread_block: a thread_group (type tiled) whose size() is n, or the rest of the block for the last tile;
//     thread_rank() = block rank & (n-1)            [check tiled_partition(block, 64) in a block of 96: ...]
//   of a run-time tile (thread_group or tiled_group): the parent itself when n >= its tile size, else size n,
//     rank = block rank & (n-1)                     [check groups as thread_group: ...]
//   of a coalesced group: a coalesced group of the members with ranks [k*n, k*n + n), meta_group_rank k,
//     meta_group_size ceil(size / n)                [check coalesced group of 16 lanes, tiled_partition(g, 4)]
// coalesced_threads(): the active lanes of the wave (EXEC, both halves); size() their count (up to 64);
//   thread_rank() = active lanes below the caller (mbcnt); meta_group_rank 0, meta_group_size 1
//                                                    [check coalesced_threads() of the even lanes, of a full wave]
//   shfl(v, r): the member of rank r % size (__fns64 from lane 0); a full wave (size 64) reads lane r % 64
//   shfl_down/shfl_up(v, d): the member d ranks above/below (__fns64 from the caller's lane), the own value past
//     the last/first member; a full wave: __shfl_down/__shfl_up over 64 lanes; no shfl_xor (does not compile)
//                                                    [check coalesced shfl, shfl_down, shfl_up by group rank, ...]
//   ballot, any, all, match_any, match_all: over the member mask, results packed by rank (adjust_mask)
//                                                    [check coalesced any/all/match_all, coalesced match_any, ballot ...]
//   as a thread_group (sliced): size() is 0 (HIP sets only the coalesced count), thread_rank() the rank
//                                                    [check groups as thread_group: ...]
// binary_partition(coalesced or tile, pred): coalesced_group of the group's lanes with the same pred: size = their
//   count, thread_rank = rank among them            [check binary_partition of a tile<64>, of a coalesced group]
// this_thread(): a thread_group of type coalesced, size() 1 [check groups as thread_group: ...]; HIP's thread_rank()
//   reads a mask it never sets (uninitialised: no answer to check); the emulation gives 0
// thread_block: group_index, thread_index, thread_rank, num_threads/size, sync, group_dim (HIP's; no
//   dim_threads, block_dim [hipcc+nvcc]); this_grid(): grid_group (thread_rank, size, sync, group_dim)
// labeled_partition, cooperative_groups::reduce and the function objects, inclusive/exclusive_scan, invoke_one,
//   memcpy_async, block_tile_memory, this_cluster: not in HIP 7.2.4, so they do not compile here either
//   [hipcc+nvcc]. vado port writes a local reduce (vado.port.compat.cg_reduce), checked on this emulation:
//   over a tile, CUDA's butterfly of shfl_xor (with an associative op that is not commutative, lane 0 gets the
//   rank order and other lanes the butterfly's order, as in CUDA); over a coalesced group, a shfl_down tree by
//   rank: every member gets the rank-order result    [check reduce over ..., reduce ... with a non-commutative op]
// Differences left (documented, not results a correct program sees): coalesced shfl(v, r) with r < 0 whose
//   __fns64 gives -1 reads lane 63 on AMD; a group inside one half here reads that half's lane 31. HIP's __fns64
//   with offset 0 computes 1 << base in 32 bits (only reached with base 0 by HIP's calls). A coalesced
//   group's shfl of a program's own type with its own __shfl overload does not compile here (HIP's would).
//   multi_grid_group / this_multi_grid (CUDA 13 has nothing to run it on) is not emulated.
// Limits (besides those of the wave64 layer, which hold for a group that spans both warps of a wave: a
// coalesced group or tile whose other half never reaches the call hangs, as any divergent wave-wide call does):
//   - a group within one warp runs there alone; one that spans both warps exchanges through the layer, so
//     two groups of one warp that span the wave differently must not call at the same time from divergent code;
//   - a CUDA C++ header vado has no HIP wrapper for, included after this one, reads `cooperative_groups` as
//     vado_w64_cg (cooperative_groups/memcpy_async.h, which cuda/pipeline programs and CUB include, is
//     included first, below).
#pragma once

typedef unsigned long long lane_mask;  // HIP declares it at global scope (hip_cooperative_groups_helper.h)

// CUDA's cooperative-groups detail headers that a port may reach after this one (its own
// #include <cooperative_groups/memcpy_async.h> next to cuda/pipeline, as cuda-samples dmmaTensorCoreGemm does;
// CUB's transform includes it): included here, while the name is still CUDA's, so that their include guards keep
// them whole when they are reached again after the rename (otherwise details/async.h reads
// vado_w64_cg::details). HIP has no memcpy_async: a port's cg::memcpy_async finds no such name in vado_w64_cg
// and does not compile, as on AMD (vado reports the include, API009, and the call, ARCH002).
#include <cooperative_groups/memcpy_async.h>

namespace vado_w64_cuda_cg = ::cooperative_groups;  // CUDA's, for the grid-wide barrier

namespace vado_w64_cg {

class thread_group;
class thread_block;
class grid_group;
class tiled_group;
class coalesced_group;
template <unsigned int Size, class Parent>
class thread_block_tile;

namespace internal {

typedef enum { cg_invalid, cg_multi_grid, cg_grid, cg_workgroup, cg_tiled_group, cg_coalesced_group } group_type;

__device__ __forceinline__ unsigned int block_rank() { return vado_w64::tid(); }
__device__ __forceinline__ unsigned int block_threads() { return vado_w64::nthreads(); }
__device__ __forceinline__ unsigned int lane() { return vado_w64::lane(); }

// HIP's internal::helper::adjust_mask: the bits of `in` at the lanes of `base`, packed from bit 0.
__device__ __forceinline__ unsigned long long adjust_mask(unsigned long long base, unsigned long long in) {
  unsigned long long out = 0ull;
  unsigned int index = 0;
  for (unsigned int i = 0; i < 64u; ++i) {
    if ((base >> i) & 1ull) {
      out |= ((in >> i) & 1ull) << index;
      ++index;
    }
  }
  return out;
}

// HIP's __fns64(mask, base, offset): the lane of the offset-th set bit of `mask` counting up from `base`
// (down for a negative offset; offset 0: `base` itself if set), -1 when there is none.
__device__ __forceinline__ int fns64(unsigned long long mask, unsigned int base, int offset) {
  unsigned long long m = mask;
  int k = offset;
  if (offset == 0) {
    m &= 1ull << base;
    k = 1;
  } else if (offset < 0) {
    m = __brevll(mask);
    base = 63u - base;
    k = -offset;
  }
  m &= ~0ull << base;
  if (__popcll(m) < k) return -1;
  int total = 0;
  for (int i = 32; i > 0; i >>= 1) {
    unsigned long long lo = m & ((1ull << i) - 1ull);
    int p = __popcll(lo);
    if (p < k) {
      m >>= i;
      k -= p;
      total += i;
    } else {
      m = lo;
    }
  }
  return offset < 0 ? 63 - total : total;
}

// Lane `src` (0..63) of the wave for the members `members` of a group: within the caller's own warp when
// every member is there (the other half need not take part), across the wave otherwise.
template <class T>
__device__ __forceinline__ T member_value(T var, int src, unsigned long long members) {
  // HIP's coalesced_group::shfl* call __shfl(var, lane, warpSize): a type it has an overload for.
  static_assert(vado_w64_hip_shfl_type<T>::value && !std::is_enum<T>::value,
                "no matching function for call to '__shfl' (HIP's coalesced_group shuffles, emulated by vado)");
  return vado_w64::permute(var, src & 63, vado_w64::own_half(members), members);
}

// A tile's or coalesced group's sync(): on AMD a fence (the wave is in lock step); here the group's warps meet.
__device__ __forceinline__ void wave_sync(unsigned long long members) {
  if (vado_w64::own_half(members)) {
    (__syncwarp)((__activemask)());
  } else {
    vado_w64::publish(0u, members);
    vado_w64::done(members);
  }
  __threadfence_block();
}

// HIP's __hip_assert(false && what): a trap unless NDEBUG (a CMake Release build defines it), where HIP goes on.
__device__ __forceinline__ void invalid(const char* what) {
#ifndef NDEBUG
  vado_w64::fail(what);
#else
  (void)what;
#endif
}

// The lanes of the caller's run-time tile of `n` threads (n past 64 only where HIP's size check is off: the wave).
__device__ __forceinline__ unsigned long long tile_lanes(unsigned int n) {
  if (n == 0u || n >= 64u) return ~0ull;
  return (~0ull >> (64u - n)) << ((lane() / n) * n);
}

struct access;

}  // namespace internal

// ---------------------------------------------------------------------------------------------- thread_group

class thread_group {
 protected:
  friend struct internal::access;
  unsigned int _type;
  unsigned int _num_threads;
  unsigned long long _mask;
  struct _tiled_info {
    bool is_tiled;
    unsigned int num_threads;
    unsigned int meta_group_rank;
    unsigned int meta_group_size;
  };
  struct _coalesced_info {
    lane_mask member_mask;
    unsigned int num_threads;
    _tiled_info tiled_info;
  } coalesced_info;

  __device__ __forceinline__ thread_group(internal::group_type type, unsigned int num_threads = 0u,
                                          unsigned long long mask = 0ull)
      : _type(type), _num_threads(num_threads), _mask(mask) {
    coalesced_info.member_mask = 0ull;
    coalesced_info.num_threads = 0u;
    coalesced_info.tiled_info.is_tiled = false;
    coalesced_info.tiled_info.num_threads = 0u;
    coalesced_info.tiled_info.meta_group_rank = 0u;
    coalesced_info.tiled_info.meta_group_size = 1u;
  }

 public:
  __device__ __forceinline__ unsigned int num_threads() const { return _num_threads; }
  __device__ __forceinline__ unsigned int size() const { return num_threads(); }
  __device__ __forceinline__ unsigned int cg_type() const { return _type; }
  __device__ __forceinline__ unsigned int thread_rank() const;
  __device__ __forceinline__ bool is_valid() const;
  __device__ __forceinline__ void sync() const;
};

// ---------------------------------------------------------------------------------------------- grid_group

class grid_group : public thread_group {
  friend struct internal::access;

 protected:
  explicit __device__ __forceinline__ grid_group(unsigned int size) : thread_group(internal::cg_grid, size) {}

 public:
  __device__ __forceinline__ unsigned int thread_rank() const {
    unsigned int block = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
    return block * internal::block_threads() + internal::block_rank();
  }
  __device__ __forceinline__ bool is_valid() const { return vado_w64_cuda_cg::this_grid().is_valid(); }
  // The grid-wide barrier of CUDA's cooperative launch (hipLaunchCooperativeKernel), counted as a block
  // barrier by the wave64 layer: a half waiting here lets the other half's wave-wide calls go on.
  __device__ __forceinline__ void sync() const {
    vado_w64::enter_barrier();
    vado_w64_cuda_cg::this_grid().sync();
    vado_w64::leave_barrier();
    (__syncthreads)();
  }
  __device__ __forceinline__ dim3 group_dim() const { return dim3(gridDim.x, gridDim.y, gridDim.z); }
};

// ---------------------------------------------------------------------------------------------- thread_block

class thread_block : public thread_group {
  friend struct internal::access;

 protected:
  explicit __device__ __forceinline__ thread_block(unsigned int size) : thread_group(internal::cg_workgroup, size) {}

 public:
  static __device__ __forceinline__ dim3 group_index() { return dim3(blockIdx.x, blockIdx.y, blockIdx.z); }
  static __device__ __forceinline__ dim3 thread_index() { return dim3(threadIdx.x, threadIdx.y, threadIdx.z); }
  static __device__ __forceinline__ unsigned int thread_rank() { return internal::block_rank(); }
  static __device__ __forceinline__ unsigned int num_threads() { return internal::block_threads(); }
  static __device__ __forceinline__ unsigned int size() { return num_threads(); }
  static __device__ __forceinline__ bool is_valid() { return true; }
  static __device__ __forceinline__ void sync() { __syncthreads(); }
  // HIP's name (not static there); CUDA's dim_threads() is not in HIP 7.2.4.
  __device__ __forceinline__ dim3 group_dim() { return dim3(blockDim.x, blockDim.y, blockDim.z); }
};

// ---------------------------------------------------------------------------------------------- tiled_group

class tiled_group : public thread_group {
  friend struct internal::access;

 protected:
  explicit __device__ __forceinline__ tiled_group(unsigned int tile_size)
      : thread_group(internal::cg_tiled_group, tile_size) {
    coalesced_info.tiled_info.num_threads = tile_size;
    coalesced_info.tiled_info.is_tiled = true;
  }
  __device__ __forceinline__ tiled_group new_tiled_group(unsigned int tile_size) const {
    if (!tile_size || tile_size > 64u || (tile_size & (tile_size - 1u))) internal::invalid("invalid tile size");
    if (num_threads() <= tile_size) return *this;
    return tiled_group(tile_size);
  }

 public:
  __device__ __forceinline__ unsigned int num_threads() const { return coalesced_info.tiled_info.num_threads; }
  __device__ __forceinline__ unsigned int size() const { return num_threads(); }
  __device__ __forceinline__ unsigned int thread_rank() const {
    return internal::block_rank() & (coalesced_info.tiled_info.num_threads - 1u);
  }
  __device__ __forceinline__ void sync() const {
    internal::wave_sync(internal::tile_lanes(coalesced_info.tiled_info.num_threads));
  }
};

// ---------------------------------------------------------------------------------------------- coalesced_group

class coalesced_group : public thread_group {
  friend struct internal::access;

 protected:
  explicit __device__ __forceinline__ coalesced_group(lane_mask member_mask)
      : thread_group(internal::cg_coalesced_group) {
    coalesced_info.member_mask = member_mask;
    coalesced_info.num_threads = __popcll(member_mask);
    coalesced_info.tiled_info.is_tiled = false;
    coalesced_info.tiled_info.meta_group_rank = 0u;
    coalesced_info.tiled_info.meta_group_size = 1u;
  }

  // HIP's coalesced_group::new_tiled_group.
  __device__ __forceinline__ coalesced_group new_tiled_group(unsigned int tile_size) const {
    if (!tile_size || (tile_size & (tile_size - 1u))) return coalesced_group(0ull);
    if (coalesced_info.tiled_info.is_tiled) {
      unsigned int base_offset = thread_rank() & ~(tile_size - 1u);
      unsigned int left = num_threads() - base_offset;
      unsigned int length = left < tile_size ? left : tile_size;
      lane_mask member_mask = length ? ~0ull >> (64u - length) : 0ull;
      member_mask <<= (internal::lane() & ~(tile_size - 1u));
      coalesced_group tile(member_mask);
      tile.coalesced_info.tiled_info.is_tiled = true;
      tile.coalesced_info.tiled_info.meta_group_rank = thread_rank() / tile_size;
      tile.coalesced_info.tiled_info.meta_group_size = num_threads() / tile_size;
      return tile;
    }
    lane_mask member_mask = 0ull;
    unsigned int tile_rank = 0u;
    int lanes_to_skip = (int)((thread_rank() / tile_size) * tile_size);
    for (unsigned int i = 0; i < 64u; ++i) {
      lane_mask active = coalesced_info.member_mask & (1ull << i);
      if (active) {
        if (lanes_to_skip <= 0 && tile_rank < tile_size) {
          member_mask |= active;
          ++tile_rank;
        }
        --lanes_to_skip;
      }
    }
    coalesced_group tile(member_mask);
    tile.coalesced_info.tiled_info.meta_group_rank = thread_rank() / tile_size;
    tile.coalesced_info.tiled_info.meta_group_size = (num_threads() + tile_size - 1u) / tile_size;
    return tile;
  }

 public:
  __device__ __forceinline__ unsigned int num_threads() const { return coalesced_info.num_threads; }
  __device__ __forceinline__ unsigned int size() const { return num_threads(); }
  __device__ __forceinline__ unsigned int thread_rank() const {
    return __popcll(coalesced_info.member_mask & ((1ull << internal::lane()) - 1ull));
  }
  __device__ __forceinline__ void sync() const { internal::wave_sync(coalesced_info.member_mask); }
  __device__ __forceinline__ unsigned int meta_group_rank() const { return coalesced_info.tiled_info.meta_group_rank; }
  __device__ __forceinline__ unsigned int meta_group_size() const { return coalesced_info.tiled_info.meta_group_size; }

  template <class T>
  __device__ __forceinline__ T shfl(T var, int srcRank) const {
    srcRank = srcRank % (int)num_threads();
    int lane = num_threads() == 64u ? srcRank : internal::fns64(coalesced_info.member_mask, 0u, srcRank + 1);
    return internal::member_value(var, lane, coalesced_info.member_mask);
  }
  template <class T>
  __device__ __forceinline__ T shfl_down(T var, unsigned int lane_delta) const {
    if (num_threads() == 64u) return vado_w64_shfl_down(var, lane_delta, 64);
    int lane = internal::fns64(coalesced_info.member_mask, internal::lane(), (int)lane_delta + 1);
    if (lane == -1) lane = (int)internal::lane();
    return internal::member_value(var, lane, coalesced_info.member_mask);
  }
  template <class T>
  __device__ __forceinline__ T shfl_up(T var, unsigned int lane_delta) const {
    if (num_threads() == 64u) return vado_w64_shfl_up(var, lane_delta, 64);
    int lane = internal::fns64(coalesced_info.member_mask, internal::lane(), -((int)lane_delta + 1));
    if (lane == -1) lane = (int)internal::lane();
    return internal::member_value(var, lane, coalesced_info.member_mask);
  }
  __device__ __forceinline__ unsigned long long ballot(int pred) const {
    return internal::adjust_mask(coalesced_info.member_mask,
                                 vado_w64::ballot_sync(coalesced_info.member_mask, pred));
  }
  __device__ __forceinline__ int any(int pred) const { return vado_w64::any_sync(coalesced_info.member_mask, pred); }
  __device__ __forceinline__ int all(int pred) const { return vado_w64::all_sync(coalesced_info.member_mask, pred); }
  template <typename T>
  __device__ __forceinline__ unsigned long long match_any(T value) const {
    return internal::adjust_mask(coalesced_info.member_mask,
                                 vado_w64::match_any_sync(coalesced_info.member_mask, value));
  }
  template <typename T>
  __device__ __forceinline__ unsigned long long match_all(T value, int& pred) const {
    return internal::adjust_mask(coalesced_info.member_mask,
                                 vado_w64::match_all_sync(coalesced_info.member_mask, value, &pred));
  }
};

// ---------------------------------------------------------------------------------------------- thread_block_tile

template <unsigned int Size>
struct is_valid_tile_size {
  static constexpr bool value = Size != 0u && (Size & (Size - 1u)) == 0u && Size <= 64u;
};

namespace internal {
// The tiles that HIP's tiled_partition<N> takes as parents: thread_block, and thread_block_tile<M> with N <= M.
template <unsigned int Size, class Parent>
struct tile_parent;  // no definition: any other parent does not compile, as in HIP
template <unsigned int Size>
struct tile_parent<Size, thread_block> {
  static constexpr bool value = true;
};
template <unsigned int Size, unsigned int ParentSize, class GrandParent>
struct tile_parent<Size, thread_block_tile<ParentSize, GrandParent> > {
  static_assert(Size <= ParentSize, "Sub tile size must be <= parent tile size in tiled_partition");
  static constexpr bool value = true;
};
}  // namespace internal

template <unsigned int Size>
class tile_base : public tiled_group {
  static_assert(is_valid_tile_size<Size>::value,
                "Tile size is either not a power of 2 or greater than the wavefront size");
  friend struct internal::access;

 protected:
  __device__ __forceinline__ tile_base(unsigned int meta_group_rank, unsigned int meta_group_size)
      : tiled_group(Size) {
    coalesced_info.tiled_info.meta_group_rank = meta_group_rank;
    coalesced_info.tiled_info.meta_group_size = meta_group_size;
  }
  // The tile's lanes of the wave (HIP's build_mask).
  static __device__ __forceinline__ unsigned long long build_mask() {
    unsigned long long mask = ~0ull >> (64u - Size);
    return mask << (((internal::block_rank() % 64u) / Size) * Size);
  }

  static constexpr unsigned int numThreads = Size;  // private in HIP (thread_block_tile_type), as here

 public:
  static __device__ __forceinline__ unsigned int thread_rank() { return internal::block_rank() & (Size - 1u); }
  static __device__ __forceinline__ unsigned int num_threads() { return Size; }
  static __device__ __forceinline__ unsigned int size() { return Size; }
  static __device__ __forceinline__ void sync() { internal::wave_sync(build_mask()); }
  __device__ __forceinline__ unsigned int meta_group_rank() const { return coalesced_info.tiled_info.meta_group_rank; }
  __device__ __forceinline__ unsigned int meta_group_size() const { return coalesced_info.tiled_info.meta_group_size; }

  // An enum reaches HIP's __shfl(int), whose int does not convert back to it: such a shuffle does not compile.
  template <class T>
  struct not_enum {
    static_assert(!std::is_enum<T>::value, "cannot initialize return object of type T (an enum) with an rvalue of "
                                           "type 'int' (HIP's tile shuffles, emulated by vado)");
    typedef T type;
  };
  template <class T>
  __device__ __forceinline__ typename not_enum<T>::type shfl(T var, int srcRank) const {
    return vado_w64_shfl(var, srcRank, (int)Size);
  }
  template <class T>
  __device__ __forceinline__ typename not_enum<T>::type shfl_down(T var, unsigned int lane_delta) const {
    return vado_w64_shfl_down(var, lane_delta, (int)Size);
  }
  template <class T>
  __device__ __forceinline__ typename not_enum<T>::type shfl_up(T var, unsigned int lane_delta) const {
    return vado_w64_shfl_up(var, lane_delta, (int)Size);
  }
  template <class T>
  __device__ __forceinline__ typename not_enum<T>::type shfl_xor(T var, unsigned int laneMask) const {
    return vado_w64_shfl_xor(var, (int)laneMask, (int)Size);
  }
  __device__ __forceinline__ unsigned long long ballot(int pred) const {
    const unsigned long long mask = build_mask();
    return internal::adjust_mask(mask, vado_w64::ballot_sync(mask, pred));
  }
  __device__ __forceinline__ int any(int pred) const { return vado_w64::any_sync(build_mask(), pred); }
  __device__ __forceinline__ int all(int pred) const { return vado_w64::all_sync(build_mask(), pred); }
  template <typename T>
  __device__ __forceinline__ unsigned long long match_any(T value) const {
    const unsigned long long mask = build_mask();
    return internal::adjust_mask(mask, vado_w64::match_any_sync(mask, value));
  }
  template <typename T>
  __device__ __forceinline__ unsigned long long match_all(T value, int& pred) const {
    const unsigned long long mask = build_mask();
    return internal::adjust_mask(mask, vado_w64::match_all_sync(mask, value, &pred));
  }
};

template <unsigned int Size, class Parent = void>
class thread_block_tile : public tile_base<Size> {
  friend struct internal::access;
  template <unsigned int, class>
  friend class thread_block_tile;

 protected:
  __device__ __forceinline__ thread_block_tile(unsigned int meta_group_rank, unsigned int meta_group_size)
      : tile_base<Size>(meta_group_rank, meta_group_size) {}

 public:
  // thread_block_tile<N> (no parent type) from a tile of any parent, as HIP's conversion.
  template <class OtherParent>
  __device__ __forceinline__ thread_block_tile(const thread_block_tile<Size, OtherParent>& g)
      : tile_base<Size>(g.meta_group_rank(), g.meta_group_size()) {}
};

namespace internal {
struct access {
  static __device__ __forceinline__ thread_block block() { return thread_block(block_threads()); }
  static __device__ __forceinline__ grid_group grid() {
    return grid_group(blockDim.x * blockDim.y * blockDim.z * gridDim.x * gridDim.y * gridDim.z);
  }
  static __device__ __forceinline__ coalesced_group coalesced(lane_mask mask) { return coalesced_group(mask); }
  // HIP's this_thread(): a coalesced-type thread_group of one thread. HIP leaves its member mask unset, so its
  // thread_rank() reads an uninitialised mask; here the mask is 0 and thread_rank() is 0 (CUDA's answer).
  static __device__ __forceinline__ thread_group single() { return thread_group(cg_coalesced_group, 1u, 1ull << lane()); }
  static __device__ __forceinline__ lane_mask members(const coalesced_group& g) { return g.coalesced_info.member_mask; }
  template <unsigned int Size, class Parent>
  static __device__ __forceinline__ lane_mask members(const thread_block_tile<Size, Parent>&) {
    return thread_block_tile<Size, Parent>::build_mask();
  }
  template <unsigned int Size, class Parent>
  static __device__ __forceinline__ thread_block_tile<Size, Parent> tile(unsigned int rank, unsigned int count) {
    return thread_block_tile<Size, Parent>(rank, count);
  }
  // HIP's thread_block::new_tiled_group: tiles of `tile_size` (a power of 2 up to the wavefront), the last one
  // holding what is left of the block.
  static __device__ __forceinline__ thread_group tiled(const thread_block& b, unsigned int tile_size) {
    if (!tile_size || tile_size > 64u || (tile_size & (tile_size - 1u))) invalid("invalid tile size");
    unsigned int block_size = b.num_threads();
    unsigned int rank = b.thread_rank();
    unsigned int partitions = (block_size + tile_size - 1u) / tile_size;
    unsigned int tail = partitions * tile_size - block_size;
    unsigned int partition_size = tile_size - tail * (rank >= (partitions - 1u) * tile_size);
    thread_group tiled(cg_tiled_group, partition_size);
    tiled.coalesced_info.tiled_info.num_threads = tile_size;
    tiled.coalesced_info.tiled_info.is_tiled = true;
    tiled.coalesced_info.tiled_info.meta_group_rank = rank / tile_size;
    tiled.coalesced_info.tiled_info.meta_group_size = partitions;
    return tiled;
  }
  static __device__ __forceinline__ tiled_group tiled(const tiled_group& t, unsigned int n) {
    return t.new_tiled_group(n);
  }
  static __device__ __forceinline__ coalesced_group tiled(const coalesced_group& c, unsigned int n) {
    return c.new_tiled_group(n);
  }
  static __device__ __forceinline__ unsigned int tiled_rank(const thread_group& g) {
    return block_rank() & (g.coalesced_info.tiled_info.num_threads - 1u);
  }
  static __device__ __forceinline__ unsigned int tiled_size(const thread_group& g) {
    return g.coalesced_info.tiled_info.num_threads;
  }
};
}  // namespace internal

// ---------------------------------------------------------------------------------------------- thread_group's
// dispatch on the group's kind (HIP's thread_group::thread_rank/is_valid/sync)

__device__ __forceinline__ unsigned int thread_group::thread_rank() const {
  switch (_type) {
    case internal::cg_grid:
      return static_cast<const grid_group*>(this)->thread_rank();
    case internal::cg_workgroup:
      return thread_block::thread_rank();
    case internal::cg_tiled_group:
      return internal::access::tiled_rank(*this);
    case internal::cg_coalesced_group:
      return static_cast<const coalesced_group*>(this)->thread_rank();
    default:
      internal::invalid("invalid cooperative group type");
      return ~0u;
  }
}
__device__ __forceinline__ bool thread_group::is_valid() const {
  switch (_type) {
    case internal::cg_grid:
      return static_cast<const grid_group*>(this)->is_valid();
    case internal::cg_workgroup:
    case internal::cg_tiled_group:
    case internal::cg_coalesced_group:
      return true;
    default:
      return false;
  }
}
__device__ __forceinline__ void thread_group::sync() const {
  switch (_type) {
    case internal::cg_grid:
      static_cast<const grid_group*>(this)->sync();
      break;
    case internal::cg_workgroup:
      thread_block::sync();
      break;
    case internal::cg_tiled_group: {
      internal::wave_sync(internal::tile_lanes(internal::access::tiled_size(*this)));
      break;
    }
    case internal::cg_coalesced_group:
      static_cast<const coalesced_group*>(this)->sync();
      break;
    default:
      internal::invalid("invalid cooperative group type");
  }
}

// ---------------------------------------------------------------------------------------------- constructors

__device__ __forceinline__ thread_block this_thread_block() { return internal::access::block(); }
__device__ __forceinline__ grid_group this_grid() { return internal::access::grid(); }
__device__ __forceinline__ thread_group this_thread() { return internal::access::single(); }
// EXEC: the active lanes of the whole wave (both warps of the emulated wave meet here).
__device__ __forceinline__ coalesced_group coalesced_threads() {
  return internal::access::coalesced(vado_w64::activemask());
}

__device__ __forceinline__ thread_group tiled_partition(const thread_group& parent, unsigned int tile_size) {
  if (parent.cg_type() == internal::cg_tiled_group)
    return internal::access::tiled(*static_cast<const tiled_group*>(&parent), tile_size);
  if (parent.cg_type() == internal::cg_coalesced_group)
    return internal::access::tiled(*static_cast<const coalesced_group*>(&parent), tile_size);
  return internal::access::tiled(*static_cast<const thread_block*>(&parent), tile_size);
}
__device__ __forceinline__ thread_group tiled_partition(const thread_block& parent, unsigned int tile_size) {
  return internal::access::tiled(parent, tile_size);
}
__device__ __forceinline__ tiled_group tiled_partition(const tiled_group& parent, unsigned int tile_size) {
  return internal::access::tiled(parent, tile_size);
}
__device__ __forceinline__ coalesced_group tiled_partition(const coalesced_group& parent, unsigned int tile_size) {
  return internal::access::tiled(parent, tile_size);
}

template <unsigned int Size, class Parent>
__device__ __forceinline__ thread_block_tile<Size, Parent> tiled_partition(const Parent& g) {
  static_assert(is_valid_tile_size<Size>::value, "Tiled partition with size > wavefront size. Currently not supported ");
  static_assert(internal::tile_parent<Size, Parent>::value, "tiled_partition<N> takes a thread_block or a tile");
  return internal::access::tile<Size, Parent>(g.thread_rank() / Size, (g.num_threads() + Size - 1u) / Size);
}

__device__ __forceinline__ coalesced_group binary_partition(const coalesced_group& cgrp, bool pred) {
  lane_mask members = internal::access::members(cgrp);
  lane_mask mask = vado_w64::ballot_sync(members, pred);
  return internal::access::coalesced(pred ? mask : members ^ mask);
}
template <unsigned int Size, class Parent>
__device__ __forceinline__ coalesced_group binary_partition(const thread_block_tile<Size, Parent>& tgrp, bool pred) {
  lane_mask members = internal::access::members(tgrp);
  lane_mask mask = vado_w64::ballot_sync(members, pred);
  return internal::access::coalesced(pred ? mask : members ^ mask);
}

template <class CGTy>
__device__ __forceinline__ unsigned int group_size(CGTy const& g) { return g.num_threads(); }
template <class CGTy>
__device__ __forceinline__ unsigned int thread_rank(CGTy const& g) { return g.thread_rank(); }
template <class CGTy>
__device__ __forceinline__ bool is_valid(CGTy const& g) { return g.is_valid(); }
template <class CGTy>
__device__ __forceinline__ void sync(CGTy const& g) { g.sync(); }

}  // namespace vado_w64_cg

#define cooperative_groups vado_w64_cg
