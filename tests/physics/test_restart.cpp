// Checkpoint and restart: a run continued from a checkpoint gives the same bits as the run that
// never stopped (displacements, energy.csv, histories, the .pvd), for explicit dynamics and
// dynamic relaxation, on the backend under test (physics_kokkos.* runs these on Kokkos); and a
// checkpoint of another model is refused with the reason.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "fem/error.hpp"
#include "fem/output/checkpoint.hpp"
#include "output/scratch_dir.hpp"
#include "support/backend.hpp"
#include "support/case_runner.hpp"

namespace fem::test {
namespace {

// A sheared, pressed block with a distorted mesh, frames every 50 steps and histories every 7:
// the checkpoints fall between frames and samples.
const std::string kModel = R"(
name: block
mesh: {generator: box, cells: hex8, size: [0.05, 0.05, 0.05], divisions: [3, 3, 3],
       distortion: 0.1, seed: 3}
materials:
  tissue: {type: neo_hookean, density: 1000, youngs_modulus: 3000, poisson_ratio: 0.45}
blocks: [{name: tissue, element: hex8r, material: tissue}]
node_sets:
  bottom: {plane: {point: [0, 0, 0], normal: [0, 0, 1]}}
  top: {plane: {point: [0, 0, 0.05], normal: [0, 0, 1]}}
)";

const std::string kBlock = kModel + R"(
amplitudes:
  loading: {type: smooth_step, start: 0.0, end: 0.4}
boundary_conditions:
  - {set: bottom, fixed: all}
  - {set: top, displacement: {x: 0.002, z: -0.005}, amplitude: loading}
)";

const std::string kExplicit = R"(
solver: {end_time: 1.0, mass_damping: 5}
output:
  every_steps: 50
  checkpoint: {every_steps: 37, keep: 100}
  histories:
    - {name: top, set: top, quantities: [displacement, velocity, reaction_force], every_steps: 7}
  calculix_dat: true
)";

const std::string kRelaxation = R"(
solver: {type: dynamic_relaxation, tolerance: 1.0e-7, force_tolerance: 1.0e-4, check_every: 10,
         load_iterations: 100}
output:
  checkpoint: {every_steps: 30, keep: 100}
  histories: [{name: top, set: top, quantities: [displacement, reaction_force]}]
)";

struct Outcome {
  ExplicitRunReport report;
  std::vector<double> u, u_prev;
};

Outcome run(const std::string& yaml, const std::string& dir, const std::string& restart = "",
            std::function<bool()> stop = {}, std::vector<CaseOverride> overrides = {}) {
  PreparedRun r = prepare(yaml, on_backend(std::move(overrides)));
  ExplicitRunOptions options;
  options.output_directory = dir;
  options.restart_file = restart;
  options.stop_requested = std::move(stop);
  Outcome o{r.solver->run(options), {}, {}};
  r.solver->problem().displacement(o.u);
  r.solver->problem().previous_displacement(o.u_prev);
  return o;
}

std::string checkpoint_at(const ScratchDir& dir, const std::string& name, std::int64_t step) {
  char digits[16];
  std::snprintf(digits, sizeof digits, "%010lld", static_cast<long long>(step));
  return dir / (name + "_" + digits + ".checkpoint");
}

/// The output files whose every byte a restart must reproduce.
std::vector<std::string> text_outputs(const ScratchDir& dir,
                                      const std::vector<std::string>& names) {
  std::vector<std::string> texts;
  for (const std::string& n : names) texts.push_back(read_text(dir / n));
  return texts;
}

TEST(Restart, ExplicitRunContinuedFromACheckpointIsBitIdentical) {
  const ScratchDir dir;
  const Outcome whole = run(kBlock + kExplicit, dir.path().string());
  const std::vector<std::string> files = {"energy.csv", "top.csv", "block.pvd", "block.dat"};
  const std::vector<std::string> expected = text_outputs(dir, files);
  ASSERT_GT(whole.report.steps, 4 * 37);

  // Continue from the fourth checkpoint in the same folder: the files are cut back to what the
  // checkpoint recorded and grow again to the same bytes.
  const std::string checkpoint = checkpoint_at(dir, "block", 4 * 37);
  ASSERT_TRUE(std::filesystem::exists(checkpoint));
  const Outcome continued = run(kBlock + kExplicit, dir.path().string(), checkpoint);
  EXPECT_EQ(continued.report.first_step, 4 * 37);
  EXPECT_EQ(continued.report.steps, whole.report.steps);
  EXPECT_EQ(continued.u, whole.u);
  EXPECT_EQ(continued.u_prev, whole.u_prev);
  const std::vector<std::string> got = text_outputs(dir, files);
  for (std::size_t i = 0; i < files.size(); ++i) EXPECT_EQ(got[i], expected[i]) << files[i];
}

