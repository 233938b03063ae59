// Contact in the implicit solvers: penetration against the penalty, the augmented Lagrangian,
// action and reaction between two deformable bodies, and the static brain shift against dynamic
// relaxation's projection contact.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <numbers>
#include <sstream>
#include <string>
#include <vector>

#include "output/scratch_dir.hpp"
#include "support/backend.hpp"
#include "support/case_runner.hpp"
#include "support/implicit_runner.hpp"
#include "support/run_fem.hpp"

namespace fem::test {
namespace {

/// A 1 x 1 x 0.5 block on a rigid frictionless floor, rollers on x = 0 and y = 0, the top
/// pushed down: uniaxial compression, so the floor's pressure is uniform and every node
/// penetrates by pressure / penalty.
std::string block_on_floor(const std::string& contact) {
  return R"(
mesh: {generator: box, cells: hex8, size: [1, 1, 0.5], divisions: [3, 3, 2]}
materials: {m: {type: neo_hookean, youngs_modulus: 1000, poisson_ratio: 0.3}}
blocks: [{element: hex8, material: m}]
node_sets:
  top: {plane: {point: [0, 0, 0.5], normal: [0, 0, 1]}}
  bottom: {plane: {point: [0, 0, 0], normal: [0, 0, 1]}}
  left: {plane: {point: [0, 0, 0], normal: [1, 0, 0]}}
  front: {plane: {point: [0, 0, 0], normal: [0, 1, 0]}}
amplitudes: {ramp: {type: linear, start: 0, end: 1}}
boundary_conditions:
  - {set: left, fixed: [x]}
  - {set: front, fixed: [y]}
  - {set: top, displacement: {z: -0.01}, amplitude: ramp}
contact:
  - {name: floor, type: plane, point: [0, 0, 0], normal: [0, 0, 1], set: bottom)" +
         contact + R"(}
solver: {type: static, end_time: 1, increments: 2}
)";
}

TEST(ImplicitContact, PenetrationFallsWithThePenaltyAsPredicted) {
  double previous = 0.0;
  for (const double penalty : {1e4, 1e5, 1e6}) {
    ImplicitRun run = prepare_implicit(block_on_floor(", penalty: " + std::to_string(penalty)),
                                       on_backend({{"precision", "double"}}));
    const ImplicitRunReport r = run_implicit(run);
    ASSERT_EQ(r.contacts.size(), 1u);
    const auto& c = r.contacts[0];
    EXPECT_EQ(c.active, 16);                   // every bottom node
    const double pressure = c.force[2] / 1.0;  // on 1 m^2
    EXPECT_GT(pressure, 0.0);
    // Uniform pressure: every node sinks by p / penalty.
    EXPECT_NEAR(c.max_penetration, pressure / penalty, 1e-6 * pressure / penalty);
    if (previous > 0.0) {
      EXPECT_GT(previous / c.max_penetration, 8.0);  // p changes little with the penalty
    }
    previous = c.max_penetration;
    // The floor carries what the top is pushed with.
    const std::vector<double>& u = run.solver->displacement();
    EXPECT_NEAR(u[2], -c.max_penetration, 1e-9);  // node 0 is on the floor
  }
}

TEST(ImplicitContact, AugmentedLagrangianDrivesPenetrationBelowItsTolerance) {
  ImplicitRun penalty =
      prepare_implicit(block_on_floor(", penalty: 1e4"), on_backend({{"precision", "double"}}));
  const ImplicitRunReport rp = run_implicit(penalty);
  ImplicitRun al = prepare_implicit(
      block_on_floor(", penalty: 1e4, method: augmented_lagrangian, penetration_tolerance: 1.0e-7"),
      on_backend({{"precision", "double"}}));
  const ImplicitRunReport ra = run_implicit(al);
  EXPECT_GT(rp.contacts[0].max_penetration, 1e-3);
  EXPECT_LT(ra.contacts[0].max_penetration, 1e-7);
  EXPECT_GE(ra.augmentations, 2);
  // With the penetration gone the block is compressed by the whole 10 mm: more force.
  EXPECT_GT(ra.contacts[0].force[2], rp.contacts[0].force[2]);
}

TEST(ImplicitContact, AugmentationsRunningOutAreWarnedAbout) {
  // One augmentation cannot bring the penetration from ~3e-3 m to 1e-9 m: the increment is
  // accepted, and the run says which contact still penetrates and what to change.
  const ScratchDir dir;
  const std::string case_file = dir / "floor.yaml";
  std::ofstream(case_file) << block_on_floor(
                                  ", penalty: 1e4, method: augmented_lagrangian, "
                                  "penetration_tolerance: 1.0e-9, max_augmentations: 1")
                           << "backend: " << backend_under_test() << "\noutput: {vtk: false}\n";
  const FemResult r = run_fem("run " + case_file + " -q --output " + (dir / "out"));
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("contact 'floor' still penetrates"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("Raise max_augmentations"), std::string::npos) << r.output;
}

/// Two blocks meshed separately in an Abaqus deck (non-matching: 3 x 3 cells of a 1 x 1 block on
/// top of 4 x 4 cells of a 1.4 x 1.4 one, so that the upper block's rim, spreading sideways as
/// it is compressed, stays on the target surface), the upper one 1 mm above the lower: node sets
/// for the lower block's top face (the target surface) and the upper block's bottom face (the
/// contact nodes).
std::string write_two_blocks(const ScratchDir& dir) {
  std::ostringstream nodes, elements, lower_top, upper_bottom, lower_bottom, upper_top;
  int id = 0, element = 0;
  const auto block = [&](int n, double x0, double width, double z0, double height,
                         const std::string& elset, std::ostringstream& bottom,
                         std::ostringstream& top) {
    const int first = id + 1;
    for (int k = 0; k <= 2; ++k)
      for (int j = 0; j <= n; ++j)
        for (int i = 0; i <= n; ++i) {
          ++id;
          nodes << id << ", " << x0 + width * i / n << ", " << x0 + width * j / n << ", "
                << z0 + height * k / 2 << "\n";
          if (k == 0) bottom << id << "\n";
          if (k == 2) top << id << "\n";
        }
    const auto node = [&](int i, int j, int k) { return first + i + (n + 1) * (j + (n + 1) * k); };
    elements << "*ELEMENT, TYPE=C3D8, ELSET=" << elset << "\n";
    for (int k = 0; k < 2; ++k)
      for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i)
          elements << ++element << ", " << node(i, j, k) << ", " << node(i + 1, j, k) << ", "
                   << node(i + 1, j + 1, k) << ", " << node(i, j + 1, k) << ", "
                   << node(i, j, k + 1) << ", " << node(i + 1, j, k + 1) << ", "
                   << node(i + 1, j + 1, k + 1) << ", " << node(i, j + 1, k + 1) << "\n";
  };
  block(4, -0.2, 1.4, 0.0, 0.5, "lower", lower_bottom, lower_top);
  block(3, 0.0, 1.0, 0.501, 0.5, "upper", upper_bottom, upper_top);
  const std::string path = dir / "two_blocks.inp";
  std::ofstream f(path);
  f << "*NODE\n"
    << nodes.str() << elements.str() << "*NSET, NSET=lower_top\n"
    << lower_top.str() << "*NSET, NSET=lower_bottom\n"
    << lower_bottom.str() << "*NSET, NSET=upper_bottom\n"
    << upper_bottom.str() << "*NSET, NSET=upper_top\n"
    << upper_top.str();
  return path;
}

