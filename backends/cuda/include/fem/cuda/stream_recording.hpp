// Verbs recorded from a CUDA stream into a graph and run again with one launch
// (LinearAlgebra::record, replay): the CUDA backend records its own stream, the Kokkos backend
// the stream of its Cuda execution space.
#pragma once

#include <cuda_runtime.h>

#include <functional>
#include <memory>

#include <fem/cuda/check.hpp>
#include <fem/operator.hpp>

namespace fem::cuda {

/// An instantiated graph, launched on the stream it was captured from.
class GraphRecording final : public Recording {
 public:
  GraphRecording(cudaGraphExec_t graph, cudaStream_t stream) : graph_(graph), stream_(stream) {}
  ~GraphRecording() override { cudaGraphExecDestroy(graph_); }

 protected:
  void run() override { FEM_CUDA_CHECK(cudaGraphLaunch(graph_, stream_)); }

 private:
  cudaGraphExec_t graph_;
  cudaStream_t stream_;
};

/// What `enqueue` issues on `stream`, captured (not run) and instantiated. `mode`: thread-local
/// makes a call of this thread that cannot be captured (a wait, a copy to pageable memory) fail
/// at once; relaxed lets a library's bookkeeping calls (an allocation of nothing) through.
inline std::unique_ptr<Recording> record_stream(
    cudaStream_t stream, const std::function<void()>& enqueue,
    cudaStreamCaptureMode mode = cudaStreamCaptureModeThreadLocal) {
  FEM_CUDA_CHECK(cudaStreamBeginCapture(stream, mode));
  cudaGraph_t graph = nullptr;
  try {
    enqueue();
  } catch (...) {
    cudaStreamEndCapture(stream, &graph);
    if (graph) cudaGraphDestroy(graph);
    throw;
  }
  FEM_CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
  cudaGraphExec_t exec = nullptr;
  const cudaError_t instantiated = cudaGraphInstantiate(&exec, graph, 0);
  cudaGraphDestroy(graph);
  FEM_CUDA_CHECK(instantiated);
  return std::make_unique<GraphRecording>(exec, stream);
}

}  // namespace fem::cuda
