// vado HIP-on-CUDA, device layer "wave64": AMD wave64 cross-lane semantics emulated on an NVIDIA GPU.
//
// Included by the generated hip/hip_runtime.h after <cuda_runtime.h> (vado verify --wave 64).
//
// A wave is 64 consecutive linear thread ids of a block (x fastest), as on AMD CDNA: CUDA warps 2w and
// 2w+1 of the block. warpSize is 64 and every HIP cross-lane function acts on the 64 lanes:
//   __lane_id() 0..63; __ballot/__activemask/__ballot_sync 64-bit; __any/__all over the wave;
//   __shfl/__shfl_up/__shfl_down/__shfl_xor (and the _sync forms) with HIP's index formulas
//   (amd_warp_functions.h), default width 64; reading an inactive or absent lane gives 0, as
//   ds_bpermute does; __match_*_sync, __reduce_*_sync; the _sync forms take 64-bit masks only
//   (ROCm 7's static_assert) and trap on a mask that does not name the lanes executing the call
//   (ROCm's __hip_check_mask, unless NDEBUG).
//
// How: a call whose lanes all lie in the caller's 32-lane half (a shuffle of width <= 32, a _sync
// call whose mask names only lanes of that half) runs on the caller's CUDA warp alone, so it may sit
// in divergent code. A call over the whole wave exchanges 32-bit words through shared memory between
// the two warps: each half's first active lane counts the wave-wide calls its half makes and waits
// until the other half has reached the same call, has lanes waiting at a __syncthreads(), or has left
// the kernel (on AMD it skipped the call: its lanes are inactive there, as in
// `if (warp == 0) reduce(); __syncthreads();` or `if (warp == 1) return;`). The barrier macros count the
// lanes waiting and add a second barrier so that no count is stale; lanes that leave are counted by
// VADO_W64_EXIT_GUARD, an object whose destructor runs at every return, which vado puts at the top of each
// kernel of the port it builds (vado.verify.hip_on_cuda.mark_kernel_exits). Counters carry a tag of the
// grid (%gridid) and block, so shared memory left by an earlier block reads as zero. Limits, each reported:
//   - a half that neither reaches the call, nor waits at a __syncthreads(), nor leaves the kernel (it
//     spins on a flag, or waits at a cooperative-groups barrier) makes the run time out: vado reports the
//     differential as inconclusive (a divergent wave-wide cross-lane call);
//   - the two halves at different wave-wide calls at once (an if/else with a ballot in each branch,
//     split between the halves) exchange with each other, where AMD would run the branches one after
//     the other;
//   - a wave whose second warp does not exist (the last wave of a block whose size is not a
//     multiple of 64, up to 32 threads) is emulated without waiting: its lanes 32..63 are absent
//     (inactive on AMD): ballot bits 0, shuffles from them 0.
//   - about 5 KiB of static shared memory per block for kernels that make wave-wide calls, 4 KiB more for
//     kernels whose _sync calls or cooperative groups name lanes of both halves but not the whole wave.
#pragma once
#include <cuda_runtime.h>
#include <stdio.h>
#include <type_traits>
#include <utility>

#define VADO_WAVE_SIZE 64

