// Checks of vado's emulation of HIP's cooperative groups on a 64-lane wavefront (vado.verify.hip_on_cuda,
// --wave 64, data/hip_on_cuda_wave64_cg.cuh). Each kernel writes one value per thread; main() compares it with
// what HIP (ROCm 7.2.4, amd_hip_cooperative_groups.h) gives on AMD wave64, worked out on the host below:
// tiles up to 64 lanes, build_mask/adjust_mask ballots, coalesced_threads() over the whole wave, __fns64
// ranks for coalesced shuffles, binary_partition, tiled_partition of a coalesced group, run-time tiles whose
// last one holds the rest of the block. Built by tests/verify/test_cg_emulation.py with nvcc and the
// generated include directory (kernels marked as vado's build marks a port's); the reduce checks use vado's
// local cooperative_groups::reduce (vado.port.compat.CG_REDUCE), which the test puts where this file
// includes <cooperative_groups/reduce.h>, as vado port does.
//   cg_wave64_checks    prints "ok NAME" or "FAIL NAME ...", then "N failures"; exits 1 on a failure
#include <hip/hip_runtime.h>
#include <hip/hip_cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>
#include <stdio.h>
#include <algorithm>
#include <type_traits>
#include <utility>
#include <vector>
namespace cg = cooperative_groups;

typedef unsigned long long u64;
static int failures = 0;

static void expect(const char* name, const std::vector<u64>& got, const std::vector<u64>& want) {
  for (size_t i = 0; i < want.size(); ++i) {
    if (got[i] != want[i]) {
      printf("FAIL %s: thread %zu gives %llu (0x%llx), HIP on AMD wave64 gives %llu (0x%llx)\n", name, i, got[i],
             got[i], want[i], want[i]);
      ++failures;
      fflush(stdout);
      return;
    }
  }
  printf("ok %s\n", name);
  fflush(stdout);  // a check that hangs leaves the ones before it in the log
}

__device__ unsigned int tid() { return threadIdx.x; }
__device__ unsigned int lane() { return threadIdx.x % 64; }

// ---- thread_block_tile<64> and smaller tiles
__global__ void k_tile64_info(u64* out) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<64> w = cg::tiled_partition<64>(block);
  out[tid()] = w.size() * 1000000ull + w.thread_rank() * 1000ull + w.meta_group_rank() * 10ull + w.meta_group_size();
}
__global__ void k_tile64_shfl(u64* out) {
  cg::thread_block_tile<64> w = cg::tiled_partition<64>(cg::this_thread_block());
  int t = (int)tid();
  out[tid()] = (u64)w.shfl(t, 47) * 1000000ull + (u64)w.shfl_down(t, 40u) * 1000ull + (u64)w.shfl_up(t, 5u);
}
__global__ void k_tile64_xor(u64* out) {
  cg::thread_block_tile<64> w = cg::tiled_partition<64>(cg::this_thread_block());
  out[tid()] = (u64)w.shfl_xor((int)tid(), 33u);
}
__global__ void k_tile64_reduce_loop(u64* out) {
  cg::thread_block_tile<64> w = cg::tiled_partition<64>(cg::this_thread_block());
  int v = 1;
  for (unsigned int o = w.size() / 2; o > 0; o /= 2) v += w.shfl_down(v, o);
  out[tid()] = (u64)w.shfl(v, 0);
}
__global__ void k_tile64_double(u64* out) {
  cg::thread_block_tile<64> w = cg::tiled_partition<64>(cg::this_thread_block());
  double d = (double)tid() + 0.5;
  out[tid()] = (u64)(w.shfl_xor(d, 32u) * 2.0);
}
__global__ void k_tile64_ballot(u64* out) {
  cg::thread_block_tile<64> w = cg::tiled_partition<64>(cg::this_thread_block());
  out[tid()] = w.ballot(lane() % 3 == 0);
}
__global__ void k_tile32_ballot(u64* out) {
  cg::thread_block_tile<32> w = cg::tiled_partition<32>(cg::this_thread_block());
  out[tid()] = w.ballot(tid() % 3 == 0);
}
__global__ void k_small_tiles(u64* out) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<16> t16 = cg::tiled_partition<16>(block);
  cg::thread_block_tile<8> t8 = cg::tiled_partition<8>(block);
  out[tid()] = (u64)t16.shfl((int)tid(), 3) * 1000ull + (u64)t8.shfl_xor((int)tid(), 5u);
}
__global__ void k_tile_votes(u64* out) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<64> w = cg::tiled_partition<64>(block);
  cg::thread_block_tile<8> t8 = cg::tiled_partition<8>(block);
  out[tid()] = w.any(lane() == 63) * 1000ull + w.all(lane() < 63) * 100ull + t8.all(t8.thread_rank() != 7) * 10ull +
               t8.any(t8.thread_rank() == 7);
}
__global__ void k_tile_match(u64* out) {
  cg::thread_block_tile<64> w = cg::tiled_partition<64>(cg::this_thread_block());
  int pred = 0;
  u64 all = w.match_all(5, pred);
  u64 any = w.match_any((int)(lane() / 16));
  out[tid()] = any ^ (all == ~0ull && pred ? 1ull : 0ull);
}
__global__ void k_subtile(u64* out) {
  cg::thread_block_tile<64> w = cg::tiled_partition<64>(cg::this_thread_block());
  cg::thread_block_tile<16> q = cg::tiled_partition<16>(w);
  cg::thread_block_tile<16> plain = q;  // thread_block_tile<16, void>
  out[tid()] = q.meta_group_rank() * 1000ull + q.meta_group_size() * 100ull + plain.meta_group_rank() * 10ull +
               plain.thread_rank() % 10;
}
__global__ void k_tile64_sync(u64* out) {
  __shared__ int s[256];
  cg::thread_block_tile<64> w = cg::tiled_partition<64>(cg::this_thread_block());
  s[tid()] = (int)tid() * 3;
  w.sync();  // on AMD the wave is in lock step; here the two warps of the wave meet
  out[tid()] = (u64)s[tid() ^ 32u];
}
__global__ void k_free_functions(u64* out) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<64> w = cg::tiled_partition<64>(block);
  cg::sync(block);
  out[tid()] = cg::group_size(w) * 100000ull + cg::thread_rank(w) * 100ull + cg::group_size(block) / 32;
}

