// Defaults of the optional verbs of the operator contract (fem/operator.hpp), built from the
// required ones: host round trips for the vector verbs, and colored probing of apply() for the
// diagonal, the node blocks and the assembled matrix.
#include "fem/operator.hpp"

#include <algorithm>
#include <cmath>

#include "fem/backend.hpp"
#include "fem/kernels/cg_scalars.hpp"
#include "fem/kernels/pivots.hpp"
#include "fem/kernels/wave_step.hpp"
#include "fem/operator_assembly.hpp"

namespace fem {

VerbTimes& VerbTimes::operator+=(const VerbTimes& o) {
  vector += o.vector;
  reduction += o.reduction;
  transfer += o.transfer;
  sparse += o.sparse;
  residual += o.residual;
  linearize += o.linearize;
  apply += o.apply;
  diagonal += o.diagonal;
  assemble += o.assemble;
  replay += o.replay;
  wave += o.wave;
  return *this;
}

void LinearAlgebra::do_cg_descend_scale_turn(const Vector& ap, const Vector& d, Vector& x,
                                             Vector& r, Vector& z, Vector& p, CgScalars& s) {
  do_cg_descend(p, ap, x, r, s);
  do_multiply(d, r, z);
  do_cg_turn(r, z, p, s);
}

std::unique_ptr<Recording> LinearAlgebra::do_record(const std::function<void()>&) {
  return nullptr;
}

double LinearAlgebra::do_max_abs(const Vector& x) {
  std::vector<double> h;
  do_download(x, h);
  double m = 0.0;
  for (const double v : h) m = std::max(m, std::abs(v));
  return m;
}

void LinearAlgebra::do_invert_pivots(Vector& d) {
  std::vector<double> h;
  do_download(d, h);
  for (double& x : h) x = kernels::inverted_pivot(x);
  do_upload(h, d);
}

void LinearAlgebra::do_block_multiply(const Vector& blocks, const Vector& x, Vector& y) {
  std::vector<double> b, v, r(static_cast<std::size_t>(x.size()));
  do_download(blocks, b);
  do_download(x, v);
  for (std::size_t n = 0; 3 * n < v.size(); ++n)
    for (int i = 0; i < 3; ++i)
      r[3 * n + i] = b[9 * n + 3 * i] * v[3 * n] + b[9 * n + 3 * i + 1] * v[3 * n + 1] +
                     b[9 * n + 3 * i + 2] * v[3 * n + 2];
  do_upload(r, y);
}

namespace {

/// The default matrix: kept on the host, products through host copies of the vectors.
class HostMatrix final : public Matrix {
 public:
  explicit HostMatrix(const CsrMatrix& m) : Matrix(m.rows, m.cols), csr(m) {}
  CsrMatrix csr;
};

/// The default block matrix and indices: kept on the host.
class HostBlockMatrix final : public Matrix {
 public:
  explicit HostBlockMatrix(const BlockCsrMatrix& m)
      : Matrix(m.rows * m.block_size, m.rows * m.block_size), bsr(m) {}
  BlockCsrMatrix bsr;
};

class HostIndices final : public Indices {
 public:
  explicit HostIndices(const std::vector<std::int64_t>& at)
      : Indices(static_cast<std::int64_t>(at.size())), positions(at) {}
  std::vector<std::int64_t> positions;
};

template <int BS>
void host_wave_step(const BlockCsrMatrix& k, const std::vector<double>& b,
                    const std::vector<double>& u, std::vector<double>& v,
                    std::vector<double>& u_next) {
  for (std::int64_t n = 0; n < k.rows; ++n)
    kernels::wave_node_step<BS, double>(n, k.offsets.data(), k.columns.data(), k.values.data(),
                                        b.data(), u.data(), v.data(), u_next.data());
}

}  // namespace

std::unique_ptr<Matrix> LinearAlgebra::do_block_matrix(const BlockCsrMatrix& host) {
  return std::make_unique<HostBlockMatrix>(host);
}

std::unique_ptr<Indices> LinearAlgebra::do_indices(const std::vector<std::int64_t>& host) {
  return std::make_unique<HostIndices>(host);
}

void LinearAlgebra::do_wave_step(const Matrix& k, const Vector& b, const Vector& u, Vector& v,
                                 Vector& u_next) {
  const auto* m = dynamic_cast<const HostBlockMatrix*>(&k);
  if (m == nullptr) throw Error("wave_step: the matrix was not made by block_matrix (solver bug)");
  std::vector<double> hb, hu, hv, hn;
  do_download(b, hb);
  do_download(u, hu);
  do_download(v, hv);
  hn.resize(hu.size());
  if (m->bsr.block_size == 2)
    host_wave_step<2>(m->bsr, hb, hu, hv, hn);
  else
    host_wave_step<3>(m->bsr, hb, hu, hv, hn);
  do_upload(hv, v);
  do_upload(hn, u_next);
}

void LinearAlgebra::do_wave_source(const Indices& at, const Vector& weights, double s,
                                   SourceMode mode, const Vector& u, Vector& v, Vector& u_next) {
  const auto& p = static_cast<const HostIndices&>(at).positions;
  std::vector<double> hw, hu, hv, hn;
  do_download(weights, hw);
  do_download(u, hu);
  do_download(v, hv);
  do_download(u_next, hn);
  for (std::size_t k = 0; k < p.size(); ++k)
    kernels::wave_source_at<double>(p[k], s * hw[k], mode == SourceMode::Displacement, hu.data(),
                                    hv.data(), hn.data());
  do_upload(hv, v);
  do_upload(hn, u_next);
}

void LinearAlgebra::do_gather(const Vector& x, const Indices& at, Vector& out,
                              std::int64_t offset) {
  const auto& p = static_cast<const HostIndices&>(at).positions;
  std::vector<double> hx, ho;
  do_download(x, hx);
  do_download(out, ho);
  for (std::size_t k = 0; k < p.size(); ++k)
    ho[static_cast<std::size_t>(offset) + k] = hx[static_cast<std::size_t>(p[k])];
  do_upload(ho, out);
}

std::unique_ptr<Matrix> LinearAlgebra::do_matrix(const CsrMatrix& host) {
  return std::make_unique<HostMatrix>(host);
}

void LinearAlgebra::do_sparse_multiply(const Matrix& a, const Vector& x, Vector& y) {
  const CsrMatrix& m = static_cast<const HostMatrix&>(a).csr;
  std::vector<double> v, r(static_cast<std::size_t>(m.rows), 0.0);
  do_download(x, v);
  for (std::int64_t i = 0; i < m.rows; ++i)
    for (std::int64_t j = m.offsets[i]; j < m.offsets[i + 1]; ++j)
      r[i] += m.values[j] * v[m.columns[j]];
  do_upload(r, y);
}

namespace {

/// The default conjugate-gradient scalars: on the host.
class HostCgScalars final : public CgScalars {
 public:
  double values[kernels::cg::kSlots] = {};
};

double* host_scalars(CgScalars& s) {
  return static_cast<HostCgScalars&>(s).values;
}

}  // namespace

std::unique_ptr<CgScalars> LinearAlgebra::do_cg_scalars() {
  return std::make_unique<HostCgScalars>();
}

void LinearAlgebra::do_cg_start(const Vector& r, const Vector& z, double rr, double stop_rr,
                                CgScalars& s) {
  kernels::cg::start(host_scalars(s), do_dot(r, z), rr, stop_rr);
}

void LinearAlgebra::do_cg_descend(const Vector& p, const Vector& ap, Vector& x, Vector& r,
                                  CgScalars& s) {
  double* h = host_scalars(s);
  if (!kernels::cg::running(h)) return;
  kernels::cg::descend(h, do_dot(p, ap));
  if (!kernels::cg::running(h)) return;
  do_axpby(h[kernels::cg::kAlpha], p, 1.0, x);
  do_axpby(-h[kernels::cg::kAlpha], ap, 1.0, r);
}

void LinearAlgebra::do_cg_turn(const Vector& r, const Vector& z, Vector& p, CgScalars& s) {
  double* h = host_scalars(s);
  if (!kernels::cg::running(h)) return;
  const auto [rz, rr] = do_dot2(r, z, r, r);
  kernels::cg::turn(h, rz, rr);
  if (kernels::cg::running(h)) do_axpby(1.0, z, h[kernels::cg::kBeta], p);
}

CgProgress LinearAlgebra::do_cg_progress(CgScalars& s) {
  return kernels::cg::progress(host_scalars(s));
}

NonlinearOperator::NonlinearOperator(const System& system) : system_(system) {}

std::int64_t NonlinearOperator::size() const {
  return 3 * system_.num_nodes;
}

namespace {

/// Greedy colouring in which nodes of one colour are more than `distance` (1 or 2) edges apart
/// in the tangent's graph.
std::vector<int> colour_nodes(const NodeGraph& g, int distance, int& colours) {
  const std::size_t nn = g.offsets.size() - 1;
  std::vector<int> colour(nn, -1);
  std::vector<std::size_t> used_by;  // used_by[c] == n + 1: colour c is taken near node n
  colours = 0;
  for (std::size_t n = 0; n < nn; ++n) {
    const auto mark = [&](std::int32_t m) {
      const int c = colour[m];
      if (c >= 0) used_by[c] = n + 1;
    };
    for (std::int64_t j = g.offsets[n]; j < g.offsets[n + 1]; ++j) {
      const std::int32_t m = g.neighbours[j];
      mark(m);
      if (distance > 1)
        for (std::int64_t l = g.offsets[m]; l < g.offsets[m + 1]; ++l) mark(g.neighbours[l]);
    }
    int c = 0;
    while (c < colours && used_by[c] == n + 1) ++c;
    if (c == colours) {
      ++colours;
      used_by.push_back(0);
    }
    colour[n] = c;
  }
  return colour;
}

/// Probes the operator with one colour and component at a time and calls
/// take(row node, column node, component k, the 3 entries of column k of block (row, column)).
/// Colours of distance 1 recover the diagonal blocks, of distance 2 every block.
template <class Take>
void probe(NonlinearOperator& op, const NodeGraph& g, int distance, const Take& take) {
  const System& s = op.system();
  int colours = 0;
  const std::vector<int> colour = colour_nodes(g, distance, colours);
  LinearAlgebra& la = op.algebra();
  auto v = la.vector(op.size());
  auto y = la.vector(op.size());
  std::vector<double> hv(static_cast<std::size_t>(op.size())), hy;
  for (int c = 0; c < colours; ++c)
    for (int k = 0; k < 3; ++k) {
      std::fill(hv.begin(), hv.end(), 0.0);
      for (std::int64_t n = 0; n < s.num_nodes; ++n)
        if (colour[n] == c && s.prescribed_amplitude[3 * n + k] < 0) hv[3 * n + k] = 1.0;
      la.upload(hv, *v);
      op.apply(*v, *y);
      la.download(*y, hy);
      for (std::int64_t n = 0; n < s.num_nodes; ++n) {
        if (distance == 1) {
          if (colour[n] == c) take(n, n, k, &hy[3 * n]);
          continue;
        }
        for (std::int64_t j = g.offsets[n]; j < g.offsets[n + 1]; ++j)
          if (colour[g.neighbours[j]] == c) {
            take(n, g.neighbours[j], k, &hy[3 * n]);
            break;
          }
      }
    }
}

/// Identity rows and columns at prescribed dofs: entry (i, k) of block (row, col).
bool constrained_entry(const System& s, std::int64_t row, int i, std::int64_t col, int k) {
  return s.prescribed_amplitude[3 * row + i] >= 0 || s.prescribed_amplitude[3 * col + k] >= 0;
}

}  // namespace

void NonlinearOperator::do_block_diagonal(Vector& blocks) {
  const System& s = system_;
  std::vector<double> out(static_cast<std::size_t>(9 * s.num_nodes), 0.0);
  probe(*this, tangent_graph(s), 1, [&](std::int64_t n, std::int64_t, int k, const double* column) {
    for (int i = 0; i < 3; ++i)
      if (!constrained_entry(s, n, i, n, k)) out[9 * n + 3 * i + k] = column[i];
  });
  for (std::int64_t n = 0; n < s.num_nodes; ++n)
    for (int i = 0; i < 3; ++i)
      if (s.prescribed_amplitude[3 * n + i] >= 0) out[9 * n + 4 * i] = 1.0;
  algebra().upload(out, blocks);
}

void NonlinearOperator::do_diagonal(Vector& d) {
  const System& s = system_;
  std::vector<double> out(static_cast<std::size_t>(3 * s.num_nodes), 1.0);
  probe(*this, tangent_graph(s), 1, [&](std::int64_t n, std::int64_t, int k, const double* column) {
    if (s.prescribed_amplitude[3 * n + k] < 0) out[3 * n + k] = column[k];
  });
  algebra().upload(out, d);
}

void NonlinearOperator::do_assemble(CsrMatrix& a) {
  const System& s = system_;
  const NodeGraph g = tangent_graph(s);
  a = tangent_matrix_pattern(s, g);
  probe(*this, g, 2, [&](std::int64_t n, std::int64_t m, int k, const double* column) {
    const std::int64_t p = g.position(static_cast<std::int32_t>(n), static_cast<std::int32_t>(m));
    for (int i = 0; i < 3; ++i)
      if (!constrained_entry(s, n, i, m, k)) a.values[a.offsets[3 * n + i] + 3 * p + k] = column[i];
  });
  for (std::int64_t n = 0; n < s.num_nodes; ++n)
    for (int i = 0; i < 3; ++i)
      if (s.prescribed_amplitude[3 * n + i] >= 0)
        a.values[a.offsets[3 * n + i] +
                 3 * g.position(static_cast<std::int32_t>(n), static_cast<std::int32_t>(n)) + i] =
            1.0;
}

}  // namespace fem
