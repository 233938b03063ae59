#include "fem/solver/explicit_solver.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <limits>
#include <map>
#include <optional>
#include <sstream>

#include "fem/output/history.hpp"
#include "fem/output/summary.hpp"
#include "fem/output/vtk_series.hpp"

namespace fem {
namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

bool wants(const std::vector<std::string>& list, const std::string& name) {
  return std::find(list.begin(), list.end(), name) != list.end();
}

/// Steps between events for a cadence given in steps or in time; 0/0 means `fallback`.
std::int64_t cadence(int every_steps, double every_time, double dt, std::int64_t fallback) {
  if (every_steps > 0) return every_steps;
  if (every_time > 0) return std::max<std::int64_t>(1, std::llround(every_time / dt));
  return std::max<std::int64_t>(1, fallback);
}

struct History {
  const HistorySpec* spec;
  const std::vector<std::int32_t>* nodes;
  std::int64_t every;
  std::optional<CsvHistory> csv;
};

}  // namespace

double von_mises(const double* s) {
  const double a = s[0] - s[1], b = s[1] - s[2], c = s[2] - s[0];
  return std::sqrt(0.5 * (a * a + b * b + c * c) + 3.0 * (s[3] * s[3] + s[4] * s[4] + s[5] * s[5]));
}

ExplicitSolver::ExplicitSolver(const Model& model, Backend& backend, std::string backend_name)
    : model_(model), backend_(backend), backend_name_(std::move(backend_name)) {
  const auto t0 = Clock::now();
  setup_ = setup_explicit(model_);
  problem_ = backend_.create_explicit(setup_.system, model_.spec.precision);
  setup_s_ = seconds_since(t0);
}

ExplicitSolver::~ExplicitSolver() = default;

