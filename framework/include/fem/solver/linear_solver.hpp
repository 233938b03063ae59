// Linear solves inside Newton, written once over the operator contract (fem/operator.hpp):
// preconditioned conjugate gradients and the preconditioners, each a composition of verbs, so
// that every backend runs them in its own memory without copies to the host (except where a
// preconditioner says otherwise: the direct solver and the CPU algebraic multigrid).
#pragma once

#include <memory>
#include <string>

#include "fem/case.hpp"
#include "fem/operator.hpp"

namespace fem {

/// y = A x on vectors of one LinearAlgebra.
class LinearOperator {
 public:
  virtual ~LinearOperator() = default;
  virtual void apply(const Vector& x, Vector& y) = 0;
  /// Whether apply() only enqueues verbs (no wait, no host work), so that a solver may record
  /// it once and replay it (LinearAlgebra::record).
  [[nodiscard]] virtual bool recordable() const { return false; }
};

/// The tangent of a NonlinearOperator at its linearization point, as a LinearOperator.
class TangentOperator final : public LinearOperator {
 public:
  explicit TangentOperator(NonlinearOperator& op) : op_(op) {}
  void apply(const Vector& x, Vector& y) override { op_.apply(x, y); }
  [[nodiscard]] bool recordable() const override { return true; }

 private:
  NonlinearOperator& op_;
};

/// A sparse matrix on the backend as a LinearOperator.
class MatrixOperator final : public LinearOperator {
 public:
  MatrixOperator(LinearAlgebra& la, const Matrix& a) : la_(la), a_(a) {}
  void apply(const Vector& x, Vector& y) override { la_.multiply(a_, x, y); }
  [[nodiscard]] bool recordable() const override { return true; }

 private:
  LinearAlgebra& la_;
  const Matrix& a_;
};

/// z ~ A^-1 r for the tangent of the last setup().
class Preconditioner {
 public:
  virtual ~Preconditioner() = default;
  /// Rebuilds from the operator's current linearization, at displacement u, and shift.
  virtual void setup(NonlinearOperator& op, const Vector& u) = 0;
  virtual void apply(const Vector& r, Vector& z) = 0;
  /// What `fem check` and the summary call it, e.g. "jacobi".
  [[nodiscard]] virtual std::string name() const = 0;
  /// True when apply() solves exactly (a factorization): one Krylov iteration suffices.
  [[nodiscard]] virtual bool exact() const { return false; }
  /// The diagonal d where apply() is z = d .* r (Jacobi), so that conjugate gradients can fuse
  /// it with its vector updates (LinearAlgebra::cg_descend_scale_turn); nullptr otherwise.
  [[nodiscard]] virtual const Vector* scaling() const { return nullptr; }
  /// Whether apply() only enqueues verbs (no wait, no host work), so that a solver may record
  /// it once and replay it (LinearAlgebra::record).
  [[nodiscard]] virtual bool recordable() const { return false; }
};

class Backend;
struct Model;

/// What a preconditioner may build on: the model (the multigrid coarsens its mesh), the backend
/// (coarse operators) and the fine operator with its vectors.
struct PreconditionerContext {
  const Model& model;
  Backend& backend;
  LinearAlgebra& algebra;
  NonlinearOperator& op;
};

/// The preconditioner a case asks for (linear.preconditioner, or the direct solver).
std::unique_ptr<Preconditioner> make_preconditioner(const LinearSolverSpec& spec,
                                                    const PreconditionerContext& context);

/// The optional linear-solver libraries this libfem was built with (cmake/femLinearSolvers.cmake);
/// `fem plugins` prints them.
struct LinearSolverLibraries {
  std::string hypre;    ///< hypre's version: preconditioner amg (BoomerAMG); empty: not built in
  std::string cholmod;  ///< CHOLMOD's version: the direct solver; empty: Eigen's LDL^T instead
  /// One line: "hypre BoomerAMG: yes (2.26.0), CHOLMOD: yes (3.0.14)".
  [[nodiscard]] std::string describe() const;
};
[[nodiscard]] LinearSolverLibraries linear_solver_libraries();

struct KrylovResult {
  int iterations = 0;
  double initial_residual = 0.0;   ///< |b - A x0|
  double relative_residual = 0.0;  ///< |b - A x| / |b| at the end (the recursive residual)
  bool converged = false;
  bool breakdown = false;  ///< p . A p <= 0 (the operator is not positive definite) or NaN
};

/// Preconditioned conjugate gradients for A x = b from the guess in x, to |r| <= tolerance |b|
/// or max_iterations. Two reductions per iteration (p . Ap, and r . z with r . r fused).
KrylovResult conjugate_gradients(LinearAlgebra& la, LinearOperator& a, Preconditioner& m,
                                 const Vector& b, Vector& x, double tolerance, int max_iterations);

/// Preconditioned BiCGStab for a non-symmetric A x = b from x = 0, to |r| <= tolerance |b| or
/// max_iterations (the same contract as conjugate_gradients; breakdown: a vanishing
/// denominator). Four reductions and two operator and preconditioner applications an iteration.
KrylovResult bicgstab(LinearAlgebra& la, LinearOperator& a, Preconditioner& m, const Vector& b,
                      Vector& x, double tolerance, int max_iterations);

/// Preconditioned MINRES for a symmetric, possibly indefinite A x = b from x = 0, with a
/// symmetric positive definite preconditioner M, to |b - A x|_M <= tolerance |b|_M (the norm its
/// recurrence minimizes) or max_iterations; relative_residual is the true 2-norm one at the end.
/// Breakdown: r . M r < 0 (M not positive definite) or NaN. Two reductions and one operator and
/// preconditioner application an iteration.
KrylovResult minres(LinearAlgebra& la, LinearOperator& a, Preconditioner& m, const Vector& b,
                    Vector& x, double tolerance, int max_iterations);

}  // namespace fem
