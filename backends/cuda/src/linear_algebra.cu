// The CUDA backend's vector verbs: one grid-wide kernel each. Reductions (dot, dot2, max_abs)
// run in double over a grid fixed by the vector's size (reduction_blocks), whose blocks stride
// over the vector and whose partials the last block to finish combines in a fixed tree: the
// summation order is the same on every run and every GPU, so a solve is reproducible bit for
// bit.
#include "linear_algebra.cuh"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>
#include <type_traits>

#include <fem/cuda/check.hpp>
#include <fem/cuda/element_kernels.cuh>  // grid_for
#include <fem/cuda/stream_recording.hpp>
#include <fem/error.hpp>
#include <fem/kernels/cg_scalars.hpp>
#include <fem/kernels/pivots.hpp>
#include <fem/kernels/wave_step.hpp>
#include <fem/sliced_block_rows.hpp>

#include "tuning.hpp"

namespace fem::cuda {
namespace {

constexpr int kThreads = 256;
/// The reductions' first stage: a grid that depends on the vector's size only, whatever the
/// device, so that the order in which entries are summed never changes. At most 512 blocks of
/// 256 threads, which fill an H100 (132 SMs) about 4 times over (a vector of 3 million entries
/// is 23 entries per thread); a vector of a few thousand entries gets one block per 256 entries
/// instead of 512 mostly idle ones (seed 001's real-time mode reduces 3,267 entries 32 times a
/// step).
constexpr int kReductionThreads = 256;
constexpr int kReductionBlocks = 512;
int reduction_blocks(std::int64_t n) {
  return static_cast<int>(std::clamp<std::int64_t>((n + kReductionThreads - 1) / kReductionThreads,
                                                   1, kReductionBlocks));
}
/// Values one reduction computes at most (dot2).
constexpr int kMaxReduced = 2;

enum class Combine { Sum, Max };

/// Combines the K values of every thread of a block of THREADS threads in a fixed tree; thread
/// 0 writes the block's K results to out. Within each warp by shuffles, then the warps' results
/// in the first warp: two barriers instead of one per level of a shared-memory tree (at small
/// sizes a reduction is a chain of such latencies). The tree is the same on every run.
template <int THREADS, int K, Combine C>
__device__ void reduce_block(const double (&v)[K], double* out) {
  static_assert(THREADS % 32 == 0 && THREADS <= 32 * 32);
  constexpr int kWarps = THREADS / 32;
  constexpr unsigned kAll = 0xffffffffu;
  const auto combine = [](double a, double b) { return C == Combine::Sum ? a + b : fmax(a, b); };
  __shared__ double warp_results[K][kWarps];
  const int t = static_cast<int>(threadIdx.x), lane = t % 32, warp = t / 32;
  double w[K];
  for (int k = 0; k < K; ++k) w[k] = v[k];
  for (int offset = 16; offset > 0; offset /= 2)
    for (int k = 0; k < K; ++k) w[k] = combine(w[k], __shfl_down_sync(kAll, w[k], offset));
  if (lane == 0)
    for (int k = 0; k < K; ++k) warp_results[k][warp] = w[k];
  __syncthreads();
  if (warp == 0) {
    // 0 is where a sum and a maximum of |x| start.
    for (int k = 0; k < K; ++k) w[k] = lane < kWarps ? warp_results[k][lane] : 0.0;
    for (int offset = 16; offset > 0; offset /= 2)
      for (int k = 0; k < K; ++k) w[k] = combine(w[k], __shfl_down_sync(kAll, w[k], offset));
    if (lane == 0)
      for (int k = 0; k < K; ++k) out[k] = w[k];
  }
  __syncthreads();  // warp_results is free for the next call
}

/// A reduction in one launch. Each block combines its K partial results over entries i = its
/// threads + multiples of the grid (Terms adds entry i's terms into v) and writes them to
/// partials[block][K]; the block that finishes last (by a ticket counter) combines all the
/// partials in a fixed tree, whichever block it is, so the order of the sums never changes, and
/// hands the K results to finish (StoreResults, or a conjugate-gradient update of its scalars).
/// One launch instead of a partials kernel and a finishing kernel: at small sizes a reduction
/// costs its launches.
template <int K, Combine C, class Terms, class Finish>
__global__ void __launch_bounds__(kReductionThreads)
    reduce_kernel(std::int64_t n, Terms terms, double* partials, unsigned* tickets, Finish finish) {
  static_assert(kReductionBlocks == 2 * kReductionThreads);
  double v[K];
  for (int k = 0; k < K; ++k) v[k] = 0.0;  // the sums' and the maxima of |x|'s start
  const std::int64_t step = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += step)
    terms(i, v);
  __shared__ double results[K];
  __shared__ bool last;
  reduce_block<kReductionThreads, K, C>(v, results);
  if (threadIdx.x == 0) {
    for (int k = 0; k < K; ++k) partials[K * blockIdx.x + k] = results[k];
    __threadfence();  // this block's partials are visible everywhere before its ticket
    last = atomicAdd(tickets, 1u) == gridDim.x - 1;
  }
  __syncthreads();
  if (!last) return;
  // Every partial is written: each thread combines two in a fixed order (0 past the grid: the
  // start of a sum and of a maximum of |x|), then the tree. The loads go to L2 (__ldcg): this
  // SM's L1 may hold the buffer from an earlier reduction.
  const int t = static_cast<int>(threadIdx.x);
  const int blocks = static_cast<int>(gridDim.x);
  for (int k = 0; k < K; ++k) {
    const double a = t < blocks ? __ldcg(partials + K * t + k) : 0.0;
    const int u = t + kReductionThreads;
    const double b = u < blocks ? __ldcg(partials + K * u + k) : 0.0;
    v[k] = C == Combine::Sum ? a + b : fmax(a, b);
  }
  reduce_block<kReductionThreads, K, C>(v, results);
  if (t == 0) {
    finish(results);
    *tickets = 0;  // for the next reduction on the stream
  }
}

/// Writes a reduction's K results to device memory (then copied to the host).
struct StoreResults {
  double* out;
  template <int K>
  __device__ void operator()(const double (&results)[K]) const {
    for (int k = 0; k < K; ++k) out[k] = results[k];
  }
};

template <class T>
struct DotTerms {
  const T* x;
  const T* y;
  __device__ void operator()(std::int64_t i, double (&v)[1]) const {
    v[0] += static_cast<double>(x[i]) * static_cast<double>(y[i]);
  }
};

template <class T>
struct Dot2Terms {
  const T* a;
  const T* b;
  const T* c;
  const T* d;
  __device__ void operator()(std::int64_t i, double (&v)[2]) const {
    v[0] += static_cast<double>(a[i]) * static_cast<double>(b[i]);
    v[1] += static_cast<double>(c[i]) * static_cast<double>(d[i]);
  }
};

template <class T>
struct MaxAbsTerms {
  const T* x;
  __device__ void operator()(std::int64_t i, double (&v)[1]) const {
    v[0] = fmax(v[0], fabs(static_cast<double>(x[i])));
  }
};

/// Enqueues a reduction over n entries whose K results go to finish, on the device.
template <int K, Combine C, class Terms, class Finish>
void reduce_on_device(std::int64_t n, const Terms& terms, const Finish& finish,
                      ReductionBuffers& buffers, cudaStream_t stream) {
  static_assert(K <= kMaxReduced);
  reduce_kernel<K, C, Terms, Finish><<<reduction_blocks(n), kReductionThreads, 0, stream>>>(
      n, terms, buffers.partials.data(), buffers.tickets.data(), finish);
  FEM_CUDA_CHECK_LAUNCH();
}

/// The K results of a reduction over n entries; the one place a vector verb waits for the GPU.
template <int K, Combine C, class Terms>
std::array<double, K> reduce(std::int64_t n, const Terms& terms, ReductionBuffers& buffers,
                             cudaStream_t stream) {
  reduce_on_device<K, C>(n, terms, StoreResults{buffers.result.data()}, buffers, stream);
  FEM_CUDA_CHECK(cudaMemcpyAsync(buffers.host.data(), buffers.result.data(), K * sizeof(double),
                                 cudaMemcpyDeviceToHost, stream));
  FEM_CUDA_CHECK(cudaStreamSynchronize(stream));
  std::array<double, K> out;
  for (int k = 0; k < K; ++k) out[k] = buffers.host[k];
  return out;
}

template <class T>
__global__ void fill_kernel(std::int64_t n, T value, T* x) {
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) x[i] = value;
}