TEST(Restart, ViscoelasticHistoryIsCheckpointedAndTheContinuedRunIsBitIdentical) {
  // A law with history (24 values per point, relaxing over the run): the checkpoint must carry
  // its state, or the continued run relaxes from zero and its forces differ.
  std::string model = kBlock;
  const std::string elastic =
      "tissue: {type: neo_hookean, density: 1000, youngs_modulus: 3000, poisson_ratio: 0.45}";
  ASSERT_NE(model.find(elastic), std::string::npos);
  model.replace(model.find(elastic), elastic.size(),
                "tissue: {type: viscoelastic, density: 1000, c10: 500, bulk_modulus: 30000, "
                "g1: 0.4, tau1: 0.1, g2: 0.2, tau2: 0.3}");
  const ScratchDir dir;
  const Outcome whole = run(model + kExplicit, dir.path().string());
  const std::vector<std::string> files = {"energy.csv", "top.csv", "block.pvd"};
  const std::vector<std::string> expected = text_outputs(dir, files);
  const std::string checkpoint = checkpoint_at(dir, "block", 4 * 37);
  ASSERT_TRUE(std::filesystem::exists(checkpoint));
  const Checkpoint saved = read_checkpoint(checkpoint);
  ASSERT_EQ(saved.material_state.size(), 1u);
  double largest = 0.0;
  for (const double h : saved.material_state[0]) largest = std::max(largest, std::abs(h));
  EXPECT_GT(largest, 0.0) << "the checkpoint holds no viscous history";
  const Outcome continued = run(model + kExplicit, dir.path().string(), checkpoint);
  EXPECT_EQ(continued.u, whole.u);
  EXPECT_EQ(continued.u_prev, whole.u_prev);
  const std::vector<std::string> got = text_outputs(dir, files);
  for (std::size_t i = 0; i < files.size(); ++i) EXPECT_EQ(got[i], expected[i]) << files[i];
}

TEST(Restart, RunStoppedOnRequestAndRestartedIsBitIdenticalToOneThatNeverStopped) {
  const ScratchDir whole_dir, stopped_dir;
  const Outcome whole = run(kBlock + kExplicit, whole_dir.path().string());

  // Stop at the sixth step boundary the loop asks at (a stop for output or a checkpoint).
  std::int64_t frames = 0;
  const Outcome stopped =
      run(kBlock + kExplicit, stopped_dir.path().string(), "", [&frames] { return ++frames > 5; });
  ASSERT_TRUE(stopped.report.interrupted);
  ASSERT_FALSE(stopped.report.checkpoint.empty());
  EXPECT_LT(stopped.report.steps, whole.report.steps);
  EXPECT_EQ(stopped.report.checkpoint, checkpoint_at(stopped_dir, "block", stopped.report.steps));

  const Outcome continued =
      run(kBlock + kExplicit, stopped_dir.path().string(), stopped.report.checkpoint);
  EXPECT_FALSE(continued.report.interrupted);
  EXPECT_EQ(continued.u, whole.u);
  EXPECT_EQ(continued.u_prev, whole.u_prev);
  for (const std::string f : {"energy.csv", "top.csv", "block.pvd"})
    EXPECT_EQ(read_text(stopped_dir / f), read_text(whole_dir / f)) << f;
}

