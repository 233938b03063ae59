// The OpenMP backend's vectors and vector verbs (fem/operator.hpp): std::vectors in the run's
// precision, loops over them, and reductions in double over fixed chunks summed in order, so
// that a dot product has the same bits on any number of threads.
#pragma once

#include <omp.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <memory>
#include <vector>

#include <fem/error.hpp>
#include <fem/kernels/wave_step.hpp>
#include <fem/operator.hpp>

namespace fem::openmp {

/// Loops over vectors shorter than this run on the calling thread (see kMinParallelNodes).
inline constexpr std::int64_t kMinParallelEntries = 4096;
/// Entries per partial sum of a reduction: fixed, so that the summation order is.
inline constexpr std::int64_t kReductionChunk = 2048;

template <class T>
class HostVector final : public Vector {
 public:
  explicit HostVector(std::int64_t size)
      : Vector(size), data(static_cast<std::size_t>(size), T(0)) {}
  std::vector<T> data;
};

template <class T>
const std::vector<T>& host(const Vector& x) {
  return static_cast<const HostVector<T>&>(x).data;
}
template <class T>
std::vector<T>& host(Vector& x) {
  return static_cast<HostVector<T>&>(x).data;
}

/// Sum over i < n of term(i), in double: chunks of kReductionChunk in parallel, then their
/// partial sums in chunk order.
template <class Term>
double chunked_sum(std::int64_t n, const Term& term) {
  const std::int64_t chunks = (n + kReductionChunk - 1) / kReductionChunk;
  std::vector<double> partial(static_cast<std::size_t>(chunks), 0.0);
#pragma omp parallel for schedule(static) if (n >= kMinParallelEntries)
  for (std::int64_t c = 0; c < chunks; ++c) {
    double s = 0.0;
    const std::int64_t end = std::min(n, (c + 1) * kReductionChunk);
    for (std::int64_t i = c * kReductionChunk; i < end; ++i) s += term(i);
    partial[c] = s;
  }
  double sum = 0.0;
  for (const double p : partial) sum += p;
  return sum;
}

template <class T>
class LinearAlgebraImpl final : public LinearAlgebra {
 public:
  [[nodiscard]] Precision precision() const override {
    return std::is_same_v<T, float> ? Precision::Single : Precision::Double;
  }

 protected:
  std::unique_ptr<Vector> do_vector(std::int64_t size) override {
    return std::make_unique<HostVector<T>>(size);
  }
  void do_upload(const std::vector<double>& in, Vector& x) override {
    check(x, static_cast<std::int64_t>(in.size()));
    std::vector<T>& out = host<T>(x);
    for (std::size_t i = 0; i < in.size(); ++i) out[i] = static_cast<T>(in[i]);
  }
  void do_download(const Vector& x, std::vector<double>& out) override {
    const std::vector<T>& in = host<T>(x);
    out.assign(in.begin(), in.end());
  }
  void do_fill(Vector& x, double value) override {
    std::fill(host<T>(x).begin(), host<T>(x).end(), static_cast<T>(value));
  }
  void do_axpby(double a, const Vector& x, double b, Vector& y) override {
    check(y, x.size());
    const T* xs = host<T>(x).data();
    T* ys = host<T>(y).data();
    const T at = static_cast<T>(a), bt = static_cast<T>(b);
    const std::int64_t n = x.size();
    if (b == 0.0) {
#pragma omp parallel for schedule(static) if (n >= kMinParallelEntries)
      for (std::int64_t i = 0; i < n; ++i) ys[i] = at * xs[i];
    } else {
#pragma omp parallel for schedule(static) if (n >= kMinParallelEntries)
      for (std::int64_t i = 0; i < n; ++i) ys[i] = at * xs[i] + bt * ys[i];
    }
  }
  void do_multiply(const Vector& x, const Vector& y, Vector& z) override {
    check(y, x.size());
    check(z, x.size());
    const T* xs = host<T>(x).data();
    const T* ys = host<T>(y).data();
    T* zs = host<T>(z).data();
    const std::int64_t n = x.size();
#pragma omp parallel for schedule(static) if (n >= kMinParallelEntries)
    for (std::int64_t i = 0; i < n; ++i) zs[i] = xs[i] * ys[i];
  }
  void do_copy(const Vector& x, Vector& y) override {
    check(y, x.size());
    host<T>(y) = host<T>(x);
  }
  double do_dot(const Vector& x, const Vector& y) override {
    check(y, x.size());
    const T* xs = host<T>(x).data();
    const T* ys = host<T>(y).data();
    return chunked_sum(x.size(), [&](std::int64_t i) {
      return static_cast<double>(xs[i]) * static_cast<double>(ys[i]);
    });
  }
  double do_max_abs(const Vector& x) override {
    const T* xs = host<T>(x).data();
    double m = 0.0;
    const std::int64_t n = x.size();
#pragma omp parallel for schedule(static) if (n >= kMinParallelEntries) reduction(max : m)
    for (std::int64_t i = 0; i < n; ++i) m = std::max(m, std::abs(static_cast<double>(xs[i])));
    return m;
  }
  void do_block_multiply(const Vector& blocks, const Vector& x, Vector& y) override {
    check(blocks, 3 * x.size());
    check(y, x.size());
    const T* bs = host<T>(blocks).data();
    const T* xs = host<T>(x).data();
    T* ys = host<T>(y).data();
    const std::int64_t nodes = x.size() / 3;
#pragma omp parallel for schedule(static) if (nodes >= kMinParallelEntries / 3)
    for (std::int64_t n = 0; n < nodes; ++n) {
      const T* b = bs + 9 * n;
      const T* v = xs + 3 * n;
      T r[3];
      for (int i = 0; i < 3; ++i)
        r[i] = b[3 * i] * v[0] + b[3 * i + 1] * v[1] + b[3 * i + 2] * v[2];
      for (int i = 0; i < 3; ++i) ys[3 * n + i] = r[i];
    }
  }