/// y = a x + b y; READ_Y false: y = a x (y is not read, so NaN there does not survive).
template <class T, bool READ_Y>
__global__ void axpby_kernel(std::int64_t n, T a, const T* x, T b, T* y) {
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  if constexpr (READ_Y)
    y[i] = a * x[i] + b * y[i];
  else
    y[i] = a * x[i];
}

template <class T>
__global__ void multiply_kernel(std::int64_t n, const T* x, const T* y, T* z) {
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) z[i] = x[i] * y[i];
}

template <class T>
__global__ void invert_pivots_kernel(std::int64_t n, T* d) {
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) d[i] = static_cast<T>(kernels::inverted_pivot(static_cast<double>(d[i])));
}

/// y_n = B_n x_n for the row-major 3x3 blocks B_n.
template <class T>
__global__ void block_multiply_kernel(std::int64_t nodes, const T* blocks, const T* x, T* y) {
  const std::int64_t n = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (n >= nodes) return;
  const T* b = blocks + 9 * n;
  const T v[3] = {x[3 * n], x[3 * n + 1], x[3 * n + 2]};
  for (int i = 0; i < 3; ++i)
    y[3 * n + i] = b[3 * i] * v[0] + b[3 * i + 1] * v[1] + b[3 * i + 2] * v[2];
}

