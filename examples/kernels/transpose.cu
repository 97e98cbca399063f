// Tiled matrix transpose through shared memory (width x width floats, row-major).
#include <cuda_runtime.h>

#define TILE 32

// One thread per element; the block is a 1-D run of TILE*TILE threads mapped onto a tile.
__global__ void transpose(const float* __restrict__ in, float* __restrict__ out, int width) {
  __shared__ float tile[TILE][TILE + 1];
  int tiles_per_row = (width + TILE - 1) / TILE;
  int t = blockIdx.x;
  int tx = threadIdx.x % TILE, ty = threadIdx.x / TILE;
  int bx = (t % tiles_per_row) * TILE, by = (t / tiles_per_row) * TILE;
  for (int r = ty; r < TILE; r += blockDim.x / TILE) {
    int x = bx + tx, y = by + r;
    if (x < width && y < width) tile[r][tx] = in[(long long)y * width + x];
  }
  __syncthreads();
  for (int r = ty; r < TILE; r += blockDim.x / TILE) {
    int x = by + tx, y = bx + r;
    if (x < width && y < width) out[(long long)y * width + x] = tile[tx][r];
  }
}
