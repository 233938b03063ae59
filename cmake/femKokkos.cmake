# Finds Kokkos for the Kokkos backend and decides whether this fem can build it (FEM_WITH_KOKKOS:
# ON, OFF or AUTO). Where the installed Kokkos lacks something the backend needs, configuring says
# what and the backend is not built (ON: configuring fails); it never falls back silently.
#
# Sets FEM_KOKKOS_ENABLED, FEM_KOKKOS_LANGUAGE (CXX, or CUDA for a CUDA-enabled Kokkos 4, whose
# code compiles as the CMake CUDA language) and the interface target fem_kokkos_runtime.

set(FEM_KOKKOS_ENABLED OFF)
if(FEM_WITH_KOKKOS STREQUAL "OFF")
  return()
endif()

# COMPONENTS separable_compilation: a CUDA Kokkos installed for nvcc_wrapper would otherwise
# redirect every compile command of this project to it.
find_package(Kokkos 3.4 CONFIG QUIET COMPONENTS separable_compilation)

set(_why "")
if(NOT Kokkos_FOUND)
  if(Kokkos_CONSIDERED_VERSIONS)
    set(_why "Kokkos ${Kokkos_CONSIDERED_VERSIONS} is too old (3.4 or newer is needed)")
  else()
    set(_why "no Kokkos installation found (install libtrilinos-kokkos-dev, or point "
             "CMAKE_PREFIX_PATH or Kokkos_ROOT at a Kokkos installation)")
  endif()
else()
  set(FEM_KOKKOS_LANGUAGE CXX)
  string(TOUPPER "${Kokkos_DEVICES}" _devices)
  foreach(_unsupported HIP SYCL OPENMPTARGET HPX)
    if(_unsupported IN_LIST _devices)
      set(_why "Kokkos ${Kokkos_VERSION} was built for ${_unsupported}, which fem does not support "
               "(Serial, OpenMP, Threads and CUDA are)")
    endif()
  endforeach()
  if("CUDA" IN_LIST _devices AND NOT _why)
    if(Kokkos_VERSION VERSION_LESS 4.0)
      set(_why "Kokkos ${Kokkos_VERSION} was built with CUDA; fem needs Kokkos 4.0 or newer for "
               "CUDA (its code compiles as the CMake CUDA language)")
    elseif(NOT Kokkos_COMPILE_LANGUAGE STREQUAL "CUDA")
      set(_why "Kokkos ${Kokkos_VERSION} was built with CUDA for nvcc_wrapper; fem compiles Kokkos "
               "code as the CMake CUDA language: rebuild Kokkos with "
               "-DKokkos_ENABLE_COMPILE_AS_CMAKE_LANGUAGE=ON")
    elseif(NOT "CUDA_LAMBDA" IN_LIST Kokkos_OPTIONS)
      set(_why "Kokkos ${Kokkos_VERSION} was built with CUDA but without device lambdas, which the "
               "element loops use: rebuild Kokkos with -DKokkos_ENABLE_CUDA_LAMBDA=ON")
    elseif(NOT FEM_CUDA_ENABLED)
      set(_why "Kokkos ${Kokkos_VERSION} was built with CUDA, but this fem has no CUDA compiler "
               "enabled (FEM_WITH_CUDA=OFF or nvcc not found)")
    else()
      set(FEM_KOKKOS_LANGUAGE CUDA)
    endif()
  endif()
endif()

if(_why)
  string(REPLACE ";" "" _why "${_why}")
  if(FEM_WITH_KOKKOS STREQUAL "ON")
    message(FATAL_ERROR "FEM_WITH_KOKKOS=ON, but the Kokkos backend cannot be built: ${_why}")
  elseif(Kokkos_FOUND)
    message(WARNING "fem: Kokkos backend not built: ${_why}")
  else()
    message(STATUS "fem: Kokkos backend not built: ${_why}")
  endif()
  return()
endif()

add_library(fem_kokkos_runtime INTERFACE)
target_link_libraries(fem_kokkos_runtime INTERFACE Kokkos::kokkos)
# Trilinos' Kokkos (Debian) exports an include directory without its headers; they are in
# Kokkos_INCLUDE_DIRS.
# (The installed femConfig.cmake adds them again from the Kokkos it finds.)
foreach(_dir IN LISTS Kokkos_INCLUDE_DIRS)
  target_include_directories(fem_kokkos_runtime SYSTEM INTERFACE $<BUILD_INTERFACE:${_dir}>)
endforeach()
set(FEM_KOKKOS_ENABLED ON)
message(STATUS "fem: Kokkos backend: Kokkos ${Kokkos_VERSION} (${Kokkos_DEVICES}), compiled as "
               "${FEM_KOKKOS_LANGUAGE}")