TEST(Restart, ContactRunContinuedFromACheckpointIsBitIdentical) {
  // A plane moving up into the block held at its top: contact corrections every step, their
  // forces in contact.csv at every frame.
  const std::string contact = R"(
solver: {end_time: 0.6, mass_damping: 50}
contact:
  - {name: piston, type: plane, point: [0, 0, 0], normal: [0, 0, 1], set: bottom,
     displacement: [0, 0, 0.002], amplitude: {type: smooth_step, end: 0.3}}
output:
  every_steps: 20
  checkpoint: {every_steps: 45, keep: 100}
)";
  const std::string model = kModel + "boundary_conditions: [{set: top, fixed: all}]\n" + contact;
  const ScratchDir dir;
  const Outcome whole = run(model, dir.path().string());
  ASSERT_GT(whole.report.steps, 90);
  ASSERT_GT(std::abs(whole.report.contact_force.at(0)[2]), 0.0);
  const std::string contact_csv = read_text(dir / "contact.csv");
  const std::string energy = read_text(dir / "energy.csv");
  const Outcome continued = run(model, dir.path().string(), checkpoint_at(dir, "block", 90));
  EXPECT_EQ(continued.u, whole.u);
  EXPECT_EQ(continued.report.contact_force, whole.report.contact_force);
  EXPECT_EQ(read_text(dir / "contact.csv"), contact_csv);
  EXPECT_EQ(read_text(dir / "energy.csv"), energy);
}

TEST(Restart, DynamicRelaxationContinuedFromACheckpointConvergesToTheSameBits) {
  const ScratchDir dir;
  const Outcome whole = run(kBlock + kRelaxation, dir.path().string());
  ASSERT_TRUE(whole.report.relaxation.converged);
  ASSERT_GT(whole.report.steps, 120);
  const std::string convergence = read_text(dir / "convergence.csv");
  const std::string top = read_text(dir / "top.csv");

  const Outcome continued =
      run(kBlock + kRelaxation, dir.path().string(), checkpoint_at(dir, "block", 120));
  EXPECT_TRUE(continued.report.relaxation.converged);
  EXPECT_EQ(continued.report.steps, whole.report.steps);
  EXPECT_EQ(continued.report.relaxation.damping, whole.report.relaxation.damping);
  EXPECT_EQ(continued.u, whole.u);
  EXPECT_EQ(read_text(dir / "convergence.csv"), convergence);
  EXPECT_EQ(read_text(dir / "top.csv"), top);
}

TEST(Restart, RunContinuesInTheOtherPrecisionWithAWarning) {
  const ScratchDir dir;
  const Outcome whole = run(kBlock + kExplicit, dir.path().string());
  const Outcome single = run(kBlock + kExplicit, dir.path().string(),
                             checkpoint_at(dir, "block", 74), {}, {{"precision", "single"}});
  ASSERT_EQ(single.u.size(), whole.u.size());
  double largest = 0.0, difference = 0.0;
  for (std::size_t i = 0; i < whole.u.size(); ++i) {
    largest = std::max(largest, std::abs(whole.u[i]));
    difference = std::max(difference, std::abs(single.u[i] - whole.u[i]));
  }
  EXPECT_LT(difference, 1e-4 * largest);
}

/// The message a restart from `checkpoint` with `overrides` is refused with.
std::string refusal(const std::string& checkpoint, const std::vector<CaseOverride>& overrides,
                    const std::string& dir) {
  try {
    run(kBlock + kExplicit, dir, checkpoint, {}, overrides);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

TEST(Restart, CheckpointOfAnotherModelIsRefusedWithTheReason) {
  const ScratchDir dir, other;
  run(kBlock + kExplicit, dir.path().string());
  const std::string checkpoint = checkpoint_at(dir, "block", 37);
  const std::string prefix = "cannot restart from '" + checkpoint + "': ";
  const auto says = [&](const std::vector<CaseOverride>& o, const std::string& why) {
    const std::string message = refusal(checkpoint, o, other.path().string());
    EXPECT_EQ(message.find(prefix), 0u) << message;
    EXPECT_NE(message.find(why), std::string::npos) << message;
  };
  says({{"materials.tissue.youngs_modulus", "4000"}},
       "its time step is");  // a stiffer material: another critical step
  says({{"solver.time_step", "1e-5"}}, "s; this case's is 1e-05 s");
  says({{"mesh.divisions", "[3, 3, 4]"}},
       "it holds a model of 64 nodes and 27 elements; this case's has 80 nodes and 36 elements");
  says({{"boundary_conditions.1.displacement.z", "-0.006"}},
       "it was written for another model: the mesh, materials, boundary conditions, loads, "
       "amplitudes or contact");
  says({{"solver", "{type: dynamic_relaxation}"}},
       "it was written by the explicit solver; this case's solver is dynamic_relaxation");
  says({{"solver.end_time", "0.99"}}, "ends at solver.end_time");
}

}  // namespace
}  // namespace fem::test
