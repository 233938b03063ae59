#include <fmt/format.h>

#include <cmath>

#include <fem/solver/corotational_solver.hpp>
#include <fem/solver/explicit_system.hpp>
#include <fem/solver/implicit_solver.hpp>
#include <fem/solver/wave_solver.hpp>

#include <fem/parallel/communicator.hpp>

#include "commands.hpp"

namespace fem::cli {

int check_command(const CaseOptions& options) {
  try {
    PreparedCase prepared = prepare_case(options);
    const Model& model = prepared.model;
    const CaseSpec& spec = model.spec;
    const ExplicitSetup setup = setup_explicit(model);
    if (parallel::world().rank() != 0) return kOk;  // rank 0 speaks for all
    const auto box = model.mesh.bounds();
    fmt::print("case {} ({}): valid\n", spec.name, spec.file);
    fmt::print("backend {}{}, {} precision\n", spec.backend,
               spec.device >= 0 ? fmt::format(" on device {}", spec.device) : "",
               to_string(spec.precision));
    fmt::print("{}\n", parallel_line());
    const std::string source = !spec.mesh.image.empty() ? "image " + spec.mesh.image
                               : spec.mesh.file_mesh    ? "file " + spec.mesh.file
                               : spec.mesh.generator == "voxels"
                                   ? "voxels generator (" + spec.mesh.shape + ")"
                                   : spec.mesh.generator + " generator";
    fmt::print("mesh: {}, {} nodes, bounds [{:.4g} {:.4g} {:.4g}] .. [{:.4g} {:.4g} {:.4g}] m\n",
               source, model.mesh.num_nodes(), box[0][0], box[0][1], box[0][2], box[1][0],
               box[1][1], box[1][2]);
    for (const CellRegion& r : model.mesh.regions)
      fmt::print("  region {}: {} {} cells\n", r.name, r.num_cells(), to_string(r.shape));
    if (model.mesh.dimension() == 2)
      fmt::print("  plane strain: area {:.6g} m^2, mass {:.6g} kg per metre of thickness\n",
                 setup.total_volume, setup.total_mass);
    else
      fmt::print("  volume {:.6g} m^3, mass {:.6g} kg\n", setup.total_volume, setup.total_mass);
    fmt::print("blocks:\n");
    for (const ModelBlock& b : model.blocks)
      fmt::print("  {}: {} elements of {} ({}), material '{}'\n", b.spec->name, b.num_elements(),
                 b.element->name, to_string(b.element->family), b.material_spec->name);
    fmt::print("materials:\n");
    for (const auto& [name, m] : spec.materials) {
      fmt::print("  {}: {}, density {} kg/m^3", name, m.type, m.density);
      for (const ModelBlock& b : model.blocks)
        if (b.material_spec == &m) {
          for (int i = 0; i < b.material->host.num_params; ++i)
            fmt::print(", {} {:.6g}", b.material->host.param_names[i], b.params[i]);
          break;
        }
      fmt::print("\n");
    }
    fmt::print("node sets:\n");
    for (const NodeSetSpec& s : spec.node_sets)
      fmt::print("  {}: {} nodes\n", s.name, model.mesh.node_sets.at(s.name).size());
    if (spec.mesh.file_mesh)
      for (const auto& [name, ids] : spec.mesh.file_mesh->node_sets)
        fmt::print("  {}: {} nodes (mesh file)\n", name, ids.size());
    fmt::print("boundary conditions:\n");
    for (const BoundaryConditionSpec& bc : spec.boundary_conditions) {
      fmt::print("  set {}:", bc.set);
      for (int k = 0; k < 3; ++k)
        if (bc.constrained[k]) fmt::print(" u{} = {:.6g}", "xyz"[k], bc.value[k]);
      fmt::print(" (amplitude {})\n", bc.amplitude);
    }
    for (const NodalLoadSpec& l : spec.loads)
      fmt::print("  load on set {}: [{} {} {}] N per node (amplitude {})\n", l.set, l.force[0],
                 l.force[1], l.force[2], l.amplitude);
    if (spec.gravity)
      fmt::print("  gravity [{} {} {}] m/s^2\n", spec.gravity->acceleration[0],
                 spec.gravity->acceleration[1], spec.gravity->acceleration[2]);
    const SolverSpec& sv = spec.solver;
    if (is_implicit(sv.type)) {
      fmt::print("solver: {}, end time {}{}\n", to_string(sv.type), sv.end_time,
                 sv.type == SolverType::Static ? " (load time)" : " s");
      if (sv.type == SolverType::ImplicitDynamic) {
        fmt::print("  integrator {}", sv.integrator);
        if (sv.integrator != "backward_euler")
          fmt::print(" (beta {:.6g}, gamma {:.6g}{})", sv.beta, sv.gamma,
                     sv.integrator == "hht" ? fmt::format(", alpha {:.6g}", sv.alpha) : "");
        fmt::print(", time step {:.6g} s = {:.1f} x the explicit critical step {:.6g} s\n",
                   sv.time_step, sv.time_step / setup.critical_time_step, setup.critical_time_step);
        fmt::print("  damping: mass {} 1/s, stiffness {} s\n", sv.mass_damping,
                   sv.stiffness_damping);
      }
      // With steps, each step's increments follow below.
      if (!sv.steps.empty() && sv.type == SolverType::Static)
        fmt::print("  {} steps\n", sv.steps.size());
      else if (sv.increments.count > 0)
        fmt::print("  increments: {} equal (cutback x{} down to {} of one)\n", sv.increments.count,
                   sv.increments.cutback, sv.increments.minimum);
      else if (sv.type == SolverType::ImplicitDynamic)
        fmt::print(
            "  steps: cut back x{} down to {} of the time step after a failure, grown back x{} "
            "after <= {} Newton iterations\n",
            sv.increments.cutback, sv.increments.minimum, sv.increments.growth,
            sv.increments.easy_iterations);
      else
        fmt::print(
            "  increments: automatic, initial {} maximum {} minimum {} of the load time, "
            "growth x{} after <= {} Newton iterations, cutback x{}\n",
            sv.increments.initial, sv.increments.maximum, sv.increments.minimum,
            sv.increments.growth, sv.increments.easy_iterations, sv.increments.cutback);
      for (std::size_t k = 0; k < sv.steps.size(); ++k) {
        const SolverStepSpec& st = sv.steps[k];
        const IncrementSpec& i = st.increments;
        fmt::print(
            "  step {} to t = {:.6g}: {}{}\n", k + 1, st.end_time,
            sv.type == SolverType::ImplicitDynamic && st.type == SolverType::Static ? "static, "
                                                                                    : "",
            st.type == SolverType::ImplicitDynamic ? fmt::format("time step {:.6g} s", st.time_step)
            : i.count > 0                          ? fmt::format("{} equal increments", i.count)
                          : fmt::format("automatic increments, initial {} maximum {} minimum "
                                        "{} of the step",
                                        i.initial, i.maximum, i.minimum));
      }
      fmt::print(
          "  newton: {}, at most {} iterations, residual tolerance {:.3g}, energy "
          "tolerance {:.3g}, line search {}, linear tolerance {}\n",
          sv.newton.method, sv.newton.max_iterations, sv.newton.residual_tolerance,
          sv.newton.energy_tolerance, sv.newton.line_search ? "on" : "off",
          sv.newton.linear_tolerance > 0 ? fmt::format("{:.3g}", sv.newton.linear_tolerance)
                                         : std::string("auto (Eisenstat-Walker)"));
      fmt::print("  linear: {}{}, {} operator, at most {} iterations\n", sv.linear.solver,
                 sv.linear.solver == "direct" ? std::string(" (Eigen sparse LDL^T on the host)")
                                              : " with preconditioner " + sv.linear.preconditioner,
                 sv.linear.operator_form, sv.linear.max_iterations);
      if (has_static_steps(sv)) {
        const std::vector<std::string> free_modes = unrestrained_rigid_modes(setup.system);
        for (const std::string& m : free_modes)
          fmt::print("warning: the supports do not prevent {}: the static tangent is singular\n",
                     m);
      }
    } else if (sv.type == SolverType::Elastodynamic) {
      // The wave setup checks what only it can (the step against the stability limit, the
      // materials' wave speeds) and says what the run will use.
      const std::unique_ptr<Backend> backend = prepared.plugins->create_backend(spec);
      const WaveSetup w = setup_waves(model, *backend);
      fmt::print("solver: elastodynamic, end time {} s, mass damping {} 1/s\n", sv.end_time,
                 sv.mass_damping);
      fmt::print(
          "  stability limit {:.6g} s (largest eigenvalue of M^-1 K, {} Lanczos iterations), "
          "time step {:.6g} s, {} steps\n",
          w.limit.critical_time_step, w.limit.iterations, w.time_step, w.num_steps);
      for (std::size_t b = 0; b < model.blocks.size(); ++b)
        fmt::print("  block {}: P-wave speed {:.6g} m/s\n", model.blocks[b].spec->name,
                   w.wave_speeds[b]);
      fmt::print("  stiffness: {} node blocks ({:.1f} per node), {} sources, {} free dofs\n",
                 w.matrix.blocks(),
                 static_cast<double>(w.matrix.blocks()) / static_cast<double>(w.matrix.rows),
                 w.sources.size(), w.free_dofs);
      for (const AbsorbingLayerSpec& l : sv.absorbing_layers)
        fmt::print("  absorbing layer along {}: {} m, d = {:.4g} (x/L)^{:g} 1/s{}\n", l.set,
                   l.thickness, l.max_damping, l.power,
                   l.stiffness_reduction > 0.0 ? fmt::format(", stiffness x exp(-{:g} (x/L)^{:g})",
                                                             l.stiffness_reduction, l.power)
                                               : std::string());
      for (const ReceiverSpec& r : spec.output.receivers)
        fmt::print("  receiver {}: {}, every {} steps\n", r.name,
                   r.point ? fmt::format("node nearest [{}, {}, {}]", (*r.point)[0], (*r.point)[1],
                                         (*r.point)[2])
                           : "set " + r.set,
                   r.every_steps);
    } else if (sv.type == SolverType::Corotational) {
      // Building the simulation checks what only it can (equal cubic voxels; pieces without
      // supports are warned about) and gives the multigrid levels the run will use.
      const std::unique_ptr<Backend> backend = prepared.plugins->create_backend(spec);
      const CorotationalSimulation sim(model, *backend);
      const VoxelMultigridSpec& mg = sv.multigrid;
      fmt::print(
          "solver: corotational, end time {} s, time step {:.6g} s ({} steps), mass damping {} "
          "1/s\n",
          sv.end_time, sv.time_step, std::llround(sv.end_time / sv.time_step), sv.mass_damping);
      std::string levels;
      for (const voxel::VoxelLevel& l : sim.hierarchy().levels)
        levels += (levels.empty() ? "" : ", ") + std::to_string(l.real_vertices);
      fmt::print(
          "  multigrid: {} V-cycles per step, {} pre- and {} post-smoothing sweeps; {} voxels of "
          "{:.4g} m, levels of {} vertices (coarsest at most {})\n",
          mg.cycles, mg.pre_sweeps, mg.post_sweeps, sim.hierarchy().elements, sim.hierarchy().edge,
          levels, mg.coarsest_vertices);
      fmt::print(
          "  coarsest level: conjugate gradients to {:.3g} relative residual, at most {} "
          "iterations; residual reduction measured {}\n",
          sim.coarsest_tolerance(), mg.coarsest_iterations,
          mg.residual_every > 0 ? fmt::format("every {} steps", mg.residual_every)
                                : std::string("never"));
    } else {
      fmt::print("solver: {}, end time {} s, mass damping {} 1/s, {} assembly\n",
                 to_string(sv.type), sv.end_time, sv.mass_damping, sv.assembly);
      fmt::print("  critical time step {:.6g} s (element {}), time step {:.6g} s, {} steps\n",
                 setup.critical_time_step, setup.critical_element, setup.system.time_step,
                 setup.num_steps);
    }
    for (const std::string& w : setup.warnings) fmt::print("warning: {}\n", w);
    return kOk;
  } catch (const std::exception& e) {
    return report_error(e);
  }
}

}  // namespace fem::cli
