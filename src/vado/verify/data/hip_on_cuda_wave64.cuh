// vado HIP-on-CUDA, device layer "wave64": AMD wave64 cross-lane semantics emulated on an NVIDIA GPU.
//
// Included by the generated hip/hip_runtime.h after <cuda_runtime.h> (vado verify --wave 64), after part 1,
// hip_on_cuda_wave64_exchange.cuh (the exchange between the two warps of a wave).
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
// the two warps. Its state belongs to the group making the call, never to a 32-lane half: CUDA may run the
// lanes of one half as several groups at once (independent thread scheduling: the two sides of a branch, a
// loop its lanes leave at different rounds), which on AMD are one wave at one call or at different calls.
//   - A call whose lanes are known (a _sync mask, a cooperative group) and span both halves meets by its
//     mask: the mask's lanes of each half meet (__syncwarp of them), then the two halves at a counter of the
//     mask's lowest lane (meet()). Groups that call at once are disjoint, so their counters differ.
//   - A call without a mask (__ballot, __activemask, __shfl, coalesced_threads(), a full-wave mask, taken
//     as HIP's EXEC) is made by a half-group: the lanes of the caller's warp running it together. Its
//     leader lane pairs it with one half-group of the other half through the wave's mailbox (form()), or,
//     when every lane of the other half is parked (waiting at a __syncthreads(), gone from the kernel, or
//     waiting at the meeting of a known group), lets it go alone: on AMD the other half skipped the call
//     (`if (warp == 0) reduce(); __syncthreads();`, `if (warp == 1) return;`). The formed lanes then
//     exchange as a known group.
// Each lane keeps its state in shared memory (running, at a barrier, gone, at a meeting): the barrier
// macros mark it and add a second barrier so that no mark is stale; lanes that leave are marked by
// VADO_W64_EXIT_GUARD, an object opening each kernel of the port vado builds whose destructor runs at every
// return (vado.verify.hip_on_cuda.mark_kernel_exits). Shared words carry a tag of the grid (%gridid) and
// block, so those left by an earlier block read as their initial value. Limits, each reported:
//   - a half that neither reaches the call, nor waits at a __syncthreads(), nor leaves the kernel (it
//     spins on a flag, or waits at a cooperative-groups barrier) makes the run time out: vado reports the
//     differential as inconclusive (a divergent wave-wide cross-lane call);
//   - half-groups pair only at the same call site (the program's line and file, a defaulted argument of each
//     HIP function and cooperative-groups member): the two branches of an if/else, each half in one, run
//     apart as on AMD. Two calls that share a site (on one line, or inside a function both branches call, as
//     the emulation's own calls do) may pair with each other, where AMD would run them one after the other;
//     every lane of a formed group sees the same group. A half-group waiting for its half's slot is told
//     apart by 5 bits of its site: where each half splits into two groups at four sites and those bits
//     collide, the groups may wait on each other (a time-out);
//   - a wave whose second warp does not exist (the last wave of a block whose size is not a
//     multiple of 64, up to 32 threads) is emulated without waiting: its lanes 32..63 are absent
//     (inactive on AMD): ballot bits 0, shuffles from them 0.
//   - about 12.5 KiB of static shared memory per block for kernels that make wave-wide calls.
#pragma once
#include <cuda_runtime.h>
#include <stdio.h>
#include <type_traits>
#include <utility>

#define VADO_WAVE_SIZE 64

