// The CUDA backend's vectors and vector verbs (fem/operator.hpp): device arrays in the run's
// precision and one kernel per verb, all enqueued on the algebra's stream (which the operator
// built on it shares). The host waits only where a verb returns a value (the reductions) or
// crosses to the host (upload, download), and in synchronize(), which the verb timers call.
#pragma once

#include <cuda_runtime.h>

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <utility>
#include <vector>

#include <fem/operator.hpp>

#include "device_array.cuh"

namespace fem::cuda {

/// The device buffers of dropped vectors, by size, handed to the next vector() of that size:
/// solvers make and drop the same few vectors in every Newton iteration and linear solve, and
/// cudaFree waits for the whole device while cudaMalloc costs tens of microseconds. A buffer is
/// reused in stream order (every verb of an algebra runs on its one stream), so work still queued
/// on a dropped vector finishes before its next owner's. Freed with the pool, when the algebra
/// and all its vectors are gone.
class BufferPool {
 public:
  BufferPool() = default;
  ~BufferPool();
  BufferPool(const BufferPool&) = delete;
  BufferPool& operator=(const BufferPool&) = delete;
  void* take(std::size_t bytes);
  void give(std::size_t bytes, void* buffer) noexcept;

 private:
  std::mutex mutex_;
  std::unordered_multimap<std::size_t, void*> free_;
};

template <class T>
class DeviceVector final : public Vector {
 public:
  DeviceVector(std::int64_t size, std::shared_ptr<BufferPool> pool)
      : Vector(size), pool_(std::move(pool)) {
    if (size > 0) data_ = static_cast<T*>(pool_->take(bytes()));
  }
  ~DeviceVector() override {
    if (data_) pool_->give(bytes(), data_);
  }
  [[nodiscard]] T* data() { return data_; }
  [[nodiscard]] const T* data() const { return data_; }
  [[nodiscard]] std::size_t bytes() const { return static_cast<std::size_t>(size()) * sizeof(T); }

 private:
  std::shared_ptr<BufferPool> pool_;
  T* data_ = nullptr;
};

template <class T>
const T* device_data(const Vector& x) {
  return static_cast<const DeviceVector<T>&>(x).data();
}
template <class T>
T* device_data(Vector& x) {
  return static_cast<DeviceVector<T>&>(x).data();
}

/// The device buffers of the two-stage reductions and the page-locked host copy of the result.
struct ReductionBuffers {
  ReductionBuffers();
  DeviceArray<double> partials;  ///< [block][value]
  DeviceArray<double> result;
  DeviceArray<unsigned> tickets;  ///< blocks done with the reduction under way (0 between)
  PinnedArray<double> host;
};

template <class T>
class LinearAlgebraImpl final : public LinearAlgebra {
 public:
  LinearAlgebraImpl();
  ~LinearAlgebraImpl() override;
  LinearAlgebraImpl(const LinearAlgebraImpl&) = delete;
  LinearAlgebraImpl& operator=(const LinearAlgebraImpl&) = delete;

  [[nodiscard]] Precision precision() const override;
  void synchronize() override;
  /// The stream every verb of this algebra, and of the operators built on it, is enqueued on.
  [[nodiscard]] cudaStream_t stream() const { return stream_; }
  /// A read of the scalars is a round trip (15-25 us on the H100).
  [[nodiscard]] int cg_progress_interval() const override { return 8; }

 protected:
  std::unique_ptr<Vector> do_vector(std::int64_t size) override;
  void do_upload(const std::vector<double>& host, Vector& x) override;
  void do_download(const Vector& x, std::vector<double>& host) override;
  void do_fill(Vector& x, double value) override;
  void do_axpby(double a, const Vector& x, double b, Vector& y) override;
  void do_multiply(const Vector& x, const Vector& y, Vector& z) override;
  void do_copy(const Vector& x, Vector& y) override;
  double do_dot(const Vector& x, const Vector& y) override;
  std::array<double, 2> do_dot2(const Vector& a, const Vector& b, const Vector& c,
                                const Vector& d) override;
  double do_max_abs(const Vector& x) override;
  void do_invert_pivots(Vector& d) override;
  void do_block_multiply(const Vector& blocks, const Vector& x, Vector& y) override;
  std::unique_ptr<Matrix> do_matrix(const CsrMatrix& host) override;
  void do_sparse_multiply(const Matrix& a, const Vector& x, Vector& y) override;
  std::unique_ptr<CgScalars> do_cg_scalars() override;
  void do_cg_start(const Vector& r, const Vector& z, double rr, double stop_rr,
                   CgScalars& s) override;
  void do_cg_descend(const Vector& p, const Vector& ap, Vector& x, Vector& r,
                     CgScalars& s) override;
  void do_cg_turn(const Vector& r, const Vector& z, Vector& p, CgScalars& s) override;
  CgProgress do_cg_progress(CgScalars& s) override;
  /// Two reductions and one launch: p . Ap (alpha); x, r, z = d .* r with r . z and r . r
  /// (beta); p.
  void do_cg_descend_scale_turn(const Vector& ap, const Vector& d, Vector& x, Vector& r, Vector& z,
                                Vector& p, CgScalars& s) override;
  /// Captures the stream into a CUDA graph and instantiates it.
  std::unique_ptr<Recording> do_record(const std::function<void()>& enqueue) override;
  /// The block matrix in sliced ELL (SellBlockMatrix in linear_algebra.cu): a warp's loads of a
  /// block entry are one coalesced transaction.
  std::unique_ptr<Matrix> do_block_matrix(const BlockCsrMatrix& host) override;
  std::unique_ptr<Indices> do_indices(const std::vector<std::int64_t>& host) override;
  /// One thread per node, one launch; the host's order of the sums in a row.
  void do_wave_step(const Matrix& k, const Vector& b, const Vector& u, Vector& v,
                    Vector& u_next) override;
  void do_wave_source(const Indices& at, const Vector& weights, double s, SourceMode mode,
                      const Vector& u, Vector& v, Vector& u_next) override;
  void do_gather(const Vector& x, const Indices& at, Vector& out, std::int64_t offset) override;

 private:
  cudaStream_t stream_ = nullptr;
  ReductionBuffers reduction_;
  std::shared_ptr<BufferPool> pool_ = std::make_shared<BufferPool>();
};

/// The CUDA vectors and verbs in `precision`, on the current device.
std::unique_ptr<LinearAlgebra> make_linear_algebra(Precision precision);

}  // namespace fem::cuda
