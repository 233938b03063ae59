// The CUDA backend's nonlinear operator (fem/operator.hpp), defined in nonlinear_operator.cu.
#pragma once

#include <memory>

#include <fem/backend.hpp>
#include <fem/operator.hpp>

#include "linear_algebra.cuh"

namespace fem::cuda {

/// The nonlinear elasticity operator of `system` on vectors of `algebra` (which must be a CUDA
/// LinearAlgebra), on the current device.
std::unique_ptr<NonlinearOperator> make_nonlinear_operator(const System& system,
                                                           LinearAlgebra& algebra);

}  // namespace fem::cuda
