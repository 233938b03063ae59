#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <functional>

#include <fem/parallel/communicator.hpp>
#include <fem/solver/corotational_solver.hpp>
#include <fem/solver/explicit_solver.hpp>
#include <fem/solver/implicit_solver.hpp>
#include <fem/solver/wave_solver.hpp>

#include "commands.hpp"
#include "interrupt.hpp"
#include "out_of_memory.hpp"

namespace fem::cli {

namespace {

/// The index files of the frames a run writes ("cube.pvd", "cube.xdmf"), each followed by ", ".
std::string frame_indexes(const CaseSpec& spec) {
  std::string files;
  if (spec.output.vtk) files += spec.name + ".pvd, ";
  if (spec.output.xdmf) files += spec.name + ".xdmf, ";
  return files;
}

/// Static and implicit dynamic analysis: progress per increment, totals at the end.
int run_implicit(const Model& model, Backend& backend, bool time_verbs, const CaseOptions& options,
                 const std::string& restart_file) {
  const CaseSpec& spec = model.spec;
  ImplicitSolver solver(model, backend, spec.backend);
  const SolverSpec& s = spec.solver;
  if (s.type == SolverType::ImplicitDynamic)
    spdlog::info(
        "implicit dynamics ({}): time step {:.4g} s ({:.1f} x the explicit critical "
        "step {:.4g} s) to t = {} s",
        s.integrator, s.time_step, s.time_step / solver.setup().critical_time_step,
        solver.setup().critical_time_step, s.end_time);
  else if (s.steps.empty())
    spdlog::info("static analysis to load time {}: {}", s.end_time,
                 s.increments.count > 0
                     ? fmt::format("{} increments", s.increments.count)
                     : fmt::format("automatic increments from {:.3g}", s.increments.initial));
  else
    spdlog::info("static analysis to load time {}", s.end_time);
  if (!s.steps.empty()) {
    std::vector<std::string> ends;
    for (const SolverStepSpec& step : s.steps)
      ends.push_back(fmt::format(
          "{}{}", step.end_time,
          s.type == SolverType::ImplicitDynamic && step.type == SolverType::Static ? " (static)"
                                                                                   : ""));
    spdlog::info("{} steps, ending at t = {}", s.steps.size(), fmt::join(ends, ", "));
  }
  spdlog::info("Newton ({}), linear solver {} with preconditioner {}, {} operator", s.newton.method,
               s.linear.solver, s.linear.solver == "direct" ? "-" : s.linear.preconditioner,
               s.linear.operator_form);
  ImplicitRunOptions run;
  run.output_directory = output_directory(spec);
  run.time_verbs = time_verbs;
  run.restart_file = restart_file;
  run.case_text = options.case_text();
  install_interrupt_handlers();
  run.stop_requested = interrupt_requested;
  const auto start = std::chrono::steady_clock::now();
  run.iteration = [](std::int64_t inc, double, const NewtonIterationRecord& r) {
    spdlog::debug(
        "  increment {} iteration {}: residual {:.3e} (relative {:.3e}), energy "
        "{:.3e}, step {:.3g}, {} linear iterations",
        inc, r.iteration, r.residual, r.relative_residual, r.energy, r.step, r.linear_iterations);
  };
  run.progress = [&](std::int64_t inc, double t, int newton, int linear) {
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    spdlog::info("[{:3.0f}%] increment {}  t = {:.4g}  Newton {}  linear {}  wall {:.1f} s",
                 100.0 * t / s.end_time, inc, t, newton, linear, wall);
  };
  set_activity(fmt::format("running the {} solver", to_string(s.type)));
  const ImplicitRunReport r = solver.run(run);
  if (r.interrupted) {
    fmt::print("interrupted at increment {} (t = {}); results so far in {}/\n", r.increments,
               r.time_reached, output_directory(spec));
    if (!r.checkpoint.empty())
      fmt::print("  continue with the same command and --restart {}\n", r.checkpoint);
    return kInterrupted;
  }
  const double iterations = static_cast<double>(std::max<std::int64_t>(1, r.newton_iterations));
  fmt::print(
      "completed {} increments to t = {} ({} cutbacks) on {} ({}, {} precision)\n"
      "  elements {}, nodes {}, free dofs {}\n"
      "  Newton iterations {} ({:.1f} per increment, {} tangents), linear iterations {} ({:.1f} "
      "per Newton iteration, {})\n"
      "  wall time: setup {:.3f} s, solve {:.3f} s (tangent action {:.3f} s, residual {:.3f} s, "
      "preconditioner setup {:.3f} s{}), output {:.3f} s, total {:.3f} s\n"
      "  throughput: {:.4g} dof x CG iterations/s\n"
      "  results in {}/ ({}convergence.csv, summary.json{})\n",
      r.increments, r.time_reached, r.cutbacks, r.backend, r.execution_space, r.precision,
      r.num_elements, r.num_nodes, r.free_dofs, r.newton_iterations,
      static_cast<double>(r.newton_iterations) /
          static_cast<double>(std::max<std::int64_t>(1, r.increments)),
      r.tangents, r.linear_iterations, static_cast<double>(r.linear_iterations) / iterations,
      r.minres_solves > 0 ? fmt::format("{}; MINRES redid {} solves CG broke down on",
                                        r.preconditioner, r.minres_solves)
                          : r.preconditioner,
      r.setup_s, r.solve_s, r.verbs.apply.seconds, r.verbs.residual.seconds,
      r.preconditioner_setup_s,
      time_verbs ? "" : "; on a GPU these count launches only: --time-verbs times them exactly",
      r.output_s, r.total_s, r.dof_cg_iterations_per_second(), output_directory(spec),
      frame_indexes(spec), spec.output.histories.empty() ? "" : ", histories as <name>.csv");
  return kOk;
}

/// The solver that starts from the beginning (elastodynamic) refuses --restart, and the one that
/// runs on one process (corotational) refuses mpirun, each at the case's solver key.
void require_fresh_start(const CaseSpec& spec, const std::string& restart_file) {
  if (!restart_file.empty())
    throw InputError(spec.solver.where,
                     fmt::format("solver type {} does not restart", to_string(spec.solver.type)),
                     "run the case again without --restart");
}
void require_one_process(const CaseSpec& spec, const parallel::Communicator& world) {
  if (world.size() > 1)
    throw InputError(spec.solver.where,
                     fmt::format("solver.type {} runs on one process, and this run has {}",
                                 to_string(spec.solver.type), world.description()),
                     "run it without mpirun");
}

/// Progress lines of a stepping solver: percent, step, time and the wall time since the call.
std::function<void(std::int64_t, std::int64_t, double)> step_progress() {
  const auto start = std::chrono::steady_clock::now();
  return [start](std::int64_t step, std::int64_t steps, double t) {
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    spdlog::info("[{:3.0f}%] step {}/{}  t = {:.4g} s  wall {:.1f} s",
                 100.0 * static_cast<double>(step) / static_cast<double>(steps), step, steps, t,
                 wall);
  };
}

/// Linear waves (seed 002): the stability limit, the step, throughput and effective bandwidth.
int run_waves(const Model& model, Backend& backend, parallel::Communicator& world) {
  const CaseSpec& spec = model.spec;
  WaveSolver solver(model, backend, spec.backend, &world);
  const WaveSetup& w = solver.setup();
  spdlog::info(
      "elastodynamic: time step {:.4g} s (stability limit {:.4g} s x {:.3g}), {} steps to t = {} "
      "s; stiffness {} node blocks, {} sources, {} receivers",
      w.time_step, w.limit.critical_time_step, w.time_step / w.limit.critical_time_step,
      w.num_steps, spec.solver.end_time, w.matrix.blocks(), w.sources.size(),
      spec.output.receivers.size());
  WaveRunOptions run;
  run.output_directory = output_directory(spec);
  const bool speaks = world.rank() == 0;  // rank 0 reports for every rank
  install_interrupt_handlers(speaks);
  run.stop_requested = interrupt_requested;
  run.progress = step_progress();
  set_activity("running the elastodynamic solver");
  const WaveRunReport r = solver.run(run);
  if (r.interrupted) {
    if (speaks)
      fmt::print("interrupted at step {} (t = {} s); results so far in {}/\n", r.steps,
                 static_cast<double>(r.steps) * r.time_step, run.output_directory);
    leave_together();
    return kInterrupted;
  }
  if (!speaks) return kOk;
  const std::string ranks =
      r.ranks > 1
          ? fmt::format(", {} ranks, halo exchanges {:.3f} s (rank 0)", r.ranks, r.exchange_s)
          : std::string();
  fmt::print(
      "completed {} steps of {:.4g} s to t = {} s on {} ({}, {} precision{})\n"
      "  elements {}, nodes {}, dofs {}, stiffness blocks {}\n"
      "  wall time: setup {:.3f} s, time steps {:.3f} s, output {:.3f} s, total {:.3f} s\n"
      "  throughput: {:.4g} dof updates/s, effective bandwidth {:.4g} GB/s ({:.0f} bytes/step)\n"
      "  results in {}/ ({}summary.json{})\n",
      r.steps, r.time_step, r.end_time, r.backend, r.execution_space, r.precision, ranks,
      r.num_elements, r.num_nodes, r.dofs, r.matrix_blocks, r.setup_s, r.step_s, r.output_s,
      r.total_s, r.dof_updates_per_second(), r.effective_bandwidth() / 1e9, r.bytes_per_step,
      run.output_directory, frame_indexes(spec),
      spec.output.receivers.empty() ? "" : ", receiver traces");
  return kOk;
}

int run_voxels(const Model& model, Backend& backend, bool time_verbs, const CaseOptions& options,
               const std::string& restart_file) {
  const CaseSpec& spec = model.spec;
  CorotationalRunOptions run;
  run.time_verbs = time_verbs;
  run.output_directory = output_directory(spec);
  run.restart_file = restart_file;
  run.case_text = options.case_text();
  install_interrupt_handlers();
  run.stop_requested = interrupt_requested;
  run.progress = step_progress();
  set_activity("running the corotational solver");
  const CorotationalRunReport r = run_corotational(model, backend, spec.backend, run);
  if (r.interrupted) {
    fmt::print("interrupted at step {}; results so far in {}/\n", r.steps, run.output_directory);
    if (!r.checkpoint.empty())
      fmt::print("  continue with the same command and --restart {}\n", r.checkpoint);
    return kInterrupted;
  }
  std::string levels;
  for (const std::int64_t v : r.level_vertices)
    levels += (levels.empty() ? "" : ", ") + std::to_string(v);
  fmt::print(
      "completed {} steps of {:.4g} s on {} ({}, {} precision)\n"
      "  voxels {}, multigrid levels of {} vertices\n"
      "  residual reduction per V-cycle: mean {:.3g}, worst {:.3g}; coarsest CG {:.1f} "
      "iterations\n"
      "  wall time: setup {:.3f} s, time steps {:.3f} s ({:.4g} steps/s), output {:.3f} s, "
      "total {:.3f} s\n"
      "  results in {}/ ({}summary.json)\n",
      r.steps, r.time_step, r.backend, r.execution_space, r.precision, r.elements, levels,
      r.mean_reduction, r.worst_reduction, r.mean_coarsest_iterations, r.setup_s, r.step_s,
      r.steps_per_second(), r.output_s, r.total_s, run.output_directory, frame_indexes(spec));
  if (time_verbs) {
    const CorotationalPhases& p = r.phases;
    fmt::print(
        "  verbs (s): conditions {:.3f}, rotate {:.3f}, assemble {:.3f}, coarsen {:.3f}, smooth "
        "{:.3f}, transfer {:.3f}, coarsest {:.3f}, residual {:.3f}, newmark {:.3f}\n",
        p.conditions, p.rotate, p.assemble, p.coarsen, p.smooth, p.transfer, p.coarsest, p.residual,
        p.newmark);
  }
  return kOk;
}

}  // namespace

int run_command(const CaseOptions& options, bool quiet, bool time_verbs,
                const std::string& restart_file) {
  try {
    // Quiet keeps warnings; an MPI rank other than 0 already logs errors only (main.cpp).
    if (quiet) spdlog::set_level(std::max(spdlog::get_level(), spdlog::level::warn));
    PreparedCase prepared = prepare_case(options);
    const Model& model = prepared.model;
    const CaseSpec& spec = model.spec;
    std::unique_ptr<Backend> backend = prepared.plugins->create_backend(spec);
    spdlog::info("case {}: {} nodes, {} elements, backend {} ({}), {} precision", spec.file,
                 model.mesh.num_nodes(), model.num_elements(), spec.backend,
                 backend->execution_space(), to_string(spec.precision));

    parallel::Communicator& world = parallel::world();
    if (is_implicit(spec.solver.type)) {
      if (world.size() > 1)
        throw InputError(spec.solver.where,
                         fmt::format("solver.type {} runs on one process, and this run has {}",
                                     to_string(spec.solver.type), world.description()),
                         "run it without mpirun; explicit, dynamic relaxation and elastodynamic "
                         "cases run on several ranks");
      return run_implicit(model, *backend, time_verbs, options, restart_file);
    }
    if (spec.solver.type == SolverType::Elastodynamic) {
      require_fresh_start(spec, restart_file);
      return run_waves(model, *backend, world);
    }
    if (spec.solver.type == SolverType::Corotational) {
      require_one_process(spec, world);
      return run_voxels(model, *backend, time_verbs, options, restart_file);
    }
    ExplicitSolver solver(model, *backend, spec.backend, &world);
    const bool speaks = world.rank() == 0;  // rank 0 reports for every rank
    const ExplicitSetup& setup = solver.setup();
    const bool relaxation = spec.solver.type == SolverType::DynamicRelaxation;
    if (relaxation)
      spdlog::info(
          "dynamic relaxation: fictitious step 1 (mass scaled to critical step 1/{}), at most {} "
          "iterations, tolerance {} m, force_tolerance {}",
          spec.solver.safety_factor, spec.solver.max_iterations, spec.solver.tolerance,
          spec.solver.force_tolerance);
    else
      spdlog::info("time step {:.4g} s (critical {:.4g} s x safety {}), {} steps to t = {} s",
                   setup.system.time_step, setup.critical_time_step, spec.solver.safety_factor,
                   setup.num_steps, spec.solver.end_time);

    ExplicitRunOptions run;
    run.output_directory = output_directory(spec);
    run.restart_file = restart_file;
    run.case_text = options.case_text();
    install_interrupt_handlers(speaks);
    run.stop_requested = interrupt_requested;
    const auto start = std::chrono::steady_clock::now();
    run.progress = [&](std::int64_t step, std::int64_t steps, double t) {
      const double wall =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      const double eta =
          step > 0 ? wall * static_cast<double>(steps - step) / static_cast<double>(step) : 0.0;
      spdlog::info("[{:3.0f}%] step {}/{}  t = {:.4g} s  wall {:.1f} s  eta {:.1f} s",
                   100.0 * static_cast<double>(step) / static_cast<double>(steps), step, steps, t,
                   wall, eta);
    };
    set_activity(fmt::format("running the {} solver", to_string(spec.solver.type)));
    const ExplicitRunReport r = solver.run(run);
    if (r.interrupted) {
      if (speaks) {
        fmt::print("interrupted at step {} (t = {} s); results so far in {}/\n", r.steps,
                   static_cast<double>(r.steps) * r.time_step, run.output_directory);
        if (!r.checkpoint.empty())
          fmt::print("  continue with the same command and --restart {}\n", r.checkpoint);
      }
      leave_together();
      return kInterrupted;
    }
    if (!speaks) return kOk;
    std::string steps = r.fused_step_s > 0
                            ? fmt::format("time steps {:.3f} s", r.fused_step_s)
                            : fmt::format("element pass {:.3f} s, node pass {:.3f} s",
                                          r.element_pass_s, r.node_pass_s);
    if (r.ranks > 1) steps += fmt::format(", exchange and waits {:.3f} s (rank 0)", r.exchange_s);
    if (relaxation)
      fmt::print(
          "converged in {} iterations: estimated error {:.3g} m, relative force residual {:.3g}, "
          "rate {:.5f} per iteration\n",
          r.steps, r.relaxation.error_estimate, r.relaxation.residual_relative,
          std::max(r.relaxation.estimated_rate, r.relaxation.observed_rate));
    for (std::size_t k = 0; k < r.contact_force.size(); ++k)
      fmt::print("  contact '{}': force [{:.4g}, {:.4g}, {:.4g}] N\n",
                 solver.setup().system.surfaces[k].name, r.contact_force[k][0],
                 r.contact_force[k][1], r.contact_force[k][2]);
    fmt::print(
        "completed {} steps of {:.4g} s to t = {} s on {} ({}, {} precision{})\n"
        "  elements {}, nodes {}\n"
        "  wall time: setup {:.3f} s, {}, output {:.3f} s, total {:.3f} s\n"
        "  throughput: {:.4g} element-steps/s\n"
        "  results in {}/ ({}energy.csv, summary.json{})\n",
        r.steps, r.time_step, r.end_time, r.backend, r.execution_space, r.precision,
        r.ranks > 1 ? fmt::format(", {} ranks", r.ranks) : std::string(), r.num_elements,
        r.num_nodes, r.setup_s, steps, r.output_s, r.total_s, r.element_steps_per_second(),
        run.output_directory, frame_indexes(spec),
        spec.output.histories.empty() ? "" : ", histories as <name>.csv");
    return kOk;
  } catch (const std::exception& e) {
    return report_error(e);
  }
}

}  // namespace fem::cli
