// Geometric multigrid on the hierarchy of a built-in box mesh.
#include "preconditioner_factories.hpp"

#include "fem/error.hpp"

namespace fem {

std::unique_ptr<Preconditioner> make_multigrid_preconditioner(const LinearSolverSpec& spec,
                                                              const PreconditionerContext&) {
  throw InputError(spec.where, "preconditioner 'multigrid' is not available in this build yet",
                   "use jacobi, block_jacobi or amg");
}

}  // namespace fem
