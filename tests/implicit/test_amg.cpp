// The linear-solver libraries of the implicit solver: hypre's BoomerAMG as the preconditioner
// `amg` (far fewer CG iterations than Jacobi, nearly independent of the mesh, the same solution,
// a symmetric positive definite cycle, `fem run` exiting cleanly with MPI inside) and CHOLMOD as
// the direct solver (the same solution; LDL^T where the tangent is not positive definite).
//
// The amg tests skip where hypre is not built in, and fail there instead when
// FEM_TEST_REQUIRE_HYPRE=1 (scripts/test.sh installs hypre and sets it).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <fem/error.hpp>
#include <fem/solver/linear_solver.hpp>

#include "pressed_cube.hpp"
#include "support/run_fem.hpp"

namespace fem::test {
namespace {

/// The amg tests: skipped, saying why, where hypre is not built in and not required.
class Amg : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!linear_solver_libraries().hypre.empty()) return;
    const char* required = std::getenv("FEM_TEST_REQUIRE_HYPRE");
    if (required != nullptr && std::string(required) == "1")
      FAIL() << "FEM_TEST_REQUIRE_HYPRE=1, but this fem was built without hypre: install "
                "libhypre-dev (scripts/install-dependencies.sh) and reconfigure";
    GTEST_SKIP() << "this fem was built without hypre: install libhypre-dev "
                    "(scripts/install-dependencies.sh) and reconfigure to run the amg tests";
  }
};

TEST_F(Amg, NeedsFarFewerIterationsThanJacobiForTheSameSolution) {
  for (const auto& [e, divisions] : {std::pair{kHex8, 8}, std::pair{kTet4Anp, 6}}) {
    const CubeSolution amg = solve_pressed_cube(e, divisions, "{preconditioner: amg}");
    const CubeSolution jacobi = solve_pressed_cube(e, divisions, "{preconditioner: jacobi}");
    EXPECT_EQ(amg.preconditioner, "amg (hypre BoomerAMG on the host)");
    // Jacobi needs about 40-50 CG iterations per Newton iteration on these small cubes, amg
    // about 7 (hypre 2.26; the gap widens with the mesh, see IterationsBarelyGrowWithTheMesh).
    EXPECT_GT(jacobi.cg_per_newton, 4.0 * amg.cg_per_newton)
        << e.element << ": amg " << amg.cg_per_newton << ", jacobi " << jacobi.cg_per_newton
        << " CG iterations per Newton iteration";
    EXPECT_LT(relative_difference(amg.u, jacobi.u), 1e-8) << e.element;
  }
}

TEST_F(Amg, IterationsBarelyGrowWithTheMesh) {
  // Jacobi's iterations double with each halving of h (the condition number grows as h^-2); a
  // multigrid's stay nearly constant.
  const CubeSolution coarse = solve_pressed_cube(kHex8, 4, "{preconditioner: amg}");
  const CubeSolution fine = solve_pressed_cube(kHex8, 12, "{preconditioner: amg}");
  EXPECT_LT(fine.cg_per_newton, 1.5 * coarse.cg_per_newton)
      << "4^3: " << coarse.cg_per_newton << ", 12^3: " << fine.cg_per_newton;
}

TEST_F(Amg, RunsWhereHypreRefusesTheRotations) {
  // hypre 2.26 refuses the interpolation vectors for this cube (symmetry planes: nodes with one
  // or two prescribed components); the preconditioner goes on without them and says so.
  const std::string yaml = R"(
mesh: {generator: box, cells: hex8, size: [0.05, 0.05, 0.05], divisions: [4, 4, 4]}
materials: {brain: {type: neo_hookean, density: 1000, youngs_modulus: 3000, poisson_ratio: 0.49}}
blocks: [{element: hex8, material: brain}]
node_sets:
  bottom: {plane: {point: [0, 0, 0], normal: [0, 0, 1]}}
  left: {plane: {point: [0, 0, 0], normal: [1, 0, 0]}}
  front: {plane: {point: [0, 0, 0], normal: [0, 1, 0]}}
  top: {plane: {point: [0, 0, 0.05], normal: [0, 0, 1]}}
amplitudes: {loading: {type: linear, start: 0, end: 1}}
boundary_conditions:
  - {set: bottom, fixed: [z]}
  - {set: left, fixed: [x]}
  - {set: front, fixed: [y]}
  - {set: top, displacement: {z: -0.005}, amplitude: loading}
solver: {type: static, end_time: 1, increments: 2, newton: {residual_tolerance: 1.0e-11},
         linear: )";
  const auto solve = [&](const std::string& linear, std::string& preconditioner) {
    ImplicitRun run =
        prepare_implicit(yaml + linear + "}\n", on_backend({{"precision", "double"}}));
    preconditioner = run_implicit(run).preconditioner;
    return run.solver->displacement();
  };
  std::string amg_name, direct_name;
  const std::vector<double> amg = solve("{preconditioner: amg}", amg_name);
  const std::vector<double> direct = solve("{solver: direct}", direct_name);
  EXPECT_LT(relative_difference(amg, direct), 1e-8);
  EXPECT_NE(amg_name.find("amg (hypre BoomerAMG on the host"), std::string::npos) << amg_name;
}

