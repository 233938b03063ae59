// Preconditioned conjugate gradients over the operator contract.
#include <cmath>

#include "fem/solver/linear_solver.hpp"

namespace fem {

KrylovResult conjugate_gradients(LinearAlgebra& la, LinearOperator& a, Preconditioner& m,
                                 const Vector& b, Vector& x, double tolerance, int max_iterations) {
  KrylovResult result;
  const std::int64_t n = b.size();
  // From x = 0: the caller's right-hand side is the whole residual.
  la.fill(x, 0.0);
  const double b_norm = std::sqrt(la.dot(b, b));
  result.initial_residual = b_norm;
  if (!(b_norm > 0.0)) {
    result.converged = b_norm == 0.0;
    result.breakdown = !result.converged;  // NaN in b
    return result;
  }
  const auto r = la.vector(n);
  const auto z = la.vector(n);
  const auto p = la.vector(n);
  const auto ap = la.vector(n);
  la.copy(b, *r);
  m.apply(*r, *z);
  la.copy(*z, *p);
  double rz = la.dot(*r, *z);
  double r_norm = b_norm;
  for (int k = 1; k <= max_iterations; ++k) {
    a.apply(*p, *ap);
    const double pap = la.dot(*p, *ap);
    if (!(pap > 0.0) || !std::isfinite(rz)) {
      result.breakdown = true;
      break;
    }
    const double alpha = rz / pap;
    la.axpby(alpha, *p, 1.0, x);
    la.axpby(-alpha, *ap, 1.0, *r);
    m.apply(*r, *z);
    const auto [rz_new, rr] = la.dot2(*r, *z, *r, *r);
    r_norm = std::sqrt(rr);
    result.iterations = k;
    if (r_norm <= tolerance * b_norm) {
      result.converged = true;
      break;
    }
    la.axpby(1.0, *z, rz_new / rz, *p);
    rz = rz_new;
  }
  result.relative_residual = r_norm / b_norm;
  return result;
}

}  // namespace fem
