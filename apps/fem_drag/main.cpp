// fem_drag: drags a handle node of a voxel body along a straight path, the way an interactive
// program uses CorotationalSimulation (fem/solver/corotational_solver.hpp): the handle is fixed
// at a new position before every step, and only a few nodes' displacements and the force that
// holds the handle (what a haptic device renders) are read back per step (no copy of the whole
// mesh), the full state only for the VTK frames.
//
//   fem_drag CASE (--handle-node N | --handle-point x,y,z) --path dx,dy,dz [--steps 200]
//            [--every 10] [--output DIR] [--backend B] [--precision P] [--set key=value]
#include <fmt/format.h>
#include <spdlog/cfg/env.h>
#include <spdlog/spdlog.h>

#include <CLI/CLI.hpp>

#include <algorithm>
#include <array>
#include <chrono>
#include <filesystem>
#include <limits>

#include <fem/output/frame_series.hpp>
#include <fem/solver/corotational_solver.hpp>
#include <fem/solver/run_output.hpp>

#include "case_cli.hpp"
#include "commands.hpp"
#include "openmp_waiting.hpp"

namespace fem::cli {
namespace {

struct DragOptions {
  CaseOptions case_options;
  std::int64_t handle_node = -1;     ///< input id
  std::vector<double> handle_point;  ///< or the voxel node nearest to it
  std::vector<double> path;          ///< the handle's displacement at the last step, m
  std::int64_t steps = 200;
  std::int64_t every = 10;  ///< VTK frame cadence; 0: none
};

/// The mesh node of input id `id` that is a voxel vertex.
std::int32_t node_of_input_id(const Model& model, const CorotationalSimulation& sim,
                              std::int64_t id) {
  const std::vector<std::int32_t>& ids = model.mesh.input_node_ids;
  std::int64_t node = id;
  if (!ids.empty()) {
    const auto it = std::find(ids.begin(), ids.end(), id);
    node = it == ids.end() ? -1 : it - ids.begin();
  }
  if (node < 0 || node >= model.mesh.num_nodes() || sim.hierarchy().node_vertex[node] < 0)
    throw InputError({"<command line>", 0, 0},
                     fmt::format("--handle-node {} is not a node of the voxel body", id),
                     "give a node of a voxel's corner, or --handle-point x,y,z for the nearest");
  return static_cast<std::int32_t>(node);
}

/// The voxel vertex nearest to p.
std::int32_t nearest_node(const Model& model, const CorotationalSimulation& sim,
                          const std::array<double, 3>& p) {
  std::int32_t best = -1;
  double best_d = std::numeric_limits<double>::max();
  for (const std::int32_t n : sim.hierarchy().vertex_node) {
    if (n < 0) continue;  // padding
    const std::array<double, 3> x = model.mesh.node(n);
    const double d = (x[0] - p[0]) * (x[0] - p[0]) + (x[1] - p[1]) * (x[1] - p[1]) +
                     (x[2] - p[2]) * (x[2] - p[2]);
    if (d < best_d) {
      best = n;
      best_d = d;
    }
  }
  return best;
}

int drag(const DragOptions& o) {
  PreparedCase prepared = prepare_case(o.case_options);
  const Model& model = prepared.model;
  const CaseSpec& spec = model.spec;
  if (spec.solver.type != SolverType::Corotational)
    throw InputError(spec.solver.where,
                     fmt::format("fem_drag runs cases of solver type corotational, and this "
                                 "case's is {}",
                                 to_string(spec.solver.type)),
                     "use a voxel case with solver: {type: corotational} (cases/seed004/), or "
                     "`fem run` for this one");
  std::unique_ptr<Backend> backend = prepared.plugins->create_backend(spec);
  CorotationalSimulation sim(model, *backend);

  const std::int32_t handle =
      o.handle_node >= 0
          ? node_of_input_id(model, sim, o.handle_node)
          : nearest_node(model, sim, {o.handle_point[0], o.handle_point[1], o.handle_point[2]});
  // What an interactive program would show besides the handle: how the body's middle follows.
  const auto box = model.mesh.bounds();
  const std::int32_t middle =
      nearest_node(model, sim,
                   {0.5 * (box[0][0] + box[1][0]), 0.5 * (box[0][1] + box[1][1]),
                    0.5 * (box[0][2] + box[1][2])});
  const std::vector<std::int32_t> watched = {handle, middle};
  const std::array<double, 3> h = model.mesh.node(handle);
  fmt::print(
      "{} voxels on {} ({} precision), time step {:.4g} s; handle node {} at [{:.4g} {:.4g} "
      "{:.4g}] dragged by [{:.4g} {:.4g} {:.4g}] m over {} steps\n",
      sim.hierarchy().elements, spec.backend, to_string(spec.precision), sim.time_step(),
      model.mesh.input_node_id(handle), h[0], h[1], h[2], o.path[0], o.path[1], o.path[2], o.steps);

  std::unique_ptr<FrameSeries> series;
  const std::string directory = output_directory(spec);
  if (o.every > 0) {
    std::filesystem::create_directories(directory);
    series = open_frame_series(model, directory);
    if (!series)
      fmt::print("no VTK series: {}\n", vtk_output_available() ? "the case has output.vtk off"
                                                               : "this fem is built without VTK");
  }
  std::vector<double> u, v, watched_u, handle_force;
  double output_s = 0.0;
  const auto frame = [&](std::int64_t step) {
    if (!series) return;
    const auto t0 = std::chrono::steady_clock::now();
    sim.state(u, v);
    series->write(make_frame(spec, step, sim.time(), u, &v, {}));
    output_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };
  frame(0);
  const auto start = std::chrono::steady_clock::now();
  for (std::int64_t s = 1; s <= o.steps; ++s) {
    const double f = static_cast<double>(s) / static_cast<double>(o.steps);
    sim.fix(handle, {f * o.path[0], f * o.path[1], f * o.path[2]});
    sim.step();
    sim.displacements(watched, watched_u);
    sim.reaction_forces({handle}, handle_force);
    if (o.every > 0 && (s % o.every == 0 || s == o.steps)) frame(s);
  }
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() - output_s;
  fmt::print(
      "handle node {}: u = [{:.4g} {:.4g} {:.4g}] m, held by [{:.4g} {:.4g} {:.4g}] N; middle "
      "node {}: u = [{:.4g} {:.4g} {:.4g}] m\n",
      model.mesh.input_node_id(handle), watched_u[0], watched_u[1], watched_u[2], handle_force[0],
      handle_force[1], handle_force[2], model.mesh.input_node_id(middle), watched_u[3],
      watched_u[4], watched_u[5]);
  fmt::print("{} steps in {:.3f} s: {:.4g} steps/s (without the {:.3f} s of VTK output)\n", o.steps,
             wall, static_cast<double>(o.steps) / std::max(wall, 1e-9), output_s);
  if (series)
    for (const std::string& index : series->index_paths()) fmt::print("frames in {}\n", index);
  return kOk;
}

}  // namespace
}  // namespace fem::cli

