// Static analysis: the same equilibrium as dynamic relaxation, a cantilever that converges to
// the beam solution, Newton's quadratic convergence, automatic increments with cutbacks, and
// clear errors for a singular or non-convergent solve.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <tuple>

#include <fem/output/vtk_series.hpp>

#include "pressed_cube.hpp"
#include "support/backend.hpp"
#include "support/case_runner.hpp"
#include "support/implicit_runner.hpp"
#include "support/run_fem.hpp"

namespace fem::test {
namespace {

double max_abs_difference(const std::vector<double>& a, const std::vector<double>& b) {
  double d = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i) d = std::max(d, std::abs(a[i] - b[i]));
  return d;
}

TEST(Static, EqualsDynamicRelaxationWithinItsTolerance) {
  for (const auto& [element, cells] : {std::pair<std::string, std::string>{"hex8r", "hex8"},
                                       std::pair<std::string, std::string>{"tet4_anp", "tet4"}}) {
    ImplicitRun implicit = prepare_implicit(
        clamped_cube(element, cells, 4, "{type: static, end_time: 1, increments: 4}"),
        on_backend({{"precision", "double"}}));
    const ImplicitRunReport r = run_implicit(implicit);
    ASSERT_EQ(r.increments, 4);
    // Dynamic relaxation to 1e-10 m (its own error estimate) on the same model.
    const double tolerance = 1e-10;
    PreparedRun relaxed =
        prepare(clamped_cube(element, cells, 4,
                             "{type: dynamic_relaxation, end_time: 1, tolerance: 1e-10, "
                             "force_tolerance: 1e-9, safety_factor: 0.6, max_iterations: 200000}"),
                on_backend({{"precision", "double"}}));
    const ExplicitRunReport d = run_in_memory(relaxed);
    ASSERT_TRUE(d.relaxation.converged);
    const std::vector<double> u_dr = displacement(relaxed);
    const std::vector<double>& u = implicit.solver->displacement();
    // The sides bulge by about a millimetre; both solutions agree to the DR tolerance.
    double bulge = 0.0;
    for (std::size_t i = 0; i < u.size(); i += 3) bulge = std::max(bulge, std::abs(u[i]));
    EXPECT_GT(bulge, 5e-4) << element;
    EXPECT_LT(max_abs_difference(u, u_dr), 20 * tolerance) << element;
  }
}

/// Tip deflection of a cantilever (L = 10, square section h = 1, E = 1000, nu = 0.3, small strain)
/// under an end load, meshed n x n/10... along the length.
double cantilever_tip(const std::string& element, const std::string& cells, int along, int across,
                      double load) {
  const std::string yaml = R"(
mesh: {generator: box, cells: )" +
                           cells + ", size: [10, 1, 1], divisions: [" + std::to_string(along) +
                           ", " + std::to_string(across) + ", " + std::to_string(across) + R"(]}
materials: {steel: {type: linear_elastic, youngs_modulus: 1000, poisson_ratio: 0.3}}
blocks: [{element: )" + element +
                           R"(, material: steel}]
node_sets:
  root: {plane: {point: [0, 0, 0], normal: [1, 0, 0]}}
  tip: {plane: {point: [10, 0, 0], normal: [1, 0, 0]}}
boundary_conditions: [{set: root, fixed: [x, y, z]}]
loads: [{set: tip, force: [0, 0, )" +
                           std::to_string(load) +
                           R"(]}]
solver: {type: static, end_time: 1, increments: 1, linear: {solver: direct}}
)";
  ImplicitRun run = prepare_implicit(yaml, on_backend({{"precision", "double"}}));
  run_implicit(run);
  const std::vector<double>& u = run.solver->displacement();
  const auto& tip = run.model.mesh.node_sets.at("tip");
  double w = 0.0;
  for (const std::int32_t n : tip) w += u[3 * static_cast<std::size_t>(n) + 2];
  return w / static_cast<double>(tip.size());
}

TEST(Static, CantileverConvergesToTheBeamSolution) {
  // Timoshenko: P L^3 / (3 E I) + P L / (kappa G A), kappa = 5/6; the load per tip node times
  // the number of tip nodes is the total load.
  const double E = 1000.0, nu = 0.3, L = 10.0, I = 1.0 / 12.0, A = 1.0, G = E / (2 * (1 + nu));
  std::vector<double> errors;
  for (const int across : {1, 2, 4}) {
    const int tip_nodes = (across + 1) * (across + 1);
    const double P = 1e-3;  // total load: small strain, linear
    const double exact = P * L * L * L / (3 * E * I) + P * L / (5.0 / 6.0 * G * A);
    const double w = cantilever_tip("hex8", "hex8", 10 * across, across, P / tip_nodes);
    errors.push_back(std::abs(w - exact) / exact);
  }
  // Fully integrated trilinear hexahedra lock in bending on coarse meshes and converge as they
  // are refined.
  EXPECT_LT(errors[1], errors[0]);
  EXPECT_LT(errors[2], errors[1]);
  EXPECT_LT(errors[2], 0.05) << "finest relative error " << errors[2];
}

TEST(Static, TheDirectSolverAsksTheBlasForOneThreadUnlessTheUserChoseACount) {
  // CHOLMOD's supernodes through a BLIS that forks threads for each block took 4-6x longer
  // (blas_threads.hpp); BLIS reads BLIS_NUM_THREADS at its first call.
  for (const char* chosen :
       {"BLIS_NUM_THREADS", "OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS", "MKL_NUM_THREADS"})
    if (std::getenv(chosen) != nullptr && std::string(std::getenv(chosen)) != "1")
      GTEST_SKIP() << chosen << " is set: the user's choice, which the solver leaves alone";
  cantilever_tip("hex8", "hex8", 4, 1, 1e-3);
  ASSERT_NE(std::getenv("BLIS_NUM_THREADS"), nullptr);
  EXPECT_STREQ(std::getenv("BLIS_NUM_THREADS"), "1");
}

TEST(Static, NewtonConvergesQuadraticallyNearTheSolution) {
  // Exact linear solves (the direct solver), one increment of 10 % compression.
  ImplicitRun run = prepare_implicit(
      clamped_cube("hex8", "hex8", 4, R"({type: static, end_time: 1, increments: 1,
          newton: {residual_tolerance: 1e-13, energy_tolerance: 0, line_search: false},
          linear: {solver: direct}})"),
      on_backend({{"precision", "double"}, {"boundary_conditions.2.displacement.z", "-0.005"}}));
  std::vector<double> residuals;
  ImplicitRunOptions options;
  options.write_files = false;
  options.iteration = [&](std::int64_t, double, const NewtonIterationRecord& r) {
    residuals.push_back(r.relative_residual);
  };
  run.solver->run(options);
  ASSERT_GE(residuals.size(), 3u);
  // The order p of e_{k+1} ~ e_k^p over the iterations above round-off.
  int checked = 0;
  for (std::size_t k = 1; k + 1 < residuals.size(); ++k) {
    if (residuals[k + 1] < 1e-13 || residuals[k] > 1e-1) continue;
    const double p =
        std::log(residuals[k + 1] / residuals[k]) / std::log(residuals[k] / residuals[k - 1]);
    EXPECT_GT(p, 1.8) << "iteration " << k + 1 << ": " << residuals[k - 1] << " -> " << residuals[k]
                      << " -> " << residuals[k + 1];
    ++checked;
  }
  EXPECT_GE(checked, 1);
}

// Modified Newton: the same equilibrium as full Newton (both to the same tight tolerance) with
// fewer tangents than iterations, each kept tangent still halving the residual; and in implicit
// dynamics, where the mass term keeps the tangent good for the whole step.
TEST(Static, ModifiedNewtonReachesTheSameEquilibriumWithFewerTangents) {
  const auto solve = [](const std::string& method, const std::string& solver) {
    ImplicitRun run = prepare_implicit(
        clamped_cube("hex8", "hex8", 4,
                     "{type: " + solver + ", newton: {method: " + method +
                         ", residual_tolerance: 1e-11, max_iterations: 40}, linear: {solver: "
                         "direct}}"),
        on_backend({{"precision", "double"}}));
    std::vector<double> u;
    std::vector<NewtonIterationRecord> records;
    ImplicitRunOptions options;
    options.write_files = false;
    options.increment_done = [&](std::int64_t, double, const std::vector<double>& now) { u = now; };
    options.iteration = [&](std::int64_t, double, const NewtonIterationRecord& r) {
      records.push_back(r);
    };
    const ImplicitRunReport report = run.solver->run(options);
    return std::make_tuple(u, report, records);
  };
  for (const std::string solver :
       {"static, end_time: 1, increments: 2", "implicit_dynamic, end_time: 0.4, time_step: 0.05"}) {
    SCOPED_TRACE(solver);
    const auto [u_full, full, full_records] = solve("full", solver);
    const auto [u_mod, mod, mod_records] = solve("modified", solver);
    ASSERT_EQ(full.increments, mod.increments);
    EXPECT_EQ(full.tangents, full.newton_iterations);
    EXPECT_LT(mod.tangents, mod.newton_iterations);
    EXPECT_GE(mod.tangents, mod.increments);
    double scale = 0.0;
    for (const double x : u_full) scale = std::max(scale, std::abs(x));
    EXPECT_GT(scale, 1e-4);
    EXPECT_LT(max_abs_difference(u_mod, u_full), 1e-8 * scale);
    // A tangent is kept only while it works: an iteration that did not halve the residual is
    // followed by a new tangent, and every increment starts with one.
    for (std::size_t k = 0; k < mod_records.size(); ++k) {
      const NewtonIterationRecord& r = mod_records[k];
      if (r.iteration == 1) {
        EXPECT_TRUE(r.new_tangent);
      } else if (!r.new_tangent) {
        const double before =
            k >= 2 && mod_records[k - 1].iteration > 1 ? mod_records[k - 2].residual : 0.0;
        if (before > 0.0) {
          EXPECT_LE(mod_records[k - 1].residual, 0.5 * before)
              << "iteration " << r.iteration << " kept a tangent after a slow iteration";
        }
      }
    }
  }
}

TEST(Static, AutomaticIncrementsCutBackAndGrow) {
  // 40 % compression asked in one increment with few Newton iterations allowed: the controller
  // must cut back, then grow again.
  ImplicitRun run = prepare_implicit(
      clamped_cube("hex8r", "hex8", 3, R"({type: static, end_time: 1,
          increments: {initial: 1, minimum: 0.001, growth: 2},
          newton: {max_iterations: 6}})"),
      on_backend({{"precision", "double"}, {"boundary_conditions.2.displacement.z", "-0.02"}}));
  const ImplicitRunReport r = run_implicit(run);
  EXPECT_GE(r.cutbacks, 1);
  EXPECT_NEAR(r.time_reached, 1.0, 1e-12);
  EXPECT_LT(r.smallest_increment, 1.0);
  EXPECT_GT(r.largest_increment, r.smallest_increment);
  const std::vector<double>& u = run.solver->displacement();
  double top = 0.0;
  for (std::size_t i = 2; i < u.size(); i += 3) top = std::min(top, u[i]);
  EXPECT_NEAR(top, -0.02, 1e-12);
}

// solver.steps: the increments end exactly at each step's end, each step with its own
// increments (a count, or automatic as fractions of the step), and the equilibrium reached is the
// one-step run's (the load ramps over the first time unit and holds after).
TEST(Static, StepsEndWhereGivenEachWithItsOwnIncrements) {
  ImplicitRun stepped = prepare_implicit(
      clamped_cube("hex8r", "hex8", 3, R"({type: static, newton: {residual_tolerance: 1e-10},
          steps: [{end_time: 0.5, increments: 2},
                  {end_time: 1.5, increments: {initial: 0.25, maximum: 0.25}},
                  {end_time: 2, increments: 1}]})"),
      on_backend({{"precision", "double"}}));
  const ImplicitRunReport r = run_implicit(stepped);
  std::vector<double> ends;
  for (const auto& i : r.history) ends.push_back(i.time);
  const std::vector<double> expected = {0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 2.0};
  ASSERT_EQ(ends.size(), expected.size());
  for (std::size_t i = 0; i < ends.size(); ++i) EXPECT_NEAR(ends[i], expected[i], 1e-12) << i;
  ImplicitRun single = prepare_implicit(
      clamped_cube("hex8r", "hex8", 3,
                   "{type: static, end_time: 1, increments: 4, newton: {residual_tolerance: "
                   "1e-10}}"),
      on_backend({{"precision", "double"}}));
  (void)run_implicit(single);
  EXPECT_LT(max_abs_difference(stepped.solver->displacement(), single.solver->displacement()),
            1e-9 * 0.01);
}

