// The CUDA backend against the OpenMP reference. Without a GPU (CI) these tests skip and say why;
// on the GPU machine they run, as does the whole physics suite with FEM_TEST_BACKEND=cuda.
// With the default build (no FMA contraction, denormals flushed on both sides) the two backends
// agree bit for bit; the bounds below are the product's promise, which also covers
// -DFEM_CUDA_FMAD=ON builds in double precision.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

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

/// The seed-000 cube on OpenMP and CUDA side by side, compared over the whole run.
void expect_agreement(const AgreementCase& c, const char* mode) {
  auto plugins = std::make_unique<PluginRegistry>();
  std::string why;
  std::unique_ptr<Backend> cuda = cuda_backend(*plugins, why);
  if (!cuda) GTEST_SKIP() << "no CUDA backend here: " << why;
  const Agreement a = compare_with_openmp(*plugins, *cuda, "cuda", c);
  EXPECT_GT(a.scale, 0.009);
  EXPECT_LE(a.relative, c.tolerance);
  std::printf(
      "[ cuda vs openmp ] %s %s %s%s: max |du| / max |u| = %.3e (worst per-instant ratio %.3e) "
      "over %lld steps\n",
      c.element.first.c_str(), c.precision.c_str(), c.assembly.c_str(), mode, a.relative,
      a.worst_instant, static_cast<long long>(a.steps));
}

class CudaAgreement : public ::testing::TestWithParam<AgreementCase> {};

TEST_P(CudaAgreement, MatchesOpenMpOverTheWholeRun) {
  expect_agreement(GetParam(), "");
}

INSTANTIATE_TEST_SUITE_P(Cube, CudaAgreement, ::testing::ValuesIn(agreement_cases(true)),
                         agreement_name);

/// Sets an environment variable for the problems created while it lives, then restores it.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    ::setenv(name, value, 1);
  }
  ~ScopedEnv() {
    if (old_.empty())
      ::unsetenv(name_);
    else
      ::setenv(name_, old_.c_str(), 1);
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  std::string old_;
};

/// Atomic assembly with each way of adding forces forced for every block (FEM_CUDA_ATOMICS; the
/// default, auto, mixes them by block and is what CudaAgreement runs): plain atomics, and
/// warp-aggregated ones, where lanes of a warp that add to the same node sum first. Both only
/// reorder the sums, so the atomic bounds hold.
class CudaAtomicModes : public ::testing::TestWithParam<AgreementCase> {};

TEST_P(CudaAtomicModes, PlainMatchesOpenMpOverTheWholeRun) {
  const ScopedEnv plain("FEM_CUDA_ATOMICS", "plain");
  expect_agreement(GetParam(), " (plain atomics)");
}

TEST_P(CudaAtomicModes, WarpAggregatedMatchesOpenMpOverTheWholeRun) {
  const ScopedEnv warp("FEM_CUDA_ATOMICS", "warp");
  expect_agreement(GetParam(), " (warp-aggregated atomics)");
}

std::vector<AgreementCase> atomic_cases() {
  std::vector<AgreementCase> cases = agreement_cases(true);
  std::erase_if(cases, [](const AgreementCase& c) { return c.assembly != "atomic"; });
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Cube, CudaAtomicModes, ::testing::ValuesIn(atomic_cases()),
                         agreement_name);

/// A mode that is not auto, plain or warp is refused when the problem is created, with the fix.
TEST(CudaBackend, UnknownAtomicModeIsRefused) {
  auto plugins = std::make_unique<PluginRegistry>();
  std::string why;
  std::unique_ptr<Backend> cuda = cuda_backend(*plugins, why);
  if (!cuda) GTEST_SKIP() << "no CUDA backend here: " << why;
  const ScopedEnv bad("FEM_CUDA_ATOMICS", "warpp");
  try {
    compare_with_openmp(*plugins, *cuda, "cuda", atomic_cases().front());
    ADD_FAILURE() << "FEM_CUDA_ATOMICS=warpp was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("use auto (the default), plain or warp"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace fem::test
