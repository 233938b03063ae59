// Absorbing layers (graded mass-proportional damping, d = d_max (depth / thickness)^p, with or
// without the stiffness scaled by exp(-g (depth / thickness)^p)): a P-wave
// tone burst at normal incidence, measured at a receiver between the source and the layer
// against a column long enough that nothing comes back within the window. What differs is the
// layer's reflection.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "waves/wave_cases.hpp"

namespace fem::test {
namespace {

/// A 3-cycle 50 kHz burst of displacement at x = 0 (a wavelength of 0.1175 m in steel), the
/// receiver at 0.3 m, 260 us: the incident pulse and one round trip into a layer from 0.5 m.
std::vector<double> probe_trace(double length, const std::string& layer) {
  Column c;
  c.length = length;
  c.cells = static_cast<int>(std::lround(length / 0.005));
  c.sets = "  probe: {plane: {point: [0.3, 0, 0], normal: [1, 0, 0]}}";
  c.conditions = "  - {set: left, displacement: {x: 1.0e-6}, amplitude: burst}";
  c.extra = "amplitudes:\n  burst: {type: tone_burst, frequency: 5.0e4, cycles: 3}";
  c.solver = "{type: elastodynamic, end_time: 2.6e-4, time_step: 5.0e-7" +
             (layer.empty() ? std::string() : ", absorbing_layers: [" + layer + "]") + "}";
  c.output = "{vtk: false, receivers: [{set: probe}]}";
  WaveRun run = wave_model(c.yaml());
  return trace_component(run_waves(run), 0, 0);
}

/// A layer `wavelengths` thick (to the 5 mm elements), d_max = `omegas` x the burst's angular
/// frequency.
double reflection(double wavelengths, double omegas, double power, double reduction = 0.0) {
  constexpr double kWavelength = 5875.0 / 5.0e4, kOmega = 2.0 * 3.14159265358979 * 5.0e4;
  const double thickness = 0.005 * std::round(wavelengths * kWavelength / 0.005);
  const double max_damping = omegas * kOmega;
  static const std::vector<double> reference = probe_trace(1.0, "");
  const std::vector<double> with_layer = probe_trace(
      0.5 + thickness,
      fmt::format(
          "{{set: right, thickness: {}, max_damping: {}, power: {}, stiffness_reduction: {}}}",
          thickness, max_damping, power, reduction));
  EXPECT_EQ(with_layer.size(), reference.size());
  const Deviation d = deviation(with_layer, reference);
  return d.difference / d.peak;
}

TEST(WaveAbsorbing, AFreeEndReflectsEverything) {
  EXPECT_GT(reflection(2.0, 1e-3, 3.0), 0.9);
}

TEST(WaveAbsorbing, TwoWavelengthsReflectLessThanOnePercent) {
  // Cubic profile, d_max = 2.5 omega (measured 0.71 %; docs/waves.md has the series).
  EXPECT_LT(reflection(2.0, 2.5, 3.0), 0.01);
}

TEST(WaveAbsorbing, ThreeWavelengthsReflectAboutAThirdOfAPercent) {
  // Profile power 2.5, d_max = 1.75 omega: measured 0.30 %. Mass-proportional damping alone
  // levels off there (docs/waves.md); the stiffness reduction below goes to 0.1 %.
  EXPECT_LT(reflection(3.0, 1.75, 2.5), 0.0035);
}

TEST(WaveAbsorbing, StiffnessReductionTwoWavelengthsReflectLessThanAFifthOfAPercent) {
  // Damping d_max = omega, cubic, with the stiffness scaled by exp(-4 X^3): measured 0.157 %
  // (0.69 % at best with damping alone).
  EXPECT_LT(reflection(2.0, 1.0, 3.0, 4.0), 0.002);
}

TEST(WaveAbsorbing, StiffnessReductionThreeWavelengthsReflectLessThanAThirdOfAPercent) {
  // The 0.3 %: d_max = omega / 2, cubic, exp(-4 X^3) measured 0.104 %.
  EXPECT_LT(reflection(3.0, 0.5, 3.0, 4.0), 0.0015);
}

}  // namespace
}  // namespace fem::test
