// The built-in element types that every element-generic physics test runs over.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

namespace fem::test {

/// (element plugin, mesh cell shape) pairs.
using ElementCase = std::pair<std::string, std::string>;

inline std::vector<ElementCase> linear_element_types() {
  return {{"tet4", "tet4"}, {"tet4_anp", "tet4"}, {"hex8", "hex8"}, {"hex8r", "hex8"}};
}

inline std::vector<ElementCase> quadratic_element_types() {
  return {{"tet10", "tet10"}, {"hex20", "hex20"}, {"hex20r", "hex20"}};
}

/// The linear element types, and with `quadratic` the quadratic ones after them.
inline std::vector<ElementCase> element_types(bool quadratic) {
  std::vector<ElementCase> all = linear_element_types();
  if (quadratic)
    for (const ElementCase& e : quadratic_element_types()) all.push_back(e);
  return all;
}

inline auto all_element_types() {
  return ::testing::ValuesIn(element_types(true));
}

inline std::string element_name(const ::testing::TestParamInfo<ElementCase>& info) {
  return info.param.first;
}

}  // namespace fem::test
