// Owning device buffer (cudaMalloc/cudaFree) with typed upload and download, and a small
// page-locked host buffer for the values that reductions return.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

#include <fem/cuda/check.hpp>

namespace fem::cuda {

/// dst[(i % width) * stride + first + i / width] = T(src[i]) for i < count: `count` values of
/// records `width` long, starting at record `first`, converted and stored as rows of `stride`
/// (width 1: a plain converting copy to dst[first + i]).
template <class T, class U>
__global__ void convert_records_kernel(std::int64_t count, int width, std::int64_t stride,
                                       std::int64_t first, const U* src, T* dst) {
  const std::int64_t step = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += step)
    dst[(i % width) * stride + first + i / width] = static_cast<T>(src[i]);
}

/// Launches convert_records_kernel on `stream`; returns its launch status.
template <class T, class U>
cudaError_t convert_records(std::int64_t count, int width, std::int64_t stride, std::int64_t first,
                            const U* src, T* dst, cudaStream_t stream) {
  const auto blocks = static_cast<unsigned>(std::min<std::int64_t>((count + 255) / 256, 65536));
  convert_records_kernel<T, U><<<blocks, 256, 0, stream>>>(count, width, stride, first, src, dst);
  return cudaGetLastError();
}

template <class T>
class DeviceArray {
 public:
  DeviceArray() = default;
  explicit DeviceArray(std::size_t n) { resize(n); }
  ~DeviceArray() { release(); }
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;
  DeviceArray(DeviceArray&& o) noexcept : data_(o.data_), size_(o.size_) {
    o.data_ = nullptr;
    o.size_ = 0;
  }
  DeviceArray& operator=(DeviceArray&& o) noexcept {
    if (this != &o) {
      release();
      data_ = o.data_;
      size_ = o.size_;
      o.data_ = nullptr;
      o.size_ = 0;
    }
    return *this;
  }

  void resize(std::size_t n) {
    if (n == size_) return;
    release();
    if (n) FEM_CUDA_CHECK(cudaMalloc(&data_, n * sizeof(T)));
    size_ = n;
  }
  /// Uploads host values, converting them to T (double -> float for single precision, 64- to
  /// 32-bit indices) on the device, ordered on `stream` after the work queued there before it
  /// (a kernel still reading the old values, say). Returns when they are there, for kernels on
  /// any stream.
  template <class U, class Allocator>
  void upload(const std::vector<U, Allocator>& host, cudaStream_t stream = cudaStreamLegacy) {
    resize(host.size());
    if (host.empty()) return;
    if constexpr (std::is_same_v<T, U>) {
      FEM_CUDA_CHECK(cudaMemcpyAsync(data_, host.data(), host.size() * sizeof(T),
                                     cudaMemcpyHostToDevice, stream));
      finish_upload(stream);
    } else {
      upload_records(host, 1, 0, stream);  // waits for its stream
    }
  }
  /// Uploads `records` ([e][c], the same number of entries per record) as rows [c][e] of
  /// `stride` >= the record count (the padding zero), converted to T: the component-major
  /// element layout, rearranged by the device rather than by one host thread.
  template <class U, class Allocator>
  void upload_rows(const std::vector<U, Allocator>& records, std::int64_t count,
                   std::int64_t stride) {
    if (records.empty() || count == 0) {
      upload(records);
      return;
    }
    const auto width = static_cast<std::int64_t>(records.size()) / count;
    resize(static_cast<std::size_t>(width * stride));
    FEM_CUDA_CHECK(cudaMemsetAsync(data_, 0, bytes(), cudaStreamLegacy));
    upload_records(records, static_cast<int>(width), stride, cudaStreamLegacy);  // waits
  }
  /// Downloads into `host` as U after the work queued on `stream`, converted on the device
  /// (float -> double): one copy straight into `host`, whose pages a caller reusing it has
  /// already touched.
  template <class U>
  void download(std::vector<U>& host, cudaStream_t stream = cudaStreamLegacy) const {
    host.resize(size_);
    if (size_ == 0) return;
    if constexpr (std::is_same_v<T, U>) {
      FEM_CUDA_CHECK(cudaMemcpyAsync(host.data(), data_, bytes(), cudaMemcpyDeviceToHost, stream));
      FEM_CUDA_CHECK(cudaStreamSynchronize(stream));
    } else {
      DeviceArray<U> converted(size_);
      FEM_CUDA_CHECK(convert_records(static_cast<std::int64_t>(size_), 1, 0, 0, data_,
                                     converted.data(), stream));
      FEM_CUDA_CHECK(cudaMemcpyAsync(host.data(), converted.data(), converted.bytes(),
                                     cudaMemcpyDeviceToHost, stream));
      FEM_CUDA_CHECK(cudaStreamSynchronize(stream));
    }
  }

