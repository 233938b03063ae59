#include "fem/solver/explicit_solver.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <deque>
#include <filesystem>
#include <limits>
#include <optional>
#include <sstream>

#include "../core/host_loops.hpp"
#include "fem/output/checkpoint.hpp"
#include "fem/output/frame_series.hpp"
#include "fem/output/history.hpp"
#include "fem/output/summary.hpp"
#include "fem/parallel/output_piece.hpp"
#include "fem/parallel/partitioned_problem.hpp"
#include "fem/solver/follower_pressure_problem.hpp"
#include "fem/solver/restart.hpp"
#include "fem/solver/run_output.hpp"
#include "fem/solver/system_fingerprint.hpp"
#include "wall_clock.hpp"

namespace fem {
namespace {

/// Wall time of one advance() while a stop may be requested: how late a signal is answered.
constexpr double kBatchSeconds = 0.25;
/// Batches are multiples of this many steps (the CUDA backend's graphs hold 64).
constexpr std::int64_t kBatchQuantum = 64;

/// The smallest multiple of `every` greater than `step` (`every` > 0).
std::int64_t next_multiple(std::int64_t step, std::int64_t every) {
  return (step / every + 1) * every;
}

}  // namespace

ExplicitSolver::ExplicitSolver(const Model& model, Backend& backend, std::string backend_name,
                               parallel::Communicator* comm)
    : model_(model),
      backend_(backend),
      backend_name_(std::move(backend_name)),
      comm_(comm != nullptr && comm->size() > 1 ? comm : nullptr) {
  const auto t0 = Clock::now();
  // Every rank sets up the whole system (the same numbers on each), then runs its part.
  setup_ = setup_explicit(model_);
  setup_system_s_ = seconds_since(t0);
  problem_ = create_explicit_problem(
      setup_.system, [&](const System& system) -> std::unique_ptr<ExplicitProblem> {
        if (!comm_) return backend_.create_explicit(system, model_.spec.precision);
        auto partitioned = std::make_unique<parallel::PartitionedProblem>(
            system, backend_, model_.spec.precision, *comm_);
        const parallel::PartitionReport& p = partitioned->report();
        spdlog::info(
            "mesh split over {} ranks (METIS): imbalance {:.3f}, edge cut {}, shared nodes {}; "
            "largest part {} elements and {} nodes ({} ghosts), halo {} bytes per step through "
            "{}",
            p.ranks, p.imbalance, p.edge_cut, p.shared_nodes, p.max_part_elements, p.max_part_nodes,
            p.max_ghost_nodes, p.max_halo_bytes, p.halo_path);
        partitioned_ = partitioned.get();
        return partitioned;
      });
  setup_s_ = seconds_since(t0);
  spdlog::debug("explicit setup: backend arrays and uploads {:.3f} s", setup_s_ - setup_system_s_);
}

ExplicitSolver::~ExplicitSolver() = default;

/// One run of explicit dynamics or dynamic relaxation: the backend advances between stops (a
/// frame, a convergence check, a history sample), and this class writes what each stop asks for.
class ExplicitSolver::Run {
 public:
  Run(ExplicitSolver& solver, const ExplicitRunOptions& options)
      : s_(solver),
        spec_(solver.model_.spec),
        sys_(solver.setup_.system),
        problem_(*solver.problem_),
        options_(options),
        dt_(sys_.time_step),
        n_(solver.setup_.num_steps),
        relaxation_(spec_.solver.type == SolverType::DynamicRelaxation),
        contact_(!sys_.surfaces.empty()),
        dir_(options.output_directory),
        files_(options.write_files || options.sink != nullptr),
        comm_(solver.comm_),
        writes_(options.write_files && (comm_ == nullptr || comm_->rank() == 0)),
        sink_(options.sink) {}

  ExplicitRunReport execute();

 private:
  void start_report();
  void open_outputs();
  /// The step of the next stop: a frame, a convergence check, or one step past a history sample
  /// (its forces come from that pass).
  [[nodiscard]] std::int64_t next_stop() const;
  [[noreturn]] void fail_step(const AdvanceResult& r);
  /// Dynamic relaxation after an inverted element: goes back to a state saved at least five
  /// checks earlier, at rest, with the fictitious mass doubled; false where it cannot (then the
  /// run fails).
  bool restart_relaxation(const AdvanceResult& r);
  /// The node update of dynamic relaxation's damping and fictitious mass.
  [[nodiscard]] NodeUpdate relaxation_update() const {
    NodeUpdate update = central_difference_update(dt_, rel_.damping);
    update.force_scale /= rel_.mass_scale;
    return update;
  }
  void record_measurement(const StepNorms& norms);
  void check_convergence(const StepNorms& norms);
  void sample_histories();
  /// The row of element history `h` at step k, from u_k: the previous state (`previous`) or
  /// the current one.
  void record_element_history(HistoryRecorder& h, std::int64_t k, bool previous);
  void finish_histories();
  /// Appends a history's row at step k from the set's u_k and the two states whose difference
  /// gives the velocity (all at the set's nodes, 3 values per node in set order), and the sum
  /// over the set of the internal forces P(u_k).
  void record_history(HistoryRecorder& h, std::int64_t k, const std::vector<double>& uk,
                      const std::vector<double>& u_late, const std::vector<double>& u_early,
                      const std::array<double, 3>& internal);
  [[nodiscard]] std::vector<double> velocity(const std::vector<double>& u_late,
                                             const std::vector<double>& u_early) const;
  /// The same into `v` (a frame's, reused: its pages are touched once per run).
  void velocity(const std::vector<double>& u_late, const std::vector<double>& u_early,
                std::vector<double>& v) const;
  void write_frame(std::int64_t k);
  void record_energy(std::int64_t k, const std::vector<double>& v);
  void fail_to_converge();
  void finish_timing();
  void write_summary(const std::string& status, const std::string& message);
  void add_relaxation(RunSummary& s) const;
  // Checkpoints, restarts and stops on request.
  /// Steps to run from step_ towards `stop`: all of them, or a batch of about kBatchSeconds when
  /// a stop may be requested. A measured advance keeps at least two steps (its Rayleigh
  /// quotient needs the step before), so batching never changes a result.
  [[nodiscard]] std::int64_t batch_end(std::int64_t stop) const;
  void time_batch(std::int64_t steps, double seconds);
  /// Whether the state after step_ is complete for a checkpoint: any step of explicit dynamics;
  /// a convergence check (or the start) of dynamic relaxation, whose damping estimate and
  /// measured increments live between checks.
  [[nodiscard]] bool at_restart_point() const;
  [[nodiscard]] CheckpointedRun checkpointed() const;
  void write_checkpoint();
  /// The checkpoint of options_.restart_file, refused unless this run can continue it.
  [[nodiscard]] Checkpoint read_restart() const;
  void restore(const Checkpoint& c);
  void stop_on_request();
  /// options_.stop_requested, agreed by every rank (any rank's request stops all).
  [[nodiscard]] bool stop_requested() const;
  /// The steps from step_ to the end, or to a stop on request.
  void step_loop();

