// The host's memory bandwidth in the manner of STREAM (McCalpin): copy a = b and triad
// a = b + s c over arrays far larger than the caches, on all OpenMP threads, first-touched by
// the threads that use them. Prints the best of 10 in GB/s, counting bytes read and written.
//   g++ -O3 -march=native -fopenmp scripts/device/host_bandwidth.cpp -o host_bandwidth
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

int main() {
  const long n = 1L << 28;  // 2 GiB per array of doubles
  std::vector<double> a(n), b(n), c(n);
#pragma omp parallel for schedule(static)
  for (long i = 0; i < n; ++i) {
    a[i] = 0.0;
    b[i] = 1.0;
    c[i] = 2.0;
  }
  double copy = 0.0, triad = 0.0;
  for (int k = 0; k < 10; ++k) {
    auto t0 = std::chrono::steady_clock::now();
#pragma omp parallel for schedule(static)
    for (long i = 0; i < n; ++i) a[i] = b[i];
    auto t1 = std::chrono::steady_clock::now();
#pragma omp parallel for schedule(static)
    for (long i = 0; i < n; ++i) a[i] = b[i] + 3.0 * c[i];
    auto t2 = std::chrono::steady_clock::now();
    copy = std::max(copy, 16.0 * n / std::chrono::duration<double>(t1 - t0).count() * 1e-9);
    triad = std::max(triad, 24.0 * n / std::chrono::duration<double>(t2 - t1).count() * 1e-9);
  }
  std::printf("host memory bandwidth, %d threads: copy %.1f GB/s, triad %.1f GB/s (a[1] = %g)\n",
              omp_get_max_threads(), copy, triad, a[1]);
  return 0;
}
