// Owning device buffer (cudaMalloc/cudaFree) with typed upload and download, and a small
// page-locked host buffer for the values that reductions return.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <type_traits>
#include <vector>

#include <fem/cuda/check.hpp>

namespace fem::cuda {

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
  /// Uploads host values, converting them to T (double -> float for single precision). Returns
  /// when they are on the device, for kernels on any stream to read.
  template <class U>
  void upload(const std::vector<U>& host) {
    resize(host.size());
    if (host.empty()) return;
    if constexpr (std::is_same_v<T, U>) {
      FEM_CUDA_CHECK(
          cudaMemcpy(data_, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice));
    } else {
      const std::vector<T> converted(host.begin(), host.end());
      FEM_CUDA_CHECK(
          cudaMemcpy(data_, converted.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice));
    }
    // cudaMemcpy from pageable memory returns once the values are staged, before the DMA to
    // the device has finished (CUDA's "API synchronization behavior"), and the backend's
    // streams are non-blocking, so nothing orders a kernel on them after the copy: a 53,361-node
    // history list uploaded this way was read before it arrived (cudaErrorIllegalAddress in
    // nodal_displacements on the 73 M-element cube, issue 19). Wait for the copy's stream.
    FEM_CUDA_CHECK(cudaStreamSynchronize(cudaStreamLegacy));
  }
  /// Downloads into `host` as U.
  template <class U>
  void download(std::vector<U>& host) const {
    std::vector<T> raw(size_);
    if (size_)
      FEM_CUDA_CHECK(cudaMemcpy(raw.data(), data_, size_ * sizeof(T), cudaMemcpyDeviceToHost));
    host.assign(raw.begin(), raw.end());
  }

  /// upload() ordered on `stream` with the work queued there before it (a kernel still reading
  /// the old values, say), which the plain upload's copy on the legacy stream is not when the
  /// stream is non-blocking. Returns when the copy is done.
  template <class U>
  void upload(const std::vector<U>& host, cudaStream_t stream) {
    resize(host.size());
    if (host.empty()) return;
    const std::vector<T> converted(host.begin(), host.end());
    FEM_CUDA_CHECK(cudaMemcpyAsync(data_, converted.data(), host.size() * sizeof(T),
                                   cudaMemcpyHostToDevice, stream));
    FEM_CUDA_CHECK(cudaStreamSynchronize(stream));
  }
  /// download() after the work queued on `stream` (which it waits for).
  template <class U>
  void download(std::vector<U>& host, cudaStream_t stream) const {
    if constexpr (std::is_same_v<T, U>) {  // straight into `host`: no second copy on the host
      host.resize(size_);
      if (size_)
        FEM_CUDA_CHECK(
            cudaMemcpyAsync(host.data(), data_, size_ * sizeof(T), cudaMemcpyDeviceToHost, stream));
      FEM_CUDA_CHECK(cudaStreamSynchronize(stream));
    } else {
      std::vector<T> raw(size_);
      if (size_)
        FEM_CUDA_CHECK(
            cudaMemcpyAsync(raw.data(), data_, size_ * sizeof(T), cudaMemcpyDeviceToHost, stream));
      FEM_CUDA_CHECK(cudaStreamSynchronize(stream));
      host.assign(raw.begin(), raw.end());
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
