// Which optional linear-solver libraries this libfem was built with (cmake/femLinearSolvers.cmake
// defines FEM_WITH_HYPRE and FEM_WITH_CHOLMOD for the sources of libfem only).
#include <string>

#include "fem/solver/linear_solver.hpp"
#if FEM_WITH_CHOLMOD
#include <cholmod.h>
#endif

namespace fem {

LinearSolverLibraries linear_solver_libraries() {
  LinearSolverLibraries libraries;
#if FEM_WITH_HYPRE
  libraries.hypre = FEM_HYPRE_VERSION;
#endif
#if FEM_WITH_CHOLMOD
  libraries.cholmod = std::to_string(CHOLMOD_MAIN_VERSION) + "." +
                      std::to_string(CHOLMOD_SUB_VERSION) + "." +
                      std::to_string(CHOLMOD_SUBSUB_VERSION);
#endif
  return libraries;
}

std::string LinearSolverLibraries::describe() const {
  const auto available = [](const std::string& version) {
    return version.empty() ? std::string("no") : "yes (" + version + ")";
  };
  return "hypre BoomerAMG: " + available(hypre) + ", CHOLMOD: " + available(cholmod);
}

}  // namespace fem
