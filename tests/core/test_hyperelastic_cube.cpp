// End to end: each soft-tissue law in `fem run` (static solver, OpenMP and Kokkos backends), a
// cube stretched uniaxially between symmetry planes (a homogeneous state, which every element
// represents exactly), its reaction force against the law's incompressible closed form
// (bulk modulus 1000 times the shear modulus: the compressible response differs by ~1e-3), and
// against CalculiX's with the same Abaqus constants (the compressible laws themselves: 1e-6).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

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

/// CalculiX's ccx: FEM_CCX or `ccx` on PATH; empty if neither.
std::string find_ccx() {
  if (const char* env = std::getenv("FEM_CCX")) return env;
  const FemResult r = run_shell("command -v ccx");
  return r.code == 0 && !r.output.empty() ? "ccx" : "";
}

/// The x reaction of the unit cube of ccx's *HYPERELASTIC card `card` (keyword line and data)
/// stretched by half between symmetry planes, with a tight convergence tolerance.
double calculix_uniaxial_reaction(const std::string& ccx, const std::string& label,
                                  const std::string& card) {
  const std::string dir = fresh_temp_dir("hyperelastic_ccx", label);
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/cube.inp") << R"(*NODE, NSET=NALL
1, 0, 0, 0
2, 1, 0, 0
3, 1, 1, 0
4, 0, 1, 0
5, 0, 0, 1
6, 1, 0, 1
7, 1, 1, 1
8, 0, 1, 1
*ELEMENT, TYPE=C3D8, ELSET=EALL
1, 1, 2, 3, 4, 5, 6, 7, 8
*NSET, NSET=X0
1, 4, 5, 8
*NSET, NSET=X1
2, 3, 6, 7
*NSET, NSET=Y0
1, 2, 5, 6
*NSET, NSET=Z0
1, 2, 3, 4
*MATERIAL, NAME=M
)" << card << R"(
*SOLID SECTION, ELSET=EALL, MATERIAL=M
*STEP, NLGEOM, INC=1000
*CONTROLS, PARAMETERS=FIELD
1.e-9, 1.e-9
*STATIC
0.05, 1.
*BOUNDARY
X0, 1, 1
Y0, 2, 2
Z0, 3, 3
X1, 1, 1, 0.5
*NODE PRINT, NSET=X1, TOTALS=ONLY
RF
*END STEP
)";
  const FemResult r = run_shell("cd " + dir + " && " + ccx + " -i cube");
  EXPECT_EQ(r.code, 0) << r.output;
  // The last "total force (fx,fy,fz) for set X1 and time ..." block: its next line has fx.
  std::ifstream dat(dir + "/cube.dat");
  std::string line, forces;
  bool next = false;
  while (std::getline(dat, line)) {
    if (next && line.find_first_not_of(' ') != std::string::npos) {
      forces = line;
      next = false;
    }
    if (line.find("total force") != std::string::npos) next = true;
  }
  EXPECT_FALSE(forces.empty()) << "no total force in " << dir << "/cube.dat";
  return forces.empty() ? std::nan("") : std::stod(forces);
}

TEST(HyperelasticCube, AbaqusConstantsGiveCalculixReactions) {
  // The same constants in fem's keys and in ccx's *HYPERELASTIC card (Abaqus' order: Mooney-
  // Rivlin C10, C01, D1; Yeoh C10, C20, C30, D1, D2, D3; Ogden N=3 mu1, alpha1, ..., alpha3,
  // D1, D2 / D3): one fully integrated hexahedron, uniaxial between symmetry planes, to 50 %.
  const std::string ccx = find_ccx();
  if (ccx.empty()) GTEST_SKIP() << "CalculiX (ccx) not found: install calculix-ccx or set FEM_CCX";
  struct Pair {
    std::string label, fem, calculix;
  };
  const std::vector<Pair> pairs = {
      {"mooney_rivlin", "{type: mooney_rivlin, c10: 350, c01: 150, d1: 2.0e-6}",
       "*HYPERELASTIC, MOONEY-RIVLIN\n350., 150., 2.E-6"},
      {"yeoh", "{type: reduced_polynomial, c10: 400, c20: -30, c30: 8, d1: 2.5e-6}",
       "*HYPERELASTIC, YEOH\n400., -30., 8., 2.5E-6, 0., 0."},
      {"ogden",
       "{type: ogden, mu1: 630, alpha1: 1.3, mu2: 1.2, alpha2: 5, mu3: -10, alpha3: -2, "
       "d1: 3.2258e-6}",
       "*HYPERELASTIC, OGDEN, N=3\n630., 1.3, 1.2, 5., -10., -2., 3.2258E-6, 0.\n0."}};
  for (const Pair& p : pairs) {
    const double theirs = calculix_uniaxial_reaction(ccx, p.label, p.calculix);
    // fem's cube of 1 cm carries the reaction of ccx's unit cube times 1e-4.
    const double ours = uniaxial_reaction(p.label + "_ccx", p.fem, 1.5, "openmp") / (kSize * kSize);
    std::printf("[ fem vs ccx ] %s: %.9g against %.9g (%.1e)\n", p.label.c_str(), ours, theirs,
                ours / theirs - 1.0);
    EXPECT_NEAR(ours, theirs, 1e-6 * theirs) << p.label;
  }
}

}  // namespace
}  // namespace fem::test