namespace vado_w64 {

static __shared__ unsigned int xch[16][64];  // one 32-bit word per lane of each wave
static __shared__ unsigned int act[16][2];   // the active lanes of each half at the current wave-wide call
// tag << 32 | count, per wave and half: wave-wide calls entered, wave-wide calls read.
static __shared__ unsigned long long entered[16][2];
static __shared__ unsigned long long finished[16][2];
// tag << 32 | lanes of the half waiting at a block barrier (__syncthreads and its _count/_and/_or forms).
static __shared__ unsigned long long waiting[16][2];
// tag << 32 | lanes of the half that have left the kernel (VADO_W64_EXIT_GUARD).
static __shared__ unsigned long long exited[16][2];
static __shared__ unsigned int partner_on[16][2];  // whether the other half took part in the half's current call
// Meetings keyed by a call's mask (see keyed()): per wave and lowest lane of the mask (always in the first half),
// tag << 32 | arrivals << 16 | departures, both halves counted (16-bit, compared modulo 2^16).
static __shared__ unsigned long long kmeet[16][32];

__device__ __forceinline__ unsigned int tid() {
  return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}
__device__ __forceinline__ unsigned int nthreads() { return blockDim.x * blockDim.y * blockDim.z; }
__device__ __forceinline__ unsigned int lane() { return tid() & 63u; }
__device__ __forceinline__ unsigned int wave() { return tid() >> 6; }
__device__ __forceinline__ unsigned int half() { return tid() & 32u; }
// Whether the caller's wave has its second CUDA warp (threads 64w+32 .. exist).
__device__ __forceinline__ bool paired() { return (tid() & ~63u) + 32u < nthreads(); }
__device__ __forceinline__ unsigned int warp_lane() { return tid() & 31u; }

static __device__ __noinline__ void fail(const char* what) {
  printf("vado wave64 emulation: %s (block %u,%u,%u thread %u of %u)\n", what, blockIdx.x, blockIdx.y, blockIdx.z,
         tid(), nthreads());
  __trap();
}

// A tag for this block of this grid (never 0): counters written by an earlier block in the same shared
// memory carry another tag and read as 0.
__device__ __forceinline__ unsigned int tag() {
  unsigned long long g;
  asm volatile("mov.u64 %0, %%gridid;" : "=l"(g));
  unsigned long long b = blockIdx.x + (unsigned long long)gridDim.x * (blockIdx.y + (unsigned long long)gridDim.y * blockIdx.z);
  unsigned long long h = (g + 1ull) * 0x9E3779B97F4A7C15ull ^ (b + 1ull) * 0xC2B2AE3D27D4EB4Full;
  return (unsigned int)(h >> 32) | 1u;
}
__device__ __forceinline__ unsigned int count(unsigned long long* c, unsigned int t) {
  unsigned long long v = *(volatile unsigned long long*)c;
  return (unsigned int)(v >> 32) == t ? (unsigned int)v : 0u;
}
__device__ __forceinline__ void set(unsigned long long* c, unsigned int t, unsigned int n) {
  *(volatile unsigned long long*)c = ((unsigned long long)t << 32) | n;
}
__device__ __forceinline__ bool leader(unsigned int am) { return warp_lane() == (unsigned int)(__ffs(am) - 1); }

__device__ __forceinline__ unsigned int waiting_lanes(unsigned int w, unsigned int h) {
  return count(&waiting[w][h], tag());
}

// The block barrier, as the __syncthreads() macros run it: each lane counts itself in its half's
// `waiting` before the barrier and out after it, and a second barrier keeps any lane from reaching a
// wave-wide call before every count is back to 0. A half with lanes waiting there while the other
// half makes a wave-wide call skipped that call (on AMD, its lanes are inactive at it).
// Adds one to a tagged counter: the first lane of this block replaces what an earlier block left there.
__device__ __forceinline__ void count_in(unsigned long long* c) {
  unsigned long long t = tag();
  unsigned long long old = *(volatile unsigned long long*)c, assumed;
  do {
    assumed = old;
    unsigned long long next = (assumed >> 32) == t ? assumed + 1ull : (t << 32) | 1ull;
    old = atomicCAS(c, assumed, next);
  } while (old != assumed);
  __threadfence_block();
}
__device__ __forceinline__ void enter_barrier() {
  if (!paired()) return;
  count_in(&waiting[wave()][half() >> 5]);
}

// The lanes of half `h` of wave `w` that exist (a block whose size is not a multiple of 64 has fewer).
__device__ __forceinline__ unsigned int half_lanes(unsigned int w, unsigned int h) {
  unsigned int first = w * 64u + h * 32u, n = nthreads();
  return n <= first ? 0u : (n - first < 32u ? n - first : 32u);
}
// A lane leaving the kernel (the destructor of VADO_W64_EXIT_GUARD, at every return): once every lane of a
// half has left, the other half's wave-wide calls go on without it, as they do on AMD.
struct exit_guard {
  __device__ __forceinline__ ~exit_guard() {
    if (paired()) count_in(&exited[wave()][half() >> 5]);
  }
};
__device__ __forceinline__ void leave_barrier() {
  if (!paired()) return;
  atomicAdd(&waiting[wave()][half() >> 5], ~0ull);  // minus one: the count is at least 1, the tag stays
}

// A wave-wide call: publish() writes the caller's 32-bit word and returns the wave's active lanes
// (AMD's EXEC; lanes of a half that skips the call or of an absent second warp are inactive), read()
// takes lane `src`'s word (0 when that lane is inactive), done() ends the exchange before the words may
// be written again.
__device__ __forceinline__ unsigned long long publish(unsigned int v) {
  unsigned int am = __activemask();
  unsigned int w = wave();
  xch[w][lane()] = v;
  __syncwarp(am);
  if (!paired()) return (unsigned long long)am;
  unsigned int h = half() >> 5, p = h ^ 1u;
  if (leader(am)) {
    unsigned int t = tag();
    unsigned int s = count(&entered[w][h], t) + 1u;
    act[w][h] = am;
    __threadfence_block();
    set(&entered[w][h], t, s);
    unsigned int on = 1u;
    for (;;) {
      if (count(&entered[w][p], t) >= s) break;
      if (waiting_lanes(w, p) > 0u || count(&exited[w][p], t) >= half_lanes(w, p)) {
        // The other half waits at a __syncthreads() this half has not reached, or has left the kernel: it
        // skipped this call (and cannot leave the barrier before this half gets there, so its counters are
        // ours to move).
        on = 0u;
        act[w][p] = 0u;
        set(&entered[w][p], t, s);
        set(&finished[w][p], t, s);
        break;
      }
    }
    partner_on[w][h] = on;
    __threadfence_block();
  }
  __syncwarp(am);
  return (unsigned long long)act[w][0] | ((unsigned long long)act[w][1] << 32);
}
__device__ __forceinline__ unsigned int read(unsigned int src, unsigned long long exec) {
  src &= 63u;
  if (!((exec >> src) & 1ull)) return 0u;
  return ((volatile unsigned int*)xch[wave()])[src];
}
__device__ __forceinline__ void done() {
  unsigned int am = __activemask();
  __syncwarp(am);
  if (!paired()) return;
  unsigned int w = wave(), h = half() >> 5, p = h ^ 1u;
  if (leader(am)) {
    unsigned int t = tag();
    unsigned int s = count(&entered[w][h], t);
    __threadfence_block();
    set(&finished[w][h], t, s);
    if (partner_on[w][h])
      while (count(&finished[w][p], t) < s) {
      }
    __threadfence_block();
  }
  __syncwarp(am);
}

// A call whose mask names lanes of both halves but not the whole wave (a cooperative group's partition, a
// coalesced group) meets by its mask rather than by whoever is active: the lanes of one half may call at once
// with different masks (the two sides of a binary_partition, every label of a labeled_partition), and CUDA may
// run the lanes of one mask as separate groups where AMD's wave runs them together. Each mask's lanes of a half
// first meet (__syncwarp of them), then the two halves meet at the counter of the mask's lowest lane: masks of
// calls made at once are disjoint (ROCm's __hip_check_mask), so their lowest lanes differ. A named lane that
// never calls leaves the others waiting (a time-out, where ROCm traps).
__device__ __forceinline__ bool keyed(unsigned long long m) {
  return m != ~0ull && (unsigned int)m != 0u && (m >> 32) != 0ull && ((m >> lane()) & 1ull) && paired();
}
__device__ __forceinline__ unsigned int kfield(unsigned long long v, unsigned int t, int shift) {
  return (unsigned int)(v >> 32) == t ? (unsigned int)(v >> shift) & 0xffffu : 0u;
}
// Adds one to a field of a meeting's counter (16: arrivals, 0: departures); the new value of that field.
__device__ __forceinline__ unsigned int kbump(unsigned long long* c, int shift) {
  unsigned int t = tag();
  unsigned long long old = *(volatile unsigned long long*)c, assumed;
  unsigned int field;
  do {
    assumed = old;
    unsigned int a = kfield(assumed, t, 16), d = kfield(assumed, t, 0);
    if (shift == 16) a = (a + 1u) & 0xffffu; else d = (d + 1u) & 0xffffu;
    field = shift == 16 ? a : d;
    old = atomicCAS(c, assumed, ((unsigned long long)t << 32) | ((unsigned long long)a << 16) | d);
  } while (old != assumed);
  __threadfence_block();
  return field;
}
// Each half bumps a field once per call: the caller's bump made it 2s - 1 or 2s; both halves are there at 2s.
__device__ __forceinline__ void kmeet_both(unsigned long long* c, int shift) {
  unsigned int target = (kbump(c, shift) + 1u) & 0xfffeu, t = tag();
  while ((short)((kfield(*(volatile unsigned long long*)c, t, shift) - target) & 0xffffu) < 0) {
  }
  __threadfence_block();
}
__device__ __forceinline__ unsigned long long publish(unsigned int v, unsigned long long group) {
  if (!keyed(group)) return publish(v);
  unsigned int w = wave(), mine = (unsigned int)(group >> half());
  xch[w][lane()] = v;
  __syncwarp(mine);
  if (warp_lane() == (unsigned int)(__ffs(mine) - 1)) kmeet_both(&kmeet[w][__ffsll((long long)group) - 1], 16);
  __syncwarp(mine);
  return group;
}
__device__ __forceinline__ void done(unsigned long long group) {
  if (!keyed(group)) return done();
  unsigned int mine = (unsigned int)(group >> half());
  __syncwarp(mine);
  if (warp_lane() == (unsigned int)(__ffs(mine) - 1)) kmeet_both(&kmeet[wave()][__ffsll((long long)group) - 1], 0);
  __syncwarp(mine);
}

// Lane `src` (0..63) of the caller's own half, natively; 0 when that lane is inactive.
__device__ __forceinline__ unsigned int own32(unsigned int v, unsigned int src) {
  unsigned int am = __activemask();
  unsigned int r = __shfl_sync(am, v, src & 31u);
  return ((am >> (src & 31u)) & 1u) ? r : 0u;
}

template <class T>
struct Words {
  static_assert(sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8,
                "vado wave64: cross-lane values are 1, 2, 4 or 8 bytes");
  unsigned int w[2];
  __device__ __forceinline__ explicit Words(const T& v) {
    w[0] = w[1] = 0u;
    memcpy(w, &v, sizeof(T));
  }
  __device__ __forceinline__ T value() const {
    T v;
    memcpy(&v, w, sizeof(T));
    return v;
  }
};

// The value of lane `index` (HIP's bpermute index; taken mod 64) of the wave; `local` when every lane's
// index lies in its own half (then no barrier is needed).
// `group`: the lanes of the call when its mask is known (a _sync form, a cooperative group; see keyed()).
template <class T>
__device__ __forceinline__ T permute(T var, int index, bool local, unsigned long long group = 0ull) {
  Words<T> in(var), out(var);
  unsigned int src = (unsigned int)index & 63u;
  if (local) {  // every lane reads a lane of its own half
    if (keyed(group)) __syncwarp((unsigned int)(group >> half()));
    out.w[0] = own32(in.w[0], src);
    if (sizeof(T) > 4) out.w[1] = own32(in.w[1], src);
    return out.value();
  }
  unsigned long long exec = publish(in.w[0], group);
  out.w[0] = read(src, exec);
  done(group);
  if (sizeof(T) > 4) {
    exec = publish(in.w[1], group);
    out.w[1] = read(src, exec);
    done(group);
  }
  return out.value();
}

// ---------------------------------------------------------------------------------------------
// mask-less HIP functions

__device__ __forceinline__ unsigned int lane_id() { return lane(); }

__device__ __forceinline__ unsigned long long ballot(int pred) {
  unsigned int mine = __ballot_sync(__activemask(), pred);
  if (!paired()) return (unsigned long long)mine;
  // Every lane publishes its warp's ballot; the first active lane of each half is read.
  unsigned long long exec = publish(mine);
  unsigned int a0 = (unsigned int)exec, a1 = (unsigned int)(exec >> 32);
  unsigned int lo = a0 ? read(__ffs(a0) - 1, exec) : 0u;
  unsigned int hi = a1 ? read(32 + __ffs(a1) - 1, exec) : 0u;
  done();
  return (unsigned long long)lo | ((unsigned long long)hi << 32);
}
__device__ __forceinline__ unsigned long long activemask() {
  unsigned int am = __activemask();
  if (!paired()) return (unsigned long long)am;
  unsigned long long exec = publish(0u);
  done();
  return exec;
}
__device__ __forceinline__ int any(int pred) { return ballot(pred) != 0ull; }
__device__ __forceinline__ int all(int pred) {
  // AMD: __ockl_wfall_i32, all active lanes.
  unsigned int mine = __ballot_sync(__activemask(), pred);
  if (!paired()) return mine == __activemask();
  unsigned long long exec = publish(mine);
  unsigned int a0 = (unsigned int)exec, a1 = (unsigned int)(exec >> 32);
  unsigned int lo = a0 ? read(__ffs(a0) - 1, exec) : 0u;
  unsigned int hi = a1 ? read(32 + __ffs(a1) - 1, exec) : 0u;
  done();
  return lo == a0 && hi == a1;
}

// HIP's index formulas (amd_warp_functions.h); `local` when the width keeps every lane in its half.
template <class T>
__device__ __forceinline__ T shfl(T var, int src_lane, int width = 64, unsigned long long group = 0ull) {
  int self = (int)lane();
  int index = (src_lane & (width - 1)) + (self & ~(width - 1));
  return permute(var, index, width <= 32, group);
}
template <class T>
__device__ __forceinline__ T shfl_up(T var, unsigned int delta, int width = 64, unsigned long long group = 0ull) {
  int self = (int)lane();
  int index = self - (int)delta;
  index = (index < (self & ~(width - 1))) ? self : index;
  return permute(var, index, width <= 32, group);
}
template <class T>
__device__ __forceinline__ T shfl_down(T var, unsigned int delta, int width = 64, unsigned long long group = 0ull) {
  int self = (int)lane();
  int index = self + (int)delta;
  index = (int)((self & (width - 1)) + delta) >= width ? self : index;
  return permute(var, index, width <= 32, group);
}
// HIP bounds the xor index above only (index >= the end of the caller's segment reads the caller's own lane):
// with a mask that has bit 5 set (32..63), a lane of the upper half reads a lane of the lower half (lane 40,
// width 8 or 32, mask 32 reads lane 8), and a negative mask reads lane index & 63. Such a mask goes over the
// wave even for a width <= 32.
__device__ __forceinline__ bool xor_stays_in_half(int lane_mask, int width) {
  return width <= 32 && lane_mask >= 0 && ((lane_mask & 32) == 0 || lane_mask >= 64);
}
template <class T>
__device__ __forceinline__ T shfl_xor(T var, int lane_mask, int width = 64, unsigned long long group = 0ull) {
  int self = (int)lane();
  int index = self ^ lane_mask;
  index = index >= ((self + width) & ~(width - 1)) ? self : index;
  return permute(var, index, xor_stays_in_half(lane_mask, width), group);
}

// ---------------------------------------------------------------------------------------------
// _sync forms: 64-bit masks (ROCm 7 rejects smaller ones at compile time)

#define VADO_W64_MASK_CHECK(MaskT)                                                                 \
  static_assert(sizeof(MaskT) == 8,                                                                \
                "The mask must be a 64-bit integer. "                                              \
                "Implicitly promoting a smaller integer is almost always an error (ROCm 7, emulated by vado)")

// Whether `mask` names lanes of the caller's half only (then the call runs on the caller's warp).
__device__ __forceinline__ bool own_half(unsigned long long mask) {
  return half() ? (unsigned int)mask == 0u : (mask >> 32) == 0ull;
}

template <class T>
__device__ __forceinline__ unsigned long long match_any(unsigned long long mask, T value);

// ROCm's __hip_check_mask: every lane that executes the call with a mask is named in it and the lanes
// executing it with the same mask are exactly the mask (lanes may call it at once with different masks:
// the two sides of a cooperative-groups binary_partition).
//
// A mask of the caller's half only: first the lanes it names meet (__syncwarp of them). CUDA's independent
// thread scheduling may run the lanes of one call as more than one group (after a branch they need not
// reconverge), where AMD's wave runs them together; the call is then CUDA's own warp operation over
// __activemask(), which would miss the later group (a false trap, or a ballot missing lanes). A correct HIP
// program has every named lane make the call with the same mask; lanes with other masks meet in their own
// groups. A named lane that never calls leaves the others waiting (a time-out, where ROCm traps).
// A mask over both halves but not the whole wave meets by its mask (keyed(), publish(v, group)): before that
// meeting, cuda-samples warpAggregatedAtomicsCG's labeled_partition (a loop of binary_partition calls, lanes of
// one half calling at once with different masks) trapped in a few of 19531 blocks on an H200, when CUDA ran the
// lanes of one mask as separate groups and a half-wide meeting saw part of a mask. The whole wave's mask is left
// to publish(), which takes the lanes of each half that arrive together.
__device__ __forceinline__ void converge(unsigned long long mask) {
  if (!own_half(mask)) return;
  unsigned int mine = (unsigned int)(mask >> half());
  if ((mine >> warp_lane()) & 1u) __syncwarp(mine);
}
__device__ __forceinline__ void check_mask(unsigned long long mask) {
  converge(mask);
#ifndef NDEBUG
  if (mask == 0ull) fail("__*_sync called with a zero mask");
  if (!((mask >> lane()) & 1ull))
    fail("the mask of a __*_sync call does not name the calling lane (ROCm traps here)");
  if (own_half(mask)) {
    unsigned int am = __activemask();
    unsigned int peers = __match_any_sync(am, mask);
    if ((unsigned int)(mask >> half()) != peers)
      fail("the mask of a __*_sync call does not name exactly the lanes executing it (ROCm traps here)");
  } else {
    // A keyed meeting has exactly the mask's lanes: they must all name that mask.
    if (match_any(keyed(mask) ? mask : ~0ull, mask) != mask)
      fail("the mask of a __*_sync call does not name exactly the lanes executing it (ROCm traps here)");
  }
#endif
}

template <class MaskT>
__device__ __forceinline__ unsigned long long ballot_sync(MaskT mask, int pred) {
  VADO_W64_MASK_CHECK(MaskT);
  unsigned long long m = (unsigned long long)mask;
  check_mask(m);
  if (own_half(m)) return ((unsigned long long)__ballot_sync(__activemask(), pred) << half()) & m;
  if (!keyed(m)) return ballot(pred) & m;
  unsigned int mine = (unsigned int)(m >> half()), lo_lanes = (unsigned int)m, hi_lanes = (unsigned int)(m >> 32);
  unsigned long long exec = publish(__ballot_sync(mine, pred), m);
  unsigned int lo = read(__ffs(lo_lanes) - 1, exec), hi = read(32 + __ffs(hi_lanes) - 1, exec);
  done(m);
  return ((unsigned long long)lo | ((unsigned long long)hi << 32)) & m;
}
template <class MaskT>
__device__ __forceinline__ int any_sync(MaskT mask, int pred) {
  VADO_W64_MASK_CHECK(MaskT);
  return ballot_sync((unsigned long long)mask, pred) != 0ull;
}
template <class MaskT>
__device__ __forceinline__ int all_sync(MaskT mask, int pred) {
  VADO_W64_MASK_CHECK(MaskT);
  return ballot_sync((unsigned long long)mask, pred) == (unsigned long long)mask;
}
template <class MaskT, class T>
__device__ __forceinline__ T shfl_sync(MaskT mask, T var, int src_lane, int width = 64) {
  VADO_W64_MASK_CHECK(MaskT);
  check_mask((unsigned long long)mask);
  return shfl(var, src_lane, width, (unsigned long long)mask);
}
template <class MaskT, class T>
__device__ __forceinline__ T shfl_up_sync(MaskT mask, T var, unsigned int delta, int width = 64) {
  VADO_W64_MASK_CHECK(MaskT);
  check_mask((unsigned long long)mask);
  return shfl_up(var, delta, width, (unsigned long long)mask);
}
template <class MaskT, class T>
__device__ __forceinline__ T shfl_down_sync(MaskT mask, T var, unsigned int delta, int width = 64) {
  VADO_W64_MASK_CHECK(MaskT);
  check_mask((unsigned long long)mask);
  return shfl_down(var, delta, width, (unsigned long long)mask);
}
template <class MaskT, class T>
__device__ __forceinline__ T shfl_xor_sync(MaskT mask, T var, int lane_mask, int width = 64) {
  VADO_W64_MASK_CHECK(MaskT);
  check_mask((unsigned long long)mask);
  return shfl_xor(var, lane_mask, width, (unsigned long long)mask);
}

__device__ __forceinline__ void syncwarp() { __syncwarp(__activemask()); }
template <class MaskT>
__device__ __forceinline__ void syncwarp(MaskT mask) {
  VADO_W64_MASK_CHECK(MaskT);
  unsigned long long m = (unsigned long long)mask;
  check_mask(m);
  if (keyed(m)) {
    publish(0u, m);
    done(m);
  } else {
    __syncwarp(__activemask());
  }
}

// HIP's __match_any/__match_all compare values with ==, not bits (amd_warp_sync_functions.h): for float and
// double, -0.0 matches 0.0, and NaN matches nothing (__match_any then loops for ever: the emulation traps;
// __match_all gives 0 and pred false). `canonical` makes == into equality of bits: every zero is +0.
template <class T>
__device__ __forceinline__ T canonical(T value) {
  if (std::is_floating_point<T>::value && value == T(0)) return T(0);
  return value;
}
template <class T>
struct match_type {
  static constexpr bool value = (std::is_integral<T>::value || std::is_floating_point<T>::value) && (sizeof(T) == 4 || sizeof(T) == 8);
};
#define VADO_W64_MATCH_TYPE_CHECK(T)                                                                \
  static_assert(vado_w64::match_type<T>::value,                                                    \
                "T can be int, unsigned int, long, unsigned long, long long, unsigned "            \
                "long long, float or double (HIP's __match_any/__match_all, emulated by vado)")

// __match_any_sync / __match_all_sync over the lanes of `mask` (bits of `value` compared: the callers make
// floating-point values canonical first).
template <class T>
__device__ __forceinline__ unsigned long long match_any(unsigned long long mask, T value) {
  Words<T> in(value);
  if (own_half(mask)) {
    unsigned int am = __activemask();
    unsigned long long v = 0ull;
    memcpy(&v, in.w, 8);
    return ((unsigned long long)__match_any_sync(am, v) << half()) & mask;
  }
  unsigned int w = wave();
  unsigned long long same = 0ull;
  unsigned long long exec = publish(in.w[0], mask);
  for (unsigned int l = 0; l < 64u; ++l)
    if (((exec & mask) >> l) & 1ull && xch[w][l] == in.w[0]) same |= 1ull << l;
  done(mask);
  if (sizeof(T) > 4) {
    exec = publish(in.w[1], mask);
    for (unsigned int l = 0; l < 64u; ++l)
      if ((same >> l) & 1ull && xch[w][l] != in.w[1]) same &= ~(1ull << l);
    done(mask);
  }
  return same;
}
template <class MaskT, class T>
__device__ __forceinline__ unsigned long long match_any_sync(MaskT mask, T value) {
  VADO_W64_MASK_CHECK(MaskT);
  VADO_W64_MATCH_TYPE_CHECK(T);
  check_mask((unsigned long long)mask);
  if (value != value) fail("__match_any_sync of a NaN (HIP's __match_any never finishes: NaN == NaN is false)");
  return match_any((unsigned long long)mask, canonical(value));
}
template <class MaskT, class T>
__device__ __forceinline__ unsigned long long match_all_sync(MaskT mask, T value, int* pred) {
  VADO_W64_MASK_CHECK(MaskT);
  VADO_W64_MATCH_TYPE_CHECK(T);
  unsigned long long m = (unsigned long long)mask;
  check_mask(m);
  unsigned long long same = match_any(m, canonical(value));
  // A NaN in the group: HIP's __all(first == value) is false.
  if (std::is_floating_point<T>::value && ballot_sync(m, value != value) != 0ull) same = 0ull;
  *pred = same == m;
  return same == m ? m : 0ull;
}

// __reduce_{add,min,max,and,or,xor}_sync over the lanes of `mask` (32-bit integers, as in HIP).
template <class T, class Op>
__device__ __forceinline__ T reduce(unsigned long long mask, T value, Op op) {
  check_mask(mask);
  unsigned int u = 0u;
  memcpy(&u, &value, 4);
  unsigned long long exec = mask;
  unsigned int w = wave();
  bool wide = !own_half(mask);
  if (wide) exec = publish(u, mask) & mask;
  T acc = value;
  bool first = true;
  for (unsigned int l = 0; l < 64u; ++l) {
    if (!((exec >> l) & 1ull)) continue;
    unsigned int x = wide ? xch[w][l] : own32(u, l);
    T t;
    memcpy(&t, &x, 4);
    acc = first ? t : op(acc, t);
    first = false;
  }
  if (wide) done(mask);
  return acc;
}
struct Add { template <class T> __device__ T operator()(T a, T b) const { return a + b; } };
struct Min { template <class T> __device__ T operator()(T a, T b) const { return a < b ? a : b; } };
struct Max { template <class T> __device__ T operator()(T a, T b) const { return a > b ? a : b; } };
struct And { template <class T> __device__ T operator()(T a, T b) const { return a & b; } };
struct Or { template <class T> __device__ T operator()(T a, T b) const { return a | b; } };
struct Xor { template <class T> __device__ T operator()(T a, T b) const { return a ^ b; } };
#define VADO_W64_REDUCE(NAME, OP)                                                                  \
  template <class MaskT, class T>                                                                \
  __device__ __forceinline__ T reduce_##NAME##_sync(MaskT mask, T value) {                       \
    VADO_W64_MASK_CHECK(MaskT);                                                                  \
    static_assert(sizeof(T) == 4, "__reduce_" #NAME "_sync takes 32-bit integers");              \
    return reduce((unsigned long long)mask, value, OP());                                       \
  }
VADO_W64_REDUCE(add, Add)
VADO_W64_REDUCE(min, Min)
VADO_W64_REDUCE(max, Max)
VADO_W64_REDUCE(and, And)
VADO_W64_REDUCE(or, Or)
VADO_W64_REDUCE(xor, Xor)
#undef VADO_W64_REDUCE

}  // namespace vado_w64

