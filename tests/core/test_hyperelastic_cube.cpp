// End to end: each soft-tissue law in `fem run` (static solver, OpenMP and Kokkos backends), a
// cube stretched uniaxially between symmetry planes (a homogeneous state, which every element
// represents exactly), its reaction force against the law's incompressible closed form
// (bulk modulus 1000 times the shear modulus: the compressible response differs by ~1e-3).
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "support/run_fem.hpp"

namespace fem::test {
namespace {

const double kSize = 0.01;  // a 1 cm cube

std::map<std::string, double> last_csv_row(const std::string& path) {
  std::ifstream in(path);
  std::string header, line, last;
  std::getline(in, header);
  while (std::getline(in, line))
    if (!line.empty()) last = line;
  std::map<std::string, double> row;
  std::stringstream names(header), values(last);
  std::string name, value;
  while (std::getline(names, name, ',') && std::getline(values, value, ','))
    row[name] = std::stod(value);
  return row;
}

/// The reaction on the face x = kSize of the cube of `material` (a YAML flow mapping) stretched
/// to `stretch` along x, run by `fem run` on `backend`.
double uniaxial_reaction(const std::string& label, const std::string& material, double stretch,
                         const std::string& backend) {
  const std::string dir = fresh_temp_dir("hyperelastic_cube", label + "_" + backend);
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/case.yaml") << R"(backend: )" << backend << R"(
mesh: {generator: box, cells: hex8, size: [0.01, 0.01, 0.01], divisions: [2, 2, 2]}
materials: {m: )" << material << R"(}
blocks: [{element: hex8, material: m}]
node_sets:
  x0: {plane: {point: [0, 0, 0], normal: [1, 0, 0]}}
  y0: {plane: {point: [0, 0, 0], normal: [0, 1, 0]}}
  z0: {plane: {point: [0, 0, 0], normal: [0, 0, 1]}}
  pulled: {plane: {point: [0.01, 0, 0], normal: [1, 0, 0]}}
amplitudes: {ramp: {type: linear, start: 0, end: 1}}
boundary_conditions:
  - {set: x0, fixed: [x]}
  - {set: y0, fixed: [y]}
  - {set: z0, fixed: [z]}
  - {set: pulled, displacement: {x: )"
                                    << (stretch - 1.0) * kSize << R"(}, amplitude: ramp}
solver:
  type: static
  end_time: 1
  increments: {initial: 0.1, maximum: 0.25}
  newton: {residual_tolerance: 1.0e-10}
  linear: {solver: direct}
output:
  every_steps: 1000
  histories: [{name: pulled, set: pulled, quantities: [reaction_force], every_steps: 1}]
)";
  const FemResult r = run_fem("run " + dir + "/case.yaml -q --output " + dir + "/out");
  EXPECT_EQ(r.code, 0) << r.output;
  const auto row = last_csv_row(dir + "/out/pulled.csv");
  EXPECT_DOUBLE_EQ(row.at("time"), 1.0) << label;
  return row.at("reaction_force_x");
}

struct UniaxialCase {
  std::string label;
  std::string material;
  double stretch;
  double nominal_stress;  ///< the incompressible closed form, Pa
};

std::vector<UniaxialCase> cases() {
  const double l = 1.5;
  const double mr = 2.0 * (l - 1.0 / (l * l)) * (350.0 + 150.0 / l);
  const double x = l * l + 2.0 / l - 3.0;
  const double yeoh = 2.0 * (l - 1.0 / (l * l)) * (400.0 - 2.0 * 30.0 * x + 3.0 * 8.0 * x * x);
  const double ogden = 2.0 * 630.0 / 1.3 * (std::pow(l, 0.3) - std::pow(l, -1.65)) +
                       2.0 * 1.2 / 5.0 * (std::pow(l, 4.0) - std::pow(l, -3.5)) +
                       2.0 * -10.0 / -2.0 * (std::pow(l, -3.0) - std::pow(l, 0.0));
  // Along the fibres, into their linear region: the matrix's stress plus (c5 l + c6) / l.
  const double lf = 1.15;
  const double c6 = 20.0 * std::expm1(15.0 * 0.12) - 8000.0 * 1.12;
  const double ti = 2.0 * (lf - 1.0 / (lf * lf)) * (300.0 + 50.0 / lf) + (8000.0 * lf + c6) / lf;
  return {
      {"mooney_rivlin", "{type: mooney_rivlin, c10: 350, c01: 150, bulk_modulus: 1.0e6}", l, mr},
      {"yeoh", "{type: reduced_polynomial, c10: 400, c20: -30, c30: 8, bulk_modulus: 8.0e5}", l,
       yeoh},
      {"ogden",
       "{type: ogden, mu1: 630, alpha1: 1.3, mu2: 1.2, alpha2: 5, mu3: -10, alpha3: -2, "
       "bulk_modulus: 6.2e5}",
       l, ogden},
      {"transversely_isotropic",
       "{type: transversely_isotropic, c1: 300, c2: 50, c3: 20, c4: 15, c5: 8000, lam_max: 1.12, "
       "fiber_direction: [1, 0, 0], bulk_modulus: 1.0e6}",
       lf, ti}};
}

TEST(HyperelasticCube, UniaxialReactionMatchesTheClosedFormOnEveryCpuBackend) {
  for (const UniaxialCase& c : cases()) {
    const double expected = c.nominal_stress * kSize * kSize;
    ASSERT_GT(expected, 0.0) << c.label;
    for (const std::string backend : {"openmp", "kokkos"}) {
      if (!std::filesystem::exists(std::string(FEM_BINARY_DIR) + "/lib/fem/plugins/" + backend +
                                   ".backend.so")) {
        std::printf("[ uniaxial ] no %s backend in this build: not run there\n", backend.c_str());
        continue;
      }
      const double reaction = uniaxial_reaction(c.label, c.material, c.stretch, backend);
      std::printf("[ uniaxial ] %s on %s: reaction %.6g N, closed form %.6g N (%.2e)\n",
                  c.label.c_str(), backend.c_str(), reaction, expected, reaction / expected - 1.0);
      EXPECT_NEAR(reaction, expected, 1e-2 * expected) << c.label << " on " << backend;
    }
  }
}

}  // namespace
}  // namespace fem::test
