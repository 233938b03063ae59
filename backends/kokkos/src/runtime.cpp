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

void initialize([[maybe_unused]] int device) {
#if KOKKOS_VERSION >= 30700
  // Warnings off: Kokkos' OpenMP space otherwise prints OMP_PROC_BIND advice on every start.
  Kokkos::InitializationSettings settings;
  settings.set_disable_warnings(true);
#if defined(KOKKOS_ENABLE_CUDA)
  if (device >= 0) settings.set_device_id(device);
#endif
  Kokkos::initialize(settings);
#else
  Kokkos::InitArguments args;
  args.disable_warnings = true;
#if defined(KOKKOS_ENABLE_CUDA)
  if (device >= 0) args.device_id = device;
#endif
  Kokkos::initialize(args);
#endif
}

}  // namespace

RuntimeRef::RuntimeRef([[maybe_unused]] int device) {
  const std::lock_guard<std::mutex> lock(mutex);
#if defined(KOKKOS_ENABLE_CUDA)
  if (Kokkos::is_initialized() && device >= 0 && Kokkos::Cuda().cuda_device() != device)
    throw Error("Kokkos already runs on device " + std::to_string(Kokkos::Cuda().cuda_device()) +
                " in this process and cannot move to device " + std::to_string(device) +
                ": run the other device in another process");
#endif
  if (!Kokkos::is_initialized()) {
    if (exiting) throw Error("the Kokkos backend was used after the process began to exit");
    try {
      initialize(device);
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