/// y = A x in compressed rows, one warp per row (a row of the assembled tangent holds about 81
/// entries on hexahedra): the lanes read consecutive entries, sum in double and combine by
/// shuffles in a fixed order.
template <class T>
__global__ void csr_multiply_kernel(std::int64_t rows, const std::int64_t* offsets,
                                    const std::int32_t* columns, const T* values, const T* x,
                                    T* y) {
  const std::int64_t row = (static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
  const int lane = static_cast<int>(threadIdx.x % 32);
  if (row >= rows) return;  // the whole warp: a warp holds one row
  double sum = 0.0;
  for (std::int64_t j = offsets[row] + lane; j < offsets[row + 1]; j += 32)
    sum += static_cast<double>(values[j]) * static_cast<double>(x[columns[j]]);
  for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_down_sync(0xffffffffu, sum, offset);
  if (lane == 0) y[row] = static_cast<T>(sum);
}

// Conjugate gradients with its scalars on the device: each verb is a reduction whose finishing
// thread updates the scalars, then (descend, turn) a vector update that reads them. Nothing
// comes back to the host but cg_progress().

class DeviceCgScalars final : public CgScalars {
 public:
  DeviceCgScalars() : values(kernels::cg::kSlots), host(kernels::cg::kSlots) {}
  DeviceArray<double> values;
  PinnedArray<double> host;
};

double* device_scalars(CgScalars& s) {
  return static_cast<DeviceCgScalars&>(s).values.data();
}

using CgStartFinish = kernels::cg::StartFinish;
using CgDescendFinish = kernels::cg::DescendFinish;
using CgTurnFinish = kernels::cg::TurnFinish;

/// x += alpha p, r -= alpha Ap (the default's axpby expressions), unless the solve has stopped.
template <class T>
__global__ void cg_descend_kernel(std::int64_t n, const double* s, const T* p, const T* ap, T* x,
                                  T* r) {
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) kernels::cg::descend_entry(s, i, p, ap, x, r);
}

/// cg_descend_kernel's x and r, then multiply_kernel's z = d .* r, for entry i, adding r . z and
/// r . r (Dot2Terms): the vector work of an iteration after the operator in one pass, with the
/// expressions of the verbs it replaces.
template <class T>
struct DescendScaleTerms {
  const double* s;
  const T* p;
  const T* ap;
  const T* d;
  T* x;
  T* r;
  T* z;
  __device__ void operator()(std::int64_t i, double (&v)[2]) const {
    kernels::cg::descend_entry(s, i, p, ap, x, r);
    const T ri = r[i];
    const T zi = d[i] * ri;
    z[i] = zi;
    v[0] += static_cast<double>(ri) * static_cast<double>(zi);
    v[1] += static_cast<double>(ri) * static_cast<double>(ri);
  }
};

/// p = z + beta p, unless the solve has stopped.
template <class T>
__global__ void cg_turn_kernel(std::int64_t n, const double* s, const T* z, T* p) {
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) kernels::cg::turn_entry(s, i, z, p);
}

template <class T>
class DeviceCsr final : public Matrix {
 public:
  DeviceCsr(const CsrMatrix& m, cudaStream_t stream) : Matrix(m.rows, m.cols) {
    if (m.cols > std::numeric_limits<std::int32_t>::max())
      throw Error("cuda backend: a sparse matrix of " + std::to_string(m.cols) +
                  " columns; the CUDA backend indexes columns in 32 bits");
    offsets.upload(m.offsets, stream);
    columns.upload(m.columns, stream);
    values.upload(m.values, stream);
  }
  DeviceArray<std::int64_t> offsets;
  DeviceArray<std::int32_t> columns;
  DeviceArray<T> values;
};

void check_size(const Vector& x, std::int64_t size) {
  if (x.size() != size)
    throw Error("cuda backend: a vector of " + std::to_string(x.size()) + " entries where " +
                std::to_string(size) + " were expected (solver bug)");
}

}  // namespace

BufferPool::~BufferPool() {
  for (const auto& [bytes, buffer] : free_) cudaFree(buffer);
}

void* BufferPool::take(std::size_t bytes) {
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    const auto it = free_.find(bytes);
    if (it != free_.end()) {
      void* buffer = it->second;
      free_.erase(it);
      return buffer;
    }
  }
  void* buffer = nullptr;
  FEM_CUDA_CHECK(cudaMalloc(&buffer, bytes));
  return buffer;
}

