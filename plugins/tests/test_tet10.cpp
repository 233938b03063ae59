// tet10: its tables, the patch test on every backend, exact quadratic fields, and the order of
// convergence on a manufactured solution (against tet4 on the same meshes).
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <Eigen/Sparse>
#include <array>
#include <cmath>
#include <functional>
#include <numbers>

#include "runner.hpp"

namespace plugins_test {
namespace {

using Vec3 = Eigen::Vector3d;
constexpr double kE = 1000.0, kNu = 0.3;
const double kMu = kE / (2 * (1 + kNu)), kLambda = kE * kNu / ((1 + kNu) * (1 - 2 * kNu));

std::string unit_cube(const std::string& cells, int n, double distortion) {
  const std::string element = cells;
  return "mesh: {generator: box, cells: " + cells +
         ", size: [1, 1, 1], divisions: " + std::to_string(n) +
         ", distortion: " + std::to_string(distortion) +
         ", seed: 7}\n"
         "materials: {m: {type: linear_elastic, youngs_modulus: 1000, poisson_ratio: 0.3}}\n"
         "blocks: [{element: " +
         element + ", material: m}]\nsolver: {end_time: 1.0}\n";
}

TEST(Tet10, TablesAreConsistent) {
  const fem::ElementData& e = registry().element("tet10");
  ASSERT_EQ(e.num_nodes, 10);
  ASSERT_EQ(e.num_quadrature_points, 4);
  EXPECT_EQ(e.vtk_cell_type, 24);
  EXPECT_EQ(e.cell_shape, static_cast<std::int32_t>(fem::CellShape::Tet10));
  EXPECT_EQ(e.family, fem::Family::Isoparametric);
  double wsum = 0, msum = 0;
  for (int q = 0; q < 4; ++q) {
    wsum += e.quadrature_weights[q];
    double nsum = 0;
    Vec3 gsum = Vec3::Zero();
    for (int a = 0; a < 10; ++a) {
      nsum += e.shape_values[q * 10 + a];
      for (int k = 0; k < 3; ++k) gsum[k] += e.shape_gradients[(q * 10 + a) * 3 + k];
    }
    EXPECT_NEAR(nsum, 1.0, 1e-15);
    EXPECT_NEAR(gsum.norm(), 0.0, 1e-14);
  }
  EXPECT_NEAR(wsum, 1.0 / 6.0, 1e-15);
  for (int a = 0; a < 10; ++a) {
    EXPECT_GT(e.lumped_mass_weights[a], 0.0) << "node " << a;
    msum += e.lumped_mass_weights[a];
  }
  EXPECT_NEAR(msum, 1.0, 1e-15);
  // Faces: 6 nodes, corners counter-clockwise seen from outside, mid-edge nodes between them.
  ASSERT_EQ(e.num_faces, 4);
  const auto X = [&](int a) {
    return Vec3(e.reference_coords[3 * a], e.reference_coords[3 * a + 1],
                e.reference_coords[3 * a + 2]);
  };
  const Vec3 centroid(0.25, 0.25, 0.25);
  for (int f = 0; f < 4; ++f) {
    ASSERT_EQ(e.face_offsets[f + 1] - e.face_offsets[f], 6);
    const std::int32_t* n = e.face_nodes + e.face_offsets[f];
    const Vec3 normal = (X(n[1]) - X(n[0])).cross(X(n[2]) - X(n[0]));
    EXPECT_GT(normal.dot(X(n[0]) - centroid), 0.0) << "face " << f << " points inwards";
    for (int i = 0; i < 3; ++i)
      EXPECT_NEAR((X(n[3 + i]) - 0.5 * (X(n[i]) + X(n[(i + 1) % 3]))).norm(), 0.0, 1e-15)
          << "face " << f << " mid-edge node " << i;
  }
}

/// The stiffness matrix, column by column (the internal force is linear in u for the
/// small-strain law), on the run's backend.
Eigen::SparseMatrix<double> stiffness(Run& r) {
  const std::int64_t ndof = 3 * r.model.mesh.num_nodes();
  std::vector<Eigen::Triplet<double>> t;
  std::vector<double> u(static_cast<std::size_t>(ndof), 0.0), f;
  for (std::int64_t j = 0; j < ndof; ++j) {
    u[j] = 1.0;
    r.problem().internal_forces(u, f);
    u[j] = 0.0;
    for (std::int64_t i = 0; i < ndof; ++i)
      if (f[i] != 0.0) t.emplace_back(i, j, f[i]);
  }
  Eigen::SparseMatrix<double> K(ndof, ndof);
  K.setFromTriplets(t.begin(), t.end());
  return K;
}

/// Solves K u = f for the free dofs, with u = exact on the cube's boundary.
Eigen::VectorXd solve(const Eigen::SparseMatrix<double>& K, const Eigen::VectorXd& f,
                      const fem::Mesh& mesh, const std::function<Vec3(const Vec3&)>& exact) {
  const std::int64_t nn = mesh.num_nodes(), ndof = 3 * nn;
  Eigen::VectorXd u = Eigen::VectorXd::Zero(ndof);
  std::vector<std::int64_t> index(static_cast<std::size_t>(ndof), -1);
  std::int64_t free = 0;
  for (std::int64_t i = 0; i < nn; ++i) {
    const Vec3 X(mesh.coords[3 * i], mesh.coords[3 * i + 1], mesh.coords[3 * i + 2]);
    const bool boundary = (X.array() < 1e-12).any() || (X.array() > 1 - 1e-12).any();
    if (boundary)
      u.segment<3>(3 * i) = exact(X);
    else
      for (int k = 0; k < 3; ++k) index[3 * i + k] = free++;
  }
  // K_ff u_f = f_f - K_fb u_b
  const Eigen::VectorXd rhs_full = f - K * u;
  std::vector<Eigen::Triplet<double>> t;
  for (int c = 0; c < K.outerSize(); ++c)
    for (Eigen::SparseMatrix<double>::InnerIterator it(K, c); it; ++it)
      if (index[it.row()] >= 0 && index[it.col()] >= 0)
        t.emplace_back(index[it.row()], index[it.col()], it.value());
  Eigen::SparseMatrix<double> Kff(free, free);
  Kff.setFromTriplets(t.begin(), t.end());
  Eigen::VectorXd rhs(free);
  for (std::int64_t d = 0; d < ndof; ++d)
    if (index[d] >= 0) rhs[index[d]] = rhs_full[d];
  Eigen::SimplicialLDLT<Eigen::SparseMatrix<double>> ldlt(Kff);
  EXPECT_EQ(ldlt.info(), Eigen::Success);
  const Eigen::VectorXd uf = ldlt.solve(rhs);
  for (std::int64_t d = 0; d < ndof; ++d)
    if (index[d] >= 0) u[d] = uf[index[d]];
  return u;
}

/// Shape functions of tet4 / tet10 (VTK order) at barycentric coordinates L, written here
/// independently of the plugin.
std::vector<double> shape(int nodes, const std::array<double, 4>& L) {
  if (nodes == 4) return {L[0], L[1], L[2], L[3]};
  const int edges[6][2] = {{0, 1}, {1, 2}, {2, 0}, {0, 3}, {1, 3}, {2, 3}};
  std::vector<double> N(10);
  for (int a = 0; a < 4; ++a) N[a] = L[a] * (2 * L[a] - 1);
  for (int m = 0; m < 6; ++m) N[4 + m] = 4 * L[edges[m][0]] * L[edges[m][1]];
  return N;
}

/// Consistent nodal loads of a body force b(X): f_a = int N_a b dV with the element's own rule.
Eigen::VectorXd body_load(Run& r, const std::function<Vec3(const Vec3&)>& b) {
  const fem::ModelBlock& block = r.model.blocks.at(0);
  const fem::ElementData& el = *block.element;
  const fem::BlockSystem& sys = r.solver->setup().system.blocks.at(0);
  const int npe = el.num_nodes, nqp = el.num_quadrature_points;
  Eigen::VectorXd f = Eigen::VectorXd::Zero(3 * r.model.mesh.num_nodes());
  for (std::int64_t e = 0; e < block.num_elements(); ++e) {
    const std::int32_t* conn = block.connectivity.data() + e * npe;
    for (int q = 0; q < nqp; ++q) {
      const double* N = el.shape_values + q * npe;
      Vec3 X = Vec3::Zero();
      for (int a = 0; a < npe; ++a)
        X += N[a] * Vec3(r.model.mesh.coords[3 * conn[a]], r.model.mesh.coords[3 * conn[a] + 1],
                         r.model.mesh.coords[3 * conn[a] + 2]);
      const Vec3 load = b(X) * sys.quadrature_volumes[e * nqp + q];
      for (int a = 0; a < npe; ++a) f.segment<3>(3 * conn[a]) += N[a] * load;
    }
  }
  return f;
}

/// L2 norm of u_h - exact over the mesh: the 4-point rule on each of the 8 sub-tetrahedra of
/// every (straight-edged) element, so the estimate does not lean on the element's own points.
double l2_error(Run& r, const Eigen::VectorXd& u, const std::function<Vec3(const Vec3&)>& exact) {
  const fem::ModelBlock& block = r.model.blocks.at(0);
  const fem::BlockSystem& sys = r.solver->setup().system.blocks.at(0);
  const int npe = block.element->num_nodes, nqp = block.element->num_quadrature_points;
  using B = std::array<double, 4>;
  const B v[4] = {{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}, {0, 0, 0, 1}};
  const auto mid = [&](int i, int j) {
    B m;
    for (int k = 0; k < 4; ++k) m[k] = 0.5 * (v[i][k] + v[j][k]);
    return m;
  };
  const B m01 = mid(0, 1), m02 = mid(0, 2), m03 = mid(0, 3), m12 = mid(1, 2), m13 = mid(1, 3),
          m23 = mid(2, 3);
  const std::array<B, 4> sub[8] = {
      {v[0], m01, m02, m03}, {m01, v[1], m12, m13}, {m02, m12, v[2], m23}, {m03, m13, m23, v[3]},
      {m01, m23, m02, m03},  {m01, m23, m03, m13},  {m01, m23, m13, m12},  {m01, m23, m12, m02}};
  const double a = 0.5854101966249685, b = 0.1381966011250105;
  const B rule[4] = {{a, b, b, b}, {b, a, b, b}, {b, b, a, b}, {b, b, b, a}};
  double sum = 0;
  for (std::int64_t e = 0; e < block.num_elements(); ++e) {
    const std::int32_t* conn = block.connectivity.data() + e * npe;
    double volume = 0;
    for (int q = 0; q < nqp; ++q) volume += sys.quadrature_volumes[e * nqp + q];
    for (const auto& s : sub)
      for (const B& p : rule) {
        B L = {0, 0, 0, 0};
        for (int c = 0; c < 4; ++c)
          for (int k = 0; k < 4; ++k) L[k] += p[c] * s[c][k];
        const std::vector<double> N = shape(npe, L);
        Vec3 X = Vec3::Zero(), uh = Vec3::Zero();
        for (int n = 0; n < npe; ++n) {
          X += N[n] * Vec3(r.model.mesh.coords[3 * conn[n]], r.model.mesh.coords[3 * conn[n] + 1],
                           r.model.mesh.coords[3 * conn[n] + 2]);
          uh += N[n] * u.segment<3>(3 * conn[n]);
        }
        sum += volume / 32.0 * (uh - exact(X)).squaredNorm();
      }
  }
  return std::sqrt(sum);
}

TEST(Tet10, PatchTestOnEveryBackend) {
  Eigen::Matrix3d A;
  A << 1e-3, 2e-3, -1e-3, 0.5e-3, -2e-3, 1.5e-3, -1e-3, 0.7e-3, 3e-3;
  const Vec3 c(1e-4, -2e-4, 3e-4);
  const auto exact = [&](const Vec3& X) -> Vec3 { return A * X + c; };
  for (const std::string& backend : usable_backends()) {
    SCOPED_TRACE(backend);
    auto r = prepare(unit_cube("tet10", 2, 0.2), {{"backend", backend}});
    const Eigen::VectorXd u = solve(
        stiffness(*r), Eigen::VectorXd::Zero(3 * r->model.mesh.num_nodes()), r->model.mesh, exact);
    double err = 0;
    for (std::int64_t i = 0; i < r->model.mesh.num_nodes(); ++i) {
      const Vec3 X(r->model.mesh.coords[3 * i], r->model.mesh.coords[3 * i + 1],
                   r->model.mesh.coords[3 * i + 2]);
      err = std::max(err, (u.segment<3>(3 * i) - exact(X)).cwiseAbs().maxCoeff());
    }
    EXPECT_LT(err, 1e-14) << "interior displacement error";
    // Constant stress sigma = lambda tr(eps) I + 2 mu eps in every element.
    const Eigen::Matrix3d eps = 0.5 * (A + A.transpose());
    const Eigen::Matrix3d sigma =
        kLambda * eps.trace() * Eigen::Matrix3d::Identity() + 2 * kMu * eps;
    const double expected[6] = {sigma(0, 0), sigma(1, 1), sigma(2, 2),
                                sigma(0, 1), sigma(1, 2), sigma(0, 2)};
    std::vector<fem::BlockResults> results;
    r->problem().element_results(std::vector<double>(u.data(), u.data() + u.size()), results);
    double stress_err = 0;
    const auto& s = results.at(0).cauchy_stress;
    for (std::size_t e = 0; e < s.size() / 6; ++e)
      for (int k = 0; k < 6; ++k)
        stress_err = std::max(stress_err, std::abs(s[6 * e + k] - expected[k]));
    EXPECT_LT(stress_err, 1e-9 * sigma.cwiseAbs().maxCoeff());
  }
}

/// u = quadratic field; its body force b = -div sigma is constant.
struct Quadratic {
  Vec3 operator()(const Vec3& X) const {
    const double x = X[0], y = X[1], z = X[2];
    return 1e-3 * Vec3(x * x + 0.5 * y * z, y * y - x * z, 0.3 * z * z + x * y);
  }
  // div sigma = (lambda + mu) grad(div u) + mu laplace(u), here constant.
  static Vec3 body_force() {
    // div u = 1e-3 (2x + 2y + 0.6z): grad = 1e-3 (2, 2, 0.6); laplace u = 1e-3 (2, 2, 0.6).
    const Vec3 g = 1e-3 * Vec3(2, 2, 0.6);
    return -((kLambda + kMu) * g + kMu * g);
  }
};

TEST(Tet10, QuadraticFieldIsReproducedExactlyAndTet4CannotDoThat) {
  const Quadratic exact;
  const auto b = [](const Vec3&) { return Quadratic::body_force(); };
  double err[2] = {};
  for (int i = 0; i < 2; ++i) {
    const std::string cells = i == 0 ? "tet10" : "tet4";
    auto r = prepare(unit_cube(cells, 2, 0.2));
    const Eigen::VectorXd u = solve(stiffness(*r), body_load(*r, b), r->model.mesh, exact);
    err[i] = l2_error(*r, u, exact);
  }
  EXPECT_LT(err[0], 1e-15) << "tet10 L2 error of a quadratic field";
  EXPECT_GT(err[1], 1e-6) << "tet4 should not reproduce it (or the test proves nothing)";
}

/// A smooth field that vanishes on the unit cube's boundary: u = c (1, 1, 1) sin(pi x) sin(pi y)
/// sin(pi z), and b = -div sigma = -(lambda + mu) grad(div u) - mu laplace(u).
struct Smooth {
  static constexpr double c = 1e-3, pi = std::numbers::pi;
  Vec3 operator()(const Vec3& X) const {
    return Vec3::Constant(c * std::sin(pi * X[0]) * std::sin(pi * X[1]) * std::sin(pi * X[2]));
  }
  static Vec3 body_force(const Vec3& X) {
    const double sx = std::sin(pi * X[0]), sy = std::sin(pi * X[1]), sz = std::sin(pi * X[2]);
    const double cx = std::cos(pi * X[0]), cy = std::cos(pi * X[1]), cz = std::cos(pi * X[2]);
    const double p2 = pi * pi, f = sx * sy * sz;
    Eigen::Matrix3d H;  // Hessian of f
    H << -p2 * f, p2 * cx * cy * sz, p2 * cx * sy * cz, p2 * cx * cy * sz, -p2 * f,
        p2 * sx * cy * cz, p2 * cx * sy * cz, p2 * sx * cy * cz, -p2 * f;
    const Vec3 grad_div = c * H.rowwise().sum();
    const Vec3 laplace = Vec3::Constant(c * -3 * p2 * f);
    return -((kLambda + kMu) * grad_div + kMu * laplace);
  }
};

TEST(Tet10, ConvergesAtThirdOrderInL2WhereTet4ConvergesAtSecond) {
  const Smooth exact;
  const auto b = [](const Vec3& X) { return Smooth::body_force(X); };
  const int n[2] = {2, 4};
  double rate[2] = {};
  for (int i = 0; i < 2; ++i) {
    const std::string cells = i == 0 ? "tet10" : "tet4";
    double err[2];
    for (int k = 0; k < 2; ++k) {
      auto r = prepare(unit_cube(cells, n[k], 0.0));
      const Eigen::VectorXd u = solve(stiffness(*r), body_load(*r, b), r->model.mesh, exact);
      err[k] = l2_error(*r, u, exact);
    }
    rate[i] = std::log(err[0] / err[1]) / std::log(2.0);
    std::printf("%s: L2 error %.3e (h = 1/2), %.3e (h = 1/4), rate %.2f\n", cells.c_str(), err[0],
                err[1], rate[i]);
  }
  EXPECT_GT(rate[0], 2.6) << "tet10";
  EXPECT_LT(rate[1], 2.4) << "tet4";
  EXPECT_GT(rate[0], rate[1] + 0.5);
}

}  // namespace
}  // namespace plugins_test
