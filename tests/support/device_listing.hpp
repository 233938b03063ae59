// What `device: N` promises on a GPU backend (CUDA, Kokkos on CUDA), checked the same way for
// each: the listing fem plugins prints, and the refusal of a device that is not there.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include <fem/backend.hpp>
#include <fem/error.hpp>
#include <fem/plugin_registry.hpp>

namespace fem::test {

/// Every device of `devices` (backend `name`'s listing) numbered in order from 0, named, with
/// its compute capability, exactly one in use; the device one past the last refused with the
/// count at the case key's place. Returns the number of the device in use.
inline int expect_gpus_listed_and_one_past_refused(const PluginRegistry& plugins,
                                                   const std::string& name,
                                                   const std::vector<ComputeDevice>& devices) {
  const int count = static_cast<int>(devices.size());
  int in_use = 0;
  for (int d = 0; d < count; ++d) {
    EXPECT_EQ(devices[d].index, d);
    EXPECT_FALSE(devices[d].name.empty());
    EXPECT_NE(devices[d].details.find("sm_"), std::string::npos) << devices[d].details;
    in_use += devices[d].in_use ? 1 : 0;
  }
  EXPECT_EQ(in_use, 1);
  try {
    (void)plugins.create_backend(name, count, {}, {"case.yaml", 2, 9});
    ADD_FAILURE() << name << ": device " << count << " of " << count << " was accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.where().line, 2) << e.what();
    EXPECT_NE(std::string(e.what()).find("only " + std::to_string(count) + " CUDA device(s)"),
              std::string::npos)
        << e.what();
  }
  return static_cast<int>(
      std::find_if(devices.begin(), devices.end(), [](const auto& d) { return d.in_use; }) -
      devices.begin());
}

}  // namespace fem::test
