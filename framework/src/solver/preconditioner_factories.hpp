// The multilevel preconditioners, each in its own source: the geometric multigrid of the
// built-in box meshes (multigrid.cpp) and the algebraic multigrid of a library (amg.cpp); and the
// direct solver of preconditioners.cpp, which the geometric multigrid reuses on its coarsest level.
#pragma once

#include <memory>

#include "fem/solver/linear_solver.hpp"

namespace fem {

std::unique_ptr<Preconditioner> make_multigrid_preconditioner(const LinearSolverSpec& spec,
                                                              const PreconditionerContext& context);
std::unique_ptr<Preconditioner> make_amg_preconditioner(const LinearSolverSpec& spec,
                                                        const PreconditionerContext& context);
/// The assembled tangent factorized on the host (the direct solver, `linear: {solver: direct}`).
std::unique_ptr<Preconditioner> make_direct_preconditioner(LinearAlgebra& la);

}  // namespace fem