TEST(ImplicitContact, ActionEqualsReactionBetweenTwoDeformableBodies) {
  const ScratchDir dir;
  const std::string mesh = write_two_blocks(dir);
  const std::string yaml = "mesh: {file: " + mesh + R"(}
materials: {m: {type: neo_hookean, youngs_modulus: 1000, poisson_ratio: 0.3}}
blocks:
  - {name: lower, region: lower, element: hex8, material: m}
  - {name: upper, region: upper, element: hex8, material: m}
amplitudes: {ramp: {type: linear, start: 0, end: 1}}
boundary_conditions:
  - {set: lower_bottom, fixed: [x, y, z]}
  - {set: upper_top, fixed: [x, y]}
  - {set: upper_top, displacement: {z: -0.021}, amplitude: ramp}
contact:
  - {name: blocks, type: deformable, set: upper_bottom, surface: lower_top,
     method: augmented_lagrangian, penetration_tolerance: 1.0e-6}
solver: {type: static, end_time: 1, increments: 3}
output:
  vtk: false
  histories:
    - {name: top, set: upper_top, quantities: [reaction_force]}
    - {name: base, set: lower_bottom, quantities: [reaction_force]}
)";
  ImplicitRun run = prepare_implicit_spec(
      parse_case(yaml, (dir / "case.yaml"), on_backend({{"precision", "double"}})));
  ImplicitRunOptions options;
  options.output_directory = dir.path().string();
  const ImplicitRunReport r = run.solver->run(options);
  ASSERT_EQ(r.contacts.size(), 1u);
  const auto& c = r.contacts[0];
  EXPECT_EQ(c.active, 16);  // every node of the upper block's bottom
  EXPECT_LT(c.max_penetration, 1e-6);
  // The last rows of the two histories: the top's reaction, the contact force on the upper
  // block and the base's reaction balance.
  const auto last_z = [&](const std::string& name) {
    std::ifstream f(dir / (name + ".csv"));
    std::string line, last;
    while (std::getline(f, line)) last = line;
    return std::stod(last.substr(last.rfind(',') + 1));
  };
  const double top = last_z("top"), base = last_z("base");
  EXPECT_GT(c.force[2], 1.0);  // the lower block pushes the upper one up
  EXPECT_NEAR(top, -c.force[2], 1e-6 * c.force[2]);
  EXPECT_NEAR(base, c.force[2], 1e-6 * c.force[2]);
}