  class CsrImpl final : public Matrix {
   public:
    explicit CsrImpl(const CsrMatrix& m)
        : Matrix(m.rows, m.cols),
          offsets(m.offsets),
          columns(m.columns),
          values(m.values.begin(), m.values.end()) {}
    std::vector<std::int64_t> offsets, columns;
    std::vector<T> values;
  };

  std::unique_ptr<Matrix> do_matrix(const CsrMatrix& m) override {
    return std::make_unique<CsrImpl>(m);
  }
  void do_sparse_multiply(const Matrix& a, const Vector& x, Vector& y) override {
    const auto& m = static_cast<const CsrImpl&>(a);
    check(x, m.cols());
    check(y, m.rows());
    const T* xs = host<T>(x).data();
    T* ys = host<T>(y).data();
    const std::int64_t rows = m.rows();
#pragma omp parallel for schedule(static) if (rows >= kMinParallelEntries)
    for (std::int64_t r = 0; r < rows; ++r) {
      T s = T(0);
      for (std::int64_t j = m.offsets[r]; j < m.offsets[r + 1]; ++j)
        s += m.values[j] * xs[m.columns[j]];
      ys[r] = s;
    }
  }

  class BlockCsrImpl final : public Matrix {
   public:
    explicit BlockCsrImpl(const BlockCsrMatrix& m)
        : Matrix(m.rows * m.block_size, m.rows * m.block_size),
          block_size(m.block_size),
          offsets(m.offsets),
          columns(m.columns),
          values(m.values.begin(), m.values.end()) {}
    int block_size;
    std::vector<std::int64_t> offsets;
    std::vector<std::int32_t> columns;
    std::vector<T> values;
  };

  class IndicesImpl final : public Indices {
   public:
    explicit IndicesImpl(const std::vector<std::int64_t>& at)
        : Indices(static_cast<std::int64_t>(at.size())), positions(at) {}
    std::vector<std::int64_t> positions;
  };

  std::unique_ptr<Matrix> do_block_matrix(const BlockCsrMatrix& m) override {
    return std::make_unique<BlockCsrImpl>(m);
  }
  std::unique_ptr<Indices> do_indices(const std::vector<std::int64_t>& at) override {
    return std::make_unique<IndicesImpl>(at);
  }
  void do_wave_step(const Matrix& k, const Vector& b, const Vector& u, Vector& v,
                    Vector& u_next) override {
    const auto& m = static_cast<const BlockCsrImpl&>(k);
    check(u, m.rows());
    check(v, m.rows());
    check(u_next, m.rows());
    check(b, m.rows() / m.block_size);
    if (m.block_size == 2)
      wave_step<2>(m, host<T>(b).data(), host<T>(u).data(), host<T>(v).data(),
                   host<T>(u_next).data());
    else
      wave_step<3>(m, host<T>(b).data(), host<T>(u).data(), host<T>(v).data(),
                   host<T>(u_next).data());
  }
  void do_wave_source(const Indices& at, const Vector& weights, double s, SourceMode mode,
                      const Vector& u, Vector& v, Vector& u_next) override {
    const std::vector<std::int64_t>& p = static_cast<const IndicesImpl&>(at).positions;
    const T* w = host<T>(weights).data();
    const T st = static_cast<T>(s);
    for (std::size_t k = 0; k < p.size(); ++k)
      kernels::wave_source_at<T>(p[k], st * w[k], mode == SourceMode::Displacement,
                                 host<T>(u).data(), host<T>(v).data(), host<T>(u_next).data());
  }
  void do_gather(const Vector& x, const Indices& at, Vector& out, std::int64_t offset) override {
    const std::vector<std::int64_t>& p = static_cast<const IndicesImpl&>(at).positions;
    const T* xs = host<T>(x).data();
    T* os = host<T>(out).data() + offset;
    for (std::size_t k = 0; k < p.size(); ++k) os[k] = xs[p[k]];
  }

 private:
  template <int BS>
  static void wave_step(const BlockCsrImpl& m, const T* b, const T* u, T* v, T* u_next) {
    const std::int64_t nodes = m.rows() / BS;
    const std::int64_t* offsets = m.offsets.data();
    const std::int32_t* columns = m.columns.data();
    const T* values = m.values.data();
#pragma omp parallel for schedule(static) if (nodes >= kMinParallelEntries / BS)
    for (std::int64_t n = 0; n < nodes; ++n)
      kernels::wave_node_step<BS, T>(n, offsets, columns, values, b, u, v, u_next);
  }

  static void check(const Vector& x, std::int64_t size) {
    if (x.size() != size)
      throw Error("openmp backend: a vector of " + std::to_string(x.size()) + " entries where " +
                  std::to_string(size) + " were expected (solver bug)");
  }
};

}  // namespace fem::openmp
