// A checkpoint carries a run across backends: an OpenMP run stopped by a checkpoint and continued
// on Kokkos' Serial space (and the reverse) ends with the bits of an uninterrupted run, since
// both backends compute the same steps and the checkpoint holds the state exactly.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "output/scratch_dir.hpp"
#include "support/backend_here.hpp"
#include "support/case_runner.hpp"

namespace fem::test {
namespace {

const std::string kCase = R"(
name: block
mesh: {generator: box, cells: tet4, size: [0.05, 0.05, 0.05], divisions: [3, 3, 3],
       distortion: 0.1, seed: 5}
materials:
  tissue: {type: neo_hookean, density: 1000, youngs_modulus: 3000, poisson_ratio: 0.45}
blocks: [{name: tissue, element: tet4_anp, material: tissue}]
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
  every_steps: 40
  checkpoint: {every_steps: 60, keep: 10}
  histories: [{name: top, set: top, quantities: [displacement, reaction_force], every_steps: 9}]
)";

struct Ended {
  std::vector<double> u;
  std::string energy, top;
};

Ended run_on(const std::string& backend, const std::string& dir, const std::string& restart) {
  PreparedRun r = prepare(kCase, {{"backend", backend}});
  ExplicitRunOptions options;
  options.output_directory = dir;
  options.restart_file = restart;
  (void)r.solver->run(options);
  Ended e;
  r.solver->problem().displacement(e.u);
  e.energy = read_text(dir + "/energy.csv");
  e.top = read_text(dir + "/top.csv");
  return e;
}

TEST(KokkosRestart, CheckpointOfOneBackendContinuesOnTheOtherBitForBit) {
  {
    const PluginRegistry plugins;
    std::string why;
    const auto kokkos = backend_here(plugins, "kokkos", why);
    if (!kokkos) GTEST_SKIP() << why;
    if (kokkos->execution_space().find("Serial") == std::string::npos)
      GTEST_SKIP() << "bit-for-bit agreement is promised on Kokkos' Serial space";
  }
  const ScratchDir dir;
  for (const auto& [first, second] :
       {std::pair<std::string, std::string>{"openmp", "kokkos"}, {"kokkos", "openmp"}}) {
    SCOPED_TRACE(first + " then " + second);
    const std::string folder = dir / first;
    const Ended whole = run_on(first, folder, "");
    const Ended continued = run_on(second, folder, folder + "/block_0000000120.checkpoint");
    EXPECT_EQ(continued.u, whole.u);
    EXPECT_EQ(continued.energy, whole.energy);
    EXPECT_EQ(continued.top, whole.top);
  }
}

}  // namespace
}  // namespace fem::test
