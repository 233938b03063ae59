// The implicit solvers (fem/solver/implicit_solver.hpp): increments, time integration and
// output around Newton, all on the backend's vectors.
#include "fem/solver/implicit_solver.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <optional>
#include <sstream>

#include "fem/output/frame_series.hpp"
#include "fem/output/history.hpp"
#include "fem/output/summary.hpp"
#include "fem/solver/restart.hpp"
#include "fem/solver/run_output.hpp"
#include "fem/solver/system_fingerprint.hpp"
#include "implicit_contact.hpp"
#include "implicit_pressure.hpp"
#include "wall_clock.hpp"

namespace fem {
namespace {

/// The checkpoint's name of contact k's multipliers.
std::string contact_multipliers_key(std::size_t k) {
  return "contact_multipliers." + std::to_string(k);
}

double norm(LinearAlgebra& la, const Vector& x) {
  return std::sqrt(la.dot(x, x));
}

/// The time discretisation of a step of size dt, in the form every integrator here shares:
///   a_{n+1} = c0 (u_{n+1} - u_n) + av v_n + aa a_n
///   v_{n+1} = c1 (u_{n+1} - u_n) + vv v_n + va a_n
/// Static analysis, and a static step of a dynamic one, has no inertia (c0 = c1 = 0 and no
/// vectors).
struct Integrator {
  std::string name = "static";
  double beta = 0.25, gamma = 0.5, alpha = 0.0;
  bool backward_euler = false;
  double c0 = 0, c1 = 0, av = 0, aa = 0, vv = 0, va = 0;

  explicit Integrator(const SolverSpec& s) {
    if (s.type != SolverType::ImplicitDynamic) return;
    name = s.integrator;
    backward_euler = s.integrator == "backward_euler";
    beta = s.beta;
    gamma = s.gamma;
    alpha = s.integrator == "hht" ? s.alpha : 0.0;
  }
  /// Whether the current step is dynamic (set_dynamic: each step's procedure).
  [[nodiscard]] bool dynamic() const { return dynamic_; }
  void set_dynamic(bool dynamic) { dynamic_ = dynamic; }
  /// HHT's weight of the new state (1 for Newmark and backward Euler; 1 in a static step).
  [[nodiscard]] double weight() const { return dynamic_ ? 1.0 + alpha : 1.0; }
  /// HHT's alpha in a dynamic step, 0 in a static one.
  [[nodiscard]] double hht_alpha() const { return dynamic_ ? alpha : 0.0; }

  void set_step(double dt) {
    if (!dynamic()) return;
    if (backward_euler) {
      c0 = 1.0 / (dt * dt);
      av = -1.0 / dt;
      aa = 0.0;
      c1 = 1.0 / dt;
      vv = va = 0.0;
    } else {
      c0 = 1.0 / (beta * dt * dt);
      av = -1.0 / (beta * dt);
      aa = -(0.5 / beta - 1.0);
      c1 = gamma / (beta * dt);
      vv = 1.0 - gamma / beta;
      va = dt * (1.0 - 0.5 * gamma / beta);
    }
  }

 private:
  bool dynamic_ = false;
};

/// The increment controller: fixed equal increments, or automatic growth and cutback, step by
/// step: increments end exactly at each step's end, and a new step starts from its own first
/// increment.
class Increments {
 public:
  explicit Increments(const SolverSpec& s) {
    for (const SolverStepSpec& step : analysis_steps(s)) {
      const double start = steps_.empty() ? 0.0 : steps_.back().end;
      const double length = step.end_time - start;
      const IncrementSpec& i = step.increments;
      Step k;
      k.end = step.end_time;
      k.dynamic = step.type == SolverType::ImplicitDynamic;
      if (k.dynamic) {
        k.maximum = k.initial = step.time_step;
        k.minimum = step.time_step * i.minimum;
      } else if (i.count > 0) {
        k.maximum = k.initial = length / i.count;
        k.minimum = k.initial * i.minimum;
      } else {
        k.initial = i.initial * length;
        k.maximum = i.maximum * length;
        k.minimum = i.minimum * length;
      }
      k.growth = i.growth;
      k.cutback = i.cutback;
      k.easy = i.easy_iterations;
      steps_.push_back(k);
    }
    size_ = steps_.front().initial;
  }
  /// The next increment from time t. The last one of a step ends exactly at the step's end, and
  /// takes in a remainder of up to 1 % of an increment rather than leave a sliver for later (a
  /// tiny dynamic step has a huge mass term and a residual at its round-off floor).
  [[nodiscard]] double next(double t) const {
    const double left = step().end - t;
    return left <= size_ * 1.01 ? left : size_;
  }
  /// After an increment that converged in `newton_iterations` and reached time t; returns
  /// whether t ends a step (a frame is written there).
  bool succeeded(int newton_iterations, double t) {
    if (t >= step().end * (1.0 - 1e-12)) {
      if (current_ + 1 < steps_.size()) {
        ++current_;
        size_ = step().initial;
      }
      return true;
    }
    if (newton_iterations <= step().easy) size_ = std::min(size_ * step().growth, step().maximum);
    return false;
  }
  /// Whether the step the next increment belongs to is dynamic.
  [[nodiscard]] bool dynamic() const { return step().dynamic; }
  /// Whether the next increment, from time t, is the first of a step after the first one.
  [[nodiscard]] bool starts_step(double t) const {
    if (current_ == 0) return false;
    const Step& before = steps_[current_ - 1];
    return std::abs(t - before.end) <= 1e-12 * before.end;
  }
  /// Whether the step before the current one was dynamic.
  [[nodiscard]] bool after_dynamic_step() const {
    return current_ > 0 && steps_[current_ - 1].dynamic;
  }
  /// Returns false when the increment would fall below the minimum.
  bool cut() {
    size_ *= step().cutback;
    return size_ >= step().minimum;
  }
  [[nodiscard]] double minimum() const { return step().minimum; }
  /// The first step's largest increment: the scale of output cadences in time.
  [[nodiscard]] double nominal() const { return steps_.front().maximum; }
  /// The size the next increment tries: what a checkpoint saves besides the state.
  [[nodiscard]] double size() const { return size_; }
  /// A restart at time t: the step holding t, and the size its next increment tries.
  void resume(double t, double size) {
    current_ = 0;
    while (current_ + 1 < steps_.size() && t >= steps_[current_].end * (1.0 - 1e-12)) ++current_;
    size_ = size;
  }

