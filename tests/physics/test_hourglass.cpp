// One-point hexahedra need hourglass control: a cantilever bent by a tip load keeps its hourglass
// energy small with control, and without it the zero-energy modes take over.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "support/backend.hpp"
#include "support/case_runner.hpp"

namespace fem::test {
namespace {

const std::string kBeam = R"(
mesh: {generator: box, cells: hex8, size: [0.1, 0.02, 0.02], divisions: [10, 2, 2]}
materials:
  tissue: {type: neo_hookean, density: 1000, youngs_modulus: 3000, poisson_ratio: 0.3}
blocks: [{element: hex8r, material: tissue, hourglass_coefficient: 0.05}]
node_sets:
  root: {plane: {point: [0, 0, 0], normal: [1, 0, 0]}}
  tip: {plane: {point: [0.1, 0, 0], normal: [1, 0, 0]}}
amplitudes:
  load: {type: smooth_step, start: 0, end: 2.0}
boundary_conditions: [{set: root, fixed: all}]
loads: [{set: tip, force: [0, 0, -1.5e-4], amplitude: load}]
solver: {end_time: 3.0, mass_damping: 10}
output: {every_steps: 200}
)";

double max_abs_z(const std::vector<double>& u) {
  double m = 0.0;
  for (std::size_t i = 2; i < u.size(); i += 3) m = std::max(m, std::abs(u[i]));
  return m;
}

TEST(Hourglass, ControlKeepsHourglassEnergySmall) {
  PreparedRun run = prepare(kBeam, on_backend());
  const ExplicitRunReport report = run_in_memory(run);
  const EnergySample& last = report.energies.back();
  ASSERT_GT(last.strain, 0.0);
  EXPECT_LT(last.hourglass, 0.05 * last.strain);
  // The beam really bends: tip deflection of a few millimetres.
  const double tip = max_abs_z(displacement(run));
  EXPECT_GT(tip, 1e-3);
  EXPECT_LT(tip, 3e-2);
}

TEST(Hourglass, WithoutControlZeroEnergyModesTakeOver) {
  PreparedRun controlled = prepare(kBeam, on_backend());
  run_in_memory(controlled);
  const double tip_controlled = max_abs_z(displacement(controlled));

  PreparedRun uncontrolled = prepare(kBeam, on_backend({{"blocks.0.hourglass_coefficient", "0"}}));
  bool failed = false;
  double tip_uncontrolled = 0.0;
  try {
    run_in_memory(uncontrolled);
    tip_uncontrolled = max_abs_z(displacement(uncontrolled));
  } catch (const SolveError&) {
    failed = true;  // elements inverted: the instability in its plainest form
  }
  EXPECT_TRUE(failed || tip_uncontrolled > 2.0 * tip_controlled)
      << "controlled tip " << tip_controlled << " m, uncontrolled " << tip_uncontrolled << " m";
}

}  // namespace
}  // namespace fem::test
