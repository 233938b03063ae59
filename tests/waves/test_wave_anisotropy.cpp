// Anisotropic media (material linear_elastic_anisotropic: a full 6x6 Voigt stiffness): the wave
// solver's stiffness comes from any material's tangent, so a P wave along x travels at
// sqrt(c11 / rho) and an S wave along x polarised in y at sqrt(c66 / rho), whatever c22, c33 and
// the couplings are; the isotropic constants give linear_elastic's run to round-off; a matrix
// that is not positive definite is refused at the material.
#include <gtest/gtest.h>

#include <cmath>

#include "waves/wave_cases.hpp"

namespace fem::test {
namespace {

constexpr double kC11 = 2.6e11, kC22 = 1.9e11, kC33 = 2.2e11, kC12 = 1.1e11, kC13 = 1.2e11,
                 kC23 = 0.9e11, kC44 = 0.7e11, kC55 = 1.0e11, kC66 = 0.8e11;

std::string anisotropic_material(double c11, double c12, double c66) {
  return fmt::format(
      "{{type: linear_elastic_anisotropic, density: {}, c11: {}, c22: {}, c33: {}, c12: {}, c13: "
      "{}, c23: {}, c44: {}, c55: {}, c66: {}}}",
      kDensity, c11, kC22, kC33, c12, kC13, kC23, kC44, kC55, c66);
}

/// A column's case with its material replaced by `material`.
std::string with_material(std::string yaml, const std::string& material) {
  const std::size_t at = yaml.find("  steel: {type: linear_elastic,");
  return yaml.replace(at, yaml.find('\n', at) - at, "  steel: " + material);
}

/// The column's pulse speed in `material`.
double speed(const std::string& wave, const std::string& material) {
  return column_pulse_speed(wave, [&](std::string yaml) { return with_material(yaml, material); });
}

TEST(WaveAnisotropy, WavesAlongXTravelAtTheirVoigtConstants) {
  const std::string m = anisotropic_material(kC11, kC12, kC66);
  const double p = speed("p", m), s = speed("s", m);
  EXPECT_NEAR(p / std::sqrt(kC11 / kDensity), 1.0, 0.005) << p;
  EXPECT_NEAR(s / std::sqrt(kC66 / kDensity), 1.0, 0.005) << s;
  // Not the isotropic speeds of some other constant: c22 and c44 differ by 27 % and 12 %.
  EXPECT_GT(std::abs(p / std::sqrt(kC22 / kDensity) - 1.0), 0.1);
}

TEST(WaveAnisotropy, IsotropicConstantsReproduceLinearElastic) {
  Column c;
  c.length = 0.5;
  c.cells = 100;
  c.sets = "  probe: {plane: {point: [0.3, 0, 0], normal: [1, 0, 0]}}";
  c.conditions = "  - {set: left, displacement: {x: 1.0e-6}, amplitude: pulse}";
  c.extra = "amplitudes:\n  pulse: {type: gaussian, centre: 2.0e-5, width: 5.0e-6}";
  c.solver = "{type: elastodynamic, end_time: 1.0e-4, time_step: 2.0e-7}";
  c.output = "{vtk: false, receivers: [{set: probe}]}";
  const double lambda = lame_lambda(), mu = lame_mu();
  const std::string iso = fmt::format(
      "{{type: linear_elastic_anisotropic, density: {}, c11: {}, c22: {}, c33: {}, c12: {}, c13: "
      "{}, c23: {}, c44: {}, c55: {}, c66: {}}}",
      kDensity, lambda + 2 * mu, lambda + 2 * mu, lambda + 2 * mu, lambda, lambda, lambda, mu, mu,
      mu);
  WaveRun a = wave_model(with_material(c.yaml(), iso)), b = wave_model(c.yaml());
  const WaveRunReport ra = run_waves(a), rb = run_waves(b);
  const Deviation d = deviation(ra.traces[0], rb.traces[0]);
  ASSERT_EQ(ra.traces[0].size(), rb.traces[0].size());
  EXPECT_GT(d.peak, 1e-8);
  EXPECT_LT(d.difference, 1e-12 * d.peak);
}

TEST(WaveAnisotropy, AStiffnessThatIsNotPositiveDefiniteIsRefusedAtTheMaterial) {
  Column c;
  // c12 above sqrt(c11 c22): a strain e11 = -e22 stores negative energy.
  const std::string yaml = with_material(c.yaml(), anisotropic_material(kC11, 2.5e11, kC66));
  try {
    wave_model(yaml);
    FAIL() << "accepted";
  } catch (const InputError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("<test>:"), std::string::npos) << m;
    EXPECT_NE(m.find("not positive definite"), std::string::npos) << m;
  }
  std::string missing = with_material(c.yaml(), anisotropic_material(kC11, kC12, kC66));
  missing.replace(missing.find(", c66: "),
                  missing.find('}', missing.find(", c66: ")) - missing.find(", c66: "), "");
  try {
    wave_model(missing);
    FAIL() << "accepted without c66";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("c66 is missing"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace fem::test
