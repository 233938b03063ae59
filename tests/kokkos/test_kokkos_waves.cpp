// The Kokkos backend's verbs of the explicit elastodynamic step (block_matrix, wave_step,
// wave_source, gather) against the OpenMP reference (the checks are
// tests/support/wave_agreement.hpp, shared with the CUDA backend), on the execution space the
// installed Kokkos runs; and the OpenMP reference itself against the LinearAlgebra defaults
// that a backend without these verbs falls back on.
#include <gtest/gtest.h>

#include <string>

#include <fem/plugin_registry.hpp>

#include "support/backend_here.hpp"
#include "support/wave_agreement.hpp"

namespace fem::test {
namespace {

/// Whether the Kokkos backend can run here; if not, `why`.
bool kokkos_runs_here(std::string& why) {
  const PluginRegistry plugins;
  return backend_here(plugins, "kokkos", why) != nullptr;
}

class KokkosWaveVerbs : public ::testing::TestWithParam<std::string> {};

TEST_P(KokkosWaveVerbs, MatchOpenMp) {
  std::string why;
  if (!kokkos_runs_here(why)) GTEST_SKIP() << why;
  expect_wave_verbs_match_openmp("kokkos",
                                 GetParam() == "single" ? Precision::Single : Precision::Double);
}

INSTANTIATE_TEST_SUITE_P(Precisions, KokkosWaveVerbs, ::testing::Values("single", "double"),
                         [](const ::testing::TestParamInfo<std::string>& i) { return i.param; });

TEST(OpenMpWaveVerbs, MatchTheHostDefaults) {
  expect_openmp_waves_match_defaults();
}

}  // namespace
}  // namespace fem::test
