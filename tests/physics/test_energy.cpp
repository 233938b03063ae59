// Undamped explicit dynamics conserves energy: kinetic + strain (+ hourglass) stays at the initial
// kinetic energy when nothing does work on the body.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>

#include "output/scratch_dir.hpp"
#include "support/backend.hpp"
#include "support/case_runner.hpp"
#include "support/element_types.hpp"

namespace fem::test {
namespace {

class EnergyConservation : public ::testing::TestWithParam<ElementCase> {};

TEST_P(EnergyConservation, UndampedFreeVibration) {
  const auto& [element, cells] = GetParam();
  const std::string yaml = R"(
mesh: {generator: box, cells: )" +
                           cells + R"(, size: [0.05, 0.05, 0.05], divisions: [4, 4, 4]}
materials:
  tissue: {type: neo_hookean, density: 1000, youngs_modulus: 3000, poisson_ratio: 0.45}
blocks: [{element: )" + element +
                           R"(, material: tissue}]
node_sets:
  bottom: {plane: {point: [0, 0, 0], normal: [0, 0, 1]}}
  everything: {all: true}
boundary_conditions: [{set: bottom, fixed: all}]
initial_conditions: [{set: everything, velocity: [0.02, 0.0, 0.01]}]
solver: {end_time: 0.3, safety_factor: 0.5, mass_damping: 0}
output: {every_steps: 5}
)";
  PreparedRun run = prepare(yaml, on_backend({{"precision", "double"}}));
  const ExplicitRunReport report = run_in_memory(run);
  ASSERT_GT(report.energies.size(), 20u);
  const double e0 = report.energies.front().kinetic;
  ASSERT_GT(e0, 0.0);
  double max_strain = 0.0, max_dev = 0.0;
  for (const EnergySample& s : report.energies) {
    const double total = s.kinetic + s.strain + s.hourglass;
    max_dev = std::max(max_dev, std::abs(total - e0) / e0);
    max_strain = std::max(max_strain, s.strain);
  }
  // The body must really exchange energy between kinetic and strain for the test to mean much.
  EXPECT_GT(max_strain, 0.3 * e0);
  EXPECT_LT(max_dev, 0.01);
}

INSTANTIATE_TEST_SUITE_P(Elements, EnergyConservation, all_element_types(), element_name);

/// energy.csv labels each row with the time its energies belong to: central differences have
/// the velocity (u_k - u_{k-1}) / dt at t_k - dt/2, and the strain energy is the mean of u_{k-1}'s
/// and u_k's, so frame k's row is at t_k - dt/2 (its step column is k).
TEST(EnergyFile, RowsAreLabelledWithTheTimeOfTheirEnergies) {
  const std::string yaml = R"(
mesh: {generator: box, cells: hex8, size: [0.05, 0.05, 0.05], divisions: [2, 2, 2]}
materials:
  tissue: {type: neo_hookean, density: 1000, youngs_modulus: 3000, poisson_ratio: 0.45}
blocks: [{element: hex8r, material: tissue}]
node_sets:
  bottom: {plane: {point: [0, 0, 0], normal: [0, 0, 1]}}
  everything: {all: true}
boundary_conditions: [{set: bottom, fixed: all}]
initial_conditions: [{set: everything, velocity: [0.02, 0.0, 0.01]}]
solver: {end_time: 0.05, mass_damping: 0}
output: {every_steps: 2, vtk: false}
)";
  ScratchDir dir;
  PreparedRun run = prepare(yaml, on_backend({{"precision", "double"}}));
  ExplicitRunOptions options;
  options.output_directory = dir.path().string();
  const ExplicitRunReport report = run.solver->run(options);
  const double dt = report.time_step;

  std::ifstream in(dir / "energy.csv");
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "time,step,kinetic,strain,hourglass");
  std::size_t row = 0;
  while (std::getline(in, line)) {
    double time = 0, kinetic = 0;
    long long step = 0;
    ASSERT_EQ(std::sscanf(line.c_str(), "%lf,%lld,%lf", &time, &step, &kinetic), 3) << line;
    ASSERT_LT(row, report.energies.size());
    const EnergySample& sample = report.energies[row++];
    EXPECT_EQ(time, sample.time) << line;
    EXPECT_DOUBLE_EQ(time, (static_cast<double>(step) - 0.5) * dt) << line;
    EXPECT_EQ(kinetic, sample.kinetic) << line;
  }
  EXPECT_EQ(row, report.energies.size());
  EXPECT_GT(row, 5u);
}

}  // namespace
}  // namespace fem::test
