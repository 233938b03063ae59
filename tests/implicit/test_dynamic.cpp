// Implicit dynamics: the trapezoidal rule (Newmark beta 1/4, gamma 1/2) conserves the energy of
// undamped linear free vibration and gets the period of a known mode; HHT-alpha and backward
// Euler dissipate; steps far beyond the explicit stability limit stay stable.
#include <gtest/gtest.h>

#include <cmath>
#include <iomanip>
#include <numbers>
#include <sstream>
#include <string>

#include "support/backend.hpp"
#include "support/implicit_runner.hpp"

namespace fem::test {
namespace {

constexpr double kLength = 1.0, kE = 1.0e6, kRho = 1000.0, kV0 = 0.01;
constexpr int kAlong = 20;

/// A bar along x, fixed at x = 0, free elsewhere, nu = 0 so that it vibrates as a 1D rod
/// (c = sqrt(E / rho)). The initial velocity is the first mode's shape v0 sin(pi x / 2L), layer
/// by layer, so that mostly mode 1 vibrates. `solver`: the solver mapping.
std::string bar(const std::string& solver) {
  std::ostringstream y;
  y << "mesh: {generator: box, cells: hex8, size: [" << kLength << ", 0.05, 0.05], divisions: ["
    << kAlong << ", 1, 1]}\n"
    << "materials: {rod: {type: linear_elastic, density: " << kRho << ", youngs_modulus: " << kE
    << ", poisson_ratio: 0}}\n"
    << "blocks: [{element: hex8, material: rod}]\n"
    << "node_sets:\n";
  for (int i = 0; i <= kAlong; ++i)
    y << "  layer" << i << ": {plane: {point: [" << kLength * i / kAlong
      << ", 0, 0], normal: [1, 0, 0]}}\n";
  y << "boundary_conditions: [{set: layer0, fixed: [x, y, z]}]\n"
    << "initial_conditions:\n";
  for (int i = 1; i <= kAlong; ++i) {
    const double x = kLength * i / kAlong;
    y << "  - {set: layer" << i << ", velocity: ["
      << kV0 * std::sin(std::numbers::pi * x / (2 * kLength)) << ", 0, 0]}\n";
  }
  y << "solver: " << solver << "\n";
  return y.str();
}

double first_period() {
  return 4.0 * kLength / std::sqrt(kE / kRho);
}

struct BarRun {
  ImplicitRunReport report;
  std::vector<double> tip_times, tip_u;
};

/// Runs the bar, recording the tip's displacement after every step.
BarRun run_bar(const std::string& solver) {
  ImplicitRun run = prepare_implicit(bar(solver), on_backend({{"precision", "double"}}));
  BarRun r;
  const auto& tip = run.model.mesh.node_sets.at("layer" + std::to_string(kAlong));
  ImplicitRunOptions options;
  options.write_files = false;
  options.increment_done = [&](std::int64_t, double t, const std::vector<double>& u) {
    double x = 0.0;
    for (const std::int32_t n : tip) x += u[3 * static_cast<std::size_t>(n)];
    r.tip_times.push_back(t);
    r.tip_u.push_back(x / static_cast<double>(tip.size()));
  };
  r.report = run.solver->run(options);
  return r;
}

std::string newmark(double dt, int steps, const std::string& extra = "") {
  std::ostringstream s;
  s << "{type: implicit_dynamic, end_time: " << dt * steps << ", time_step: " << dt << extra
    << ", newton: {residual_tolerance: 1e-10}, linear: {solver: direct}}";
  return s.str() + "\noutput: {every_steps: 1}";
}

double total_energy(const EnergySample& e) {
  return e.kinetic + e.strain + e.hourglass;
}

TEST(Dynamic, TrapezoidalRuleConservesTheEnergyOfFreeVibration) {
  const double dt = first_period() / 40.0;
  const BarRun r = run_bar(newmark(dt, 100));
  ASSERT_EQ(r.report.increments, 100);
  ASSERT_EQ(r.report.energies.size(), 101u);
  const double e0 = total_energy(r.report.energies.front());
  EXPECT_GT(e0, 0.0);
  // Energy moves between kinetic and strain...
  double min_kinetic = e0;
  for (const auto& e : r.report.energies) min_kinetic = std::min(min_kinetic, e.kinetic);
  EXPECT_LT(min_kinetic, 0.2 * e0);
  // ...and its sum is conserved.
  for (const auto& e : r.report.energies)
    EXPECT_NEAR(total_energy(e), e0, 1e-6 * e0) << "t = " << e.time;
}

// solver.steps: a second step with half the time step. Its increments end where the steps do,
// and the trapezoidal rule still conserves the energy of free vibration across the change.
TEST(Dynamic, StepsChangeTheTimeStepAndKeepTheEnergy) {
  const double dt = first_period() / 40.0;
  std::ostringstream solver;
  solver << std::setprecision(17) << "{type: implicit_dynamic, time_step: " << dt
         << ", steps: [{end_time: " << 20 * dt << "}, {end_time: " << 40 * dt
         << ", time_step: " << dt / 2
         << "}], newton: {residual_tolerance: 1e-10}, linear: {solver: direct}}\n"
         << "output: {every_steps: 1}";
  const BarRun r = run_bar(solver.str());
  ASSERT_EQ(r.report.increments, 60);
  ASSERT_EQ(r.tip_times.size(), 60u);
  EXPECT_NEAR(r.tip_times[19], 20 * dt, 1e-12 * dt);
  EXPECT_NEAR(r.tip_times[20] - r.tip_times[19], dt / 2, 1e-9 * dt);
  EXPECT_NEAR(r.tip_times.back(), 40 * dt, 1e-12 * dt);
  const double e0 = total_energy(r.report.energies.front());
  for (const auto& e : r.report.energies)
    EXPECT_NEAR(total_energy(e), e0, 1e-6 * e0) << "t = " << e.time;
}

// solver.steps with a static step first: the bar pulled at its tip by a load ramped over a
// static step (its exact static stretch), then released at the dynamic step's start (the load
// jumps to zero). The dynamic step starts at rest with the acceleration of the released state:
// the trapezoidal rule then conserves the stretch's strain energy from the first dynamic step on,
// and the tip swings to minus its stretch. With the load held instead the bar stays at rest.
TEST(Dynamic, StaticPreloadThenDynamicRelease) {
  constexpr double kTipForce = 1.0;  // N per node, 4 nodes
  const double dt = first_period() / 40.0;
  const double u_static = 4 * kTipForce * kLength / (kE * 0.05 * 0.05);
  for (const bool release : {true, false}) {
    SCOPED_TRACE(release ? "released" : "held");
    std::string yaml = bar("x");
    yaml = yaml.substr(0, yaml.find("initial_conditions:"));  // at rest
    std::ostringstream more;
    more << std::setprecision(17) << "amplitudes: {pull: {type: tabular, points: [[0, 0], [1, 1]"
         << (release ? ", [1, 0]" : "") << "]}}\n"
         << "loads: [{set: layer" << kAlong << ", force: [" << kTipForce
         << ", 0, 0], amplitude: pull}]\n"
         << "solver: {type: implicit_dynamic, time_step: " << dt
         << ", steps: [{type: static, end_time: 1, increments: 2}, {end_time: " << 1 + 80 * dt
         << "}], newton: {residual_tolerance: 1e-10}, linear: {solver: direct}}\n"
         << "output: {every_steps: 1}\n";
    ImplicitRun run = prepare_implicit(yaml + more.str(), on_backend({{"precision", "double"}}));
    std::vector<double> tip;
    const auto& tip_nodes = run.model.mesh.node_sets.at("layer" + std::to_string(kAlong));
    ImplicitRunOptions options;
    options.write_files = false;
    options.increment_done = [&](std::int64_t, double, const std::vector<double>& u) {
      double x = 0.0;
      for (const std::int32_t n : tip_nodes) x += u[3 * static_cast<std::size_t>(n)];
      tip.push_back(x / static_cast<double>(tip_nodes.size()));
    };
    const ImplicitRunReport r = run.solver->run(options);
    ASSERT_EQ(r.increments, 82);
    ASSERT_EQ(r.energies.size(), 83u);
    EXPECT_NEAR(tip[1], u_static, 1e-9 * u_static);  // the static step's end
    const EnergySample& preloaded = r.energies[2];
    EXPECT_DOUBLE_EQ(preloaded.time, 1.0);
    EXPECT_EQ(preloaded.kinetic, 0.0);
    EXPECT_NEAR(preloaded.strain, 0.5 * 4 * kTipForce * u_static, 1e-9 * preloaded.strain);
    double lowest = tip[1], farthest = 0.0, max_kinetic = 0.0;
    for (std::size_t k = 2; k < tip.size(); ++k) {
      lowest = std::min(lowest, tip[k]);
      farthest = std::max(farthest, std::abs(tip[k] - u_static));
    }
    for (std::size_t k = 3; k < r.energies.size(); ++k) {
      const EnergySample& e = r.energies[k];
      max_kinetic = std::max(max_kinetic, e.kinetic);
      if (release) {
        EXPECT_NEAR(total_energy(e), preloaded.strain, 1e-6 * preloaded.strain) << "t = " << e.time;
      }
    }
    if (release) {
      EXPECT_LT(lowest, -0.9 * u_static);
      EXPECT_GT(max_kinetic, 0.5 * preloaded.strain);
    } else {
      EXPECT_LT(farthest, 1e-8 * u_static);
      EXPECT_LT(max_kinetic, 1e-12 * preloaded.strain);
    }
  }
}

/// The period from the upward zero crossings of the tip displacement (linear interpolation).
double measured_period(const BarRun& r) {
  std::vector<double> crossings;
  for (std::size_t k = 1; k < r.tip_u.size(); ++k)
    if (r.tip_u[k - 1] < 0.0 && r.tip_u[k] >= 0.0) {
      const double s = r.tip_u[k - 1] / (r.tip_u[k - 1] - r.tip_u[k]);
      crossings.push_back(r.tip_times[k - 1] + s * (r.tip_times[k] - r.tip_times[k - 1]));
    }
  if (crossings.size() < 2) return 0.0;
  return (crossings.back() - crossings.front()) / static_cast<double>(crossings.size() - 1);
}

TEST(Dynamic, PeriodOfTheFirstModeWithinOnePercent) {
  // 100 steps per period over 3.2 periods: the tip crosses zero upwards three times.
  const double T = first_period();
  const BarRun r = run_bar(newmark(T / 100.0, 320));
  const double measured = measured_period(r);
  EXPECT_NEAR(measured, T, 0.01 * T) << "measured " << measured << " s, 4L/c = " << T << " s";
}

TEST(Dynamic, StableFarBeyondTheExplicitStepAndDissipativeSchemesDissipate) {
  // 50 critical steps per step: the trapezoidal rule keeps the energy, HHT-alpha and backward
  // Euler lose some (they damp the high modes), none grows.
  ImplicitRun probe = prepare_implicit(bar(newmark(1e-4, 1)), on_backend());
  const double dt = 50.0 * probe.solver->setup().critical_time_step;
  const int steps = static_cast<int>(std::ceil(2.0 * first_period() / dt));
  const BarRun trapezoidal = run_bar(newmark(dt, steps));
  const BarRun hht = run_bar(newmark(dt, steps, ", integrator: hht, alpha: -0.1"));
  const BarRun euler = run_bar(newmark(dt, steps, ", integrator: backward_euler"));
  const double e0 = total_energy(trapezoidal.report.energies.front());
  EXPECT_NEAR(total_energy(trapezoidal.report.energies.back()), e0, 1e-6 * e0);
  const double e_hht = total_energy(hht.report.energies.back());
  const double e_euler = total_energy(euler.report.energies.back());
  EXPECT_LT(e_hht, e0);
  EXPECT_LT(e_euler, e_hht) << "backward Euler dissipates more than HHT-alpha -0.1";
  EXPECT_GT(e_euler, 0.0);
  // A linear problem: one Newton iteration per step (the second only confirms).
  EXPECT_LE(static_cast<double>(trapezoidal.report.newton_iterations) / steps, 2.0);
}

}  // namespace
}  // namespace fem::test
