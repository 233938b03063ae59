// apps/fem_drag: a handle dragged through a co-rotational voxel case for a few steps, and the
// refusal of a case of another solver type.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <fem/output/vtk_series.hpp>

#include "support/run_fem.hpp"

namespace fem::test {
namespace {

FemResult run_drag(const std::string& args) {
  return run_shell(std::string(FEM_BINARY_DIR) + "/bin/fem_drag " + args);
}

const std::string kCube = R"(name: cube
backend: openmp
precision: double
mesh: {generator: box, cells: hex8, size: [0.024, 0.024, 0.024], divisions: [6, 6, 6]}
materials:
  tissue: {type: linear_elastic, density: 1.0e5, youngs_modulus: 1.0e6, poisson_ratio: 0.3}
blocks:
  - {name: body, element: hex8, material: tissue}
node_sets:
  bottom: {plane: {point: [0, 0, 0], normal: [0, 0, 1]}}
boundary_conditions:
  - {set: bottom, fixed: all}
solver: {type: corotational, end_time: 1.0, time_step: 0.05}
)";

TEST(DragCli, DragsAHandleAndReportsStepsPerSecond) {
  const std::string dir = fresh_temp_dir("fem_drag_cli", "cube");
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/cube.yaml") << kCube;
  const FemResult r = run_drag(dir +
                               "/cube.yaml --handle-point 0.024,0.024,0.024 --path "
                               "0.004,0,0 --steps 6 --every 3 --output " +
                               dir + "/out");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("216 voxels"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("6 steps in "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find(" steps/s"), std::string::npos) << r.output;
  // The handle ends where the path does.
  EXPECT_NE(r.output.find("u = [0.004 0 0] m"), std::string::npos) << r.output;
  // What holds it there pulls along the path, against the body's stiffness.
  const std::size_t held = r.output.find("held by [");
  ASSERT_NE(held, std::string::npos) << r.output;
  EXPECT_GT(std::stod(r.output.substr(held + 9)), 0.0) << r.output;
  if (vtk_output_available()) {
    EXPECT_TRUE(std::filesystem::exists(dir + "/out/cube.pvd")) << r.output;
  } else {
    EXPECT_NE(r.output.find("no VTK series"), std::string::npos) << r.output;
  }
  // By node id: the top corner of the generator's lattice (x fastest: 7^3 - 1).
  const FemResult by_id =
      run_drag(dir + "/cube.yaml --handle-node 342 --path 0,0,0.002 --steps 2 --every 0");
  ASSERT_EQ(by_id.code, 0) << by_id.output;
  EXPECT_NE(by_id.output.find("handle node 342 at [0.024 0.024 0.024]"), std::string::npos)
      << by_id.output;
  std::filesystem::remove_all(dir);
}

TEST(DragCli, RefusesOtherSolverTypesAndBadHandles) {
  const std::string dir = fresh_temp_dir("fem_drag_cli", "refusals");
  std::filesystem::create_directories(dir);
  std::string explicit_case = kCube;
  const std::string corotational = "solver: {type: corotational, end_time: 1.0, time_step: 0.05}";
  explicit_case.replace(explicit_case.find(corotational), corotational.size(),
                        "solver: {type: explicit, end_time: 0.001}");
  std::ofstream(dir + "/explicit.yaml") << explicit_case;
  const FemResult r = run_drag(dir + "/explicit.yaml --handle-node 0 --path 0,0,0.001 --steps 2");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("fem_drag runs cases of solver type corotational"), std::string::npos)
      << r.output;

  std::ofstream(dir + "/cube.yaml") << kCube;
  const FemResult none = run_drag(dir + "/cube.yaml --path 0,0,0.001");
  EXPECT_EQ(none.code, 2) << none.output;
  const FemResult outside =
      run_drag(dir + "/cube.yaml --handle-node 100000 --path 0,0,0.001 --steps 1");
  EXPECT_EQ(outside.code, 2) << outside.output;
  EXPECT_NE(outside.output.find("not a node of the voxel body"), std::string::npos)
      << outside.output;
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace fem::test
