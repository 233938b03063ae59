// Algebraic multigrid of the assembled tangent through a library.
#include "preconditioner_factories.hpp"

#include "fem/error.hpp"

namespace fem {

std::unique_ptr<Preconditioner> make_amg_preconditioner(const LinearSolverSpec& spec,
                                                        const PreconditionerContext&) {
  throw InputError(spec.where, "preconditioner 'amg' is not available in this build yet",
                   "use jacobi, block_jacobi or multigrid");
}

}  // namespace fem
