// Kokkos initialisation and finalisation for a backend that lives in a dlopen'ed plugin.
//
// Kokkos can be initialised once per process and must be finalised after the last View is
// destroyed (a View freed after Kokkos::finalize() aborts the process) and before the libraries
// it uses (the CUDA runtime) tear down. The plugin cannot know when its host program is done, so:
//  - the first Backend initialises Kokkos (unless the host program already did; then it is the
//    host program's to finalise) and registers an exit handler;
//  - every object that owns Views holds a RuntimeRef, declared before its Views so that it is
//    destroyed after them;
//  - Kokkos::finalize() runs when the process is exiting AND no RuntimeRef is left: in the exit
//    handler if everything was destroyed before exit (the usual case), otherwise when the last
//    RuntimeRef goes (objects destroyed by static destructors after the handler ran).
#pragma once

#include <string>

namespace fem::kokkos {

class RuntimeRef {
 public:
  /// Initialises Kokkos on first use, on GPU `device` where Kokkos runs on GPUs (-1: Kokkos'
  /// own choice); throws fem::Error if that fails, or if Kokkos already runs on another GPU in
  /// this process (it can be initialised once).
  explicit RuntimeRef(int device = -1);
  ~RuntimeRef();
  RuntimeRef(const RuntimeRef&);
  RuntimeRef& operator=(const RuntimeRef&) = delete;
};

}  // namespace fem::kokkos