// The HIP names lead (through function-like macros, which win over CUDA's own 32-lane functions of the
// same names and leave other uses of a name alone, e.g. a type called __any in a C++ library) to global
// functions: an overload set a program may add to, as it may add to HIP's (its own __shfl_down for float4 or
// float2, which the type condition below leaves to it). The shuffles take what HIP's overloads take (arithmetic
// types and unscoped enums, through promotion, and the half and bfloat16 types): HIP has no __shfl for a
// float2 or a struct, so neither does the emulation (a cooperative group's shfl reaches these too).
struct __half;
struct __half2;
struct __nv_bfloat16;
struct __nv_bfloat162;
template <bool B, class T> struct vado_w64_enable {};
template <class T> struct vado_w64_enable<true, T> { typedef T type; };
template <class T>
struct vado_w64_hip_shfl_type {
  static constexpr bool value =
      (sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8) &&
      (std::is_arithmetic<T>::value || (std::is_enum<T>::value && std::is_convertible<T, int>::value) ||
       std::is_same<T, ::__half>::value || std::is_same<T, ::__half2>::value ||
       std::is_same<T, ::__nv_bfloat16>::value || std::is_same<T, ::__nv_bfloat162>::value);
};
#define VADO_W64_IF_FITS(T) typename vado_w64_enable<vado_w64_hip_shfl_type<T>::value, T>::type
__device__ __forceinline__ unsigned int vado_w64_lane_id() { return vado_w64::lane_id(); }
__device__ __forceinline__ unsigned long long vado_w64_ballot(int p) { return vado_w64::ballot(p); }
__device__ __forceinline__ unsigned long long vado_w64_activemask() { return vado_w64::activemask(); }
__device__ __forceinline__ int vado_w64_any(int p) { return vado_w64::any(p); }
__device__ __forceinline__ int vado_w64_all(int p) { return vado_w64::all(p); }
// A value of another type (a class such as c10::BFloat16 with a conversion to float) reaches HIP's
// non-template overloads through that conversion, and the result converts back: the fallbacks below pick the
// overload as overload resolution over HIP's parameter types does (vado_w64_hip_pick: HIP's __shfl* of
// amd_warp_functions.h, amd_hip_fp16.h and amd_hip_bf16.h; ambiguous for c10::Half, which converts to both
// float and __half, as HIP's call is). HIP's _sync templates call __shfl* from amd_warp_sync_functions.h,
// where only amd_warp_functions.h's overloads are declared: vado_w64_hip_pick_sync.
__device__ int vado_w64_hip_pick(int);
__device__ unsigned int vado_w64_hip_pick(unsigned int);
__device__ float vado_w64_hip_pick(float);
__device__ double vado_w64_hip_pick(double);
__device__ long vado_w64_hip_pick(long);
__device__ unsigned long vado_w64_hip_pick(unsigned long);
__device__ long long vado_w64_hip_pick(long long);
__device__ unsigned long long vado_w64_hip_pick(unsigned long long);
__device__ const ::__half& vado_w64_hip_pick(const ::__half&);
__device__ const ::__half2& vado_w64_hip_pick(const ::__half2&);
__device__ const ::__nv_bfloat16& vado_w64_hip_pick(const ::__nv_bfloat16&);
__device__ int vado_w64_hip_pick_sync(int);
__device__ unsigned int vado_w64_hip_pick_sync(unsigned int);
__device__ float vado_w64_hip_pick_sync(float);
__device__ double vado_w64_hip_pick_sync(double);
__device__ long vado_w64_hip_pick_sync(long);
__device__ unsigned long vado_w64_hip_pick_sync(unsigned long);
__device__ long long vado_w64_hip_pick_sync(long long);
__device__ unsigned long long vado_w64_hip_pick_sync(unsigned long long);
template <class T, class U>
struct vado_w64_converted {
  typedef typename std::decay<U>::type type;
  static constexpr bool value = !vado_w64_hip_shfl_type<T>::value && vado_w64_hip_shfl_type<type>::value;
};
#define VADO_W64_CONVERTED(T, PICK) \
  typename vado_w64_enable<vado_w64_converted<T, decltype(PICK(std::declval<T>()))>::value, \
                           typename vado_w64_converted<T, decltype(PICK(std::declval<T>()))>::type>::type
