// Dynamic relaxation (seed 003, section 3.7) finds the same static equilibrium as an explicit
// run damped to rest, in far fewer steps, and stops by itself.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "support/backend.hpp"
#include "support/case_runner.hpp"

namespace fem::test {
namespace {

// A soft neo-Hookean cylinder on a fixed base, its top pushed down by 10 % of the height.
const std::string kCylinder = R"(
mesh: {generator: cylinder, radius: 0.02, height: 0.04, radial_divisions: 2,
       circumferential_divisions: 8, axial_divisions: 4}
materials:
  tissue: {type: neo_hookean, density: 1000, youngs_modulus: 3000, poisson_ratio: 0.45}
blocks: [{element: hex8r, material: tissue}]
node_sets:
  base: {plane: {point: [0, 0, 0], normal: [0, 0, 1]}}
  top: {plane: {point: [0, 0, 0.04], normal: [0, 0, 1]}}
boundary_conditions:
  - {set: base, fixed: all}
  - {set: top, fixed: [x, y], displacement: {z: -0.004}, amplitude: press}
)";

const std::string kExplicit = R"(
amplitudes: {press: {type: smooth_step, start: 0, end: 0.5}}
solver: {end_time: 1.5, mass_damping: 100}
)";

const std::string kRelaxation = R"(
amplitudes: {press: {type: smooth_step, start: 0, end: 0.5}}
solver: {type: dynamic_relaxation, tolerance: 1.0e-7, force_tolerance: 1.0e-4}
)";

double max_radial(const std::vector<double>& u, const Mesh& mesh) {
  double r = 0.0;
  for (std::int64_t n = 0; n < mesh.num_nodes(); ++n) {
    const auto x = mesh.node(n);
    const double radius = std::hypot(x[0], x[1]);
    if (radius < 1e-9) continue;
    r = std::max(r, (x[0] * u[3 * n] + x[1] * u[3 * n + 1]) / radius);
  }
  return r;
}

TEST(DynamicRelaxation, ReachesTheDampedExplicitEquilibriumInFarFewerSteps) {
  PreparedRun dyn = prepare(kCylinder + kExplicit, on_backend());
  const ExplicitRunReport explicit_report = run_in_memory(dyn);
  PreparedRun dr = prepare(kCylinder + kRelaxation, on_backend());
  const ExplicitRunReport dr_report = run_in_memory(dr);

  EXPECT_TRUE(dr_report.relaxation.converged);
  std::printf("relaxation: %lld iterations, explicit: %lld steps\n",
              static_cast<long long>(dr_report.steps),
              static_cast<long long>(explicit_report.steps));
  // Far fewer steps: the explicit run needs its physical step; relaxation a fictitious one.
  EXPECT_LT(dr_report.steps * 4, explicit_report.steps)
      << dr_report.steps << " iterations vs " << explicit_report.steps << " explicit steps";

  // Same equilibrium within 0.5 %: the support reaction and the bulge.
  const auto r_explicit = support_reaction(dyn, "top");
  const auto r_dr = support_reaction(dr, "top");
  EXPECT_LT(r_explicit[2], -0.01);  // the support holds the top down against the cylinder
  EXPECT_NEAR(r_dr[2] / r_explicit[2], 1.0, 0.005) << r_dr[2] << " vs " << r_explicit[2];
  const double bulge_explicit = max_radial(displacement(dyn), dyn.model.mesh);
  const double bulge_dr = max_radial(displacement(dr), dr.model.mesh);
  EXPECT_GT(bulge_explicit, 1e-4);
  EXPECT_NEAR(bulge_dr / bulge_explicit, 1.0, 0.005) << bulge_dr << " vs " << bulge_explicit;
  // The reported error estimate is within the tolerance, and the rate is a contraction.
  EXPECT_LE(dr_report.relaxation.error_estimate, 1.0e-7);
  EXPECT_GT(dr_report.relaxation.estimated_rate, 0.0);
  EXPECT_LT(dr_report.relaxation.estimated_rate, 1.0);
  EXPECT_GT(dr_report.relaxation.lambda_min, 0.0);
  EXPECT_LT(dr_report.relaxation.lambda_min, dr_report.relaxation.lambda_max);
}

TEST(DynamicRelaxation, LoadsAppliedAtOnceConvergeToTheSameState) {
  PreparedRun ramped = prepare(kCylinder + kRelaxation, on_backend());
  run_in_memory(ramped);
  // 2 % compression at once (the 10 % above would invert the top layer in one step).
  PreparedRun at_once = prepare(kCylinder + kRelaxation,
                                on_backend({{"solver.load_iterations", "0"},
                                            {"boundary_conditions.1.displacement.z", "-0.0008"}}));
  PreparedRun ramped_small = prepare(
      kCylinder + kRelaxation, on_backend({{"boundary_conditions.1.displacement.z", "-0.0008"}}));
  const ExplicitRunReport a = run_in_memory(at_once);
  run_in_memory(ramped_small);
  EXPECT_TRUE(a.relaxation.converged);
  EXPECT_NEAR(support_reaction(at_once, "top")[2] / support_reaction(ramped_small, "top")[2], 1.0,
              0.002);
}

