#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <filesystem>

#include <fem/solver/explicit_solver.hpp>

#include "commands.hpp"

namespace fem::cli {

std::string output_directory(const CaseSpec& spec) {
  return spec.output.directory.empty() ? spec.name + "_results" : spec.output.directory;
}

int run_command(const CaseOptions& options, bool quiet) {
  try {
    if (quiet) spdlog::set_level(spdlog::level::warn);
    PreparedCase prepared = prepare_case(options);
    const Model& model = prepared.model;
    const CaseSpec& spec = model.spec;
    std::unique_ptr<Backend> backend = prepared.plugins->create_backend(spec.backend);
    spdlog::info("case {}: {} nodes, {} elements, backend {} ({}), {} precision", spec.file,
                 model.mesh.num_nodes(), model.num_elements(), spec.backend,
                 backend->execution_space(), to_string(spec.precision));

    if (is_implicit(spec.solver.type))
      throw Error(std::string("solver type ") + to_string(spec.solver.type) +
                  " is not runnable yet in this build (the implicit solvers are being added)");
    ExplicitSolver solver(model, *backend, spec.backend);
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
    const ExplicitRunReport r = solver.run(run);
    const std::string steps = r.fused_step_s > 0
                                  ? fmt::format("time steps {:.3f} s", r.fused_step_s)
                                  : fmt::format("element pass {:.3f} s, node pass {:.3f} s",
                                                r.element_pass_s, r.node_pass_s);
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
        "completed {} steps of {:.4g} s to t = {} s on {} ({}, {} precision)\n"
        "  elements {}, nodes {}\n"
        "  wall time: setup {:.3f} s, {}, output {:.3f} s, total {:.3f} s\n"
        "  throughput: {:.4g} element-steps/s\n"
        "  results in {}/ ({}.pvd, energy.csv, summary.json{})\n",
        r.steps, r.time_step, r.end_time, r.backend, r.execution_space, r.precision, r.num_elements,
        r.num_nodes, r.setup_s, steps, r.output_s, r.total_s, r.element_steps_per_second(),
        run.output_directory, spec.name,
        spec.output.histories.empty() ? "" : ", histories as <name>.csv");
    return kOk;
  } catch (const std::exception& e) {
    return report_error(e);
  }
}

}  // namespace fem::cli
