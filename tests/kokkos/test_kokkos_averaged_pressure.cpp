// The averaged-nodal-pressure tetrahedron on the Kokkos backend against the OpenMP reference, on
// the mixed two-material column of support/anp_agreement.hpp. Deterministic assembly.
#include <gtest/gtest.h>

#include <cstdio>

#include "support/anp_agreement.hpp"

namespace fem::test {
namespace {

struct Case {
  std::string precision, assembly;
  double tolerance;
};

void PrintTo(const Case& c, std::ostream* os) {
  *os << c.precision << ' ' << c.assembly << " (tolerance " << c.tolerance << ')';
}

class KokkosAveragedPressure : public ::testing::TestWithParam<Case> {};

TEST_P(KokkosAveragedPressure, MixedTwoMaterialColumnMatchesOpenMp) {
  const Case& c = GetParam();
  auto plugins = std::make_unique<PluginRegistry>();
  if (plugins->find("backend", "kokkos") == nullptr)
    GTEST_SKIP() << "this fem was built without the Kokkos backend";
  std::unique_ptr<Backend> kokkos;
  try {
    kokkos = plugins->create_backend("kokkos");
  } catch (const Error& e) {
    GTEST_SKIP() << "no Kokkos backend here: " << e.what();
  }
  const AnpAgreement a =
      compare_anp_column_with_openmp(*plugins, *kokkos, "kokkos", c.precision, c.assembly);
  std::printf(
      "[ kokkos vs openmp, anp ] %s %s: max |du| / max |u| = %.3e, stress %.3e, energy %.3e over "
      "%lld steps\n",
      c.precision.c_str(), c.assembly.c_str(), a.displacement, a.stress, a.energy,
      static_cast<long long>(a.steps));
  EXPECT_GT(a.scale, 0.003);
  EXPECT_LE(a.displacement, c.tolerance);
  EXPECT_LE(a.stress, 100 * c.tolerance);
  EXPECT_LE(a.energy, 100 * c.tolerance);
}

INSTANTIATE_TEST_SUITE_P(Column, KokkosAveragedPressure,
                         ::testing::Values(Case{"single", "deterministic", 1e-5},
                                           Case{"double", "deterministic", 1e-10}),
                         [](const ::testing::TestParamInfo<Case>& i) {
                           return i.param.precision + "_" + i.param.assembly;
                         });

}  // namespace
}  // namespace fem::test
