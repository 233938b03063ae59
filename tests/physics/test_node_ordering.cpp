// The numbering of nodes and cells changes where data sits in memory, not the answer.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "support/backend.hpp"
#include "support/case_runner.hpp"

namespace fem::test {
namespace {

/// Final displacement per node, keyed by the node's reference coordinates.
std::map<std::array<double, 3>, std::array<double, 3>> displacement_by_position(PreparedRun& r) {
  const std::vector<double> u = displacement(r);
  std::map<std::array<double, 3>, std::array<double, 3>> out;
  for (std::int64_t n = 0; n < r.model.mesh.num_nodes(); ++n)
    out[r.model.mesh.node(n)] = {u[3 * n], u[3 * n + 1], u[3 * n + 2]};
  return out;
}

TEST(NodeOrdering, EveryOrderingGivesTheSameAnswer) {
  const std::string yaml = R"(
mesh: {generator: box, cells: tet4, size: [0.05, 0.05, 0.05], divisions: [4, 4, 4], distortion: 0.2}
materials:
  tissue: {type: neo_hookean, density: 1000, youngs_modulus: 3000, poisson_ratio: 0.45}
blocks: [{element: tet4, material: tissue}]
node_sets:
  bottom: {plane: {point: [0, 0, 0], normal: [0, 0, 1]}}
  top: {plane: {point: [0, 0, 0.05], normal: [0, 0, 1]}}
  corner: {ids: [124]}  # the top corner (0.05, 0.05, 0.05) in the input numbering
boundary_conditions:
  - {set: bottom, fixed: all}
  - {set: top, displacement: {x: 0.003, z: -0.005}, amplitude: {type: linear, start: 0, end: 0.2}}
  - {set: corner, fixed: [y]}
solver: {end_time: 0.2}
)";
  std::map<std::string, std::map<std::array<double, 3>, std::array<double, 3>>> results;
  for (const char* ordering : {"input", "auto", "rcm", "shuffled"}) {
    PreparedRun run =
        prepare(yaml, on_backend({{"precision", "double"}, {"solver.node_ordering", ordering}}));
    run_in_memory(run);
    results[ordering] = displacement_by_position(run);
  }
  const auto& reference = results.at("input");
  double max_u = 0.0;
  for (const auto& [x, u] : reference)
    for (const double c : u) max_u = std::max(max_u, std::abs(c));
  ASSERT_GT(max_u, 1e-3);
  for (const char* ordering : {"auto", "rcm", "shuffled"}) {
    const auto& other = results.at(ordering);
    ASSERT_EQ(other.size(), reference.size());
    double diff = 0.0;
    for (const auto& [x, u] : reference)
      for (int i = 0; i < 3; ++i) diff = std::max(diff, std::abs(other.at(x)[i] - u[i]));
    // Only the order of the force sums differs: round-off in double precision.
    EXPECT_LT(diff / max_u, 1e-10) << ordering;
  }
}

}  // namespace
}  // namespace fem::test
