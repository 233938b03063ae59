// Follower pressures in explicit dynamics and dynamic relaxation
// (fem/solver/follower_pressure_problem.hpp).
#include "fem/solver/follower_pressure_problem.hpp"

#include <algorithm>
#include <utility>

namespace fem {

namespace {

/// The backend's problem, with the follower loads set before each of its steps; everything else
/// is the backend's.
class FollowerPressureProblem final : public ExplicitProblem {
 public:
  FollowerPressureProblem(std::unique_ptr<ExplicitProblem> inner, FollowerPressureLoads loads)
      : inner_(std::move(inner)), loads_(std::move(loads)) {}

  AdvanceResult advance(std::int64_t first_step, std::int64_t num_steps) override {
    return run(first_step, num_steps, nullptr);
  }
  AdvanceResult advance_measured(std::int64_t first_step, std::int64_t num_steps,
                                 StepNorms& norms) override {
    return run(first_step, num_steps, &norms);
  }
  AdvanceResult advance_step(std::int64_t step, bool keep_forces, StepNorms* norms) override {
    set_loads(step);
    return inner_->advance_step(step, keep_forces, norms);
  }
  void set_node_update(const NodeUpdate& update) override { inner_->set_node_update(update); }
  void displacement(std::vector<double>& u) const override { inner_->displacement(u); }
  void previous_displacement(std::vector<double>& u) const override {
    inner_->previous_displacement(u);
  }
  void set_displacement(const std::vector<double>& u, const std::vector<double>& u_prev) override {
    inner_->set_displacement(u, u_prev);
  }
  void material_state(std::size_t block, std::vector<double>& state) const override {
    inner_->material_state(block, state);
  }
  void set_material_state(std::size_t block, const std::vector<double>& state) override {
    inner_->set_material_state(block, state);
  }
  void nodal_displacements(const std::vector<std::int32_t>& nodes, std::vector<double>& u,
                           std::vector<double>& u_prev) const override {
    inner_->nodal_displacements(nodes, u, u_prev);
  }
  void set_nodal_displacements(const std::vector<std::int32_t>& nodes,
                               const std::vector<double>& u) override {
    inner_->set_nodal_displacements(nodes, u);
  }
  void set_nodal_loads(const std::vector<std::int32_t>& nodes,
                       const std::vector<double>& forces) override {
    inner_->set_nodal_loads(nodes, forces);
  }
  void nodal_internal_forces(const std::vector<std::int32_t>& nodes,
                             std::vector<double>& forces) const override {
    inner_->nodal_internal_forces(nodes, forces);
  }
  void internal_forces(const std::vector<double>& u, std::vector<double>& forces) override {
    inner_->internal_forces(u, forces);
  }
  void element_results(const std::vector<double>& u, std::vector<BlockResults>& out) override {
    inner_->element_results(u, out);
  }
  void element_energies(const std::vector<double>& u, std::vector<BlockResults>& out) override {
    inner_->element_energies(u, out);
  }
  [[nodiscard]] PhaseTimes phase_times() const override { return inner_->phase_times(); }
  [[nodiscard]] std::size_t memory_bytes() const override { return inner_->memory_bytes(); }

 private:
  /// Steps first_step .. first_step + num_steps - 1 one at a time, as advance() or
  /// advance_measured() (norms non-null) would run them.
  AdvanceResult run(std::int64_t first_step, std::int64_t num_steps, StepNorms* norms) {
    AdvanceResult result;
    for (std::int64_t k = 0; k < num_steps; ++k) {
      // The step before the measured one keeps P(u_{n-1}) for the Rayleigh quotient.
      const bool keep = norms != nullptr && k + 2 == num_steps;
      const bool measure = norms != nullptr && k + 1 == num_steps;
      const AdvanceResult r = advance_step(first_step + k, keep, measure ? norms : nullptr);
      if (r.status != AdvanceResult::Status::Ok) {
        result = r;
        result.steps_done = k + r.steps_done;
        return result;
      }
    }
    result.steps_done = num_steps;
    return result;
  }

