// Patch test: a linear displacement field imposed on the boundary of a distorted mesh must be
// reproduced exactly inside, with exactly constant stress, for every element type.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <cmath>

#include "support/backend.hpp"
#include "support/case_runner.hpp"
#include "support/element_types.hpp"

namespace fem::test {
namespace {

constexpr double kE = 1000.0, kNu = 0.3;

std::string patch_case(const std::string& element, const std::string& cells) {
  return R"(
mesh: {generator: box, cells: )" +
         cells + R"(, size: [1, 1, 1], divisions: [3, 3, 3],
       distortion: 0.2, seed: 11}
materials:
  m: {type: linear_elastic, youngs_modulus: 1000, poisson_ratio: 0.3}
blocks: [{element: )" +
         element + R"(, material: m}]
solver: {end_time: 1.0}
)";
}

class PatchTest : public ::testing::TestWithParam<ElementCase> {};

TEST_P(PatchTest, LinearFieldIsExactAndStressConstant) {
  const auto& [element, cells] = GetParam();
  PreparedRun run = prepare(patch_case(element, cells), on_backend({{"precision", "double"}}));
  ExplicitProblem& problem = run.solver->problem();
  const Mesh& mesh = run.model.mesh;
  const std::int64_t nn = mesh.num_nodes(), ndof = 3 * nn;

  // The distortion must really have moved interior nodes, or the test proves little.
  double moved = 0.0;
  for (std::int64_t i = 0; i < nn; ++i)
    for (int k = 0; k < 3; ++k) {
      const double x = mesh.coords[3 * i + k];
      moved = std::max(moved, std::abs(x * 3.0 - std::round(x * 3.0)) / 3.0);
    }
  ASSERT_GT(moved, 0.01);

  // Stiffness by columns: the internal force is linear in u for this material and family.
  Eigen::MatrixXd K(ndof, ndof);
  std::vector<double> u(ndof, 0.0), f;
  for (std::int64_t j = 0; j < ndof; ++j) {
    u[j] = 1.0;
    problem.internal_forces(u, f);
    u[j] = 0.0;
    for (std::int64_t i = 0; i < ndof; ++i) K(i, j) = f[i];
  }

  Eigen::Matrix3d A;
  A << 1e-3, 2e-3, -1e-3, 0.5e-3, -2e-3, 1.5e-3, -1e-3, 0.7e-3, 3e-3;
  const Eigen::Vector3d b(1e-4, -2e-4, 3e-4);
  Eigen::VectorXd exact(ndof);
  std::vector<bool> boundary(ndof, false);
  for (std::int64_t i = 0; i < nn; ++i) {
    const Eigen::Vector3d X(mesh.coords[3 * i], mesh.coords[3 * i + 1], mesh.coords[3 * i + 2]);
    exact.segment<3>(3 * i) = A * X + b;
    const bool on_boundary = (X.array() < 1e-12).any() || (X.array() > 1 - 1e-12).any();
    for (int k = 0; k < 3; ++k) boundary[3 * i + k] = on_boundary;
  }
  std::vector<std::int64_t> inner, outer;
  for (std::int64_t d = 0; d < ndof; ++d) (boundary[d] ? outer : inner).push_back(d);
  ASSERT_FALSE(inner.empty());
  Eigen::MatrixXd Kii(inner.size(), inner.size()), Kib(inner.size(), outer.size());
  Eigen::VectorXd ub(outer.size());
  for (std::size_t r = 0; r < inner.size(); ++r) {
    for (std::size_t c = 0; c < inner.size(); ++c) Kii(r, c) = K(inner[r], inner[c]);
    for (std::size_t c = 0; c < outer.size(); ++c) Kib(r, c) = K(inner[r], outer[c]);
  }
  for (std::size_t c = 0; c < outer.size(); ++c) ub(c) = exact(outer[c]);
  const Eigen::VectorXd ui = Kii.fullPivLu().solve(-Kib * ub);
  double err = 0.0;
  for (std::size_t r = 0; r < inner.size(); ++r)
    err = std::max(err, std::abs(ui(r) - exact(inner[r])));
  EXPECT_LT(err, 1e-12 * exact.cwiseAbs().maxCoeff() * 1e3) << "interior displacement error";

  // Constant stress sigma = lambda tr(eps) I + 2 mu eps in every element.
  const double mu = kE / (2 * (1 + kNu)), lambda = kE * kNu / ((1 + kNu) * (1 - 2 * kNu));
  const Eigen::Matrix3d eps = 0.5 * (A + A.transpose());
  const Eigen::Matrix3d sigma = lambda * eps.trace() * Eigen::Matrix3d::Identity() + 2 * mu * eps;
  const double expected[6] = {sigma(0, 0), sigma(1, 1), sigma(2, 2),
                              sigma(0, 1), sigma(1, 2), sigma(0, 2)};
  std::vector<BlockResults> results;
  problem.element_results(std::vector<double>(exact.data(), exact.data() + ndof), results);
  ASSERT_EQ(results.size(), 1u);
  const auto& s = results[0].cauchy_stress;
  ASSERT_EQ(static_cast<std::int64_t>(s.size()), 6 * run.model.num_elements());
  double stress_err = 0.0;
  for (std::size_t e = 0; e < s.size() / 6; ++e)
    for (int c = 0; c < 6; ++c)
      stress_err = std::max(stress_err, std::abs(s[6 * e + c] - expected[c]));
  EXPECT_LT(stress_err, 1e-9 * sigma.cwiseAbs().maxCoeff());
}

INSTANTIATE_TEST_SUITE_P(Elements, PatchTest, all_element_types(), element_name);

}  // namespace
}  // namespace fem::test