namespace vado_w64 {

// ---------------------------------------------------------------------------------------------
// mask-less HIP functions

__device__ __forceinline__ unsigned int lane_id() { return lane(); }

__device__ __forceinline__ unsigned long long ballot(int pred, unsigned int site = 0u) {
  unsigned int am = __activemask();
  unsigned int mine = __ballot_sync(am, pred);
  if (!paired()) return (unsigned long long)mine;
  // Every lane publishes its warp's ballot; the first lane of each half-group is read.
  unsigned long long exec = publish_active(mine, am, site);
  unsigned int a0 = (unsigned int)exec, a1 = (unsigned int)(exec >> 32);
  unsigned int lo = a0 ? read(__ffs(a0) - 1, exec) : 0u;
  unsigned int hi = a1 ? read(32 + __ffs(a1) - 1, exec) : 0u;
  done(exec);
  return (unsigned long long)lo | ((unsigned long long)hi << 32);
}
__device__ __forceinline__ unsigned long long activemask(unsigned int site = 0u) {
  unsigned int am = __activemask();
  if (!paired()) return (unsigned long long)am;
  return form(am, site);  // no words: the meeting of the half-groups is the whole call
}
__device__ __forceinline__ int any(int pred, unsigned int site = 0u) { return ballot(pred, site) != 0ull; }
__device__ __forceinline__ int all(int pred, unsigned int site = 0u) {
  // AMD: __ockl_wfall_i32, all active lanes.
  unsigned int am = __activemask();
  unsigned int mine = __ballot_sync(am, pred);
  if (!paired()) return mine == am;
  unsigned long long exec = publish_active(mine, am, site);
  unsigned int a0 = (unsigned int)exec, a1 = (unsigned int)(exec >> 32);
  unsigned int lo = a0 ? read(__ffs(a0) - 1, exec) : 0u;
  unsigned int hi = a1 ? read(32 + __ffs(a1) - 1, exec) : 0u;
  done(exec);
  return lo == a0 && hi == a1;
}

// HIP's index formulas (amd_warp_functions.h); `local` when the width keeps every lane in its half.
template <class T>
__device__ __forceinline__ T shfl(T var, int src_lane, int width = 64, unsigned long long group = 0ull,
                                  unsigned int site = 0u) {
  int self = (int)lane();
  int index = (src_lane & (width - 1)) + (self & ~(width - 1));
  return permute(var, index, width <= 32, group, site);
}
template <class T>
__device__ __forceinline__ T shfl_up(T var, unsigned int delta, int width = 64, unsigned long long group = 0ull,
                                  unsigned int site = 0u) {
  int self = (int)lane();
  int index = self - (int)delta;
  index = (index < (self & ~(width - 1))) ? self : index;
  return permute(var, index, width <= 32, group, site);
}
template <class T>
__device__ __forceinline__ T shfl_down(T var, unsigned int delta, int width = 64, unsigned long long group = 0ull,
                                  unsigned int site = 0u) {
  int self = (int)lane();
  int index = self + (int)delta;
  index = (int)((self & (width - 1)) + delta) >= width ? self : index;
  return permute(var, index, width <= 32, group, site);
}
// HIP bounds the xor index above only (index >= the end of the caller's segment reads the caller's own lane):
// with a mask that has bit 5 set (32..63), a lane of the upper half reads a lane of the lower half (lane 40,
// width 8 or 32, mask 32 reads lane 8), and a negative mask reads lane index & 63. Such a mask goes over the
// wave even for a width <= 32.
__device__ __forceinline__ bool xor_stays_in_half(int lane_mask, int width) {
  return width <= 32 && lane_mask >= 0 && ((lane_mask & 32) == 0 || lane_mask >= 64);
}
template <class T>
__device__ __forceinline__ T shfl_xor(T var, int lane_mask, int width = 64, unsigned long long group = 0ull,
                                  unsigned int site = 0u) {
  int self = (int)lane();
  int index = self ^ lane_mask;
  index = index >= ((self + width) & ~(width - 1)) ? self : index;
  return permute(var, index, xor_stays_in_half(lane_mask, width), group, site);
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
__device__ __forceinline__ unsigned long long match_any(unsigned long long mask, T value, unsigned int site = 0u);

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
// A mask over both halves but not the whole wave meets by its mask (keyed(), meet()): before that meeting,
// cuda-samples warpAggregatedAtomicsCG's labeled_partition (a loop of binary_partition calls, lanes of one half
// calling at once with different masks) trapped in a few of 19531 blocks on an H200, when CUDA ran the lanes of one
// mask as separate groups and a half-wide meeting saw part of a mask. The whole wave's mask is HIP's EXEC (form()).
__device__ __forceinline__ void converge(unsigned long long mask) {
  if (!own_half(mask)) return;
  unsigned int mine = (unsigned int)(mask >> half());
  if ((mine >> warp_lane()) & 1u) __syncwarp(mine);
}
// `site`: the call's; the check's own exchange of a whole-wave mask meets at a site of its own (site ^ 2).
__device__ __forceinline__ void check_mask(unsigned long long mask, unsigned int site = 0u) {
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
    if (match_any(keyed(mask) ? mask : ~0ull, mask, site ^ 2u) != mask)
      fail("the mask of a __*_sync call does not name exactly the lanes executing it (ROCm traps here)");
  }
#endif
}

template <class MaskT>
__device__ __forceinline__ unsigned long long ballot_sync(MaskT mask, int pred, unsigned int site = 0u) {
  VADO_W64_MASK_CHECK(MaskT);
  unsigned long long m = (unsigned long long)mask;
  check_mask(m, site);
  if (own_half(m)) return ((unsigned long long)__ballot_sync(own_lanes(m), pred) << half()) & m;
  if (!keyed(m)) return ballot(pred, site) & m;
  unsigned long long exec = publish(__ballot_sync(own_lanes(m), pred), m);
  unsigned int lo = read(__ffs((unsigned int)exec) - 1, exec), hi = read(32 + __ffs((unsigned int)(exec >> 32)) - 1, exec);
  done(exec);
  return ((unsigned long long)lo | ((unsigned long long)hi << 32)) & m;
}
template <class MaskT>
__device__ __forceinline__ int any_sync(MaskT mask, int pred, unsigned int site = 0u) {
  VADO_W64_MASK_CHECK(MaskT);
  return ballot_sync((unsigned long long)mask, pred, site) != 0ull;
}
template <class MaskT>
__device__ __forceinline__ int all_sync(MaskT mask, int pred, unsigned int site = 0u) {
  VADO_W64_MASK_CHECK(MaskT);
  return ballot_sync((unsigned long long)mask, pred, site) == (unsigned long long)mask;
}
template <class MaskT, class T>
__device__ __forceinline__ T shfl_sync(MaskT mask, T var, int src_lane, int width = 64, unsigned int site = 0u) {
  VADO_W64_MASK_CHECK(MaskT);
  check_mask((unsigned long long)mask, site);
  return shfl(var, src_lane, width, (unsigned long long)mask, site);
}
template <class MaskT, class T>
__device__ __forceinline__ T shfl_up_sync(MaskT mask, T var, unsigned int delta, int width = 64, unsigned int site = 0u) {
  VADO_W64_MASK_CHECK(MaskT);
  check_mask((unsigned long long)mask, site);
  return shfl_up(var, delta, width, (unsigned long long)mask, site);
}
template <class MaskT, class T>
__device__ __forceinline__ T shfl_down_sync(MaskT mask, T var, unsigned int delta, int width = 64, unsigned int site = 0u) {
  VADO_W64_MASK_CHECK(MaskT);
  check_mask((unsigned long long)mask, site);
  return shfl_down(var, delta, width, (unsigned long long)mask, site);
}
template <class MaskT, class T>
__device__ __forceinline__ T shfl_xor_sync(MaskT mask, T var, int lane_mask, int width = 64, unsigned int site = 0u) {
  VADO_W64_MASK_CHECK(MaskT);
  check_mask((unsigned long long)mask, site);
  return shfl_xor(var, lane_mask, width, (unsigned long long)mask, site);
}

__device__ __forceinline__ void syncwarp() { __syncwarp(__activemask()); }
template <class MaskT>
__device__ __forceinline__ void syncwarp(MaskT mask) {
  VADO_W64_MASK_CHECK(MaskT);
  unsigned long long m = (unsigned long long)mask;
  check_mask(m);
  if (keyed(m)) {
    meet(0u, m);  // no words are read: the arrival is the whole call
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
__device__ __forceinline__ unsigned long long match_any(unsigned long long mask, T value, unsigned int site) {
  Words<T> in(value);
  if (own_half(mask)) {
    unsigned long long v = 0ull;
    memcpy(&v, in.w, 8);
    return ((unsigned long long)__match_any_sync(own_lanes(mask), v) << half()) & mask;
  }
  unsigned int w = wave();
  unsigned long long same = 0ull;
  unsigned long long exec = publish(in.w[0], mask, site);
  for (unsigned int l = 0; l < 64u; ++l)
    if (((exec & mask) >> l) & 1ull && xch[w][l] == in.w[0]) same |= 1ull << l;
  done(exec);
  if (sizeof(T) > 4) {
    exec = meet(in.w[1], exec);  // the lanes of the first word
    for (unsigned int l = 0; l < 64u; ++l)
      if ((same >> l) & 1ull && xch[w][l] != in.w[1]) same &= ~(1ull << l);
    done(exec);
  }
  return same;
}
template <class MaskT, class T>
__device__ __forceinline__ unsigned long long match_any_sync(MaskT mask, T value, unsigned int site = 0u) {
  VADO_W64_MASK_CHECK(MaskT);
  VADO_W64_MATCH_TYPE_CHECK(T);
  check_mask((unsigned long long)mask, site);
  if (value != value) fail("__match_any_sync of a NaN (HIP's __match_any never finishes: NaN == NaN is false)");
  return match_any((unsigned long long)mask, canonical(value), site);
}
template <class MaskT, class T>
__device__ __forceinline__ unsigned long long match_all_sync(MaskT mask, T value, int* pred, unsigned int site = 0u) {
  VADO_W64_MASK_CHECK(MaskT);
  VADO_W64_MATCH_TYPE_CHECK(T);
  unsigned long long m = (unsigned long long)mask;
  check_mask(m, site);
  unsigned long long same = match_any(m, canonical(value), site);
  // A NaN in the group: HIP's __all(first == value) is false.
  if (std::is_floating_point<T>::value && ballot_sync(m, value != value, site ^ 4u) != 0ull) same = 0ull;
  *pred = same == m;
  return same == m ? m : 0ull;
}

// __reduce_{add,min,max,and,or,xor}_sync over the lanes of `mask` (32-bit integers, as in HIP).
template <class T, class Op>
__device__ __forceinline__ T reduce(unsigned long long mask, T value, Op op, unsigned int site) {
  check_mask(mask, site);
  unsigned int u = 0u;
  memcpy(&u, &value, 4);
  unsigned long long exec = mask;
  unsigned int w = wave();
  bool wide = !own_half(mask);
  unsigned long long call = 0ull;
  unsigned int am = wide ? 0u : own_lanes(mask);
  if (wide) {
    call = publish(u, mask, site);
    exec = call & mask;
  }
  T acc = value;
  bool first = true;
  for (unsigned int l = 0; l < 64u; ++l) {
    if (!((exec >> l) & 1ull)) continue;
    unsigned int x = wide ? xch[w][l] : own32(u, l, am);
    T t;
    memcpy(&t, &x, 4);
    acc = first ? t : op(acc, t);
    first = false;
  }
  if (wide) done(call);
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
  __device__ __forceinline__ T reduce_##NAME##_sync(MaskT mask, T value, unsigned int site = 0u) { \
    VADO_W64_MASK_CHECK(MaskT);                                                                  \
    static_assert(sizeof(T) == 4, "__reduce_" #NAME "_sync takes 32-bit integers");              \
    return reduce((unsigned long long)mask, value, OP(), site);                                 \
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
// Each function that may meet the other half of the wave takes the program's call site as a last, defaulted argument.
__device__ __forceinline__ unsigned long long vado_w64_ballot(int p, unsigned int site = VADO_W64_CALL_SITE) { return vado_w64::ballot(p, site); }
__device__ __forceinline__ unsigned long long vado_w64_activemask(unsigned int site = VADO_W64_CALL_SITE) { return vado_w64::activemask(site); }
__device__ __forceinline__ int vado_w64_any(int p, unsigned int site = VADO_W64_CALL_SITE) { return vado_w64::any(p, site); }
__device__ __forceinline__ int vado_w64_all(int p, unsigned int site = VADO_W64_CALL_SITE) { return vado_w64::all(p, site); }
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
__device__ __forceinline__ VADO_W64_IF_FITS(T) vado_w64_shfl(T v, int s, int w = 64, unsigned int site = VADO_W64_CALL_SITE) {
  return vado_w64::shfl(v, s, w, 0ull, site);
}
template <class T>
__device__ __forceinline__ VADO_W64_IF_FITS(T) vado_w64_shfl_up(T v, unsigned int d, int w = 64, unsigned int site = VADO_W64_CALL_SITE) {
  return vado_w64::shfl_up(v, d, w, 0ull, site);
}
template <class T>
__device__ __forceinline__ VADO_W64_IF_FITS(T) vado_w64_shfl_down(T v, unsigned int d, int w = 64, unsigned int site = VADO_W64_CALL_SITE) {
  return vado_w64::shfl_down(v, d, w, 0ull, site);
}
template <class T>
__device__ __forceinline__ VADO_W64_IF_FITS(T) vado_w64_shfl_xor(T v, int m, int w = 64, unsigned int site = VADO_W64_CALL_SITE) {
  return vado_w64::shfl_xor(v, m, w, 0ull, site);
}
template <class M, class T>
__device__ __forceinline__ VADO_W64_IF_FITS(T) vado_w64_shfl_sync(M m, T v, int s, int w = 64, unsigned int site = VADO_W64_CALL_SITE) {
  return vado_w64::shfl_sync(m, v, s, w, site);
}
template <class M, class T>
__device__ __forceinline__ VADO_W64_IF_FITS(T) vado_w64_shfl_up_sync(M m, T v, unsigned int d, int w = 64, unsigned int site = VADO_W64_CALL_SITE) {
  return vado_w64::shfl_up_sync(m, v, d, w, site);
}
template <class M, class T>
__device__ __forceinline__ VADO_W64_IF_FITS(T) vado_w64_shfl_down_sync(M m, T v, unsigned int d, int w = 64, unsigned int site = VADO_W64_CALL_SITE) {
  return vado_w64::shfl_down_sync(m, v, d, w, site);
}
template <class M, class T>
__device__ __forceinline__ VADO_W64_IF_FITS(T) vado_w64_shfl_xor_sync(M m, T v, int l, int w = 64, unsigned int site = VADO_W64_CALL_SITE) {
  return vado_w64::shfl_xor_sync(m, v, l, w, site);
}
template <class T>
__device__ __forceinline__ VADO_W64_CONVERTED(T, vado_w64_hip_pick) vado_w64_shfl(T v, int s, int w = 64, unsigned int site = VADO_W64_CALL_SITE) {
  return vado_w64::shfl(static_cast<VADO_W64_CONVERTED(T, vado_w64_hip_pick)>(v), s, w, 0ull, site);
}
template <class T>
__device__ __forceinline__ VADO_W64_CONVERTED(T, vado_w64_hip_pick) vado_w64_shfl_up(T v, unsigned int d, int w = 64, unsigned int site = VADO_W64_CALL_SITE) {
  return vado_w64::shfl_up(static_cast<VADO_W64_CONVERTED(T, vado_w64_hip_pick)>(v), d, w, 0ull, site);
}
template <class T>
__device__ __forceinline__ VADO_W64_CONVERTED(T, vado_w64_hip_pick) vado_w64_shfl_down(T v, unsigned int d, int w = 64, unsigned int site = VADO_W64_CALL_SITE) {
  return vado_w64::shfl_down(static_cast<VADO_W64_CONVERTED(T, vado_w64_hip_pick)>(v), d, w, 0ull, site);
}
template <class T>
__device__ __forceinline__ VADO_W64_CONVERTED(T, vado_w64_hip_pick) vado_w64_shfl_xor(T v, int m, int w = 64, unsigned int site = VADO_W64_CALL_SITE) {
  return vado_w64::shfl_xor(static_cast<VADO_W64_CONVERTED(T, vado_w64_hip_pick)>(v), m, w, 0ull, site);
}
// HIP's _sync forms return T: the shuffled value converts back.
template <class M, class T>
__device__ __forceinline__ typename vado_w64_enable<
    vado_w64_converted<T, decltype(vado_w64_hip_pick_sync(std::declval<T>()))>::value, T>::type
vado_w64_shfl_sync(M m, T v, int s, int w = 64, unsigned int site = VADO_W64_CALL_SITE) {
  return vado_w64::shfl_sync(m, static_cast<VADO_W64_CONVERTED(T, vado_w64_hip_pick_sync)>(v), s, w, site);
}
template <class M, class T>
__device__ __forceinline__ typename vado_w64_enable<
    vado_w64_converted<T, decltype(vado_w64_hip_pick_sync(std::declval<T>()))>::value, T>::type
vado_w64_shfl_up_sync(M m, T v, unsigned int d, int w = 64, unsigned int site = VADO_W64_CALL_SITE) {
  return vado_w64::shfl_up_sync(m, static_cast<VADO_W64_CONVERTED(T, vado_w64_hip_pick_sync)>(v), d, w, site);
}
template <class M, class T>
__device__ __forceinline__ typename vado_w64_enable<
    vado_w64_converted<T, decltype(vado_w64_hip_pick_sync(std::declval<T>()))>::value, T>::type
vado_w64_shfl_down_sync(M m, T v, unsigned int d, int w = 64, unsigned int site = VADO_W64_CALL_SITE) {
  return vado_w64::shfl_down_sync(m, static_cast<VADO_W64_CONVERTED(T, vado_w64_hip_pick_sync)>(v), d, w, site);
}
template <class M, class T>
__device__ __forceinline__ typename vado_w64_enable<
    vado_w64_converted<T, decltype(vado_w64_hip_pick_sync(std::declval<T>()))>::value, T>::type
vado_w64_shfl_xor_sync(M m, T v, int l, int w = 64, unsigned int site = VADO_W64_CALL_SITE) {
  return vado_w64::shfl_xor_sync(m, static_cast<VADO_W64_CONVERTED(T, vado_w64_hip_pick_sync)>(v), l, w, site);
}
template <class M>
__device__ __forceinline__ unsigned long long vado_w64_ballot_sync(M m, int p, unsigned int site = VADO_W64_CALL_SITE) {
  return vado_w64::ballot_sync(m, p, site);
}
template <class M>
__device__ __forceinline__ int vado_w64_any_sync(M m, int p, unsigned int site = VADO_W64_CALL_SITE) { return vado_w64::any_sync(m, p, site); }
template <class M>
__device__ __forceinline__ int vado_w64_all_sync(M m, int p, unsigned int site = VADO_W64_CALL_SITE) { return vado_w64::all_sync(m, p, site); }
__device__ __forceinline__ void vado_w64_syncwarp() { vado_w64::syncwarp(); }
template <class M>
__device__ __forceinline__ void vado_w64_syncwarp(M m) { vado_w64::syncwarp(m); }
template <class M, class T>
__device__ __forceinline__ unsigned long long vado_w64_match_any_sync(M m, T v, unsigned int site = VADO_W64_CALL_SITE) {
  return vado_w64::match_any_sync(m, v, site);
}
template <class M, class T>
__device__ __forceinline__ unsigned long long vado_w64_match_all_sync(M m, T v, int* p, unsigned int site = VADO_W64_CALL_SITE) {
  return vado_w64::match_all_sync(m, v, p, site);
}
#define VADO_W64_REDUCE_GLOBAL(NAME)                                                          \
  template <class M, class T>                                                                 \
  __device__ __forceinline__ T vado_w64_reduce_##NAME##_sync(M m, T v, unsigned int site = VADO_W64_CALL_SITE) { \
    return vado_w64::reduce_##NAME##_sync(m, v, site);                                        \
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
