// Newton-Raphson with a backtracking line search and Eisenstat-Walker forcing terms, written
// once over the operator contract. The equations of one increment (a static load step or an
// implicit time step) come as an IncrementEquations; Newton knows nothing of time or loads.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "fem/case.hpp"
#include "fem/operator.hpp"
#include "fem/solver/linear_solver.hpp"

namespace fem {

/// R(u) = 0 of one increment, as Newton sees it.
class IncrementEquations {
 public:
  virtual ~IncrementEquations() = default;
  /// r = the out-of-balance force R(u) at free dofs, 0 at prescribed ones; `scale` is the force
  /// |r| is compared with (external forces, reactions, inertia).
  virtual ElementCheck residual(const Vector& u, Vector& r, double& scale) = 0;
  /// The tangent dR/du at u (and the preconditioner's setup).
  virtual void linearize(const Vector& u) = 0;
  /// y = A x with the last linearization (A = -dR/du, positive definite).
  virtual void apply(const Vector& x, Vector& y) = 0;
  /// du ~ A^-1 b to relative tolerance eta; du is zero at prescribed dofs when b is.
  virtual KrylovResult solve(const Vector& b, Vector& du, double eta) = 0;
  /// Zeroes x at prescribed dofs.
  virtual void constrain(Vector& x) = 0;
};

/// One Newton iteration, as convergence.csv records it.
struct NewtonIterationRecord {
  int iteration = 0;               ///< 1-based
  double residual = 0.0;           ///< |r|_2 after the iteration
  double relative_residual = 0.0;  ///< residual / force scale
  double energy = 0.0;             ///< |du . r|, relative to the increment's first iteration
  double step = 1.0;               ///< line-search factor
  double linear_tolerance = 0.0;   ///< the forcing term eta asked of the linear solve
  int linear_iterations = 0;
  double linear_residual = 0.0;  ///< relative residual the linear solve reached
  double wall_s = 0.0;           ///< of this iteration
  bool new_tangent = true;       ///< formed at this iteration (method modified may keep one)
};

struct NewtonResult {
  enum class Status {
    Converged,       ///< both tolerances met (or method linearized: the one solve done)
    NotConverged,    ///< max_iterations reached
    ElementFailure,  ///< an inverted element or non-finite values at every line-search step
    Diverged,        ///< the residual grew beyond recovery or became non-finite
    /// CG broke down at its first iteration: the tangent (or the preconditioner) is not
    /// positive definite at this state.
    IndefiniteTangent,
  };
  Status status = Status::NotConverged;
  int iterations = 0;
  int linear_iterations = 0;
  int tangents = 0;  ///< tangents formed (fewer than iterations with method modified)
  double residual = 0.0;
  double relative_residual = 0.0;
  ElementCheck failure;  ///< ElementFailure: the element
  /// Converged because the corrections fell below the precision's resolution while the residual
  /// stayed above its tolerance (its round-off floor).
  bool at_round_off = false;
  std::vector<NewtonIterationRecord> history;
  [[nodiscard]] bool converged() const { return status == Status::Converged; }
};

/// Solves R(u) = 0 starting from u, which is overwritten with the solution (or the last
/// iterate). `lift`, when given, is the increment of the prescribed displacements (zero at free
/// dofs): u holds the previous prescribed values, and the first iteration applies the lift
/// through the tangent's coupling (A_fp lift), so that the free dofs follow a prescribed motion
/// at once instead of seeing it as a kink in the first element layer. `precision_floor` is the
/// smallest relative linear tolerance worth asking (round-off of the vectors' precision).
NewtonResult newton_solve(LinearAlgebra& la, IncrementEquations& equations, const NewtonSpec& spec,
                          Vector& u, const Vector* lift, double precision_floor,
                          const std::function<void(const NewtonIterationRecord&)>& on_iteration);

}  // namespace fem
