// What the elastodynamic solver refuses, with one message before any work: a source or receiver
// that matches no node, a receiver point outside the mesh, a time step above the stability
// limit, a material without a real wave speed, an element it does not integrate, and case keys
// that belong to other solvers.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "waves/wave_cases.hpp"

namespace fem::test {
namespace {

TEST(WaveInput, ASourceOutsideTheMeshIsRefusedWhereItsSetIsDefined) {
  Column c;
  c.sets = "  away: {sphere: {center: [5, 5, 5], radius: 0.01}}";
  c.extra = "loads:\n  - {set: away, force: [1, 0, 0]}";
  const std::string m = wave_refusal(c.yaml());
  EXPECT_NE(m.find("selects no nodes"), std::string::npos) << m;
  EXPECT_NE(m.find("<test>:"), std::string::npos) << m;
}

TEST(WaveInput, AReceiverMatchingNoNodeIsRefused) {
  Column c;
  c.sets = "  away: {sphere: {center: [5, 5, 5], radius: 0.01}}";
  c.output = "{vtk: false, receivers: [{set: away}]}";
  EXPECT_NE(wave_refusal(c.yaml()).find("selects no nodes"), std::string::npos);
}

TEST(WaveInput, AReceiverPointOutsideTheMeshIsRefusedWithTheMeshBox) {
  Column c;
  c.output = "{vtk: false, receivers: [{name: probe, point: [3, 0, 0]}]}";
  WaveRun run = wave_model(c.yaml());
  WaveSolver solver(run.model, *run.backend, "openmp");
  try {
    solver.run({});
    FAIL() << "a receiver outside the mesh was accepted";
  } catch (const InputError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("receiver 'probe': point [3, 0, 0] lies outside the mesh"), std::string::npos)
        << m;
    EXPECT_NE(m.find("<test>:"), std::string::npos) << m;
  }
}

TEST(WaveInput, ATimeStepAboveTheStabilityLimitIsRefusedNamingTheLimitAndTheElement) {
  Column c;  // 1 m, 100 cells: the limit is h / c_p = 1.70e-6 s for these rollers
  c.solver = "{type: elastodynamic, end_time: 1.0e-4, time_step: 2.0e-6}";
  const std::string m = wave_refusal(c.yaml());
  EXPECT_NE(m.find("exceeds the stability limit 1.70"), std::string::npos) << m;
  EXPECT_NE(m.find("element "), std::string::npos) << m;
  EXPECT_NE(m.find("hint: use time_step: auto"), std::string::npos) << m;
  // Just below the limit runs.
  c.solver = "{type: elastodynamic, end_time: 1.0e-4, time_step: 1.69e-6}";
  EXPECT_EQ(wave_refusal(c.yaml()), "");
}

TEST(WaveInput, TheStabilityLimitIsTheLargestStableStep) {
  // 0.999 of the estimated limit stays bounded over 4,000 steps; 1.02 of it (the same setup
  // with the matrix and the source scaled by the squared ratio of the steps: without damping
  // both are proportional to dt^2) grows without bound.
  Column c;
  c.solver = "{type: elastodynamic, end_time: 1.0e-2, safety_factor: 0.999}";
  c.extra =
      "amplitudes:\n  b: {type: tone_burst, frequency: 1.0e5, cycles: 2}\n"
      "loads:\n  - {set: left, force: [1, 0, 0], amplitude: b}";
  c.conditions = "  - {set: right, fixed: [x]}";
  c.output = "{vtk: false, receivers: [{set: left}], receiver_formats: [csv]}";
  WaveRun run = wave_model(c.yaml());
  WaveSetup stable = setup_waves(run.model, *run.backend);
  stable.num_steps = 4000;
  WaveSetup unstable = stable;
  const double scale = (1.02 / 0.999) * (1.02 / 0.999);
  for (double& x : unstable.matrix.values) x *= scale;
  for (WaveSource& s : unstable.sources)
    for (double& w : s.weights) w *= scale;
  const WaveRunReport r = WaveSolver(run.model, *run.backend, "openmp", std::move(stable)).run({});
  EXPECT_EQ(r.steps, 4000);
  EXPECT_LT(r.max_displacement, 1e-6);
  // It grows by about e^0.28 a step: past the largest double before step 4,000, which the frame
  // checks see.
  bool diverged = false;
  WaveRunOptions files;
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "fem_waves_diverging";
  std::filesystem::remove_all(dir);
  files.output_directory = dir.string();
  try {
    WaveSolver(run.model, *run.backend, "openmp", std::move(unstable)).run(files);
  } catch (const SolveError& e) {
    diverged = std::string(e.what()).find("not finite") != std::string::npos;
    // The receiver's samples up to the failure are on disk.
    std::ifstream csv(dir / "left.csv");
    std::size_t rows = 0;
    for (std::string line; std::getline(csv, line);) ++rows;
    EXPECT_GT(rows, 100u);
  }
  EXPECT_TRUE(diverged);
  std::filesystem::remove_all(dir);
}

TEST(WaveInput, AMaterialWithoutARealWaveSpeedIsRefusedAtTheMaterial) {
  Column c;
  WaveRun run = wave_model(c.yaml());
  // A shear modulus of zero (the plugin's own checks would refuse it in a case file).
  run.model.blocks[0].params = {1.0e9, 0.0};
  try {
    setup_waves(run.model, *run.backend);
    FAIL() << "a material without a shear stiffness was accepted";
  } catch (const InputError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("material 'steel'"), std::string::npos) << m;
    EXPECT_NE(m.find("no real wave speed"), std::string::npos) << m;
    EXPECT_NE(m.find("<test>:"), std::string::npos) << m;
  }
}