// A patch of the top of a soft cube pushed 1 cm down, ramped over 40 iterations: an element
// under the patch inverts on the way (measured: at iteration 51), and relaxation goes back to an
// earlier iteration at rest with twice the fictitious mass. Ramped over 400 iterations it needs
// no return. Both reach the same equilibrium.
const std::string kIndentedCube = R"(
mesh: {generator: box, cells: hex8, size: [0.05, 0.05, 0.05], divisions: [8, 8, 8]}
materials:
  soft: {type: neo_hookean, density: 1000, youngs_modulus: 3000, poisson_ratio: 0.49}
blocks: [{name: cube, element: hex8r, material: soft}]
node_sets:
  bottom: {plane: {point: [0, 0, 0], normal: [0, 0, 1]}}
  patch: {box: {min: [0.015, 0.015, 0.049], max: [0.035, 0.035, 0.051]}}
boundary_conditions:
  - {set: bottom, fixed: all}
  - {set: patch, displacement: {z: -0.01}}
solver: {type: dynamic_relaxation}
)";

TEST(DynamicRelaxation, AnElementInvertedOnTheWayGoesBackWithAHeavierMassToTheSameEquilibrium) {
  PreparedRun fast = prepare(kIndentedCube, on_backend({{"solver.load_iterations", "40"}}));
  PreparedRun slow = prepare(kIndentedCube, on_backend({{"solver.load_iterations", "400"}}));
  const ExplicitRunReport f = run_in_memory(fast);
  const ExplicitRunReport s = run_in_memory(slow);
  EXPECT_TRUE(f.relaxation.converged);
  EXPECT_TRUE(s.relaxation.converged);
  EXPECT_GE(f.relaxation.restarts, 1);
  EXPECT_EQ(f.relaxation.mass_scale, std::pow(2.0, static_cast<double>(f.relaxation.restarts)));
  EXPECT_EQ(s.relaxation.restarts, 0);
  // Within the relaxation tolerance (1e-5 m) of each other.
  EXPECT_NEAR(f.max_displacement, s.max_displacement, 2e-5);
  EXPECT_NEAR(support_reaction(fast, "patch")[2] / support_reaction(slow, "patch")[2], 1.0, 0.01);
}

TEST(DynamicRelaxation, AnInversionThatEveryHeavierMassMeetsStopsTheRunSayingSo) {
  // The top pushed down by 2.5 times its layer's height within two iterations inverts that
  // layer whatever the mass: after its returns, the run stops with the element and how many
  // returns it made.
  PreparedRun run = prepare(kCylinder + kRelaxation,
                            on_backend({{"solver.load_iterations", "2"},
                                        {"boundary_conditions.1.displacement.z", "-0.025"}}));
  try {
    run_in_memory(run);
    FAIL() << "expected a SolveError";
  } catch (const SolveError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("inverted"), std::string::npos) << what;
    EXPECT_NE(what.find("after 4 returns"), std::string::npos) << what;
    // An iteration, not a time; and what dynamic relaxation has to change (no time step).
    EXPECT_EQ(what.rfind("iteration ", 0), 0u) << what;
    EXPECT_NE(what.find("solver.load_iterations, now 2;"), std::string::npos) << what;
    EXPECT_EQ(what.find("time_step"), std::string::npos) << what;
  }
}

TEST(DynamicRelaxation, StopsWithAMessageWhenNotConverged) {
  // In single precision the message also names double precision, which converges where a
  // float's resolution of the displacement stalls the iteration; in double it does not.
  for (const std::string precision : {"single", "double"}) {
    PreparedRun run =
        prepare(kCylinder + kRelaxation,
                on_backend({{"solver.max_iterations", "60"}, {"precision", precision}}));
    try {
      run_in_memory(run);
      FAIL() << "expected a SolveError";
    } catch (const SolveError& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("did not converge in 60 iterations"), std::string::npos) << what;
      EXPECT_NE(what.find("max_iterations"), std::string::npos) << what;
      EXPECT_EQ(what.find("--precision double") != std::string::npos, precision == "single")
          << what;
    }
  }
}

TEST(DynamicRelaxation, LooserToleranceStopsEarlier) {
  PreparedRun tight = prepare(kCylinder + kRelaxation, on_backend());
  PreparedRun loose =
      prepare(kCylinder + kRelaxation,
              on_backend({{"solver.tolerance", "1.0e-5"}, {"solver.force_tolerance", "0"}}));
  const auto t = run_in_memory(tight);
  const auto l = run_in_memory(loose);
  EXPECT_TRUE(l.relaxation.converged);
  EXPECT_LT(l.steps, t.steps);
  EXPECT_EQ(l.steps % 20, 0);  // checks every check_every (20) iterations
}

}  // namespace
}  // namespace fem::test
