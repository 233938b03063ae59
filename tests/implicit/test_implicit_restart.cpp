// Checkpoint and restart of the implicit solvers: Newmark, HHT-alpha and a static solve in
// automatic increments continued from a checkpoint end with the bits of the run that never
// stopped (displacements, velocities, energy.csv, histories, contact.csv), on the backend under
// test (implicit_kokkos.* runs these on Kokkos).
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "output/scratch_dir.hpp"
#include "support/backend.hpp"
#include "support/implicit_runner.hpp"

namespace fem::test {
namespace {

const std::string kBlock = R"(
name: block
mesh: {generator: box, cells: hex8, size: [0.05, 0.05, 0.05], divisions: [2, 2, 2],
       distortion: 0.1, seed: 3}
materials:
  tissue: {type: neo_hookean, density: 1000, youngs_modulus: 3000, poisson_ratio: 0.45}
blocks: [{name: tissue, element: hex8, material: tissue}]
node_sets:
  bottom: {plane: {point: [0, 0, 0], normal: [0, 0, 1]}}
  top: {plane: {point: [0, 0, 0.05], normal: [0, 0, 1]}}
amplitudes:
  loading: {type: smooth_step, start: 0.0, end: 0.2}
boundary_conditions:
  - {set: bottom, fixed: all}
  - {set: top, displacement: {x: 0.002, z: -0.005}, amplitude: loading}
output:
  every_steps: 4
  checkpoint: {every_steps: 3, keep: 100}
  histories: [{name: top, set: top, quantities: [displacement, velocity, reaction_force],
               every_steps: 2}]
  calculix_dat: true
)";

struct Outcome {
  ImplicitRunReport report;
  std::vector<double> u, v;
};

Outcome run(const std::string& yaml, const std::string& dir, const std::string& restart = "") {
  ImplicitRun r = prepare_implicit(yaml, on_backend());
  ImplicitRunOptions options;
  options.output_directory = dir;
  options.restart_file = restart;
  Outcome o{r.solver->run(options), r.solver->displacement(), r.solver->velocity()};
  return o;
}

std::string checkpoint_at(const ScratchDir& dir, std::int64_t increment) {
  char name[40];
  std::snprintf(name, sizeof name, "block_%010lld.checkpoint", static_cast<long long>(increment));
  return dir / name;
}

void expect_continuation_is_bit_identical(const std::string& solver, std::int64_t from,
                                          const std::string& model = kBlock) {
  SCOPED_TRACE(solver);
  const std::string yaml = model + solver;
  const ScratchDir dir;
  const Outcome whole = run(yaml, dir.path().string());
  ASSERT_GT(whole.report.increments, from);
  const std::string energy = read_text(dir / "energy.csv");
  const std::string top = read_text(dir / "top.csv");
  const std::string pvd = read_text(dir / "block.pvd");
  const std::string dat = read_text(dir / "block.dat");
  EXPECT_NE(dat.find("displacements (vx,vy,vz) for set TOP"), std::string::npos);
  const Outcome continued = run(yaml, dir.path().string(), checkpoint_at(dir, from));
  EXPECT_EQ(continued.report.first_increment, from);
  EXPECT_EQ(continued.report.increments, whole.report.increments);
  EXPECT_EQ(continued.u, whole.u);
  EXPECT_EQ(continued.v, whole.v);
  EXPECT_EQ(read_text(dir / "energy.csv"), energy);
  EXPECT_EQ(read_text(dir / "top.csv"), top);
  EXPECT_EQ(read_text(dir / "block.pvd"), pvd);
  EXPECT_EQ(read_text(dir / "block.dat"), dat);
}

TEST(ImplicitRestart, NewmarkContinuesBitForBit) {
  expect_continuation_is_bit_identical(
      "solver: {type: implicit_dynamic, time_step: 0.02, end_time: 0.3, mass_damping: 5}\n", 6);
}

TEST(ImplicitRestart, HhtContinuesBitForBit) {
  expect_continuation_is_bit_identical(
      "solver: {type: implicit_dynamic, integrator: hht, alpha: -0.1, time_step: 0.02, "
      "end_time: 0.3}\n",
      9);
}

TEST(ImplicitRestart, ViscoelasticHistoryContinuesBitForBit) {
  // A law with history: the checkpoint carries the operator's committed state (without it the
  // continued run would relax from zero history and its forces would differ).
  std::string model = kBlock;
  const std::string elastic =
      "tissue: {type: neo_hookean, density: 1000, youngs_modulus: 3000, poisson_ratio: 0.45}";
  ASSERT_NE(model.find(elastic), std::string::npos);
  model.replace(model.find(elastic), elastic.size(),
                "tissue: {type: viscoelastic, density: 1000, c10: 500, bulk_modulus: 30000, "
                "g1: 0.4, tau1: 0.05, g2: 0.2, tau2: 0.2}");
  expect_continuation_is_bit_identical(
      "solver: {type: implicit_dynamic, time_step: 0.02, end_time: 0.3, mass_damping: 5}\n", 6,
      model);
}

TEST(ImplicitRestart, StaticInAutomaticIncrementsContinuesBitForBit) {
  // A static solution has no velocity to record.
  std::string model = kBlock;
  const std::string quantities = "quantities: [displacement, velocity, reaction_force]";
  ASSERT_NE(model.find(quantities), std::string::npos);
  model.replace(model.find(quantities), quantities.size(),
                "quantities: [displacement, reaction_force]");
  expect_continuation_is_bit_identical(
      "solver: {type: static, end_time: 1, increments: {initial: 0.05, growth: 1.5}}\n", 3, model);
}

TEST(ImplicitRestart, StepsContinueBitForBit) {
  // Two steps of different time steps (5 + 5 increments): continued from a checkpoint in the
  // second step (increment 6) and from one at the first step's end (increment 3 of static steps
  // of 3 and 4 increments), each takes up its step's increments.
  expect_continuation_is_bit_identical(
      "solver: {type: implicit_dynamic, time_step: 0.02, mass_damping: 5, steps: [{end_time: "
      "0.1}, {end_time: 0.3, time_step: 0.04}]}\n",
      6);
  std::string model = kBlock;
  const std::string quantities = "quantities: [displacement, velocity, reaction_force]";
  model.replace(model.find(quantities), quantities.size(),
                "quantities: [displacement, reaction_force]");
  expect_continuation_is_bit_identical(
      "solver: {type: static, steps: [{end_time: 0.3, increments: 3}, {end_time: 1, increments: "
      "{initial: 0.25, growth: 1.5}}]}\n",
      3, model);
  // A static step, then HHT dynamics: continued from the switch (increment 3, where the dynamic
  // step's first acceleration is computed again) and from inside the dynamic step.
  const std::string mixed =
      "solver: {type: implicit_dynamic, integrator: hht, time_step: 0.02, mass_damping: 5, steps: "
      "[{type: static, end_time: 0.1, increments: 3}, {end_time: 0.3}]}\n";
  expect_continuation_is_bit_identical(mixed, 3);
  expect_continuation_is_bit_identical(mixed, 6);
}

TEST(ImplicitRestart, AugmentedLagrangianContactContinuesBitForBit) {
  // A sphere pressed into a clamped slab: the restart needs the accepted multipliers.
  const std::string yaml = R"(
name: block
mesh: {generator: box, cells: hex8, size: [0.06, 0.06, 0.02], origin: [-0.03, -0.03, 0],
       divisions: [6, 6, 3]}
materials:
  tissue: {type: neo_hookean, density: 1000, youngs_modulus: 3000, poisson_ratio: 0.45}
blocks: [{name: block, element: hex8, material: tissue}]
node_sets:
  base: {plane: {point: [0, 0, 0], normal: [0, 0, 1]}}
  top: {plane: {point: [0, 0, 0.02], normal: [0, 0, 1]}}
amplitudes: {press: {type: linear, start: 0, end: 1}}
boundary_conditions: [{set: base, fixed: all}]
contact:
  - {name: ball, type: sphere, center: [0, 0, 0.04], radius: 0.02, set: top,
     displacement: [0, 0, -0.003], amplitude: press, method: augmented_lagrangian,
     penetration_tolerance: 1.0e-6}
solver: {type: static, end_time: 1, increments: {initial: 0.2, maximum: 0.2}}
output:
  every_steps: 1
  checkpoint: {every_steps: 1, keep: 100}
  histories: [{name: base, set: base, quantities: [reaction_force]}]
)";
  const ScratchDir dir;
  const Outcome whole = run(yaml, dir.path().string());
  ASSERT_EQ(whole.report.increments, 5);
  ASSERT_GT(whole.report.augmentations, 0);
  const std::string base = read_text(dir / "base.csv");
  const std::string contact = read_text(dir / "contact.csv");
  const Outcome continued = run(yaml, dir.path().string(), checkpoint_at(dir, 3));
  EXPECT_EQ(continued.u, whole.u);
  EXPECT_EQ(read_text(dir / "base.csv"), base);
  EXPECT_EQ(read_text(dir / "contact.csv"), contact);
}

}  // namespace
}  // namespace fem::test