void BufferPool::give(std::size_t bytes, void* buffer) noexcept {
  try {
    const std::lock_guard<std::mutex> lock(mutex_);
    free_.emplace(bytes, buffer);
  } catch (...) {
    cudaFree(buffer);  // no memory to remember it by: give it back to CUDA instead
  }
}

ReductionBuffers::ReductionBuffers()
    : partials(static_cast<std::size_t>(kMaxReduced * kReductionBlocks)),
      result(kMaxReduced),
      tickets(1),
      host(kMaxReduced) {
  FEM_CUDA_CHECK(cudaMemset(tickets.data(), 0, tickets.bytes()));
}

template <class T>
LinearAlgebraImpl<T>::LinearAlgebraImpl() {
  FEM_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
}

template <class T>
LinearAlgebraImpl<T>::~LinearAlgebraImpl() {
  if (stream_) cudaStreamDestroy(stream_);
}

template <class T>
Precision LinearAlgebraImpl<T>::precision() const {
  return std::is_same_v<T, float> ? Precision::Single : Precision::Double;
}

template <class T>
void LinearAlgebraImpl<T>::synchronize() {
  FEM_CUDA_CHECK(cudaStreamSynchronize(stream_));
}

template <class T>
std::unique_ptr<Vector> LinearAlgebraImpl<T>::do_vector(std::int64_t size) {
  auto v = std::make_unique<DeviceVector<T>>(size, pool_);
  if (size > 0) FEM_CUDA_CHECK(cudaMemsetAsync(v->data(), 0, v->bytes(), stream_));
  return v;
}

template <class T>
void LinearAlgebraImpl<T>::do_upload(const std::vector<double>& host, Vector& x) {
  check_size(x, static_cast<std::int64_t>(host.size()));
  if (host.empty()) return;
  auto& v = static_cast<DeviceVector<T>&>(x);
  std::vector<T> converted;  // single precision: the values as T
  const T* source;
  if constexpr (std::is_same_v<T, double>) {
    source = host.data();
  } else {
    converted.assign(host.begin(), host.end());
    source = converted.data();
  }
  // Ordered after the work queued on the stream (a kernel still reading the old values); done
  // when this returns, since the host values are the caller's.
  FEM_CUDA_CHECK(cudaMemcpyAsync(v.data(), source, v.bytes(), cudaMemcpyHostToDevice, stream_));
  FEM_CUDA_CHECK(cudaStreamSynchronize(stream_));
}

template <class T>
void LinearAlgebraImpl<T>::do_download(const Vector& x, std::vector<double>& host) {
  const auto& v = static_cast<const DeviceVector<T>&>(x);
  host.resize(static_cast<std::size_t>(x.size()));
  std::vector<T> raw;  // single precision: the values as T, converted below
  T* target;
  if constexpr (std::is_same_v<T, double>) {
    target = host.data();
  } else {
    raw.resize(host.size());
    target = raw.data();
  }
  if (x.size() > 0)
    FEM_CUDA_CHECK(cudaMemcpyAsync(target, v.data(), v.bytes(), cudaMemcpyDeviceToHost, stream_));
  FEM_CUDA_CHECK(cudaStreamSynchronize(stream_));
  if constexpr (!std::is_same_v<T, double>) host.assign(raw.begin(), raw.end());
}

template <class T>
void LinearAlgebraImpl<T>::do_fill(Vector& x, double value) {
  if (x.size() == 0) return;
  fill_kernel<T><<<grid_for(x.size(), kThreads), kThreads, 0, stream_>>>(
      x.size(), static_cast<T>(value), device_data<T>(x));
  FEM_CUDA_CHECK_LAUNCH();
}

template <class T>
void LinearAlgebraImpl<T>::do_axpby(double a, const Vector& x, double b, Vector& y) {
  check_size(y, x.size());
  if (x.size() == 0) return;
  const unsigned grid = grid_for(x.size(), kThreads);
  if (b == 0.0)
    axpby_kernel<T, false><<<grid, kThreads, 0, stream_>>>(
        x.size(), static_cast<T>(a), device_data<T>(x), T(0), device_data<T>(y));
  else
    axpby_kernel<T, true><<<grid, kThreads, 0, stream_>>>(
        x.size(), static_cast<T>(a), device_data<T>(x), static_cast<T>(b), device_data<T>(y));
  FEM_CUDA_CHECK_LAUNCH();
}

template <class T>
void LinearAlgebraImpl<T>::do_invert_pivots(Vector& d) {
  if (d.size() == 0) return;
  invert_pivots_kernel<T>
      <<<grid_for(d.size(), kThreads), kThreads, 0, stream_>>>(d.size(), device_data<T>(d));
  FEM_CUDA_CHECK_LAUNCH();
}

