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
  EXPECT_NEAR(largest_magnitude(far) / largest_magnitude(near), std::sqrt(20.0 / 40.0), 0.07);
}

/// Lamb's problem in plane strain (Garvin's line load): the same rock as a half-plane of
/// quadrilaterals (0.5 m; symmetry at x = 0), layers with stiffness reduction on the far side and
/// the bottom. The Rayleigh pulse of a line load does not spread: its amplitude stays the same
/// from 20 to 40 m, while it travels at c_R.
TEST(WaveLamb, InPlaneStrainTheRayleighPulseKeepsItsAmplitude) {
  const std::string yaml = R"(
name: lamb_plane
backend: openmp
precision: double
mesh: {generator: rectangle, cells: quad4, size: [80, 50], divisions: [160, 100]}
materials:
  rock: {type: linear_elastic, density: 2000, p_wave_speed: 1732.0508, s_wave_speed: 1000}
blocks:
  - {name: ground, element: quad4, material: rock}
node_sets:
  source: {sphere: {center: [0, 50, 0], radius: 0.01}}
  xsym: {plane: {point: [0, 0, 0], normal: [1, 0, 0]}}
  far_x: {plane: {point: [80, 0, 0], normal: [1, 0, 0]}}
  bottom: {plane: {point: [0, 0, 0], normal: [0, 1, 0]}}
boundary_conditions:
  - {set: xsym, fixed: [x]}
amplitudes:
  wavelet: {type: ricker, frequency: 60}
loads:
  - {set: source, force: [0, -1.0e6, 0], amplitude: wavelet}
solver:
  type: elastodynamic
  end_time: 0.075
  absorbing_layers:
    - {set: far_x, thickness: 20, max_damping: 300, stiffness_reduction: 4}
    - {set: bottom, thickness: 20, max_damping: 300, stiffness_reduction: 4}
output:
  vtk: false
  receivers: [{name: near, point: [20, 50, 0]}, {name: far, point: [40, 50, 0]}]
)";
  WaveRun run = wave_model(yaml);
  const WaveRunReport r = run_waves(run);
  const std::vector<double> near = trace_component(r, 0, 1), far = trace_component(r, 1, 1);
  const double speed =
      20.0 / (peak_time(r.trace_times[1], far) - peak_time(r.trace_times[0], near));
  const double rayleigh = 1000.0 * std::sqrt(2.0 - 2.0 / std::sqrt(3.0));
  EXPECT_NEAR(speed / rayleigh, 1.0, 0.02) << "measured " << speed << " m/s, c_R " << rayleigh;
  const double ratio = largest_magnitude(far) / largest_magnitude(near);
  EXPECT_NEAR(ratio, 1.0, 0.05) << "far / near " << ratio;
  RecordProperty("rayleigh_speed_ratio", fmt::format("{:.4f}", speed / rayleigh));
  RecordProperty("amplitude_ratio", fmt::format("{:.4f}", ratio));
}

}  // namespace
}  // namespace fem::test