TEST(Static, UnsupportedBodyIsRefusedNamingTheFreeMotions) {
  // Only the bottom held along z: x, y translations and the rotation about z are free.
  const std::string yaml = R"(
mesh: {generator: box, cells: hex8, size: [1, 1, 1], divisions: [2, 2, 2]}
materials: {m: {type: neo_hookean, youngs_modulus: 1000, poisson_ratio: 0.3}}
blocks: [{element: hex8r, material: m}]
node_sets: {bottom: {plane: {point: [0, 0, 0], normal: [0, 0, 1]}}}
boundary_conditions: [{set: bottom, fixed: [z]}]
solver: {type: static}
)";
  try {
    prepare_implicit(yaml, on_backend());
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("do not prevent 3 rigid-body motion(s)"), std::string::npos) << m;
    EXPECT_NE(m.find("translation along x"), std::string::npos) << m;
    EXPECT_NE(m.find("rotation about z"), std::string::npos) << m;
    EXPECT_NE(m.find("<test>:7:"), std::string::npos) << m;  // at the solver key
  }
}

TEST(Static, AFailedRunEndsWithTheLastConvergedStateAsItsFinalFrame) {
  // Frames every 4 increments; the run fails in the 4th (the cube pressed to 5 % of its height
  // loses positive definiteness at 80 %): the last converged state, increment 3 at t = 0.6,
  // must still be the last frame, as the message says.
  if (!vtk_output_available()) GTEST_SKIP() << "built without VTK: no frames are written";
  const std::filesystem::path dir = fresh_temp_dir("fem_static", "last_frame");
  std::filesystem::create_directories(dir);
  const std::string case_file = (dir / "press.yaml").string();
  std::ofstream(case_file) << R"(
mesh: {generator: box, cells: hex8, size: [1, 1, 1], divisions: [3, 3, 3]}
materials: {m: {type: neo_hookean, youngs_modulus: 1000, poisson_ratio: 0.3}}
blocks: [{element: hex8r, material: m}]
node_sets:
  bottom: {plane: {point: [0, 0, 0], normal: [0, 0, 1]}}
  top: {plane: {point: [0, 0, 1], normal: [0, 0, 1]}}
amplitudes: {ramp: {type: linear, start: 0, end: 1}}
boundary_conditions:
  - {set: bottom, fixed: [x, y, z]}
  - {set: top, fixed: [x, y]}
  - {set: top, displacement: {z: -0.95}, amplitude: ramp}
solver: {type: static, end_time: 1,
         increments: {initial: 0.2, maximum: 0.2, minimum: 0.1, growth: 1.0}}
output: {every_steps: 4}
backend: )" << backend_under_test()
                           << "\n";
  const FemResult r = run_fem("run " + case_file + " -q --output " + (dir / "out").string());
  EXPECT_EQ(r.code, 3) << r.output;
  EXPECT_NE(r.output.find("the last converged state (t = 0.6)"), std::string::npos) << r.output;
  std::ifstream pvd(dir / "out" / "press.pvd");
  std::stringstream text;
  text << pvd.rdbuf();
  const std::string frames = text.str();
  const std::size_t last = frames.rfind("timestep=\"");
  ASSERT_NE(last, std::string::npos) << frames;
  EXPECT_NEAR(std::stod(frames.substr(last + 10)), 0.6, 1e-9) << frames;
  std::filesystem::remove_all(dir);
}

