// Homogeneous uniaxial compression of the neo-Hookean cube (seed 000's load case) against the
// analytical stress-stretch relation of the same strain-energy function.
#include <gtest/gtest.h>

#include <cmath>

#include "support/backend.hpp"
#include "support/case_runner.hpp"

namespace fem::test {
namespace {

constexpr double kL = 0.05, kMu = 1006.711409, kKappa = 50000.0, kStretch = 0.8;

/// Lateral stretch and nominal axial stress P33 of the seed-000 neo-Hookean under uniaxial
/// stress with axial stretch l3 (lateral Cauchy stress zero, solved by Newton on l).
std::pair<double, double> analytic_uniaxial(double l3) {
  const auto lateral_stress = [&](double l) {
    const double J = l * l * l3, I1 = 2 * l * l + l3 * l3;
    const double S11 =
        kMu * std::pow(J, -2.0 / 3.0) * (1 - I1 / (3 * l * l)) + kKappa * J * (J - 1) / (l * l);
    return S11;
  };
  double l = 1.0;
  for (int it = 0; it < 100; ++it) {
    const double h = 1e-7, f = lateral_stress(l);
    const double df = (lateral_stress(l + h) - lateral_stress(l - h)) / (2 * h);
    l -= f / df;
    if (std::abs(f) < 1e-12 * kKappa) break;
  }
  const double J = l * l * l3, I1 = 2 * l * l + l3 * l3;
  const double S33 =
      kMu * std::pow(J, -2.0 / 3.0) * (1 - I1 / (3 * l3 * l3)) + kKappa * J * (J - 1) / (l3 * l3);
  return {l, l3 * S33};
}

TEST(UniaxialCompression, NeoHookeanCubeMatchesAnalyticalStressStretch) {
  const std::string yaml = R"(
mesh: {generator: box, cells: hex8, size: [0.05, 0.05, 0.05], divisions: [3, 3, 3]}
materials:
  tissue: {type: neo_hookean, density: 1000, shear_modulus: 1006.711409, bulk_modulus: 50000}
blocks: [{element: hex8r, material: tissue}]
node_sets:
  bottom: {plane: {point: [0, 0, 0], normal: [0, 0, 1]}}
  top: {plane: {point: [0, 0, 0.05], normal: [0, 0, 1]}}
amplitudes:
  load: {type: smooth_step, start: 0, end: 2.0}
boundary_conditions:
  - {set: bottom, fixed: [z]}
  - {set: top, displacement: {z: -0.01}, amplitude: load}
solver: {end_time: 2.5, mass_damping: 20}
)";
  PreparedRun run = prepare(yaml, on_backend({{"precision", "double"}}));
  run_in_memory(run);
  const std::vector<double> u = displacement(run);
  const double reaction = support_reaction(run, "top")[2];

  const auto [lateral, p33] = analytic_uniaxial(kStretch);
  const double expected = p33 * kL * kL;  // nominal stress times reference area
  EXPECT_LT(expected, 0.0);
  EXPECT_NEAR(reaction / expected, 1.0, 0.01)
      << "reaction " << reaction << " N, expected " << expected;

  // Lateral expansion: the faces x = 0 and x = L separate by (lateral - 1) L.
  double xmin = 0, xmax = 0;
  int nmin = 0, nmax = 0;
  const Mesh& mesh = run.model.mesh;
  for (std::int64_t i = 0; i < mesh.num_nodes(); ++i) {
    if (mesh.coords[3 * i] < 1e-9) {
      xmin += u[3 * i];
      ++nmin;
    }
    if (mesh.coords[3 * i] > kL - 1e-9) {
      xmax += u[3 * i];
      ++nmax;
    }
  }
  const double widening = xmax / nmax - xmin / nmin;
  EXPECT_NEAR(widening / ((lateral - 1) * kL), 1.0, 0.01);
}

}  // namespace
}  // namespace fem::test
