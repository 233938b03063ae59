// Voxel meshes from the command line: `fem check` and `fem run` on a segmented image written by
// scripts/models/voxel_image.py, and on the voxels generator.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <fem/output/vtk_series.hpp>

#include "support/run_fem.hpp"

namespace fem::test {
namespace {

const std::string kOrganCase = R"(name: organ
mesh: {image: organ.mhd, scale: 0.001}
materials:
  organ: {type: neo_hookean, youngs_modulus: 3000, poisson_ratio: 0.45}
  tumour: {type: neo_hookean, youngs_modulus: 30000, poisson_ratio: 0.45}
blocks:
  - {region: label_1, element: hex8r, material: organ}
  - {region: label_2, element: hex8r, material: tumour}
solver: {end_time: 0.001}
)";

TEST(VoxelCli, CheckNamesTheImageAndItsLabelRegions) {
  if (!vtk_output_available()) GTEST_SKIP() << "built without VTK: images cannot be read";
  const std::string dir = fresh_temp_dir("fem_voxel_cli", "organ");
  std::filesystem::create_directories(dir);
  const FemResult script = run_shell(
      "python3 " FEM_SOURCE_DIR "/scripts/models/voxel_image.py -n 16 -o " + dir + "/organ.mhd");
  if (script.code != 0) GTEST_SKIP() << "python3 could not run the script:\n" << script.output;
  std::ofstream(dir + "/case.yaml") << kOrganCase;
  const FemResult check = run_fem("check " + dir + "/case.yaml");
  ASSERT_EQ(check.code, 0) << check.output;
  EXPECT_NE(check.output.find("mesh: image " + dir + "/organ.mhd"), std::string::npos)
      << check.output;
  EXPECT_NE(check.output.find("region label_1: "), std::string::npos) << check.output;
  EXPECT_NE(check.output.find("region label_2: "), std::string::npos) << check.output;

  // The tumour left without a block: exit code 2 and the label named.
  std::string organ_only = kOrganCase;
  organ_only.erase(organ_only.find("  - {region: label_2"),
                   organ_only.find("solver:") - organ_only.find("  - {region: label_2"));
  std::ofstream(dir + "/organ_only.yaml") << organ_only;
  const FemResult refused = run_fem("check " + dir + "/organ_only.yaml");
  EXPECT_EQ(refused.code, 2) << refused.output;
  EXPECT_NE(refused.output.find("the image's label_2 ("), std::string::npos) << refused.output;
  std::filesystem::remove_all(dir);
}

TEST(VoxelCli, GeneratorCaseRuns) {
  const std::string dir = fresh_temp_dir("fem_voxel_cli", "blob");
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/case.yaml") << R"(name: blob
mesh: {generator: voxels, shape: blob, size: [0.04, 0.04, 0.04], divisions: 12}
materials: {tissue: {type: neo_hookean, youngs_modulus: 3000, poisson_ratio: 0.45}}
blocks: [{element: hex8r, material: tissue}]
node_sets: {bottom: {box: {min: [-1, -1, -1], max: [1, 1, 0.008]}}}
boundary_conditions: [{set: bottom, fixed: all}]
gravity: {acceleration: [0, 0, -9.81]}
solver: {end_time: 0.002}
output: {every_time: 0.001}
)";
  const FemResult run = run_fem("run " + dir + "/case.yaml -q --output " + dir + "/out");
  ASSERT_EQ(run.code, 0) << run.output;
  const FemResult check = run_fem("check " + dir + "/case.yaml");
  EXPECT_NE(check.output.find("mesh: voxels generator (blob)"), std::string::npos) << check.output;
}

TEST(VoxelCli, ACorotationalRunRestartsFromItsCheckpoint) {
  const std::string dir = fresh_temp_dir("fem_voxel_cli", "restart");
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/case.yaml") << R"(name: cube
mesh: {generator: box, cells: hex8, size: [0.016, 0.016, 0.016], divisions: [4, 4, 4]}
materials: {tissue: {type: linear_elastic, density: 1000, youngs_modulus: 1.0e5, poisson_ratio: 0.3}}
blocks: [{element: hex8, material: tissue}]
node_sets: {bottom: {plane: {point: [0, 0, 0], normal: [0, 0, 1]}}}
boundary_conditions: [{set: bottom, fixed: all}]
gravity: {acceleration: [1, 0, -9.81]}
solver: {type: corotational, end_time: 0.2, time_step: 0.05}
output: {vtk: false, checkpoint: {every_steps: 2}}
)";
  const std::string out = " --output " + dir + "/out";
  const FemResult first = run_fem("run " + dir + "/case.yaml" + out);
  ASSERT_EQ(first.code, 0) << first.output;
  const FemResult again = run_fem("run " + dir + "/case.yaml" + out + " --restart " + dir +
                                  "/out/cube_0000000002.checkpoint");
  ASSERT_EQ(again.code, 0) << again.output;
  EXPECT_NE(again.output.find("continuing from step 2"), std::string::npos) << again.output;
  EXPECT_NE(again.output.find("completed 4 steps"), std::string::npos) << again.output;
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace fem::test