 private:
  struct Step {
    double end = 0, initial = 0, minimum = 0, maximum = 0, growth = 1.5, cutback = 0.25;
    int easy = 4;
    bool dynamic = false;
  };
  [[nodiscard]] const Step& step() const { return steps_[current_]; }
  std::vector<Step> steps_;
  std::size_t current_ = 0;
  double size_ = 0;
};

}  // namespace

std::vector<std::string> unrestrained_rigid_modes(const System& s) {
  // The six rigid-body modes about the centroid, restricted to the prescribed dofs: the modes
  // the supports hold span the range of G = sum_d m(d) m(d)^T over prescribed dofs d.
  Eigen::Vector3d centre = Eigen::Vector3d::Zero();
  for (std::int64_t n = 0; n < s.num_nodes; ++n)
    centre +=
        Eigen::Vector3d(s.coordinates[3 * n], s.coordinates[3 * n + 1], s.coordinates[3 * n + 2]);
  centre /= static_cast<double>(std::max<std::int64_t>(1, s.num_nodes));
  double size = 0.0;
  for (std::int64_t n = 0; n < s.num_nodes; ++n)
    for (int i = 0; i < 3; ++i)
      size = std::max(size, std::abs(s.coordinates[3 * n + i] - centre[i]));
  if (!(size > 0.0)) size = 1.0;
  Eigen::Matrix<double, 6, 6> g = Eigen::Matrix<double, 6, 6>::Zero();
  for (std::int64_t n = 0; n < s.num_nodes; ++n) {
    const Eigen::Vector3d x =
        (Eigen::Vector3d(s.coordinates[3 * n], s.coordinates[3 * n + 1], s.coordinates[3 * n + 2]) -
         centre) /
        size;
    for (int k = 0; k < 3; ++k) {
      if (s.prescribed_amplitude[3 * n + k] < 0) continue;
      Eigen::Matrix<double, 6, 1> m = Eigen::Matrix<double, 6, 1>::Zero();
      m[k] = 1.0;  // translation along k
      const Eigen::Vector3d e = Eigen::Vector3d::Unit(k);
      for (int r = 0; r < 3; ++r)  // rotation about r: (e_r x x)_k
        m[3 + r] = Eigen::Vector3d::Unit(r).cross(x).dot(e);
      g += m * m.transpose();
    }
  }
  const Eigen::SelfAdjointEigenSolver<Eigen::Matrix<double, 6, 6>> eig(g);
  const char* names[6] = {"translation along x", "translation along y", "translation along z",
                          "rotation about x",    "rotation about y",    "rotation about z"};
  std::vector<std::string> free_modes;
  const double tol = 1e-10 * std::max(1.0, eig.eigenvalues().maxCoeff());
  for (int v = 0; v < 6; ++v) {
    if (eig.eigenvalues()[v] > tol) continue;
    // Name the null vector by its largest component (its dominant rigid motion).
    int dominant = 0;
    eig.eigenvectors().col(v).cwiseAbs().maxCoeff(&dominant);
    free_modes.push_back(names[dominant]);
  }
  return free_modes;
}

ImplicitSolver::ImplicitSolver(const Model& model, Backend& backend, std::string backend_name)
    : model_(model), backend_(backend), backend_name_(std::move(backend_name)) {
  const auto t0 = Clock::now();
  const CaseSpec& spec = model.spec;
  setup_ = setup_explicit(model);
  System& sys = setup_.system;
  if (has_static_steps(spec.solver)) {
    const std::vector<std::string> free_modes = unrestrained_rigid_modes(sys);
    std::string list;
    for (const std::string& m : free_modes) list += (list.empty() ? "" : ", ") + m;
    if (!free_modes.empty() && !spec.contacts.empty())
      spdlog::warn(
          "the boundary conditions do not prevent {} rigid-body motion(s) ({}): the "
          "contacts must hold the body, or the static tangent is singular",
          free_modes.size(), list);
    else if (!free_modes.empty()) {
      throw InputError(spec.solver.where,
                       "the boundary conditions do not prevent " +
                           std::to_string(free_modes.size()) + " rigid-body motion(s) (" + list +
                           "): the static tangent is singular",
                       std::string("fix enough displacement components to hold the body (for "
                                   "example one face in all three directions), or ") +
                           (spec.solver.type == SolverType::Static
                                ? "use solver type implicit_dynamic, where inertia holds it"
                                : "make the static steps dynamic, where inertia holds it"));
    }
  }
  algebra_ = backend_.create_linear_algebra(spec.precision);
  op_ = backend_.create_operator(sys, *algebra_);
  if (!spec.contacts.empty()) contact_ = std::make_unique<ContactOperator>(*op_, model, sys);
  if (!sys.follower_pressures.empty()) {
    // CG takes the open surfaces' non-symmetric load stiffness (BiCGStab instead); MINRES and
    // the direct solver's factorization are symmetric.
    const LinearSolverSpec& linear = spec.solver.linear;
    pressure_ = std::make_unique<FollowerPressureOperator>(
        contact_ ? static_cast<NonlinearOperator&>(*contact_) : *op_, sys, linear.solver == "cg");
    if (pressure_->nonsymmetric())
      spdlog::info(
          "a follower pressure on an open surface makes the tangent non-symmetric: its load "
          "stiffness enters it whole, and BiCGStab solves it instead of CG");
  }
  u_host_ = sys.initial_displacement;
  v_host_.assign(u_host_.size(), 0.0);
  setup_s_ = seconds_since(t0);
}

ImplicitSolver::~ImplicitSolver() = default;

NonlinearOperator& ImplicitSolver::op() {
  if (pressure_) return *pressure_;
  return contact_ ? static_cast<NonlinearOperator&>(*contact_) : *op_;
}

/// One run: the vectors, the equations of an increment and the output.
class ImplicitSolver::Run final : public IncrementEquations {
 public:
  Run(ImplicitSolver& solver, const ImplicitRunOptions& options)
      : s_(solver),
        spec_(solver.model_.spec),
        sys_(solver.setup_.system),
        la_(*solver.algebra_),
        op_(solver.op()),
        contact_(solver.contact_.get()),
        pressure_(solver.pressure_.get()),
        options_(options),
        integrator_(spec_.solver),
        increments_(spec_.solver) {
    const std::int64_t n = op_.size();
    for (auto* v : {&u_, &u_iter_, &f_ext_, &f_int_, &mass_, &free_, &lift_, &tmp_, &tmp2_, &v_,
                    &a_, &v_new_, &a_new_, &a_hat_, &v_hat_, &g_n_})
      *v = la_.vector(n);
    std::vector<double> mass(static_cast<std::size_t>(n)), free(static_cast<std::size_t>(n));
    for (std::int64_t d = 0; d < n; ++d) {
      mass[d] = sys_.lumped_mass[d / 3];
      free[d] = sys_.prescribed_amplitude[d] < 0 ? 1.0 : 0.0;
      free_dofs_ += sys_.prescribed_amplitude[d] < 0 ? 1 : 0;
    }
    la_.upload(mass, *mass_);
    la_.upload(free, *free_);
    preconditioner_ = make_preconditioner(spec_.solver.linear,
                                          PreconditionerContext{s_.model_, s_.backend_, la_, op_});
    stiffness_scale_ = 1.0;
    dynamic_analysis_ = spec_.solver.type == SolverType::ImplicitDynamic;
  }

  ImplicitRunReport execute();