// ---- tiled_partition with a size known at run time (thread_group; the last tile holds the rest)
__global__ void k_dynamic_tiles(u64* out) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_group g64 = cg::tiled_partition(block, 64);
  cg::thread_group g16 = cg::tiled_partition(block, 16);
  out[tid()] = g64.size() * 1000000ull + g64.thread_rank() * 1000ull + g16.size() * 10ull + g16.thread_rank() % 10;
}

// ---- coalesced groups
__global__ void k_coalesced_even(u64* out) {
  if (lane() % 2 == 0) {
    cg::coalesced_group g = cg::coalesced_threads();
    out[tid()] = g.size() * 1000000ull + g.thread_rank() * 1000ull + (g.ballot(1) == 0xffffffffull);
  } else {
    out[tid()] = 7;
  }
}
__global__ void k_coalesced_even_shfl(u64* out) {
  if (lane() % 2 == 0) {
    cg::coalesced_group g = cg::coalesced_threads();
    int t = (int)tid();
    out[tid()] = (u64)g.shfl(t, 0) * 1000000ull + (u64)g.shfl_down(t, 1u) * 1000ull + (u64)g.shfl_up(t, 1u);
  } else {
    out[tid()] = 7;
  }
}
__global__ void k_coalesced_full(u64* out) {
  cg::coalesced_group g = cg::coalesced_threads();
  int t = (int)tid();
  out[tid()] = g.size() * 1000000000ull + (u64)g.shfl(t, 63) * 1000000ull + (u64)g.shfl_down(t, 10u) * 1000ull +
               g.thread_rank();
}
__global__ void k_coalesced_one_half(u64* out) {
  if (lane() >= 16) return;  // lanes 16..63 leave: the group is lanes 0..15 of the wave
  cg::coalesced_group g = cg::coalesced_threads();
  cg::coalesced_group q = cg::tiled_partition(g, 4);
  out[tid()] = g.size() * 1000000ull + q.size() * 10000ull + q.thread_rank() * 100ull + q.meta_group_rank() * 10ull +
               q.meta_group_size();
}
__global__ void k_binary_partition_tile(u64* out) {
  cg::thread_block_tile<64> w = cg::tiled_partition<64>(cg::this_thread_block());
  cg::coalesced_group part = cg::binary_partition(w, lane() < 40);
  out[tid()] = part.size() * 1000ull + part.thread_rank();
}
__global__ void k_binary_partition_coalesced(u64* out) {
  cg::coalesced_group g = cg::coalesced_threads();
  cg::coalesced_group part = cg::binary_partition(g, lane() % 4 == 0);
  out[tid()] = part.size() * 1000ull + part.thread_rank() * 10ull + (part.ballot(1) == (part.size() == 64 ? ~0ull : (1ull << part.size()) - 1ull));
}
__global__ void k_coalesced_votes(u64* out) {
  if (lane() % 2 == 1) {
    cg::coalesced_group g = cg::coalesced_threads();
    int pred = 0;
    u64 m = g.match_all(9, pred);
    out[tid()] = g.any(lane() == 63) * 1000ull + g.all(lane() < 63) * 100ull + (m == 0xffffffffull) * 10ull + pred;
  } else {
    out[tid()] = 7;
  }
}

// ---- cooperative_groups::reduce (vado's local reduce) over each group HIP has
struct MaxSum {
  float maxval;
  float sum;
};
__device__ MaxSum max_sum(MaxSum a, MaxSum b) { return {a.maxval > b.maxval ? a.maxval : b.maxval, a.sum + b.sum}; }

__global__ void k_reduce_tile(u64* out) {
  cg::thread_block_tile<64> w = cg::tiled_partition<64>(cg::this_thread_block());
  cg::thread_block_tile<16> q = cg::tiled_partition<16>(w);
  out[tid()] = (u64)cg::reduce(w, (int)tid(), cg::plus<int>()) * 1000ull + (u64)cg::reduce(q, (int)tid(), cg::greater<int>());
}
__global__ void k_reduce_partition(u64* out) {
  cg::thread_block_tile<64> w = cg::tiled_partition<64>(cg::this_thread_block());
  cg::coalesced_group part = cg::binary_partition(w, lane() < 40);
  out[tid()] = (u64)cg::reduce(part, 1, cg::plus<int>()) * 1000ull + (u64)cg::reduce(part, (int)tid(), cg::less<int>());
}
__global__ void k_reduce_coalesced(u64* out) {
  if (lane() % 2 == 1) {
    cg::coalesced_group g = cg::coalesced_threads();
    cg::coalesced_group q = cg::tiled_partition(g, 4);
    MaxSum ms = cg::reduce(g, MaxSum{(float)tid(), 1.0f}, max_sum);
    double wide = cg::reduce(g, (double)tid(), cg::plus<double>());
    out[tid()] = (u64)ms.maxval * 1000000000ull + (u64)ms.sum * 10000000ull + (u64)wide * 10ull +
                 (u64)cg::reduce(q, 1, cg::plus<int>());
  } else {
    out[tid()] = 7;
  }
}

