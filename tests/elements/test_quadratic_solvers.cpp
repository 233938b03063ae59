// The quadratic solids in every solver: the clamped, pressed cube (neo-Hookean, large strain)
// solved statically (Newton), by dynamic relaxation, and by an explicit run damped to rest,
// reaches one equilibrium; the implicit dynamic solver runs the same model; and the geometric
// multigrid preconditioner of box meshes gives the direct solver's answer.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <tuple>

#include "implicit/pressed_cube.hpp"
#include "support/backend.hpp"
#include "support/case_runner.hpp"
#include "support/implicit_runner.hpp"

namespace fem::test {
namespace {

using ElementCells = std::tuple<std::string, std::string>;

double max_abs(const std::vector<double>& a) {
  double m = 0;
  for (const double v : a) m = std::max(m, std::abs(v));
  return m;
}

double max_abs_difference(const std::vector<double>& a, const std::vector<double>& b) {
  double d = 0;
  for (std::size_t i = 0; i < a.size(); ++i) d = std::max(d, std::abs(a[i] - b[i]));
  return d;
}

class QuadraticSolvers : public ::testing::TestWithParam<ElementCells> {};

TEST_P(QuadraticSolvers, StaticRelaxationAndDampedExplicitReachOneEquilibrium) {
  const auto& [element, cells] = GetParam();
  ImplicitRun implicit = prepare_implicit(
      clamped_cube(element, cells, 2,
                   "{type: static, end_time: 1, increments: 4, newton: {residual_tolerance: "
                   "1.0e-11}, linear: {solver: direct}}"),
      on_backend({{"precision", "double"}}));
  ASSERT_EQ(run_implicit(implicit).increments, 4);
  const std::vector<double>& u = implicit.solver->displacement();
  const double scale = max_abs(u);
  // The top moves 10 mm; the sides bulge.
  EXPECT_NEAR(scale, 0.01, 1e-12);
  double bulge = 0;
  for (std::size_t i = 0; i < u.size(); i += 3) bulge = std::max(bulge, std::abs(u[i]));
  EXPECT_GT(bulge, 5e-4);

  PreparedRun relaxed = prepare(
      clamped_cube(element, cells, 2,
                   "{type: dynamic_relaxation, end_time: 1, tolerance: 1e-10, force_tolerance: "
                   "1e-9, max_iterations: 200000}"),
      on_backend({{"precision", "double"}}));
  const ExplicitRunReport dr = run_in_memory(relaxed);
  ASSERT_TRUE(dr.relaxation.converged);
  const double dr_error = max_abs_difference(u, displacement(relaxed));

  // Ramped over 1 s, then held for 1 s, with mass damping near critical for the lowest mode.
  PreparedRun damped = prepare(clamped_cube(element, cells, 2, "{end_time: 2, mass_damping: 60}"),
                               on_backend({{"precision", "double"}}));
  const ExplicitRunReport ex = run_in_memory(damped);
  const double explicit_error = max_abs_difference(u, displacement(damped));
  std::printf(
      "%s: |u_dr - u_static| = %.2e m (%lld iterations), |u_explicit - u_static| = %.2e m "
      "(%lld steps of %.3g s)\n",
      element.c_str(), dr_error, static_cast<long long>(dr.steps), explicit_error,
      static_cast<long long>(ex.steps), ex.time_step);
  EXPECT_LT(dr_error, 1e-7 * scale);
  EXPECT_LT(explicit_error, 1e-5 * scale);
}

TEST_P(QuadraticSolvers, ImplicitDynamicRunsAndMultigridAgreesWithTheDirectSolver) {
  const auto& [element, cells] = GetParam();
  const auto solve = [&](const std::string& linear) {
    ImplicitRun run = prepare_implicit(pressed_cube(element, cells, 4, linear),
                                       on_backend({{"precision", "double"}}));
    run_implicit(run);
    return std::pair{run.solver->displacement(), run.solver->op().system().num_nodes};
  };
  const auto [direct, nodes] = solve("{solver: direct}");
  const auto [multigrid, same_nodes] = solve("{preconditioner: multigrid}");
  ASSERT_EQ(nodes, same_nodes);
  EXPECT_LT(max_abs_difference(direct, multigrid), 1e-8 * max_abs(direct));

  // Implicit dynamics (Newmark) of the same cube, the top pressed along a linear ramp over 1 s:
  // it runs its steps, the top reaches its prescribed place and the sides bulge.
  ImplicitRun dynamic = prepare_implicit(
      clamped_cube(element, cells, 2, "{type: implicit_dynamic, end_time: 1, time_step: 0.02}"),
      on_backend({{"precision", "double"}}));
  const ImplicitRunReport report = run_implicit(dynamic);
  EXPECT_EQ(report.increments, 50);
  const std::vector<double>& u = dynamic.solver->displacement();
  EXPECT_NEAR(max_abs(u), 0.01, 1e-12);
  double bulge = 0;
  for (std::size_t i = 0; i < u.size(); i += 3) bulge = std::max(bulge, std::abs(u[i]));
  EXPECT_GT(bulge, 5e-4);
}

INSTANTIATE_TEST_SUITE_P(Quadratic, QuadraticSolvers,
                         ::testing::Values(ElementCells{"hex20", "hex20"},
                                           ElementCells{"hex20r", "hex20"},
                                           ElementCells{"tet10", "tet10"}),
                         [](const auto& i) { return std::get<0>(i.param); });

}  // namespace
}  // namespace fem::test
