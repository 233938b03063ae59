// Preconditioned MINRES (Paige and Saunders 1975) over the operator contract: the Krylov method for
// a symmetric tangent that is not positive definite (a structure past a limit point or buckling,
// a material softening), where conjugate gradients breaks down. It minimizes the residual in the
// preconditioner's norm over the same Krylov space as CG by a Lanczos recurrence and Givens
// rotations, with one operator and one preconditioner application and two reductions an
// iteration. The preconditioner must be symmetric positive definite (Jacobi of a tangent whose
// diagonal stays positive, none); a preconditioner that is not (r . M r <= 0) is a breakdown.
#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "fem/solver/linear_solver.hpp"
#include "krylov_start.hpp"

namespace fem {

KrylovResult minres(LinearAlgebra& la, LinearOperator& a, Preconditioner& m, const Vector& b,
                    Vector& x, double tolerance, int max_iterations) {
  KrylovResult result;
  const std::int64_t n = b.size();
  const double b_norm = start_from_zero(la, b, x, result);
  if (b_norm == 0.0) return result;
  // Lanczos vectors: r_old and r (unpreconditioned), y = M r; the search directions w, w_1, w_2.
  auto r_old = la.vector(n), r = la.vector(n), y = la.vector(n), v = la.vector(n), w = la.vector(n),
       w_1 = la.vector(n), w_2 = la.vector(n);
  la.copy(b, *r);  // r_old is first read in the second iteration, after it has become r
  m.apply(*r, *y);
  double beta = la.dot(*r, *y);
  if (!(beta > 0.0)) {  // the preconditioner is not positive definite (or NaN)
    result.breakdown = true;
    result.relative_residual = 1.0;
    return result;
  }
  beta = std::sqrt(beta);
  const double beta_1 = beta;
  la.fill(*w, 0.0);
  la.fill(*w_1, 0.0);
  la.fill(*w_2, 0.0);
  double beta_old = 0.0, d_bar = 0.0, epsilon = 0.0, phi_bar = beta_1, cs = -1.0, sn = 0.0;
  const double stop = tolerance * beta_1;
  for (int k = 1; k <= max_iterations; ++k) {
    // Lanczos: v = y / beta, y = A v - (beta / beta_old) r_old - (alpha / beta) r.
    la.axpby(1.0 / beta, *y, 0.0, *v);
    a.apply(*v, *y);
    if (k >= 2) la.axpby(-beta / beta_old, *r_old, 1.0, *y);
    const double alpha = la.dot(*v, *y);
    la.axpby(-alpha / beta, *r, 1.0, *y);
    // The new Lanczos vector is y: it becomes r, r becomes r_old, and r_old's storage takes M r.
    std::swap(r_old, r);
    std::swap(r, y);
    m.apply(*r, *y);
    beta_old = beta;
    const double beta_sq = la.dot(*r, *y);
    if (!(beta_sq >= 0.0) || !std::isfinite(alpha)) {
      result.breakdown = true;  // M not positive definite, or NaN
      break;
    }
    beta = std::sqrt(beta_sq);
    // The last rotation applied to the new column of the tridiagonal matrix, then a new one that
    // annihilates its subdiagonal beta.
    const double epsilon_old = epsilon;
    const double delta = cs * d_bar + sn * alpha;
    const double g_bar = sn * d_bar - cs * alpha;
    epsilon = sn * beta;
    d_bar = -cs * beta;
    const double gamma = std::max(std::hypot(g_bar, beta), std::numeric_limits<double>::min());
    cs = g_bar / gamma;
    sn = beta / gamma;
    const double phi = cs * phi_bar;
    phi_bar *= sn;
    // w = (v - epsilon_old w_2 - delta w_1) / gamma; x += phi w.
    std::swap(w_2, w_1);
    std::swap(w_1, w);
    la.axpby(1.0 / gamma, *v, 0.0, *w);
    la.axpby(-epsilon_old / gamma, *w_2, 1.0, *w);
    la.axpby(-delta / gamma, *w_1, 1.0, *w);
    la.axpby(phi, *w, 1.0, x);
    result.iterations = k;
    // phi_bar is the residual's norm in M: |b - A x|_M.
    if (phi_bar <= stop || beta == 0.0) break;
  }
  // The true residual, in the 2-norm the other solvers report.
  a.apply(x, *y);
  la.axpby(1.0, b, -1.0, *y);
  const double r_norm = std::sqrt(la.dot(*y, *y));
  result.relative_residual = r_norm / b_norm;
  if (!std::isfinite(r_norm)) result.breakdown = true;
  result.converged = !result.breakdown && (phi_bar <= stop || beta == 0.0);
  return result;
}

}  // namespace fem