  [[nodiscard]] T* data() { return data_; }
  [[nodiscard]] const T* data() const { return data_; }
  [[nodiscard]] std::size_t size() const { return size_; }
  [[nodiscard]] std::size_t bytes() const { return size_ * sizeof(T); }
  [[nodiscard]] bool empty() const { return size_ == 0; }
  /// Null when empty, so optional arrays read as "absent" in the kernels.
  [[nodiscard]] T* data_or_null() { return size_ ? data_ : nullptr; }
  [[nodiscard]] const T* data_or_null() const { return size_ ? data_ : nullptr; }

 private:
  /// Copies `host` (records of `width` values) to the device a chunk of whole records at a time
  /// and stores it converted (convert_records_kernel), all on `stream`, which orders each
  /// chunk's kernel after its copy and the next copy after the kernel; returns when the stream
  /// has done all of it.
  template <class U, class Allocator>
  void upload_records(const std::vector<U, Allocator>& host, int width, std::int64_t stride,
                      cudaStream_t stream) {
    constexpr std::int64_t kChunkBytes = std::int64_t{256} << 20;
    const auto total = static_cast<std::int64_t>(host.size());
    const std::int64_t chunk =
        std::min(total, std::max<std::int64_t>(1, kChunkBytes / sizeof(U) / width) * width);
    U* staging = nullptr;
    FEM_CUDA_CHECK(cudaMalloc(&staging, static_cast<std::size_t>(chunk) * sizeof(U)));
    cudaError_t status = cudaSuccess;
    for (std::int64_t begin = 0; begin < total && status == cudaSuccess; begin += chunk) {
      const std::int64_t count = std::min(chunk, total - begin);
      status =
          cudaMemcpyAsync(staging, host.data() + begin, static_cast<std::size_t>(count) * sizeof(U),
                          cudaMemcpyHostToDevice, stream);
      if (status != cudaSuccess) break;
      status = convert_records(count, width, stride, begin / width, staging, data_, stream);
    }
    // The last chunk's kernel reads the staging buffer: free it only after the stream.
    const cudaError_t finished = cudaStreamSynchronize(stream);
    cudaFree(staging);
    FEM_CUDA_CHECK(status);
    FEM_CUDA_CHECK(finished);
  }
  /// cudaMemcpy from pageable memory returns once the values are staged, before the DMA to the
  /// device has finished (CUDA's "API synchronization behavior"), and the backend's streams are
  /// non-blocking, so nothing orders a kernel on them after the copy: a 53,361-node history
  /// list uploaded this way was read before it arrived (cudaErrorIllegalAddress in
  /// nodal_displacements on the 73 M-element cube, issue 19). Wait for the copy's stream.
  static void finish_upload(cudaStream_t stream) { FEM_CUDA_CHECK(cudaStreamSynchronize(stream)); }

  void release() {
    if (data_) cudaFree(data_);
    data_ = nullptr;
    size_ = 0;
  }
  T* data_ = nullptr;
  std::size_t size_ = 0;
};

/// A few values in page-locked host memory: what a reduction's result is copied into, so that
/// the copy is one DMA without a staging buffer.
template <class T>
class PinnedArray {
 public:
  explicit PinnedArray(std::size_t n) : size_(n) {
    static_assert(std::is_trivially_copyable_v<T>);
    FEM_CUDA_CHECK(cudaMallocHost(&data_, n * sizeof(T)));
  }
  ~PinnedArray() {
    if (data_) cudaFreeHost(data_);
  }
  PinnedArray(const PinnedArray&) = delete;
  PinnedArray& operator=(const PinnedArray&) = delete;
  [[nodiscard]] T* data() { return data_; }
  [[nodiscard]] T& operator[](std::size_t i) { return data_[i]; }
  [[nodiscard]] std::size_t size() const { return size_; }
  [[nodiscard]] std::size_t bytes() const { return size_ * sizeof(T); }

 private:
  T* data_ = nullptr;
  std::size_t size_;
};

}  // namespace fem::cuda
