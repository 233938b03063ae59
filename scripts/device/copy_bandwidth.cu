// Measures device-to-device copy bandwidth (bytes read + bytes written per second): the ceiling
// the CUDA backend's effective bandwidth is compared against in docs/performance.md.
#include <cuda_runtime.h>

#include <cstdio>

int main() {
  const size_t bytes = size_t(2) << 30;  // 2 GiB per buffer: far past L2
  void *a = nullptr, *b = nullptr;
  if (cudaMalloc(&a, bytes) != cudaSuccess || cudaMalloc(&b, bytes) != cudaSuccess) return 1;
  cudaMemset(a, 1, bytes);
  cudaEvent_t t0, t1;
  cudaEventCreate(&t0);
  cudaEventCreate(&t1);
  for (int i = 0; i < 3; ++i) cudaMemcpy(b, a, bytes, cudaMemcpyDeviceToDevice);  // warm-up
  const int reps = 20;
  cudaEventRecord(t0);
  for (int i = 0; i < reps; ++i)
    cudaMemcpy(i % 2 ? a : b, i % 2 ? b : a, bytes, cudaMemcpyDeviceToDevice);
  cudaEventRecord(t1);
  cudaEventSynchronize(t1);
  float ms = 0;
  cudaEventElapsedTime(&ms, t0, t1);
  const double gbs = 2.0 * double(bytes) * reps / (ms * 1e-3) / 1e9;
  std::printf("device-to-device copy: %.1f GB/s (read + write, 2 GiB buffers, %d copies)\n", gbs,
              reps);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}
