// The multilevel preconditioners, each in its own source: the geometric multigrid of the
// built-in box meshes (multigrid.cpp), the voxel multigrid's for other meshes of cubes
// (voxel/voxel_preconditioner.cpp) and the algebraic multigrid of a library (amg.cpp); and the
// direct solver of preconditioners.cpp, which the geometric multigrid reuses on its coarsest level.
#pragma once

#include <memory>

#include "fem/solver/linear_solver.hpp"

namespace fem {

std::unique_ptr<Preconditioner> make_multigrid_preconditioner(const LinearSolverSpec& spec,
                                                              const PreconditionerContext& context);
/// The voxel multigrid's Galerkin hierarchy (voxel/voxel_preconditioner.cpp) where the model is
/// made of equal axis-aligned cubes (two levels at least); null otherwise.
std::unique_ptr<Preconditioner> make_voxel_multigrid_preconditioner(
    const PreconditionerContext& context);
std::unique_ptr<Preconditioner> make_amg_preconditioner(const LinearSolverSpec& spec,
                                                        const PreconditionerContext& context);
/// The assembled tangent factorized on the host (the direct solver, `linear: {solver: direct}`).
std::unique_ptr<Preconditioner> make_direct_preconditioner(LinearAlgebra& la);

}  // namespace fem
