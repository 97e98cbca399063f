// A CPU stand-in for an AMD wave64 GPU, under which HIP's own device headers run (ROCm 7.2.4's
// amd_warp_functions.h, hip_cooperative_groups_helper.h, amd_hip_cooperative_groups.h, read from the ROCm
// installation; test_cg_emulation.py builds it). Each thread of a block is a host thread; a wave is 64
// consecutive linear thread ids. The AMDGCN builtins HIP's headers call are defined here from the ISA's
// description: a cross-lane builtin is a meeting of the wave's lanes that have not left the kernel (EXEC =
// the lanes that meet, as at a convergent call site with the others returned), ds_bpermute reads lane
// (addr >> 2) & 63 of EXEC (0 for an inactive lane), ballot ORs the predicates of EXEC, mbcnt counts the
// mask's bits below the lane, and a fence is a meeting (lock step). What it cannot show: lanes that are active but at another call (divergent
// branches that both make cross-lane calls); the checks program has no such kernel.
#pragma once
#define __HIPCC_RTC__ 1  // HIP's headers leave out their own includes
#include <algorithm>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <thread>
#include <type_traits>
#include <vector>

#define __device__
#define __host__
#define __global__
#define __forceinline__ inline
#define __shared__ static
#define __CG_QUALIFIER__ inline
#define __CG_STATIC_QUALIFIER__ static inline

typedef std::uint32_t __hip_uint32_t;
typedef std::uint64_t __hip_uint64_t;
typedef std::int32_t __hip_int32_t;
namespace __hip_internal {
template <class T, T v>
using integral_constant = std::integral_constant<T, v>;
template <class T>
using is_integral = std::is_integral<T>;
template <class T>
using is_floating_point = std::is_floating_point<T>;
}  // namespace __hip_internal
using std::max;
using std::min;

struct dim3 {
  std::uint32_t x, y, z;
  constexpr dim3(std::uint32_t a = 1, std::uint32_t b = 1, std::uint32_t c = 1) : x(a), y(b), z(c) {}
};
inline thread_local dim3 threadIdx;
inline thread_local dim3 blockIdx;
inline dim3 blockDim;
inline dim3 gridDim;

namespace hip_wave64_sim {
// One meeting place per wave (and one for the block barrier): lanes deposit a 64-bit word, the last of the
// lanes still in the kernel to arrive closes the round, and every lane reads the round's words and EXEC.
struct Meeting {
  std::mutex m;
  std::condition_variable cv;
  int live = 0, arrived = 0;
  unsigned long long gen = 0, arrived_mask = 0, exec = 0;
  std::uint64_t in[64] = {}, out[64] = {};
  void close() {
    std::memcpy(out, in, sizeof in);
    exec = arrived_mask;
    arrived = 0;
    arrived_mask = 0;
    ++gen;
    cv.notify_all();
  }
};
inline std::vector<Meeting*> waves;
inline Meeting* block_meeting = nullptr;
inline thread_local unsigned lane_ = 0, wave_ = 0;

inline unsigned long long meet(Meeting& w, unsigned slot, std::uint64_t v, std::uint64_t* words) {
  std::unique_lock<std::mutex> lk(w.m);
  w.in[slot] = v;
  w.arrived_mask |= 1ull << slot;
  ++w.arrived;
  unsigned long long g = w.gen;
  if (w.arrived == w.live)
    w.close();
  else
    w.cv.wait(lk, [&] { return w.gen != g; });
  if (words) std::memcpy(words, w.out, sizeof w.out);
  return w.exec;
}
inline unsigned long long exchange(std::uint64_t v, std::uint64_t* words) { return meet(*waves[wave_], lane_, v, words); }
inline void leave(Meeting& w) {
  std::lock_guard<std::mutex> lk(w.m);
  --w.live;
  if (w.arrived > 0 && w.arrived == w.live) w.close();
}
[[noreturn]] inline void stop(const char* why) {
  std::printf("hip_wave64_sim: %s\n", why);
  std::fflush(stdout);
  std::abort();
}
}  // namespace hip_wave64_sim