template <class T>
__device__ __forceinline__ VADO_W64_IF_FITS(T) vado_w64_shfl(T v, int s, int w = 64) { return vado_w64::shfl(v, s, w); }
template <class T>
__device__ __forceinline__ VADO_W64_IF_FITS(T) vado_w64_shfl_up(T v, unsigned int d, int w = 64) {
  return vado_w64::shfl_up(v, d, w);
}
template <class T>
__device__ __forceinline__ VADO_W64_IF_FITS(T) vado_w64_shfl_down(T v, unsigned int d, int w = 64) {
  return vado_w64::shfl_down(v, d, w);
}
template <class T>
__device__ __forceinline__ VADO_W64_IF_FITS(T) vado_w64_shfl_xor(T v, int m, int w = 64) {
  return vado_w64::shfl_xor(v, m, w);
}
template <class M, class T>
__device__ __forceinline__ VADO_W64_IF_FITS(T) vado_w64_shfl_sync(M m, T v, int s, int w = 64) {
  return vado_w64::shfl_sync(m, v, s, w);
}
template <class M, class T>
__device__ __forceinline__ VADO_W64_IF_FITS(T) vado_w64_shfl_up_sync(M m, T v, unsigned int d, int w = 64) {
  return vado_w64::shfl_up_sync(m, v, d, w);
}
template <class M, class T>
__device__ __forceinline__ VADO_W64_IF_FITS(T) vado_w64_shfl_down_sync(M m, T v, unsigned int d, int w = 64) {
  return vado_w64::shfl_down_sync(m, v, d, w);
}
template <class M, class T>
__device__ __forceinline__ VADO_W64_IF_FITS(T) vado_w64_shfl_xor_sync(M m, T v, int l, int w = 64) {
  return vado_w64::shfl_xor_sync(m, v, l, w);
}
template <class T>
__device__ __forceinline__ VADO_W64_CONVERTED(T, vado_w64_hip_pick) vado_w64_shfl(T v, int s, int w = 64) {
  return vado_w64::shfl(static_cast<VADO_W64_CONVERTED(T, vado_w64_hip_pick)>(v), s, w);
}
template <class T>
__device__ __forceinline__ VADO_W64_CONVERTED(T, vado_w64_hip_pick) vado_w64_shfl_up(T v, unsigned int d, int w = 64) {
  return vado_w64::shfl_up(static_cast<VADO_W64_CONVERTED(T, vado_w64_hip_pick)>(v), d, w);
}
template <class T>
__device__ __forceinline__ VADO_W64_CONVERTED(T, vado_w64_hip_pick) vado_w64_shfl_down(T v, unsigned int d, int w = 64) {
  return vado_w64::shfl_down(static_cast<VADO_W64_CONVERTED(T, vado_w64_hip_pick)>(v), d, w);
}
template <class T>
__device__ __forceinline__ VADO_W64_CONVERTED(T, vado_w64_hip_pick) vado_w64_shfl_xor(T v, int m, int w = 64) {
  return vado_w64::shfl_xor(static_cast<VADO_W64_CONVERTED(T, vado_w64_hip_pick)>(v), m, w);
}
// HIP's _sync forms return T: the shuffled value converts back.
template <class M, class T>
__device__ __forceinline__ typename vado_w64_enable<
    vado_w64_converted<T, decltype(vado_w64_hip_pick_sync(std::declval<T>()))>::value, T>::type
