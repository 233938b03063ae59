// Which backend and precision the physics tests run on. The same suite runs on every backend:
// FEM_TEST_BACKEND=cuda ctest ... on a GPU machine.
#pragma once

#include <cstdlib>
#include <string>
#include <vector>

#include <fem/case.hpp>

namespace fem::test {

inline std::string backend_under_test() {
  const char* b = std::getenv("FEM_TEST_BACKEND");
  return b && *b ? b : "openmp";
}

/// Overrides that put a case on the backend under test.
inline std::vector<CaseOverride> on_backend(std::vector<CaseOverride> extra = {}) {
  extra.insert(extra.begin(), CaseOverride{"backend", backend_under_test()});
  return extra;
}

}  // namespace fem::test