int main(int argc, char** argv) {
  fem::cli::settle_openmp_waiting(argv);
  CLI::App app{
      "fem_drag: drag a handle node of a co-rotational voxel case along a straight path, step "
      "by step, and print steps per second"};
  fem::cli::DragOptions o;
  fem::cli::add_case_options(app, o.case_options);
  CLI::Option* node =
      app.add_option("--handle-node", o.handle_node, "the handle: a node id of the mesh")
          ->check(CLI::NonNegativeNumber);
  CLI::Option* point =
      app.add_option("--handle-point", o.handle_point, "the handle: the voxel node nearest x,y,z")
          ->delimiter(',')
          ->expected(3)
          ->type_name("X,Y,Z");
  node->excludes(point);
  app.add_option("--path", o.path, "the handle's displacement at the last step (m)")
      ->delimiter(',')
      ->expected(3)
      ->type_name("DX,DY,DZ")
      ->required();
  app.add_option("--steps", o.steps, "time steps")->check(CLI::PositiveNumber);
  app.add_option("--every", o.every, "a VTK frame every N steps (0: none)")
      ->check(CLI::NonNegativeNumber);
  spdlog::cfg::load_env_levels();
  try {
    app.parse(argc, argv);
    if (node->empty() == point->empty())  // neither (both: excluded above)
      throw CLI::RequiredError("one of --handle-node and --handle-point");
  } catch (const CLI::ParseError& e) {
    // A command line that cannot be parsed is bad input, as in `fem`.
    return app.exit(e) == 0 ? fem::cli::kOk : fem::cli::kBadInput;
  }
  spdlog::set_pattern("%^%l%$: %v");
  try {
    return fem::cli::drag(o);
  } catch (const std::exception& e) {
    return fem::cli::report_error(e);
  }
}
