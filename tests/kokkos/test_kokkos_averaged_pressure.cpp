// The averaged-nodal-pressure tetrahedron on the Kokkos backend against the OpenMP reference, on
// the mixed two-material column of support/anp_agreement.hpp (the same test as CUDA's).
// Deterministic assembly.
#include <gtest/gtest.h>

#include "support/anp_agreement.hpp"

namespace fem::test {
namespace {

class KokkosAveragedPressure : public ::testing::TestWithParam<AnpCase> {};

TEST_P(KokkosAveragedPressure, MixedTwoMaterialColumnMatchesOpenMp) {
  expect_anp_column_matches_openmp("kokkos", GetParam());
}

INSTANTIATE_TEST_SUITE_P(Column, KokkosAveragedPressure,
                         ::testing::Values(AnpCase{"single", "deterministic", 1e-5},
                                           AnpCase{"double", "deterministic", 1e-10}),
                         anp_case_name);

}  // namespace
}  // namespace fem::test
