// Whether a backend can run in this build and on this machine, for tests that compare it with
// the OpenMP reference and skip, saying why, where it cannot (no CUDA compiler, no GPU, no
// usable Kokkos).
#pragma once

#include <memory>
#include <string>

#include <fem/error.hpp>
#include <fem/plugin_registry.hpp>

namespace fem::test {

/// The backend `name` made from `plugins`, or nullptr with `why` when it is not built or cannot
/// start here (a device backend without a device).
inline std::unique_ptr<Backend> backend_here(const PluginRegistry& plugins, const std::string& name,
                                             std::string& why) {
  if (plugins.find("backend", name) == nullptr) {
    why = "this fem was built without the " + name +
          " backend (no CUDA compiler or no usable Kokkos: see cmake's output)";
    return nullptr;
  }
  try {
    return plugins.create_backend(name);
  } catch (const Error& e) {
    why = e.what();
    return nullptr;
  }
}

}  // namespace fem::test

/// Skips the test, saying why, where backend `name` cannot run in this build or on this machine.
#define FEM_SKIP_WITHOUT_BACKEND(name)                              \
  do {                                                              \
    std::string why_;                                               \
    const ::fem::PluginRegistry plugins_;                           \
    if (::fem::test::backend_here(plugins_, name, why_) == nullptr) \
      GTEST_SKIP() << "no " << (name) << " backend here: " << why_; \
  } while (false)