  ExplicitSolver& s_;
  const CaseSpec& spec_;
  const System& sys_;
  ExplicitProblem& problem_;
  const ExplicitRunOptions& options_;
  const double dt_;
  std::int64_t n_;  ///< relaxation: shortened to the converged iteration
  const bool relaxation_;
  const bool contact_;
  ExplicitRunReport report_;
  ExplicitRunReport::Relaxation& rel_ = report_.relaxation;
  Clock::time_point start_;
  // Cadences and the loop's position.
  std::int64_t check_every_ = 0, frame_every_ = 1;
  std::int64_t step_ = 0, next_frame_ = 0, next_check_ = 0;
  std::vector<std::int64_t> next_history_;
  double previous_increment_ = 0.0;  ///< |du|_inf at the convergence check before
  /// Dynamic relaxation: states (step, u) at the last checks of the loading phase, oldest first,
  /// for restart_relaxation to return to.
  std::deque<std::pair<std::int64_t, std::vector<double>>> saved_states_;
  void save_relaxation_state();
  std::int64_t checkpoint_every_ = 0, next_checkpoint_ = 0;  ///< 0: no periodic checkpoints
  std::int64_t last_frame_ = -1;                             ///< step of the last frame written
  std::int64_t batch_ = kBatchQuantum;
  const Checkpoint* resume_from_ = nullptr;  ///< while opening the output of a restart
  // Output.
  std::string dir_;
  /// Whether the run has output (files or a sink); every rank takes the same decisions on it
  /// (gathers are collective), and only `writes_` (rank 0) writes files.
  bool files_ = false;
  parallel::Communicator* comm_ = nullptr;  ///< several ranks, or null
  bool writes_ = false;
  RunSink* sink_ = nullptr;
  std::unique_ptr<FrameSeries> series_;  ///< on rank 0, or on every rank writing pieces
  /// Whether frames take element fields (a series or a sink on any rank): the energy record
  /// then evaluates full element results, else the energies alone. The same on every rank,
  /// since a partitioned run gathers either across the ranks.
  bool frame_fields_ = false;
  std::optional<parallel::OutputPiece> piece_;  ///< this rank's piece of a partitioned run
  std::vector<HistoryRecorder> histories_;
  std::unique_ptr<CalculixDat> calculix_dat_;  ///< output.calculix_dat: the node histories
  std::optional<CsvHistory> energy_csv_, contact_csv_, convergence_csv_;
  std::vector<double> u_, u_prev_, frame_velocity_, forces_, set_u_, set_u_prev_;
  LazyFingerprint model_hash_{sys_};  ///< computed when a checkpoint is first written or read
  std::vector<BlockResults> results_;
  std::vector<double> history_u_;              ///< the state an element history samples
  std::vector<BlockResults> history_results_;  ///< its element results
};

void ExplicitSolver::Run::start_report() {
  report_.steps = 0;
  report_.time_step = dt_;
  report_.critical_time_step = s_.setup_.critical_time_step;
  report_.end_time = spec_.solver.end_time;
  report_.num_elements = s_.model_.num_elements();
  report_.num_nodes = s_.model_.mesh.num_nodes();
  report_.setup_s = s_.setup_s_;
  report_.setup_system_s = s_.setup_system_s_;
  report_.backend = s_.backend_name_;
  report_.execution_space = s_.backend_.execution_space();
  report_.precision = to_string(spec_.precision);
  report_.ranks = comm_ ? comm_->size() : 1;
  for (const std::string& w : s_.setup_.warnings) spdlog::warn("{}", w);
}

void ExplicitSolver::Run::open_outputs() {
  if (writes_) std::filesystem::create_directories(dir_);
  if (options_.write_files && comm_) {
    // Several ranks: each writes the piece of every frame it owns the cells of (.pvtu series).
    const OutputMesh mesh = output_mesh(s_.model_);
    piece_ = parallel::output_piece(mesh, s_.partitioned_->partition().element_part, comm_->rank());
    const OutputMesh piece = parallel::piece_mesh(mesh, *piece_);
    series_ = open_frame_series(s_.model_, dir_, &piece, SeriesPiece{comm_}, &s_.backend_);
  } else if (writes_) {
    series_ = open_frame_series(s_.model_, dir_, nullptr, {}, &s_.backend_);
  }
  frame_fields_ = series_ || sink_;
  if (comm_)
    frame_fields_ =
        comm_->all_reduce(std::int64_t{frame_fields_ ? 1 : 0}, parallel::Reduction::Max) != 0;
  // Dynamic relaxation writes the start and the converged state, and more frames only when
  // asked (every_steps counts iterations); its histories follow the convergence checks.
  check_every_ = spec_.solver.check_every;
  frame_every_ =
      relaxation_ ? (spec_.output.every_steps > 0 ? spec_.output.every_steps : n_)
                  : output_cadence(spec_.output.every_steps, spec_.output.every_time, dt_, n_ / 20);
  for (const HistorySpec& h : spec_.output.histories) {
    const std::int64_t every =
        output_cadence(h.every_steps, h.every_time, dt_, relaxation_ ? check_every_ : frame_every_);
    histories_.emplace_back(
        s_.model_, h, every, writes_ ? dir_ : std::string(),
        resume_bytes(resume_from_, (std::filesystem::path(dir_) / (h.name + ".csv")).string()),
        sink_);
    if (writes_) report_.files.push_back(histories_.back().path());
  }
  calculix_dat_ =
      open_calculix_dat(s_.model_, writes_ ? dir_ : std::string(), histories_,
                        resume_from_ ? std::optional<double>(resume_from_->time) : std::nullopt);
  if (calculix_dat_) report_.files.push_back(calculix_dat_->path());
  if (!writes_ && !sink_) return;
  // `name` is the table's: the CSV file's stem.
  const auto open_csv = [&](std::optional<CsvHistory>& csv, const std::string& name,
                            std::vector<std::string> columns) {
    if (sink_) sink_->table(name, columns);
    if (!writes_) return;
    const std::string path = (std::filesystem::path(dir_) / (name + ".csv")).string();
    csv.emplace(path, std::move(columns), resume_bytes(resume_from_, path));
    report_.files.push_back(csv->path());
  };
  open_csv(energy_csv_, "energy", {"kinetic", "strain", "hourglass"});
  // Contact forces per surface, at every frame (explicit) or convergence check (relaxation).
  if (contact_) {
    std::vector<std::string> cols;
    for (const RigidSurface& surf : sys_.surfaces)
      for (const char* c : {"_x", "_y", "_z"}) cols.push_back(surf.name + c);
    open_csv(contact_csv_, "contact", std::move(cols));
  }
  if (relaxation_)
    open_csv(convergence_csv_, "convergence",
             {"increment_max", "residual_max", "residual_relative", "lambda_min", "damping", "rate",
              "error_estimate"});
}

std::vector<double> ExplicitSolver::Run::velocity(const std::vector<double>& u_late,
                                                  const std::vector<double>& u_early) const {
  std::vector<double> v;
  velocity(u_late, u_early, v);
  return v;
}

void ExplicitSolver::Run::velocity(const std::vector<double>& u_late,
                                   const std::vector<double>& u_early,
                                   std::vector<double>& v) const {
  v.resize(u_late.size());
  const auto n = static_cast<std::int64_t>(v.size());
#pragma omp parallel for schedule(static) if (n >= detail::kParallelHostLoopMinimum)
  for (std::int64_t i = 0; i < n; ++i) v[i] = (u_late[i] - u_early[i]) / dt_;
}

// Energies at t_{k-1/2}: the kinetic energy of the half-step velocity v with the mean of the
// strain energies at both ends, which keeps the record second-order accurate in dt (pairing a
// half-step velocity with u_k alone drifts at first order). The row is labelled with that time
// (and step k, whose interval it is the middle of): energies at t_k would need v_k, i.e. u_{k+1}.
// Leaves u_k's results in results_.
void ExplicitSolver::Run::record_energy(std::int64_t k, const std::vector<double>& v) {
  EnergySample energy{static_cast<double>(k) * dt_ - 0.5 * dt_, 0.0, 0.0, 0.0};
  ElementEnergies elements;
  problem_.element_energies(u_prev_, results_);
  add_element_energies(results_, 0.5, elements);
  // The frame written with this record (write_frame) takes its fields from u's results.
  if (frame_fields_)
    problem_.element_results(u_, results_);
  else
    problem_.element_energies(u_, results_);
  add_element_energies(results_, 0.5, elements);
  energy.strain = elements.strain;
  energy.hourglass = elements.hourglass;
  for (std::size_t d = 0; d < v.size(); ++d)
    energy.kinetic += 0.5 * sys_.lumped_mass[d / 3] * v[d] * v[d];
  report_.energies.push_back(energy);
  append_row(energy_csv_, sink_, "energy", energy.time, k,
             {energy.kinetic, energy.strain, energy.hourglass});
}

void ExplicitSolver::Run::write_frame(std::int64_t k) {
  const auto t0 = Clock::now();
  PhaseLog phases("frame at step " + std::to_string(k));
  problem_.displacement(u_);
  problem_.previous_displacement(u_prev_);
  phases.done("displacements copied");
  double largest = 0.0;  // a maximum: the same on any number of threads
#pragma omp parallel for schedule(static) \
    reduction(max                         \
              : largest) if (sys_.num_nodes >= detail::kParallelHostLoopMinimum)
  for (std::int64_t i = 0; i < sys_.num_nodes; ++i)
    largest = std::max(largest, std::hypot(u_[3 * i], u_[3 * i + 1], u_[3 * i + 2]));
  report_.max_displacement = largest;
  velocity(u_, u_prev_, frame_velocity_);
  const std::vector<double>& v = frame_velocity_;
  phases.done("largest displacement and velocities");
  record_energy(k, v);
  phases.done("energy record");
  const double time = static_cast<double>(k) * dt_;
  if (series_ || sink_) {
    OutputFrame frame = make_frame(spec_, k, time, u_, &v, results_);
    if (sink_) sink_->frame(frame);
    if (series_) {
      // Moved: in the background the series owns the frame until its file is written.
      series_->write(piece_ ? parallel::piece_frame(frame, *piece_) : std::move(frame));
      if (series_->frames_written() == 1)
        for (const std::string& index : series_->index_paths()) report_.files.push_back(index);
    }
  }
  phases.done("frame written");
  last_frame_ = k;
  report_.output_s += seconds_since(t0);
  if (options_.progress) options_.progress(k, n_, time);
}

std::int64_t ExplicitSolver::Run::next_stop() const {
  std::int64_t stop = std::min({next_frame_, n_, next_check_});
  for (const std::int64_t h : next_history_)
    if (h < n_) stop = std::min(stop, h + 1);
  return stop;
}

void ExplicitSolver::Run::fail_step(const AdvanceResult& r) {
  const ModelBlock& b = s_.model_.blocks[static_cast<std::size_t>(r.block)];
  const std::int64_t bad_step = step_;  // the element pass of this step met the bad state
  std::ostringstream msg;
  // Dynamic relaxation's iterations have no time (its pseudo step is 1).
  const char* const step_word = relaxation_ ? "iteration " : "step ";
  msg << step_word << bad_step;
  if (!relaxation_) msg << " (t = " << static_cast<double>(bad_step) * dt_ << " s)";
  msg << ": ";
  msg << element_label(s_.model_, b, r.element) << ' '
      << (r.status == AdvanceResult::Status::InvertedElement
              ? "inverted: det F = " + std::to_string(r.value)
              : std::string("has non-finite values (NaN or Inf)"));
  std::string where;
  // On several ranks the parts stop one step apart (the failing one before its node pass), so
  // there is no common last good state; the frames written so far are the record.
  if (series_ && series_->vtk() && comm_ == nullptr) {
    // u_{n-1} is the last state every element accepted (its velocity is not known: zero).
    problem_.previous_displacement(u_prev_);
    problem_.element_results(u_prev_, results_);
    const std::vector<double> v = velocity(u_prev_, u_prev_);
    where = series_->write_single(
        make_frame(spec_, bad_step - 1, static_cast<double>(bad_step - 1) * dt_, u_prev_, &v,
                   results_),
        spec_.name + "_last_good.vtu");
  }
  if (relaxation_ && rel_.restarts > 0)
    msg << ", after " << rel_.restarts
        << " returns to an earlier iteration with a heavier fictitious mass (x" << rel_.mass_scale
        << ")";
  if (relaxation_)
    // time_step and mass_damping do not apply; the ramp is what a finer mesh needs more of
    // (docs/case-reference.md, Dynamic relaxation: measured on the compressed cube).
    msg << "\n  hint: ramp the loads over more iterations (solver.load_iterations, now "
        << spec_.solver.load_iterations
        << "; a finer mesh needs more: nearly incompressible tissue about 50 per element "
           "across the model) or reduce solver.safety_factor (now "
        << spec_.solver.safety_factor << ")";
  else
    msg << "\n  hint: reduce solver.safety_factor or solver.time_step, add mass_damping, "
           "smooth the loading, or refine the mesh where the element is";
  if (!where.empty())
    msg << "\n  the last good state (" << step_word << bad_step - 1 << ") is in " << where;
  else if (comm_ && last_frame_ >= 0)
    msg << "\n  the last frame written is " << step_word << last_frame_;
  write_summary("failed", msg.str());
  throw SolveError(msg.str());
}

bool ExplicitSolver::Run::restart_relaxation(const AdvanceResult& r) {
  // Dynamic relaxation's path to the equilibrium is its own: a fictitious mass, a pseudo step.
  // An element that inverts on the way has met a stiffness the mass was not scaled for (the
  // stable step is estimated on the undeformed mesh; compressed, nearly incompressible tissue
  // stiffens) or an overshoot of the iteration. An earlier state at rest, with twice the mass
  // (the step 1 / sqrt(2) of the stable one before), goes on towards the same equilibrium. On
  // several ranks the parts stop one step apart: no common state to return to (and none saved).
  constexpr std::int64_t kMaxRestarts = 4;
  if (!relaxation_ || saved_states_.empty() || r.status != AdvanceResult::Status::InvertedElement ||
      rel_.restarts >= kMaxRestarts || step_ < 1)
    return false;
  // The state just before the inversion is already on the brink (measured on seed 003's brain
  // at 90 divisions: its neighbour inverts in the next iteration): go back at least five checks,
  // five more at each further return.
  const std::int64_t failed_at = step_;
  const std::int64_t back = 5 * check_every_ * (rel_.restarts + 1);
  while (saved_states_.size() > 1 && saved_states_.back().first > failed_at - back)
    saved_states_.pop_back();
  const auto& [step, u] = saved_states_.back();
  ++rel_.restarts;
  rel_.mass_scale *= 2.0;
  rel_.lambda_max /= 2.0;
  rel_.lambda_min /= 2.0;
  rel_.damping = relaxation_damping(rel_.lambda_min, dt_);
  problem_.set_displacement(u, u);
  problem_.set_node_update(relaxation_update());
  // The cadences stay ahead of the failed iteration: the files' rows stay in step order (the
  // iterations in between run again without rows; the path of relaxation is fictitious).
  step_ = step;
  report_.steps = step_;
  const ModelBlock& b = s_.model_.blocks[static_cast<std::size_t>(r.block)];
  spdlog::warn(
      "dynamic relaxation: {} inverted at iteration {} (det F = {:.3g}); went back to "
      "iteration {} at rest with the fictitious mass x{:g} (restart {} of at most {})",
      element_label(s_.model_, b, r.element), failed_at, r.value, step_, rel_.mass_scale,
      rel_.restarts, kMaxRestarts);
  return true;
}

void ExplicitSolver::Run::save_relaxation_state() {
  // Only while the loads ramp and shortly after (where inversions happen), and on one process
  // (restart_relaxation): a copy of u every check; of those older than the last six, one in
  // five checks is kept (further returns go further back).
  if (!relaxation_ || comm_ != nullptr || step_ > 2 * spec_.solver.load_iterations + 100) {
    saved_states_.clear();
    return;
  }
  if (!saved_states_.empty() && saved_states_.back().first >= step_) return;
  std::vector<double> u;
  problem_.displacement(u);
  saved_states_.emplace_back(step_, std::move(u));
  if (saved_states_.size() > 6) {
    const auto older = saved_states_.end() - 7;
    if (older->first % (5 * check_every_) != 0) saved_states_.erase(older);
  }
}

void ExplicitSolver::Run::record_measurement(const StepNorms& norms) {
  for (std::size_t k = 0; k < sys_.surfaces.size(); ++k)
    report_.contact_force[k] = norms.contact_force[k];
  report_.contact_nodes = norms.contact_nodes;
  if (contact_csv_ || (sink_ && contact_)) {
    std::vector<double> row;
    for (const auto& f : report_.contact_force) row.insert(row.end(), f.begin(), f.end());
    append_row(contact_csv_, sink_, "contact", static_cast<double>(step_) * dt_, step_, row);
  }
  if (step_ == next_check_) {
    save_relaxation_state();
    check_convergence(norms);
    next_check_ += check_every_;
    if (rel_.converged) n_ = step_;
  }
}

// One convergence check of dynamic relaxation (seed 003, eq. 7) on the norms of the last
// iteration; also updates the lowest-eigenvalue estimate and with it the damping.
void ExplicitSolver::Run::check_convergence(const StepNorms& norms) {
  ++rel_.checks;
  if (norms.rayleigh_num > 0.0 && norms.rayleigh_den > 0.0) {
    // Rayleigh quotient of the last increment, K du ~ P(u_n) - P(u_{n-1}): for the linearised
    // problem an upper bound of lambda_min. It follows the loading while the loads ramp; once
    // they are applied the estimate only decreases, the smallest bound seen: the increments
    // then carry high modes that contact (the projections onto a rigid surface) keeps
    // exciting and, late, the rounding of P(u_n) - P(u_{n-1}); both only raise the quotient
    // and would over-damp the lowest mode (docs/architecture.md, Dynamic relaxation).
    // (The backends weigh the increment by the setup's mass: the quotient of the scaled one is
    // that over mass_scale.)
    const double quotient = std::clamp(norms.rayleigh_num / (norms.rayleigh_den * rel_.mass_scale),
                                       1e-12 * rel_.lambda_max, rel_.lambda_max);
    rel_.lambda_min =
        step_ > spec_.solver.load_iterations ? std::min(rel_.lambda_min, quotient) : quotient;
    rel_.damping = relaxation_damping(rel_.lambda_min, dt_);
    problem_.set_node_update(relaxation_update());
  }
  rel_.estimated_rate = relaxation_rate(rel_.damping, dt_);
  rel_.observed_rate = previous_increment_ > 0.0 && norms.increment_max > 0.0
                           ? std::pow(norms.increment_max / previous_increment_,
                                      1.0 / static_cast<double>(check_every_))
                           : 0.0;
  previous_increment_ = norms.increment_max;
  const double rho = std::max(rel_.estimated_rate, rel_.observed_rate);
  rel_.increment_max = norms.increment_max;
  rel_.residual_max = norms.residual_max;
  rel_.residual_relative = norms.internal_max > 0.0 ? norms.residual_max / norms.internal_max
                                                    : (norms.residual_max > 0.0 ? 1.0 : 0.0);
  rel_.error_estimate =
      rho < 1.0 ? rho / (1.0 - rho) * norms.increment_max : std::numeric_limits<double>::infinity();
  if (convergence_csv_ || sink_)
    append_row(convergence_csv_, sink_, "convergence", static_cast<double>(step_), step_,
               {rel_.increment_max, rel_.residual_max, rel_.residual_relative, rel_.lambda_min,
                rel_.damping, rho, rel_.error_estimate});
  const bool loaded = step_ >= spec_.solver.load_iterations;
  rel_.converged = loaded && rel_.error_estimate <= spec_.solver.tolerance &&
                   (spec_.solver.force_tolerance <= 0.0 ||
                    rel_.residual_relative <= spec_.solver.force_tolerance);
}

void ExplicitSolver::Run::record_history(HistoryRecorder& h, std::int64_t k,
                                         const std::vector<double>& uk,
                                         const std::vector<double>& u_late,
                                         const std::vector<double>& u_early,
                                         const std::array<double, 3>& internal) {
  const double t = static_cast<double>(k) * dt_;
  // Load and gravity are subtracted one at a time (not as their sum, applied_force): the rounding
  // the explicit histories have always had.
  std::array<double, 3> reaction = internal;
  for (const std::int32_t node : h.nodes())
    for (int i = 0; i < 3; ++i) {
      const std::int64_t d = 3 * static_cast<std::int64_t>(node) + i;
      reaction[i] -= applied_load(sys_, d, t);
      reaction[i] -= applied_gravity(sys_, d, t);
    }
  h.record(t, k, uk, velocity(u_late, u_early), reaction);
}

// An element history needs the element results of the whole state: one more element pass
// (gathered across the ranks of a partitioned run), at the history's cadence only.
void ExplicitSolver::Run::record_element_history(HistoryRecorder& h, std::int64_t k,
                                                 bool previous) {
  if (previous)
    problem_.previous_displacement(history_u_);
  else
    problem_.displacement(history_u_);
  problem_.element_results(history_u_, history_results_);
  h.record_elements(static_cast<double>(k) * dt_, k, sys_, history_results_);
}

void ExplicitSolver::Run::sample_histories() {
  for (std::size_t i = 0; i < histories_.size(); ++i) {
    if (next_history_[i] + 1 != step_) continue;
    if (files_ && histories_[i].of_elements()) {
      record_element_history(histories_[i], step_ - 1, true);
    } else if (files_) {  // on every rank: the samples are gathered, rank 0 writes them
      // The state is u_{step}; the sample is step - 1, whose internal forces the last element
      // pass computed. Velocity is the forward difference (u_step - u_{step-1}) / dt.
      problem_.nodal_displacements(histories_[i].nodes(), set_u_, set_u_prev_);
      const auto p = problem_.internal_force_sum(histories_[i].nodes());
      record_history(histories_[i], step_ - 1, set_u_prev_, set_u_, set_u_prev_, p);
    }
    next_history_[i] += histories_[i].every();
  }
}

// Every history ends with a sample at the last step; it needs one more element pass.
void ExplicitSolver::Run::finish_histories() {
  for (HistoryRecorder& h : histories_) {
    if (!files_) continue;
    if (h.of_elements()) {
      record_element_history(h, n_, false);
      continue;
    }
    if (forces_.empty()) {
      problem_.displacement(u_);
      problem_.internal_forces(u_, forces_);
    }
    problem_.nodal_displacements(h.nodes(), set_u_, set_u_prev_);
    std::array<double, 3> p = {0, 0, 0};
    for (const std::int32_t node : h.nodes())
      for (int c = 0; c < 3; ++c) p[c] += forces_[3 * node + c];
    record_history(h, n_, set_u_, set_u_, set_u_prev_, p);
  }
}

void ExplicitSolver::Run::fail_to_converge() {
  std::ostringstream msg;
  msg << "dynamic relaxation did not converge in " << n_ << " iterations: estimated error "
      << rel_.error_estimate << " m (tolerance " << spec_.solver.tolerance
      << " m), relative force residual " << rel_.residual_relative << " (force_tolerance "
      << spec_.solver.force_tolerance << ")"
      << "\n  hint: raise solver.max_iterations, or loosen solver.tolerance / "
         "solver.force_tolerance; convergence.csv shows how the norms evolved";
  if (spec_.precision == Precision::Single)
    // Measured (docs/case-reference.md, Dynamic relaxation): fine meshes of nearly
    // incompressible tissue stall in single precision where double converges.
    msg << "\n  hint: in single precision fine meshes of nearly incompressible material can stop "
           "improving (a force residual that stays at 1e-3 to 1e-2 in convergence.csv); run "
           "with --precision double (precision: double)";
  msg << "\n  the last iterate is the final frame of the output";
  write_summary("not_converged", msg.str());
  throw SolveError(msg.str());
}

void ExplicitSolver::Run::finish_timing() {
  const PhaseTimes times = problem_.phase_times();
  report_.element_pass_s = times.element_pass_s;
  report_.node_pass_s = times.node_pass_s;
  report_.fused_step_s = times.fused_step_s;
  report_.exchange_s = times.exchange_s;
  report_.total_s = seconds_since(start_) + s_.setup_s_;
}

void ExplicitSolver::Run::write_summary(const std::string& status, const std::string& message) {
  finish_timing();
  if (series_)
    series_->flush();  // the .pvd/.xdmf list every frame before the summary says the run ended
  if (!writes_ && !sink_) return;
  RunSummary s = summary_header(
      spec_, status, message,
      {report_.backend, report_.execution_space, report_.precision, report_.num_nodes,
       report_.num_elements, s_.setup_.total_mass, s_.setup_.total_volume});
  s.set("time.end_time_s", report_.end_time);
  s.set("time.time_step_s", report_.time_step);
  s.set("time.critical_time_step_s", report_.critical_time_step);
  s.set("time.critical_element", s_.setup_.critical_element);
  s.set("time.steps", report_.steps);
  s.set("timing.setup_s", report_.setup_s);
  s.set("timing.setup_system_s", report_.setup_system_s);
  s.set("timing.element_pass_s", report_.element_pass_s);
  s.set("timing.node_pass_s", report_.node_pass_s);
  s.set("timing.fused_step_s", report_.fused_step_s);
  if (comm_) s.set("timing.exchange_s", report_.exchange_s);
  s.set("timing.output_s", report_.output_s);
  s.set("timing.total_s", report_.total_s);
  s.set("throughput.element_steps_per_s", report_.element_steps_per_second());
  if (const parallel::PartitionedProblem* p = s_.partitioned_) {
    const parallel::PartitionReport& r = p->report();
    s.set("parallel.ranks", r.ranks);
    s.set("parallel.imbalance", r.imbalance);
    s.set("parallel.edge_cut", r.edge_cut);
    s.set("parallel.shared_nodes", r.shared_nodes);
    s.set("parallel.max_part_elements", r.max_part_elements);
    s.set("parallel.max_part_nodes", r.max_part_nodes);
    s.set("parallel.max_ghost_nodes", r.max_ghost_nodes);
    s.set("parallel.max_halo_bytes_per_step", r.max_halo_bytes);
    s.set("parallel.halo_exchange_s", r.exchange_s);
    s.set("parallel.halo_path", r.halo_path);
  }
  s.set("result.max_displacement_m", report_.max_displacement);
  if (relaxation_) add_relaxation(s);
  for (std::size_t k = 0; k < sys_.surfaces.size(); ++k)
    for (int i = 0; i < 3; ++i)
      s.set("contact." + sys_.surfaces[k].name + ".force_n." + "xyz"[i],
            report_.contact_force[k][i]);
  if (std::string path = finish_summary(s, report_.energies, dir_, writes_, sink_); !path.empty())
    report_.files.push_back(std::move(path));
}

void ExplicitSolver::Run::add_relaxation(RunSummary& s) const {
  s.set("relaxation.iterations", report_.steps);
  s.set("relaxation.converged", rel_.converged);
  s.set("relaxation.checks", rel_.checks);
  s.set("relaxation.tolerance_m", spec_.solver.tolerance);
  s.set("relaxation.force_tolerance", spec_.solver.force_tolerance);
  s.set("relaxation.increment_max_m", rel_.increment_max);
  s.set("relaxation.residual_max_n", rel_.residual_max);
  s.set("relaxation.residual_relative", rel_.residual_relative);
  s.set("relaxation.error_estimate_m", rel_.error_estimate);
  s.set("relaxation.lambda_min", rel_.lambda_min);
  s.set("relaxation.lambda_max", rel_.lambda_max);
  s.set("relaxation.damping", rel_.damping);
  s.set("relaxation.estimated_rate", rel_.estimated_rate);
  s.set("relaxation.observed_rate", rel_.observed_rate);
  s.set("relaxation.mass_scale", rel_.mass_scale);
  s.set("relaxation.restarts", rel_.restarts);
}

std::int64_t ExplicitSolver::Run::batch_end(std::int64_t stop) const {
  if (!options_.stop_requested || stop - step_ <= batch_ + 1) return stop;
  return step_ + batch_;
}

void ExplicitSolver::Run::time_batch(std::int64_t steps, double seconds) {
  if (!options_.stop_requested) return;
  if (steps > 0 && seconds > 0.0) {
    const double per_second = static_cast<double>(steps) / seconds;
    const auto target = static_cast<std::int64_t>(kBatchSeconds * per_second);
    batch_ = std::clamp<std::int64_t>(target / kBatchQuantum * kBatchQuantum, kBatchQuantum,
                                      std::int64_t{1} << 40);
  }
  // Ranks stop between the same steps: the slowest one's batch.
  if (comm_) batch_ = comm_->all_reduce(batch_, parallel::Reduction::Min);
}

bool ExplicitSolver::Run::stop_requested() const {
  if (!options_.stop_requested) return false;
  const bool mine = options_.stop_requested();
  if (!comm_) return mine;
  return comm_->all_reduce(std::int64_t{mine ? 1 : 0}, parallel::Reduction::Max) != 0;
}

bool ExplicitSolver::Run::at_restart_point() const {
  return !relaxation_ || step_ % check_every_ == 0;
}

CheckpointedRun ExplicitSolver::Run::checkpointed() const {
  return {spec_,
          sys_.num_nodes,
          material_state_sizes(sys_),
          s_.model_.num_elements(),
          model_hash_.value(),
          dt_,
          s_.backend_name_,
          options_.case_text};
}

void ExplicitSolver::Run::write_checkpoint() {
  const auto t0 = Clock::now();
  Checkpoint c = checkpoint_header(checkpointed(), step_, static_cast<double>(step_) * dt_);
  problem_.displacement(c.displacement);
  problem_.previous_displacement(c.vectors["previous_displacement"]);
  c.material_state.resize(sys_.blocks.size());
  for (std::size_t b = 0; b < sys_.blocks.size(); ++b)
    if (sys_.blocks[b].material->host.num_state > 0)
      problem_.material_state(b, c.material_state[b]);
  if (relaxation_) {
    c.values = {{"relaxation.checks", static_cast<double>(rel_.checks)},
                {"relaxation.increment_max", rel_.increment_max},
                {"relaxation.residual_max", rel_.residual_max},
                {"relaxation.residual_relative", rel_.residual_relative},
                {"relaxation.lambda_min", rel_.lambda_min},
                {"relaxation.damping", rel_.damping},
                {"relaxation.estimated_rate", rel_.estimated_rate},
                {"relaxation.observed_rate", rel_.observed_rate},
                {"relaxation.error_estimate", rel_.error_estimate},
                {"relaxation.previous_increment", previous_increment_},
                {"relaxation.mass_scale", rel_.mass_scale},
                {"relaxation.restarts", static_cast<double>(rel_.restarts)},
                {"relaxation.lambda_max", rel_.lambda_max}};
  }
  c.values["contact.nodes"] = static_cast<double>(report_.contact_nodes);
  for (std::size_t k = 0; k < report_.contact_force.size(); ++k)
    for (int i = 0; i < 3; ++i)
      c.values[fmt::format("contact.{}.{}", k, "xyz"[i])] = report_.contact_force[k][i];
  if (writes_)
    report_.checkpoint =
        write_run_checkpoint(c, spec_, dir_, step_, series_.get(),
                             {&energy_csv_, &contact_csv_, &convergence_csv_}, histories_);
  report_.output_s += seconds_since(t0);
}

Checkpoint ExplicitSolver::Run::read_restart() const {
  const std::string& path = options_.restart_file;
  Checkpoint c = read_checkpoint(path);
  check_checkpoint(c, path, checkpointed());
  const auto refuse = [&](const std::string& why) {
    throw CheckpointError("cannot restart from '" + path + "': " + why);
  };
  if (!c.vectors.contains("previous_displacement") ||
      c.vectors.at("previous_displacement").size() != c.displacement.size())
    refuse("it lacks u_{n-1}, the displacement of the step before");
  if (relaxation_ && (!c.values.contains("relaxation.damping") ||
                      !c.values.contains("relaxation.previous_increment")))
    refuse("it lacks the state of dynamic relaxation");
  if (c.step < 0 || c.step >= n_)
    refuse(fmt::format(
        "it is at step {} (t = {} s) and this run ends at step {}: nothing is left to run (raise "
        "solver.end_time, e.g. with --end-time, to continue past it)",
        c.step, c.time, n_));
  return c;
}

void ExplicitSolver::Run::restore(const Checkpoint& c) {
  problem_.set_displacement(c.displacement, c.vectors.at("previous_displacement"));
  for (std::size_t b = 0; b < sys_.blocks.size(); ++b)
    if (sys_.blocks[b].material->host.num_state > 0)
      problem_.set_material_state(b, c.material_state[b]);
  step_ = c.step;
  report_.first_step = step_;
  report_.steps = step_;
  last_frame_ = step_;  // the run that wrote the checkpoint wrote this step's frame if it was due
  if (relaxation_) {
    const auto value = [&c](const char* name) {
      const auto it = c.values.find(name);
      return it == c.values.end() ? 0.0 : it->second;
    };
    rel_.checks = static_cast<std::int64_t>(value("relaxation.checks"));
    rel_.increment_max = value("relaxation.increment_max");
    rel_.residual_max = value("relaxation.residual_max");
    rel_.residual_relative = value("relaxation.residual_relative");
    rel_.lambda_min = value("relaxation.lambda_min");
    rel_.damping = value("relaxation.damping");
    rel_.estimated_rate = value("relaxation.estimated_rate");
    rel_.observed_rate = value("relaxation.observed_rate");
    rel_.error_estimate = value("relaxation.error_estimate");
    previous_increment_ = value("relaxation.previous_increment");
    if (const auto it = c.values.find("relaxation.mass_scale"); it != c.values.end()) {
      rel_.mass_scale = it->second;
      rel_.restarts = static_cast<std::int64_t>(value("relaxation.restarts"));
      rel_.lambda_max = value("relaxation.lambda_max");
    }
    problem_.set_node_update(relaxation_update());
  }
  if (const auto it = c.values.find("contact.nodes"); it != c.values.end())
    report_.contact_nodes = static_cast<std::int64_t>(it->second);
  for (std::size_t k = 0; k < report_.contact_force.size(); ++k)
    for (int i = 0; i < 3; ++i)
      if (const auto it = c.values.find(fmt::format("contact.{}.{}", k, "xyz"[i]));
          it != c.values.end())
        report_.contact_force[k][i] = it->second;
  // The loop's cadences are multiples of their periods; continue at the next one.
  next_frame_ = next_multiple(step_, frame_every_);
  if (relaxation_) next_check_ = next_multiple(step_, check_every_);
  for (std::size_t i = 0; i < histories_.size(); ++i)
    next_history_[i] =
        (step_ + histories_[i].every() - 1) / histories_[i].every() * histories_[i].every();
  if (checkpoint_every_ > 0) next_checkpoint_ = next_multiple(step_, checkpoint_every_);
  spdlog::info("continuing from step {} (t = {} s) of '{}'", step_, c.time, options_.restart_file);
}

void ExplicitSolver::Run::stop_on_request() {
  report_.interrupted = true;
  std::string message =
      fmt::format("interrupted at step {} (t = {} s)", step_, static_cast<double>(step_) * dt_);
  if (files_) {
    // The checkpoint first: it records the output as an uninterrupted run has it, without the
    // frame of this step that is written next (a restart replaces it).
    if (options_.write_files) write_checkpoint();
    if (last_frame_ != step_) write_frame(step_);
    if (!report_.checkpoint.empty()) message += "; continue with --restart " + report_.checkpoint;
  }
  write_summary("interrupted", message);
}

ExplicitRunReport ExplicitSolver::Run::execute() {
  start_ = Clock::now();
  start_report();
  std::optional<Checkpoint> restart;
  if (!options_.restart_file.empty()) {
    restart = read_restart();
    resume_from_ = &*restart;
  }
  open_outputs();
  next_history_.assign(histories_.size(), 0);
  next_frame_ = frame_every_;
  next_check_ = relaxation_ ? check_every_ : n_ + 1;
  if (const auto& cp = spec_.output.checkpoint; cp && options_.write_files) {
    checkpoint_every_ = output_cadence(cp->every_steps, cp->every_time, dt_, 1);
    next_checkpoint_ = checkpoint_every_;
  }
  rel_.lambda_min = s_.setup_.lambda_min;
  rel_.lambda_max = s_.setup_.lambda_max;
  rel_.damping = sys_.mass_damping;
  report_.contact_force.assign(sys_.surfaces.size(), {0, 0, 0});
  if (restart) {
    restore(*restart);
    if (series_) {
      resume_series(*series_, *restart, dir_);
      for (const std::string& index : series_->index_paths()) report_.files.push_back(index);
    }
    resume_from_ = nullptr;
  } else {
    write_frame(0);
  }
  save_relaxation_state();
  try {
    step_loop();
  } catch (const SolveError&) {
    throw;
  } catch (const Error& e) {
    // An output file that cannot be written (a full disk, a folder gone): one message with
    // where the run stopped. Every file keeps what was completely written before.
    throw Error(
        fmt::format("{}\n  the run stopped at step {} (t = {} s); the files written before "
                    "are complete{}",
                    e.what(), step_, static_cast<double>(step_) * dt_,
                    report_.checkpoint.empty() ? std::string()
                                               : "; the last checkpoint is " + report_.checkpoint));
  }
  if (report_.interrupted) return report_;
  PhaseLog phases("end of run");
  finish_histories();
  phases.done("last history samples");
  if (relaxation_ && !rel_.converged) fail_to_converge();
  write_summary("completed", "");
  phases.done("summary");
  return report_;
}

void ExplicitSolver::Run::step_loop() {
  while (step_ < n_) {
    if (options_.stop_requested && at_restart_point() && stop_requested()) {
      stop_on_request();
      return;
    }
    std::int64_t stop = next_stop();
    // Explicit dynamics stops for checkpoints; dynamic relaxation writes them at checks.
    if (!relaxation_ && checkpoint_every_ > 0) stop = std::min(stop, next_checkpoint_);
    // Norms cost a reduction: only where a check or a contact record needs them.
    const bool measure = stop == next_check_ || (contact_ && (stop == next_frame_ || stop == n_));
    const std::int64_t end = batch_end(stop);
    const auto t0 = Clock::now();
    StepNorms norms;
    const AdvanceResult r = measure && end == stop
                                ? problem_.advance_measured(step_, end - step_, norms)
                                : problem_.advance(step_, end - step_);
    time_batch(r.steps_done, seconds_since(t0));
    step_ += r.steps_done;
    report_.steps = step_;
    if (r.status != AdvanceResult::Status::Ok) {
      if (restart_relaxation(r)) continue;
      fail_step(r);
    }
    if (end != stop) continue;  // a batch on the way: nothing is due yet
    if (measure) record_measurement(norms);
    sample_histories();
    if (step_ == next_frame_ || step_ == n_) {
      write_frame(step_);
      next_frame_ += frame_every_;
    }
    if (checkpoint_every_ > 0 && step_ >= next_checkpoint_ && step_ < n_ && at_restart_point()) {
      write_checkpoint();
      next_checkpoint_ = next_multiple(step_, checkpoint_every_);
    }
  }
}

ExplicitRunReport ExplicitSolver::run(const ExplicitRunOptions& options) {
  Run run(*this, options);
  return run.execute();
}

}  // namespace fem