template <class T>
void LinearAlgebraImpl<T>::do_multiply(const Vector& x, const Vector& y, Vector& z) {
  check_size(y, x.size());
  check_size(z, x.size());
  if (x.size() == 0) return;
  multiply_kernel<T><<<grid_for(x.size(), kThreads), kThreads, 0, stream_>>>(
      x.size(), device_data<T>(x), device_data<T>(y), device_data<T>(z));
  FEM_CUDA_CHECK_LAUNCH();
}

template <class T>
void LinearAlgebraImpl<T>::do_copy(const Vector& x, Vector& y) {
  check_size(y, x.size());
  if (x.size() == 0 || &x == &y) return;
  FEM_CUDA_CHECK(cudaMemcpyAsync(device_data<T>(y), device_data<T>(x),
                                 static_cast<std::size_t>(x.size()) * sizeof(T),
                                 cudaMemcpyDeviceToDevice, stream_));
}

template <class T>
double LinearAlgebraImpl<T>::do_dot(const Vector& x, const Vector& y) {
  check_size(y, x.size());
  return reduce<1, Combine::Sum>(x.size(), DotTerms<T>{device_data<T>(x), device_data<T>(y)},
                                 reduction_, stream_)[0];
}

template <class T>
std::array<double, 2> LinearAlgebraImpl<T>::do_dot2(const Vector& a, const Vector& b,
                                                    const Vector& c, const Vector& d) {
  check_size(b, a.size());
  check_size(c, a.size());
  check_size(d, a.size());
  return reduce<2, Combine::Sum>(
      a.size(),
      Dot2Terms<T>{device_data<T>(a), device_data<T>(b), device_data<T>(c), device_data<T>(d)},
      reduction_, stream_);
}

template <class T>
double LinearAlgebraImpl<T>::do_max_abs(const Vector& x) {
  return reduce<1, Combine::Max>(x.size(), MaxAbsTerms<T>{device_data<T>(x)}, reduction_,
                                 stream_)[0];
}

template <class T>
void LinearAlgebraImpl<T>::do_block_multiply(const Vector& blocks, const Vector& x, Vector& y) {
  check_size(blocks, 3 * x.size());
  check_size(y, x.size());
  const std::int64_t nodes = x.size() / 3;
  if (nodes == 0) return;
  block_multiply_kernel<T><<<grid_for(nodes, kThreads), kThreads, 0, stream_>>>(
      nodes, device_data<T>(blocks), device_data<T>(x), device_data<T>(y));
  FEM_CUDA_CHECK_LAUNCH();
}

template <class T>
std::unique_ptr<Matrix> LinearAlgebraImpl<T>::do_matrix(const CsrMatrix& host) {
  return std::make_unique<DeviceCsr<T>>(host, stream_);
}

template <class T>
void LinearAlgebraImpl<T>::do_sparse_multiply(const Matrix& a, const Vector& x, Vector& y) {
  const auto& m = static_cast<const DeviceCsr<T>&>(a);
  check_size(x, m.cols());
  check_size(y, m.rows());
  if (m.rows() == 0) return;
  csr_multiply_kernel<T><<<grid_for(32 * m.rows(), kThreads), kThreads, 0, stream_>>>(
      m.rows(), m.offsets.data(), m.columns.data(), m.values.data(), device_data<T>(x),
      device_data<T>(y));
  FEM_CUDA_CHECK_LAUNCH();
}

template <class T>
std::unique_ptr<CgScalars> LinearAlgebraImpl<T>::do_cg_scalars() {
  return std::make_unique<DeviceCgScalars>();
}

template <class T>
void LinearAlgebraImpl<T>::do_cg_start(const Vector& r, const Vector& z, double rr, double stop_rr,
                                       CgScalars& s) {
  check_size(z, r.size());
  reduce_on_device<1, Combine::Sum>(r.size(), DotTerms<T>{device_data<T>(r), device_data<T>(z)},
                                    CgStartFinish{device_scalars(s), rr, stop_rr}, reduction_,
                                    stream_);
}

template <class T>
void LinearAlgebraImpl<T>::do_cg_descend(const Vector& p, const Vector& ap, Vector& x, Vector& r,
                                         CgScalars& s) {
  check_size(ap, p.size());
  check_size(x, p.size());
  check_size(r, p.size());
  double* scalars = device_scalars(s);
  reduce_on_device<1, Combine::Sum>(p.size(), DotTerms<T>{device_data<T>(p), device_data<T>(ap)},
                                    CgDescendFinish{scalars}, reduction_, stream_);
  if (p.size() == 0) return;
  cg_descend_kernel<T><<<grid_for(p.size(), kThreads), kThreads, 0, stream_>>>(
      p.size(), scalars, device_data<T>(p), device_data<T>(ap), device_data<T>(x),
      device_data<T>(r));
  FEM_CUDA_CHECK_LAUNCH();
}

