// Checking every CUDA runtime call: a failure becomes a fem::Error naming the call and place.
// Running out of GPU memory is the model's size (bad input, exit 2); anything else, an illegal
// address in a kernel above all, is fem's fault (InternalError, exit 1).
#pragma once

#include <cuda_runtime.h>

#include <string>

#include <fem/error.hpp>

namespace fem::cuda {

/// What to do about a model that does not fit the GPU's memory (the estimate before setup, or an
/// allocation that failed).
inline constexpr const char* kGpuMemoryHint =
    "\n  hint: run in single precision (--precision single), use a coarser mesh, or a GPU with "
    "more memory";

[[noreturn]] inline void throw_cuda_error(cudaError_t status, const char* call, const char* file,
                                          int line) {
  const std::string what = std::string("CUDA error in ") + call + " at " + file + ":" +
                           std::to_string(line) + ": " + cudaGetErrorName(status) + ": " +
                           cudaGetErrorString(status);
  if (status == cudaErrorMemoryAllocation) throw Error(what + kGpuMemoryHint);
  throw InternalError(what +
                      "\n  hint: this is a bug in fem (or the driver): please report it with the "
                      "case and the output of `fem plugins`; compute-sanitizer fem run ... names "
                      "the kernel");
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
