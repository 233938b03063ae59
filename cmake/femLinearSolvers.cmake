# Finds the optional linear-solver libraries of the implicit solver (FEM_WITH_HYPRE,
# FEM_WITH_CHOLMOD: ON, OFF or AUTO):
#   hypre (BoomerAMG): `solver: {linear: {preconditioner: amg}}`; without it that key is refused
#     with what to install.
#   SuiteSparse CHOLMOD: the direct solver's supernodal Cholesky; without it the direct solver
#     uses Eigen's SimplicialLDLT.
# Debian 12 ships neither with a CMake package (libhypre-dev 2.26, libsuitesparse-dev 5.12), so
# they are looked for by header and library; a CMake package (hypre built with CMake, SuiteSparse
# 7) is taken first where one is installed.
#
# Sets FEM_HYPRE_ENABLED and FEM_CHOLMOD_ENABLED, and the imported targets fem::hypre (with MPI
# when this hypre was built with it) and fem::cholmod that libfem links privately.

set(FEM_WITH_HYPRE AUTO CACHE STRING "Build the amg preconditioner on hypre: ON, OFF or AUTO")
set_property(CACHE FEM_WITH_HYPRE PROPERTY STRINGS AUTO ON OFF)
set(FEM_WITH_CHOLMOD AUTO CACHE STRING "Direct solver through SuiteSparse CHOLMOD: ON, OFF or AUTO")
set_property(CACHE FEM_WITH_CHOLMOD PROPERTY STRINGS AUTO ON OFF)

# Reports a library that is not built in: fatal when it was asked for (ON), a status line
# otherwise.
function(_fem_linear_solver_missing option why)
  if(${${option}} STREQUAL "ON")
    message(FATAL_ERROR "${option}=ON, but ${why}")
  endif()
  message(STATUS "fem: ${why}")
endfunction()

# --- hypre -------------------------------------------------------------------------------------
set(FEM_HYPRE_ENABLED OFF)
if(NOT FEM_WITH_HYPRE STREQUAL "OFF")
  find_path(FEM_HYPRE_INCLUDE_DIR HYPRE_parcsr_ls.h PATH_SUFFIXES hypre)
  find_library(FEM_HYPRE_LIBRARY NAMES HYPRE)
  set(_why "")
  if(NOT FEM_HYPRE_INCLUDE_DIR OR NOT FEM_HYPRE_LIBRARY)
    set(_why "no hypre found (install libhypre-dev: scripts/install-dependencies.sh)")
  else()
    file(READ ${FEM_HYPRE_INCLUDE_DIR}/HYPRE_config.h _hypre_config)
    string(REGEX MATCH "#define HYPRE_RELEASE_VERSION \"([0-9.]+)\"" _ "${_hypre_config}")
    set(FEM_HYPRE_VERSION ${CMAKE_MATCH_1})
    # amg.cpp hands hypre doubles and 32- or 64-bit indices; other scalar types would need
    # conversions it does not do.
    foreach(_scalar HYPRE_SINGLE HYPRE_LONG_DOUBLE HYPRE_COMPLEX)
      if(_hypre_config MATCHES "\n#define ${_scalar} 1")
        set(_why "hypre ${FEM_HYPRE_VERSION} at ${FEM_HYPRE_LIBRARY} was built with ${_scalar}; "
                 "fem needs real double precision")
      endif()
    endforeach()
    if(FEM_HYPRE_VERSION VERSION_LESS 2.20)
      set(_why "hypre ${FEM_HYPRE_VERSION} is too old (2.20 or newer is needed)")
    endif()
    # A hypre built with MPI needs fem to initialise MPI and to link it (amg.cpp).
    set(FEM_HYPRE_MPI OFF)
    if(_hypre_config MATCHES "\n#define HYPRE_HAVE_MPI 1" AND NOT _why)
      # MPI's C interface through the C++ compiler (the project enables no C), without the
      # deprecated C++ bindings (OpenMPI's mpicxx.h, libmpi_cxx).
      set(MPI_CXX_SKIP_MPICXX ON CACHE BOOL "fem calls MPI's C interface only")
      find_package(MPI COMPONENTS CXX QUIET)
      if(MPI_CXX_FOUND)
        set(FEM_HYPRE_MPI ON)
      else()
        set(_why "hypre ${FEM_HYPRE_VERSION} was built with MPI, and no MPI C library was found "
                 "(install libopenmpi-dev)")
      endif()
    endif()
  endif()
  if(_why)
    string(REPLACE ";" "" _why "${_why}")
    _fem_linear_solver_missing(FEM_WITH_HYPRE "amg preconditioner not built: ${_why}")
  else()
    add_library(fem::hypre INTERFACE IMPORTED)
    target_include_directories(fem::hypre INTERFACE ${FEM_HYPRE_INCLUDE_DIR})
    target_link_libraries(fem::hypre INTERFACE ${FEM_HYPRE_LIBRARY})
    target_compile_definitions(fem::hypre INTERFACE FEM_WITH_HYPRE=1
                                                    FEM_HYPRE_VERSION="${FEM_HYPRE_VERSION}")
    if(FEM_HYPRE_MPI)
      target_link_libraries(fem::hypre INTERFACE MPI::MPI_CXX)
      target_compile_definitions(fem::hypre INTERFACE FEM_HYPRE_MPI=1)
    endif()
    set(FEM_HYPRE_ENABLED ON)
    set(_with_mpi "")
    if(FEM_HYPRE_MPI)
      set(_with_mpi ", with MPI ${MPI_CXX_VERSION}")
    endif()
    message(STATUS "fem: amg preconditioner: hypre ${FEM_HYPRE_VERSION}${_with_mpi}")
  endif()
endif()

# --- CHOLMOD -----------------------------------------------------------------------------------
set(FEM_CHOLMOD_ENABLED OFF)
if(NOT FEM_WITH_CHOLMOD STREQUAL "OFF")
  find_package(CHOLMOD CONFIG QUIET)  # SuiteSparse 7 and newer
  add_library(fem::cholmod INTERFACE IMPORTED)
  if(TARGET SuiteSparse::CHOLMOD)
    target_link_libraries(fem::cholmod INTERFACE SuiteSparse::CHOLMOD)
    set(FEM_CHOLMOD_ENABLED ON)
    set(_found "CHOLMOD ${CHOLMOD_VERSION}")
  else()
    find_path(FEM_CHOLMOD_INCLUDE_DIR cholmod.h PATH_SUFFIXES suitesparse)
    find_library(FEM_CHOLMOD_LIBRARY NAMES cholmod)
    if(FEM_CHOLMOD_INCLUDE_DIR AND FEM_CHOLMOD_LIBRARY)
      target_include_directories(fem::cholmod INTERFACE ${FEM_CHOLMOD_INCLUDE_DIR})
      target_link_libraries(fem::cholmod INTERFACE ${FEM_CHOLMOD_LIBRARY})
      set(FEM_CHOLMOD_ENABLED ON)
      set(_found "${FEM_CHOLMOD_LIBRARY}")
    endif()
  endif()
  if(FEM_CHOLMOD_ENABLED)
    target_compile_definitions(fem::cholmod INTERFACE FEM_WITH_CHOLMOD=1)
    message(STATUS "fem: direct solver: CHOLMOD (${_found})")
  else()
    _fem_linear_solver_missing(FEM_WITH_CHOLMOD
                               "direct solver without CHOLMOD (Eigen's SimplicialLDLT): no "
                               "CHOLMOD found (install libsuitesparse-dev: "
                               "scripts/install-dependencies.sh)")
  endif()
endif()
