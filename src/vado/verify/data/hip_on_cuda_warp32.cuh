// vado HIP-on-CUDA, device layer "warp32": HIP's own device functions written as CUDA, on CUDA's 32-lane warps.
//
// Included by the generated hip/hip_runtime.h after <cuda_runtime.h> (vado verify without --wave 64).
// HIP names that CUDA lacks get CUDA definitions with HIP's signatures: __lane_id, the mask-less
// __ballot/__any/__all/__shfl* (64-bit ballot, upper half 0), __ballot64; the _sync forms take HIP's
// 64-bit masks (the lanes of the caller's warp are the low 32 bits). warpSize stays 32: this layer runs
// the port as HIP runs on NVIDIA GPUs; `--wave 64` emulates AMD's 64-lane waves instead.
#pragma once
#include <cuda_runtime.h>

#define VADO_WAVE_SIZE 32

namespace vado_w32 {
__device__ __forceinline__ unsigned int lane_id() {
  unsigned int l;
  asm volatile("mov.u32 %0, %%laneid;" : "=r"(l));
  return l;
}
__device__ __forceinline__ unsigned long long ballot(int pred) {
  return (unsigned long long)::__ballot_sync(::__activemask(), pred);
}
__device__ __forceinline__ unsigned long long activemask() { return (unsigned long long)::__activemask(); }
__device__ __forceinline__ int any(int pred) { return ::__any_sync(::__activemask(), pred); }
__device__ __forceinline__ int all(int pred) { return ::__all_sync(::__activemask(), pred); }
template <class T>
__device__ __forceinline__ T shfl(T var, int src, int width = 32) { return ::__shfl_sync(::__activemask(), var, src, width); }
template <class T>
__device__ __forceinline__ T shfl_up(T var, unsigned int d, int width = 32) {
  return ::__shfl_up_sync(::__activemask(), var, d, width);
}
template <class T>
__device__ __forceinline__ T shfl_down(T var, unsigned int d, int width = 32) {
  return ::__shfl_down_sync(::__activemask(), var, d, width);
}
template <class T>
__device__ __forceinline__ T shfl_xor(T var, int m, int width = 32) {
  return ::__shfl_xor_sync(::__activemask(), var, m, width);
}
}  // namespace vado_w32

#define __lane_id(...) vado_w32::lane_id(__VA_ARGS__)
#define __ballot(...) vado_w32::ballot(__VA_ARGS__)
#define __ballot64(...) vado_w32::ballot(__VA_ARGS__)
#define __any(...) vado_w32::any(__VA_ARGS__)
#define __all(...) vado_w32::all(__VA_ARGS__)
#define __shfl(...) vado_w32::shfl(__VA_ARGS__)
#define __shfl_up(...) vado_w32::shfl_up(__VA_ARGS__)
#define __shfl_down(...) vado_w32::shfl_down(__VA_ARGS__)
#define __shfl_xor(...) vado_w32::shfl_xor(__VA_ARGS__)