TEST(ImplicitContact, StaticBrainShiftEqualsDynamicRelaxation) {
  // cases/brain_shift.yaml: the craniotomy pushed in, the brain held inside the rigid skull.
  const std::string file = std::string(FEM_SOURCE_DIR) + "/cases/brain_shift.yaml";
  PreparedRun relaxed = prepare_file(file, on_backend({{"precision", "double"},
                                                       {"solver.tolerance", "1e-8"},
                                                       {"solver.force_tolerance", "1e-7"},
                                                       {"solver.max_iterations", "400000"}}));
  const ExplicitRunReport d = run_in_memory(relaxed);
  ASSERT_TRUE(d.relaxation.converged);
  const std::vector<double> u_dr = displacement(relaxed);
  ImplicitRun implicit = prepare_implicit_spec(
      load_case(file, on_backend({{"precision", "double"},
                                  {"solver", "{type: static, increments: 4}"},
                                  {"amplitudes", "{ramp: {type: linear, start: 0, end: 1}}"},
                                  {"boundary_conditions.1.amplitude", "ramp"},
                                  {"contact.0.method", "augmented_lagrangian"},
                                  {"contact.0.penetration_tolerance", "1e-8"}})));
  const ImplicitRunReport r = run_implicit(implicit);
  ASSERT_EQ(r.contacts.size(), 1u);
  EXPECT_GT(r.contacts[0].active, 0) << "the brain touches the skull";
  const std::vector<double>& u = implicit.solver->displacement();
  double largest = 0.0, difference = 0.0;
  for (std::size_t i = 0; i < u.size(); ++i) {
    largest = std::max(largest, std::abs(u_dr[i]));
    difference = std::max(difference, std::abs(u[i] - u_dr[i]));
  }
  EXPECT_GT(largest, 7e-3);
  // Within dynamic relaxation's tolerance, plus what the contact enforcement leaves.
  EXPECT_LT(difference, 1e-6) << "largest displacement " << largest;
}

