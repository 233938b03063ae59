// Accuracy of the quadratic solids against the linear ones on the unit cube, with the boundary
// displacement prescribed and no body force: u = grad(phi) with phi harmonic has div u = 0 and
// curl u = 0, so it solves Navier's equations without body force for any Lame constants.
//   * phi cubic: u quadratic, which tet10 and hex20 (on undistorted hexahedra) reproduce to
//     round-off, and tet4 and hex8 do not.
//   * phi quartic: u cubic, whose L2 error falls as h^3 for the quadratic elements and h^2 for
//     the linear ones.
// The L2 error is integrated with a rule of high order on each element's reference cell and
// shape functions written independently of the plugins (reference_cells.hpp).
#include <gtest/gtest.h>

#include <Eigen/Sparse>
#include <cmath>
#include <cstdio>
#include <functional>
#include <string>

#include "elements/reference_cells.hpp"
#include "elements/stiffness.hpp"
#include "support/backend.hpp"
#include "support/case_runner.hpp"

namespace fem::test {
namespace {

using Field = std::function<Vec3(const Vec3&)>;

std::string unit_cube(const std::string& element, const std::string& cells, int n,
                      double distortion) {
  return "mesh: {generator: box, cells: " + cells +
         ", size: [1, 1, 1], divisions: " + std::to_string(n) +
         ", distortion: " + std::to_string(distortion) +
         ", seed: 7}\n"
         "materials: {m: {type: linear_elastic, youngs_modulus: 1000, poisson_ratio: 0.3}}\n"
         "blocks: [{element: " +
         element + ", material: m}]\nsolver: {end_time: 1.0}\n";
}

/// Solves K u = 0 for the interior dofs with u = exact on the cube's boundary.
Eigen::VectorXd solve_with_boundary(PreparedRun& r, const Field& exact) {
  const Eigen::SparseMatrix<double> K = probed_stiffness(r.model, r.solver->problem());
  const Mesh& mesh = r.model.mesh;
  const std::int64_t nn = mesh.num_nodes(), ndof = 3 * nn;
  Eigen::VectorXd u = Eigen::VectorXd::Zero(ndof);
  std::vector<std::int64_t> index(static_cast<std::size_t>(ndof), -1);
  std::int64_t free = 0;
  for (std::int64_t i = 0; i < nn; ++i) {
    const Vec3 X(mesh.coords[3 * i], mesh.coords[3 * i + 1], mesh.coords[3 * i + 2]);
    if ((X.array() < 1e-12).any() || (X.array() > 1 - 1e-12).any())
      u.segment<3>(3 * i) = exact(X);
    else
      for (int k = 0; k < 3; ++k) index[3 * i + k] = free++;
  }
  const Eigen::VectorXd rhs_full = -(K * u);
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
  EXPECT_EQ(ldlt.info(), Eigen::Success) << "the interior stiffness is singular";
  const Eigen::VectorXd uf = ldlt.solve(rhs);
  for (std::int64_t d = 0; d < ndof; ++d)
    if (index[d] >= 0) u[d] = uf[index[d]];
  return u;
}

/// || u_h - exact ||_L2 over the mesh (one block), isoparametric map and interpolation with the
/// test's own shape functions, 5^3-point rule on the reference cell.
double l2_error(const PreparedRun& r, const Eigen::VectorXd& u, const Field& exact) {
  const ModelBlock& block = r.model.blocks.at(0);
  const ElementData& el = *block.element;
  const LagrangeBasis basis(el);
  const std::vector<QuadraturePoint> rule = reference_rule(el);
  const int npe = el.num_nodes;
  double sum = 0;
  for (std::int64_t e = 0; e < block.num_elements(); ++e) {
    const std::int32_t* conn = block.connectivity.data() + e * npe;
    Eigen::MatrixXd X(npe, 3), U(npe, 3);
    for (int a = 0; a < npe; ++a) {
      for (int k = 0; k < 3; ++k) X(a, k) = r.model.mesh.coords[3 * conn[a] + k];
      U.row(a) = u.segment<3>(3 * conn[a]).transpose();
    }
    for (const QuadraturePoint& p : rule) {
      const Eigen::VectorXd N = basis.values(p.x);
      const double det_j = (X.transpose() * basis.gradients(p.x)).determinant();
      const Vec3 x = X.transpose() * N, uh = U.transpose() * N;
      sum += p.w * det_j * (uh - exact(x)).squaredNorm();
    }
  }
  return std::sqrt(sum);
}

/// grad of phi = x^3 - 3 x y^2 + z^3 - 3 z x^2 + x y z (harmonic), scaled to 1e-3.
Vec3 quadratic_field(const Vec3& X) {
  const double x = X[0], y = X[1], z = X[2];
  return 1e-3 * Vec3(3 * x * x - 3 * y * y - 6 * z * x + y * z, -6 * x * y + x * z,
                     3 * z * z - 3 * x * x + x * y);
}

/// grad of phi = x^4 - 6 x^2 y^2 + y^4 + y^4 - 6 y^2 z^2 + z^4 (harmonic), scaled to 1e-3.
Vec3 cubic_field(const Vec3& X) {
  const double x = X[0], y = X[1], z = X[2];
  return 1e-3 * Vec3(4 * x * x * x - 12 * x * y * y,
                     -12 * x * x * y + 8 * y * y * y - 12 * y * z * z,
                     -12 * y * y * z + 4 * z * z * z);
}

struct Pair {
  std::string quadratic, linear, cells_quadratic, cells_linear;
};

class QuadraticAccuracy : public ::testing::TestWithParam<Pair> {};

TEST_P(QuadraticAccuracy, QuadraticFieldIsReproducedExactlyAndTheLinearElementCannotDoThat) {
  const Pair& p = GetParam();
  // Straight-edged tetrahedra are affine, so tet10 is exact also on a distorted mesh; a distorted
  // hexahedron is not affine, and serendipity elements then reproduce linear fields only.
  const double distortion = p.cells_quadratic == "tet10" ? 0.2 : 0.0;
  auto quadratic = prepare(unit_cube(p.quadratic, p.cells_quadratic, 2, distortion),
                           on_backend({{"precision", "double"}}));
  auto linear = prepare(unit_cube(p.linear, p.cells_linear, 2, distortion),
                        on_backend({{"precision", "double"}}));
  const double err_quadratic =
      l2_error(quadratic, solve_with_boundary(quadratic, quadratic_field), quadratic_field);
  const double err_linear =
      l2_error(linear, solve_with_boundary(linear, quadratic_field), quadratic_field);
  std::printf("quadratic field, L2 error: %s %.2e, %s %.2e\n", p.quadratic.c_str(), err_quadratic,
              p.linear.c_str(), err_linear);
  EXPECT_LT(err_quadratic, 1e-15) << p.quadratic;
  EXPECT_GT(err_linear, 1e-6) << p.linear
                              << " should not reproduce it (or the test proves nothing)";
}

TEST_P(QuadraticAccuracy, ConvergesAtThirdOrderInL2WhereTheLinearElementConvergesAtSecond) {
  const Pair& p = GetParam();
  double rate[2] = {};
  for (int i = 0; i < 2; ++i) {
    const std::string& element = i == 0 ? p.quadratic : p.linear;
    const std::string& cells = i == 0 ? p.cells_quadratic : p.cells_linear;
    double err[2];
    for (int k = 0; k < 2; ++k) {
      auto r =
          prepare(unit_cube(element, cells, 2 << k, 0.0), on_backend({{"precision", "double"}}));
      err[k] = l2_error(r, solve_with_boundary(r, cubic_field), cubic_field);
    }
    rate[i] = std::log2(err[0] / err[1]);
    std::printf("%s: L2 error %.3e (h = 1/2), %.3e (h = 1/4), rate %.2f\n", element.c_str(), err[0],
                err[1], rate[i]);
  }
  EXPECT_GT(rate[0], 2.7) << p.quadratic;
  EXPECT_LT(rate[1], 2.3) << p.linear;
  EXPECT_GT(rate[1], 1.5) << p.linear;
}

INSTANTIATE_TEST_SUITE_P(Solids, QuadraticAccuracy,
                         ::testing::Values(Pair{"tet10", "tet4", "tet10", "tet4"},
                                           Pair{"hex20", "hex8", "hex20", "hex8"},
                                           Pair{"hex20r", "hex8", "hex20", "hex8"}),
                         [](const auto& i) { return i.param.quadratic; });

}  // namespace
}  // namespace fem::test
