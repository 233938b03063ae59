// Deterministic assembly: results are bit-for-bit the same whatever the number of threads.
#include <gtest/gtest.h>
#include <omp.h>

#include "support/backend.hpp"
#include "support/case_runner.hpp"

namespace fem::test {
namespace {

TEST(Determinism, ThreadCountDoesNotChangeTheResult) {
  // 5,400 elements and 1,210 nodes: large enough that the OpenMP backend runs both its element
  // and node passes in parallel (it runs loops under 256 elements or 1,024 nodes on one thread).
  const std::string yaml = R"(
mesh: {generator: box, cells: tet4, size: [0.05, 0.05, 0.05], divisions: [10, 10, 9], distortion: 0.2}
materials:
  tissue: {type: neo_hookean, density: 1000, youngs_modulus: 3000, poisson_ratio: 0.45}
blocks: [{element: tet4, material: tissue}]
node_sets:
  bottom: {plane: {point: [0, 0, 0], normal: [0, 0, 1]}}
  top: {plane: {point: [0, 0, 0.05], normal: [0, 0, 1]}}
boundary_conditions:
  - {set: bottom, fixed: all}
  - {set: top, displacement: {x: 0.003, z: -0.005}, amplitude: {type: linear, start: 0, end: 0.2}}
solver: {end_time: 0.2}
)";
  const int threads = omp_get_max_threads();
  std::vector<std::vector<double>> results;
  for (const int n : {1, 3}) {
    omp_set_num_threads(n);
    PreparedRun run = prepare(yaml, on_backend({{"precision", "single"}}));
    run_in_memory(run);
    results.push_back(displacement(run));
  }
  omp_set_num_threads(threads);
  ASSERT_EQ(results[0].size(), results[1].size());
  double max_u = 0.0;
  for (std::size_t i = 0; i < results[0].size(); ++i) {
    EXPECT_EQ(results[0][i], results[1][i]) << "dof " << i;
    max_u = std::max(max_u, std::abs(results[0][i]));
  }
  EXPECT_GT(max_u, 0.004);
}

}  // namespace
}  // namespace fem::test
