// The built-in element types that every element-generic physics test runs over.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <utility>

namespace fem::test {

/// (element plugin, mesh cell shape) pairs.
using ElementCase = std::pair<std::string, std::string>;

inline auto all_element_types() {
  return ::testing::Values(ElementCase{"tet4", "tet4"}, ElementCase{"tet4_anp", "tet4"},
                           ElementCase{"hex8", "hex8"}, ElementCase{"hex8r", "hex8"});
}

inline std::string element_name(const ::testing::TestParamInfo<ElementCase>& info) {
  return info.param.first;
}

}  // namespace fem::test
