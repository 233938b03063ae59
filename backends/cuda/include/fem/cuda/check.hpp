// Checking every CUDA runtime call: a failure becomes a fem::Error naming the call and place.
#pragma once

#include <cuda_runtime.h>

#include <string>

#include <fem/error.hpp>

namespace fem::cuda {

[[noreturn]] inline void throw_cuda_error(cudaError_t status, const char* call, const char* file,
                                          int line) {
  throw Error(std::string("CUDA error in ") + call + " at " + file + ":" + std::to_string(line) +
              ": " + cudaGetErrorName(status) + ": " + cudaGetErrorString(status));
}

}  // namespace fem::cuda

#define FEM_CUDA_CHECK(call)                                                      \
  do {                                                                            \
    const cudaError_t fem_cuda_status_ = (call);                                  \
    if (fem_cuda_status_ != cudaSuccess)                                          \
      ::fem::cuda::throw_cuda_error(fem_cuda_status_, #call, __FILE__, __LINE__); \
  } while (0)

/// After a kernel launch: launch-configuration errors surface here, not at the next sync.
#define FEM_CUDA_CHECK_LAUNCH() FEM_CUDA_CHECK(cudaGetLastError())