ExplicitRunReport ExplicitSolver::run(const ExplicitRunOptions& options) {
  const auto run_start = Clock::now();
  const CaseSpec& spec = model_.spec;
  const System& sys = setup_.system;
  std::int64_t n = setup_.num_steps;  // relaxation: shortened to the converged iteration
  const double dt = sys.time_step;

  ExplicitRunReport report;
  report.steps = 0;
  report.time_step = dt;
  report.critical_time_step = setup_.critical_time_step;
  report.end_time = spec.solver.end_time;
  report.num_elements = model_.num_elements();
  report.num_nodes = model_.mesh.num_nodes();
  report.setup_s = setup_s_;
  report.backend = backend_name_;
  report.execution_space = backend_.execution_space();
  report.precision = to_string(spec.precision);
  ExplicitRunReport::Relaxation& rel = report.relaxation;
  for (const std::string& w : setup_.warnings) spdlog::warn("{}", w);

  const std::string dir = options.output_directory;
  const bool files = options.write_files;
  if (files) std::filesystem::create_directories(dir);

  // Field output.
  std::unique_ptr<VtkSeriesWriter> vtk;
  if (files && spec.output.vtk) {
    if (vtk_output_available())
      vtk = std::make_unique<VtkSeriesWriter>(dir, spec.name, output_mesh(model_));
    else
      spdlog::warn(
          "this fem was built without VTK: no .vtu/.pvd output (set output.vtk: false "
          "to silence this)");
  }
  // Dynamic relaxation writes the start and the converged state, and more frames only when
  // asked (every_steps counts iterations); its histories follow the convergence checks.
  const bool relaxation = spec.solver.type == SolverType::DynamicRelaxation;
  const std::int64_t check_every = spec.solver.check_every;
  const std::int64_t frame_every =
      relaxation ? (spec.output.every_steps > 0 ? spec.output.every_steps : n)
                 : cadence(spec.output.every_steps, spec.output.every_time, dt, n / 20);

  // Histories and the energy record.
  std::vector<History> histories;
  for (const HistorySpec& h : spec.output.histories) {
    History hist{&h,
                 &model_.mesh.node_sets.at(h.set),
                 cadence(h.every_steps, h.every_time, dt, relaxation ? check_every : frame_every),
                 {}};
    if (files) {
      std::vector<std::string> cols;
      for (const std::string& q : h.quantities)
        for (const char* c : {"_x", "_y", "_z"}) cols.push_back(q + c);
      hist.csv.emplace((std::filesystem::path(dir) / (h.name + ".csv")).string(), cols);
      report.files.push_back(hist.csv->path());
    }
    histories.push_back(std::move(hist));
  }
  std::optional<CsvHistory> energy_csv;
  if (files) {
    energy_csv.emplace((std::filesystem::path(dir) / "energy.csv").string(),
                       std::vector<std::string>{"kinetic", "strain", "hourglass"});
    report.files.push_back(energy_csv->path());
  }

  // Contact forces per surface, at every frame (explicit) or convergence check (relaxation).
  std::optional<CsvHistory> contact_csv;
  if (files && !sys.surfaces.empty()) {
    std::vector<std::string> cols;
    for (const RigidSurface& surf : sys.surfaces)
      for (const char* c : {"_x", "_y", "_z"}) cols.push_back(surf.name + c);
    contact_csv.emplace((std::filesystem::path(dir) / "contact.csv").string(), cols);
    report.files.push_back(contact_csv->path());
  }
  std::optional<CsvHistory> convergence_csv;
  if (files && relaxation) {
    convergence_csv.emplace(
        (std::filesystem::path(dir) / "convergence.csv").string(),
        std::vector<std::string>{"increment_max", "residual_max", "residual_relative", "lambda_min",
                                 "damping", "rate", "error_estimate"});
    report.files.push_back(convergence_csv->path());
  }

  std::vector<double> u, u_prev, forces, set_u, set_u_prev;
  std::vector<BlockResults> results;

  // Mean displacement and velocity, and support reaction (internal minus applied force) of a set
  // at step k, from u_k, two states whose difference gives the velocity (all three given at the
  // set's nodes, 3 values per node in set order), and P(u_k).
  const auto history_row = [&](const History& h, std::int64_t k, const std::vector<double>& uk,
                               const std::vector<double>& u_late,
                               const std::vector<double>& u_early, const std::array<double, 3>& p) {
    std::vector<double> row;
    const double t = static_cast<double>(k) * dt;
    const double count = static_cast<double>(h.nodes->size());
    for (const std::string& q : h.spec->quantities) {
      std::array<double, 3> v = {0, 0, 0};
      if (q == "reaction_force") {
        v = p;
        for (const std::int32_t node : *h.nodes)
          for (int i = 0; i < 3; ++i) {
            const std::int64_t d = 3 * node + i;
            if (sys.load_amplitude[d] >= 0)
              v[i] -= sys.load_value[d] * evaluate(sys.amplitudes[sys.load_amplitude[d]], t);
            if (sys.gravity_amplitude >= 0)
              v[i] -= sys.lumped_mass[node] * sys.gravity[i] *
                      evaluate(sys.amplitudes[sys.gravity_amplitude], t);
          }
      } else {
        for (std::size_t j = 0; j < h.nodes->size(); ++j)
          for (int i = 0; i < 3; ++i) {
            const std::size_t d = 3 * j + i;
            v[i] += q == "displacement" ? uk[d] : (u_late[d] - u_early[d]) / dt;
          }
        for (double& x : v) x /= count;
      }
      row.insert(row.end(), v.begin(), v.end());
    }
    return row;
  };

  // A frame at step k from u_k and u_{k-1}; `record` adds its energies to the run's record.
  const auto make_frame = [&](std::int64_t k, const std::vector<double>& uk,
                              const std::vector<double>& ukm1, bool record) {
    OutputFrame frame;
    frame.step = k;
    frame.time = static_cast<double>(k) * dt;
    // Energies at t_{k-1/2}: the kinetic energy of the half-step velocity with the mean of the
    // strain energies at both ends, which keeps the record second-order accurate in dt (pairing
    // a half-step velocity with u_k alone drifts at first order).
    EnergySample energy{frame.time - 0.5 * dt, 0.0, 0.0, 0.0};
    problem_->element_results(ukm1, results);
    for (const BlockResults& r : results) {
      for (const double e : r.strain_energy) energy.strain += 0.5 * e;
      for (const double e : r.hourglass_energy) energy.hourglass += 0.5 * e;
    }
    problem_->element_results(uk, results);
    for (const BlockResults& r : results) {
      for (const double e : r.strain_energy) energy.strain += 0.5 * e;
      for (const double e : r.hourglass_energy) energy.hourglass += 0.5 * e;
    }
    for (std::int64_t i = 0; i < sys.num_nodes; ++i)
      for (int c = 0; c < 3; ++c) {
        const double v = (uk[3 * i + c] - ukm1[3 * i + c]) / dt;
        energy.kinetic += 0.5 * sys.lumped_mass[i] * v * v;
      }
    if (record) report.energies.push_back(energy);
    if (record && energy_csv)
      energy_csv->append(frame.time, k, {energy.kinetic, energy.strain, energy.hourglass});
    const auto& fields = spec.output.fields;
    if (wants(fields, "displacement")) frame.point_fields.push_back({"displacement", 3, uk});
    if (wants(fields, "velocity")) {
      Field v{"velocity", 3, std::vector<double>(uk.size())};
      for (std::size_t i = 0; i < uk.size(); ++i) v.values[i] = (uk[i] - ukm1[i]) / dt;
      frame.point_fields.push_back(std::move(v));
    }
    Field strain{"green_lagrange_strain", 6, {}}, stress{"cauchy_stress", 6, {}};
    Field mises{"von_mises", 1, {}}, block{"block_id", 1, {}};
    for (std::size_t b = 0; b < results.size(); ++b) {
      const BlockResults& r = results[b];
      strain.values.insert(strain.values.end(), r.green_lagrange.begin(), r.green_lagrange.end());
      stress.values.insert(stress.values.end(), r.cauchy_stress.begin(), r.cauchy_stress.end());
      for (std::size_t e = 0; e < r.strain_energy.size(); ++e) {
        mises.values.push_back(von_mises(&r.cauchy_stress[6 * e]));
        block.values.push_back(static_cast<double>(b));
      }
    }
    for (Field* f : {&strain, &stress, &mises, &block})
      if (wants(fields, f->name)) frame.cell_fields.push_back(std::move(*f));
    return frame;
  };

  const auto write_frame = [&](std::int64_t k) {
    const auto t0 = Clock::now();
    problem_->displacement(u);
    problem_->previous_displacement(u_prev);
    report.max_displacement = 0.0;
    for (std::int64_t i = 0; i < sys.num_nodes; ++i)
      report.max_displacement =
          std::max(report.max_displacement, std::hypot(u[3 * i], u[3 * i + 1], u[3 * i + 2]));
    const OutputFrame frame = make_frame(k, u, u_prev, true);
    if (vtk) {
      vtk->write(frame);
      if (vtk->frames_written() == 1) report.files.push_back(vtk->pvd_path());
    }
    report.output_s += seconds_since(t0);
    if (options.progress) options.progress(k, n, frame.time);
  };

  const auto finish_timing = [&] {
    const PhaseTimes times = problem_->phase_times();
    report.element_pass_s = times.element_pass_s;
    report.node_pass_s = times.node_pass_s;
    report.fused_step_s = times.fused_step_s;
    report.total_s = seconds_since(run_start) + setup_s_;
  };
  const auto write_summary = [&](const std::string& status, const std::string& message) {
    finish_timing();
    if (!files) return;
    RunSummary s;
    s.set("case", spec.file);
    s.set("name", spec.name);
    s.set("status", status);
    if (!message.empty()) s.set("error", message);
    s.set("backend", report.backend);
    s.set("execution_space", report.execution_space);
    s.set("precision", report.precision);
    s.set("model.nodes", report.num_nodes);
    s.set("model.elements", report.num_elements);
    s.set("model.total_mass_kg", setup_.total_mass);
    s.set("model.total_volume_m3", setup_.total_volume);
    s.set("solver", to_string(spec.solver.type));
    s.set("time.end_time_s", report.end_time);
    s.set("time.time_step_s", report.time_step);
    s.set("time.critical_time_step_s", report.critical_time_step);
    s.set("time.critical_element", setup_.critical_element);
    s.set("time.steps", report.steps);
    s.set("timing.setup_s", report.setup_s);
    s.set("timing.element_pass_s", report.element_pass_s);
    s.set("timing.node_pass_s", report.node_pass_s);
    s.set("timing.fused_step_s", report.fused_step_s);
    s.set("timing.output_s", report.output_s);
    s.set("timing.total_s", report.total_s);
    s.set("throughput.element_steps_per_s", report.element_steps_per_second());
    s.set("result.max_displacement_m", report.max_displacement);
    if (relaxation) {
      s.set("relaxation.iterations", report.steps);
      s.set("relaxation.converged", rel.converged);
      s.set("relaxation.checks", rel.checks);
      s.set("relaxation.tolerance_m", spec.solver.tolerance);
      s.set("relaxation.force_tolerance", spec.solver.force_tolerance);
      s.set("relaxation.increment_max_m", rel.increment_max);
      s.set("relaxation.residual_max_n", rel.residual_max);
      s.set("relaxation.residual_relative", rel.residual_relative);
      s.set("relaxation.error_estimate_m", rel.error_estimate);
      s.set("relaxation.lambda_min", rel.lambda_min);
      s.set("relaxation.lambda_max", rel.lambda_max);
      s.set("relaxation.damping", rel.damping);
      s.set("relaxation.estimated_rate", rel.estimated_rate);
      s.set("relaxation.observed_rate", rel.observed_rate);
    }
    for (std::size_t k = 0; k < sys.surfaces.size(); ++k)
      for (int i = 0; i < 3; ++i)
        s.set("contact." + sys.surfaces[k].name + ".force_n." + "xyz"[i],
              report.contact_force[k][i]);
    if (!report.energies.empty()) {
      s.set("energy.kinetic_j", report.energies.back().kinetic);
      s.set("energy.strain_j", report.energies.back().strain);
      s.set("energy.hourglass_j", report.energies.back().hourglass);
    }
    const std::string path = (std::filesystem::path(dir) / "summary.json").string();
    s.write(path);
    report.files.push_back(path);
  };

  std::vector<std::int64_t> next_history(histories.size(), 0);
  std::int64_t step = 0;
  std::int64_t next_frame = frame_every;
  write_frame(0);
  std::int64_t next_check = relaxation ? check_every : n + 1;
  rel.lambda_min = setup_.lambda_min;
  rel.lambda_max = setup_.lambda_max;
  rel.damping = sys.mass_damping;
  double previous_increment = 0.0;
  const bool contact = !sys.surfaces.empty();
  report.contact_force.assign(sys.surfaces.size(), {0, 0, 0});
  // One convergence check of dynamic relaxation (seed 003, eq. 7) on the norms of the last
  // iteration; also updates the lowest-eigenvalue estimate and with it the damping.
  const auto check_convergence = [&](const StepNorms& norms) {
    ++rel.checks;
    if (norms.rayleigh_num > 0.0 && norms.rayleigh_den > 0.0) {
      // Rayleigh quotient of the last increment, K du ~ P(u_n) - P(u_{n-1}): for the linearised
      // problem an upper bound of lambda_min. It follows the loading while the loads ramp; once
      // they are applied the estimate only decreases, the smallest bound seen: the increments
      // then carry high modes that contact (the projections onto a rigid surface) keeps
      // exciting and, late, the rounding of P(u_n) - P(u_{n-1}); both only raise the quotient
      // and would over-damp the lowest mode (docs/architecture.md, Dynamic relaxation).
      const double quotient = std::clamp(norms.rayleigh_num / norms.rayleigh_den,
                                         1e-12 * rel.lambda_max, rel.lambda_max);
      rel.lambda_min =
          step > spec.solver.load_iterations ? std::min(rel.lambda_min, quotient) : quotient;
      rel.damping = relaxation_damping(rel.lambda_min, dt);
      problem_->set_node_update(central_difference_update(dt, rel.damping));
    }
    rel.estimated_rate = relaxation_rate(rel.damping, dt);
    rel.observed_rate = previous_increment > 0.0 && norms.increment_max > 0.0
                            ? std::pow(norms.increment_max / previous_increment,
                                       1.0 / static_cast<double>(check_every))
                            : 0.0;
    previous_increment = norms.increment_max;
    const double rho = std::max(rel.estimated_rate, rel.observed_rate);
    rel.increment_max = norms.increment_max;
    rel.residual_max = norms.residual_max;
    rel.residual_relative = norms.internal_max > 0.0 ? norms.residual_max / norms.internal_max
                                                     : (norms.residual_max > 0.0 ? 1.0 : 0.0);
    rel.error_estimate = rho < 1.0 ? rho / (1.0 - rho) * norms.increment_max
                                   : std::numeric_limits<double>::infinity();
    if (convergence_csv)
      convergence_csv->append(static_cast<double>(step), step,
                              {rel.increment_max, rel.residual_max, rel.residual_relative,
                               rel.lambda_min, rel.damping, rho, rel.error_estimate});
    const bool loaded = step >= spec.solver.load_iterations;
    rel.converged = loaded && rel.error_estimate <= spec.solver.tolerance &&
                    (spec.solver.force_tolerance <= 0.0 ||
                     rel.residual_relative <= spec.solver.force_tolerance);
  };
  while (step < n) {
    // Next stop: a frame, a convergence check, or one step past a history sample (its forces
    // come from that pass).
    std::int64_t stop = std::min({next_frame, n, next_check});
    for (const std::int64_t h : next_history)
      if (h < n) stop = std::min(stop, h + 1);
    const bool measure = stop == next_check || (contact && (stop == next_frame || stop == n));
    StepNorms norms;
    const AdvanceResult r = measure ? problem_->advance_measured(step, stop - step, norms)
                                    : problem_->advance(step, stop - step);
    step += r.steps_done;
    report.steps = step;
    if (r.status != AdvanceResult::Status::Ok) {
      const ModelBlock& b = model_.blocks[static_cast<std::size_t>(r.block)];
      const std::int64_t bad_step = step;  // the element pass of this step met the bad state
      std::ostringstream msg;
      msg << "step " << bad_step << " (t = " << static_cast<double>(bad_step) * dt
          << " s): element " << b.first_element + r.element << " (block '" << b.spec->name << "') "
          << (r.status == AdvanceResult::Status::InvertedElement
                  ? "inverted: det F = " + std::to_string(r.value)
                  : std::string("has non-finite values (NaN or Inf)"));
      std::string where;
      if (files) {
        // u_{n-1} is the last state every element accepted (its velocity is not known: zero).
        problem_->previous_displacement(u_prev);
        const OutputFrame frame = make_frame(bad_step - 1, u_prev, u_prev, false);
        if (vtk) where = vtk->write_single(frame, spec.name + "_last_good.vtu");
      }
      msg << "\n  hint: reduce solver.safety_factor or solver.time_step, add mass_damping, "
             "smooth the loading, or refine the mesh where the element is";
      if (!where.empty())
        msg << "\n  the last good state (step " << bad_step - 1 << ") is in " << where;
      write_summary("failed", msg.str());
      throw SolveError(msg.str());
    }
    if (measure) {
      for (std::size_t k = 0; k < sys.surfaces.size(); ++k)
        report.contact_force[k] = norms.contact_force[k];
      report.contact_nodes = norms.contact_nodes;
      if (contact_csv) {
        std::vector<double> row;
        for (const auto& f : report.contact_force) row.insert(row.end(), f.begin(), f.end());
        contact_csv->append(static_cast<double>(step) * dt, step, row);
      }
      if (step == next_check) {
        check_convergence(norms);
        next_check += check_every;
        if (rel.converged) n = step;
      }
    }
    for (std::size_t i = 0; i < histories.size(); ++i) {
      if (next_history[i] + 1 != step) continue;
      if (histories[i].csv) {
        // The state is u_{step}; the sample is step - 1, whose internal forces the last element
        // pass computed. Velocity is the forward difference (u_step - u_{step-1}) / dt.
        problem_->nodal_displacements(*histories[i].nodes, set_u, set_u_prev);
        const auto p = problem_->internal_force_sum(*histories[i].nodes);
        histories[i].csv->append(
            static_cast<double>(step - 1) * dt, step - 1,
            history_row(histories[i], step - 1, set_u_prev, set_u, set_u_prev, p));
      }
      next_history[i] += histories[i].every;
    }
    if (step == next_frame || step == n) {
      write_frame(step);
      next_frame += frame_every;
    }
  }
  // Every history ends with a sample at the last step; it needs one more element pass.
  for (std::size_t i = 0; i < histories.size(); ++i) {
    if (!histories[i].csv) continue;
    if (forces.empty()) {
      problem_->displacement(u);
      problem_->internal_forces(u, forces);
    }
    problem_->nodal_displacements(*histories[i].nodes, set_u, set_u_prev);
    std::array<double, 3> p = {0, 0, 0};
    for (const std::int32_t node : *histories[i].nodes)
      for (int c = 0; c < 3; ++c) p[c] += forces[3 * node + c];
    histories[i].csv->append(static_cast<double>(n) * dt, n,
                             history_row(histories[i], n, set_u, set_u, set_u_prev, p));
  }
  if (relaxation && !rel.converged) {
    std::ostringstream msg;
    msg << "dynamic relaxation did not converge in " << n << " iterations: estimated error "
        << rel.error_estimate << " m (tolerance " << spec.solver.tolerance
        << " m), relative force residual " << rel.residual_relative << " (force_tolerance "
        << spec.solver.force_tolerance << ")"
        << "\n  hint: raise solver.max_iterations, or loosen solver.tolerance / "
           "solver.force_tolerance; convergence.csv shows how the norms evolved"
        << "\n  the last iterate is the final frame of the output";
    write_summary("not_converged", msg.str());
    throw SolveError(msg.str());
  }
  write_summary("completed", "");
  return report;
}

}  // namespace fem
