// The elastodynamic solver's stiffness: the materials' tangent at the reference state (probed
// through the backend), K assembled in node blocks, and the stability limit of M^-1 K.
#include <Eigen/Dense>
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "fem/error.hpp"
#include "fem/operator_assembly.hpp"
#include "fem/solver/explicit_system.hpp"
#include "fem/solver/wave_setup.hpp"

namespace fem {

namespace {

constexpr int kVoigt[6][2] = {{0, 0}, {1, 1}, {2, 2}, {0, 1}, {1, 2}, {0, 2}};

/// The unit tetrahedron (nodes 0, e_x, e_y, e_z) of one block's material, one point, volume 1/6.
System unit_tetrahedron(const ModelBlock& b) {
  System s;
  s.num_nodes = 4;
  s.lumped_mass.assign(4, 0.25);
  BlockSystem bs;
  bs.name = b.spec->name;
  bs.family = Family::Isoparametric;
  bs.nodes_per_element = 4;
  bs.quadrature_points = 1;
  bs.num_elements = 1;
  bs.connectivity = {0, 1, 2, 3};
  bs.shape_gradients = {-1, -1, -1, 1, 0, 0, 0, 1, 0, 0, 0, 1};
  bs.quadrature_volumes = {1.0 / 6.0};
  bs.material = b.material;
  bs.material_params = b.params;
  s.blocks.push_back(std::move(bs));
  s.num_force_slots = 4;
  build_force_incidence(s);
  s.prescribed_amplitude.assign(12, -1);
  s.prescribed_value.assign(12, 0.0);
  s.load_amplitude.assign(12, -1);
  s.load_value.assign(12, 0.0);
  s.initial_displacement.assign(12, 0.0);
  s.initial_previous_displacement.assign(12, 0.0);
  s.coordinates = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
  s.time_step = 1.0;
  return s;
}

double entry(const CsrMatrix& m, std::int64_t row, std::int64_t col) {
  for (std::int64_t j = m.offsets[row]; j < m.offsets[row + 1]; ++j)
    if (m.columns[j] == col) return m.values[j];
  return 0.0;
}

/// Element colours: no two elements of a colour share a node (greedy, in block and element
/// order). Returns, per colour, the (block, element) pairs in that order.
std::vector<std::vector<std::pair<int, std::int64_t>>> colour_elements(const System& sys) {
  std::vector<std::uint64_t> used(static_cast<std::size_t>(sys.num_nodes), 0);
  std::vector<std::vector<std::pair<int, std::int64_t>>> colours;
  // Rounds of 64 colours: elements that find no free colour in a round wait for the next one.
  std::vector<std::pair<int, std::int64_t>> pending;
  for (int b = 0; b < static_cast<int>(sys.blocks.size()); ++b)
    for (std::int64_t e = 0; e < sys.blocks[b].num_elements; ++e) pending.emplace_back(b, e);
  while (!pending.empty()) {
    std::fill(used.begin(), used.end(), 0);
    const std::size_t base = colours.size();
    colours.resize(base + 64);
    std::vector<std::pair<int, std::int64_t>> later;
    for (const auto& [b, e] : pending) {
      const BlockSystem& bs = sys.blocks[b];
      const std::int32_t* conn = bs.connectivity.data() + e * bs.nodes_per_element;
      std::uint64_t mask = 0;
      for (int a = 0; a < bs.nodes_per_element; ++a) mask |= used[conn[a]];
      if (mask == ~std::uint64_t{0}) {
        later.emplace_back(b, e);
        continue;
      }
      const int c = std::countr_one(mask);
      for (int a = 0; a < bs.nodes_per_element; ++a) used[conn[a]] |= std::uint64_t{1} << c;
      colours[base + c].emplace_back(b, e);
    }
    pending.swap(later);
  }
  colours.erase(
      std::remove_if(colours.begin(), colours.end(), [](const auto& c) { return c.empty(); }),
      colours.end());
  return colours;
}

/// Adds element e's K_ab blocks into k: the element matrix summed over its quadrature points
/// first (the upper block triangle: K_ba = K_ab^T), then scattered once.
void add_element_stiffness(const NodeGraph& graph, const BlockSystem& bs, const ElasticTangent& A,
                           std::int64_t e, const std::vector<double>& node_scale,
                           BlockCsrMatrix& k) {
  constexpr int kMax = 27;  // nodes of the largest element fem runs (hex27)
  const int npe = bs.nodes_per_element;
  const int nqp = bs.quadrature_points;
  const std::int32_t* conn = bs.connectivity.data() + e * npe;
  double scale = 1.0;  // an absorbing layer's stiffness reduction: the mean over the nodes
  if (!node_scale.empty()) {
    scale = 0.0;
    for (int a = 0; a < npe; ++a) scale += node_scale[conn[a]];
    scale /= npe;
  }
  double ke[kMax * (kMax + 1) / 2][9] = {};
  for (int q = 0; q < nqp; ++q) {
    const double* g = bs.shape_gradients.data() + ((e * nqp + q) * npe) * 3;
    const double v = scale * bs.quadrature_volumes[e * nqp + q];
    int pair = 0;
    for (int b = 0; b < npe; ++b) {
      // AB[3i+J][c] = v sum_L A_iJcL dN_b/dX_L
      double AB[9][3];
      for (int r = 0; r < 9; ++r)
        for (int c = 0; c < 3; ++c)
          AB[r][c] = v * (A[9 * r + 3 * c] * g[3 * b] + A[9 * r + 3 * c + 1] * g[3 * b + 1] +
                          A[9 * r + 3 * c + 2] * g[3 * b + 2]);
      for (int a = 0; a <= b; ++a, ++pair)
        for (int i = 0; i < 3; ++i)
          for (int c = 0; c < 3; ++c)
            ke[pair][3 * i + c] += g[3 * a] * AB[3 * i][c] + g[3 * a + 1] * AB[3 * i + 1][c] +
                                   g[3 * a + 2] * AB[3 * i + 2][c];
    }
  }
  int pair = 0;
  for (int b = 0; b < npe; ++b)
    for (int a = 0; a <= b; ++a, ++pair) {
      double* ab = k.values.data() + 9 * (k.offsets[conn[a]] + graph.position(conn[a], conn[b]));
      for (int r = 0; r < 9; ++r) ab[r] += ke[pair][r];
      if (a == b) continue;
      double* ba = k.values.data() + 9 * (k.offsets[conn[b]] + graph.position(conn[b], conn[a]));
      for (int i = 0; i < 3; ++i)
        for (int c = 0; c < 3; ++c) ba[3 * c + i] += ke[pair][3 * i + c];
    }
}

/// y = M^-1/2 K M^-1/2 x on the free dofs (zero elsewhere); `scale` is M^-1/2 at free dofs and 0
/// at prescribed ones, so the rows and columns of prescribed dofs drop out without a branch.
void scaled_product(const BlockCsrMatrix& k, const std::vector<double>& scale,
                    const std::vector<double>& x, std::vector<double>& y) {
  const std::int64_t rows = k.rows;
#pragma omp parallel for schedule(static)
  for (std::int64_t n = 0; n < rows; ++n) {
    double acc[3] = {0, 0, 0};
    for (std::int64_t j = k.offsets[n]; j < k.offsets[n + 1]; ++j) {
      const std::int64_t c = 3 * static_cast<std::int64_t>(k.columns[j]);
      const double* b = k.values.data() + 9 * j;
      const double xc[3] = {scale[c] * x[c], scale[c + 1] * x[c + 1], scale[c + 2] * x[c + 2]};
      for (int i = 0; i < 3; ++i)
        acc[i] += b[3 * i] * xc[0] + b[3 * i + 1] * xc[1] + b[3 * i + 2] * xc[2];
    }
    for (int i = 0; i < 3; ++i) y[3 * n + i] = scale[3 * n + i] * acc[i];
  }
}

double dot(const std::vector<double>& a, const std::vector<double>& b) {
  double s = 0.0;
  const std::int64_t n = static_cast<std::int64_t>(a.size());
#pragma omp parallel for schedule(static) reduction(+ : s)
  for (std::int64_t i = 0; i < n; ++i) s += a[i] * b[i];
  return s;
}

/// Largest eigenvalue of the Lanczos tridiagonal matrix (alpha diagonal, beta off-diagonal).
double largest_ritz_value(const std::vector<double>& alpha, const std::vector<double>& beta) {
  const int m = static_cast<int>(alpha.size());
  Eigen::MatrixXd t = Eigen::MatrixXd::Zero(m, m);
  for (int i = 0; i < m; ++i) {
    t(i, i) = alpha[i];
    if (i + 1 < m) t(i, i + 1) = t(i + 1, i) = beta[i];
  }
  return Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(t, Eigen::EigenvaluesOnly)
      .eigenvalues()
      .maxCoeff();
}

}  // namespace

ElasticTangent elastic_tangent(Backend& backend, const Model& model, std::size_t block) {
  const ModelBlock& b = model.blocks[block];
  const System s = unit_tetrahedron(b);
  const std::unique_ptr<LinearAlgebra> la = backend.create_linear_algebra(Precision::Double);
  const std::unique_ptr<NonlinearOperator> op = backend.create_operator(s, *la);
  const std::unique_ptr<Vector> u = la->vector(12);
  op->linearize(*u);
  CsrMatrix k;
  op->assemble(k);
  ElasticTangent a{};
  for (int i = 0; i < 3; ++i)
    for (int J = 0; J < 3; ++J)
      for (int kk = 0; kk < 3; ++kk)
        for (int L = 0; L < 3; ++L)
          a[9 * (3 * i + J) + 3 * kk + L] = 6.0 * entry(k, 3 * (J + 1) + i, 3 * (L + 1) + kk);
  // Waves need a real speed in every direction: the stiffness on symmetric strains (Voigt)
  // must be finite and positive definite.
  Eigen::Matrix<double, 6, 6> d;
  for (int r = 0; r < 6; ++r)
    for (int c = 0; c < 6; ++c)
      d(r, c) = a[9 * (3 * kVoigt[r][0] + kVoigt[r][1]) + 3 * kVoigt[c][0] + kVoigt[c][1]];
  const Eigen::Matrix<double, 6, 6> sym = 0.5 * (d + d.transpose());
  const bool finite = sym.allFinite();
  const double smallest =
      finite ? Eigen::SelfAdjointEigenSolver<Eigen::Matrix<double, 6, 6>>(sym).eigenvalues()(0)
             : 0.0;
  if (!finite || !(smallest > 1e-12 * sym.cwiseAbs().maxCoeff()))
    throw InputError(b.material_spec->where,
                     "material '" + b.material_spec->name + "' (" + b.material_spec->type +
                         ", block '" + b.spec->name +
                         "') has no positive-definite stiffness at zero strain: it has no real "
                         "wave speed, which solver type elastodynamic needs",
                     "check its parameters (a shear modulus or Young's modulus > 0, Poisson's "
                     "ratio below 0.5)");
  return a;
}

double largest_wave_speed(const ElasticTangent& a, double density) {
  // The acoustic tensor Q_ik = A_iJkL n_J n_L: rho c^2 are its eigenvalues. Axes, face and body
  // diagonals cover the extremes of cubic and isotropic media.
  double best = 0.0;
  for (int x = -1; x <= 1; ++x)
    for (int y = -1; y <= 1; ++y)
      for (int z = 0; z <= 1; ++z) {
        if (x == 0 && y == 0 && z == 0) continue;
        Eigen::Vector3d n(x, y, z);
        n.normalize();
        Eigen::Matrix3d q = Eigen::Matrix3d::Zero();
        for (int i = 0; i < 3; ++i)
          for (int k = 0; k < 3; ++k)
            for (int J = 0; J < 3; ++J)
              for (int L = 0; L < 3; ++L) q(i, k) += a[9 * (3 * i + J) + 3 * k + L] * n(J) * n(L);
        const Eigen::Matrix3d s = 0.5 * (q + q.transpose());
        best = std::max(best, Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d>(s).eigenvalues()(2));
      }
  return std::sqrt(best / density);
}

BlockCsrMatrix assemble_wave_stiffness(const System& sys,
                                       const std::vector<ElasticTangent>& tangents,
                                       const NodeGraph& graph,
                                       const std::vector<double>& node_scale) {
  BlockCsrMatrix k;
  k.block_size = 3;
  k.rows = sys.num_nodes;
  k.offsets = graph.offsets;
  k.columns = graph.neighbours;
  k.values.assign(9 * k.columns.size(), 0.0);
  for (const auto& colour : colour_elements(sys)) {
    const std::int64_t count = static_cast<std::int64_t>(colour.size());
#pragma omp parallel for schedule(static)
    for (std::int64_t i = 0; i < count; ++i) {
      const auto& [b, e] = colour[i];
      add_element_stiffness(graph, sys.blocks[b], tangents[b], e, node_scale, k);
    }
  }
  return k;
}

StabilityLimit stability_limit(const BlockCsrMatrix& k, const std::vector<double>& mass,
                               const std::vector<bool>& free_dof) {
  const std::int64_t n = k.rows;
  const std::size_t dofs = static_cast<std::size_t>(3 * n);
  std::vector<double> scale(dofs);
  for (std::size_t d = 0; d < dofs; ++d)
    scale[d] = free_dof[d] ? 1.0 / std::sqrt(mass[d / 3]) : 0.0;
  StabilityLimit limit;
  // Where: the largest Gershgorin row sum of M^-1 K.
  double worst = -1.0;
  for (std::int64_t i = 0; i < n; ++i) {
    double row = 0.0;
    for (std::int64_t j = k.offsets[i]; j < k.offsets[i + 1]; ++j)
      for (int e = 0; e < 9; ++e) row += std::abs(k.values[9 * j + e]);
    row /= 3.0 * mass[i];
    if (row > worst) {
      worst = row;
      limit.node = static_cast<std::int32_t>(i);
    }
  }
  // Lanczos from a fixed pseudo-random start (no reorthogonalisation: only the extreme Ritz
  // value is wanted, and it converges first).
  std::vector<double> q(dofs, 0.0), q_old(dofs, 0.0), w(dofs, 0.0);
  std::uint64_t state = 0x9e3779b97f4a7c15ull;
  for (std::size_t d = 0; d < dofs; ++d) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    q[d] = free_dof[d] ? 0.5 + static_cast<double>(state >> 11) * 0x1.0p-53 : 0.0;
  }
  const double norm0 = std::sqrt(dot(q, q));
  if (!(norm0 > 0.0)) return limit;  // every dof prescribed: nothing moves
  for (double& x : q) x /= norm0;
  std::vector<double> alpha, beta;
  double previous = 0.0;
  constexpr int kMaxIterations = 300;
  for (int it = 0; it < kMaxIterations; ++it) {
    scaled_product(k, scale, q, w);
    const double a = dot(w, q);
    alpha.push_back(a);
    const double previous_beta = beta.empty() ? 0.0 : beta.back();
    const std::int64_t count = static_cast<std::int64_t>(dofs);
#pragma omp parallel for schedule(static)
    for (std::int64_t d = 0; d < count; ++d) w[d] -= a * q[d] + previous_beta * q_old[d];
    const double b = std::sqrt(dot(w, w));
    limit.iterations = it + 1;
    if ((it + 1) % 10 == 0 || !(b > 0.0)) {
      const double ritz = largest_ritz_value(alpha, beta);
      const bool done = std::abs(ritz - previous) <= 1e-8 * ritz || !(b > 0.0);
      previous = ritz;
      if (done) break;
    }
    beta.push_back(b);
    q_old.swap(q);
#pragma omp parallel for schedule(static)
    for (std::int64_t d = 0; d < count; ++d) q[d] = w[d] / b;
  }
  if (beta.size() >= alpha.size()) beta.resize(alpha.size() - 1);
  limit.lambda_max = largest_ritz_value(alpha, beta);
  limit.critical_time_step = 2.0 / std::sqrt(limit.lambda_max);
  return limit;
}

}  // namespace fem