template <class T>
void LinearAlgebraImpl<T>::do_cg_turn(const Vector& r, const Vector& z, Vector& p, CgScalars& s) {
  check_size(z, r.size());
  check_size(p, r.size());
  double* scalars = device_scalars(s);
  reduce_on_device<2, Combine::Sum>(
      r.size(),
      Dot2Terms<T>{device_data<T>(r), device_data<T>(z), device_data<T>(r), device_data<T>(r)},
      CgTurnFinish{scalars}, reduction_, stream_);
  if (r.size() == 0) return;
  cg_turn_kernel<T><<<grid_for(r.size(), kThreads), kThreads, 0, stream_>>>(
      r.size(), scalars, device_data<T>(z), device_data<T>(p));
  FEM_CUDA_CHECK_LAUNCH();
}

template <class T>
void LinearAlgebraImpl<T>::do_cg_descend_scale_turn(const Vector& ap, const Vector& d, Vector& x,
                                                    Vector& r, Vector& z, Vector& p, CgScalars& s) {
  for (const Vector* v : {&ap, &d, static_cast<const Vector*>(&x), static_cast<const Vector*>(&r),
                          static_cast<const Vector*>(&z)})
    check_size(*v, p.size());
  double* scalars = device_scalars(s);
  reduce_on_device<1, Combine::Sum>(p.size(), DotTerms<T>{device_data<T>(p), device_data<T>(ap)},
                                    CgDescendFinish{scalars}, reduction_, stream_);
  reduce_on_device<2, Combine::Sum>(
      p.size(),
      DescendScaleTerms<T>{scalars, device_data<T>(p), device_data<T>(ap), device_data<T>(d),
                           device_data<T>(x), device_data<T>(r), device_data<T>(z)},
      CgTurnFinish{scalars}, reduction_, stream_);
  if (p.size() == 0) return;
  cg_turn_kernel<T><<<grid_for(p.size(), kThreads), kThreads, 0, stream_>>>(
      p.size(), scalars, device_data<T>(z), device_data<T>(p));
  FEM_CUDA_CHECK_LAUNCH();
}

template <class T>
CgProgress LinearAlgebraImpl<T>::do_cg_progress(CgScalars& s) {
  auto& d = static_cast<DeviceCgScalars&>(s);
  FEM_CUDA_CHECK(cudaMemcpyAsync(d.host.data(), d.values.data(), d.values.bytes(),
                                 cudaMemcpyDeviceToHost, stream_));
  FEM_CUDA_CHECK(cudaStreamSynchronize(stream_));
  return kernels::cg::progress(d.host.data());
}

template <class T>
std::unique_ptr<Recording> LinearAlgebraImpl<T>::do_record(const std::function<void()>& enqueue) {
  // Thread-local capture: other threads' CUDA calls (none today) are not disturbed, and a call
  // of this thread that cannot be captured fails at once.
  return record_stream(stream_, enqueue);
}

namespace {

// The explicit elastodynamic step (seed 002). The step reads the whole matrix once per step and
// little else, so its speed is the bandwidth at which the matrix streams in: the storage is
// sliced ELL with slices of one warp (SELL-32, fem/sliced_block_rows.hpp, as Pogo arranges its
// nodes so that a warp's loads coalesce, docs/waves.md): entry e of block j of the 32 rows of a
// slice is one contiguous load for the warp, and the lanes whose rows stop early issue no loads.

constexpr int kSliceRows = 32;
static_assert(kThreads % kSliceRows == 0, "a block holds whole slices");

/// The block matrix of wave_step in SELL-32, values in T.
template <class T>
class SellBlockMatrix final : public Matrix {
 public:
  SellBlockMatrix(const BlockCsrMatrix& m, cudaStream_t stream)
      : Matrix(m.rows * m.block_size, m.rows * m.block_size),
        block_size(m.block_size),
        nodes(m.rows),
        blocks(m.blocks()),
        streaming_loads(streaming_wave_loads()) {
    const SlicedBlockRows sell = sliced_block_rows(m, kSliceRows);
    stored_blocks = sell.stored_blocks;
    slice_starts.upload(sell.starts, stream);
    row_lengths.upload(sell.lengths, stream);
    columns.upload(sell.columns, stream);
    values.upload(sell.values, stream);
  }

  /// Bytes the matrix holds on the device.
  [[nodiscard]] std::size_t bytes() const {
    return slice_starts.bytes() + row_lengths.bytes() + columns.bytes() + values.bytes();
  }
  /// The fraction of the stored blocks that are padding (stored but never read).
  [[nodiscard]] double padding() const {
    return stored_blocks > 0
               ? static_cast<double>(stored_blocks - blocks) / static_cast<double>(stored_blocks)
               : 0.0;
  }

