// Preconditioned BiCGStab (van der Vorst 1992, right preconditioning) over the operator contract:
// the Krylov method for a tangent that is not symmetric (a follower pressure's load stiffness on
// an open surface, implicit_pressure.hpp), where conjugate gradients does not apply. Its scalars
// are read on the host (four reductions an iteration): the tangents it serves are those of
// pressure-loaded models, whose solves are short next to the host's face work per residual.
#include <cmath>

#include "fem/solver/linear_solver.hpp"
#include "krylov_start.hpp"

namespace fem {

KrylovResult bicgstab(LinearAlgebra& la, LinearOperator& a, Preconditioner& m, const Vector& b,
                      Vector& x, double tolerance, int max_iterations) {
  KrylovResult result;
  const std::int64_t n = b.size();
  const double b_norm = start_from_zero(la, b, x, result);
  if (b_norm == 0.0) return result;
  const double stop = tolerance * b_norm;
  const auto r = la.vector(n), shadow = la.vector(n), p = la.vector(n), v = la.vector(n),
             p_hat = la.vector(n), s_hat = la.vector(n), t = la.vector(n);
  la.copy(b, *r);
  la.copy(b, *shadow);  // the shadow residual r0~ = r0
  la.fill(*p, 0.0);
  la.fill(*v, 0.0);
  double rho = 1.0, alpha = 1.0, omega = 1.0, r_norm = b_norm;
  for (int k = 1; k <= max_iterations; ++k) {
    const double rho_next = la.dot(*shadow, *r);
    if (!(std::abs(rho_next) > 0.0)) {  // the shadow is orthogonal to r (or NaN)
      result.breakdown = true;
      break;
    }
    // p = r + beta (p - omega v)
    const double beta = (rho_next / rho) * (alpha / omega);
    la.axpby(-omega, *v, 1.0, *p);
    la.axpby(1.0, *r, beta, *p);
    rho = rho_next;
    m.apply(*p, *p_hat);
    a.apply(*p_hat, *v);
    const double shadow_v = la.dot(*shadow, *v);
    if (!(std::abs(shadow_v) > 0.0)) {
      result.breakdown = true;
      break;
    }
    alpha = rho / shadow_v;
    la.axpby(alpha, *p_hat, 1.0, x);
    la.axpby(-alpha, *v, 1.0, *r);  // r is s now
    result.iterations = k;
    r_norm = std::sqrt(la.dot(*r, *r));
    if (r_norm <= stop) break;
    m.apply(*r, *s_hat);
    a.apply(*s_hat, *t);
    const double tt = la.dot(*t, *t);
    if (!(tt > 0.0)) {
      result.breakdown = true;
      break;
    }
    omega = la.dot(*t, *r) / tt;
    la.axpby(omega, *s_hat, 1.0, x);
    la.axpby(-omega, *t, 1.0, *r);
    r_norm = std::sqrt(la.dot(*r, *r));
    if (!std::isfinite(r_norm) || omega == 0.0) {
      result.breakdown = !std::isfinite(r_norm) || r_norm > stop;
      break;
    }
    if (r_norm <= stop) break;
  }
  result.relative_residual = r_norm / b_norm;
  result.converged = !result.breakdown && r_norm <= stop;
  return result;
}

}  // namespace fem