TEST(ImplicitContact, ContactTangentMatchesCentralDifferences) {
  const ScratchDir dir;
  const std::string mesh = write_two_blocks(dir);
  const std::string yaml = "mesh: {file: " + mesh + R"(}
materials: {m: {type: neo_hookean, youngs_modulus: 1000, poisson_ratio: 0.3}}
blocks:
  - {name: lower, region: lower, element: hex8, material: m}
  - {name: upper, region: upper, element: hex8, material: m}
boundary_conditions:
  - {set: lower_bottom, fixed: [x, y, z]}
  - {set: upper_top, fixed: [x, y, z]}
contact:
  - {name: blocks, type: deformable, set: upper_bottom, surface: lower_top}
solver: {type: static, end_time: 1, increments: 1}
)";
  ImplicitRun run = prepare_implicit_spec(
      parse_case(yaml, (dir / "case.yaml"), on_backend({{"precision", "double"}})));
  NonlinearOperator& op = run.op();
  LinearAlgebra& la = run.la();
  const std::int64_t n = op.size();
  // The upper block moved down into the lower one by 3 mm, plus some noise.
  std::vector<double> u = random_vector(n, 1e-4, 4);
  const System& sys = run.solver->setup().system;
  for (std::int64_t a = 0; a < n / 3; ++a)
    if (sys.coordinates[3 * a + 2] > 0.5005) u[3 * a + 2] -= 0.004;
  for (std::int64_t d = 0; d < n; ++d)
    if (sys.prescribed_amplitude[d] >= 0) u[d] = 0.0;
  const auto du = device_vector(la, u);
  ASSERT_TRUE(op.linearize(*du).ok());
  std::vector<double> v_host = random_vector(n, 1.0, 5);
  for (std::int64_t d = 0; d < n; ++d)
    if (sys.prescribed_amplitude[d] >= 0) v_host[d] = 0.0;
  const auto v = device_vector(la, v_host);
  const auto kv = la.vector(n);
  op.apply(*v, *kv);
  const double h = 1e-7;
  const auto up = la.vector(n), um = la.vector(n), fp = la.vector(n), fm = la.vector(n);
  la.copy(*du, *up);
  la.axpby(h, *v, 1.0, *up);
  la.copy(*du, *um);
  la.axpby(-h, *v, 1.0, *um);
  ASSERT_TRUE(op.internal_forces(*up, *fp).ok());
  ASSERT_TRUE(op.internal_forces(*um, *fm).ok());
  la.axpby(-1.0, *fm, 1.0, *fp);
  la.axpby(0.0, *fp, 0.5 / h, *fp);
  std::vector<double> a = host_vector(la, *kv), b = host_vector(la, *fp);
  for (std::int64_t d = 0; d < n; ++d)
    if (sys.prescribed_amplitude[d] >= 0) a[d] = b[d] = 0.0;
  // The frozen-normal tangent leaves out the normal's rotation: relative error of the order
  // of the penetration over the element size.
  EXPECT_LT(relative_difference(a, b), 1e-2);
}

