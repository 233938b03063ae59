// hex8_gauss3, the SDK's example element: its tables, the patch test on every backend, and its
// stiffness against fem's own hex8 (2x2x2 points): equal on a parallelepiped, where both rules
// are exact, and not on a distorted mesh, where the 27 points integrate more closely.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <cmath>
#include <string>

#include "runner.hpp"

namespace plugins_test {
namespace {

using Vec3 = Eigen::Vector3d;

std::string unit_cube(const std::string& element, int n, double distortion) {
  return "mesh: {generator: box, cells: hex8, size: [1, 1, 1], divisions: " + std::to_string(n) +
         ", distortion: " + std::to_string(distortion) +
         ", seed: 7}\n"
         "materials: {m: {type: linear_elastic, youngs_modulus: 1000, poisson_ratio: 0.3}}\n"
         "blocks: [{element: " +
         element + ", material: m}]\nsolver: {end_time: 1.0}\n";
}

TEST(Hex8Gauss3, TablesAreConsistent) {
  const fem::ElementData& e = registry().element("hex8_gauss3");
  ASSERT_EQ(e.num_nodes, 8);
  ASSERT_EQ(e.num_quadrature_points, 27);
  EXPECT_EQ(e.vtk_cell_type, 12);
  EXPECT_EQ(e.cell_shape, static_cast<std::int32_t>(fem::CellShape::Hex8));
  EXPECT_EQ(e.family, fem::Family::Isoparametric);
  double wsum = 0, msum = 0;
  for (int q = 0; q < 27; ++q) {
    wsum += e.quadrature_weights[q];
    double nsum = 0;
    Vec3 gsum = Vec3::Zero();
    for (int a = 0; a < 8; ++a) {
      nsum += e.shape_values[q * 8 + a];
      for (int k = 0; k < 3; ++k) gsum[k] += e.shape_gradients[(q * 8 + a) * 3 + k];
    }
    EXPECT_NEAR(nsum, 1.0, 1e-15);
    EXPECT_NEAR(gsum.norm(), 0.0, 1e-15);
  }
  EXPECT_NEAR(wsum, 8.0, 1e-14);
  for (int a = 0; a < 8; ++a) msum += e.lumped_mass_weights[a];
  EXPECT_NEAR(msum, 1.0, 1e-15);
  // The same faces as fem's hex8, outward.
  const fem::ElementData& hex8 = registry().element("hex8");
  ASSERT_EQ(e.num_faces, hex8.num_faces);
  for (int i = 0; i < e.face_offsets[e.num_faces]; ++i)
    EXPECT_EQ(e.face_nodes[i], hex8.face_nodes[i]);
}

/// The stiffness matrix, column by column (the internal force is linear in u for the
/// small-strain law), on the run's backend.
Eigen::MatrixXd stiffness(Run& r) {
  const std::int64_t ndof = 3 * r.model.mesh.num_nodes();
  Eigen::MatrixXd K(ndof, ndof);
  std::vector<double> u(static_cast<std::size_t>(ndof), 0.0), f;
  for (std::int64_t j = 0; j < ndof; ++j) {
    u[j] = 1.0;
    r.problem().internal_forces(u, f);
    u[j] = 0.0;
    for (std::int64_t i = 0; i < ndof; ++i) K(i, j) = f[i];
  }
  return K;
}

TEST(Hex8Gauss3, PatchTestOnEveryBackend) {
  Eigen::Matrix3d A;
  A << 1e-3, 2e-3, -1e-3, 0.5e-3, -2e-3, 1.5e-3, -1e-3, 0.7e-3, 3e-3;
  const Vec3 c(1e-4, -2e-4, 3e-4);
  for (const std::string& backend : usable_backends()) {
    SCOPED_TRACE(backend);
    auto r =
        prepare(unit_cube("hex8_gauss3", 3, 0.2), {{"backend", backend}, {"precision", "double"}});
    const Eigen::MatrixXd K = stiffness(*r);
    const fem::Mesh& mesh = r->model.mesh;
    const std::int64_t nn = mesh.num_nodes();
    Eigen::VectorXd exact(3 * nn);
    std::vector<std::int64_t> inner, outer;
    for (std::int64_t i = 0; i < nn; ++i) {
      const Vec3 X(mesh.coords[3 * i], mesh.coords[3 * i + 1], mesh.coords[3 * i + 2]);
      exact.segment<3>(3 * i) = A * X + c;
      const bool boundary = (X.array() < 1e-12).any() || (X.array() > 1 - 1e-12).any();
      for (int k = 0; k < 3; ++k) (boundary ? outer : inner).push_back(3 * i + k);
    }
    ASSERT_FALSE(inner.empty());
    Eigen::MatrixXd Kii(inner.size(), inner.size()), Kib(inner.size(), outer.size());
    Eigen::VectorXd ub(outer.size());
    for (std::size_t i = 0; i < inner.size(); ++i) {
      for (std::size_t j = 0; j < inner.size(); ++j) Kii(i, j) = K(inner[i], inner[j]);
      for (std::size_t j = 0; j < outer.size(); ++j) Kib(i, j) = K(inner[i], outer[j]);
    }
    for (std::size_t j = 0; j < outer.size(); ++j) ub[j] = exact[outer[j]];
    const Eigen::VectorXd ui = Kii.ldlt().solve(-Kib * ub);
    double err = 0;
    for (std::size_t i = 0; i < inner.size(); ++i)
      err = std::max(err, std::abs(ui[i] - exact[inner[i]]));
    EXPECT_LT(err, 1e-14) << "interior displacement error";
  }
}

TEST(Hex8Gauss3, StiffnessIsHex8sOnParallelepipedsAndCloserIntegratedOnDistortedCells) {
  double difference[2] = {};
  for (int distorted = 0; distorted < 2; ++distorted) {
    const double d = distorted ? 0.25 : 0.0;
    auto mine = prepare(unit_cube("hex8_gauss3", 2, d), {{"precision", "double"}});
    auto builtin = prepare(unit_cube("hex8", 2, d), {{"precision", "double"}});
    const Eigen::MatrixXd K = stiffness(*mine), K8 = stiffness(*builtin);
    difference[distorted] = (K - K8).norm() / K8.norm();
  }
  EXPECT_LT(difference[0], 1e-14) << "both rules are exact on a parallelepiped";
  EXPECT_GT(difference[1], 1e-6) << "a distorted cell's integrand is not a polynomial";
}

}  // namespace
}  // namespace plugins_test
