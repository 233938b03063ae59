// Bad elements are caught: at setup by id, and during a run with step, element and time.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>

#include <fem/solver/explicit_system.hpp>

#include "support/backend.hpp"
#include "support/case_runner.hpp"

namespace fem::test {
namespace {

const std::string kCube = R"(
mesh: {generator: box, cells: hex8, size: [0.05, 0.05, 0.05], divisions: [2, 2, 2]}
materials:
  tissue: {type: neo_hookean, density: 1000, youngs_modulus: 3000, poisson_ratio: 0.45}
blocks: [{name: tissue, element: hex8r, material: tissue}]
node_sets:
  bottom: {plane: {point: [0, 0, 0], normal: [0, 0, 1]}}
  top: {plane: {point: [0, 0, 0.05], normal: [0, 0, 1]}}
amplitudes:
  crush: {type: linear, start: 0, end: 0.05}
boundary_conditions:
  - {set: bottom, fixed: all}
  - {set: top, displacement: {z: -0.08}, amplitude: crush}
solver: {end_time: 0.1}
)";

TEST(Failures, InvertedElementAtSetupIsReportedById) {
  auto plugins = std::make_unique<PluginRegistry>();
  Model model = build_model(parse_case(kCube, "<test>", on_backend()), *plugins);
  // Mirror element 5 by swapping its bottom and top faces.
  auto& conn = model.blocks[0].connectivity;
  for (int a = 0; a < 4; ++a) std::swap(conn[5 * 8 + a], conn[5 * 8 + 4 + a]);
  try {
    setup_explicit(model);
    FAIL() << "an inverted element was accepted";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("element 5"), std::string::npos) << what;
    EXPECT_NE(what.find("inverted"), std::string::npos) << what;
    EXPECT_NE(what.find("tissue"), std::string::npos) << what;
  }
}

TEST(Failures, ElementInvertedDuringRunStopsWithStepElementAndTime) {
  PreparedRun run = prepare(kCube, on_backend());
  try {
    run_in_memory(run);
    FAIL() << "crushing the cube to negative height did not stop the run";
  } catch (const SolveError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("step "), std::string::npos) << what;
    EXPECT_NE(what.find("t = "), std::string::npos) << what;
    EXPECT_NE(what.find("element "), std::string::npos) << what;
    EXPECT_NE(what.find("inverted"), std::string::npos) << what;
  }
  // The state left behind is the last good one: every element still has positive volume.
  std::vector<double> u_prev;
  run.solver->problem().previous_displacement(u_prev);
  std::vector<BlockResults> results;
  run.solver->problem().element_results(u_prev, results);
  for (const double j : results[0].min_jacobian) EXPECT_GT(j, 0.0);
}

TEST(Failures, ElementInvertedDuringRunIsNamedAsTheMeshFileNumbersIt) {
  // Two hexahedra, numbered 7 and 9 on nodes 101-112 in the file; the run's own numbering
  // (0 and 1, nodes 0-11 reordered) must not reach the message.
  const std::filesystem::path mesh =
      std::filesystem::temp_directory_path() / "fem_failures_numbered.inp";
  {
    std::ofstream out(mesh);
    out << "*NODE\n";
    for (int k = 0; k < 3; ++k)
      for (int j = 0; j < 2; ++j)
        for (int i = 0; i < 2; ++i)
          out << 101 + 4 * k + 2 * j + i << ", " << 0.05 * i << ", " << 0.05 * j << ", "
              << 0.025 * k << "\n";
    out << "*ELEMENT, TYPE=C3D8R, ELSET=tissue\n"
        << "7, 101, 102, 104, 103, 105, 106, 108, 107\n"
        << "9, 105, 106, 108, 107, 109, 110, 112, 111\n";
  }
  std::string yaml = kCube;
  yaml.replace(yaml.find("{generator: box"),
               yaml.find('\n', yaml.find("mesh:")) - yaml.find("{generator: box"),
               "{file: " + mesh.string() + "}");
  yaml.replace(yaml.find("element: hex8r,"), 15, "region: tissue, element: hex8r,");
  PreparedRun run = prepare(yaml, on_backend());
  try {
    run_in_memory(run);
    FAIL() << "crushing the column to negative height did not stop the run";
  } catch (const SolveError& e) {
    const std::string what = e.what();
    EXPECT_TRUE(std::regex_search(
        what, std::regex("element [79] \\(block 'tissue', nodes( [0-9]+){8}; in the file( "
                         "1[01][0-9]){8}\\) inverted")))
        << what;
  }
  std::filesystem::remove(mesh);
}

/// The step a run stops at, read from its failure message ("... at step N ...").
std::int64_t failing_step(const std::string& backend) {
  PreparedRun run = prepare(kCube, {CaseOverride{"backend", backend}});
  try {
    run_in_memory(run);
  } catch (const SolveError& e) {
    std::smatch m;
    const std::string what = e.what();
    if (std::regex_search(what, m, std::regex("step ([0-9]+)"))) return std::stoll(m[1]);
    ADD_FAILURE() << "no step in: " << what;
    return -1;
  }
  ADD_FAILURE() << "the crushed cube did not fail on " << backend;
  return -1;
}

/// Every backend stops at the same step: GPU backends count steps on the device and find the
/// failure only when a graph of steps has finished (FEM_TEST_BACKEND picks the one compared).
TEST(Failures, EveryBackendStopsAtTheSameStep) {
  const std::int64_t reference = failing_step("openmp");
  EXPECT_GT(reference, 0);
  EXPECT_EQ(failing_step(backend_under_test()), reference) << "backend " << backend_under_test();
}

}  // namespace
}  // namespace fem::test