/// Hertz: a rigid sphere (radius R) pressed into an elastic half-space (modelled by a quarter
/// block on rollers, large against the contact, fixed at its base). Against Johnson's solution
/// for the total force F the model carries: the contact radius a = (3 F R / 4 E*)^(1/3) from
/// the second moment of the contact pressure, <r^2> = 2 a^2 / 5 (exact for the Hertz
/// distribution, and insensitive to the mesh's node spacing, unlike the outermost node in
/// contact), and the approach of the surface at the axis relative to the surface at distance
/// rho: w(0) - w(rho), with w(r) = pi p0 (2 a^2 - r^2) / (4 a E*) inside and
/// p0 / (2 a E*) ((2 a^2 - r^2) asin(a / r) + r a sqrt(1 - a^2 / r^2)) outside (the far field
/// of a finite block shifts both alike).
TEST(ImplicitContact, HertzContactRadiusAndApproach) {
  const double R = 1.0, E = 1000.0, nu = 0.3;
  const std::string yaml = R"(
mesh: {generator: box, cells: hex8, size: [0.5, 0.5, 0.5], divisions: [20, 20, 20]}
materials: {m: {type: linear_elastic, youngs_modulus: 1000, poisson_ratio: 0.3}}
blocks: [{element: hex8, material: m}]
node_sets:
  x0: {plane: {point: [0, 0, 0], normal: [1, 0, 0]}}
  y0: {plane: {point: [0, 0, 0], normal: [0, 1, 0]}}
  bottom: {plane: {point: [0, 0, 0], normal: [0, 0, 1]}}
  top: {plane: {point: [0, 0, 0.5], normal: [0, 0, 1]}}
amplitudes: {ramp: {type: linear, start: 0, end: 1}}
boundary_conditions:
  - {set: x0, fixed: [x]}
  - {set: y0, fixed: [y]}
  - {set: bottom, fixed: [x, y, z]}
contact:
  - {name: ball, type: sphere, center: [0, 0, 1.5], radius: 1.0, set: top,
     displacement: [0, 0, -0.012], amplitude: ramp,
     method: augmented_lagrangian, penetration_tolerance: 1.0e-6}
solver: {type: static, end_time: 1, increments: 2, newton: {residual_tolerance: 1e-7}}
)";
  ImplicitRun run = prepare_implicit(yaml, on_backend({{"precision", "double"}}));
  run_implicit(run);
  const std::vector<double>& f = run.solver->contact_forces();
  const std::vector<double>& u = run.solver->displacement();
  const std::vector<double>& X = run.model.mesh.coords;
  double force = 0.0, moment = 0.0;
  for (const std::int32_t node : run.model.mesh.node_sets.at("top")) {
    const double fz = -f[3 * node + 2];  // the sphere pushes down
    const double r2 = X[3 * node] * X[3 * node] + X[3 * node + 1] * X[3 * node + 1];
    force += fz;
    moment += fz * r2;
  }
  const double F = 4.0 * force;  // the whole half-space
  const double estar = E / (1.0 - nu * nu);
  const double a_hertz = std::cbrt(3.0 * F * R / (4.0 * estar));
  const double a_model = std::sqrt(2.5 * moment / force);
  const double p0 = 3.0 * F / (2.0 * std::numbers::pi * a_hertz * a_hertz);
  const auto w = [&](double r) {
    const double a = a_hertz;
    if (r <= a) return std::numbers::pi * p0 * (2 * a * a - r * r) / (4 * a * estar);
    return p0 / (2 * a * estar) *
           ((2 * a * a - r * r) * std::asin(a / r) + r * a * std::sqrt(1 - a * a / (r * r)));
  };
  const double rho = 0.25;
  double w_axis = 0.0, w_ring = 0.0;
  int ring = 0;
  for (const std::int32_t node : run.model.mesh.node_sets.at("top")) {
    const double r = std::hypot(X[3 * node], X[3 * node + 1]);
    if (r < 1e-9) w_axis = -u[3 * node + 2];
    if (std::abs(r - rho) < 1e-9 && (X[3 * node] < 1e-9 || X[3 * node + 1] < 1e-9)) {
      w_ring += -u[3 * node + 2];
      ++ring;
    }
  }
  ASSERT_EQ(ring, 2);
  w_ring /= ring;
  EXPECT_NEAR(a_model, a_hertz, 0.05 * a_hertz);
  EXPECT_NEAR(w_axis - w_ring, w(0) - w(rho), 0.05 * (w(0) - w(rho)));
}

}  // namespace
}  // namespace fem::test