vado_w64_shfl_sync(M m, T v, int s, int w = 64) {
  return vado_w64::shfl_sync(m, static_cast<VADO_W64_CONVERTED(T, vado_w64_hip_pick_sync)>(v), s, w);
}
template <class M, class T>
__device__ __forceinline__ typename vado_w64_enable<
    vado_w64_converted<T, decltype(vado_w64_hip_pick_sync(std::declval<T>()))>::value, T>::type
vado_w64_shfl_up_sync(M m, T v, unsigned int d, int w = 64) {
  return vado_w64::shfl_up_sync(m, static_cast<VADO_W64_CONVERTED(T, vado_w64_hip_pick_sync)>(v), d, w);
}
template <class M, class T>
__device__ __forceinline__ typename vado_w64_enable<
    vado_w64_converted<T, decltype(vado_w64_hip_pick_sync(std::declval<T>()))>::value, T>::type
vado_w64_shfl_down_sync(M m, T v, unsigned int d, int w = 64) {
  return vado_w64::shfl_down_sync(m, static_cast<VADO_W64_CONVERTED(T, vado_w64_hip_pick_sync)>(v), d, w);
}
template <class M, class T>
__device__ __forceinline__ typename vado_w64_enable<
    vado_w64_converted<T, decltype(vado_w64_hip_pick_sync(std::declval<T>()))>::value, T>::type
