// The plugin ABI: one C entry point per shared library returning a versioned descriptor.
//
// Every plugin (backend, element, material build for one backend) exports
//   extern "C" const fem_plugin_descriptor* fem_plugin_descriptor();
// The loader reads abi_version first and refuses anything else, so the layout of the rest may
// change between ABI versions. build_id records the C++ compiler ABI, because the kind-specific
// tables behind `api` carry C++ types.
#pragma once

#include <cstdint>

/// Bump on any change to a descriptor, a table behind `api`, or an SDK type a table uses.
#define FEM_PLUGIN_ABI_VERSION 14u

/// The symbol every plugin exports.
#define FEM_PLUGIN_ENTRY_SYMBOL "fem_plugin_descriptor"

// The C++ standard library ABI the plugin was built with; part of build_id.
#define FEM_STRINGIFY_(x) #x
#define FEM_STRINGIFY(x) FEM_STRINGIFY_(x)
#if defined(_GLIBCXX_USE_CXX11_ABI)
#define FEM_CXX_ABI_TAG "libstdc++" FEM_STRINGIFY(_GLIBCXX_USE_CXX11_ABI)
#elif defined(_LIBCPP_VERSION)
#define FEM_CXX_ABI_TAG "libc++"
#else
#define FEM_CXX_ABI_TAG "unknown"
#endif
#define FEM_PLUGIN_BUILD_ID FEM_CXX_ABI_TAG

extern "C" {

enum fem_plugin_kind : std::uint32_t {
  FEM_PLUGIN_BACKEND = 1,
  FEM_PLUGIN_ELEMENT = 2,
  FEM_PLUGIN_MATERIAL = 3,
};

struct fem_plugin_descriptor_t {
  std::uint32_t abi_version;  ///< FEM_PLUGIN_ABI_VERSION the plugin was compiled against
  std::uint32_t kind;         ///< fem_plugin_kind
  const char* name;           ///< e.g. "neo_hookean", "hex8r", "openmp"
  const char* version;        ///< the plugin's own version string
  const char* backend;        ///< material builds: the backend compiled for; backends: own name
  const char* build_id;       ///< FEM_PLUGIN_BUILD_ID
  const void* api;            ///< kind-specific table: BackendApi, ElementData, MaterialApi
};

using fem_plugin_entry_fn = const fem_plugin_descriptor_t* (*)();
}

/// Defines the entry point. Use once per plugin library.
#define FEM_DEFINE_PLUGIN_ENTRY(KIND, NAME, VERSION, BACKEND, API_PTR)                         \
  extern "C" __attribute__((visibility("default"))) const fem_plugin_descriptor_t*             \
  fem_plugin_descriptor() {                                                                    \
    static const fem_plugin_descriptor_t d = {                                                 \
        FEM_PLUGIN_ABI_VERSION, KIND, NAME, VERSION, BACKEND, FEM_PLUGIN_BUILD_ID, (API_PTR)}; \
    return &d;                                                                                 \
  }
