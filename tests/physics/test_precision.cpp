// Single and double precision give the same cube compression to 1e-4 relative displacement.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "support/backend.hpp"
#include "support/case_runner.hpp"
#include "support/element_types.hpp"

namespace fem::test {
namespace {

class PrecisionAgreement : public ::testing::TestWithParam<ElementCase> {};

TEST_P(PrecisionAgreement, SingleMatchesDoubleOnTheCube) {
  const auto& [element, cells] = GetParam();
  const std::string yaml = R"(
mesh: {generator: box, cells: )" +
                           cells + R"(, size: [0.05, 0.05, 0.05], divisions: [5, 5, 5]}
materials:
  tissue: {type: neo_hookean, density: 1000, youngs_modulus: 3000, poisson_ratio: 0.49}
blocks: [{element: )" + element +
                           R"(, material: tissue}]
node_sets:
  bottom: {plane: {point: [0, 0, 0], normal: [0, 0, 1]}}
  top: {plane: {point: [0, 0, 0.05], normal: [0, 0, 1]}}
amplitudes:
  load: {type: smooth_step, start: 0, end: 1.0}
boundary_conditions:
  - {set: bottom, fixed: [z]}
  - {set: top, displacement: {z: -0.01}, amplitude: load}
solver: {end_time: 1.0}
)";
  PreparedRun single = prepare(yaml, on_backend({{"precision", "single"}}));
  PreparedRun dbl = prepare(yaml, on_backend({{"precision", "double"}}));
  run_in_memory(single);
  run_in_memory(dbl);
  const std::vector<double> us = displacement(single), ud = displacement(dbl);
  ASSERT_EQ(us.size(), ud.size());
  double diff = 0.0, scale = 0.0;
  for (std::size_t i = 0; i < ud.size(); ++i) {
    diff = std::max(diff, std::abs(us[i] - ud[i]));
    scale = std::max(scale, std::abs(ud[i]));
  }
  EXPECT_GT(scale, 0.009);
  EXPECT_LT(diff / scale, 1e-4);
}

INSTANTIATE_TEST_SUITE_P(Elements, PrecisionAgreement, all_element_types(), element_name);

}  // namespace
}  // namespace fem::test
