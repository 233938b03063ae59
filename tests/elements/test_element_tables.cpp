// The solid elements' tables against shape functions written independently (reference_cells.hpp):
// the shape functions span the element's polynomial space and interpolate at its nodes (so they
// are a partition of unity with the Kronecker property), gradients agree, the rule integrates
// what it should, HRZ masses, outward faces with mid-edge nodes in VTK order, and the critical
// time step the element claims against the eigenvalues of the assembled model.
#include <gtest/gtest.h>

#include <Eigen/Eigenvalues>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>

#include <fem/plugin_registry.hpp>

#include "elements/reference_cells.hpp"
#include "elements/stiffness.hpp"
#include "support/case_runner.hpp"

namespace fem::test {
namespace {

const ElementData& element(const std::string& name) {
  static const PluginRegistry registry;
  return registry.element(name);
}

Vec3 reference_node(const ElementData& e, int a) {
  return {e.reference_coords[3 * a], e.reference_coords[3 * a + 1], e.reference_coords[3 * a + 2]};
}

class ElementTables : public ::testing::TestWithParam<std::string> {};

TEST_P(ElementTables, CornersAndMidEdgeNodesAreInVtkOrder) {
  const ElementData& e = element(GetParam());
  const bool simplex = is_simplex(e);
  // VTK's corners of the reference cell, and the edges its mid-edge nodes sit on.
  const std::vector<Vec3> corners =
      simplex ? std::vector<Vec3>{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}}
              : std::vector<Vec3>{{-1, -1, -1}, {1, -1, -1}, {1, 1, -1}, {-1, 1, -1},
                                  {-1, -1, 1},  {1, -1, 1},  {1, 1, 1},  {-1, 1, 1}};
  const std::vector<std::array<int, 2>> edges =
      simplex ? std::vector<std::array<int, 2>>{{0, 1}, {1, 2}, {2, 0}, {0, 3}, {1, 3}, {2, 3}}
              : std::vector<std::array<int, 2>>{{0, 1}, {1, 2}, {2, 3}, {3, 0}, {4, 5}, {5, 6},
                                                {6, 7}, {7, 4}, {0, 4}, {1, 5}, {2, 6}, {3, 7}};
  const int nc = static_cast<int>(corners.size());
  ASSERT_TRUE(e.num_nodes == nc || e.num_nodes == nc + static_cast<int>(edges.size()));
  EXPECT_EQ(e.vtk_node_order, nullptr);
  EXPECT_EQ(e.vtk_cell_type, simplex ? (e.num_nodes == 4 ? 10 : 24) : (e.num_nodes == 8 ? 12 : 25));
  for (int a = 0; a < e.num_nodes; ++a) {
    const Vec3 expected =
        a < nc ? corners[a] : 0.5 * (corners[edges[a - nc][0]] + corners[edges[a - nc][1]]);
    EXPECT_NEAR((reference_node(e, a) - expected).norm(), 0.0, 1e-15) << "node " << a;
  }
}

TEST_P(ElementTables, ShapeFunctionsAreTheLagrangeBasisOfTheElementsSpace) {
  const ElementData& e = element(GetParam());
  const LagrangeBasis basis(e);
  const int n = e.num_nodes;
  for (int q = 0; q < e.num_quadrature_points; ++q) {
    const Vec3 x(e.quadrature_points[3 * q], e.quadrature_points[3 * q + 1],
                 e.quadrature_points[3 * q + 2]);
    const Eigen::VectorXd N = basis.values(x);
    const Eigen::MatrixXd dN = basis.gradients(x);
    double sum = 0;
    Vec3 gradient_sum = Vec3::Zero();
    for (int a = 0; a < n; ++a) {
      EXPECT_NEAR(e.shape_values[q * n + a], N[a], 1e-13) << "N_" << a << " at point " << q;
      for (int k = 0; k < 3; ++k) {
        EXPECT_NEAR(e.shape_gradients[(q * n + a) * 3 + k], dN(a, k), 1e-13)
            << "dN_" << a << "/dxi_" << k << " at point " << q;
        gradient_sum[k] += e.shape_gradients[(q * n + a) * 3 + k];
      }
      sum += e.shape_values[q * n + a];
    }
    EXPECT_NEAR(sum, 1.0, 1e-14) << "partition of unity at point " << q;
    EXPECT_NEAR(gradient_sum.norm(), 0.0, 1e-13) << "gradients' sum at point " << q;
  }
  // The basis itself: Kronecker at the nodes, a partition of unity everywhere.
  for (int a = 0; a < n; ++a) {
    const Eigen::VectorXd N = basis.values(reference_node(e, a));
    for (int b = 0; b < n; ++b) EXPECT_NEAR(N[b], a == b ? 1.0 : 0.0, 1e-13);
  }
  for (const QuadraturePoint& p : reference_rule(e, 3))
    EXPECT_NEAR(basis.values(p.x).sum(), 1, 1e-13);
}

TEST_P(ElementTables, RuleIntegratesTheStiffnessOfAnAffineCellExactlyOrNot) {
  // Stiffness integrands of an affine cell are products of two gradients: degree 2 (p - 1) with
  // p the element's degree per variable (hex20: 2 in a variable, so 4 in that variable; 3x3x3
  // Gauss is exact to 5, 2x2x2 to 3 only). Compare int dN_a/dxi_k dN_b/dxi_l with the rule's.
  const ElementData& e = element(GetParam());
  const LagrangeBasis basis(e);
  const int n = e.num_nodes;
  Eigen::MatrixXd exact = Eigen::MatrixXd::Zero(3 * n, 3 * n), rule = exact;
  double volume = 0;
  for (const QuadraturePoint& p : reference_rule(e)) {
    const Eigen::MatrixXd g = basis.gradients(p.x);
    const Eigen::Map<const Eigen::VectorXd> flat(g.data(), 3 * n);
    exact += p.w * flat * flat.transpose();
    volume += p.w;
  }
  double weights = 0;
  for (int q = 0; q < e.num_quadrature_points; ++q) {
    const Vec3 x(e.quadrature_points[3 * q], e.quadrature_points[3 * q + 1],
                 e.quadrature_points[3 * q + 2]);
    const Eigen::MatrixXd g = basis.gradients(x);
    const Eigen::Map<const Eigen::VectorXd> flat(g.data(), 3 * n);
    rule += e.quadrature_weights[q] * flat * flat.transpose();
    weights += e.quadrature_weights[q];
  }
  EXPECT_NEAR(weights, volume, 1e-14) << "the weights sum to the reference volume";
  const double error = (rule - exact).norm() / exact.norm();
  if (GetParam() == "hex20r")
    EXPECT_GT(error, 1e-3) << "2x2x2 Gauss under-integrates hex20 (or this test proves nothing)";
  else
    EXPECT_LT(error, 1e-14);
}

TEST_P(ElementTables, LumpedMassIsHrzAndPositive) {
  // HRZ: the consistent diagonal int N_a^2 scaled to the total; for linear cells all equal.
  const ElementData& e = element(GetParam());
  const LagrangeBasis basis(e);
  Eigen::VectorXd diagonal = Eigen::VectorXd::Zero(e.num_nodes);
  for (const QuadraturePoint& p : reference_rule(e))
    diagonal += p.w * basis.values(p.x).cwiseAbs2();
  diagonal /= diagonal.sum();
  double sum = 0;
  for (int a = 0; a < e.num_nodes; ++a) {
    EXPECT_GT(e.lumped_mass_weights[a], 0.0) << "node " << a;
    EXPECT_NEAR(e.lumped_mass_weights[a], diagonal[a], 1e-14) << "node " << a;
    sum += e.lumped_mass_weights[a];
  }
  EXPECT_NEAR(sum, 1.0, 1e-14);
}

TEST_P(ElementTables, FacesPointOutwardsWithTheirMidEdgeNodesBetweenTheCorners) {
  const ElementData& e = element(GetParam());
  const bool simplex = is_simplex(e);
  ASSERT_EQ(e.num_faces, simplex ? 4 : 6);
  Vec3 centroid = Vec3::Zero();
  const int corners = simplex ? 4 : 8;
  for (int a = 0; a < corners; ++a) centroid += reference_node(e, a) / corners;
  const int face_corners = simplex ? 3 : 4;
  const bool quadratic = e.num_nodes > corners;
  std::vector<int> seen(static_cast<std::size_t>(e.num_nodes), 0);
  for (int f = 0; f < e.num_faces; ++f) {
    const std::int32_t* n = e.face_nodes + e.face_offsets[f];
    ASSERT_EQ(e.face_offsets[f + 1] - e.face_offsets[f], face_corners * (quadratic ? 2 : 1));
    Vec3 normal = Vec3::Zero(), middle = Vec3::Zero();
    for (int i = 0; i < face_corners; ++i) {
      normal += reference_node(e, n[i]).cross(reference_node(e, n[(i + 1) % face_corners]));
      middle += reference_node(e, n[i]) / face_corners;
      ++seen[n[i]];
    }
    EXPECT_GT(normal.dot(middle - centroid), 0.0) << "face " << f << " points inwards";
    if (!quadratic) continue;
    for (int i = 0; i < face_corners; ++i) {
      const Vec3 expected =
          0.5 * (reference_node(e, n[i]) + reference_node(e, n[(i + 1) % face_corners]));
      EXPECT_NEAR((reference_node(e, n[face_corners + i]) - expected).norm(), 0.0, 1e-15)
          << "face " << f << " mid-edge node " << i;
      ++seen[n[face_corners + i]];
    }
  }
  // Each corner lies on 3 faces, each mid-edge node on 2.
  for (int a = 0; a < e.num_nodes; ++a) EXPECT_EQ(seen[a], a < corners ? 3 : 2) << "node " << a;
}

INSTANTIATE_TEST_SUITE_P(Solids, ElementTables,
                         ::testing::Values("tet4", "tet10", "hex8", "hex20", "hex20r"),
                         [](const auto& i) { return i.param; });

/// The time step an element claims (length_factor V / A_max over the dilatational wave speed)
/// against 2 / omega_max of the assembled free model with its lumped masses.
class CriticalStep : public ::testing::TestWithParam<std::tuple<std::string, std::string>> {};

TEST_P(CriticalStep, ClaimedStepIsStableAndNotFarBelowTheTrueOne) {
  const auto& [name, cells] = GetParam();
  for (const double nu : {0.0, 0.3, 0.49})
    for (const std::string mesh :
         {"size: [1, 1, 1], divisions: 1", "size: [1, 0.5, 0.3], divisions: 1",
          "size: [1, 1, 1], divisions: 2, distortion: 0.25, seed: 4"}) {
      SCOPED_TRACE(mesh + ", poisson_ratio " + std::to_string(nu));
      PreparedRun run = prepare("mesh: {generator: box, cells: " + cells + ", " + mesh +
                                "}\nmaterials: {m: {type: linear_elastic, density: 1000, "
                                "youngs_modulus: 1000, poisson_ratio: " +
                                std::to_string(nu) + "}}\nblocks: [{element: " + name +
                                ", material: m}]\nsolver: {end_time: 1.0, safety_factor: 1}\n");
      const Eigen::MatrixXd K = probed_stiffness(run.model, run.solver->problem());
      const System& sys = run.solver->setup().system;
      Eigen::VectorXd scale(K.rows());
      for (Eigen::Index d = 0; d < K.rows(); ++d)
        scale[d] = 1 / std::sqrt(sys.lumped_mass[static_cast<std::size_t>(d / 3)]);
      const Eigen::MatrixXd A = scale.asDiagonal() * K * scale.asDiagonal();
      const double omega_max =
          std::sqrt(Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(A).eigenvalues().maxCoeff());
      const double claimed = run.solver->setup().critical_time_step, stable = 2 / omega_max;
      std::printf("%s nu %.2f %s: claimed step / 2 omega_max^-1 = %.3f\n", name.c_str(), nu,
                  mesh.c_str(), claimed / stable);
      EXPECT_LE(claimed, stable);
      EXPECT_GT(claimed, 0.5 * stable) << "far more conservative than needed";
    }
}

INSTANTIATE_TEST_SUITE_P(Quadratic, CriticalStep,
                         ::testing::Values(std::tuple<std::string, std::string>{"tet10", "tet10"},
                                           std::tuple<std::string, std::string>{"hex20", "hex20"},
                                           std::tuple<std::string, std::string>{"hex20r", "hex20"}),
                         [](const auto& i) { return std::get<0>(i.param); });

/// Zero-energy modes of a free box of linear elastic hex20 or hex20r cells: the eigenvalues of
/// the stiffness below 1e-10 of the largest.
int zero_energy_modes(const std::string& element, int divisions) {
  PreparedRun run = prepare("mesh: {generator: box, cells: hex20, size: [1, 1, 1], divisions: " +
                            std::to_string(divisions) +
                            "}\nmaterials: {m: {type: linear_elastic, youngs_modulus: 1000, "
                            "poisson_ratio: 0.3}}\nblocks: [{element: " +
                            element + ", material: m}]\nsolver: {end_time: 1.0}\n");
  const Eigen::MatrixXd K = probed_stiffness(run.model, run.solver->problem());
  const Eigen::VectorXd lambda = Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(K).eigenvalues();
  return static_cast<int>((lambda.array().abs() < 1e-10 * lambda.maxCoeff()).count());
}

TEST(Hex20r, SpuriousModesOfOneElementDoNotSpreadThroughAMeshOfTwoPerDirection) {
  // 6 rigid-body modes in every case; one hex20r cell alone has more (2x2x2 points cannot see
  // them), a mesh of 2 x 2 x 2 has none besides the rigid ones, and hex20 never has.
  EXPECT_EQ(zero_energy_modes("hex20", 1), 6);
  const int single = zero_energy_modes("hex20r", 1);
  std::printf("one hex20r cell: %d zero-energy modes besides the 6 rigid ones\n", single - 6);
  EXPECT_GT(single, 6);
  EXPECT_EQ(zero_energy_modes("hex20r", 2), 6);
}

}  // namespace
}  // namespace fem::test