vado_w64_shfl_xor_sync(M m, T v, int l, int w = 64) {
  return vado_w64::shfl_xor_sync(m, static_cast<VADO_W64_CONVERTED(T, vado_w64_hip_pick_sync)>(v), l, w);
}
template <class M>
__device__ __forceinline__ unsigned long long vado_w64_ballot_sync(M m, int p) { return vado_w64::ballot_sync(m, p); }
template <class M>
__device__ __forceinline__ int vado_w64_any_sync(M m, int p) { return vado_w64::any_sync(m, p); }
template <class M>
__device__ __forceinline__ int vado_w64_all_sync(M m, int p) { return vado_w64::all_sync(m, p); }
__device__ __forceinline__ void vado_w64_syncwarp() { vado_w64::syncwarp(); }
template <class M>
__device__ __forceinline__ void vado_w64_syncwarp(M m) { vado_w64::syncwarp(m); }
template <class M, class T>
__device__ __forceinline__ unsigned long long vado_w64_match_any_sync(M m, T v) { return vado_w64::match_any_sync(m, v); }
template <class M, class T>
__device__ __forceinline__ unsigned long long vado_w64_match_all_sync(M m, T v, int* p) {
  return vado_w64::match_all_sync(m, v, p);
}
#define VADO_W64_REDUCE_GLOBAL(NAME)                                                          \
  template <class M, class T>                                                                 \
  __device__ __forceinline__ T vado_w64_reduce_##NAME##_sync(M m, T v) {                     \
    return vado_w64::reduce_##NAME##_sync(m, v);                                              \
  }