  // IncrementEquations
  ElementCheck residual(const Vector& u, Vector& r, double& scale) override {
    const ElementCheck check = op_.internal_forces(u, *f_int_);
    if (!check.ok()) return check;
    const double w = integrator_.weight();
    la_.copy(*f_ext_, r);
    la_.axpby(-1.0, *f_int_, 1.0, r);  // f_ext - f_int
    scale = std::max(f_ext_norm_, norm(la_, *f_int_));
    if (integrator_.dynamic()) {
      // a_new = c0 (u - u_n) + a_hat, v_new = c1 (u - u_n) + v_hat
      la_.copy(u, *tmp_);
      la_.axpby(-1.0, *u_, 1.0, *tmp_);
      la_.copy(*a_hat_, *a_new_);
      la_.axpby(integrator_.c0, *tmp_, 1.0, *a_new_);
      la_.copy(*v_hat_, *v_new_);
      la_.axpby(integrator_.c1, *tmp_, 1.0, *v_new_);
      if (spec_.solver.mass_damping > 0.0 || spec_.solver.stiffness_damping > 0.0) {
        damping_force(u, *v_new_, *tmp2_);  // C v_new
        la_.axpby(-1.0, *tmp2_, 1.0, r);
      }
      if (w != 1.0) {  // HHT: (1 + alpha)(f_ext - f_int - C v)_{n+1} - alpha (...)_n
        la_.axpby(-integrator_.hht_alpha(), *g_n_, w, r);
      }
      la_.multiply(*mass_, *a_new_, *tmp_);  // M a_new
      la_.axpby(-1.0, *tmp_, 1.0, r);
      scale = std::max(scale, norm(la_, *tmp_));
    }
    la_.multiply(*free_, r, r);
    return check;
  }

  void linearize(const Vector& u) override {
    op_.linearize(u);
    op_.set_shift(stiffness_scale_, mass_scale_);
    const auto t0 = Clock::now();
    if (spec_.solver.linear.operator_form == "assembled" && !preconditioner_->exact()) {
      CsrMatrix a;
      op_.assemble(a);
      matrix_ = la_.matrix(a);
      matrix_operator_ = std::make_unique<MatrixOperator>(la_, *matrix_);
    }
    preconditioner_->setup(op_, u);
    preconditioner_setup_s_ += seconds_since(t0);
  }

  void apply(const Vector& x, Vector& y) override {
    if (matrix_operator_)
      matrix_operator_->apply(x, y);
    else
      op_.apply(x, y);
  }

  KrylovResult solve(const Vector& b, Vector& du, double eta) override {
    if (preconditioner_->exact()) {
      preconditioner_->apply(b, du);
      KrylovResult r;
      r.iterations = 1;
      r.converged = true;
      return r;
    }
    TangentOperator tangent(op_);
    LinearOperator& a = matrix_operator_ ? static_cast<LinearOperator&>(*matrix_operator_)
                                         : static_cast<LinearOperator&>(tangent);
    // A breakdown at the first iteration is Newton's to handle (NewtonResult::IndefiniteTangent:
    // cut back, or fail naming it).
    if (pressure_ && pressure_->nonsymmetric())
      return bicgstab(la_, a, *preconditioner_, b, du, eta, spec_.solver.linear.max_iterations);
    const int limit = spec_.solver.linear.max_iterations;
    if (spec_.solver.linear.solver == "minres")
      return minres(la_, a, *preconditioner_, b, du, eta, limit);
    const KrylovResult cg = conjugate_gradients(la_, a, *preconditioner_, b, du, eta, limit);
    if (!cg.breakdown || !std::isfinite(cg.relative_residual)) return cg;
    // p . A p <= 0: the tangent is not positive definite (buckling, a limit point, softening).
    // MINRES needs only symmetry and solves it again from zero, the iterations of both counted.
    if (report_.minres_solves++ == 0)
      spdlog::warn(
          "conjugate gradients broke down in increment {}: the tangent is not positive "
          "definite; MINRES solves this and every such system again (linear: {{solver: "
          "minres}} uses it from the start)",
          report_.increments + 1);
    // Where MINRES cannot start either (a preconditioner that is not positive definite), CG's
    // partial solution stays Newton's to use.
    if (!cg_partial_) cg_partial_ = la_.vector(du.size());
    la_.copy(du, *cg_partial_);
    KrylovResult again = minres(la_, a, *preconditioner_, b, du, eta, limit);
    if (again.breakdown && again.iterations == 0) {
      la_.copy(*cg_partial_, du);
      return cg;
    }
    again.iterations += cg.iterations;
    return again;
  }

  void constrain(Vector& x) override { la_.multiply(*free_, x, x); }

 private:
  /// C v = mass_damping M v + stiffness_damping K(u) v (Rayleigh), the tangent taken at u.
  void damping_force(const Vector& u, const Vector& v, Vector& out) {
    if (spec_.solver.mass_damping == 0.0 && spec_.solver.stiffness_damping == 0.0) {
      la_.fill(out, 0.0);
      return;
    }
    la_.multiply(*mass_, v, out);
    la_.axpby(0.0, out, spec_.solver.mass_damping, out);
    if (spec_.solver.stiffness_damping > 0.0) {
      op_.linearize(u);
      op_.set_shift(1.0, 0.0);
      op_.apply(v, *tmp2b());
      op_.set_shift(stiffness_scale_, mass_scale_);
      // apply() returns v itself at prescribed rows: those rows are masked out of r anyway.
      la_.axpby(spec_.solver.stiffness_damping, *tmp2b(), 1.0, out);
    }
  }
  Vector* tmp2b() {
    if (!tmp3_) tmp3_ = la_.vector(op_.size());
    return tmp3_.get();
  }

  /// Loads (and gravity) at time t, on the host, into f_ext; uploaded only when they changed
  /// (on a GPU an upload is a round trip, and constant or absent loads are the rule).
  void set_external_forces(double t) {
    std::vector<double> f(static_cast<std::size_t>(op_.size()));
    double sq = 0.0;
    for (std::int64_t d = 0; d < op_.size(); ++d) {
      f[d] = applied_force(sys_, d, t);
      sq += f[d] * f[d];
    }
    // Follower pressures are part of the internal forces (implicit_pressure.hpp); their size on
    // the reference surface joins the force scale Newton's tolerance is relative to.
    if (pressure_)
      for (const double p : pressure_->forces_at(t, {})) sq += p * p;
    f_ext_norm_ = std::sqrt(sq);
    if (f == f_ext_host_) return;
    la_.upload(f, *f_ext_);
    f_ext_host_ = std::move(f);
  }

  /// Whether any load (gravity and pressures included) or prescribed value differs between t0
  /// and t1. Where none does, a static increment between them poses the same problem whatever
  /// its size: cutting it back cannot help.
  [[nodiscard]] bool loading_differs(double t0, double t1) const {
    for (std::int64_t d = 0; d < op_.size(); ++d) {
      if (applied_force(sys_, d, t0) != applied_force(sys_, d, t1)) return true;
      const std::int32_t amp = sys_.prescribed_amplitude[d];
      if (amp >= 0 && sys_.prescribed_value[d] != 0.0 &&
          evaluate(sys_.amplitudes[amp], t0) != evaluate(sys_.amplitudes[amp], t1))
        return true;
    }
    return pressure_ && pressure_->forces_at(t0, {}) != pressure_->forces_at(t1, {});
  }