// ---- the AMDGCN builtins and device-library functions HIP's headers call
inline unsigned sim_mbcnt_lo(unsigned mask, unsigned add) {
  unsigned l = hip_wave64_sim::lane_;
  return (l >= 32 ? __builtin_popcount(mask) : __builtin_popcount(mask & ((1u << l) - 1u))) + add;
}
inline unsigned sim_mbcnt_hi(unsigned mask, unsigned add) {
  unsigned l = hip_wave64_sim::lane_;
  return (l <= 32 ? 0 : __builtin_popcount(mask & ((1u << (l - 32)) - 1u))) + add;
}
inline int sim_bpermute(int addr, int v) {
  std::uint64_t words[64];
  unsigned long long exec = hip_wave64_sim::exchange((std::uint32_t)v, words);
  unsigned src = ((unsigned)addr >> 2) & 63u;
  return (exec >> src) & 1ull ? (int)(std::uint32_t)words[src] : 0;
}
inline unsigned long long sim_ballot(bool p) {
  std::uint64_t words[64];
  unsigned long long exec = hip_wave64_sim::exchange(p ? 1 : 0, words), b = 0;
  for (unsigned l = 0; l < 64; ++l)
    if ((exec >> l) & 1ull && words[l]) b |= 1ull << l;
  return b;
}
inline unsigned long long sim_exec() { return hip_wave64_sim::exchange(0, nullptr); }
inline int sim_readfirstlane(int v) {
  std::uint64_t words[64];
  unsigned long long exec = hip_wave64_sim::exchange((std::uint32_t)v, words);
  return (int)(std::uint32_t)words[__builtin_ctzll(exec)];
}
#define __builtin_amdgcn_mbcnt_lo(m, a) sim_mbcnt_lo((unsigned)(m), (unsigned)(a))
#define __builtin_amdgcn_mbcnt_hi(m, a) sim_mbcnt_hi((unsigned)(m), (unsigned)(a))
#define __builtin_amdgcn_ds_bpermute(a, v) sim_bpermute((a), (v))
#define __builtin_amdgcn_ds_permute(a, v) (hip_wave64_sim::stop("ds_permute is not simulated"), 0)
#define __builtin_amdgcn_ds_swizzle(v, p) (hip_wave64_sim::stop("ds_swizzle is not simulated"), 0)
#define __builtin_amdgcn_mov_dpp(...) (hip_wave64_sim::stop("mov_dpp is not simulated"), 0)
#define __builtin_amdgcn_ballot_w64(p) sim_ballot(p)
#define __builtin_amdgcn_read_exec() sim_exec()
#define __builtin_amdgcn_readfirstlane(v) sim_readfirstlane((int)(v))
#define __builtin_amdgcn_wavefrontsize() 64
// A wave runs in lock step: its lanes' stores before a fence are seen by its lanes' loads after it (a tile's
// sync() is such a fence in HIP). Here the lanes meet there.
#define __builtin_amdgcn_fence(...) ((void)sim_exec())
#define __builtin_amdgcn_wave_barrier() ((void)0)
inline int __ockl_wfany_i32(int p) { return sim_ballot(p != 0) != 0ull; }
inline int __ockl_wfall_i32(int p) { return sim_ballot(p != 0) == sim_exec(); }
inline unsigned __ockl_activelane_u32() { return sim_mbcnt_hi((unsigned)(sim_exec() >> 32), sim_mbcnt_lo((unsigned)sim_exec(), 0)); }
inline int __ockl_grid_is_valid() { return 1; }
inline void __ockl_grid_sync() { hip_wave64_sim::stop("grid sync is not simulated"); }
inline unsigned __ockl_multi_grid_num_grids() { return 1; }
inline unsigned __ockl_multi_grid_grid_rank() { return 0; }
inline unsigned __ockl_multi_grid_size() { return 0; }
inline unsigned __ockl_multi_grid_thread_rank() { return 0; }
inline int __ockl_multi_grid_is_valid() { return 0; }
inline void __ockl_multi_grid_sync() { hip_wave64_sim::stop("multi-grid sync is not simulated"); }
#define __hip_assert(c) ((c) ? (void)0 : hip_wave64_sim::stop("__hip_assert failed (HIP traps)"))
inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
inline void __syncthreads() { hip_wave64_sim::meet(*hip_wave64_sim::block_meeting, hip_wave64_sim::lane_, 0, nullptr); }
#if !defined(__clang__)
inline unsigned long long sim_bitreverse64(unsigned long long x) {
  unsigned long long r = 0;
  for (int i = 0; i < 64; ++i) r |= ((x >> i) & 1ull) << (63 - i);
  return r;
}
#define __builtin_bitreverse64(x) sim_bitreverse64(x)
inline unsigned sim_bitreverse32(unsigned x) { return (unsigned)(sim_bitreverse64(x) >> 32); }
#define __builtin_bitreverse32(x) sim_bitreverse32(x)
#endif

