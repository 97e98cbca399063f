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
#include <string.h>
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

// The checks of the divergent mode (cg_wave64_checks divergent): groups CUDA runs apart within a 32-lane half. Their
// kernels make collectives in divergent branches and at barriers, which the CPU stand-in for a wave64 GPU cannot run
// (test_cg_emulation.py runs this mode on the GPU only).
static void check_divergent(const char* name, const std::vector<u64>& got, const std::vector<u64>& want) {
  if (got.size() < want.size()) {
    printf("FAIL %s: %zu values, HIP on AMD wave64 gives %zu\n", name, got.size(), want.size());
    ++failures;
    fflush(stdout);
    return;
  }
  expect(name, got, want);
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

// ---- Groups that CUDA runs apart within one 32-lane half (independent thread scheduling: the two sides of a
// branch, a loop whose lanes leave at different rounds), as in cuda-samples warpAggregatedAtomicsCG. The emulation
// pairs each half-group of a wave with at most one half-group of the other half, by its own lanes, and a group of
// known lanes meets by its mask: two groups of one half never share a counter.

// Both sides of a binary_partition of the wave make collectives at once, for different numbers of rounds: each side
// meets by its own mask. Exact values (HIP's: the sides are the wave's lanes with each predicate, ranked in lane order).
__host__ __device__ bool side_of(unsigned block, unsigned l) { return (l * 11u + block * 7u) % 5u < 2u; }
__global__ void k_partition_sides(u64* out) {
  unsigned l = lane();
  cg::coalesced_group g = cg::coalesced_threads();
  bool side = side_of(blockIdx.x, l);
  cg::coalesced_group p = cg::binary_partition(g, side);
  u64 acc = p.size();
  for (unsigned r = 0; r < (side ? 3u : 5u); ++r) {
    int v = (int)(l * 3u + r);
    int sum = cg::reduce(p, v, cg::plus<int>());
    int first = p.shfl(v, (int)r);
    u64 b = p.ballot((l + r) % 3u == 0u);
    acc = acc * 1000003ull + (u64)sum * 7919ull + (u64)first * 31ull + (u64)__popcll(b);
  }
  p.sync();
  out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}
static std::vector<u64> partition_sides_want(int threads, int blocks) {
  std::vector<u64> want((size_t)threads * blocks);
  for (int b = 0; b < blocks; ++b)
    for (int t = 0; t < threads; ++t) {
      unsigned l = t % 64;
      bool side = side_of(b, l);
      std::vector<unsigned> members;
      for (unsigned u = 0; u < 64; ++u)
        if (side_of(b, u) == side) members.push_back(u);
      u64 acc = members.size();
      for (unsigned r = 0; r < (side ? 3u : 5u); ++r) {
        u64 sum = 0, votes = 0;
        for (unsigned u : members) {
          sum += u * 3u + r;
          votes += (u + r) % 3u == 0u;
        }
        u64 first = members[r % members.size()] * 3u + r;
        acc = acc * 1000003ull + sum * 7919ull + first * 31ull + votes;
      }
      want[(size_t)b * threads + t] = acc;
    }
  return want;
}
static std::vector<u64> run_blocks(void (*k)(u64*), int threads, int blocks) {
  return run_grid(k, dim3(blocks), dim3(threads));
}

// What a check in the divergent mode got and what HIP gives.
struct Result {
  std::vector<u64> got, want;
};

// Warp-aggregated increments (warpAggregatedAtomicsCG's filter_arr) as HIP code: coalesced_threads() of the wave in
// a loop whose branch leaves other lanes active each round; by_half: the port's form (CUDA's 32-lane coalesced group:
// WARP009 splits the wave's by half). Whatever the grouping, every element gets one slot: the count and the set of
// slots filled are what HIP gives.
__device__ int agg_inc(int* counter, bool by_half) {
  cg::coalesced_group active = cg::coalesced_threads();
  if (by_half) active = cg::binary_partition(active, (lane() & 32u) != 0u);
  int res = 0;
  if (active.thread_rank() == 0) res = atomicAdd(counter, (int)active.size());
  res = active.shfl(res, 0);
  return res + (int)active.thread_rank();
}
__global__ void k_agg_filter(int* dst, int* nres, const int* src, int n, bool by_half) {
  for (int i = threadIdx.x + blockIdx.x * blockDim.x; i < n; i += gridDim.x * blockDim.x)
    if (src[i] > 0) {
      int k = agg_inc(nres, by_half);
      if (k >= 0 && k < n) dst[k] = i;
    }
}
static unsigned mix(unsigned x) {
  x ^= x >> 16;
  x *= 0x7feb352du;
  x ^= x >> 15;
  x *= 0x846ca68bu;
  return x ^ (x >> 16);
}
// The count, then the slots' elements in order; HIP: the positive elements, each once.
static Result agg_filter(bool by_half) {
  const int n = 1 << 21, blocks = 1024, threads = 256;
  std::vector<int> src(n), dst(n, -1);
  std::vector<u64> want(1, 0);
  for (int i = 0; i < n; ++i) {
    src[i] = (int)(mix((unsigned)i) % 7u) - 2;
    if (src[i] > 0) want.push_back((u64)i);
  }
  want[0] = want.size() - 1;
  int *d_src, *d_dst, *d_n, count = 0;
  hipMalloc((void**)&d_src, n * sizeof(int));
  hipMalloc((void**)&d_dst, n * sizeof(int));
  hipMalloc((void**)&d_n, sizeof(int));
  hipMemcpy(d_src, src.data(), n * sizeof(int), hipMemcpyHostToDevice);
  hipMemset(d_dst, 0xff, n * sizeof(int));
  hipMemset(d_n, 0, sizeof(int));
  hipLaunchKernelGGL(k_agg_filter, dim3(blocks), dim3(threads), 0, 0, d_dst, d_n, (const int*)d_src, n, by_half);
  hipError_t err = hipDeviceSynchronize();
  if (err != hipSuccess) {
    printf("FAIL launch: %s\n", hipGetErrorString(err));
    ++failures;
  }
  hipMemcpy(&count, d_n, sizeof(int), hipMemcpyDeviceToHost);
  hipMemcpy(dst.data(), d_dst, n * sizeof(int), hipMemcpyDeviceToHost);
  hipFree(d_src);
  hipFree(d_dst);
  hipFree(d_n);
  std::vector<u64> got(want.size(), ~0ull);
  got[0] = (u64)count;
  std::vector<u64> filled;
  for (int k = 0; k < count && k < n; ++k) filled.push_back((u64)(unsigned)dst[k]);
  std::sort(filled.begin(), filled.end());
  for (size_t k = 0; k < filled.size() && k + 1 < got.size(); ++k) got[k + 1] = filled[k];
  return {got, want};
}

// Per-bucket increments and maxima (warpAggregatedAtomicsCG's mapToBuckets and calculateMaxInEachBuckets): the
// port's labeled_partition (a binary_partition per label bit, vado's) of the wave's coalesced group or its half, a
// reduce over each label's group. The counts, maxima and each bucket's slots are what HIP gives whatever the grouping.
__global__ void k_agg_buckets(const int* bucket_of, const int* value, int* counters, int* maxima, int* slots, int n,
                              int buckets, bool by_half) {
  for (int i = threadIdx.x + blockIdx.x * blockDim.x; i < n; i += gridDim.x * blockDim.x) {
    const int b = bucket_of[i];
    if (b < buckets) {
      cg::coalesced_group active = cg::coalesced_threads();
      if (by_half) active = cg::binary_partition(active, (lane() & 32u) != 0u);
      cg::coalesced_group g = cg::labeled_partition(active, b);
      int res = 0;
      if (g.thread_rank() == 0) res = atomicAdd(&counters[b], (int)g.size());
      res = g.shfl(res, 0) + (int)g.thread_rank();
      if (res >= b * n && res < (b + 1) * n) slots[res] = i;
      const int m = cg::reduce(g, value[i], cg::greater<int>());
      if (g.thread_rank() == 0) atomicMax(&maxima[b], m);
    }
  }
}
static Result agg_buckets(bool by_half) {
  const int n = 1 << 20, buckets = 5, blocks = 512, threads = 512;
  std::vector<int> bucket_of(n), value(n), counters(buckets), maxima(buckets, 0), slots((size_t)n * buckets, -1);
  std::vector<std::vector<u64>> members(buckets);
  std::vector<u64> want;
  for (int i = 0; i < n; ++i) {
    bucket_of[i] = (int)(mix((unsigned)i * 3u + 1u) % 7u);  // 5 and 6: no bucket
    value[i] = (int)(mix((unsigned)i * 5u + 2u) & 0x7fffffffu);
    if (bucket_of[i] < buckets) {
      members[bucket_of[i]].push_back((u64)i);
      maxima[bucket_of[i]] = std::max(maxima[bucket_of[i]], value[i]);
    }
  }
  for (int b = 0; b < buckets; ++b) want.push_back(members[b].size() * 10000000000ull + (u64)maxima[b]);
  for (int b = 0; b < buckets; ++b) want.insert(want.end(), members[b].begin(), members[b].end());
  for (int b = 0; b < buckets; ++b) counters[b] = b * n;
  std::fill(maxima.begin(), maxima.end(), 0);
  int *d_bucket, *d_value, *d_counters, *d_maxima, *d_slots;
  hipMalloc((void**)&d_bucket, n * sizeof(int));
  hipMalloc((void**)&d_value, n * sizeof(int));
  hipMalloc((void**)&d_counters, buckets * sizeof(int));
  hipMalloc((void**)&d_maxima, buckets * sizeof(int));
  hipMalloc((void**)&d_slots, slots.size() * sizeof(int));
  hipMemcpy(d_bucket, bucket_of.data(), n * sizeof(int), hipMemcpyHostToDevice);
  hipMemcpy(d_value, value.data(), n * sizeof(int), hipMemcpyHostToDevice);
  hipMemcpy(d_counters, counters.data(), buckets * sizeof(int), hipMemcpyHostToDevice);
  hipMemcpy(d_maxima, maxima.data(), buckets * sizeof(int), hipMemcpyHostToDevice);
  hipMemset(d_slots, 0xff, slots.size() * sizeof(int));
  hipLaunchKernelGGL(k_agg_buckets, dim3(blocks), dim3(threads), 0, 0, (const int*)d_bucket, (const int*)d_value,
                     d_counters, d_maxima, d_slots, n, buckets, by_half);
  hipError_t err = hipDeviceSynchronize();
  if (err != hipSuccess) {
    printf("FAIL launch: %s\n", hipGetErrorString(err));
    ++failures;
  }
  hipMemcpy(counters.data(), d_counters, buckets * sizeof(int), hipMemcpyDeviceToHost);
  hipMemcpy(maxima.data(), d_maxima, buckets * sizeof(int), hipMemcpyDeviceToHost);
  hipMemcpy(slots.data(), d_slots, slots.size() * sizeof(int), hipMemcpyDeviceToHost);
  hipFree(d_bucket);
  hipFree(d_value);
  hipFree(d_counters);
  hipFree(d_maxima);
  hipFree(d_slots);
  std::vector<u64> got;
  for (int b = 0; b < buckets; ++b) got.push_back((u64)(counters[b] - b * n) * 10000000000ull + (u64)maxima[b]);
  for (int b = 0; b < buckets; ++b) {
    std::vector<u64> filled;
    for (int k = b * n; k < counters[b] && k < (b + 1) * n; ++k) filled.push_back((u64)(unsigned)slots[(size_t)k]);
    std::sort(filled.begin(), filled.end());
    filled.resize(members[b].size(), ~0ull);
    got.insert(got.end(), filled.begin(), filled.end());
  }
  return {got, want};
}

// One 32-lane half split into two groups by a branch while the other half is one group, every round, and both sides
// of a binary_partition of each group making collectives: each group checks itself (ballot, shuffle by rank, reduce,
// any/all over the sides) and hands out slots from its branch's counter. On AMD each branch's group is its lanes of
// the wave: the odd branch 16 lanes of the lower half, the other branch the 16 others and the whole upper half (48).
// The emulation pairs half-groups at the same call site only, so it forms the same groups; before, the lower half's
// two groups shared its one set of counters and paired with the upper half's calls out of step (a hang). Also
// checked: no group disagrees with itself, and each counter hands out 0..k-1 to its k lanes.
__device__ unsigned group_self_check(const cg::coalesced_group& g, int* counter, int* slot) {
  unsigned size = g.size(), rank = g.thread_rank(), bad = 0;
  if ((unsigned)__popcll(g.ballot(1)) != size) bad |= 1u;
  if ((unsigned)g.shfl((int)rank, (int)((rank + 1u) % size)) != (rank + 1u) % size) bad |= 2u;
  if ((unsigned)cg::reduce(g, 1, cg::plus<int>()) != size) bad |= 4u;
  int res = 0;
  if (rank == 0) res = atomicAdd(counter, (int)size);
  *slot = g.shfl(res, 0) + (int)rank;
  cg::coalesced_group p = cg::binary_partition(g, (rank & 1u) != 0u);
  if ((unsigned)cg::reduce(p, 1, cg::plus<int>()) != p.size()) bad |= 8u;
  if ((unsigned)p.shfl((int)rank, 0) != (rank & 1u)) bad |= 16u;
  if (p.any(1) != 1 || p.all((int)(rank & 1u)) != (int)(rank & 1u)) bad |= 32u;
  p.sync();
  g.sync();
  return bad;
}
__host__ __device__ bool split_branch(unsigned block, unsigned l, int round) {
  return l < 32u && ((l + (unsigned)round + block) & 1u);
}
__global__ void k_split_half(u64* out, int* counters, int rounds) {
  const unsigned l = lane(), t = blockIdx.x * blockDim.x + threadIdx.x;
  for (int r = 0; r < rounds; ++r) {
    const bool odd = split_branch(blockIdx.x, l, r);
    int* counter = &counters[(blockIdx.x * rounds + r) * 2 + (odd ? 1 : 0)];
    int slot = -1;
    unsigned bad, size;
    if (odd) {
      cg::coalesced_group g = cg::coalesced_threads();
      size = g.size();
      bad = group_self_check(g, counter, &slot);
    } else {
      cg::coalesced_group g = cg::coalesced_threads();
      size = g.size();
      bad = group_self_check(g, counter, &slot) << 8;
      if ((unsigned)__popcll(g.ballot(1)) != g.size()) bad |= 1u << 16;  // one more collective in this branch
    }
    out[(size_t)t * rounds + r] = (u64)bad << 32 | (u64)size << 16 | (unsigned)slot;
    if (r % 3 == 2) __syncthreads();
  }
}
static Result split_half() {
  const int threads = 128, blocks = 2048, rounds = 12;
  const size_t total = (size_t)threads * blocks * rounds;
  u64* d_out;
  int* d_counters;
  hipMalloc((void**)&d_out, total * sizeof(u64));
  hipMalloc((void**)&d_counters, (size_t)blocks * rounds * 2 * sizeof(int));
  hipMemset(d_out, 0xff, total * sizeof(u64));
  hipMemset(d_counters, 0, (size_t)blocks * rounds * 2 * sizeof(int));
  hipLaunchKernelGGL(k_split_half, dim3(blocks), dim3(threads), 0, 0, d_out, d_counters, rounds);
  hipError_t err = hipDeviceSynchronize();
  if (err != hipSuccess) {
    printf("FAIL launch: %s\n", hipGetErrorString(err));
    ++failures;
  }
  std::vector<u64> out(total);
  hipMemcpy(out.data(), d_out, total * sizeof(u64), hipMemcpyDeviceToHost);
  hipFree(d_out);
  hipFree(d_counters);
  // got: per block, round and branch, the slots its lanes got, in order (want: 0..k-1), then every lane's failed
  // checks (want: none)
  Result res;
  for (int b = 0; b < blocks; ++b)
    for (int r = 0; r < rounds; ++r)
      for (int branch = 0; branch < 2; ++branch) {
        std::vector<u64> slots;
        for (int t = 0; t < threads; ++t)
          if ((int)split_branch(b, t % 64, r) == branch) slots.push_back(out[((size_t)b * threads + t) * rounds + r] & 0xffffull);
        std::sort(slots.begin(), slots.end());
        for (size_t k = 0; k < slots.size(); ++k) res.want.push_back(k);
        res.got.insert(res.got.end(), slots.begin(), slots.end());
      }
  for (size_t i = 0; i < total; ++i) {  // the group sizes and failed checks (none)
    const size_t t = i / rounds;
    const bool odd = split_branch((unsigned)(t / threads), (unsigned)(t % 64), (int)(i % rounds));
    res.got.push_back(out[i] >> 16);
    res.want.push_back(odd ? 16 : 48);
  }
  return res;
}

// One half split into two groups by a branch while the other half waits at a barrier: each group is its 16 lanes
// alone, as on AMD (EXEC: one side of the branch, then the other). Exact values.
__global__ void k_split_half_barrier(u64* out) {
  unsigned l = lane();
  u64 v = 7;
  if (l < 32u) {
    if (l & 1u) {
      cg::coalesced_group g = cg::coalesced_threads();
      v = g.size() * 10000ull + g.thread_rank() * 100ull + (u64)g.shfl((int)l, 3) + ((u64)g.ballot(1) << 32);
    } else {
      cg::coalesced_group g = cg::coalesced_threads();
      v = g.size() * 10000ull + g.thread_rank() * 100ull + (u64)g.shfl((int)l, 5) +
          ((u64)__popcll(g.ballot(l % 4u == 0u)) << 40);
    }
  }
  __syncthreads();
  out[blockIdx.x * blockDim.x + threadIdx.x] = v;
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

int main(int argc, char** argv) {
  if (argc > 1 && !strcmp(argv[1], "divergent")) {
    Result r = agg_filter(false);
    check_divergent("warp-aggregated increments over coalesced_threads() in a divergent loop (filter_arr), 1024 blocks",
                    r.got, r.want);
    r = agg_filter(true);
    check_divergent("warp-aggregated increments over the port's 32-lane coalesced group (filter_arr), 1024 blocks",
                    r.got, r.want);
    r = agg_buckets(false);
    check_divergent("per-bucket increments and maxima over labeled partitions of the wave's coalesced group", r.got,
                    r.want);
    r = agg_buckets(true);
    check_divergent("per-bucket increments and maxima over labeled partitions of the port's 32-lane group "
                    "(mapToBuckets, calculateMaxInEachBuckets)", r.got, r.want);
    r = split_half();
    check_divergent("one half split in two groups by a branch, the other whole: AMD's groups (16, 48), each consistent, "
                    "slots 0..k-1", r.got, r.want);
    std::vector<u64> alone(128 * 256);
    for (size_t t = 0; t < alone.size(); ++t) {
      unsigned l = t % 64;
      alone[t] = l >= 32 ? 7
                 : l % 2 ? 16 * 10000ull + (l / 2) * 100ull + 7ull + (0xffffull << 32)
                         : 16 * 10000ull + (l / 2) * 100ull + 10ull + (8ull << 40);
    }
    check_divergent("one half split in two groups while the other waits at a barrier: each group its 16 lanes",
                    run_blocks(k_split_half_barrier, 128, 256), alone);
    printf("%d failures\n", failures);
    return failures ? 1 : 0;
  }
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

  expect("both sides of a binary_partition make collectives for different numbers of rounds, 64 blocks",
         run_blocks(k_partition_sides, 128, 64), partition_sides_want(128, 64));

  printf("%d failures\n", failures);
  return failures ? 1 : 0;
}
