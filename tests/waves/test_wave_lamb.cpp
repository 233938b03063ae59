// Lamb's problem: a vertical point load (a Ricker wavelet) on the surface of an elastic
// half-space of Poisson's ratio 1/4, modelled as a quarter (symmetry planes through the load)
// with absorbing layers on the far sides and the bottom. On the surface the Rayleigh pulse
// dominates the vertical motion: it must travel at c_R = sqrt(2 - 2/sqrt(3)) c_s = 0.9194 c_s
// (the root of the Rayleigh equation for lambda = mu) and spread cylindrically, its amplitude
// falling as 1/sqrt(r).
#include <gtest/gtest.h>

#include <cmath>

#include "waves/wave_cases.hpp"

namespace fem::test {
namespace {

TEST(WaveLamb, TheRayleighPulseTravelsAtTheRayleighSpeedAndSpreadsCylindrically) {
  // 1 m elements; the wavelet's Rayleigh wavelength 15 m; receivers 20 and 40 m from the load;
  // layers 20 m thick.
  const std::string yaml = R"(
name: lamb
backend: openmp
precision: double
mesh: {generator: box, cells: hex8, size: [70, 70, 40], divisions: [70, 70, 40]}
materials:
  rock: {type: linear_elastic, density: 2000, p_wave_speed: 1732.0508, s_wave_speed: 1000}
blocks:
  - {name: ground, element: hex8, material: rock}
node_sets:
  source: {sphere: {center: [0, 0, 40], radius: 0.01}}
  xsym: {plane: {point: [0, 0, 0], normal: [1, 0, 0]}}
  ysym: {plane: {point: [0, 0, 0], normal: [0, 1, 0]}}
  far_x: {plane: {point: [70, 0, 0], normal: [1, 0, 0]}}
  far_y: {plane: {point: [0, 70, 0], normal: [0, 1, 0]}}
  bottom: {plane: {point: [0, 0, 0], normal: [0, 0, 1]}}
boundary_conditions:
  - {set: xsym, fixed: [x]}
  - {set: ysym, fixed: [y]}
amplitudes:
  wavelet: {type: ricker, frequency: 60}
loads:
  - {set: source, force: [0, 0, -1.0e6], amplitude: wavelet}
solver:
  type: elastodynamic
  end_time: 0.075
  absorbing_layers:
    - {set: far_x, thickness: 20, max_damping: 700}
    - {set: far_y, thickness: 20, max_damping: 700}
    - {set: bottom, thickness: 20, max_damping: 700}
output:
  vtk: false
  receivers: [{name: near, point: [20, 0, 40]}, {name: far, point: [40, 0, 40]}]
)";
  WaveRun run = wave_model(yaml);
  const WaveRunReport r = run_waves(run);
  // Vertical displacement (component z of the one node of each receiver).
  const auto vertical = [&](std::size_t k) {
    std::vector<double> w;
    for (std::size_t s = 0; s < r.trace_times[k].size(); ++s) w.push_back(r.traces[k][3 * s + 2]);
    return w;
  };
  const std::vector<double> near = vertical(0), far = vertical(1);
  const double t_near = peak_time(r.trace_times[0], near);
  const double t_far = peak_time(r.trace_times[1], far);
  const double speed = 20.0 / (t_far - t_near);
  const double rayleigh = 1000.0 * std::sqrt(2.0 - 2.0 / std::sqrt(3.0));
  EXPECT_NEAR(speed / rayleigh, 1.0, 0.03) << "measured " << speed << " m/s, c_R " << rayleigh;
  const auto largest = [](const std::vector<double>& w) {
    double m = 0.0;
    for (const double x : w) m = std::max(m, std::abs(x));
    return m;
  };
  EXPECT_NEAR(largest(far) / largest(near), std::sqrt(20.0 / 40.0), 0.07);
}

}  // namespace
}  // namespace fem::test