VADO_W64_REDUCE_GLOBAL(add)
VADO_W64_REDUCE_GLOBAL(min)
VADO_W64_REDUCE_GLOBAL(max)
VADO_W64_REDUCE_GLOBAL(and)
VADO_W64_REDUCE_GLOBAL(or)
VADO_W64_REDUCE_GLOBAL(xor)
#undef VADO_W64_REDUCE_GLOBAL

// Block barriers tell the other half of the wave that this one has gone past its wave-wide calls.
__device__ __forceinline__ void vado_w64_syncthreads() {
  vado_w64::enter_barrier();
  __syncthreads();
  vado_w64::leave_barrier();
  __syncthreads();
}
#define VADO_W64_SYNC_FORM(NAME)                                                                  \
  __device__ __forceinline__ int vado_w64_##NAME(int pred) {                                     \
    vado_w64::enter_barrier();                                                                   \
    int r = NAME(pred);                                                                          \
    vado_w64::leave_barrier();                                                                   \
    __syncthreads();                                                                             \
    return r;                                                                                    \
  }
VADO_W64_SYNC_FORM(__syncthreads_count)
VADO_W64_SYNC_FORM(__syncthreads_and)
VADO_W64_SYNC_FORM(__syncthreads_or)
#undef VADO_W64_SYNC_FORM
#define __syncthreads() vado_w64_syncthreads()
#define __syncthreads_count(p) vado_w64___syncthreads_count(p)
#define __syncthreads_and(p) vado_w64___syncthreads_and(p)
#define __syncthreads_or(p) vado_w64___syncthreads_or(p)
#define __lane_id(...) vado_w64_lane_id(__VA_ARGS__)
#define __ballot(...) vado_w64_ballot(__VA_ARGS__)
#define __ballot64(...) vado_w64_ballot(__VA_ARGS__)
#define __activemask(...) vado_w64_activemask(__VA_ARGS__)
#define __any(...) vado_w64_any(__VA_ARGS__)
#define __all(...) vado_w64_all(__VA_ARGS__)
#define __shfl(...) vado_w64_shfl(__VA_ARGS__)
#define __shfl_up(...) vado_w64_shfl_up(__VA_ARGS__)
#define __shfl_down(...) vado_w64_shfl_down(__VA_ARGS__)
#define __shfl_xor(...) vado_w64_shfl_xor(__VA_ARGS__)
#define __ballot_sync(...) vado_w64_ballot_sync(__VA_ARGS__)
#define __any_sync(...) vado_w64_any_sync(__VA_ARGS__)
#define __all_sync(...) vado_w64_all_sync(__VA_ARGS__)
#define __shfl_sync(...) vado_w64_shfl_sync(__VA_ARGS__)
#define __shfl_up_sync(...) vado_w64_shfl_up_sync(__VA_ARGS__)
#define __shfl_down_sync(...) vado_w64_shfl_down_sync(__VA_ARGS__)
#define __shfl_xor_sync(...) vado_w64_shfl_xor_sync(__VA_ARGS__)
#define __syncwarp(...) vado_w64_syncwarp(__VA_ARGS__)
#define __match_any_sync(...) vado_w64_match_any_sync(__VA_ARGS__)
#define __match_all_sync(...) vado_w64_match_all_sync(__VA_ARGS__)
#define __reduce_add_sync(...) vado_w64_reduce_add_sync(__VA_ARGS__)
#define __reduce_min_sync(...) vado_w64_reduce_min_sync(__VA_ARGS__)
#define __reduce_max_sync(...) vado_w64_reduce_max_sync(__VA_ARGS__)
#define __reduce_and_sync(...) vado_w64_reduce_and_sync(__VA_ARGS__)
#define __reduce_or_sync(...) vado_w64_reduce_or_sync(__VA_ARGS__)
#define __reduce_xor_sync(...) vado_w64_reduce_xor_sync(__VA_ARGS__)
// warpSize is 64 in device and host code. A macro that names a constant (not the literal 64) keeps
// `prop.warpSize` working: hipDeviceProp_t is cudaDeviceProp with a member of that name, which
// hipGetDeviceProperties fills with 64.
static constexpr int vado_warpSize = 64;
struct vado_w64_device_prop : cudaDeviceProp {
  int vado_warpSize;
};
#define VADO_W64_DEVICE_PROP 1
// Opens every kernel body of a port built with this layer (vado.verify.hip_on_cuda.mark_kernel_exits); the
// build defines it empty for a file that does not include this header.
#undef VADO_W64_EXIT_GUARD
#define VADO_W64_EXIT_GUARD vado_w64::exit_guard vado_w64_exit_guard_;
#define hipDeviceProp_t vado_w64_device_prop
#define warpSize vado_warpSize
