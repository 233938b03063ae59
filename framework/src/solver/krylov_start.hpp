// The start of the Krylov solvers that begin from x = 0 with only |b| (bicgstab.cpp, minres.cpp;
// conjugate_gradients.cpp keeps |b|^2 for its fused reductions).
#pragma once

#include <cmath>

#include "fem/solver/linear_solver.hpp"

namespace fem {

/// Starts a solve from x = 0: sets result.initial_residual = |b| and returns |b|, or 0 where the
/// solve is over already (b = 0: converged; NaN in b: a breakdown), `result` then final.
inline double start_from_zero(LinearAlgebra& la, const Vector& b, Vector& x, KrylovResult& result) {
  la.fill(x, 0.0);
  const double b_norm = std::sqrt(la.dot(b, b));
  result.initial_residual = b_norm;
  if (b_norm > 0.0) return b_norm;
  result.converged = b_norm == 0.0;
  result.breakdown = !result.converged;
  return 0.0;
}

}  // namespace fem