// HIP's own warp functions: __lane_id, __shfl*, __ballot, __any, __all, __activemask, warpSize.
#include HIP_SIM_WARP_FUNCTIONS
// HIP's __fns64, cut from amd_device_functions.h by the test.
#include HIP_SIM_FNS64

// ---- HIP's *_sync functions (amd_warp_sync_functions.h) with their results. __hip_check_mask's loop over the
// masks (a divergent readfirstlane this stand-in cannot run) is checked for what it asserts: the lanes that make
// the call with the same mask are exactly that mask (lanes may call at once with different masks, as the two
// sides of a binary_partition do); a violation stops the program, as ROCm's assert traps.
inline void sim_check_mask(unsigned long long mask) {
  std::uint64_t masks[64];
  unsigned long long exec = hip_wave64_sim::exchange((std::uint64_t)mask, masks), same = 0;
  for (unsigned l = 0; l < 64; ++l)
    if ((exec >> l) & 1ull && masks[l] == (std::uint64_t)mask) same |= 1ull << l;
  if (mask == 0 || same != mask)
    hip_wave64_sim::stop("__hip_check_mask: the lanes calling with this mask are not exactly the mask (ROCm traps)");
}
template <typename MaskT>
inline unsigned long long __ballot_sync(MaskT mask, int predicate) {
  static_assert(std::is_integral<MaskT>::value && sizeof(MaskT) == 8, "The mask must be a 64-bit integer.");
  sim_check_mask((unsigned long long)mask);
  return __ballot(predicate) & mask;
}
template <typename MaskT>
inline int __all_sync(MaskT mask, int predicate) { return __ballot_sync(mask, predicate) == mask; }
template <typename MaskT>
inline int __any_sync(MaskT mask, int predicate) { return __ballot_sync(mask, predicate) != 0; }
template <typename T>
inline T sim_value(std::uint64_t w) {
  T v;
  std::memcpy(&v, &w, sizeof(T));
  return v;
}
template <typename T>
inline std::uint64_t sim_word(T v) {
  std::uint64_t w = 0;
  std::memcpy(&w, &v, sizeof(T));
  return w;
}
// __match_any: the active lanes whose value == the caller's (typed ==; a NaN never finishes HIP's loop).
template <typename MaskT, typename T>
inline unsigned long long __match_any_sync(MaskT mask, T value) {
  static_assert((std::is_integral<T>::value || std::is_floating_point<T>::value) && (sizeof(T) == 4 || sizeof(T) == 8),
                "T can be int, unsigned int, long, unsigned long, long long, unsigned long long, float or double.");
  sim_check_mask((unsigned long long)mask);
  std::uint64_t words[64];
  unsigned long long exec = hip_wave64_sim::exchange(sim_word(value), words), same = 0;
  if (value != value) hip_wave64_sim::stop("__match_any of a NaN: HIP's loop never ends");
  for (unsigned l = 0; l < 64; ++l)
    if ((exec >> l) & 1ull && sim_value<T>(words[l]) == value) same |= 1ull << l;
  return same & mask;
}
// __hip_do_sync(__match_all): the lanes calling with the same mask; all(first == value) over them.
template <typename MaskT, typename T>
inline unsigned long long __match_all_sync(MaskT mask, T value, int* pred) {
  static_assert((std::is_integral<T>::value || std::is_floating_point<T>::value) && (sizeof(T) == 4 || sizeof(T) == 8),
                "T can be int, unsigned int, long, unsigned long, long long, unsigned long long, float or double.");
  std::uint64_t masks[64], words[64];
  unsigned long long exec = hip_wave64_sim::exchange((std::uint64_t)mask, masks);
  hip_wave64_sim::exchange(sim_word(value), words);
  unsigned long long group = 0;
  for (unsigned l = 0; l < 64; ++l)
    if ((exec >> l) & 1ull && masks[l] == (std::uint64_t)mask) group |= 1ull << l;
  T first = sim_value<T>(words[__builtin_ctzll(group)]);
  bool all = true;
  for (unsigned l = 0; l < 64; ++l)
    if ((group >> l) & 1ull && !(first == sim_value<T>(words[l]))) all = false;
  *pred = all;
  return all ? group : 0ull;
}

