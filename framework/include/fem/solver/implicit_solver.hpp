// The implicit solvers, host-side orchestration over the operator contract: static analysis by
// load stepping, and implicit dynamics by Newmark, HHT-alpha or backward Euler, each increment
// solved by Newton-Raphson (fem/solver/newton.hpp) with a preconditioned conjugate gradient or a
// direct solve (fem/solver/linear_solver.hpp). docs/implicit.md describes the method.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "fem/backend.hpp"
#include "fem/model.hpp"
#include "fem/operator.hpp"
#include "fem/solver/explicit_system.hpp"
#include "fem/solver/linear_solver.hpp"
#include "fem/solver/newton.hpp"
#include "fem/solver/run_output.hpp"

namespace fem {

class ContactOperator;
class FollowerPressureOperator;

struct ImplicitRunOptions {
  std::string output_directory;
  bool write_files = true;
  /// Synchronise after every backend verb so that the per-verb times are exact. On a GPU each
  /// wait costs 10-20 us, which at small models is most of a CG iteration (seed 001's real-time
  /// mode ran 2-3x slower with them); off, verbs queue without waits and their times count
  /// the launches only (CPU backends are exact either way).
  bool time_verbs = false;
  /// After every increment: (increment, time, Newton iterations, linear iterations).
  std::function<void(std::int64_t, double, int, int)> progress;
  /// After every Newton iteration: (increment, time, the iteration).
  std::function<void(std::int64_t, double, const NewtonIterationRecord&)> iteration;
  /// After every accepted increment: (increment, time, the displacement, 3 per node).
  std::function<void(std::int64_t, double, const std::vector<double>&)> increment_done;
  /// Asked after every accepted increment (`fem run`: whether SIGINT or SIGTERM came): true
  /// stops the run there with a checkpoint, its frame and every file complete; the report says
  /// `interrupted`.
  std::function<bool()> stop_requested;
  /// A checkpoint file to continue from instead of the initial state (`fem run --restart`).
  std::string restart_file;
  /// The case file's text and command-line overrides, recorded in checkpoints.
  std::string case_text;
  /// Not owned: receives the frames, table rows and summary (also without write_files).
  RunSink* sink = nullptr;
};

struct ImplicitRunReport {
  std::string backend, execution_space, precision, solver, preconditioner;
  std::int64_t num_nodes = 0, num_elements = 0, num_dofs = 0, free_dofs = 0;
  std::int64_t increments = 0;       ///< accepted
  std::int64_t cutbacks = 0;         ///< increments retried smaller
  bool interrupted = false;          ///< stopped by stop_requested before the end
  std::int64_t first_increment = 0;  ///< 0, or the increment of the checkpoint continued from
  std::string checkpoint;            ///< the last checkpoint written, "" if none
  std::int64_t newton_iterations = 0;
  std::int64_t linear_iterations = 0;
  /// Solves that CG broke down on (a tangent that is not positive definite) and MINRES redid.
  std::int64_t minres_solves = 0;
  std::int64_t tangents = 0;  ///< tangents formed (fewer than Newton iterations when modified)
  double end_time = 0.0;
  double time_reached = 0.0;
  double smallest_increment = 0.0, largest_increment = 0.0;  ///< s (static: load-time units)
  double critical_time_step = 0.0;  ///< the explicit solver's, for comparison
  double max_displacement = 0.0;    ///< m, at the last increment
  double final_residual = 0.0;      ///< relative, last Newton iteration
  double setup_s = 0.0, solve_s = 0.0, output_s = 0.0, total_s = 0.0;
  VerbTimes verbs;  ///< operator and vector verbs, summed over the run
  double preconditioner_setup_s = 0.0;
  std::vector<std::string> files;
  /// Per increment: time, Newton iterations, linear iterations.
  struct Increment {
    double time = 0.0;
    double size = 0.0;
    int newton_iterations = 0;
    int linear_iterations = 0;
  };
  std::vector<Increment> history;
  /// Contact forces at the last increment, one per entry of `contact:`.
  struct Contact {
    std::string name;
    std::array<double, 3> force = {0, 0, 0};
    std::int64_t active = 0;
    double max_penetration = 0.0;
    double penalty = 0.0;
  };
  std::vector<Contact> contacts;
  std::int64_t augmentations = 0;  ///< augmented-Lagrangian updates, summed
  /// Energies at each output frame (dynamics: kinetic; both: strain).
  std::vector<EnergySample> energies;
  [[nodiscard]] double dof_cg_iterations_per_second() const {
    return verbs.apply.seconds > 0.0
               ? static_cast<double>(free_dofs) * static_cast<double>(verbs.apply.calls) /
                     verbs.apply.seconds
               : 0.0;
  }
};

class ImplicitSolver {
 public:
  ImplicitSolver(const Model& model, Backend& backend, std::string backend_name);
  ~ImplicitSolver();
  ImplicitSolver(const ImplicitSolver&) = delete;
  ImplicitSolver& operator=(const ImplicitSolver&) = delete;

  [[nodiscard]] const ExplicitSetup& setup() const { return setup_; }
  /// Runs to end_time. Throws SolveError when an increment cannot be completed at the smallest
  /// increment allowed, after writing the last converged state and the summary.
  ImplicitRunReport run(const ImplicitRunOptions& options);

  /// Direct access for tests: the operator the solver uses (with contact, the contact decorator
  /// around the backend's).
  [[nodiscard]] NonlinearOperator& op();
  [[nodiscard]] LinearAlgebra& algebra() { return *algebra_; }
  /// The displacement after run() (or the initial one before).
  [[nodiscard]] const std::vector<double>& displacement() const { return u_host_; }
  [[nodiscard]] const std::vector<double>& velocity() const { return v_host_; }
  /// Contact forces on the nodes after run() (3 per node, N; empty without contact).
  [[nodiscard]] const std::vector<double>& contact_forces() const { return contact_host_; }

 private:
  class Run;
  const Model& model_;
  Backend& backend_;
  std::string backend_name_;
  ExplicitSetup setup_;
  std::unique_ptr<LinearAlgebra> algebra_;
  std::unique_ptr<NonlinearOperator> op_;
  std::unique_ptr<ContactOperator> contact_;
  std::unique_ptr<FollowerPressureOperator> pressure_;  ///< wraps contact_ or op_
  double setup_s_ = 0.0;
  std::vector<double> u_host_, v_host_, contact_host_;
};

/// Names of the rigid-body motions (translations x, y, z; rotations about x, y, z) that the
/// prescribed dofs of `system` do not prevent; empty when all six are held. A static solve
/// without them all is singular.
std::vector<std::string> unrestrained_rigid_modes(const System& system);

}  // namespace fem
