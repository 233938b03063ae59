// Loads reach the supports: gravity and nodal forces come back, at rest, as reaction forces.
#include <gtest/gtest.h>

#include "support/backend.hpp"
#include "support/case_runner.hpp"

namespace fem::test {
namespace {

const std::string kColumn = R"(
mesh: {generator: box, cells: hex8, size: [0.02, 0.02, 0.06], divisions: [2, 2, 6]}
materials:
  tissue: {type: neo_hookean, density: 1200, youngs_modulus: 20000, poisson_ratio: 0.4}
blocks: [{element: hex8r, material: tissue}]
node_sets:
  base: {plane: {point: [0, 0, 0], normal: [0, 0, 1]}}
  top: {plane: {point: [0, 0, 0.06], normal: [0, 0, 1]}}
amplitudes:
  ramp: {type: tabular, points: [[0, 0], [0.5, 1], [2, 1]]}
boundary_conditions: [{set: base, fixed: all}]
solver: {end_time: 2.0, mass_damping: 60}
)";

TEST(Loads, GravityIsCarriedByTheSupport) {
  PreparedRun run = prepare(kColumn + "gravity: {acceleration: [0, 0, -9.81], amplitude: ramp}\n",
                            on_backend({{"precision", "double"}}));
  run_in_memory(run);
  const double weight = 1200.0 * 0.02 * 0.02 * 0.06 * 9.81;
  const auto r = support_reaction(run, "base");
  // The supports carry the whole weight, upwards.
  EXPECT_NEAR(r[2] / weight, 1.0, 0.01) << r[2] << " N vs weight " << weight << " N";
  EXPECT_NEAR(r[0], 0.0, 1e-3 * weight);
  // And the column really sags.
  double min_uz = 0.0;
  const auto u = displacement(run);
  for (std::size_t i = 2; i < u.size(); i += 3) min_uz = std::min(min_uz, u[i]);
  EXPECT_LT(min_uz, -1e-6);
}

TEST(Loads, NodalForcesAreCarriedByTheSupport) {
  PreparedRun run =
      prepare(kColumn + "loads: [{set: top, force: [0.001, 0, -0.002], amplitude: ramp}]\n",
              on_backend({{"precision", "double"}}));
  run_in_memory(run);
  const double nodes = static_cast<double>(run.model.mesh.node_sets.at("top").size());
  const auto r = support_reaction(run, "base");
  // At rest the supports push back with the opposite of the applied total.
  EXPECT_NEAR(r[0] / (0.001 * nodes), -1.0, 0.01) << r[0];
  EXPECT_NEAR(r[2] / (-0.002 * nodes), -1.0, 0.01) << r[2];
}

}  // namespace
}  // namespace fem::test