  /// Prescribed values at t minus the current ones at prescribed dofs (zero elsewhere).
  void set_lift(double t, const std::vector<double>& u_now) {
    std::vector<double> lift(static_cast<std::size_t>(op_.size()), 0.0);
    lift_nonzero_ = false;
    for (std::int64_t d = 0; d < op_.size(); ++d) {
      const std::int32_t amp = sys_.prescribed_amplitude[d];
      if (amp < 0) continue;
      lift[d] = sys_.prescribed_value[d] * evaluate(sys_.amplitudes[amp], t) - u_now[d];
      lift_nonzero_ |= lift[d] != 0.0;
    }
    if (lift_nonzero_) la_.upload(lift, *lift_);  // unused otherwise
  }

  /// The shift of the effective tangent for the current step: A = s_K K + s_M M.
  void set_shift(double dt) {
    integrator_.set_step(dt);
    if (!integrator_.dynamic()) {
      stiffness_scale_ = 1.0;
      mass_scale_ = 0.0;
      return;
    }
    const double w = integrator_.weight();
    stiffness_scale_ = w * (1.0 + integrator_.c1 * spec_.solver.stiffness_damping);
    mass_scale_ = integrator_.c0 + w * integrator_.c1 * spec_.solver.mass_damping;
  }

  /// Histories, and a frame where `frame`; u_host_ already holds u where `u_on_host`.
  /// The histories due at `increment` (with_histories) and, with `frame`, a frame and the
  /// energy row.
  void write_output(std::int64_t increment, double t, bool frame, bool u_on_host = false,
                    bool with_histories = true);
  /// Hands the final state to the solver (ImplicitSolver::u_host_, ...).
  void keep_final_state();
  // Checkpoints and restarts: the state after an accepted increment is u, v, a (and HHT's
  // forces of the step before), the time and the size the next increment tries.
  [[nodiscard]] CheckpointedRun checkpointed() const;
  void write_checkpoint(std::int64_t increment, double t);
  /// The checkpoint of options_.restart_file, refused unless this run can continue it.
  [[nodiscard]] Checkpoint read_restart() const;
  void write_summary(const std::string& status, const std::string& message);
  [[noreturn]] void fail(const std::string& message);
  /// f_int at the initial state; fails where the prescribed values at t = 0 invert an element.
  void check_initial_state();
  /// The state a dynamic step starts from, with v, f_ext and f_int current: the acceleration
  /// that balances the forces at the free dofs, M a = f_ext - f_int - C v (and HHT's forces of
  /// the step before).
  void start_dynamics();
  /// At time t, where a step after the first starts: a dynamic step starts with the
  /// acceleration its forces give (at rest after a static step); a static step has no velocity.
  void start_step(double t);

