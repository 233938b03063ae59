// Owning device buffer (cudaMalloc/cudaFree) with typed upload and download.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
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
  /// Uploads host values, converting them to T (double -> float for single precision).
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
  }
  /// Downloads into `host` as U.
  template <class U>
  void download(std::vector<U>& host) const {
    std::vector<T> raw(size_);
    if (size_)
      FEM_CUDA_CHECK(cudaMemcpy(raw.data(), data_, size_ * sizeof(T), cudaMemcpyDeviceToHost));
    host.assign(raw.begin(), raw.end());
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

}  // namespace fem::cuda