TEST_F(Amg, TheCycleIsSymmetricPositiveDefinite) {
  // A non-symmetric smoother (forward Gauss-Seidel both ways) or a cycle started from the last
  // solution would fail this.
  expect_symmetric_positive_definite("{preconditioner: amg}");
}

TEST_F(Amg, FemRunExitsCleanlyWithoutMpiMessages) {
  // fem initialises MPI itself (a singleton, no mpirun) and finalises it at exit: the run must
  // end with status 0 and print nothing of MPI's.
  const std::filesystem::path dir = fresh_temp_dir("fem_amg", "run");
  std::filesystem::create_directories(dir);
  const std::string case_file = (dir / "cube.yaml").string();
  std::ofstream(case_file) << pressed_cube("hex8", "hex8", 4, "{preconditioner: amg}")
                           << "backend: " << backend_under_test() << "\n";
  const FemResult r = run_fem("run " + case_file + " --output " + (dir / "out").string());
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("amg (hypre BoomerAMG on the host)"), std::string::npos) << r.output;
  for (const char* noise : {"MPI", "opal_", "ORTE", "PMIx", "btl", "WARNING"})
    EXPECT_EQ(r.output.find(noise), std::string::npos) << noise << " in:\n" << r.output;
  std::filesystem::remove_all(dir);
}

TEST(AmgUnavailable, IsRefusedAtTheCaseKeyWithWhatToDo) {
  if (!linear_solver_libraries().hypre.empty())
    GTEST_SKIP() << "this fem has hypre: the refusal of a build without it cannot be tested here";
  try {
    ImplicitRun run = prepare_implicit(pressed_cube("hex8", "hex8", 2, "{preconditioner: amg}"),
                                       on_backend({{"precision", "double"}}));
    run_implicit(run);
    FAIL() << "amg ran without hypre";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("built without hypre"), std::string::npos) << what;
    EXPECT_NE(what.find("libhypre-dev"), std::string::npos) << what;
    EXPECT_GT(e.where().line, 0) << what;
  }
}

TEST(DirectSolver, UsesCholmodWhereBuiltInAndGivesTheSameSolution) {
  for (const auto& [e, divisions] : {std::pair{kHex8, 6}, std::pair{kTet4Anp, 4}}) {
    const CubeSolution direct = solve_pressed_cube(e, divisions, "{solver: direct}");
    const CubeSolution cg = solve_pressed_cube(e, divisions, "{preconditioner: block_jacobi}");
    EXPECT_LT(relative_difference(direct.u, cg.u), 1e-8) << e.element;
    EXPECT_DOUBLE_EQ(direct.cg_per_newton, 1.0);
  }
  ImplicitRun run = prepare_implicit(pressed_cube("hex8", "hex8", 2, "{solver: direct}"),
                                     on_backend({{"precision", "double"}}));
  const auto direct =
      make_preconditioner(run.model.spec.solver.linear,
                          PreconditionerContext{run.model, *run.backend, run.la(), run.op()});
  const bool cholmod = !linear_solver_libraries().cholmod.empty();
  EXPECT_EQ(direct->name(),
            cholmod ? "direct (CHOLMOD supernodal Cholesky)" : "direct (Eigen sparse LDL^T)");
}

TEST(DirectSolver, FactorsATangentThatIsNotPositiveDefinite) {
  // -K at the free dofs and the identity at the prescribed ones: indefinite. Cholesky fails on
  // it; the direct solver must still solve it exactly (through LDL^T) and say so.
  ImplicitRun run = prepare_implicit(pressed_cube("hex8", "hex8", 3, "{solver: direct}"),
                                     on_backend({{"precision", "double"}}));
  LinearAlgebra& la = run.la();
  NonlinearOperator& op = run.op();
  const auto u = la.vector(op.size());
  ASSERT_TRUE(op.linearize(*u).ok());
  op.set_shift(-1.0, 0.0);
  const auto direct = make_preconditioner(run.model.spec.solver.linear,
                                          PreconditionerContext{run.model, *run.backend, la, op});
  direct->setup(op, *u);
  const auto r = device_vector(la, zero_at_prescribed(op, random_vector(op.size(), 1.0, 3)));
  const auto z = la.vector(op.size()), az = la.vector(op.size());
  direct->apply(*r, *z);
  op.apply(*z, *az);
  EXPECT_LT(relative_difference(host_vector(la, *az), host_vector(la, *r)), 1e-10);
  if (!linear_solver_libraries().cholmod.empty()) {
    EXPECT_EQ(direct->name(),
              "direct (CHOLMOD supernodal Cholesky; Eigen sparse LDL^T for 1 of 1 tangents, not "
              "positive definite)");
  }
}

}  // namespace
}  // namespace fem::test