// ---- rows of the table in data/hip_on_cuda_wave64_cg.cuh not checked above
// The return types HIP 7.2.4 declares (64-bit lane masks), checked at compile time here and by hipcc.
static_assert(std::is_same<decltype(std::declval<cg::thread_block_tile<64>&>().ballot(1)), unsigned long long>::value,
              "tile ballot: unsigned long long");
static_assert(std::is_same<decltype(std::declval<cg::thread_block_tile<16>&>().match_any(1)), unsigned long long>::value,
              "tile match_any: unsigned long long");
static_assert(std::is_same<decltype(std::declval<cg::coalesced_group&>().ballot(1)), unsigned long long>::value,
              "coalesced ballot: unsigned long long");
static_assert(std::is_same<decltype(std::declval<cg::coalesced_group&>().match_all(1.0, std::declval<int&>())),
                           unsigned long long>::value, "coalesced match_all: unsigned long long");
static_assert(std::is_same<lane_mask, unsigned long long>::value, "lane_mask is 64 bits");

__global__ void k_tile32_info(u64* out) {
  cg::thread_block_tile<32> w = cg::tiled_partition<32>(cg::this_thread_block());
  out[tid()] = w.size() * 10000ull + w.thread_rank() * 100ull + w.meta_group_rank() * 10ull + w.meta_group_size();
}
__global__ void k_tile_xor_upper(u64* out) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> w = cg::tiled_partition<32>(block);
  cg::thread_block_tile<8> t8 = cg::tiled_partition<8>(block);
  int t = (int)tid();
  out[tid()] = (u64)w.shfl_xor(t, 32u) * 1000ull + (u64)t8.shfl_xor(t, 40u);
}
__global__ void k_tile_out_of_range(u64* out) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<64> w = cg::tiled_partition<64>(block);
  cg::thread_block_tile<16> q = cg::tiled_partition<16>(block);
  int t = (int)tid();
  out[tid()] = (u64)q.shfl(t, 19) * 1000000000000ull + (u64)q.shfl(t, -1) * 1000000000ull +
               (u64)q.shfl_down(t, 20u) * 1000000ull + (u64)q.shfl_up(t, 17u) * 1000ull + (u64)w.shfl(t, 69);
}
__global__ void k_match_values(u64* out) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<64> w = cg::tiled_partition<64>(block);
  cg::thread_block_tile<16> q = cg::tiled_partition<16>(block);
  float z = lane() % 2 ? -0.0f : 0.0f;
  u64 any_zero = w.match_any(z);
  int all_pred = 0;
  u64 all_zero = w.match_all(z, all_pred);
  double zero = (double)(lane() > 100);
  double d = lane() == 5 ? zero / zero : 1.0;  // a NaN in lane 5
  int nan_pred = 1;
  u64 all_nan = w.match_all(d, nan_pred);
  u64 sixteen = q.match_any((int)(q.thread_rank() / 4));
  out[tid()] = (any_zero == ~0ull) + (all_zero == ~0ull) * 2ull + all_pred * 4ull + (all_nan == 0ull) * 8ull +
               (nan_pred == 0) * 16ull + (sixteen << 5);
}
__global__ void k_coalesced_odd_values(u64* out) {
  if (lane() % 2 == 1) {
    cg::coalesced_group g = cg::coalesced_threads();
    u64 same = g.match_any((int)(lane() / 8));
    u64 b = g.ballot(lane() % 4 == 1);
    out[tid()] = ((u64)(b == 0x55555555ull) << 63) | ((u64)g.shfl((int)tid(), 33) << 32) | same;
  } else {
    out[tid()] = 7;
  }
}
__global__ void k_groups_as_thread_group(u64* out) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_group g32 = cg::tiled_partition(block, 32);
  cg::thread_group sub = cg::tiled_partition(cg::tiled_partition(block, 64), 16);
  cg::thread_group me = cg::this_thread();  // size 1; HIP's thread_rank() reads a mask it never sets: not checked
  cg::thread_group cs = cg::coalesced_threads();  // HIP sets only the coalesced size: thread_group::size() is 0
  dim3 dims = block.group_dim();
  out[tid()] = g32.size() * 1000000000000ull + g32.thread_rank() * 10000000000ull + sub.size() * 100000000ull +
               sub.thread_rank() * 1000000ull + me.size() * 100000ull + cs.size() * 100ull +
               cs.thread_rank() + (dims.x == 96 && dims.y == 1 ? 0ull : 1ull << 60);
}

// reduce with an associative op that is not commutative (composition of x -> a*x + b, unsigned wrapping)
struct Affine {
  unsigned int a, b;
};
__device__ __host__ Affine compose(Affine f, Affine g) { return {f.a * g.a, f.b * g.a + g.b}; }  // g after f
__device__ __host__ Affine affine_of(unsigned int t) { return {2u * t + 3u, t + 1u}; }
__device__ __host__ u64 packed(Affine f) { return ((u64)f.a << 32) | f.b; }
__global__ void k_reduce_order_tile(u64* out) {
  cg::thread_block_tile<64> w = cg::tiled_partition<64>(cg::this_thread_block());
  out[tid()] = packed(cg::reduce(w, affine_of(tid()), compose));
}
__global__ void k_reduce_order_coalesced(u64* out) {
  if (lane() % 2 == 1 || lane() < 8) {
    cg::coalesced_group g = cg::coalesced_threads();
    out[tid()] = packed(cg::reduce(g, affine_of(tid()), compose));
  } else {
    out[tid()] = 7;
  }
}