  /// The loads of step `step`: the dead ones at t = step dt and the pressures on the faces at
  /// X + u_step.
  void set_loads(std::int64_t step) {
    const double t = static_cast<double>(step) * loads_.time_step;
    inner_->nodal_displacements(loads_.nodes, u_, u_prev_);
    // Each curve once, not once per dof (a tabular one searches its points).
    curves_.resize(loads_.amplitudes.size());
    for (std::size_t c = 0; c < curves_.size(); ++c) curves_[c] = evaluate(loads_.amplitudes[c], t);
    forces_.assign(loads_.dead_value.size(), 0.0);
    for (std::size_t d = 0; d < forces_.size(); ++d)
      if (loads_.dead_amplitude[d] >= 0)
        forces_[d] =
            loads_.dead_value[d] * curves_[static_cast<std::size_t>(loads_.dead_amplitude[d])];
    for (const PressureSurface& s : loads_.surfaces) {
      const double p = s.pressure * curves_[static_cast<std::size_t>(s.amplitude)];
      if (p != 0.0) add_pressure_forces(s, p, loads_.coordinates, u_.data(), forces_);
    }
    inner_->set_nodal_loads(loads_.nodes, forces_);
  }

  std::unique_ptr<ExplicitProblem> inner_;
  FollowerPressureLoads loads_;
  std::vector<double> u_, u_prev_, forces_;  ///< at loads_.nodes, reused every step
  std::vector<double> curves_;               ///< each amplitude at the step's time
};

}  // namespace

std::optional<FollowerPressureLoads> take_follower_pressures(System& system) {
  if (system.follower_pressures.empty()) return std::nullopt;
  FollowerPressureLoads loads;
  for (const PressureSurface& s : system.follower_pressures)
    for (const PressureFace& f : s.faces)
      loads.nodes.insert(loads.nodes.end(), f.nodes.begin(), f.nodes.begin() + f.num_nodes);
  std::sort(loads.nodes.begin(), loads.nodes.end());
  loads.nodes.erase(std::unique(loads.nodes.begin(), loads.nodes.end()), loads.nodes.end());
  const auto position = [&](std::int32_t node) {
    return static_cast<std::int32_t>(
        std::lower_bound(loads.nodes.begin(), loads.nodes.end(), node) - loads.nodes.begin());
  };
  for (PressureSurface s : system.follower_pressures) {
    for (PressureFace& f : s.faces)
      for (int a = 0; a < f.num_nodes; ++a) f.nodes[a] = position(f.nodes[a]);
    loads.surfaces.push_back(std::move(s));
  }
  const auto constant = static_cast<std::int32_t>(system.amplitudes.size());
  system.amplitudes.push_back(Amplitude{});  // AmplitudeKind::Constant: a(t) = 1
  for (const std::int32_t n : loads.nodes)
    for (int i = 0; i < 3; ++i) {
      const std::size_t d = 3 * static_cast<std::size_t>(n) + static_cast<std::size_t>(i);
      loads.coordinates.push_back(system.coordinates[d]);
      loads.dead_value.push_back(system.load_value[d]);
      loads.dead_amplitude.push_back(system.load_amplitude[d]);
      system.load_amplitude[d] = constant;
      system.load_value[d] = 0.0;  // until the first step sets it
    }
  loads.amplitudes = system.amplitudes;
  loads.time_step = system.time_step;
  return loads;
}

std::unique_ptr<ExplicitProblem> with_follower_pressures(std::unique_ptr<ExplicitProblem> inner,
                                                         FollowerPressureLoads loads) {
  return std::make_unique<FollowerPressureProblem>(std::move(inner), std::move(loads));
}

std::unique_ptr<ExplicitProblem> create_explicit_problem(
    System& system, const std::function<std::unique_ptr<ExplicitProblem>(const System&)>& make) {
  std::optional<FollowerPressureLoads> loads = take_follower_pressures(system);
  std::unique_ptr<ExplicitProblem> problem = make(system);
  if (!loads) return problem;
  return with_follower_pressures(std::move(problem), std::move(*loads));
}

}  // namespace fem
