// Per-block sums with warp shuffles, written for 32-wide warps (vado's wave64 rules fire here).
#include <cuda_runtime.h>

__global__ void block_sums(int n, const float* __restrict__ x, float* __restrict__ sums) {
  __shared__ float partial[32];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = i < n ? x[i] : 0.0f;
  for (int offset = 16; offset > 0; offset >>= 1)
    v += __shfl_down_sync(0xffffffff, v, offset);
  int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  if (lane == 0) partial[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = lane < (blockDim.x + 31) / 32 ? partial[lane] : 0.0f;
    for (int offset = 16; offset > 0; offset >>= 1)
      v += __shfl_down_sync(0xffffffff, v, offset);
    if (lane == 0 && blockIdx.x < n) sums[blockIdx.x] = v;
  }
}