// Many blocks of lanes that split into groups by label at once (cuda-samples warpAggregatedAtomicsCG's labeled
// partition, as the port writes it: a binary_partition per bit of the label), the halves of each wave mixed in
// every group and a divergent branch before each split: each group's calls meet by its mask.
__host__ __device__ unsigned label_of(unsigned block, unsigned l) { return (l * 7u + block * 3u + (l >> 5) * block) % 5u; }
__global__ void k_labeled_many(u64* out) {
  unsigned l = lane(), b = blockIdx.x, label = label_of(b, l);
  cg::coalesced_group g = cg::coalesced_threads();
  for (int bit = 0; bit < 3; ++bit) {
    if ((l * 5u + b + bit) % 3u == 0u) out[b * blockDim.x + threadIdx.x] = bit;
    g = cg::binary_partition(g, (label >> bit) & 1u);
  }
  u64 leader = g.shfl((u64)l, 0);
  u64 votes = __popcll(g.ballot(1));
  out[b * blockDim.x + threadIdx.x] = g.size() * 1000000ull + g.thread_rank() * 10000ull + leader * 100ull + votes +
                                      (u64)cg::reduce(g, 1, cg::plus<int>()) * 1000000000ull;
}
static std::vector<u64> run_labeled_many(int threads, int blocks) {
  u64* d = nullptr;
  hipMalloc((void**)&d, (size_t)threads * blocks * sizeof(u64));
  hipMemset(d, 0, (size_t)threads * blocks * sizeof(u64));
  hipLaunchKernelGGL(k_labeled_many, dim3(blocks), dim3(threads), 0, 0, d);
  std::vector<u64> h((size_t)threads * blocks);
  hipError_t err = hipDeviceSynchronize();
  if (err != hipSuccess) {
    printf("FAIL launch: %s\n", hipGetErrorString(err));
    ++failures;
  }
  hipMemcpy(h.data(), d, h.size() * sizeof(u64), hipMemcpyDeviceToHost);
  hipFree(d);
  return h;
}

// Partitions after lanes have returned (gsplat's projection backward: culled Gaussians return, then
// labeled_partition(tiled_partition<32>(block), gid), a reduce and an atomicAdd by rank 0). The expected values
// are CUDA's: a tile's labeled_partition leaves out the lanes that returned (PTX match.sync waits for the mask's
// non-exited threads), and so does the port's (vado's labeled_partition starts from coalesced_threads(); HIP's
// binary_partition of the tile itself would trap at __hip_check_mask). A block of 128: lanes t % 7 == 2 return,
// and so do 96..127 (the upper half of the second wave).
__host__ __device__ bool returns_early(unsigned t) { return t % 7 == 2 || (t >= 96 && t < 128); }
__global__ void k_labeled_after_return(u64* out) {
  unsigned t = tid();
  out[t] = 7;
  if (returns_early(t)) return;
  auto warp = cg::tiled_partition<32>(cg::this_thread_block());
  cg::coalesced_group g = cg::labeled_partition(warp, t % 3);
  u64 leader = g.shfl((u64)t, 0);
  out[t] = g.size() * 100000000ull + g.thread_rank() * 1000000ull + leader * 10000ull +
           (u64)cg::reduce(g, (int)t, cg::plus<int>());
}
// The coalesced form after returns, as the port writes CUDA's coalesced_threads() (split by 32-lane warp,
// WARP009), then a binary_partition: the lanes still running of the caller's warp with the same predicate.
__global__ void k_binary_after_return(u64* out) {
  unsigned t = tid();
  out[t] = 7;
  if (returns_early(t)) return;
  cg::coalesced_group warp = cg::binary_partition(cg::coalesced_threads(), (lane() & 32u) != 0u);
  cg::coalesced_group g = cg::binary_partition(warp, (t & 4u) != 0u);
  out[t] = warp.size() * 1000000ull + g.size() * 10000ull + g.thread_rank() * 100ull + (u64)__popcll(g.ballot(1));
}

