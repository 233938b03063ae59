// The averaged-nodal-pressure tetrahedron on the CUDA backend against the OpenMP reference, on the
// mixed two-material column of support/anp_agreement.hpp. Without a GPU it skips and says why; on
// the GPU machine: ctest --test-dir build -L gpu.
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

class CudaAveragedPressure : public ::testing::TestWithParam<Case> {};

TEST_P(CudaAveragedPressure, MixedTwoMaterialColumnMatchesOpenMp) {
  const Case& c = GetParam();
  auto plugins = std::make_unique<PluginRegistry>();
  if (plugins->find("backend", "cuda") == nullptr)
    GTEST_SKIP() << "this fem was built without the CUDA backend (no CUDA compiler)";
  std::unique_ptr<Backend> cuda;
  try {
    cuda = plugins->create_backend("cuda");
  } catch (const Error& e) {
    GTEST_SKIP() << "no CUDA backend here: " << e.what();
  }
  const AnpAgreement a =
      compare_anp_column_with_openmp(*plugins, *cuda, "cuda", c.precision, c.assembly);
  std::printf(
      "[ cuda vs openmp, anp ] %s %s: max |du| / max |u| = %.3e, stress %.3e, energy %.3e over "
      "%lld steps\n",
      c.precision.c_str(), c.assembly.c_str(), a.displacement, a.stress, a.energy,
      static_cast<long long>(a.steps));
  EXPECT_GT(a.scale, 0.003);
  EXPECT_LE(a.displacement, c.tolerance);
  EXPECT_LE(a.stress, 100 * c.tolerance);
  EXPECT_LE(a.energy, 100 * c.tolerance);
}

INSTANTIATE_TEST_SUITE_P(Column, CudaAveragedPressure,
                         ::testing::Values(Case{"single", "deterministic", 1e-5},
                                           Case{"double", "deterministic", 1e-10},
                                           Case{"single", "atomic", 1e-4},
                                           Case{"double", "atomic", 1e-10}),
                         [](const ::testing::TestParamInfo<Case>& i) {
                           return i.param.precision + "_" + i.param.assembly;
                         });

}  // namespace
}  // namespace fem::test