  int block_size;
  std::int64_t nodes;
  std::int64_t blocks;                     ///< the host matrix's
  std::int64_t stored_blocks = 0;          ///< with the padding
  bool streaming_loads;                    ///< FEM_CUDA_WAVE_LOADS=stream: __ldcs, not __ldg
  DeviceArray<std::int64_t> slice_starts;  ///< slices + 1: block slots before each slice
  DeviceArray<std::int32_t> row_lengths;   ///< blocks of each row
  DeviceArray<std::int32_t> columns;       ///< block column of each slot
  DeviceArray<T> values;                   ///< block_size^2 per slot, interleaved by lane
};

/// Positions in the algebra's vectors, with what the verbs need to know of them on the host.
class DeviceIndices final : public Indices {
 public:
  explicit DeviceIndices(const std::vector<std::int64_t>& at, cudaStream_t stream)
      : Indices(static_cast<std::int64_t>(at.size())) {
    std::vector<std::int64_t> sorted = at;
    std::sort(sorted.begin(), sorted.end());
    if (!sorted.empty() && sorted.front() < 0)
      throw Error("cuda backend: a negative vector position " + std::to_string(sorted.front()) +
                  " (solver bug)");
    distinct = std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end();
    end = sorted.empty() ? 0 : sorted.back() + 1;
    positions.upload(at, stream);
  }
  DeviceArray<std::int64_t> positions;
  bool distinct = true;  ///< no position twice: the sources may act in parallel
  std::int64_t end = 0;  ///< past the largest position
};

/// Whether FEM_CUDA_WAVE_REPORT asks block_matrix() to say how it stored a matrix.
bool report_wave_layout() {
  const char* env = std::getenv("FEM_CUDA_WAVE_REPORT");
  return env && *env && std::string(env) != "0";
}

/// A read of the matrix: through the read-only path, or streaming (STREAM: evict first).
template <bool STREAM, class T>
__device__ __forceinline__ T load_matrix(const T* p) {
  if constexpr (STREAM)
    return __ldcs(p);
  else
    return __ldg(p);
}

/// v_n <- (K u)_n + b_n v_n, u_next_n = u_n + v_n for node n = this thread, K in SELL-32.
template <int BS, class T, bool STREAM>
__global__ void __launch_bounds__(kThreads)
    wave_step_kernel(std::int64_t nodes, const std::int64_t* __restrict__ slice_starts,
                     const std::int32_t* __restrict__ row_lengths,
                     const std::int32_t* __restrict__ columns, const T* __restrict__ values,
                     const T* __restrict__ b, const T* __restrict__ u, T* __restrict__ v,
                     T* __restrict__ u_next) {
  const std::int64_t n = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (n >= nodes) return;
  const std::int64_t start = __ldg(slice_starts + n / kSliceRows);
  const int lane = static_cast<int>(n % kSliceRows);
  const std::int32_t* row_columns = columns + start + lane;
  const T* row_values = values + BS * BS * start + lane;
  T acc[BS];
  kernels::wave_row_product<BS, T>(
      n, 0, __ldg(row_lengths + n),
      [row_values](std::int64_t j, int e) {
        return load_matrix<STREAM>(row_values + (BS * BS * j + e) * kSliceRows);
      },
      [row_columns](std::int64_t j) { return load_matrix<STREAM>(row_columns + j * kSliceRows); },
      u, acc);
  kernels::wave_node_update<BS, T>(n, acc, b, u, v, u_next);
}

/// The sources at positions at[k], one per thread; a grid of one thread takes them in order
/// (a list that names a position twice: as the host, the later acts after the earlier).
template <class T>
__global__ void wave_source_kernel(std::int64_t count, const std::int64_t* __restrict__ at,
                                   const T* __restrict__ weights, T s, bool displacement,
                                   const T* __restrict__ u, T* __restrict__ v,
                                   T* __restrict__ u_next) {
  const std::int64_t step = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t k = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < count;
       k += step)
    kernels::wave_source_at<T>(at[k], s * weights[k], displacement, u, v, u_next);
}

template <class T>
__global__ void gather_kernel(std::int64_t count, const std::int64_t* __restrict__ at,
                              const T* __restrict__ x, T* __restrict__ out) {
  const std::int64_t k = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (k < count) out[k] = x[at[k]];
}

void check_positions(const DeviceIndices& at, const Vector& x) {
  if (at.end > x.size())
    throw Error("cuda backend: a position " + std::to_string(at.end - 1) + " in a vector of " +
                std::to_string(x.size()) + " entries (solver bug)");
}

}  // namespace

