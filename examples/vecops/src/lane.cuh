// Warp-level helpers. Written for NVIDIA's 32-wide warps, as much CUDA code is.
#pragma once
#include <cuda_runtime.h>

#define WARP_SIZE 32

// Lane index read straight from the PTX special register.
__device__ __forceinline__ unsigned lane_id() {
  unsigned lane;
  asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
  return lane;
}

// Sum of v over the 32 lanes of a warp.
__device__ __forceinline__ float warp_sum(float v) {
  for (int offset = 16; offset > 0; offset >>= 1)
    v += __shfl_down_sync(0xffffffff, v, offset);
  return v;
}

// Block-wide sum: one partial per warp in shared memory, then warp 0 adds them.
__device__ float block_sum(float v) {
  __shared__ float partial[32];
  int lane = threadIdx.x % 32;
  int warp = threadIdx.x >> 5;
  v = warp_sum(v);
  if (lane == 0) partial[warp] = v;
  __syncthreads();
  v = (threadIdx.x < blockDim.x / WARP_SIZE) ? partial[lane] : 0.0f;
  if (warp == 0) v = warp_sum(v);
  return v;
}

// How many lanes of the warp hold a positive value.
__device__ int count_positive(float v) {
  unsigned mask = __ballot_sync(0xffffffff, v > 0.0f);
  return __popc(mask);
}
