// The cell field green_lagrange_strain is E = (F^T F - I) / 2 for every material, the
// small-strain linear_elastic included: a rigid rotation gives E = 0 (sym(F) - I would give -1 on
// the diagonal for 90 degrees), and a stretch gives the Green-Lagrange value, not the engineering
// strain.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <numbers>
#include <tuple>

#include "support/backend.hpp"
#include "support/case_runner.hpp"
#include "support/element_types.hpp"

namespace fem::test {
namespace {

std::string strain_case(const std::string& element, const std::string& cells,
                        const std::string& material) {
  return R"(
mesh: {generator: box, cells: )" +
         cells + R"(, size: [1, 1, 1], divisions: [2, 2, 2], distortion: 0.15, seed: 5}
materials:
  m: {type: )" +
         material + R"(, youngs_modulus: 1000, poisson_ratio: 0.3}
blocks: [{element: )" +
         element + R"(, material: m}]
solver: {end_time: 1.0}
)";
}

/// The green_lagrange_strain field (Voigt xx yy zz xy yz xz per element) under u = (F - I) X.
std::vector<double> strain_field(PreparedRun& run, const Eigen::Matrix3d& F) {
  const Mesh& mesh = run.model.mesh;
  std::vector<double> u(static_cast<std::size_t>(3 * mesh.num_nodes()));
  for (std::int64_t i = 0; i < mesh.num_nodes(); ++i) {
    const Eigen::Vector3d X(mesh.coords[3 * i], mesh.coords[3 * i + 1], mesh.coords[3 * i + 2]);
    const Eigen::Vector3d d = (F - Eigen::Matrix3d::Identity()) * X;
    for (int k = 0; k < 3; ++k) u[3 * i + k] = d(k);
  }
  std::vector<BlockResults> results;
  run.solver->problem().element_results(u, results);
  EXPECT_EQ(results.size(), 1u);
  return results.empty() ? std::vector<double>{} : results[0].green_lagrange;
}

class GreenLagrangeField : public ::testing::TestWithParam<std::tuple<ElementCase, std::string>> {};

TEST_P(GreenLagrangeField, IsZeroUnderRigidRotationAndGreenLagrangeUnderStretch) {
  const auto& [element_case, material] = GetParam();
  const auto& [element, cells] = element_case;
  PreparedRun run =
      prepare(strain_case(element, cells, material), on_backend({{"precision", "double"}}));

  // 90 degrees about z, then about an oblique axis: no strain at all.
  const Eigen::Matrix3d quarter_turn =
      Eigen::AngleAxisd(std::numbers::pi / 2, Eigen::Vector3d::UnitZ()).toRotationMatrix();
  const Eigen::Matrix3d oblique =
      Eigen::AngleAxisd(1.1, Eigen::Vector3d(1, 2, 3).normalized()).toRotationMatrix();
  for (const Eigen::Matrix3d& R : {quarter_turn, oblique}) {
    const std::vector<double> E = strain_field(run, R);
    ASSERT_EQ(static_cast<std::int64_t>(E.size()), 6 * run.model.num_elements());
    double largest = 0.0;
    for (const double e : E) largest = std::max(largest, std::abs(e));
    EXPECT_LT(largest, 1e-12) << "rigid rotation reported as strain";
  }

  // A 10 % stretch along x: E_xx = (1.1^2 - 1) / 2 = 0.105, where the small strain is 0.1.
  Eigen::Matrix3d stretch = Eigen::Matrix3d::Identity();
  stretch(0, 0) = 1.1;
  const std::vector<double> E = strain_field(run, stretch);
  for (std::size_t e = 0; e < E.size() / 6; ++e) {
    EXPECT_NEAR(E[6 * e], 0.105, 1e-12);
    for (int c = 1; c < 6; ++c) EXPECT_NEAR(E[6 * e + c], 0.0, 1e-12);
  }
}

INSTANTIATE_TEST_SUITE_P(Materials, GreenLagrangeField,
                         ::testing::Combine(all_element_types(),
                                            ::testing::Values("linear_elastic", "neo_hookean")),
                         [](const ::testing::TestParamInfo<GreenLagrangeField::ParamType>& param) {
                           return std::get<0>(param.param).first + "_" + std::get<1>(param.param);
                         });

}  // namespace
}  // namespace fem::test
