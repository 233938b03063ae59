// The averaged-nodal-pressure tetrahedron on the CUDA backend against the OpenMP reference, on the
// mixed two-material column of support/anp_agreement.hpp (the same test as Kokkos'). Without a
// GPU it skips and says why; on the GPU machine: ctest --test-dir build -L gpu.
#include <gtest/gtest.h>

#include "support/anp_agreement.hpp"

namespace fem::test {
namespace {

class CudaAveragedPressure : public ::testing::TestWithParam<AnpCase> {};

TEST_P(CudaAveragedPressure, MixedTwoMaterialColumnMatchesOpenMp) {
  expect_anp_column_matches_openmp("cuda", GetParam());
}

INSTANTIATE_TEST_SUITE_P(Column, CudaAveragedPressure,
                         ::testing::Values(AnpCase{"single", "deterministic", 1e-5},
                                           AnpCase{"double", "deterministic", 1e-10},
                                           AnpCase{"single", "atomic", 1e-4},
                                           AnpCase{"double", "atomic", 1e-10}),
                         anp_case_name);

}  // namespace
}  // namespace fem::test