TEST(WaveInput, OnePointHexahedraAreRefused) {
  Column c;
  std::string yaml = c.yaml();
  yaml.replace(yaml.find("element: hex8,"), std::string("element: hex8,").size(),
               "element: hex8r,");
  const std::string m = wave_refusal(yaml);
  EXPECT_NE(m.find("isoparametric elements only"), std::string::npos) << m;
  EXPECT_NE(m.find("hint: use element hex8"), std::string::npos) << m;
}

TEST(WaveInput, KeysOfOtherSolversAreRefused) {
  Column c;
  c.extra = "gravity: {acceleration: [0, 0, -9.81]}";
  EXPECT_NE(wave_refusal(c.yaml()).find("gravity does not apply"), std::string::npos);
  c.extra = "";
  c.output = "{vtk: false, histories: [{set: left}]}";
  EXPECT_NE(wave_refusal(c.yaml()).find("record node traces with output.receivers"),
            std::string::npos);
  c.output = "{vtk: false, checkpoint: {every_steps: 10}}";
  EXPECT_NE(wave_refusal(c.yaml()).find("checkpoints are not written"), std::string::npos);
  c.output = "{vtk: false}";
  c.solver = "{type: explicit, end_time: 1.0e-4, absorbing_layers: []}";
  EXPECT_NE(wave_refusal(c.yaml()).find("absorbing_layers"), std::string::npos);
}

TEST(WaveInput, SignalsNeedTheirParameters) {
  Column c;
  c.extra = "amplitudes:\n  b: {type: tone_burst, cycles: 3}";
  EXPECT_NE(wave_refusal(c.yaml()).find("frequency"), std::string::npos);
  c.extra = "amplitudes:\n  g: {type: gaussian, centre: 1.0e-5}";
  EXPECT_NE(wave_refusal(c.yaml()).find("width"), std::string::npos);
  c.extra = "amplitudes:\n  r: {type: ricker, frequency: 1.0e5, width: 1}";
  EXPECT_NE(wave_refusal(c.yaml()).find("does not apply to a ricker amplitude"), std::string::npos);
}

TEST(WaveInput, AbsorbingLayersNeedAKnownSet) {
  Column c;
  c.solver =
      "{type: elastodynamic, end_time: 1.0e-4, absorbing_layers: [{set: rigth, thickness: 0.1, "
      "max_damping: 1.0e5}]}";
  const std::string m = wave_refusal(c.yaml());
  EXPECT_NE(m.find("node set 'rigth', which is not defined"), std::string::npos) << m;
  EXPECT_NE(m.find("right"), std::string::npos) << m;
  c.solver =
      "{type: elastodynamic, end_time: 1.0e-4, absorbing_layers: [{set: right, thickness: 0.1, "
      "max_damping: 1.0e5, stiffness_reduction: -1}]}";
  const std::string g = wave_refusal(c.yaml());
  EXPECT_NE(g.find("stiffness_reduction"), std::string::npos) << g;
  EXPECT_NE(g.find("<test>:"), std::string::npos) << g;
}

}  // namespace
}  // namespace fem::test
