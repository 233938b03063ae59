// The inverse of a diagonal for Jacobi preconditioning (LinearAlgebra::invert_pivots), written
// once for the host default and the device backends so that every backend inverts alike.
#pragma once

#include "fem/config.hpp"

namespace fem::kernels {

/// 1 / d where d is positive and finite; 1 elsewhere, so that a zero, negative or non-finite
/// pivot is left out of the preconditioner instead of making it infinite or indefinite
/// (d - d is NaN for an infinite or NaN d on the host and the device alike).
FEM_INLINE double inverted_pivot(double d) {
  return d > 0.0 && d - d == 0.0 ? 1.0 / d : 1.0;
}

}  // namespace fem::kernels
