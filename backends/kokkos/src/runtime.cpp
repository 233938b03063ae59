#include "runtime.hpp"

#include <dlfcn.h>

#include <Kokkos_Core.hpp>

#include <cstdlib>
#include <mutex>

#include <fem/error.hpp>

namespace fem::kokkos {
namespace {

std::mutex mutex;        // guards the three below
int live = 0;            // RuntimeRefs alive
bool exiting = false;    // the exit handler has run
bool we_own_it = false;  // this plugin initialised Kokkos, so it finalises it

void finalize_if_done() {
  if (exiting && live == 0 && we_own_it && Kokkos::is_initialized()) {
    we_own_it = false;
    Kokkos::finalize();
  }
}

void at_exit() {
  const std::lock_guard<std::mutex> lock(mutex);
  exiting = true;
  finalize_if_done();
}

/// Keeps this plugin (and through it libkokkoscore) loaded until the process ends: its exit
/// handler and Kokkos' global state must outlive any dlclose of the plugin.
void pin_this_plugin() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&pin_this_plugin), &info) != 0 && info.dli_fname != nullptr)
    dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
}

void initialize() {
#if KOKKOS_VERSION >= 30700
  // Warnings off: Kokkos' OpenMP space otherwise prints OMP_PROC_BIND advice on every start.
  Kokkos::initialize(Kokkos::InitializationSettings().set_disable_warnings(true));
#else
  Kokkos::InitArguments args;
  args.disable_warnings = true;
  Kokkos::initialize(args);
#endif
}

}  // namespace

RuntimeRef::RuntimeRef() {
  const std::lock_guard<std::mutex> lock(mutex);
  if (!Kokkos::is_initialized()) {
    if (exiting) throw Error("the Kokkos backend was used after the process began to exit");
    try {
      initialize();
    } catch (const std::exception& e) {
      throw Error(std::string("Kokkos::initialize failed: ") + e.what());
    }
    we_own_it = true;
    pin_this_plugin();
    // Registered after Kokkos::initialize, so it runs before the exit handlers of the libraries
    // Kokkos initialised (the CUDA runtime).
    std::atexit(&at_exit);
  }
  ++live;
}

RuntimeRef::RuntimeRef(const RuntimeRef&) {
  const std::lock_guard<std::mutex> lock(mutex);
  ++live;
}

RuntimeRef::~RuntimeRef() {
  const std::lock_guard<std::mutex> lock(mutex);
  --live;
  finalize_if_done();
}

}  // namespace fem::kokkos
