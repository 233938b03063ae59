// The CUDA backend's vector verbs: one grid-wide kernel each. Reductions (dot, dot2, max_abs)
// run in double in two stages over a fixed grid, kReductionBlocks blocks that stride over the
// vector, then one block that combines their partials in a fixed tree: the summation order is
// the same on every run and every GPU, so a solve is reproducible bit for bit.
#include "linear_algebra.cuh"

#include <cuda_runtime.h>

#include <limits>
#include <string>
#include <type_traits>

#include <fem/cuda/check.hpp>
#include <fem/cuda/element_kernels.cuh>  // grid_for
#include <fem/error.hpp>
#include <fem/kernels/cg_scalars.hpp>

namespace fem::cuda {
namespace {

constexpr int kThreads = 256;
/// The reductions' first stage: a fixed grid, whatever the device, so that the order in which
/// entries are summed never changes. 512 blocks of 256 threads fill an H100 (132 SMs) about 4
/// times over; a vector of 3 million entries is 23 entries per thread.
constexpr int kReductionThreads = 256;
constexpr int kReductionBlocks = 512;
/// Values one reduction computes at most (dot2).
constexpr int kMaxReduced = 2;

enum class Combine { Sum, Max };

/// Combines the K values of every thread of a block of THREADS threads in a fixed tree; thread
/// 0 writes the block's K results to out.
template <int THREADS, int K, Combine C>
__device__ void reduce_block(const double (&v)[K], double* out) {
  __shared__ double buffer[K][THREADS];
  const int t = static_cast<int>(threadIdx.x);
  for (int k = 0; k < K; ++k) buffer[k][t] = v[k];
  __syncthreads();
  for (int stride = THREADS / 2; stride > 0; stride /= 2) {
    if (t < stride)
      for (int k = 0; k < K; ++k) {
        if constexpr (C == Combine::Sum)
          buffer[k][t] += buffer[k][t + stride];
        else
          buffer[k][t] = fmax(buffer[k][t], buffer[k][t + stride]);
      }
    __syncthreads();
  }
  if (t == 0)
    for (int k = 0; k < K; ++k) out[k] = buffer[k][0];
}

/// Stage 1: each block's K partial results over entries i = its threads + multiples of the
/// grid, into partials[block][K]. Terms adds entry i's terms into v.
template <int K, Combine C, class Terms>
__global__ void __launch_bounds__(kReductionThreads)
    reduce_partials_kernel(std::int64_t n, Terms terms, double* partials) {
  double v[K];
  for (int k = 0; k < K; ++k) v[k] = 0.0;  // the sums' and the maxima of |x|'s start
  const std::int64_t step = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += step)
    terms(i, v);
  reduce_block<kReductionThreads, K, C>(v, partials + K * blockIdx.x);
}

/// Stage 2: one block of kReductionBlocks threads combines the partials into the K results,
/// which its thread 0 hands to finish (StoreResults, or a conjugate-gradient update of its
/// scalars).
template <int K, Combine C, class Finish>
__global__ void __launch_bounds__(kReductionBlocks)
    finish_reduction_kernel(const double* partials, Finish finish) {
  __shared__ double results[K];
  double v[K];
  for (int k = 0; k < K; ++k) v[k] = partials[K * threadIdx.x + k];
  reduce_block<kReductionBlocks, K, C>(v, results);
  if (threadIdx.x == 0) finish(results);
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
  reduce_partials_kernel<K, C, Terms>
      <<<kReductionBlocks, kReductionThreads, 0, stream>>>(n, terms, buffers.partials.data());
  FEM_CUDA_CHECK_LAUNCH();
  finish_reduction_kernel<K, C, Finish>
      <<<1, kReductionBlocks, 0, stream>>>(buffers.partials.data(), finish);
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

struct CgStartFinish {
  double* s;
  double rr, stop_rr;
  __device__ void operator()(const double (&rz)[1]) const {
    kernels::cg::start(s, rz[0], rr, stop_rr);
  }
};

struct CgDescendFinish {
  double* s;
  __device__ void operator()(const double (&pap)[1]) const { kernels::cg::descend(s, pap[0]); }
};

struct CgTurnFinish {
  double* s;
  __device__ void operator()(const double (&rz_rr)[2]) const {
    kernels::cg::turn(s, rz_rr[0], rz_rr[1]);
  }
};

/// x += alpha p, r -= alpha Ap (the default's axpby expressions), unless the solve has stopped.
template <class T>
__global__ void cg_descend_kernel(std::int64_t n, const double* s, const T* p, const T* ap, T* x,
                                  T* r) {
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n || !kernels::cg::running(s)) return;
  const T alpha = static_cast<T>(s[kernels::cg::kAlpha]);
  x[i] = alpha * p[i] + T(1) * x[i];
  r[i] = -alpha * ap[i] + T(1) * r[i];
}

/// p = z + beta p, unless the solve has stopped.
template <class T>
__global__ void cg_turn_kernel(std::int64_t n, const double* s, const T* z, T* p) {
  const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n || !kernels::cg::running(s)) return;
  p[i] = T(1) * z[i] + static_cast<T>(s[kernels::cg::kBeta]) * p[i];
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

ReductionBuffers::ReductionBuffers()
    : partials(static_cast<std::size_t>(kMaxReduced * kReductionBlocks)),
      result(kMaxReduced),
      host(kMaxReduced) {}

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
  auto v = std::make_unique<DeviceVector<T>>(size);
  if (size > 0) FEM_CUDA_CHECK(cudaMemsetAsync(v->values.data(), 0, v->values.bytes(), stream_));
  return v;
}

template <class T>
void LinearAlgebraImpl<T>::do_upload(const std::vector<double>& host, Vector& x) {
  check_size(x, static_cast<std::int64_t>(host.size()));
  static_cast<DeviceVector<T>&>(x).values.upload(host, stream_);
}

template <class T>
void LinearAlgebraImpl<T>::do_download(const Vector& x, std::vector<double>& host) {
  static_cast<const DeviceVector<T>&>(x).values.download(host, stream_);
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
CgProgress LinearAlgebraImpl<T>::do_cg_progress(CgScalars& s) {
  auto& d = static_cast<DeviceCgScalars&>(s);
  FEM_CUDA_CHECK(cudaMemcpyAsync(d.host.data(), d.values.data(), d.values.bytes(),
                                 cudaMemcpyDeviceToHost, stream_));
  FEM_CUDA_CHECK(cudaStreamSynchronize(stream_));
  return kernels::cg::progress(d.host.data());
}

template class LinearAlgebraImpl<float>;
template class LinearAlgebraImpl<double>;

std::unique_ptr<LinearAlgebra> make_linear_algebra(Precision precision) {
  if (precision == Precision::Single) return std::make_unique<LinearAlgebraImpl<float>>();
  return std::make_unique<LinearAlgebraImpl<double>>();
}

}  // namespace fem::cuda
