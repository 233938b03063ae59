// The plugin descriptor check: what load_plugin_file() verifies in the descriptor a plugin's
// entry point returns (ABI version, C++ library ABI, kind, name, the size of its API table),
// on descriptors built from the input. No plugin is loaded: dlopen() runs a library's code, so
// an arbitrary file is no input for it; the descriptor is what fem judges.
#include <fuzzer/FuzzedDataProvider.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "fem/plugin_registry.hpp"
#include "fuzz_support.hpp"

namespace {

/// Null, the value fem expects, or text from the input.
const char* pick_string(FuzzedDataProvider& in, std::string& storage, const char* expected) {
  switch (in.ConsumeIntegralInRange<int>(0, 2)) {
    case 0:
      return nullptr;
    case 1:
      return expected;
    default:
      storage = in.ConsumeRandomLengthString(64);
      return storage.c_str();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider in(data, size);
  fem_plugin_descriptor_t d{};
  d.abi_version = in.ConsumeBool() ? FEM_PLUGIN_ABI_VERSION : in.ConsumeIntegral<std::uint32_t>();
  d.kind = in.ConsumeBool() ? in.ConsumeIntegralInRange<std::uint32_t>(0, 4)
                            : in.ConsumeIntegral<std::uint32_t>();
  std::string name, version, backend, build_id;
  d.name = pick_string(in, name, "neo_hookean");
  d.version = pick_string(in, version, "1.0");
  d.backend = pick_string(in, backend, "openmp");
  d.build_id = pick_string(in, build_id, FEM_PLUGIN_BUILD_ID);
  // The API table: as large as the largest kind's, filled from the input; its struct_size either
  // right for the kind or from the input.
  const std::size_t table =
      std::max({sizeof(fem::ElementData), sizeof(fem::MaterialApi), sizeof(fem::BackendApi)});
  std::vector<std::uint8_t> api(table, 0);
  const bool has_api = in.ConsumeBool();
  const bool right_size = in.ConsumeBool();
  const std::vector<std::uint8_t> fill = in.ConsumeBytes<std::uint8_t>(table);
  std::copy(fill.begin(), fill.end(), api.begin());
  if (right_size) {
    std::uint32_t s = 0;
    void* field = nullptr;
    if (d.kind == FEM_PLUGIN_ELEMENT) {
      s = sizeof(fem::ElementData);
      field = &reinterpret_cast<fem::ElementData*>(api.data())->struct_size;
    } else if (d.kind == FEM_PLUGIN_MATERIAL) {
      s = sizeof(fem::MaterialHostApi);
      field = &reinterpret_cast<fem::MaterialApi*>(api.data())->host.struct_size;
    } else if (d.kind == FEM_PLUGIN_BACKEND) {
      s = sizeof(fem::BackendApi);
      field = &reinterpret_cast<fem::BackendApi*>(api.data())->struct_size;
    }
    if (field != nullptr) std::memcpy(field, &s, sizeof s);
  }
  d.api = has_api ? api.data() : nullptr;
  const std::string path = "/plugins/" + in.ConsumeRandomLengthString(32) + ".so";
  const bool null_descriptor = in.remaining_bytes() == 1 && in.ConsumeBool();
  fem::fuzz::expect_fem_errors([&] {
    const fem::PluginInfo info = fem::check_plugin_descriptor(path, null_descriptor ? nullptr : &d);
    // An accepted descriptor names what it says.
    if (info.name != d.name || info.descriptor != &d) __builtin_trap();
  });
  return 0;
}
