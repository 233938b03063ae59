// Helpers for the case-loader tests: catch the InputError a bad case must raise.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <fem/case.hpp>

namespace fem::test {

/// The error parse_case() throws for `yaml` (named "case.yaml"), or a failed test if none.
inline InputError case_error(const std::string& yaml,
                             const std::vector<CaseOverride>& overrides = {}) {
  try {
    parse_case(yaml, "case.yaml", overrides);
  } catch (const InputError& e) {
    return e;
  }
  ADD_FAILURE() << "the case was accepted:\n" << yaml;
  return InputError({}, "<no error>");
}

inline bool mentions(const InputError& e, const std::string& text) {
  return std::string(e.what()).find(text) != std::string::npos;
}

}  // namespace fem::test