// ---- what vado port writes for what HIP lacks (vado.port.compat.cg_collectives, cg_members): the scans,
// invoke_one / invoke_one_broadcast, grid_group and thread_block members
__global__ void k_reduce_ops_tile32(u64* out) {
  // llm.c, cudf: cg::reduce over a warp tile with each of CUDA's function objects and a lambda
  cg::thread_block_tile<32> w = cg::tiled_partition<32>(cg::this_thread_block());
  int v = (int)((tid() * 37u + 11u) % 101u);
  u64 lo = (u64)cg::reduce(w, v, cg::less<int>()), hi = (u64)cg::reduce(w, (float)v, cg::greater<float>{});
  u64 a = (u64)cg::reduce(w, v | 64, cg::bit_and<int>()), o = (u64)cg::reduce(w, v, cg::bit_or<int>());
  u64 x = (u64)cg::reduce(w, v, cg::bit_xor<int>());
  u64 m = (u64)cg::reduce(w, v, [](int p, int q) { return p < q ? q : p; });
  out[tid()] = lo << 40 | hi << 32 | a << 24 | o << 16 | m << 8 | x;  // each below 256
}
__global__ void k_scan_tiles(u64* out) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> w = cg::tiled_partition<32>(block);
  cg::thread_block_tile<64> t = cg::tiled_partition<64>(block);
  int v = (int)(tid() % 7) + 1;
  out[tid()] = (u64)cg::inclusive_scan(w, v) * 1000000ull + (u64)cg::exclusive_scan(t, v, cg::plus<int>()) * 1000ull +
               (u64)cg::exclusive_scan(w, v, cg::greater<int>());
}
__global__ void k_scan_order_tile(u64* out) {
  cg::thread_block_tile<32> w = cg::tiled_partition<32>(cg::this_thread_block());
  out[tid()] = packed(cg::inclusive_scan(w, affine_of(tid()), compose));
}
__global__ void k_scan_coalesced(u64* out) {
  if (lane() % 2 == 1 || lane() < 8) {
    cg::coalesced_group g = cg::coalesced_threads();
    Affine e = cg::exclusive_scan(g, affine_of(tid()), compose);
    out[tid()] = (u64)cg::inclusive_scan(g, 1u) * 1000000000000ull + (u64)cg::exclusive_scan(g, (double)lane()) * 10000ull +
                 (e.a == 0u && e.b == 0u ? 1ull : 0ull) + (g.thread_rank() == 0 ? 0ull : 2ull);
  } else {
    out[tid()] = 7;
  }
}
__global__ void k_scan_order_coalesced(u64* out) {
  if (lane() % 3 != 2) {
    cg::coalesced_group g = cg::coalesced_threads();
    out[tid()] = packed(cg::inclusive_scan(g, affine_of(tid()), compose));
  } else {
    out[tid()] = 7;
  }
}
__global__ void k_invoke_one(u64* out) {
  __shared__ unsigned int called[128];
  cg::thread_block block = cg::this_thread_block();
  called[tid()] = 0;
  block.sync();
  cg::thread_block_tile<32> w = cg::tiled_partition<32>(block);
  cg::invoke_one(w, [&](unsigned int by) { called[tid()] += by; }, 1u);
  cg::invoke_one(block, [&] { called[tid()] += 10u; });
  unsigned int from = cg::invoke_one_broadcast(w, [&] { return tid() * 3u + 1u; });
  block.sync();
  out[tid()] = (u64)called[tid()] * 10000000000ull + (u64)from * 1000000ull;
}
__global__ void k_invoke_one_coalesced(u64* out) {
  if (lane() % 4 == 3) {  // the other lanes leave the kernel (this stand-in meets the lanes still in it)
    cg::coalesced_group g = cg::coalesced_threads();
    Affine f = cg::invoke_one_broadcast(g, [&] { return affine_of(tid()); });
    out[tid()] = f.a * 1000ull + f.b;
  } else {
    out[tid()] = 7;
  }
}
__global__ void k_group_members(u64* out) {
  cg::grid_group grid = cg::this_grid();
  auto block = cg::this_thread_block();
  dim3 bi = grid.block_index(), db = grid.dim_blocks(), ti = grid.thread_index(), dt = grid.dim_threads();
  dim3 bt = block.dim_threads();
  u64 rank = grid.block_rank(), blocks = cg::this_grid().num_blocks();
  u64 linear = ((u64)blockIdx.z * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x;
  u64 ok = (bi.x == blockIdx.x && bi.y == blockIdx.y && bi.z == blockIdx.z) +
           2 * (db.x == gridDim.x && db.y == gridDim.y && db.z == gridDim.z) +
           4 * (ti.x == blockIdx.x * blockDim.x + threadIdx.x && ti.y == blockIdx.y * blockDim.y + threadIdx.y &&
                ti.z == blockIdx.z * blockDim.z + threadIdx.z) +
           8 * (dt.x == gridDim.x * blockDim.x && dt.y == gridDim.y * blockDim.y && dt.z == gridDim.z * blockDim.z) +
           16 * (bt.x == blockDim.x && bt.y == blockDim.y && bt.z == blockDim.z);
  out[linear * (blockDim.x * blockDim.y * blockDim.z) + block.thread_rank()] = rank * 1000000ull + blocks * 100ull + ok;
}
static std::vector<u64> run_grid(void (*k)(u64*), dim3 grid, dim3 block) {
  size_t n = (size_t)grid.x * grid.y * grid.z * block.x * block.y * block.z;
  u64* d = nullptr;
  hipMalloc((void**)&d, n * sizeof(u64));
  hipMemset(d, 0, n * sizeof(u64));
  hipLaunchKernelGGL(k, grid, block, 0, 0, d);
  std::vector<u64> h(n);
  hipError_t err = hipDeviceSynchronize();
  if (err != hipSuccess) {
    printf("FAIL launch: %s\n", hipGetErrorString(err));
    ++failures;
  }
  hipMemcpy(h.data(), d, n * sizeof(u64), hipMemcpyDeviceToHost);
  hipFree(d);
  return h;
}

template <class Kernel>
static std::vector<u64> run(Kernel k, int threads) {
  u64* d = nullptr;
  hipMalloc((void**)&d, threads * sizeof(u64));
  hipMemset(d, 0, threads * sizeof(u64));
  hipLaunchKernelGGL(k, dim3(1), dim3(threads), 0, 0, d);
  std::vector<u64> h(threads);
  hipError_t err = hipDeviceSynchronize();
  if (err != hipSuccess) {
    printf("FAIL launch: %s\n", hipGetErrorString(err));
    ++failures;
  }
  hipMemcpy(h.data(), d, threads * sizeof(u64), hipMemcpyDeviceToHost);
  hipFree(d);
  return h;
}

int main() {
  const int n = 128;  // two waves
  std::vector<u64> want(n);

  want.resize(192);
  for (int t = 0; t < 192; ++t) want[t] = 64000000ull + (t % 64) * 1000ull + (t / 64) * 10ull + 3;
  expect("tile<64>: size 64, rank, meta_group_rank/size", run(k_tile64_info, 192), want);
  want.resize(n);
  for (int t = 0; t < n; ++t) {
    int l = t % 64, base = t - l;
    want[t] = (u64)(base + 47) * 1000000ull + (u64)(l + 40 < 64 ? t + 40 : t) * 1000ull + (u64)(l >= 5 ? t - 5 : t);
  }
  expect("tile<64>: shfl, shfl_down, shfl_up across the wave", run(k_tile64_shfl, n), want);
  for (int t = 0; t < n; ++t) want[t] = (u64)((t & ~63) | ((t & 63) ^ 33));
  expect("tile<64>: shfl_xor 33", run(k_tile64_xor, n), want);
  for (int t = 0; t < n; ++t) want[t] = 64;
  expect("tile<64>: shfl_down reduction over 64 lanes", run(k_tile64_reduce_loop, n), want);
  for (int t = 0; t < n; ++t) want[t] = (u64)(((t ^ 32) + 0.5) * 2.0);
  expect("tile<64>: 64-bit values across the halves", run(k_tile64_double, n), want);
  u64 thirds = 0;
  for (int i = 0; i < 64; ++i) thirds |= (u64)(i % 3 == 0) << i;
  for (int t = 0; t < n; ++t) want[t] = thirds;
  expect("tile<64>: ballot is 64 bits", run(k_tile64_ballot, n), want);
  for (int t = 0; t < n; ++t) {
    int base = t & ~31;
    u64 b = 0;
    for (int i = 0; i < 32; ++i) b |= (u64)((base + i) % 3 == 0) << i;
    want[t] = b;
  }
  expect("tile<32>: ballot packed from bit 0 (adjust_mask)", run(k_tile32_ballot, n), want);
  for (int t = 0; t < n; ++t) want[t] = (u64)((t & ~15) + 3) * 1000ull + (u64)((t & ~7) | ((t & 7) ^ 5));
  expect("tile<16> shfl, tile<8> shfl_xor", run(k_small_tiles, n), want);
  for (int t = 0; t < n; ++t) want[t] = 1001;
  expect("tile any/all (64 and 8 lanes)", run(k_tile_votes, n), want);
  for (int t = 0; t < n; ++t) want[t] = (0xffffull << (16 * ((t % 64) / 16))) ^ 1ull;
  expect("tile<64>: match_any and match_all", run(k_tile_match, n), want);
  for (int t = 0; t < n; ++t) {
    int l = t % 64;
    want[t] = (l / 16) * 1000ull + 4 * 100ull + (l / 16) * 10ull + (t % 16) % 10;
  }
  expect("tile<16> of tile<64>: meta_group_rank/size, thread_block_tile<16> conversion", run(k_subtile, n), want);
  for (int t = 0; t < n; ++t) want[t] = (u64)((t ^ 32) * 3);
  expect("tile<64>.sync() orders shared memory across the wave", run(k_tile64_sync, n), want);
  for (int t = 0; t < n; ++t) want[t] = 64 * 100000ull + (t % 64) * 100ull + n / 32;
  expect("group_size, thread_rank, sync", run(k_free_functions, n), want);

  want.resize(96);
  for (int t = 0; t < 96; ++t)
    want[t] = (t < 64 ? 64 : 32) * 1000000ull + (t % 64) * 1000ull + 16 * 10ull + (t % 16) % 10;
  expect("tiled_partition(block, 64) in a block of 96: the last tile has 32", run(k_dynamic_tiles, 96), want);
  want.resize(n);

  for (int t = 0; t < n; ++t) want[t] = t % 2 ? 7 : 32000000ull + ((t % 64) / 2) * 1000ull + 1;
  expect("coalesced_threads() of the even lanes: 32 of the wave", run(k_coalesced_even, n), want);
  for (int t = 0; t < n; ++t) {
    int l = t % 64, r = l / 2, base = t - l;
    want[t] = t % 2 ? 7 : (u64)base * 1000000ull + (u64)(r < 31 ? t + 2 : t) * 1000ull + (u64)(r > 0 ? t - 2 : t);
  }
  expect("coalesced shfl, shfl_down, shfl_up by group rank", run(k_coalesced_even_shfl, n), want);
  for (int t = 0; t < n; ++t) {
    int l = t % 64, base = t - l;
    want[t] = 64000000000ull + (u64)(base + 63) * 1000000ull + (u64)(l + 10 < 64 ? t + 10 : t) * 1000ull + l;
  }
  expect("coalesced_threads() of a full wave: 64 lanes", run(k_coalesced_full, n), want);
  for (int t = 0; t < n; ++t) {
    int l = t % 64;
    want[t] = l < 16 ? 16000000ull + 4 * 10000ull + (l % 4) * 100ull + (l / 4) * 10ull + 4 : 0;
  }
  expect("coalesced group of 16 lanes, tiled_partition(g, 4)", run(k_coalesced_one_half, n), want);
  for (int t = 0; t < n; ++t) {
    int l = t % 64;
    want[t] = l < 40 ? 40000ull + l : 24000ull + (l - 40);
  }
  expect("binary_partition of a tile<64>", run(k_binary_partition_tile, n), want);
  for (int t = 0; t < n; ++t) {
    int l = t % 64;
    bool p = l % 4 == 0;
    want[t] = (p ? 16 : 48) * 1000ull + (p ? l / 4 : l - l / 4 - 1) * 10ull + 1;
  }
  expect("binary_partition of a coalesced group", run(k_binary_partition_coalesced, n), want);
  for (int t = 0; t < n; ++t) want[t] = t % 2 ? 1000ull + 0 + 10 + 1 : 7;
  expect("coalesced any/all/match_all over the odd lanes", run(k_coalesced_votes, n), want);

  for (int t = 0; t < n; ++t) {
    int base = t & ~63, q = t & ~15;
    int sum = 0;
    for (int i = 0; i < 64; ++i) sum += base + i;
    want[t] = (u64)sum * 1000ull + (u64)(q + 15);
  }
  expect("reduce over tile<64> and tile<16>", run(k_reduce_tile, n), want);
  for (int t = 0; t < n; ++t) {
    int l = t % 64, base = t - l;
    want[t] = l < 40 ? 40000ull + base : 24000ull + base + 40;
  }
  expect("reduce over binary_partition", run(k_reduce_partition, n), want);
  for (int t = 0; t < n; ++t) {
    int base = t & ~63;
    double wide = 0;
    for (int i = 1; i < 64; i += 2) wide += base + i + 0.0;
    want[t] = t % 2 ? (u64)(base + 63) * 1000000000ull + 32ull * 10000000ull + (u64)wide * 10ull + 4 : 7;
  }
  expect("reduce over coalesced_threads(), a struct, a double, tiled_partition(g, 4)", run(k_reduce_coalesced, n), want);

  // ---- the rows added with the table
  want.resize(96);
  for (int t = 0; t < 96; ++t) want[t] = 32 * 10000ull + (t % 32) * 100ull + (t / 32) * 10ull + 3;
  expect("tile<32> in a block of 96: meta_group_rank/size 3", run(k_tile32_info, 96), want);
  want.resize(n);
  for (int t = 0; t < n; ++t) {
    int l = t % 64, base = t - l;
    want[t] = (u64)(l < 32 ? t : t - 32) * 1000ull + (u64)(l < 32 ? t : base + ((l - 32) ^ 8));
  }
  expect("tile shfl_xor with lane mask bit 5: upper lanes read the lower half (HIP's index bound)",
         run(k_tile_xor_upper, n), want);
  for (int t = 0; t < n; ++t) {
    int l = t % 64, base = t - l, q = t & ~15;
    want[t] = (u64)(q + 3) * 1000000000000ull + (u64)(q + 15) * 1000000000ull + (u64)t * 1000000ull +
              (u64)t * 1000ull + (u64)(base + 5);
  }
  expect("tile shuffles out of range: srcRank mod size, shfl_down/up past the tile keep the own value",
         run(k_tile_out_of_range, n), want);
  for (int t = 0; t < n; ++t) want[t] = 31ull + ((0xfull << (4 * ((t % 16) / 4))) << 5);
  expect("match_any/match_all compare with ==: -0.0 matches 0.0, a NaN fails match_all; tile<16> masks packed",
         run(k_match_values, n), want);
  for (int t = 0; t < n; ++t) {
    int l = t % 64, base = t - l;
    want[t] = l % 2 ? (1ull << 63) | ((u64)(base + 3) << 32) | (0xfull << (4 * (l / 8))) : 7;
  }
  expect("coalesced match_any, ballot packed by rank, shfl(srcRank mod size)", run(k_coalesced_odd_values, n), want);
  want.resize(96);
  for (int t = 0; t < 96; ++t) {
    int l = t % 64;
    want[t] = 32 * 1000000000000ull + (t % 32) * 10000000000ull + 16 * 100000000ull + (t % 16) * 1000000ull +
              1 * 100000ull + 0 * 100ull + l;
  }
  expect("groups as thread_group: dynamic tiles, a tile of a run-time tile, this_thread(), coalesced size 0",
         run(k_groups_as_thread_group, 96), want);
  want.resize(n);
  for (int w0 = 0; w0 < n; w0 += 64) {
    Affine acc[64], next[64];
    for (int l = 0; l < 64; ++l) acc[l] = affine_of(w0 + l);
    for (int o = 32; o > 0; o /= 2) {  // CUDA's and vado's tile reduce: a butterfly of shfl_xor
      for (int l = 0; l < 64; ++l) next[l] = compose(acc[l], acc[l ^ o]);
      for (int l = 0; l < 64; ++l) acc[l] = next[l];
    }
    for (int l = 0; l < 64; ++l) want[w0 + l] = packed(acc[l]);
  }
  expect("reduce over tile<64> with a non-commutative op: the butterfly's order per lane", run(k_reduce_order_tile, n),
         want);
  for (int w0 = 0; w0 < n; w0 += 64) {
    bool first = true;
    Affine acc = {1u, 0u};
    for (int l = 0; l < 64; ++l) {
      if (!(l % 2 == 1 || l < 8)) continue;
      acc = first ? affine_of(w0 + l) : compose(acc, affine_of(w0 + l));
      first = false;
    }
    for (int l = 0; l < 64; ++l) want[w0 + l] = (l % 2 == 1 || l < 8) ? packed(acc) : 7;
  }
  expect("reduce over a coalesced group with a non-commutative op: rank order, every member",
         run(k_reduce_order_coalesced, n), want);

  // ---- vado's scans, invoke_one and group members (CUDA's meaning on HIP's groups: a tile<32> is half a wave,
  // a coalesced group ranks the wave's active lanes)
  want.resize(n);
  for (int t = 0; t < n; ++t) {
    int lo = 1000, hi = 0, a = -1, o = 0, x = 0;
    for (int u = t & ~31; u < (t & ~31) + 32; ++u) {
      int v = (int)((u * 37u + 11u) % 101u);
      lo = std::min(lo, v), hi = std::max(hi, v), a &= v | 64, o |= v, x ^= v;
    }
    want[t] = (u64)lo << 40 | (u64)hi << 32 | (u64)a << 24 | (u64)o << 16 | (u64)hi << 8 | (u64)x;
  }
  expect("reduce over tile<32>: less, greater, bit_and, bit_or, bit_xor, a lambda (max)", run(k_reduce_ops_tile32, n), want);
  for (int t = 0; t < n; ++t) {
    int inc32 = 0, exc64 = 0, max32 = 0;
    for (int u = t & ~31; u <= t; ++u) inc32 += u % 7 + 1;
    for (int u = t & ~63; u < t; ++u) exc64 += u % 7 + 1;
    for (int u = t & ~31; u < t; ++u) max32 = std::max(max32, u % 7 + 1);  // rank 0: int{}
    want[t] = (u64)inc32 * 1000000ull + (u64)exc64 * 1000ull + (u64)max32;
  }
  expect("scan: inclusive (tile<32>, cg::plus by default), exclusive (tile<64>, cg::greater: T{} at rank 0)",
         run(k_scan_tiles, n), want);
  for (int w0 = 0; w0 < n; w0 += 32) {
    Affine acc[32], next[32];
    for (int l = 0; l < 32; ++l) acc[l] = affine_of(w0 + l);
    for (int d = 1; d < 32; d *= 2) {  // CUDA's inclusive_scan_contiguous: op(own partial, partial d ranks below)
      for (int l = 0; l < 32; ++l) next[l] = l >= d ? compose(acc[l], acc[l - d]) : acc[l];
      for (int l = 0; l < 32; ++l) acc[l] = next[l];
    }
    for (int l = 0; l < 32; ++l) want[w0 + l] = packed(acc[l]);
  }
  expect("scan over tile<32> with a non-commutative op: CUDA's order (own partial first)", run(k_scan_order_tile, n),
         want);
  for (int t = 0; t < n; ++t) {
    int l = t % 64, rank = 0;
    double below = 0;
    for (int u = 0; u < l; ++u)
      if (u % 2 == 1 || u < 8) {
        ++rank;
        below += u;
      }
    want[t] = (l % 2 == 1 || l < 8) ? (u64)(rank + 1) * 1000000000000ull + (u64)below * 10000ull + (rank == 0 ? 1ull : 2ull)
                                    : 7;
  }
  expect("scan over coalesced_threads(): rank order over the wave, exclusive T{} at rank 0", run(k_scan_coalesced, n),
         want);
  for (int w0 = 0; w0 < n; w0 += 64) {
    std::vector<int> lanes;
    for (int l = 0; l < 64; ++l)
      if (l % 3 != 2) lanes.push_back(l);
    const int m = (int)lanes.size();
    std::vector<Affine> acc(m), next(m);
    for (int r = 0; r < m; ++r) acc[r] = affine_of(w0 + lanes[r]);
    for (int d = 1; d < m; d *= 2) {
      for (int r = 0; r < m; ++r) next[r] = r >= d ? compose(acc[r], acc[r - d]) : acc[r];
      acc = next;
    }
    for (int l = 0; l < 64; ++l) want[w0 + l] = 7;
    for (int r = 0; r < m; ++r) want[w0 + lanes[r]] = packed(acc[r]);
  }
  expect("scan over a coalesced group of 43 lanes with a non-commutative op", run(k_scan_order_coalesced, n), want);
  for (int t = 0; t < n; ++t) {
    u64 called = (t % 32 == 0 ? 1 : 0) + (t == 0 ? 10 : 0);
    want[t] = called * 10000000000ull + (u64)((t & ~31) * 3 + 1) * 1000000ull;
  }
  expect("invoke_one (one thread of each tile<32>, of the block), invoke_one_broadcast over tile<32>",
         run(k_invoke_one, n), want);
  for (int t = 0; t < n; ++t) {
    Affine f = affine_of((t & ~63) + 3);  // rank 0 of the group: lane 3
    want[t] = t % 4 == 3 ? f.a * 1000ull + f.b : 7;
  }
  expect("invoke_one_broadcast over a coalesced group: rank 0's struct to every member", run(k_invoke_one_coalesced, n),
         want);
  {
    const dim3 grid(3, 2, 2), block(8, 4, 2);
    std::vector<u64> members((size_t)12 * 64);
    for (size_t i = 0; i < members.size(); ++i) members[i] = (u64)(i / 64) * 1000000ull + 12ull * 100ull + 31ull;
    expect("grid_group block_rank/num_blocks/block_index/dim_blocks/thread_index/dim_threads, thread_block dim_threads",
           run_grid(k_group_members, grid, block), members);
  }

  {
    const int threads = 128, blocks = 4096;
    std::vector<u64> many((size_t)threads * blocks);
    for (int b = 0; b < blocks; ++b)
      for (int t = 0; t < threads; ++t) {
        unsigned l = t % 64, label = label_of(b, l), size = 0, rank = 0, leader = 64;
        for (unsigned u = 0; u < 64; ++u) {
          if (label_of(b, u) != label) continue;
          if (leader == 64) leader = u;
          if (u < l) ++rank;
          ++size;
        }
        many[(size_t)b * threads + t] = size * 1000000000ull + size * 1000000ull + rank * 10000ull + leader * 100ull + size;
      }
    expect("labeled partitions (a binary_partition per label bit) in 4096 blocks, halves mixed in each group",
           run_labeled_many(threads, blocks), many);
  }

  {
    // CUDA's groups after returns: the lanes of the caller's 32-lane warp still running (with its label / predicate)
    std::vector<u64> lab(n), bin(n);
    for (int t = 0; t < n; ++t) {
      lab[t] = bin[t] = 7;
      if (returns_early(t)) continue;
      u64 size = 0, rank = 0, leader = 0, sum = 0, wsize = 0, bsize = 0, brank = 0;
      for (int u = t & ~31; u < (t & ~31) + 32; ++u) {
        if (returns_early(u)) continue;
        ++wsize;
        if (((u >> 2) & 1) == ((t >> 2) & 1)) {
          ++bsize;
          if (u < t) ++brank;
        }
        if (u % 3 != t % 3) continue;
        if (size == 0) leader = u;
        if (u < t) ++rank;
        ++size;
        sum += u;
      }
      lab[t] = size * 100000000ull + rank * 1000000ull + leader * 10000ull + sum;
      bin[t] = wsize * 1000000ull + bsize * 10000ull + brank * 100ull + bsize;
    }
    expect("labeled_partition of a tile<32> after lanes returned: CUDA's groups, leaders and sums",
           run(k_labeled_after_return, n), lab);
    expect("binary_partition of a warp's coalesced_threads() after lanes returned", run(k_binary_after_return, n), bin);
  }

  printf("%d failures\n", failures);
  return failures ? 1 : 0;
}
