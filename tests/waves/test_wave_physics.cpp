// The elastodynamic solver against physics: wave speeds, the temporal order of the central
// difference, the explicit TLED solver it must reproduce, and single against double precision.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "waves/explicit_comparison.hpp"

namespace fem::test {
namespace {

TEST(WavePhysics, PWaveTravelsAtTheDilatationalSpeed) {
  const double c = column_pulse_speed("p");
  EXPECT_NEAR(c / p_speed(), 1.0, 0.005) << "measured " << c << " m/s, theory " << p_speed();
}

TEST(WavePhysics, SWaveTravelsAtTheShearSpeed) {
  const double c = column_pulse_speed("s");
  EXPECT_NEAR(c / s_speed(), 1.0, 0.005) << "measured " << c << " m/s, theory " << s_speed();
}

/// A fixed-fixed column in its first mode, u = A sin(pi x / L): an exact eigenvector of the
/// lumped-mass mesh, so the only error left is the central difference's, which falls as dt^2.
double mode_error(double safety) {
  const double length = 1.0;
  Column c;
  c.length = length;
  c.cells = 40;
  c.solver = fmt::format("{{type: elastodynamic, end_time: 3.0e-4, safety_factor: {}}}", safety);
  c.conditions = "  - {set: left, fixed: [x]}\n  - {set: right, fixed: [x]}";
  const std::string with_ends = c.yaml();
  WaveRun run = wave_model(with_ends);
  WaveSetup setup = setup_waves(run.model, *run.backend);
  const double dt = setup.time_step;
  const std::int64_t nn = run.model.mesh.num_nodes();
  std::vector<double> phi(static_cast<std::size_t>(3 * nn), 0.0);
  for (std::int64_t n = 0; n < nn; ++n)
    phi[3 * n] = 1.0e-6 * std::sin(M_PI * run.model.mesh.node(n)[0] / length);
  // omega^2 of the mode: the stored matrix is -dt^2 M^-1 K without damping, its diagonal
  // blocks implied (K u)_n = sum_j K_nj (u_j - u_n).
  std::vector<double> kphi(phi.size(), 0.0);
  const BlockCsrMatrix& m = setup.matrix;
  for (std::int64_t n = 0; n < nn; ++n)
    for (std::int64_t j = m.offsets[n]; j < m.offsets[n + 1]; ++j)
      for (int i = 0; i < 3; ++i)
        for (int k = 0; k < 3; ++k)
          kphi[3 * n + i] +=
              m.values[9 * j + 3 * i + k] * (phi[3 * m.columns[j] + k] - phi[3 * n + k]);
  double num = 0.0, den = 0.0;
  for (std::size_t d = 0; d < phi.size(); ++d) {
    num -= phi[d] * kphi[d];
    den += phi[d] * phi[d];
  }
  const double omega = std::sqrt(num / den) / dt;
  // Started on the exact solution: u_0 = phi, v_{-1/2} = u_0 - u(-dt).
  setup.initial_displacement = phi;
  for (std::size_t d = 0; d < phi.size(); ++d)
    setup.initial_increment[d] = phi[d] * (1.0 - std::cos(omega * dt));
  WaveSolver solver(run.model, *run.backend, "openmp", std::move(setup));
  const WaveRunReport r = solver.run({});
  const double t = r.end_time;
  double error = 0.0;
  for (std::size_t d = 0; d < phi.size(); ++d)
    error = std::max(error, std::abs(r.final_displacement[d] - phi[d] * std::cos(omega * t)));
  return error / 1.0e-6;
}

TEST(WavePhysics, TemporalErrorOfAModeFallsAsTheSquareOfTheStep) {
  const double coarse = mode_error(0.8), fine = mode_error(0.4), finest = mode_error(0.2);
  EXPECT_GT(coarse, 1e-6) << "the coarse step should show a temporal error";
  EXPECT_NEAR(coarse / fine, 4.0, 0.4) << coarse << " " << fine;
  EXPECT_NEAR(fine / finest, 4.0, 0.4) << fine << " " << finest;
}

/// The same column, one driven by a tone burst of force, run by the explicit TLED solver with a
/// linear-elastic material and by the wave solver with the same step: after 10,000 steps they
/// agree to 1e-12 of the largest displacement of the run (double precision; each step's two
/// ways of rounding differ by about 1e-16 of it).
TEST(WavePhysics, ReproducesTheExplicitSolverWithALinearMaterial) {
  const std::string extra = R"(
amplitudes:
  burst: {type: tone_burst, frequency: 2.0e5, cycles: 3}
loads:
  - {set: left, force: [1000, 0, 0], amplitude: burst}
)";
  const double dt = 2.0e-8;
  Column c;
  c.length = 0.2;
  c.cells = 50;
  c.extra = extra;
  // Supported at the far end: a free column's rigid translation is a mode of zero frequency,
  // which sums the two solvers' round-off without bound.
  c.conditions = "  - {set: right, fixed: [x]}";
  const SolverComparison r = compare_with_explicit(
      [&](const std::string& solver, const std::string& output) {
        c.solver = solver;
        c.output = output;
        return c.yaml();
      },
      dt, 10000, "{set: all, every_steps: 10}");
  ASSERT_EQ(r.wave_steps, 10000);
  const double diff = r.difference, scale = r.scale;
  EXPECT_GT(scale, 1e-12);
  EXPECT_LT(diff, 1e-12 * scale) << "max difference " << diff << " of " << scale;
  RecordProperty("relative_difference", fmt::format("{:.3g}", diff / scale));
}

/// Receiver traces in single precision against double over 40,000 steps (the pulse travels 200
/// wavelengths, 30 elements each, as in seed 002's weld model): within 1e-5 of the trace's peak.
TEST(WavePhysics, SinglePrecisionTracesFollowDoubleOver40000Steps) {
  const std::string extra = R"(
amplitudes:
  burst: {type: tone_burst, frequency: 2.5e4, cycles: 5}
loads:
  - {set: left, force: [1000, 0, 0], amplitude: burst}
)";
  const auto trace = [&](const std::string& precision) {
    Column c;
    c.length = 1.0;
    c.cells = 200;
    c.solver = "{type: elastodynamic, end_time: 8.0e-3, time_step: 2.0e-7}";
    c.extra = extra;
    c.precision = precision;
    // A supported specimen: a free body's rigid translation, a mode of zero frequency, would
    // integrate single precision's round-off into a drift (docs/waves.md).
    c.conditions = "  - {set: right, fixed: [x]}";
    c.sets = "  probe: {plane: {point: [0.3, 0, 0], normal: [1, 0, 0]}}";
    c.output = "{vtk: false, receivers: [{set: probe}]}";
    WaveRun run = wave_model(c.yaml());
    const WaveRunReport r = run_waves(run);
    EXPECT_EQ(r.steps, 40000);
    return trace_component(r, 0, 0);
  };
  const std::vector<double> single = trace("single"), dbl = trace("double");
  ASSERT_EQ(single.size(), dbl.size());
  const Deviation d = deviation(single, dbl);
  EXPECT_GT(d.peak, 0.0);
  EXPECT_LT(d.difference, 1e-5 * d.peak)
      << "max difference " << d.difference << " of peak " << d.peak;
}

}  // namespace
}  // namespace fem::test
