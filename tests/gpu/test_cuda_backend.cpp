// The CUDA backend against the OpenMP reference. Without a GPU (CI) these tests skip and say why;
// on the GPU machine they run, as does the whole physics suite with FEM_TEST_BACKEND=cuda.
// With the default build (no FMA contraction, denormals flushed on both sides) the two backends
// agree bit for bit; the bounds below are the product's promise, which also covers
// -DFEM_CUDA_FMAD=ON builds in double precision.
#include <gtest/gtest.h>

#include <cstdio>

#include <fem/solver/explicit_system.hpp>

#include "support/backend_agreement.hpp"
#include "support/case_runner.hpp"

namespace fem::test {
namespace {

/// The CUDA backend, or the reason it cannot run here.
std::unique_ptr<Backend> cuda_backend(const PluginRegistry& plugins, std::string& why) {
  if (plugins.find("backend", "cuda") == nullptr) {
    why = "this fem was built without the CUDA backend (no CUDA compiler)";
    return nullptr;
  }
  try {
    return plugins.create_backend("cuda");
  } catch (const Error& e) {
    why = e.what();
    return nullptr;
  }
}

TEST(CudaBackend, MissingDeviceGivesAClearMessage) {
  const PluginRegistry plugins;
  std::string why;
  if (cuda_backend(plugins, why)) GTEST_SKIP() << "a CUDA device is present: nothing to refuse";
  if (plugins.find("backend", "cuda") == nullptr) GTEST_SKIP() << why;
  EXPECT_NE(why.find("cannot run on this machine"), std::string::npos) << why;
  EXPECT_NE(why.find("--backend"), std::string::npos) << why;
}

class CudaAgreement : public ::testing::TestWithParam<AgreementCase> {};

/// The seed-000 cube on OpenMP and CUDA side by side, compared over the whole run.
TEST_P(CudaAgreement, MatchesOpenMpOverTheWholeRun) {
  const AgreementCase& c = GetParam();
  auto plugins = std::make_unique<PluginRegistry>();
  std::string why;
  std::unique_ptr<Backend> cuda = cuda_backend(*plugins, why);
  if (!cuda) GTEST_SKIP() << "no CUDA backend here: " << why;
  const Agreement a = compare_with_openmp(*plugins, *cuda, "cuda", c);
  EXPECT_GT(a.scale, 0.009);
  EXPECT_LE(a.relative, c.tolerance);
  std::printf(
      "[ cuda vs openmp ] %s %s %s: max |du| / max |u| = %.3e (worst per-instant ratio %.3e) "
      "over %lld steps\n",
      c.element.first.c_str(), c.precision.c_str(), c.assembly.c_str(), a.relative, a.worst_instant,
      static_cast<long long>(a.steps));
}

INSTANTIATE_TEST_SUITE_P(Cube, CudaAgreement, ::testing::ValuesIn(agreement_cases(true)),
                         agreement_name);

}  // namespace
}  // namespace fem::test