template <class T>
std::unique_ptr<Matrix> LinearAlgebraImpl<T>::do_block_matrix(const BlockCsrMatrix& host) {
  if (host.block_size != 2 && host.block_size != 3)
    throw Error("cuda backend: blocks of " + std::to_string(host.block_size) +
                " rows; the wave step takes 2 or 3");
  if (static_cast<std::int64_t>(host.offsets.size()) != host.rows + 1 ||
      static_cast<std::int64_t>(host.values.size()) !=
          host.block_size * host.block_size * host.blocks())
    throw Error(
        "cuda backend: a block matrix whose offsets or values do not match its rows and "
        "blocks (solver bug)");
  auto m = std::make_unique<SellBlockMatrix<T>>(host, stream_);
  if (report_wave_layout())
    std::fprintf(stderr,
                 "cuda wave matrix: %lld nodes, %dx%d blocks, %lld blocks stored as %lld in "
                 "SELL-%d (%.1f %% padding), %.1f MB, %s loads\n",
                 static_cast<long long>(m->nodes), m->block_size, m->block_size,
                 static_cast<long long>(m->blocks), static_cast<long long>(m->stored_blocks),
                 kSliceRows, 100.0 * m->padding(), static_cast<double>(m->bytes()) / 1e6,
                 m->streaming_loads ? "streaming" : "read-only");
  return m;
}

template <class T>
std::unique_ptr<Indices> LinearAlgebraImpl<T>::do_indices(const std::vector<std::int64_t>& host) {
  return std::make_unique<DeviceIndices>(host, stream_);
}

template <class T>
void LinearAlgebraImpl<T>::do_wave_step(const Matrix& k, const Vector& b, const Vector& u,
                                        Vector& v, Vector& u_next) {
  const auto& m = static_cast<const SellBlockMatrix<T>&>(k);
  check_size(u, m.rows());
  check_size(v, m.rows());
  check_size(u_next, m.rows());
  check_size(b, m.nodes);
  if (m.nodes == 0) return;
  const unsigned grid = grid_for(m.nodes, kThreads);
  const auto launch = [&](auto kernel) {
    kernel<<<grid, kThreads, 0, stream_>>>(
        m.nodes, m.slice_starts.data(), m.row_lengths.data(), m.columns.data(), m.values.data(),
        device_data<T>(b), device_data<T>(u), device_data<T>(v), device_data<T>(u_next));
  };
  if (m.block_size == 2)
    launch(m.streaming_loads ? wave_step_kernel<2, T, true> : wave_step_kernel<2, T, false>);
  else
    launch(m.streaming_loads ? wave_step_kernel<3, T, true> : wave_step_kernel<3, T, false>);
  FEM_CUDA_CHECK_LAUNCH();
}

template <class T>
void LinearAlgebraImpl<T>::do_wave_source(const Indices& at, const Vector& weights, double s,
                                          SourceMode mode, const Vector& u, Vector& v,
                                          Vector& u_next) {
  const auto& p = static_cast<const DeviceIndices&>(at);
  check_size(weights, p.size());
  check_size(v, u.size());
  check_size(u_next, u.size());
  check_positions(p, u);
  if (p.size() == 0) return;
  const unsigned grid = p.distinct ? grid_for(p.size(), kThreads) : 1;
  const int threads = p.distinct ? kThreads : 1;
  wave_source_kernel<T>
      <<<grid, threads, 0, stream_>>>(p.size(), p.positions.data(), device_data<T>(weights),
                                      static_cast<T>(s), mode == SourceMode::Displacement,
                                      device_data<T>(u), device_data<T>(v), device_data<T>(u_next));
  FEM_CUDA_CHECK_LAUNCH();
}

template <class T>
void LinearAlgebraImpl<T>::do_gather(const Vector& x, const Indices& at, Vector& out,
                                     std::int64_t offset) {
  const auto& p = static_cast<const DeviceIndices&>(at);
  check_positions(p, x);
  if (offset < 0 || offset + p.size() > out.size())
    throw Error("cuda backend: gather of " + std::to_string(p.size()) + " samples at offset " +
                std::to_string(offset) + " into a vector of " + std::to_string(out.size()) +
                " entries (solver bug)");
  if (p.size() == 0) return;
  gather_kernel<T><<<grid_for(p.size(), kThreads), kThreads, 0, stream_>>>(
      p.size(), p.positions.data(), device_data<T>(x), device_data<T>(out) + offset);
  FEM_CUDA_CHECK_LAUNCH();
}

template class LinearAlgebraImpl<float>;
template class LinearAlgebraImpl<double>;

std::unique_ptr<LinearAlgebra> make_linear_algebra(Precision precision) {
  if (precision == Precision::Single) return std::make_unique<LinearAlgebraImpl<float>>();
  return std::make_unique<LinearAlgebraImpl<double>>();
}

}  // namespace fem::cuda
