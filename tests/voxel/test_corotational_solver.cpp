// The co-rotational solver (seed 004) end to end on the openmp backend: agreement with the
// implicit static solver at small loads, a voxel cantilever against beam theory, single against
// double precision, interactive fixations, and the refusals.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fem/kernels/voxel_kernels.hpp>
#include <fem/output/vtk_series.hpp>
#include <fem/solver/implicit_solver.hpp>

#include "support/implicit_runner.hpp"
#include "voxel_cases.hpp"

namespace fem::test {
namespace {

/// A bar of n x 2 x 2 (times `refine`) voxels along x, clamped at x = 0, a load `force` (N,
/// -z) spread over its far end.
VoxelCase bar(int n, int refine, double force, const std::string& solver) {
  VoxelCase c;
  c.n = {n * refine, 2 * refine, 2 * refine};
  c.edge = 0.005 / refine;
  c.young = 1.0e6;
  c.poisson = 0.3;
  c.density = 1000.0;
  c.solver = solver;
  const double length = n * 0.005;
  const int end_nodes = (2 * refine + 1) * (2 * refine + 1);
  c.extra = fmt::format(R"(
node_sets:
  root: {{plane: {{point: [0, 0, 0], normal: [1, 0, 0]}}}}
  tip: {{plane: {{point: [{}, 0, 0], normal: [1, 0, 0]}}}}
boundary_conditions:
  - {{set: root, fixed: all}}
loads:
  - {{set: tip, force: [0, 0, {}]}}
)",
                        length, -force / end_nodes);
  return c;
}

/// The mean z displacement of the bar's tip after one (quasi-static) step.
double tip_deflection(VoxelRun& run) {
  CorotationalSimulation sim(run.model, *run.backend);
  sim.step();
  std::vector<double> u;
  const std::vector<std::int32_t>& tip = run.model.mesh.node_sets.at("tip");
  sim.displacements(tip, u);
  double sum = 0.0;
  for (std::size_t i = 0; i < tip.size(); ++i) sum += u[3 * i + 2];
  return sum / static_cast<double>(tip.size());
}

// One step of 1000 s has no inertia to speak of (4 m / dt^2 is 1e-12 of the stiffness): enough
// V-cycles solve the static problem.
const char* kQuasiStatic =
    "{type: corotational, end_time: 1000, time_step: 1000, multigrid: {cycles: 40, "
    "coarsest_tolerance: 1.0e-12}}";

/// The sum of the reaction forces over some nodes.
std::array<double, 3> total_reaction(const CorotationalSimulation& sim,
                                     const std::vector<std::int32_t>& nodes) {
  std::vector<double> f;
  sim.reaction_forces(nodes, f);
  std::array<double, 3> sum{};
  for (std::size_t i = 0; i < f.size(); ++i) sum[i % 3] += f[i];
  return sum;
}

/// The largest reaction component over the nodes outside `supported` (which must be zero: the
/// equations of motion there are what the solve satisfies).
double largest_free_reaction(const CorotationalSimulation& sim, const Mesh& mesh,
                             const std::vector<std::int32_t>& supported) {
  std::vector<std::int32_t> free;
  for (std::int32_t n = 0; n < static_cast<std::int32_t>(mesh.num_nodes()); ++n)
    if (std::find(supported.begin(), supported.end(), n) == supported.end()) free.push_back(n);
  std::vector<double> f;
  sim.reaction_forces(free, f);
  double largest = 0.0;
  for (const double x : f) largest = std::max(largest, std::abs(x));
  return largest;
}

// Reactions: in a quasi-static step the clamped root of the bar holds the tip load and the
// bar's weight; in dynamic steps, where inertia and damping enter, the equations of motion the
// reactions come from are zero at every free node (to the solve's tolerance) and the supports
// take what is left.
TEST(CorotationalSolver, ReactionsBalanceTheLoadsTheWeightAndTheInertia) {
  const double load = 1.0e-3, g = 9.81;
  VoxelCase c = bar(8, 1, load, kQuasiStatic);
  c.extra += "gravity: {acceleration: [0, 0, -9.81]}\n";
  const double weight = c.density * (8 * 0.005) * (2 * 0.005) * (2 * 0.005) * g;
  {
    VoxelRun run = voxel_model(c.yaml());
    CorotationalSimulation sim(run.model, *run.backend);
    sim.step();
    const std::vector<std::int32_t>& root = run.model.mesh.node_sets.at("root");
    const std::array<double, 3> r = total_reaction(sim, root);
    EXPECT_NEAR(r[0], 0.0, 1e-9 * (load + weight));
    EXPECT_NEAR(r[1], 0.0, 1e-9 * (load + weight));
    EXPECT_NEAR(r[2], load + weight, 1e-7 * (load + weight));
    EXPECT_LT(largest_free_reaction(sim, run.model.mesh, root), 1e-9 * (load + weight));
    // The loaded tip is free: its reaction is zero, not its load.
    const std::array<double, 3> tip = total_reaction(sim, run.model.mesh.node_sets.at("tip"));
    EXPECT_LT(std::abs(tip[2]), 1e-9 * load);
  }
  // Steps of 5 ms (the bar's first period is about 30 ms) with mass damping: the bar swings.
  c.solver =
      "{type: corotational, end_time: 1, time_step: 0.005, mass_damping: 20, multigrid: "
      "{cycles: 30, coarsest_tolerance: 1.0e-12}}";
  VoxelRun run = voxel_model(c.yaml());
  CorotationalSimulation sim(run.model, *run.backend);
  const std::vector<std::int32_t>& root = run.model.mesh.node_sets.at("root");
  double smallest = 1e300, largest = 0.0;
  for (int s = 0; s < 6; ++s) {
    sim.step();
    const double rz = total_reaction(sim, root)[2];
    smallest = std::min(smallest, rz);
    largest = std::max(largest, rz);
    EXPECT_LT(largest_free_reaction(sim, run.model.mesh, root), 1e-9 * (load + weight))
        << "step " << s + 1;
  }
  RecordProperty("root_reaction_z_smallest", std::to_string(smallest / (load + weight)));
  RecordProperty("root_reaction_z_largest", std::to_string(largest / (load + weight)));
  // Load and weight come suddenly: the bar first accelerates down and the root holds less than
  // their sum, then it overshoots the static deflection and the root holds more (measured 0.48
  // and 1.52 of the sum: the inertia is in the reaction).
  EXPECT_LT(smallest, 0.6 * (load + weight));
  EXPECT_GT(largest, 1.3 * (load + weight));
}

// Element results: every node of a voxel box held at the displacement of a uniaxial stress
// sigma_xx = E e (lateral contraction nu e), rotated rigidly by 30 degrees about z as well: each
// voxel's stress is that stress rotated, its co-rotated strain the unrotated one, its energy
// sigma_xx e / 2 of its volume, to round-off (trilinear voxels reproduce linear fields).
TEST(CorotationalSolver, ElementResultsOfAStretchedAndRotatedBoxAreExact) {
  VoxelCase c;
  c.n = {4, 3, 2};
  c.solver = "{type: corotational, end_time: 1, time_step: 0.1}";
  VoxelRun run = voxel_model(c.yaml());
  CorotationalSimulation sim(run.model, *run.backend);
  const double e = 1.0e-3, angle = 0.5235987755982988;
  const double co = std::cos(angle), si = std::sin(angle);
  const double stretch[3] = {1 + e, 1 - c.poisson * e, 1 - c.poisson * e};
  for (std::int32_t n = 0; n < static_cast<std::int32_t>(run.model.mesh.num_nodes()); ++n) {
    const std::array<double, 3> x = run.model.mesh.node(n);
    const double s[3] = {stretch[0] * x[0], stretch[1] * x[1], stretch[2] * x[2]};
    sim.fix(n, {co * s[0] - si * s[1] - x[0], si * s[0] + co * s[1] - x[1], s[2] - x[2]});
  }
  sim.step();
  const std::vector<BlockResults> results = sim.element_results();
  ASSERT_EQ(results.size(), 1u);
  const BlockResults& r = results.front();
  ASSERT_EQ(r.strain_energy.size(), 24u);
  const double sigma = c.young * e;
  // R diag(sigma, 0, 0) R^T.
  const double expected_stress[6] = {co * co * sigma, si * si * sigma, 0, co * si * sigma, 0, 0};
  const double expected_strain[6] = {e, -c.poisson * e, -c.poisson * e, 0, 0, 0};
  const double volume = c.edge * c.edge * c.edge;
  for (std::size_t v = 0; v < 24; ++v) {
    for (int k = 0; k < 6; ++k) {
      EXPECT_NEAR(r.cauchy_stress[6 * v + k], expected_stress[k], 1e-8 * sigma) << v << " " << k;
      EXPECT_NEAR(r.green_lagrange[6 * v + k], expected_strain[k], 1e-8 * e) << v << " " << k;
    }
    EXPECT_NEAR(r.strain_energy[v], 0.5 * sigma * e * volume, 1e-7 * sigma * e * volume) << v;
    EXPECT_NEAR(r.min_jacobian[v], stretch[0] * stretch[1] * stretch[2], 1e-12) << v;
  }
}

TEST(CorotationalSolver, SmallLoadsGiveTheLinearStaticAnswer) {
  const VoxelCase c = bar(8, 1, 1.0e-4, kQuasiStatic);
  VoxelRun run = voxel_model(c.yaml());
  const double corotated = tip_deflection(run);
  // The implicit static solver on the same voxels and material (hex8, full integration).
  VoxelCase s = c;
  s.solver = "{type: static, end_time: 1, increments: 1, newton: {residual_tolerance: 1.0e-10}}";
  ImplicitRun implicit = prepare_implicit(s.yaml());
  run_implicit(implicit);
  const std::vector<double>& u = implicit.solver->displacement();
  double sum = 0.0;
  const std::vector<std::int32_t>& tip = implicit.model.mesh.node_sets.at("tip");
  for (const std::int32_t n : tip) sum += u[3 * static_cast<std::size_t>(n) + 2];
  const double reference = sum / static_cast<double>(tip.size());
  ASSERT_LT(reference, 0.0);
  EXPECT_NEAR(corotated, reference, 1e-6 * std::abs(reference));
}

TEST(CorotationalSolver, AVoxelCantileverConvergesToTheBeamDeflection) {
  // Euler-Bernoulli plus shear (Timoshenko, k = 5/6) for a 40 x 10 x 10 mm bar, E = 1 MPa.
  const double length = 0.04, side = 0.01, force = 1.0e-3, young = 1.0e6, nu = 0.3;
  const double inertia = side * side * side * side / 12.0;
  const double shear = young / (2.0 * (1.0 + nu)) * side * side * 5.0 / 6.0;
  const double beam =
      force * length * length * length / (3.0 * young * inertia) + force * length / shear;
  double previous_error = 1.0;
  for (const int refine : {1, 2, 4}) {
    VoxelRun run = voxel_model(bar(8, refine, force, kQuasiStatic).yaml());
    const double error = std::abs(-tip_deflection(run) - beam) / beam;
    RecordProperty("error_refine_" + std::to_string(refine), std::to_string(error));
    EXPECT_LT(error, previous_error) << "refine " << refine;
    previous_error = error;
  }
  // Trilinear voxels are stiff in bending (shear locking): 4 across the thickness come within
  // a fifth.
  EXPECT_LT(previous_error, 0.2);
}

TEST(CorotationalSolver, SinglePrecisionAgreesWithDouble) {
  VoxelCase c =
      bar(8, 1, 1.0e-2, "{type: corotational, end_time: 0.5, time_step: 0.05, mass_damping: 1.0}");
  VoxelRun dbl = voxel_model(c.yaml());
  c.precision = "single";
  VoxelRun sgl = voxel_model(c.yaml());
  CorotationalSimulation a(dbl.model, *dbl.backend), b(sgl.model, *sgl.backend);
  for (int s = 0; s < 10; ++s) {
    a.step();
    b.step();
  }
  std::vector<double> ua, va, ub, vb;
  a.state(ua, va);
  b.state(ub, vb);
  double scale = 0.0, diff = 0.0;
  for (std::size_t i = 0; i < ua.size(); ++i) {
    scale = std::max(scale, std::abs(ua[i]));
    diff = std::max(diff, std::abs(ua[i] - ub[i]));
  }
  ASSERT_GT(scale, 0.0);
  EXPECT_LT(diff, 1e-4 * scale);
}

TEST(CorotationalSolver, TheCoarsestSolveIsLooseOnlyBelowFinerLevels) {
  // The bar (36 vertices) is one level: its coarsest solve is the step's.
  VoxelRun one =
      voxel_model(bar(8, 1, 1.0, "{type: corotational, end_time: 1, time_step: 0.05}").yaml());
  const CorotationalSimulation alone(one.model, *one.backend);
  ASSERT_EQ(alone.hierarchy().levels.size(), 1U);
  EXPECT_EQ(alone.coarsest_tolerance(), 1.0e-3);
  // Four times finer: 4,641 vertices coarsened to fewer than 512.
  VoxelRun fine =
      voxel_model(bar(8, 4, 1.0, "{type: corotational, end_time: 1, time_step: 0.05}").yaml());
  const CorotationalSimulation below(fine.model, *fine.backend);
  ASSERT_GT(below.hierarchy().levels.size(), 1U);
  EXPECT_EQ(below.coarsest_tolerance(), 0.1);
  // The case's own value wins.
  VoxelRun set = voxel_model(bar(8, 4, 1.0,
                                 "{type: corotational, end_time: 1, time_step: 0.05, multigrid: "
                                 "{coarsest_tolerance: 1e-5}}")
                                 .yaml());
  EXPECT_EQ(CorotationalSimulation(set.model, *set.backend).coarsest_tolerance(), 1.0e-5);
}

TEST(CorotationalSolver, LargeRotationsKeepTheVolume) {
  // A heavy bar falling over under gravity: co-rotation keeps the voxels' volume where linear
  // elasticity would inflate them (the seed's motivation, section 3.1).
  VoxelCase c =
      bar(8, 1, 0.0, "{type: corotational, end_time: 2, time_step: 0.02, mass_damping: 10}");
  c.density = 1.0e5;
  c.extra += "gravity: {acceleration: [0, 0, -9.81]}\n";
  VoxelRun run = voxel_model(c.yaml());
  CorotationalSimulation sim(run.model, *run.backend);
  for (int s = 0; s < 60; ++s) sim.step();
  std::vector<double> u, v;
  sim.state(u, v);
  const voxel::VoxelHierarchy& h = sim.hierarchy();
  double worst = 0.0, tip_drop = 0.0;
  for (std::int64_t e = 0; e < h.elements; ++e) {
    // det F at the voxel's centre.
    double f[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
    for (int p = 0; p < 8; ++p) {
      const std::int32_t node = h.vertex_node[h.element_vertices[8 * e + p]];
      for (int i = 0; i < 3; ++i)
        for (int k = 0; k < 3; ++k)
          f[3 * i + k] +=
              u[3 * node + i] * (kernels::voxel::corner_offset(p, k) ? 0.25 : -0.25) / h.edge;
    }
    const double det = f[0] * (f[4] * f[8] - f[5] * f[7]) - f[1] * (f[3] * f[8] - f[5] * f[6]) +
                       f[2] * (f[3] * f[7] - f[4] * f[6]);
    worst = std::max(worst, std::abs(det - 1.0));
  }
  for (const std::int32_t n : run.model.mesh.node_sets.at("tip"))
    tip_drop = std::max(tip_drop, -u[3 * n + 2]);
  EXPECT_GT(tip_drop, 0.01);  // a large deflection: a quarter of the bar's length or more
  EXPECT_LT(worst, 0.15);
}

TEST(CorotationalSolver, AFixedHandleDragsTheBody) {
  // The interactive API: a free-floating cube, one corner node fixed and moved; the rest follows.
  VoxelCase c;
  c.n = {4, 4, 4};
  c.edge = 0.01;
  c.density = 1000.0;
  c.solver = "{type: corotational, end_time: 1, time_step: 0.02, mass_damping: 5}";
  VoxelRun run = voxel_model(c.yaml());
  CorotationalSimulation sim(run.model, *run.backend);
  const std::int32_t corner = 0;
  for (int s = 1; s <= 50; ++s) {
    sim.fix(corner, {0.0, 0.0, 0.0004 * s});
    sim.step();
  }
  std::vector<double> u, v;
  sim.displacements({corner}, u);
  EXPECT_NEAR(u[2], 0.02, 1e-12);
  sim.state(u, v);
  double rise = 0.0;  // the mean: the body follows the handle (its far side may swing down)
  for (std::size_t n = 0; n < u.size() / 3; ++n) rise += u[3 * n + 2];
  EXPECT_GT(rise / static_cast<double>(u.size() / 3), 0.002);
  sim.release(corner);
  sim.step();
  sim.displacements({corner}, u);
  EXPECT_NE(u[2], 0.02);
}

TEST(CorotationalSolver, HistoriesRecordTheMeanMotionOfASet) {
  VoxelCase c = bar(8, 1, 1.0e-2, "{type: corotational, end_time: 0.5, time_step: 0.05}");
  const std::string dir = (std::filesystem::temp_directory_path() / "fem_voxel_histories").string();
  std::filesystem::remove_all(dir);
  c.extra +=
      "output: {vtk: true, fields: [displacement, cauchy_stress, von_mises, block_id], "
      "histories: [{set: tip, every_steps: 2}, {set: root, quantities: [reaction_force]}, "
      "{name: bar, region: domain, quantities: [cauchy_stress, von_mises, strain_energy]}]}\n";
  std::string yaml = c.yaml();
  yaml.replace(yaml.find("output: {vtk: false}\n"), 21, "");
  VoxelRun run = voxel_model(yaml);
  CorotationalRunOptions options;
  options.output_directory = dir;
  const CorotationalRunReport r = run_corotational(run.model, *run.backend, "openmp", options);
  ASSERT_EQ(r.steps, 10);
  std::ifstream csv(dir + "/tip.csv");
  ASSERT_TRUE(csv) << "no tip.csv";
  std::string line, last;
  int rows = 0;
  std::getline(csv, line);  // header
  EXPECT_NE(line.find("displacement_z"), std::string::npos) << line;
  EXPECT_NE(line.find("velocity_z"), std::string::npos) << line;
  EXPECT_EQ(line.find("reaction"), std::string::npos) << line;
  while (std::getline(csv, line))
    if (!line.empty() && line[0] != '#') {
      last = line;
      ++rows;
    }
  EXPECT_EQ(rows, 6);  // steps 0, 2, ..., 10
  // The last row's mean z displacement is the tip's, from the final state.
  const std::vector<std::int32_t>& tip = run.model.mesh.node_sets.at("tip");
  double mean = 0.0;
  for (const std::int32_t n : tip) mean += r.final_displacement[3 * n + 2];
  mean /= static_cast<double>(tip.size());
  std::vector<double> cells;
  std::stringstream fields(last);
  for (std::string x; std::getline(fields, x, ',');) cells.push_back(std::stod(x));
  ASSERT_GE(cells.size(), 5u);
  EXPECT_NEAR(cells[4], mean, 1e-9 * std::abs(mean)) << last;  // time, step, ux, uy, uz
  // The root's reaction: the columns are there and the last row holds the bar up (the tip load
  // pushes down), and the frames carry the voxels' stresses.
  std::ifstream root(dir + "/root.csv");
  ASSERT_TRUE(root) << "no root.csv";
  std::getline(root, line);
  EXPECT_NE(line.find("reaction_force_z"), std::string::npos) << line;
  while (std::getline(root, line))
    if (!line.empty() && line[0] != '#') last = line;
  EXPECT_GT(std::stod(last.substr(last.rfind(',') + 1)), 0.0) << last;
  // The region's history: the mean stress, the largest von Mises stress and the energy, a row
  // a frame.
  std::ifstream bar_csv(dir + "/bar.csv");
  ASSERT_TRUE(bar_csv) << "no bar.csv";
  std::getline(bar_csv, line);
  EXPECT_NE(line.find("cauchy_stress_xx"), std::string::npos) << line;
  EXPECT_NE(line.find("von_mises_max"), std::string::npos) << line;
  EXPECT_NE(line.find("strain_energy"), std::string::npos) << line;
  rows = 0;
  while (std::getline(bar_csv, line))
    if (!line.empty() && line[0] != '#') {
      last = line;
      ++rows;
    }
  EXPECT_EQ(rows, 11);
  cells.clear();
  std::stringstream bar_fields(last);
  for (std::string x; std::getline(bar_fields, x, ',');) cells.push_back(std::stod(x));
  ASSERT_EQ(cells.size(), 2u + 6u + 2u);  // time, step, 6 stresses, von Mises, energy
  EXPECT_GT(cells[8], 0.0);
  EXPECT_GT(cells[9], 0.0);
  // The bar bends under the tip load: its mean axial stress is small against its largest.
  EXPECT_LT(std::abs(cells[2]), 0.1 * cells[8]);
  if (vtk_output_available()) {
    const VtuContents frame = read_vtu(dir + "/voxels_000010.vtu");
    std::vector<std::string> names;
    for (const Field& f : frame.cell_fields) names.push_back(f.name);
    ASSERT_EQ(names, (std::vector<std::string>{"cauchy_stress", "von_mises", "block_id"}));
    EXPECT_EQ(frame.cell_fields[0].values.size(), 6u * 32u);
    double largest = 0.0;
    for (const double m : frame.cell_fields[1].values) largest = std::max(largest, m);
    EXPECT_GT(largest, 0.0);
  }
  std::filesystem::remove_all(dir);
}

std::string refusal(const std::string& yaml) {
  try {
    VoxelRun run = voxel_model(yaml);
    CorotationalSimulation sim(run.model, *run.backend);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(CorotationalSolver, RefusesWhatItCannotRun) {
  VoxelCase c;
  c.solver = "{type: corotational, end_time: 1, time_step: 0}";
  EXPECT_NE(refusal(c.yaml()).find("time_step"), std::string::npos) << refusal(c.yaml());
  c.solver =
      "{type: corotational, end_time: 1, time_step: 0.1, multigrid: {pre_sweeps: 0, "
      "post_sweeps: 0}}";
  EXPECT_NE(refusal(c.yaml()).find("smoothing sweep"), std::string::npos);
  // Voxels that are not cubes.
  c.solver = "{type: corotational, end_time: 1, time_step: 0.1}";
  std::string yaml = c.yaml();
  const std::string box = "divisions: [8, 8, 8]";
  yaml.replace(yaml.find(box), box.size(), "divisions: [8, 8, 4]");
  EXPECT_NE(refusal(yaml).find("cube"), std::string::npos) << refusal(yaml);
  // Tetrahedra.
  yaml = c.yaml();
  yaml.replace(yaml.find("cells: hex8"), 11, "cells: tet4");
  yaml.replace(yaml.find("element: hex8"), 13, "element: tet4");
  EXPECT_NE(refusal(yaml).find("voxels"), std::string::npos) << refusal(yaml);
  // Contact.
  c.extra = "contact:\n  - {name: floor, type: plane, point: [0, 0, 0], normal: [0, 0, 1]}\n";
  EXPECT_NE(refusal(c.yaml()).find("contact"), std::string::npos) << refusal(c.yaml());
}

}  // namespace
}  // namespace fem::test
