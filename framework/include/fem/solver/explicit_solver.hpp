// Explicit central-difference time integration (TLED), host-side orchestration.
//
// The backend runs the steps; this class decides when to stop for output and histories, writes
// them, reports progress, and turns a failed step into a SolveError after saving the last good
// state. The run summary (JSON) is written at the end, also when the run fails.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "fem/backend.hpp"
#include "fem/model.hpp"
#include "fem/parallel/communicator.hpp"
#include "fem/solver/explicit_system.hpp"
#include "fem/solver/run_output.hpp"

namespace fem::parallel {
class PartitionedProblem;
}

namespace fem {

struct ExplicitRunOptions {
  std::string output_directory;  ///< where .pvd/.vtu, CSV and summary.json go
  bool write_files = true;       ///< false: compute only (tests)
  /// Called at every output frame and at the end: (step, num_steps, time).
  std::function<void(std::int64_t, std::int64_t, double)> progress;
  /// Asked between steps, at least every quarter of a second of stepping (`fem run` answers
  /// whether SIGINT or SIGTERM came): true stops the run there, with a checkpoint, the frame of
  /// that step and every file complete, and the report says `interrupted`. Dynamic relaxation
  /// stops at its next convergence check, where its state is complete.
  std::function<bool()> stop_requested;
  /// A checkpoint file to continue from instead of the initial state (`fem run --restart`).
  std::string restart_file;
  /// The case file's text and command-line overrides, recorded in checkpoints.
  std::string case_text;
  /// Not owned: receives the frames, table rows and summary (also without write_files).
  RunSink* sink = nullptr;
};

struct ExplicitRunReport {
  std::int64_t steps = 0;
  double time_step = 0.0;
  double critical_time_step = 0.0;
  double end_time = 0.0;
  std::int64_t num_elements = 0;
  std::int64_t num_nodes = 0;
  double setup_s = 0.0;  ///< geometry precompute + upload to the backend
  /// Of setup_s: the system on the host (geometry, masses, time step, incidence); the rest is
  /// the backend's (its arrays, uploads to a device) and, on several ranks, the partition.
  double setup_system_s = 0.0;
  double element_pass_s = 0.0;  ///< backend, summed over steps
  double node_pass_s = 0.0;
  double fused_step_s = 0.0;  ///< backends that time whole steps (CUDA graphs)
  double exchange_s = 0.0;    ///< several ranks: halo exchange and agreement (PhaseTimes)
  double output_s = 0.0;
  double total_s = 0.0;
  [[nodiscard]] double element_steps_per_second() const {
    const double t = element_pass_s + node_pass_s + fused_step_s + exchange_s;
    return t > 0 ? static_cast<double>(num_elements) * static_cast<double>(steps) / t : 0.0;
  }
  std::vector<EnergySample> energies;  ///< at every output frame
  double max_displacement = 0.0;       ///< m, largest |u| of a node at the last frame
  /// Dynamic relaxation: the state at the last convergence check.
  struct Relaxation {
    bool converged = false;
    std::int64_t checks = 0;
    double increment_max = 0.0;      ///< m, |u(n+1) - u(n)|_inf
    double residual_max = 0.0;       ///< N, |R - P|_inf over free dofs (contact included)
    double residual_relative = 0.0;  ///< residual_max / max |P|
    double lambda_min = 0.0;         ///< estimated lowest eigenvalue of M^-1 K (h = 1)
    double lambda_max = 0.0;
    double damping = 0.0;         ///< c of seed 003 eq. 6
    double estimated_rate = 0.0;  ///< rho = sqrt(beta) from lambda_min
    double observed_rate = 0.0;   ///< (|du| now / |du| a check before)^(1 / check_every)
    double error_estimate = 0.0;  ///< rho / (1 - rho) |du|_inf, rho the larger of the two
    /// The fictitious mass over the setup's: doubled each time an element inverted and the
    /// iteration went back to an earlier state (lambda_min and lambda_max are of it).
    double mass_scale = 1.0;
    std::int64_t restarts = 0;  ///< such returns
  } relaxation;
  /// Contact force of each surface at the last measurement (N), in the order of `contact:`.
  std::vector<std::array<double, 3>> contact_force;
  std::int64_t contact_nodes = 0;  ///< corrections in that step
  std::vector<std::string> files;  ///< files written
  std::int64_t first_step = 0;     ///< 0, or the step of the checkpoint the run continued from
  bool interrupted = false;        ///< stopped by stop_requested before the end
  std::string checkpoint;          ///< the last checkpoint written, "" if none
  std::string backend;
  std::string execution_space;
  std::string precision;
  int ranks = 1;  ///< processes the mesh was split over
};

class ExplicitSolver {
 public:
  /// With a communicator of several processes (`mpirun`), every rank constructs the solver on
  /// the same model and runs its part of the mesh (fem/parallel/partitioned_problem.hpp); rank 0
  /// writes the files.
  ExplicitSolver(const Model& model, Backend& backend, std::string backend_name,
                 parallel::Communicator* comm = nullptr);
  ~ExplicitSolver();

  [[nodiscard]] const ExplicitSetup& setup() const { return setup_; }
  /// Runs to end_time. Throws SolveError on an inverted element or non-finite values.
  ExplicitRunReport run(const ExplicitRunOptions& options);
  /// Direct access for tests: the backend problem after setup.
  [[nodiscard]] ExplicitProblem& problem() { return *problem_; }

 private:
  class Run;
  const Model& model_;
  Backend& backend_;
  std::string backend_name_;
  ExplicitSetup setup_;
  parallel::Communicator* comm_ = nullptr;  ///< null or one process: not partitioned
  std::unique_ptr<ExplicitProblem> problem_;
  /// On several ranks: the partitioned problem (problem_ itself, or the one it wraps).
  const parallel::PartitionedProblem* partitioned_ = nullptr;
  double setup_s_ = 0.0;
  double setup_system_s_ = 0.0;
};

}  // namespace fem
