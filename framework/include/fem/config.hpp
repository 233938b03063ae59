// Compile-time configuration shared by host code and every backend's kernels.
#pragma once

// FEM_HD marks functions that must be callable from device code (CUDA, Kokkos-CUDA) as well as
// from the host. Material laws and amplitude curves are written once with it.
#if defined(__CUDACC__) || defined(__HIPCC__)
#define FEM_HD __host__ __device__
#else
#define FEM_HD
#endif
#define FEM_INLINE FEM_HD inline

namespace fem {

enum class Precision { Single = 0, Double = 1 };

inline const char* to_string(Precision p) {
  return p == Precision::Single ? "single" : "double";
}

}  // namespace fem