/// The message of the SolveError the run ends with (a failure where it ends without one).
std::string solve_error(ImplicitRun& run) {
  try {
    run_implicit(run);
  } catch (const SolveError& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected a SolveError";
  return "";
}

TEST(Static, NonConvergentIncrementFailsWithTheReasonAfterCutbacks) {
  ImplicitRun run = prepare_implicit(clamped_cube("hex8r", "hex8", 3, R"({type: static, end_time: 1,
          increments: {initial: 1, minimum: 0.5},
          newton: {max_iterations: 1, residual_tolerance: 1e-12}})"),
                                     on_backend({{"precision", "double"}}));
  const std::string m = solve_error(run);
  EXPECT_NE(m.find("Newton did not converge in 1 iterations"), std::string::npos) << m;
  EXPECT_NE(m.find("cannot be cut below"), std::string::npos) << m;
  EXPECT_NE(m.find("hint:"), std::string::npos) << m;
}

TEST(Static, AFailedIncrementUnderLoadsWithoutAmplitudesStopsAtOnceAndSaysToRampThem) {
  // Gravity without an amplitude acts in full at every time: a smaller increment poses the same
  // problem, so the run stops at the first failure instead of cutting back to the minimum.
  ImplicitRun run = prepare_implicit(R"(
mesh: {generator: box, cells: hex8, size: [0.05, 0.05, 0.05], divisions: [3, 3, 3]}
materials: {brain: {type: neo_hookean, density: 1000, youngs_modulus: 3000, poisson_ratio: 0.49}}
blocks: [{element: hex8, material: brain}]
node_sets:
  bottom: {plane: {point: [0, 0, 0], normal: [0, 0, 1]}}
boundary_conditions:
  - {set: bottom, fixed: all}
gravity: {acceleration: [0, 0, -9.81]}
solver: {type: static, end_time: 1, increments: {initial: 0.25, minimum: 1.0e-3},
         newton: {max_iterations: 1, residual_tolerance: 1e-12}}
)",
                                     on_backend({{"precision", "double"}}));
  const std::string m = solve_error(run);
  EXPECT_NE(m.find("increment 1 (t = 0 to 0.25): Newton did not converge"), std::string::npos) << m;
  EXPECT_NE(m.find("smaller increments cannot help"), std::string::npos) << m;
  EXPECT_NE(m.find("hint: ramp the loads in with an amplitude"), std::string::npos) << m;
  EXPECT_EQ(m.find("cannot be cut below"), std::string::npos) << m;
}

}  // namespace
}  // namespace fem::test
