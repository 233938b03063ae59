// The Kokkos backend's operators for the implicit solvers against the OpenMP reference: the vector
// verbs, every operator verb at one deformed state, and whole static solves (the checks are
// tests/support/implicit_agreement.hpp, shared with the CUDA backend), on the execution space the
// installed Kokkos runs (Serial here; FEM_KOKKOS_SPACE picks the host space of a CUDA-enabled
// Kokkos). The implicit suite itself also runs on Kokkos: ctest -L kokkos.
#include <gtest/gtest.h>

#include <string>

#include <fem/plugin_registry.hpp>

#include "support/backend_here.hpp"
#include "support/implicit_agreement.hpp"

namespace fem::test {
namespace {

/// The Kokkos backend's execution space, or empty with `why` when it cannot run here.
std::string kokkos_space(std::string& why) {
  const PluginRegistry plugins;
  const auto kokkos = backend_here(plugins, "kokkos", why);
  return kokkos ? kokkos->execution_space() : std::string();
}

/// Whether the space runs on the host, where the verbs sum in the OpenMP reference's order.
bool runs_on_host(const std::string& space) {
  return space.find("Cuda") == std::string::npos;
}

#define FEM_SKIP_WITHOUT_KOKKOS()                       \
  do {                                                  \
    std::string why;                                    \
    if (kokkos_space(why).empty()) GTEST_SKIP() << why; \
  } while (false)

/// Sizes: one node, an odd size within one reduction chunk, and many chunks with a partial last
/// one. On a host space the reductions are the reference's bits.
class KokkosVectorVerbs : public ::testing::TestWithParam<std::string> {};

TEST_P(KokkosVectorVerbs, MatchOpenMp) {
  std::string why;
  const std::string space = kokkos_space(why);
  if (space.empty()) GTEST_SKIP() << why;
  expect_vector_verbs_match_openmp(
      "kokkos", GetParam() == "single" ? Precision::Single : Precision::Double, runs_on_host(space),
      {std::int64_t{3}, std::int64_t{3 * 457}, std::int64_t{3 * 20001}});
}

INSTANTIATE_TEST_SUITE_P(Precisions, KokkosVectorVerbs, ::testing::Values("single", "double"),
                         [](const ::testing::TestParamInfo<std::string>& i) { return i.param; });

class KokkosOperatorVerbs : public ::testing::TestWithParam<OperatorCase> {};

TEST_P(KokkosOperatorVerbs, MatchOpenMp) {
  std::string why;
  const std::string space = kokkos_space(why);
  if (space.empty()) GTEST_SKIP() << why;
  // A host space checks the elements in the reference's order: the same first inverted one.
  expect_operator_verbs_match_openmp("kokkos", GetParam(), runs_on_host(space));
}

INSTANTIATE_TEST_SUITE_P(Elements, KokkosOperatorVerbs, ::testing::ValuesIn(operator_cases(true)),
                         operator_case_name);

class KokkosStaticSolve : public ::testing::TestWithParam<StaticCase> {};

TEST_P(KokkosStaticSolve, MatchesOpenMp) {
  FEM_SKIP_WITHOUT_KOKKOS();
  expect_static_solve_matches_openmp("kokkos", GetParam());
}

INSTANTIATE_TEST_SUITE_P(PressedCube, KokkosStaticSolve, ::testing::ValuesIn(static_cases()),
                         static_case_name);

}  // namespace
}  // namespace fem::test