  ImplicitSolver& s_;
  const CaseSpec& spec_;
  const System& sys_;
  LinearAlgebra& la_;
  NonlinearOperator& op_;
  ContactOperator* contact_;            ///< null without contact
  FollowerPressureOperator* pressure_;  ///< null without follower pressures
  const ImplicitRunOptions& options_;
  Integrator integrator_;
  Increments increments_;
  /// Whether any step is dynamic: velocities are output, kinetic energy and checkpoints kept.
  bool dynamic_analysis_ = false;
  std::unique_ptr<Preconditioner> preconditioner_;
  std::unique_ptr<Matrix> matrix_;
  std::unique_ptr<MatrixOperator> matrix_operator_;
  std::unique_ptr<Vector> u_, u_iter_, f_ext_, f_int_, mass_, free_, lift_, tmp_, tmp2_, tmp3_, v_,
      a_, v_new_, a_new_, a_hat_, v_hat_, g_n_;
  std::unique_ptr<Vector> cg_partial_;  ///< CG's solution while MINRES solves the system again
  double f_ext_norm_ = 0.0, stiffness_scale_ = 1.0, mass_scale_ = 0.0;
  double preconditioner_setup_s_ = 0.0;
  bool lift_nonzero_ = false;
  std::int64_t free_dofs_ = 0;
  ImplicitRunReport report_;
  // Output.
  std::string dir_;
  bool files_ = false;
  RunSink* sink_ = nullptr;
  std::unique_ptr<FrameSeries> series_;
  std::vector<HistoryRecorder> histories_;
  std::unique_ptr<CalculixDat> calculix_dat_;  ///< output.calculix_dat: the node histories
  std::optional<CsvHistory> energy_csv_, convergence_csv_, contact_csv_;
  std::int64_t frame_every_ = 1;
  std::int64_t checkpoint_every_ = 0;  ///< increments; 0: no periodic checkpoints
  LazyFingerprint model_hash_{sys_};   ///< computed when a checkpoint is first written or read
  std::vector<double> u_host_, v_host_, f_host_, f_ext_host_;
  std::vector<BlockResults> results_;
  Clock::time_point start_;
};

void ImplicitSolver::Run::write_output(std::int64_t increment, double t, bool frame, bool u_on_host,
                                       bool with_histories) {
  const auto t0 = Clock::now();
  if (!u_on_host) la_.download(*u_, u_host_);
  if (dynamic_analysis_ && (frame || !histories_.empty())) la_.download(*v_, v_host_);
  report_.max_displacement = 0.0;
  for (std::size_t i = 0; 3 * i < u_host_.size(); ++i)
    report_.max_displacement =
        std::max(report_.max_displacement,
                 std::hypot(u_host_[3 * i], u_host_[3 * i + 1], u_host_[3 * i + 2]));
  // Histories: mean displacement and velocity of a set, and its reaction (internal minus applied
  // forces at its nodes; f_int is the last evaluation's, at the accepted state).
  if (!histories_.empty() && with_histories) la_.download(*f_int_, f_host_);
  bool have_results = false;  // element results of u_host_, for element histories and the frame
  for (HistoryRecorder& h : histories_) {
    if (!with_histories) break;
    if (increment % h.every() != 0 && t < spec_.solver.end_time * (1 - 1e-12)) continue;
    if (h.of_elements()) {
      if (!have_results) op_.element_results(u_host_, results_);
      have_results = true;
      h.record_elements(t, increment, sys_, results_);
      continue;
    }
    std::vector<double> u_nodes, v_nodes;
    std::array<double, 3> reaction = {0, 0, 0};
    for (const std::int32_t node : h.nodes())
      for (int i = 0; i < 3; ++i) {
        const std::int64_t d = 3 * static_cast<std::int64_t>(node) + i;
        u_nodes.push_back(u_host_[d]);
        v_nodes.push_back(dynamic_analysis_ ? v_host_[d] : 0.0);
        reaction[i] += f_host_[d] - applied_force(sys_, d, t);
      }
    h.record(t, increment, u_nodes, v_nodes, reaction);
  }
  if (frame) {
    if (!have_results) op_.element_results(u_host_, results_);
    EnergySample e;
    e.time = t;
    const ElementEnergies el = element_energies(results_);
    e.strain = el.strain;
    e.hourglass = el.hourglass;
    if (dynamic_analysis_)
      for (std::size_t d = 0; d < v_host_.size(); ++d)
        e.kinetic += 0.5 * sys_.lumped_mass[d / 3] * v_host_[d] * v_host_[d];
    report_.energies.push_back(e);
    append_row(energy_csv_, sink_, "energy", t, increment, {e.kinetic, e.strain, e.hourglass});
    if (series_ || sink_) {
      OutputFrame output = make_frame(spec_, increment, t, u_host_,
                                      dynamic_analysis_ ? &v_host_ : nullptr, results_);
      // Contact forces per node (the pressure times the tributary area), where contact is.
      if (contact_) output.point_fields.push_back({"contact_force", 3, contact_->nodal_forces()});
      if (sink_) sink_->frame(output);
      if (series_) {
        series_->write(std::move(output));  // in the background the series owns it
        if (series_->frames_written() == 1)
          for (const std::string& index : series_->index_paths()) report_.files.push_back(index);
      }
    }
  }
  report_.output_s += seconds_since(t0);
}

void ImplicitSolver::Run::write_summary(const std::string& status, const std::string& message) {
  if (series_)
    series_->flush();  // the .pvd/.xdmf list every frame before the summary says the run ended
  report_.verbs = op_.times();
  report_.verbs += la_.times();
  report_.preconditioner_setup_s = preconditioner_setup_s_;
  // Again at the end: a preconditioner's name reports what its setups found (a fallback taken,
  // coarse levels scaled back).
  report_.preconditioner =
      spec_.solver.linear.solver == "direct" ? "direct" : preconditioner_->name();
  report_.total_s = seconds_since(start_) + report_.setup_s;
  if (!files_ && !sink_) return;
  RunSummary s = summary_header(
      spec_, status, message,
      {report_.backend, report_.execution_space, report_.precision, report_.num_nodes,
       report_.num_elements, s_.setup_.total_mass, s_.setup_.total_volume});
  s.set("model.dofs", report_.num_dofs);
  s.set("model.free_dofs", report_.free_dofs);
  if (dynamic_analysis_) {
    s.set("time.integrator", integrator_.name);
    s.set("time.time_step_s", spec_.solver.time_step);
    s.set("time.critical_time_step_s", report_.critical_time_step);
  }
  s.set("time.end_time_s", report_.end_time);
  s.set("time.reached_s", report_.time_reached);
  s.set("implicit.increments", report_.increments);
  s.set("implicit.cutbacks", report_.cutbacks);
  s.set("implicit.smallest_increment", report_.smallest_increment);
  s.set("implicit.largest_increment", report_.largest_increment);
  s.set("implicit.newton_iterations", report_.newton_iterations);
  s.set("implicit.tangents", report_.tangents);
  s.set("implicit.linear_iterations", report_.linear_iterations);
  s.set("implicit.minres_solves", report_.minres_solves);
  s.set("implicit.linear_solver", spec_.solver.linear.solver);
  s.set("implicit.preconditioner", report_.preconditioner);
  s.set("implicit.operator", spec_.solver.linear.operator_form);
  s.set("implicit.newton_method", spec_.solver.newton.method);
  s.set("implicit.final_relative_residual", report_.final_residual);
  s.set("timing.setup_s", report_.setup_s);
  s.set("timing.solve_s", report_.solve_s);
  s.set("timing.output_s", report_.output_s);
  s.set("timing.total_s", report_.total_s);
  s.set("timing.preconditioner_setup_s", report_.preconditioner_setup_s);
  // Whether timing.verbs are exact (fem run --time-verbs) or, on a GPU, launch times.
  s.set("timing.verbs_synchronized", options_.time_verbs);
  const VerbTimes& v = report_.verbs;
  const std::pair<const char*, const VerbTime*> verbs[] = {
      {"residual", &v.residual},   {"linearize", &v.linearize}, {"apply", &v.apply},
      {"diagonal", &v.diagonal},   {"assemble", &v.assemble},   {"vector", &v.vector},
      {"reduction", &v.reduction}, {"transfer", &v.transfer},   {"sparse", &v.sparse},
      {"replay", &v.replay}};
  for (const auto& [name, t] : verbs) {
    s.set(std::string("timing.verbs.") + name + ".s", t->seconds);
    s.set(std::string("timing.verbs.") + name + ".calls", t->calls);
  }
  if (v.apply.seconds > 0.0)
    s.set("throughput.dof_cg_iterations_per_s", report_.dof_cg_iterations_per_second());
  s.set("result.max_displacement_m", report_.max_displacement);
  for (const auto& c : report_.contacts) {
    for (int i = 0; i < 3; ++i) s.set("contact." + c.name + ".force_n." + "xyz"[i], c.force[i]);
    s.set("contact." + c.name + ".active_nodes", c.active);
    s.set("contact." + c.name + ".max_penetration_m", c.max_penetration);
    s.set("contact." + c.name + ".penalty_pa_per_m", c.penalty);
  }
  if (report_.augmentations > 0) s.set("implicit.augmentations", report_.augmentations);
  if (std::string path = finish_summary(s, report_.energies, dir_, files_, sink_); !path.empty())
    report_.files.push_back(std::move(path));
}

void ImplicitSolver::Run::check_initial_state() {
  const ElementCheck check = op_.internal_forces(*u_, *f_int_);
  if (check.ok()) return;
  fail("the displacements prescribed at t = 0 invert element " + std::to_string(check.element) +
       " of block " + std::to_string(check.block) +
       "\n  hint: a prescribed displacement without an amplitude applies in full at t = 0; "
       "ramp it from zero with an amplitude (amplitudes: {ramp: {type: linear, start: 0, end: "
       "1}}, then amplitude: ramp on the boundary condition)");
}

void ImplicitSolver::Run::start_dynamics() {
  // M a0 = f_ext - f_int - C v0 at free dofs.
  la_.copy(*f_ext_, *a_);
  la_.axpby(-1.0, *f_int_, 1.0, *a_);
  damping_force(*u_, *v_, *tmp2_);
  la_.axpby(-1.0, *tmp2_, 1.0, *a_);
  std::vector<double> inverse_mass(static_cast<std::size_t>(op_.size()));
  for (std::int64_t d = 0; d < op_.size(); ++d)
    inverse_mass[d] = sys_.prescribed_amplitude[d] < 0 ? 1.0 / sys_.lumped_mass[d / 3] : 0.0;
  la_.upload(inverse_mass, *tmp_);
  la_.multiply(*tmp_, *a_, *a_);
  if (integrator_.alpha != 0.0) {
    la_.copy(*f_ext_, *g_n_);
    la_.axpby(-1.0, *f_int_, 1.0, *g_n_);
    la_.axpby(-1.0, *tmp2_, 1.0, *g_n_);
  }
}

void ImplicitSolver::Run::start_step(double t) {
  if (!increments_.dynamic()) {  // a static step has no velocity or acceleration
    la_.fill(*v_, 0.0);
    la_.fill(*a_, 0.0);
    return;
  }
  if (!increments_.after_dynamic_step()) la_.fill(*v_, 0.0);  // from rest after a static step
  // The forces just after t: a load that the step changes at its start (a jump, which a tabular
  // curve takes right after its time) is the step's, as at a first dynamic step's start (and in
  // CalculiX, which computes a *DYNAMIC step's initial acceleration with its loads); a
  // continuous load is the same either way.
  const double after = std::nextafter(t, std::numeric_limits<double>::infinity());
  if (contact_) contact_->set_time(after);
  if (pressure_) pressure_->set_time(after);
  set_external_forces(after);
  const ElementCheck check = op_.internal_forces(*u_, *f_int_);
  if (!check.ok())  // the accepted state of the step before: it cannot invert
    fail(fmt::format(
        "{} is inverted or non-finite at t = {}, where a dynamic step starts",
        element_label(s_.model_, s_.model_.blocks[static_cast<std::size_t>(check.block)],
                      check.element),
        t));
  start_dynamics();
}

void ImplicitSolver::Run::fail(const std::string& message) {
  write_summary("failed", message);
  throw SolveError(message);
}

ImplicitRunReport ImplicitSolver::Run::execute() {
  start_ = Clock::now();
  report_.backend = s_.backend_name_;
  report_.execution_space = s_.backend_.execution_space();
  report_.precision = to_string(spec_.precision);
  report_.solver = to_string(spec_.solver.type);
  report_.preconditioner =
      spec_.solver.linear.solver == "direct" ? "direct" : preconditioner_->name();
  report_.num_nodes = s_.model_.mesh.num_nodes();
  report_.num_elements = s_.model_.num_elements();
  report_.num_dofs = op_.size();
  report_.free_dofs = free_dofs_;
  report_.end_time = spec_.solver.end_time;
  report_.critical_time_step = s_.setup_.critical_time_step;
  report_.setup_s = s_.setup_s_;
  report_.smallest_increment = std::numeric_limits<double>::infinity();
  for (const std::string& w : s_.setup_.warnings) spdlog::warn("{}", w);
  const double end = spec_.solver.end_time;

  dir_ = options_.output_directory;
  files_ = options_.write_files;
  sink_ = options_.sink;
  la_.set_timing(options_.time_verbs);
  std::optional<Checkpoint> restart;
  if (!options_.restart_file.empty()) restart = read_restart();
  const Checkpoint* resume = restart ? &*restart : nullptr;
  const auto output_path = [&](const std::string& name) {
    return (std::filesystem::path(dir_) / name).string();
  };
  if (files_) {
    std::filesystem::create_directories(dir_);
    series_ = open_frame_series(s_.model_, dir_, nullptr, {}, &s_.backend_);
  }
  // `name` is the table's: the CSV file's stem.
  const auto open_csv = [&](std::optional<CsvHistory>& csv, const std::string& name,
                            std::vector<std::string> columns) {
    if (sink_) sink_->table(name, columns);
    if (!files_) return;
    const std::string path = output_path(name + ".csv");
    csv.emplace(path, std::move(columns), resume_bytes(resume, path));
    report_.files.push_back(csv->path());
  };
  open_csv(energy_csv_, "energy", {"kinetic", "strain", "hourglass"});
  open_csv(convergence_csv_, "convergence",
           {"increment", "iteration", "residual", "relative_residual", "energy", "line_search",
            "linear_tolerance", "linear_iterations", "linear_residual", "wall_s"});
  if (contact_) {
    std::vector<std::string> cols;
    for (const ContactSpec& c : spec_.contacts)
      for (const char* q : {"_x", "_y", "_z", "_active", "_penetration"})
        cols.push_back(c.name + q);
    open_csv(contact_csv_, "contact", std::move(cols));
  }
  const double nominal = increments_.nominal();
  const auto expected = static_cast<std::int64_t>(std::ceil(end / nominal - 1e-9));
  frame_every_ = output_cadence(spec_.output.every_steps, spec_.output.every_time, nominal,
                                std::max<std::int64_t>(1, expected / 20));
  for (const HistorySpec& h : spec_.output.histories) {
    histories_.emplace_back(s_.model_, h, output_cadence(h.every_steps, h.every_time, nominal, 1),
                            files_ ? dir_ : std::string(),
                            resume_bytes(resume, output_path(h.name + ".csv")), sink_);
    if (files_) report_.files.push_back(histories_.back().path());
  }
  calculix_dat_ = open_calculix_dat(s_.model_, files_ ? dir_ : std::string(), histories_,
                                    restart ? std::optional<double>(restart->time) : std::nullopt);
  if (calculix_dat_) report_.files.push_back(calculix_dat_->path());

  if (const auto& cp = spec_.output.checkpoint; cp && files_)
    checkpoint_every_ = output_cadence(cp->every_steps, cp->every_time, nominal, 1);

  // The initial state: prescribed values at t = 0, initial velocities, and for dynamics the
  // acceleration that balances the forces at t = 0; or the checkpoint's.
  double t = 0.0;
  std::int64_t increment = 0;
  // u_host_ is the host copy of the accepted displacement (the initial one until then).
  if (restart) {
    u_host_ = restart->displacement;
    la_.upload(u_host_, *u_);
    for (auto& [name, v] : {std::pair{"velocity", v_.get()}, std::pair{"acceleration", a_.get()},
                            std::pair{"hht_forces", g_n_.get()}})
      if (const auto it = restart->vectors.find(name); it != restart->vectors.end())
        la_.upload(it->second, *v);
    if (contact_) {
      std::vector<std::vector<double>> multipliers(contact_->multipliers().size());
      for (std::size_t k = 0; k < multipliers.size(); ++k)
        multipliers[k] = restart->vectors.at(contact_multipliers_key(k));
      try {
        contact_->set_multipliers(multipliers);
      } catch (const Error& e) {
        throw CheckpointError("cannot restart from '" + options_.restart_file + "': " + e.what());
      }
    }
    for (std::size_t b = 0; b < sys_.blocks.size(); ++b)
      if (sys_.blocks[b].material->host.num_state > 0)
        op_.set_material_state(b, restart->material_state[b]);
    t = restart->time;
    increment = restart->step;
    increments_.resume(restart->time, restart->values.at("implicit.increment_size"));
    report_.first_increment = increment;
    report_.increments = increment;
    report_.time_reached = t;
    if (series_) {
      resume_series(*series_, *restart, dir_);
      for (const std::string& index : series_->index_paths()) report_.files.push_back(index);
    }
    spdlog::info("continuing from increment {} (t = {}) of '{}'", increment, t,
                 options_.restart_file);
  }
  if (!restart) la_.upload(sys_.initial_displacement, *u_);
  if (contact_) contact_->set_time(0.0);
  if (pressure_) pressure_->set_time(0.0);
  set_external_forces(0.0);
  if (restart) {
    // The state is complete: nothing to compute before the next increment.
  } else {
    check_initial_state();  // f_int at the start (and the reactions of the first history row)
    if (increments_.dynamic()) {
      std::vector<double> v0(static_cast<std::size_t>(op_.size()), 0.0);
      for (const InitialVelocitySpec& iv : spec_.initial_velocities)
        for (const std::int32_t n : s_.model_.mesh.node_sets.at(iv.set))
          for (int k = 0; k < 3; ++k)
            if (sys_.prescribed_amplitude[3 * n + k] < 0) v0[3 * n + k] = iv.velocity[k];
      la_.upload(v0, *v_);
      start_dynamics();
    } else if (dynamic_analysis_) {  // a static first step: at rest until a dynamic step
      la_.fill(*v_, 0.0);
      la_.fill(*a_, 0.0);
    }
  }
  if (!restart) write_output(0, 0.0, true);

  const double floor = spec_.precision == Precision::Single ? 1e-6 : 1e-14;
  const auto solve_start = Clock::now();
  while (t < end * (1.0 - 1e-12)) {
    if (increments_.starts_step(t)) start_step(t);
    integrator_.set_dynamic(increments_.dynamic());
    const double dt = increments_.next(t);
    const double t_new = t + dt;
    set_shift(dt);
    // Rate-dependent laws advance their history over the increment; a static increment is no
    // time, and they give their long-term response (docs/case-reference.md, viscoelastic).
    op_.set_time_step(integrator_.dynamic() ? dt : std::numeric_limits<double>::infinity());
    set_external_forces(t_new);
    set_lift(t_new, u_host_);
    if (integrator_.dynamic()) {
      // a_hat = av v_n + aa a_n, v_hat = vv v_n + va a_n
      la_.copy(*v_, *a_hat_);
      la_.axpby(integrator_.aa, *a_, integrator_.av, *a_hat_);
      la_.copy(*v_, *v_hat_);
      la_.axpby(integrator_.va, *a_, integrator_.vv, *v_hat_);
    }
    la_.copy(*u_, *u_iter_);
    if (contact_) contact_->set_time(t_new);
    if (pressure_) pressure_->set_time(t_new);
    NewtonResult result = newton_solve(
        la_, *this, spec_.solver.newton, *u_iter_, lift_nonzero_ ? lift_.get() : nullptr, floor,
        [&](const NewtonIterationRecord& rec) {
          if (convergence_csv_ || sink_)
            append_row(
                convergence_csv_, sink_, "convergence", t_new, increment + 1,
                {static_cast<double>(increment + 1), static_cast<double>(rec.iteration),
                 rec.residual, rec.relative_residual, rec.energy, rec.step, rec.linear_tolerance,
                 static_cast<double>(rec.linear_iterations), rec.linear_residual, rec.wall_s});
          if (options_.iteration) options_.iteration(increment + 1, t_new, rec);
        });
    report_.newton_iterations += result.iterations;
    report_.linear_iterations += result.linear_iterations;
    report_.tangents += result.tangents;
    // Augmented Lagrangian: the multipliers take the converged contact pressures and Newton
    // solves again from there, until no contact penetrates beyond its tolerance.
    for (int a = 0; contact_ && result.converged() && a < contact_->max_augmentations() &&
                    contact_->augment(*u_iter_);
         ++a) {
      ++report_.augmentations;
      const NewtonResult again =
          newton_solve(la_, *this, spec_.solver.newton, *u_iter_, nullptr, floor, nullptr);
      report_.newton_iterations += again.iterations;
      report_.linear_iterations += again.linear_iterations;
      report_.tangents += again.tangents;
      result.linear_iterations += again.linear_iterations;
      result.status = again.status;
      result.relative_residual = again.relative_residual;
      result.failure = again.failure;
    }
    if (contact_ && result.converged())
      for (const ContactState& c : contact_->states())
        if (c.tolerance > 0.0 && c.max_penetration > c.tolerance)
          spdlog::warn(
              "increment {} at t = {:.6g}: contact '{}' still penetrates {:.3g} m after {} "
              "augmentations (penetration_tolerance {:.3g} m); accepted as it is. Raise "
              "max_augmentations, or the penalty",
              increment + 1, t_new, c.name, c.max_penetration, contact_->max_augmentations(),
              c.tolerance);
    if (!result.converged()) {
      if (contact_) contact_->restore_multipliers();
      std::ostringstream why;
      switch (result.status) {
        case NewtonResult::Status::NotConverged:
          why << "Newton did not converge in " << spec_.solver.newton.max_iterations
              << " iterations (relative residual " << result.relative_residual << ", tolerance "
              << spec_.solver.newton.residual_tolerance << ")";
          break;
        case NewtonResult::Status::ElementFailure: {
          const ModelBlock& b = s_.model_.blocks[static_cast<std::size_t>(result.failure.block)];
          why << element_label(s_.model_, b, result.failure.element) << ' '
              << (result.failure.status == ElementCheck::Status::InvertedElement
                      ? "inverted: det F = " + std::to_string(result.failure.value)
                      : std::string("has non-finite values"));
          break;
        }
        case NewtonResult::Status::IndefiniteTangent:
          why << "the linear solver broke down: the tangent is not positive definite (the "
                 "material may soften at this deformation, the body may be buckling, the "
                 "supports may not hold it, or elements may be close to inverting; conjugate "
                 "gradients need a definite tangent; linear: {solver: minres} iterates on an "
                 "indefinite one with a positive definite preconditioner such as jacobi, and "
                 "linear: {solver: direct} factorizes it)";
          break;
        default:
          why << "the residual became non-finite";
          break;
      }
      ++report_.cutbacks;
      const bool can_cut = spec_.solver.newton.method != "linearized" ||
                           result.status == NewtonResult::Status::ElementFailure ||
                           result.status == NewtonResult::Status::IndefiniteTangent;
      // A static increment whose loads do not change from its start to its end (loads without
      // an amplitude act in full at every time) poses the same problem at any size.
      const bool cutting_helps = integrator_.dynamic() || contact_ || loading_differs(t, t_new);
      if (cutting_helps && can_cut && increments_.cut()) {
        spdlog::warn("increment {} at t = {:.6g}: {}; cutting back to {:.4g}", increment + 1, t_new,
                     why.str(), increments_.next(t));
        continue;
      }
      std::ostringstream msg;
      msg << "increment " << increment + 1 << " (t = " << t << " to " << t_new
          << "): " << why.str();
      if (cutting_helps)
        msg << ", and the increment cannot be cut below " << increments_.minimum()
            << "\n  hint: loosen newton.residual_tolerance, allow more newton.max_iterations or "
               "smaller increments (increments: {minimum: ...}), or refine the mesh where "
               "elements distort; convergence.csv shows every iteration";
      else
        msg << "; every load and prescribed displacement has the same value at t = " << t
            << " and t = " << t_new
            << " (none has an amplitude that ramps it in), so smaller increments cannot help"
            << "\n  hint: ramp the loads in with an amplitude (amplitudes: {ramp: {type: "
               "linear}}, then amplitude: ramp on each load, boundary condition and gravity), so "
               "that increments apply them a part at a time";
      msg << "\n  the last converged state (t = " << t << ") is the final frame of the output";
      // Make that true where the frame cadence skipped the last accepted increment (u_ still
      // holds it).
      if (increment % frame_every_ != 0) write_output(increment, t, true);
      fail(msg.str());
    }
    // Accept: the state of the last residual evaluation is the accepted one.
    la_.copy(*u_iter_, *u_);
    if (integrator_.dynamic()) {
      la_.copy(*v_new_, *v_);
      la_.copy(*a_new_, *a_);
      if (integrator_.hht_alpha() != 0.0) {  // (f_ext - f_int - C v)_{n+1} for the next step
        la_.copy(*f_ext_, *g_n_);
        la_.axpby(-1.0, *f_int_, 1.0, *g_n_);
        damping_force(*u_, *v_, *tmp2_);
        la_.axpby(-1.0, *tmp2_, 1.0, *g_n_);
      }
    }
    op_.commit();
    if (contact_) {
      contact_->accept_multipliers();
      report_.contacts.clear();
      for (const ContactState& c : contact_->states())
        report_.contacts.push_back({c.name, c.force, c.active, c.max_penetration, c.penalty});
    }
    la_.download(*u_, u_host_);
    t = t_new;
    ++increment;
    report_.increments = increment;
    report_.time_reached = t;
    report_.final_residual = result.relative_residual;
    report_.smallest_increment = std::min(report_.smallest_increment, dt);
    report_.largest_increment = std::max(report_.largest_increment, dt);
    report_.history.push_back({t, dt, result.iterations, result.linear_iterations});
    const bool step_ended = increments_.succeeded(result.iterations, t);
    const bool last = t >= end * (1.0 - 1e-12);
    write_output(increment, t, increment % frame_every_ == 0 || last || step_ended,
                 /*u_on_host=*/true);
    if (options_.progress)
      options_.progress(increment, t, result.iterations, result.linear_iterations);
    if (options_.increment_done) options_.increment_done(increment, t, u_host_);
    if (contact_csv_ || (sink_ && contact_)) {
      std::vector<double> row;
      for (const auto& c : report_.contacts) {
        row.insert(row.end(), c.force.begin(), c.force.end());
        row.push_back(static_cast<double>(c.active));
        row.push_back(c.max_penetration);
      }
      append_row(contact_csv_, sink_, "contact", t, increment, row);
    }
    if (!last && checkpoint_every_ > 0 && increment % checkpoint_every_ == 0)
      write_checkpoint(increment, t);
    if (!last && options_.stop_requested && options_.stop_requested()) {
      // The checkpoint first: it records the output without the frame of this increment that
      // is written next (a restart replaces it).
      if (files_ && report_.checkpoint != checkpoint_path(dir_, spec_.name, increment))
        write_checkpoint(increment, t);
      // The frame of this increment, where the cadence skipped it; its history rows are written.
      if (increment % frame_every_ != 0)
        write_output(increment, t, true, /*u_on_host=*/true, /*with_histories=*/false);
      report_.interrupted = true;
      report_.solve_s = seconds_since(solve_start) - report_.output_s;
      keep_final_state();
      std::ostringstream msg;
      msg << "interrupted at increment " << increment << " (t = " << t << ")";
      write_summary("interrupted", msg.str());
      return report_;
    }
  }
  report_.solve_s = seconds_since(solve_start) - report_.output_s;
  if (report_.increments == 0) report_.smallest_increment = 0.0;
  keep_final_state();
  write_summary("completed", "");
  return report_;
}

CheckpointedRun ImplicitSolver::Run::checkpointed() const {
  const double step = dynamic_analysis_ ? spec_.solver.time_step : 0.0;
  return {spec_,
          sys_.num_nodes,
          material_state_sizes(sys_),
          s_.model_.num_elements(),
          model_hash_.value(),
          step,
          s_.backend_name_,
          options_.case_text};
}

void ImplicitSolver::Run::write_checkpoint(std::int64_t increment, double t) {
  const auto t0 = Clock::now();
  Checkpoint c = checkpoint_header(checkpointed(), increment, t);
  la_.download(*u_, c.displacement);
  if (dynamic_analysis_) {
    la_.download(*v_, c.vectors["velocity"]);
    la_.download(*a_, c.vectors["acceleration"]);
    if (integrator_.alpha != 0.0) la_.download(*g_n_, c.vectors["hht_forces"]);
  }
  if (contact_) {
    const std::vector<std::vector<double>> multipliers = contact_->multipliers();
    for (std::size_t k = 0; k < multipliers.size(); ++k)
      c.vectors[contact_multipliers_key(k)] = multipliers[k];
  }
  c.material_state.resize(sys_.blocks.size());
  for (std::size_t b = 0; b < sys_.blocks.size(); ++b)
    if (sys_.blocks[b].material->host.num_state > 0) op_.material_state(b, c.material_state[b]);
  c.values["implicit.increment_size"] = increments_.size();
  report_.checkpoint =
      write_run_checkpoint(c, spec_, dir_, increment, series_.get(),
                           {&energy_csv_, &convergence_csv_, &contact_csv_}, histories_);
  report_.output_s += seconds_since(t0);
}

Checkpoint ImplicitSolver::Run::read_restart() const {
  const std::string& path = options_.restart_file;
  Checkpoint c = read_checkpoint(path);
  check_checkpoint(c, path, checkpointed());
  const auto refuse = [&](const std::string& why) {
    throw CheckpointError("cannot restart from '" + path + "': " + why);
  };
  const auto has = [&c](const std::string& name) {
    const auto it = c.vectors.find(name);
    return it != c.vectors.end() && it->second.size() == c.displacement.size();
  };
  if (!c.values.contains("implicit.increment_size") ||
      (dynamic_analysis_ && (!has("velocity") || !has("acceleration") ||
                             (integrator_.alpha != 0.0 && !has("hht_forces")))))
    refuse("it lacks the state of the " + std::string(to_string(spec_.solver.type)) + " solver");
  for (std::size_t k = 0; contact_ && k < contact_->multipliers().size(); ++k)
    if (!c.vectors.contains(contact_multipliers_key(k))) refuse("it lacks the contact multipliers");
  if (c.time >= spec_.solver.end_time * (1.0 - 1e-12))
    refuse(fmt::format(
        "it is at t = {} and this run ends at {}: nothing is left to run (raise solver.end_time, "
        "e.g. with --end-time, to continue past it)",
        c.time, spec_.solver.end_time));
  return c;
}

void ImplicitSolver::Run::keep_final_state() {
  s_.u_host_ = u_host_;
  s_.v_host_ = dynamic_analysis_ ? v_host_ : std::vector<double>(u_host_.size(), 0.0);
  if (contact_) s_.contact_host_ = contact_->nodal_forces();
}

ImplicitRunReport ImplicitSolver::run(const ImplicitRunOptions& options) {
  Run run(*this, options);
  return run.execute();
}

}  // namespace fem
