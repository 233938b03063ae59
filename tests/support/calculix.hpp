// Where CalculiX (Debian's calculix-ccx) is, for the tests that compare fem with it.
#pragma once

#include <cstdlib>
#include <string>

#include "support/run_fem.hpp"

namespace fem::test {

/// FEM_CCX, else ccx on the PATH, else "".
inline std::string find_ccx() {
  if (const char* env = std::getenv("FEM_CCX")) return env;
  const FemResult r = run_shell("command -v ccx");
  if (r.code != 0) return {};
  std::string path = r.output;
  while (!path.empty() && (path.back() == '\n' || path.back() == '\r')) path.pop_back();
  return path;
}

/// Why a CalculiX comparison cannot run here ("" where ccx is found): scripts/test.sh installs
/// ccx and sets FEM_TEST_REQUIRE_CALCULIX, and there a missing ccx must fail rather than skip.
inline std::string calculix_missing(bool& required) {
  required = std::getenv("FEM_TEST_REQUIRE_CALCULIX") != nullptr;
  if (!find_ccx().empty()) return {};
  return "CalculiX (ccx) not found: install calculix-ccx (scripts/install-dependencies.sh does) "
         "or set FEM_CCX";
}

}  // namespace fem::test
