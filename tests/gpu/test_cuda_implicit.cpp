// The CUDA backend's operators for the implicit solvers against the OpenMP reference: the vector
// verbs, every operator verb at one deformed state, and whole static solves (the checks are
// tests/support/implicit_agreement.hpp, shared with the Kokkos backend). Without a GPU these
// tests skip and say why; on the GPU machine scripts/device/implicit-check.sh runs them, with
// the implicit suite on the CUDA backend (FEM_TEST_BACKEND=cuda).
#include <gtest/gtest.h>

#include <string>

#include <fem/plugin_registry.hpp>

#include "support/backend_here.hpp"
#include "support/implicit_agreement.hpp"

namespace fem::test {
namespace {

/// The device sums its reductions in its own order: round-off, not bits. Sizes: one node, an odd
/// size, and more entries than the reductions' fixed grid has threads.
class CudaVectorVerbs : public ::testing::TestWithParam<std::string> {};

TEST_P(CudaVectorVerbs, MatchOpenMp) {
  FEM_SKIP_WITHOUT_BACKEND("cuda");
  expect_vector_verbs_match_openmp(
      "cuda", GetParam() == "single" ? Precision::Single : Precision::Double, false,
      {std::int64_t{3}, std::int64_t{3 * 1237}, std::int64_t{600000}});
}

INSTANTIATE_TEST_SUITE_P(Precisions, CudaVectorVerbs, ::testing::Values("single", "double"),
                         [](const ::testing::TestParamInfo<std::string>& i) { return i.param; });

class CudaOperatorVerbs : public ::testing::TestWithParam<OperatorCase> {};

TEST_P(CudaOperatorVerbs, MatchOpenMp) {
  FEM_SKIP_WITHOUT_BACKEND("cuda");
  // Which inverted element a parallel check reports first is not fixed on the GPU.
  expect_operator_verbs_match_openmp("cuda", GetParam(), /*first_inverted=*/false);
}

INSTANTIATE_TEST_SUITE_P(Elements, CudaOperatorVerbs, ::testing::ValuesIn(operator_cases(true)),
                         operator_case_name);

class CudaStaticSolve : public ::testing::TestWithParam<StaticCase> {};

TEST_P(CudaStaticSolve, MatchesOpenMp) {
  FEM_SKIP_WITHOUT_BACKEND("cuda");
  expect_static_solve_matches_openmp("cuda", GetParam());
}

INSTANTIATE_TEST_SUITE_P(PressedCube, CudaStaticSolve, ::testing::ValuesIn(static_cases(true)),
                         static_case_name);

}  // namespace
}  // namespace fem::test
