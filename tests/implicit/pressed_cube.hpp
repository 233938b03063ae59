// The pressed cube of the linear-solver tests (test_amg.cpp, test_multigrid.cpp): one case, its
// solution with a given solver.linear mapping, and the right-hand sides those tests feed to a
// preconditioner.
#pragma once

#include <string>
#include <vector>

#include "support/backend.hpp"
#include "support/implicit_runner.hpp"

namespace fem::test {

/// The seed-000 cube (50 mm, neo-Hookean, E = 3000 Pa, nu = 0.49) clamped at the bottom, the
/// top held sideways and moved down by `top_z` (m) along a linear ramp. `solver` is the solver
/// mapping.
inline std::string clamped_cube(const std::string& element, const std::string& cells, int divisions,
                                const std::string& solver, const std::string& top_z = "-0.01") {
  const std::string d = std::to_string(divisions);
  return R"(
mesh: {generator: box, cells: )" +
         cells + ", size: [0.05, 0.05, 0.05], divisions: [" + d + ", " + d + ", " + d + R"(]}
materials: {brain: {type: neo_hookean, density: 1000, youngs_modulus: 3000, poisson_ratio: 0.49}}
blocks: [{element: )" +
         element + R"(, material: brain}]
node_sets:
  bottom: {plane: {point: [0, 0, 0], normal: [0, 0, 1]}}
  top: {plane: {point: [0, 0, 0.05], normal: [0, 0, 1]}}
amplitudes: {loading: {type: linear, start: 0, end: 1}}
boundary_conditions:
  - {set: bottom, fixed: [x, y, z]}
  - {set: top, fixed: [x, y]}
  - {set: top, displacement: {z: )" +
         top_z + R"(}, amplitude: loading}
solver: )" +
         solver + "\n";
}

/// The clamped cube pressed down 10 % in 2 static increments, to a residual tight enough that
/// the solutions of different linear solvers agree to 1e-8. `linear` is the solver.linear
/// mapping.
inline std::string pressed_cube(const std::string& element, const std::string& cells, int divisions,
                                const std::string& linear) {
  return clamped_cube(element, cells, divisions,
                      "{type: static, end_time: 1, increments: 2, newton: {residual_tolerance: "
                      "1.0e-11}, linear: " +
                          linear + "}",
                      "-0.005");
}

struct CubeElement {
  std::string element, cells;
};
inline const CubeElement kHex8{"hex8", "hex8"};
inline const CubeElement kTet4Anp{"tet4_anp", "tet4"};

struct CubeSolution {
  std::vector<double> u;
  double cg_per_newton = 0.0;  ///< linear iterations per Newton iteration
  std::string preconditioner;
};

inline CubeSolution solve_pressed_cube(const CubeElement& e, int divisions,
                                       const std::string& linear) {
  ImplicitRun run = prepare_implicit(pressed_cube(e.element, e.cells, divisions, linear),
                                     on_backend({{"precision", "double"}}));
  const ImplicitRunReport report = run_implicit(run);
  EXPECT_EQ(report.increments, 2) << e.element << ", " << linear;
  return {
      run.solver->displacement(),
      static_cast<double>(report.linear_iterations) / static_cast<double>(report.newton_iterations),
      report.preconditioner};
}

/// v with zeros at the prescribed dofs, like every right-hand side of the solver: there apply()
/// is the identity, but at free rows it also couples prescribed columns, which the assembled
/// tangent (and so the amg and direct solvers) leaves out.
inline std::vector<double> zero_at_prescribed(const NonlinearOperator& op, std::vector<double> v) {
  for (std::size_t d = 0; d < v.size(); ++d)
    if (op.system().prescribed_amplitude[d] >= 0) v[d] = 0.0;
  return v;
}

/// The pressed cube linearized at a uniform squeeze of its height (each node's z scaled by
/// 1 - squeeze, the sides held: not an equilibrium) with the case's preconditioner set up there.
/// Built in place: the preconditioner keeps references into `run`.
struct SqueezedCube {
  ImplicitRun run;
  std::unique_ptr<Vector> u;
  std::unique_ptr<Preconditioner> preconditioner;
  bool linearized = false;  ///< the tangent formed (no element inverted)

  SqueezedCube(const std::string& linear, int divisions, double squeeze)
      : run(prepare_implicit(pressed_cube("hex8", "hex8", divisions, linear),
                             on_backend({{"precision", "double"}}))) {
    LinearAlgebra& la = run.la();
    NonlinearOperator& op = run.op();
    std::vector<double> u_host(static_cast<std::size_t>(op.size()), 0.0);
    const std::vector<double>& coordinates = op.system().coordinates;
    for (std::size_t n = 0; 3 * n < u_host.size(); ++n)
      u_host[3 * n + 2] = -squeeze * coordinates[3 * n + 2];
    u = device_vector(la, u_host);
    linearized = op.linearize(*u).ok();
    preconditioner = make_preconditioner(run.model.spec.solver.linear,
                                         PreconditionerContext{run.model, *run.backend, la, op});
    preconditioner->setup(op, *u);
  }
  SqueezedCube(const SqueezedCube&) = delete;
  SqueezedCube& operator=(const SqueezedCube&) = delete;
};

/// Checks that a preconditioner set up at a deformed state (`squeeze`, 10 % down by default) is
/// symmetric positive definite and keeps nothing between applications, as conjugate gradients
/// need.
inline void expect_symmetric_positive_definite(const std::string& linear, int divisions = 8,
                                               double squeeze = 0.1) {
  SqueezedCube cube(linear, divisions, squeeze);
  ASSERT_TRUE(cube.linearized);
  LinearAlgebra& la = cube.run.la();
  NonlinearOperator& op = cube.run.op();
  Preconditioner& m = *cube.preconditioner;
  const auto r1 = device_vector(la, zero_at_prescribed(op, random_vector(op.size(), 1.0, 1)));
  const auto r2 = device_vector(la, zero_at_prescribed(op, random_vector(op.size(), 1.0, 2)));
  const auto z1 = la.vector(op.size()), z2 = la.vector(op.size());
  m.apply(*r1, *z1);
  m.apply(*r2, *z2);
  const double r2z1 = la.dot(*r2, *z1), r1z2 = la.dot(*r1, *z2);
  EXPECT_NEAR(r2z1, r1z2, 1e-10 * std::sqrt(la.dot(*r1, *z1) * la.dot(*r2, *z2))) << linear;
  EXPECT_GT(la.dot(*r1, *z1), 0.0) << linear;
  EXPECT_GT(la.dot(*r2, *z2), 0.0) << linear;
  const auto z1_again = la.vector(op.size());
  m.apply(*r1, *z1_again);
  EXPECT_EQ(host_vector(la, *z1_again), host_vector(la, *z1)) << linear;
}

}  // namespace fem::test
