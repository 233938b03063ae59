// The histories of a run (displacement, velocity and the reaction force of a set, sampled mid-run)
// are the same numbers, bit for bit, on OpenMP and Kokkos' Serial space: both backends compute
// the same element forces, and the reaction sums them in the same order (each node's slots, then
// the nodes of the set).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "output/scratch_dir.hpp"
#include "support/backend_here.hpp"
#include "support/case_runner.hpp"
#include "support/history_csv.hpp"

namespace fem::test {
namespace {

// A block pressed on its top face and sheared, sampled every 7 steps: the reaction of the top is
// a sum over many nodes of forces that change every step.
const std::string kCase = R"(
mesh: {generator: box, cells: hex8, size: [0.05, 0.05, 0.05], divisions: [4, 4, 4],
       distortion: 0.1, seed: 3}
materials:
  tissue: {type: neo_hookean, density: 1000, youngs_modulus: 3000, poisson_ratio: 0.45}
blocks: [{name: tissue, element: hex8r, material: tissue}]
node_sets:
  bottom: {plane: {point: [0, 0, 0], normal: [0, 0, 1]}}
  top: {plane: {point: [0, 0, 0.05], normal: [0, 0, 1]}}
amplitudes:
  loading: {type: smooth_step, start: 0.0, end: 0.3}
boundary_conditions:
  - {set: bottom, fixed: all}
  - {set: top, displacement: {x: 0.002, z: -0.005}, amplitude: loading}
solver: {end_time: 0.4, mass_damping: 5}
output:
  vtk: false
  histories:
    - {name: top, set: top, quantities: [displacement, velocity, reaction_force], every_steps: 7}
    - {name: bottom, set: bottom, quantities: [reaction_force], every_steps: 5}
)";

TEST(KokkosHistories, ReactionForcesMatchOpenMpBitForBitMidRun) {
  {
    const PluginRegistry plugins;
    std::string why;
    const auto kokkos = backend_here(plugins, "kokkos", why);
    if (!kokkos) GTEST_SKIP() << why;
    const std::string space = kokkos->execution_space();
    if (space.find("Serial") == std::string::npos)
      GTEST_SKIP() << "bit-for-bit agreement is promised on Kokkos' Serial space, this is "
                   << space;
  }
  ScratchDir dir;
  for (const char* precision : {"double", "single"}) {
    SCOPED_TRACE(precision);
    std::vector<std::vector<std::vector<double>>> histories;  // [backend][history] rows
    for (const char* backend : {"openmp", "kokkos"}) {
      PreparedRun run = prepare(kCase, {{"backend", backend}, {"precision", precision}});
      ExplicitRunOptions options;
      options.output_directory = dir / (std::string(backend) + "_" + precision);
      (void)run.solver->run(options);
      histories.push_back(read_history_csv(options.output_directory + "/top.csv").rows);
      const auto bottom = read_history_csv(options.output_directory + "/bottom.csv").rows;
      histories.back().insert(histories.back().end(), bottom.begin(), bottom.end());
    }
    const auto& openmp = histories[0];
    const auto& kokkos = histories[1];
    ASSERT_EQ(openmp.size(), kokkos.size());
    ASSERT_GT(openmp.size(), 20u);
    std::size_t loaded_rows = 0;
    for (std::size_t r = 0; r < openmp.size(); ++r) {
      ASSERT_EQ(openmp[r].size(), kokkos[r].size());
      // The reaction force is the last three columns; it must really be non-zero mid-run.
      if (openmp[r].back() != 0.0) ++loaded_rows;
      for (std::size_t c = 0; c < openmp[r].size(); ++c)
        EXPECT_EQ(openmp[r][c], kokkos[r][c]) << "row " << r << ", column " << c;
    }
    EXPECT_GT(loaded_rows, 10u);
  }
}

}  // namespace
}  // namespace fem::test
