// Pressure loads in the static solver: a body under pressure on its whole boundary is a patch
// test for the face loads of every element type (the exact solution is a uniform compression), a
// follower pressure on a large-strain block carries pressure times the deformed area where a
// dead one carries pressure times the reference area, and bad pressure entries are refused.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "support/backend.hpp"
#include "support/case_runner.hpp"
#include "support/implicit_runner.hpp"

namespace fem::test {
namespace {

/// A solid cylinder (radius 1, height 1, 2 x 8 x 2 cells) of `cells`/`element` with a pressure
/// on every boundary face (`load`: the rest of the loads entry) and a 3-2-1 support that a
/// uniform compression u = -c x meets.
std::string pressurised_cylinder(const std::string& cells, const std::string& element,
                                 const std::string& material, const std::string& load) {
  return R"(
mesh: {generator: cylinder, cells: )" +
         cells + R"(, radius: 1, height: 1, radial_divisions: 2,
       circumferential_divisions: 8, axial_divisions: 2}
materials: {m: )" +
         material + R"(}
blocks: [{element: )" +
         element + R"(, material: m}]
node_sets:
  everything: {all: true}
  centre: {sphere: {center: [0, 0, 0], radius: 1.0e-6}}
  on_x: {sphere: {center: [1, 0, 0], radius: 1.0e-6}}
  on_y: {sphere: {center: [0, 1, 0], radius: 1.0e-6}}
boundary_conditions:
  - {set: centre, fixed: [x, y, z]}
  - {set: on_x, fixed: [y, z]}
  - {set: on_y, fixed: [z]}
loads: [{set: everything, )" +
         load + R"(}]
solver: {type: static, end_time: 1, increments: 4, linear: {solver: direct},
         newton: {residual_tolerance: 1.0e-10}}
)";
}

// A solid cylinder (radius 1, height 1, the circle approximated by the generator's facets) with
// a pressure on every boundary face and a 3-2-1 support that the uniform compression
// u = -p / (3K) x meets: small strain, so every element must reproduce it to round-off.
TEST(PressureLoads, AUniformPressureOnTheWholeBoundaryIsAPatchTest) {
  const double p = 1.0e4, E = 1.0e6, nu = 0.3;
  const double c = p * (1 - 2 * nu) / E;  // p / (3K)
  for (const auto& [element, cells] : {std::pair<std::string, std::string>{"hex8", "hex8"},
                                       {"tet4", "tet4"},
                                       {"hex20", "hex20"},
                                       {"tet10", "tet10"}}) {
    SCOPED_TRACE(element);
    const std::string yaml = pressurised_cylinder(
        cells, element, "{type: linear_elastic, youngs_modulus: 1.0e6, poisson_ratio: 0.3}",
        "pressure: 1.0e4, follower: false");
    ImplicitRun run = prepare_implicit(yaml, on_backend({{"precision", "double"}}));
    const ImplicitRunReport r = run_implicit(run);
    ASSERT_EQ(r.increments, 4);
    const std::vector<double>& u = run.solver->displacement();
    const std::vector<double>& x = run.model.mesh.coords;
    double worst = 0.0;
    for (std::size_t d = 0; d < u.size(); ++d) worst = std::max(worst, std::abs(u[d] + c * x[d]));
    EXPECT_LT(worst, 1e-9 * c) << "largest deviation from u = -p/(3K) x, m";
  }
}

// The same cylinder, neo-Hookean, under a follower pressure of 0.2 E on its whole (closed)
// boundary: the load stiffness is symmetric there and enters the tangent, so Newton converges as
// fast as under a dead load (measured: 16 iterations in 4 increments both; without the load
// stiffness Newton stalled at a relative residual of 3e-10 and the run failed), and the
// deformation is a uniform compression u = -c x.
TEST(PressureLoads, AClosedSurfaceUnderFollowerPressureKeepsNewtonQuadratic) {
  const std::string yaml = pressurised_cylinder(
      "hex8", "hex8", "{type: neo_hookean, youngs_modulus: 1000, poisson_ratio: 0.3}",
      "pressure: 200, amplitude: {type: linear}");
  ImplicitRun run = prepare_implicit(yaml, on_backend({{"precision", "double"}}));
  const ImplicitRunReport r = run_implicit(run);
  ASSERT_EQ(r.increments, 4);
  EXPECT_EQ(r.cutbacks, 0);
  EXPECT_LE(r.newton_iterations, 4 * 5);
  const std::vector<double>& u = run.solver->displacement();
  const std::vector<double>& x = run.model.mesh.coords;
  const std::int32_t n = run.model.mesh.node_sets.at("on_x").front();
  const double c = -u[3 * static_cast<std::size_t>(n)];  // x = 1 there
  EXPECT_GT(c, 0.03);
  double worst = 0.0;
  for (std::size_t d = 0; d < u.size(); ++d) worst = std::max(worst, std::abs(u[d] + c * x[d]));
  EXPECT_LT(worst, 1e-8 * c);
}

/// A unit cube of 2 x 2 x 2 hex8 on rollers (x = 0, y = 0, z = 0) under a pressure of 300 Pa on
/// its top (neo-Hookean, E = 1000 Pa: about 25 % compression), in 4 increments. Returns the
/// top corner's displacement and the bottom's reaction force in z.
struct CompressedCube {
  std::array<double, 3> corner{};
  double reaction_z = 0.0;
  std::int64_t newton_iterations = 0;
};
std::string pressed_cube(bool follower, const std::string& solver) {
  return std::string(R"(
mesh: {generator: box, cells: hex8, size: [1, 1, 1], divisions: 2}
materials: {m: {type: neo_hookean, youngs_modulus: 1000, poisson_ratio: 0.3}}
blocks: [{element: hex8, material: m}]
node_sets:
  x0: {plane: {point: [0, 0, 0], normal: [1, 0, 0]}}
  y0: {plane: {point: [0, 0, 0], normal: [0, 1, 0]}}
  z0: {plane: {point: [0, 0, 0], normal: [0, 0, 1]}}
  top: {plane: {point: [0, 0, 1], normal: [0, 0, 1]}}
  corner: {sphere: {center: [1, 1, 1], radius: 1.0e-6}}
boundary_conditions:
  - {set: x0, fixed: [x]}
  - {set: y0, fixed: [y]}
  - {set: z0, fixed: [z]}
loads: [{set: top, pressure: 300, follower: )") +
         (follower ? "true" : "false") + ", amplitude: {type: linear}}]\nsolver: " + solver + "\n";
}

/// `linear`: the solver's linear: entry.
CompressedCube compress_by_pressure(bool follower, const std::string& linear = "{solver: direct}") {
  ImplicitRun run = prepare_implicit(
      pressed_cube(follower, "{type: static, end_time: 1, increments: 4, linear: " + linear +
                                 ", newton: {residual_tolerance: 1.0e-10}}"),
      on_backend({{"precision", "double"}}));
  const ImplicitRunReport r = run_implicit(run);
  EXPECT_EQ(r.increments, 4);
  CompressedCube out;
  out.newton_iterations = r.newton_iterations;
  const std::vector<double>& u = run.solver->displacement();
  const std::int32_t c = run.model.mesh.node_sets.at("corner").front();
  for (int k = 0; k < 3; ++k) out.corner[k] = u[3 * c + k];
  // The supports' force: the internal forces (less the pressure's) summed over the bottom.
  auto u_device = device_vector(run.la(), u);
  auto f = run.la().vector(run.op().size());
  EXPECT_TRUE(run.op().internal_forces(*u_device, *f).ok());
  const std::vector<double> forces = host_vector(run.la(), *f);
  for (const std::int32_t n : run.model.mesh.node_sets.at("z0"))
    out.reaction_z += forces[3 * n + 2];
  return out;
}

TEST(PressureLoads, AFollowerPressureActsOnTheDeformedArea) {
  const CompressedCube follower = compress_by_pressure(true);
  const CompressedCube dead = compress_by_pressure(false);
  // Homogeneous deformation: the top's area is (1 + u_x)(1 + u_y) of the corner.
  const double area = (1 + follower.corner[0]) * (1 + follower.corner[1]);
  EXPECT_GT(area, 1.02);  // the sides bulge
  EXPECT_LT(follower.corner[2], -0.15);
  EXPECT_NEAR(follower.reaction_z, 300 * area, 1e-7 * 300);
  EXPECT_NEAR(dead.reaction_z, 300.0, 1e-7 * 300);
  // The follower load is larger (it grows with the area): the block is compressed further.
  EXPECT_LT(follower.corner[2], dead.corner[2] - 0.005);
  // Newton without the load stiffness converges linearly: measured 37 iterations against the
  // dead load's 16 (quadratic, 4 an increment) to the relative residual 1e-10.
  EXPECT_LE(dead.newton_iterations, 4 * 5);
  EXPECT_LE(follower.newton_iterations, 4 * 12);
  RecordProperty("newton_iterations_follower", std::to_string(follower.newton_iterations));
  RecordProperty("newton_iterations_dead", std::to_string(dead.newton_iterations));
}

// With an iterative linear solver the open top's load stiffness enters the tangent whole, and
// BiCGStab solves it instead of CG: Newton is quadratic again (measured: 16 iterations over the
// 4 increments with each preconditioner, as under the dead pressure, against 37 with the direct
// solver, which leaves the load stiffness out), and the equilibrium is the direct solver's.
TEST(PressureLoads, BiCGStabWithTheWholeLoadStiffnessKeepsNewtonQuadraticOnAnOpenSurface) {
  const CompressedCube direct = compress_by_pressure(true);
  for (const std::string preconditioner : {"jacobi", "block_jacobi", "multigrid"}) {
    SCOPED_TRACE(preconditioner);
    const CompressedCube iterative =
        compress_by_pressure(true, "{solver: cg, preconditioner: " + preconditioner + "}");
    for (int k = 0; k < 3; ++k)
      EXPECT_NEAR(iterative.corner[k], direct.corner[k], 1e-8) << "xyz"[k];
    EXPECT_NEAR(iterative.reaction_z, direct.reaction_z, 1e-6 * 300);
    EXPECT_LE(iterative.newton_iterations, 4 * 5);
    RecordProperty("newton_iterations_bicgstab_" + preconditioner,
                   std::to_string(iterative.newton_iterations));
  }
}

// Dynamic relaxation finds the static solver's equilibrium under a dead pressure (the backends'
// per-dof loads) and under a follower one: the host sets that on the deformed top before every
// step (fem/solver/follower_pressure_problem.hpp), so the relaxation's residual and convergence
// see it. The two equilibria are more than 5 mm apart.
TEST(PressureLoads, DynamicRelaxationFindsTheStaticEquilibriumUnderADeadAndAFollowerPressure) {
  const CompressedCube dead = compress_by_pressure(false);
  for (const bool follower : {false, true}) {
    SCOPED_TRACE(follower);
    const CompressedCube static_solution = follower ? compress_by_pressure(true) : dead;
    PreparedRun relaxed =
        prepare(pressed_cube(follower,
                             "{type: dynamic_relaxation, end_time: 1, tolerance: 1.0e-9, "
                             "force_tolerance: 1.0e-9, max_iterations: 200000}"),
                on_backend({{"precision", "double"}}));
    ASSERT_TRUE(run_in_memory(relaxed).relaxation.converged);
    const std::vector<double> u = displacement(relaxed);
    const std::int32_t c = relaxed.model.mesh.node_sets.at("corner").front();
    for (int k = 0; k < 3; ++k)
      EXPECT_NEAR(u[3 * c + k], static_solution.corner[k], 1e-7) << "xyz"[k];
    if (follower) {
      EXPECT_LT(u[3 * c + 2], dead.corner[2] - 0.005);
    }
  }
}

// Explicit dynamics under a follower pressure ramped up over 5 s and held, with mass damping
// near the critical damping of the block's first mode (E = 1000 Pa, 1000 kg/m^3: a period of
// about 4 s): the block comes to rest at the static follower equilibrium.
TEST(PressureLoads, DampedExplicitDynamicsSettleAtTheFollowerEquilibrium) {
  const CompressedCube follower = compress_by_pressure(true);
  PreparedRun settled =
      prepare(pressed_cube(true, "{type: explicit, end_time: 40, mass_damping: 3}"),
              on_backend({{"precision", "double"}, {"loads.0.amplitude.end", "5"}}));
  run_in_memory(settled);
  const std::vector<double> u = displacement(settled);
  const std::int32_t c = settled.model.mesh.node_sets.at("corner").front();
  for (int k = 0; k < 3; ++k) EXPECT_NEAR(u[3 * c + k], follower.corner[k], 1e-4) << "xyz"[k];
}

TEST(PressureLoads, FollowerCanBeSetFromTheCommandLine) {
  const std::string yaml = pressed_cube(true, "{type: static, end_time: 1}");
  EXPECT_TRUE(parse_case(yaml, "<test>").pressure_loads.at(0).follower);
  EXPECT_FALSE(
      parse_case(yaml, "<test>", {{"loads.0.follower", "false"}}).pressure_loads.at(0).follower);
}

TEST(PressureLoads, BadEntriesAreRefusedWithTheirLine) {
  const std::string head = R"(mesh: {generator: box, cells: hex8, size: [1, 1, 1], divisions: 2}
materials: {m: {type: neo_hookean, youngs_modulus: 1000, poisson_ratio: 0.3}}
blocks: [{element: hex8, material: m}]
node_sets:
  z0: {plane: {point: [0, 0, 0], normal: [0, 0, 1]}}
  top: {plane: {point: [0, 0, 1], normal: [0, 0, 1]}}
  corner: {sphere: {center: [1, 1, 1], radius: 1.0e-6}}
boundary_conditions: [{set: z0, fixed: all}]
)";
  const auto error_of = [&](const std::string& loads, const std::string& solver) {
    try {
      ImplicitRun run = prepare_implicit(head + loads + solver);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const std::string stat = "solver: {type: static, end_time: 1}\n";
  const std::string waves = "solver: {type: elastodynamic, end_time: 0.01}\n";
  EXPECT_NE(error_of("loads: [{set: top, pressure: 1, force: [0, 0, 1]}]\n", stat)
                .find("has both a force and a pressure"),
            std::string::npos);
  EXPECT_NE(error_of("loads: [{set: top, force: [0, 0, 1], follower: true}]\n", stat)
                .find("'follower' applies to a pressure"),
            std::string::npos);
  // The wave solver is linear: its pressures act on the reference surface.
  const std::string linear = error_of("loads: [{set: top, pressure: 1, follower: true}]\n", waves);
  EXPECT_NE(linear.find("<test>:9:"), std::string::npos) << linear;
  EXPECT_NE(linear.find("a follower pressure does not apply to solver type elastodynamic"),
            std::string::npos)
      << linear;
  // A set of one node bounds no face.
  const std::string no_face = error_of("loads: [{set: corner, pressure: 1}]\n", stat);
  EXPECT_NE(no_face.find("holds no face of the mesh boundary"), std::string::npos) << no_face;
  EXPECT_NE(no_face.find("<test>:9:"), std::string::npos) << no_face;
  // A dead pressure and a force on one node under two curves: the per-dof load has one curve.
  const std::string two_curves = error_of(
      "loads: [{set: top, pressure: 1, follower: false},\n"
      "        {set: corner, force: [0, 0, 1], amplitude: {type: linear}}]\n",
      stat);
  EXPECT_NE(two_curves.find("already carries a load with another amplitude"), std::string::npos)
      << two_curves;
  EXPECT_NE(two_curves.find("<test>:9:"), std::string::npos) << two_curves;
}

}  // namespace
}  // namespace fem::test
