// Helpers of the `fem bench` tests (test_bench.cpp, test_bench_implicit.cpp): output folders,
// the JSON, the second CPU backend to compare, and the CalculiX fixture.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include <fem/plugin_registry.hpp>

#include "support/run_fem.hpp"

namespace fem::test::bench {

inline std::string temp_dir(const std::string& name) {
  return fem::test::fresh_temp_dir("fem_bench_test", name);
}

inline nlohmann::json read_json(const std::string& path) {
  return nlohmann::json::parse(fem::test::read_text(path));
}

/// The second CPU backend to compare with the reference: kokkos when it is built, else the
/// reference listed twice (which the bench runs twice and compares, labelled openmp#2).
inline std::string second_cpu_backend() {
  const fem::PluginRegistry plugins;
  return plugins.find("backend", "kokkos") ? "kokkos" : "openmp#2";
}
inline std::string backend_list() {
  return second_cpu_backend() == "kokkos" ? "openmp,kokkos" : "openmp,openmp";
}

/// The run of `label` in `precision` in bench.json, or nullptr.
inline const nlohmann::json* run_of(const nlohmann::json& j, const std::string& label,
                                    const std::string& precision) {
  for (const nlohmann::json& r : j["runs"])
    if (r["label"] == label && r["precision"] == precision) return &r;
  return nullptr;
}

/// Whether the CalculiX peer can run: FEM_CCX or `ccx` on PATH. The project's set-up installs it
/// (scripts/test.sh sets FEM_TEST_REQUIRE_CALCULIX=1, so there a missing ccx fails the tests);
/// elsewhere (the GPU machine has no calculix-ccx) the peer tests skip and say why.
inline bool calculix_available() {
  if (const char* env = std::getenv("FEM_CCX"); env && *env) return std::filesystem::exists(env);
  return std::system("command -v ccx > /dev/null 2>&1") == 0;
}

/// The peer tests: skipped, saying why, where CalculiX is missing and not required.
class BenchCalculix : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* required = std::getenv("FEM_TEST_REQUIRE_CALCULIX");
    if (!calculix_available() && !(required && std::string(required) == "1"))
      GTEST_SKIP() << "CalculiX (ccx) is not installed here: `apt install calculix-ccx` "
                      "(scripts/install-dependencies.sh does) to run the peer tests";
  }
};

}  // namespace fem::test::bench
