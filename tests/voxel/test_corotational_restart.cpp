// Checkpoint and restart of the co-rotational voxel solver: a run continued from a checkpoint,
// written on schedule or where the run was interrupted, ends with the bits of the run that never
// stopped (displacements, histories, the .pvd and the .dat), and a checkpoint of another model
// or one with nothing left to run is refused.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include <fem/error.hpp>
#include <fem/output/vtk_series.hpp>

#include "output/scratch_dir.hpp"
#include "voxel_cases.hpp"

namespace fem::test {
namespace {

/// A cube clamped at the bottom, pushed sideways at the top along a ramp and pulled down by
/// gravity: 10 steps, a checkpoint every 3 steps (all kept), histories every 2.
std::string pushed_cube(double young = 1.0e6) {
  VoxelCase c;
  c.n = {6, 6, 6};
  c.edge = 4.0e-3;
  c.young = young;
  c.solver = "{type: corotational, end_time: 0.5, time_step: 0.05}";
  c.extra = std::string(R"(
node_sets:
  bottom: {plane: {point: [0, 0, 0], normal: [0, 0, 1]}}
  top: {plane: {point: [0, 0, 0.024], normal: [0, 0, 1]}}
amplitudes: {push: {type: linear, start: 0, end: 0.3}}
boundary_conditions:
  - {set: bottom, fixed: all}
loads:
  - {set: top, force: [0.2, 0, -0.1], amplitude: push}
gravity: {acceleration: [0, 0, -9.81]}
output:
  vtk: )") + (vtk_output_available() ? "true" : "false") +
            R"(
  every_steps: 4
  checkpoint: {every_steps: 3, keep: 100}
  calculix_dat: true
  histories: [{name: top, set: top, quantities: [displacement, velocity, reaction_force],
               every_steps: 2}]
)";
  std::string yaml = c.yaml();
  yaml.replace(yaml.find("output: {vtk: false}\n"), 21, "");
  return yaml;
}

std::string checkpoint_at(const ScratchDir& dir, std::int64_t step) {
  char name[40];
  std::snprintf(name, sizeof name, "voxels_%010lld.checkpoint", static_cast<long long>(step));
  return dir / name;
}

CorotationalRunReport run(const std::string& yaml, const ScratchDir& dir,
                          const std::string& restart = "",
                          std::function<bool()> stop_requested = {}) {
  VoxelRun r = voxel_model(yaml);
  CorotationalRunOptions options;
  options.output_directory = dir.path().string();
  options.restart_file = restart;
  options.stop_requested = std::move(stop_requested);
  return run_corotational(r.model, *r.backend, "openmp", options);
}

TEST(CorotationalRestart, AContinuedRunEndsWithTheBitsOfTheRunThatNeverStopped) {
  const std::string yaml = pushed_cube();
  const ScratchDir dir;
  const CorotationalRunReport whole = run(yaml, dir);
  ASSERT_EQ(whole.steps, 10);
  const std::string top = read_text(dir / "top.csv");
  const std::string dat = read_text(dir / "voxels.dat");
  const std::string pvd = vtk_output_available() ? read_text(dir / "voxels.pvd") : "";
  EXPECT_NE(dat.find("displacements (vx,vy,vz) for set TOP"), std::string::npos);
  for (const std::int64_t from : {3, 6, 9}) {
    SCOPED_TRACE("from step " + std::to_string(from));
    const CorotationalRunReport continued = run(yaml, dir, checkpoint_at(dir, from));
    EXPECT_EQ(continued.first_step, from);
    EXPECT_EQ(continued.steps, 10);
    EXPECT_EQ(continued.final_displacement, whole.final_displacement);
    EXPECT_EQ(read_text(dir / "top.csv"), top);
    EXPECT_EQ(read_text(dir / "voxels.dat"), dat);
    if (vtk_output_available()) {
      EXPECT_EQ(read_text(dir / "voxels.pvd"), pvd);
    }
  }
}

TEST(CorotationalRestart, AnInterruptedRunLeavesACheckpointToContinueFrom) {
  const std::string yaml = pushed_cube();
  const ScratchDir whole_dir;
  const CorotationalRunReport whole = run(yaml, whole_dir);
  const ScratchDir dir;
  int calls = 0;
  const CorotationalRunReport stopped = run(yaml, dir, "", [&calls] { return ++calls == 5; });
  ASSERT_TRUE(stopped.interrupted);
  EXPECT_EQ(stopped.steps, 5);
  EXPECT_EQ(stopped.checkpoint, checkpoint_at(dir, 5));
  const CorotationalRunReport continued = run(yaml, dir, stopped.checkpoint);
  EXPECT_FALSE(continued.interrupted);
  EXPECT_EQ(continued.final_displacement, whole.final_displacement);
  EXPECT_EQ(read_text(dir / "top.csv"), read_text(whole_dir / "top.csv"));
}

TEST(CorotationalRestart, ACheckpointOfAnotherModelOrWithNothingLeftIsRefused) {
  const ScratchDir dir;
  run(pushed_cube(), dir);
  const auto refusal = [&](const std::string& yaml, std::int64_t step) -> std::string {
    try {
      run(yaml, dir, checkpoint_at(dir, step));
    } catch (const Error& e) {
      return e.what();
    }
    return "";
  };
  std::string why = refusal(pushed_cube(2.0e6), 6);
  EXPECT_NE(why.find("written for another model"), std::string::npos) << why;
  std::string shorter = pushed_cube();
  shorter.replace(shorter.find("end_time: 0.5"), 13, "end_time: 0.3");
  why = refusal(shorter, 6);
  EXPECT_NE(why.find("nothing is left to run"), std::string::npos) << why;
}

}  // namespace
}  // namespace fem::test