// ---- the host API the checks program uses
typedef int hipError_t;
enum { hipSuccess = 0 };
enum hipMemcpyKind { hipMemcpyHostToDevice = 1, hipMemcpyDeviceToHost = 2 };
inline hipError_t hipMalloc(void** p, std::size_t n) { return (*p = std::malloc(n)) ? hipSuccess : 2; }
inline hipError_t hipMemset(void* p, int v, std::size_t n) { std::memset(p, v, n); return hipSuccess; }
inline hipError_t hipMemcpy(void* d, const void* s, std::size_t n, hipMemcpyKind) { std::memcpy(d, s, n); return hipSuccess; }
inline hipError_t hipFree(void* p) { std::free(p); return hipSuccess; }
inline hipError_t hipDeviceSynchronize() { return hipSuccess; }
inline const char* hipGetErrorString(hipError_t) { return "error"; }
// One block at a time, one host thread per GPU thread.
template <class... P, class... A>
inline void hipLaunchKernelGGL(void (*kernel)(P...), dim3 grid, dim3 block, unsigned, void*, A... args) {
  unsigned n = block.x * block.y * block.z;
  for (unsigned b = 0; b < grid.x * grid.y * grid.z; ++b) {
    blockDim = block;
    gridDim = grid;
    std::vector<hip_wave64_sim::Meeting*> waves;
    for (unsigned w = 0; w < (n + 63) / 64; ++w) {
      waves.push_back(new hip_wave64_sim::Meeting);
      waves.back()->live = (int)std::min(64u, n - w * 64);
    }
    hip_wave64_sim::Meeting block_meeting;
    block_meeting.live = (int)n;
    hip_wave64_sim::waves = waves;
    hip_wave64_sim::block_meeting = &block_meeting;
    std::vector<std::thread> threads;
    for (unsigned t = 0; t < n; ++t) {
      threads.emplace_back([=] {
        threadIdx = dim3(t % block.x, (t / block.x) % block.y, t / (block.x * block.y));
        blockIdx = dim3(b % grid.x, (b / grid.x) % grid.y, b / (grid.x * grid.y));
        hip_wave64_sim::lane_ = t % 64;
        hip_wave64_sim::wave_ = t / 64;
        kernel(args...);
        hip_wave64_sim::leave(*hip_wave64_sim::waves[t / 64]);
        hip_wave64_sim::leave(*hip_wave64_sim::block_meeting);
      });
    }
    for (auto& th : threads) th.join();
    for (auto* w : waves) delete w;
  }
}
