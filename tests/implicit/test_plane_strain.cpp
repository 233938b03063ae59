// Plane strain in the static, implicit dynamic and dynamic-relaxation solvers: a quad4 model per
// unit thickness is the one-layer hex8 solid of unit thickness with every z held (hex8's 2x2x2
// points over a z-independent field integrate what quad4's 2x2 do), so both must give the same
// displacements, to the solvers' tolerances, under node loads and under a follower pressure.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <sstream>
#include <string>
#include <vector>

#include "support/backend.hpp"
#include "support/case_runner.hpp"
#include "support/implicit_runner.hpp"

namespace fem::test {
namespace {

/// The model in its two forms: `plane` a rectangle of quad4 cells, else a box of hex8 one cell
/// deep (z from 0 to 1) with z held at every node. `top_force` pushes the set `top` along x, per
/// node of the plane model (a solid's two layers of nodes share it); `loads` are other loads.
struct Model2d {
  double width = 1, height = 3;
  int nx = 2, ny = 6;
  double top_force = 0;
  std::string sets, conditions, loads, solver;

  [[nodiscard]] std::string yaml(bool plane) const {
    std::ostringstream y;
    if (plane)
      y << "mesh: {generator: rectangle, cells: quad4, size: [" << width << ", " << height
        << "], divisions: [" << nx << ", " << ny << "]}\n";
    else
      y << "mesh: {generator: box, cells: hex8, size: [" << width << ", " << height
        << ", 1], divisions: [" << nx << ", " << ny << ", 1]}\n";
    y << "materials: {rubber: {type: neo_hookean, density: 1000, shear_modulus: 1.0e7, "
         "bulk_modulus: 5.0e8}}\n"
      << "blocks: [{element: " << (plane ? "quad4" : "hex8") << ", material: rubber}]\n"
      << "amplitudes: {ramp: {type: linear, start: 0, end: 1}}\n"
      << "node_sets:\n"
      << sets << "  everything: {box: {min: [-1, -1, -1], max: [" << width + 1 << ", " << height + 1
      << ", 2]}}\n"
      << "boundary_conditions:\n"
      << conditions << (plane ? "" : "  - {set: everything, fixed: [z]}\n") << "loads:\n"
      << loads;
    if (top_force != 0)
      y << "  - {set: top, force: [" << (plane ? top_force : 0.5 * top_force)
        << ", 0, 0], amplitude: ramp}\n";
    y << "solver: " << solver << "\n";
    return y.str();
  }
};

struct Solution {
  Mesh mesh;
  std::vector<double> u;
  std::int64_t newton_iterations = 0;
};

Solution solve(const std::string& yaml, bool implicit) {
  Solution s;
  if (implicit) {
    ImplicitRun run = prepare_implicit(yaml, on_backend({{"precision", "double"}}));
    ImplicitRunOptions options;
    options.write_files = false;
    options.increment_done = [&](std::int64_t, double, const std::vector<double>& u) { s.u = u; };
    s.newton_iterations = run.solver->run(options).newton_iterations;
    s.mesh = run.model.mesh;
  } else {
    PreparedRun run = prepare(yaml, on_backend({{"precision", "double"}}));
    run_in_memory(run);
    s.u = displacement(run);
    s.mesh = run.model.mesh;
  }
  return s;
}

/// The largest difference of in-plane displacements between the plane solution and both layers
/// of the solid's, relative to the largest plane displacement; the plane z must be exactly 0.
double plane_against_solid(const Model2d& m, bool implicit, Solution* plane_out = nullptr,
                           Solution* solid_out = nullptr) {
  const Solution plane = solve(m.yaml(true), implicit), solid = solve(m.yaml(false), implicit);
  EXPECT_EQ(plane.u.size(), 3 * static_cast<std::size_t>(plane.mesh.num_nodes()));
  double scale = 0.0, worst = 0.0;
  for (std::int64_t n = 0; n < plane.mesh.num_nodes(); ++n) {
    EXPECT_EQ(plane.u[3 * n + 2], 0.0) << "node " << n;
    scale = std::max({scale, std::abs(plane.u[3 * n]), std::abs(plane.u[3 * n + 1])});
  }
  int matched = 0;
  for (std::int64_t p = 0; p < plane.mesh.num_nodes(); ++p)
    for (std::int64_t s = 0; s < solid.mesh.num_nodes(); ++s) {
      const auto a = plane.mesh.node(p), b = solid.mesh.node(s);
      if (std::abs(a[0] - b[0]) > 1e-9 || std::abs(a[1] - b[1]) > 1e-9) continue;
      ++matched;
      for (int k = 0; k < 2; ++k)
        worst = std::max(worst, std::abs(plane.u[3 * p + k] - solid.u[3 * s + k]));
    }
  EXPECT_EQ(matched, 2 * plane.mesh.num_nodes());
  EXPECT_GT(scale, 1e-3);
  if (plane_out) *plane_out = plane;
  if (solid_out) *solid_out = solid;
  return worst / scale;
}

void record_difference(double d) {
  std::ostringstream text;
  text << std::scientific << std::setprecision(3) << d;
  ::testing::Test::RecordProperty("relative_difference", text.str());
}

/// A column 1 x 3 fixed at its foot and pushed sideways at its top.
Model2d pushed_column(const std::string& solver) {
  Model2d m;
  m.sets =
      "  foot: {plane: {point: [0, 0, 0], normal: [0, 1, 0]}}\n"
      "  top: {plane: {point: [0, 3, 0], normal: [0, 1, 0]}}\n";
  m.conditions = "  - {set: foot, fixed: [x, y]}\n";
  m.top_force = 20000;
  m.solver = solver;
  return m;
}

TEST(PlaneStrain, StaticAndImplicitDynamicSolutionsAreTheOneLayerSolidsWithZHeld) {
  for (const std::string solver :
       {"{type: static, end_time: 1, increments: {initial: 0.25, maximum: 0.25}, newton: "
        "{residual_tolerance: 1e-10}, linear: {solver: direct}}",
        "{type: implicit_dynamic, end_time: 0.1, time_step: 0.01, newton: {residual_tolerance: "
        "1e-9}, linear: {solver: direct}}"}) {
    SCOPED_TRACE(solver);
    const double d = plane_against_solid(pushed_column(solver), true);
    record_difference(d);
    EXPECT_LT(d, 1e-8);
  }
}

TEST(PlaneStrain, DynamicRelaxationSolutionIsTheOneLayerSolidsWithZHeld) {
  Solution plane;
  const double d = plane_against_solid(
      pushed_column("{type: dynamic_relaxation, end_time: 1, tolerance: 1.0e-9}"), false, &plane);
  record_difference(d);
  EXPECT_LT(d, 1e-6);
  // Relaxed to the static solution: the top moved right, by the column's bending.
  const Solution statics = solve(
      pushed_column("{type: static, end_time: 1, linear: {solver: direct}}").yaml(true), true);
  double worst = 0.0, scale = 0.0;
  for (std::size_t i = 0; i < plane.u.size(); ++i) {
    worst = std::max(worst, std::abs(plane.u[i] - statics.u[i]));
    scale = std::max(scale, std::abs(statics.u[i]));
  }
  EXPECT_LT(worst, 1e-4 * scale);
}

// A strip clamped at both ends under a follower pressure on its top edge: the loaded line's end
// nodes are held, so the plane model's load stiffness is symmetric and Newton takes it (fewer
// iterations than the solid's, whose loaded face has free rim nodes along its z edges).
TEST(PlaneStrain, FollowerPressureOnAnEdgeAsOnTheSolidsFace) {
  Model2d m;
  m.width = 4;
  m.height = 0.5;
  m.nx = 8;
  m.ny = 2;
  m.sets =
      "  left: {plane: {point: [0, 0, 0], normal: [1, 0, 0]}}\n"
      "  right: {plane: {point: [4, 0, 0], normal: [1, 0, 0]}}\n"
      "  top: {plane: {point: [0, 0.5, 0], normal: [0, 1, 0]}}\n";
  m.conditions = "  - {set: left, fixed: [x, y]}\n  - {set: right, fixed: [x, y]}\n";
  m.loads = "  - {set: top, pressure: 1.0e6, amplitude: ramp}\n";
  m.solver =
      "{type: static, end_time: 1, increments: {initial: 0.25, maximum: 0.25}, newton: "
      "{residual_tolerance: 1e-10}, linear: {solver: direct}}";
  Solution plane, solid;
  const double d = plane_against_solid(m, true, &plane, &solid);
  record_difference(d);
  EXPECT_LT(d, 1e-7);
  double sag = 0.0;
  for (std::int64_t n = 0; n < plane.mesh.num_nodes(); ++n) sag = std::min(sag, plane.u[3 * n + 1]);
  EXPECT_LT(sag, -0.1);  // pushed down, by more than a fifth of its depth
  EXPECT_LT(plane.newton_iterations, solid.newton_iterations);
}

}  // namespace
}  // namespace fem::test
