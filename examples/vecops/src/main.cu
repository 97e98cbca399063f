// vecops: a small CUDA program vado audits, ports and verifies.
// saxpy, a block reduction, a ballot count and a cuBLAS SGEMM; prints checksums.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>
#include <cublas_v2.h>
#include "lane.cuh"

#define CHECK(call)                                                          \
  do {                                                                       \
    cudaError_t err_ = (call);                                               \
    if (err_ != cudaSuccess) {                                               \
      std::fprintf(stderr, "CUDA error %s at %s:%d\n", cudaGetErrorString(err_), \
                   __FILE__, __LINE__);                                      \
      std::exit(1);                                                          \
    }                                                                        \
  } while (0)

__global__ void saxpy(int n, float a, const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

__global__ void reduce_sum(int n, const float* x, float* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = i < n ? x[i] : 0.0f;
  float s = block_sum(v);
  if (threadIdx.x == 0) atomicAdd(out, s);
}

__global__ void positives(int n, const float* x, int* out) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = i < n ? x[i] : 0.0f;
  int c = count_positive(v);
  if (lane_id() == 0) atomicAdd(out, c);
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 1000;
  const int m = 64;  // SGEMM size
  std::vector<float> hx(n), hy(n);
  for (int i = 0; i < n; ++i) {
    hx[i] = static_cast<float>((i * 37) % 101 - 50) / 25.0f;
    hy[i] = static_cast<float>((i * 11) % 7);
  }
  float *dx, *dy, *dsum;
  int* dpos;
  CHECK(cudaMalloc(&dx, n * sizeof(float)));
  CHECK(cudaMalloc(&dy, n * sizeof(float)));
  CHECK(cudaMalloc(&dsum, sizeof(float)));
  CHECK(cudaMalloc(&dpos, sizeof(int)));
  CHECK(cudaMemcpy(dx, hx.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dy, hy.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemset(dsum, 0, sizeof(float)));
  CHECK(cudaMemset(dpos, 0, sizeof(int)));

  const int threads = 256, blocks = (n + threads - 1) / threads;
  saxpy<<<blocks, threads>>>(n, 2.0f, dx, dy);
  reduce_sum<<<blocks, threads>>>(n, dy, dsum);
  positives<<<blocks, threads>>>(n, dx, dpos);
  CHECK(cudaGetLastError());

  float sum = 0.0f;
  int pos = 0;
  CHECK(cudaMemcpy(&sum, dsum, sizeof(float), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(&pos, dpos, sizeof(int), cudaMemcpyDeviceToHost));

  // C = A * B with cuBLAS.
  std::vector<float> ha(m * m), hb(m * m), hc(m * m, 0.0f);
  for (int i = 0; i < m * m; ++i) {
    ha[i] = static_cast<float>(i % 13) / 13.0f;
    hb[i] = static_cast<float>(i % 7) / 7.0f;
  }
  float *da, *db, *dc;
  CHECK(cudaMalloc(&da, m * m * sizeof(float)));
  CHECK(cudaMalloc(&db, m * m * sizeof(float)));
  CHECK(cudaMalloc(&dc, m * m * sizeof(float)));
  CHECK(cudaMemcpy(da, ha.data(), m * m * sizeof(float), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(db, hb.data(), m * m * sizeof(float), cudaMemcpyHostToDevice));
  cublasHandle_t handle;
  if (cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS) return 1;
  const float alpha = 1.0f, beta = 0.0f;
  cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, m, m, m, &alpha, da, m, db, m, &beta, dc, m);
  cublasDestroy(handle);
  CHECK(cudaMemcpy(hc.data(), dc, m * m * sizeof(float), cudaMemcpyDeviceToHost));
  double trace = 0.0;
  for (int i = 0; i < m; ++i) trace += hc[i * m + i];

  std::printf("sum %.4f\npositives %d\ntrace %.4f\n", sum, pos, trace);
  cudaFree(dx); cudaFree(dy); cudaFree(dsum); cudaFree(dpos);
  cudaFree(da); cudaFree(db); cudaFree(dc);
  return 0;
}
