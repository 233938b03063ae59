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

#include "support/advance_step_checks.hpp"
#include "support/backend_agreement.hpp"
#include "support/backend_here.hpp"
#include "support/case_runner.hpp"
#include "support/device_listing.hpp"

namespace fem::test {
namespace {

TEST(CudaBackend, MissingDeviceGivesAClearMessage) {
  const PluginRegistry plugins;
  std::string why;
  if (backend_here(plugins, "cuda", why))
    GTEST_SKIP() << "a CUDA device is present: nothing to refuse";
  if (plugins.find("backend", "cuda") == nullptr) GTEST_SKIP() << why;
  EXPECT_NE(why.find("cannot run on this machine"), std::string::npos) << why;
  EXPECT_NE(why.find("--backend"), std::string::npos) << why;
}

/// `device: N` picks the GPU: every visible GPU is listed once with its number, one past the
/// last is refused at the key's place, and the small cube gives the same bits on each GPU.
TEST(CudaBackend, EveryGpuIsListedAndChosenByNumber) {
  const PluginRegistry plugins;
  std::string why;
  const std::unique_ptr<Backend> cuda = backend_here(plugins, "cuda", why);
  if (!cuda) GTEST_SKIP() << "no CUDA backend here: " << why;
  const std::vector<ComputeDevice> devices = cuda->devices();
  ASSERT_FALSE(devices.empty());
  const int count = static_cast<int>(devices.size());
  (void)expect_gpus_listed_and_one_past_refused(plugins, "cuda", devices);
  std::vector<double> first;
  for (int d = 0; d < count; ++d) {
    PreparedRun r = prepare_file(FEM_TEST_DATA_DIR "/small_cube.yaml",
                                 {{"backend", "cuda"}, {"device", std::to_string(d)}});
    const std::string space = r.backend->execution_space();
    EXPECT_EQ(space.substr(space.rfind(", ") + 2), "device " + std::to_string(d)) << space;
    EXPECT_TRUE(r.backend->devices().at(d).in_use);
    (void)run_in_memory(r);
    const std::vector<double> u = displacement(r);
    if (d == 0)
      first = u;
    else
      EXPECT_EQ(u, first) << "device " << d << " differs from device 0";
    std::printf("[ cuda devices ] device %d of %d: %s (%s)\n", d, count, devices[d].name.c_str(),
                devices[d].details.c_str());
  }
}

/// The seed-000 cube on OpenMP and CUDA side by side, compared over the whole run.
void expect_agreement(const AgreementCase& c, const char* mode) {
  auto plugins = std::make_unique<PluginRegistry>();
  std::string why;
  std::unique_ptr<Backend> cuda = backend_here(*plugins, "cuda", why);
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

INSTANTIATE_TEST_SUITE_P(Cube, CudaAgreement, ::testing::ValuesIn(agreement_cases(true, true)),
                         agreement_name);

/// A law with history (viscoelastic, 24 values per point, relaxing over the run; the step
/// reaches the law through ElementPassArgs::dt) on the same cube: hexahedra and tetrahedra.
TEST(CudaViscoelastic, MatchesOpenMpOverTheWholeRun) {
  auto plugins = std::make_unique<PluginRegistry>();
  std::string why;
  std::unique_ptr<Backend> cuda = backend_here(*plugins, "cuda", why);
  if (!cuda) GTEST_SKIP() << "no CUDA backend here: " << why;
  for (const AgreementCase& c : agreement_cases(false)) {
    // Double only: the law's exp(-dt/tau) comes from the CPU's and the GPU's libraries, whose
    // last bits differ, which single precision would amplify past its bound.
    if ((c.element.first != "hex8" && c.element.first != "tet4") || c.precision != "double")
      continue;
    const Agreement a = compare_with_openmp(
        *plugins, *cuda, "cuda", c,
        "{type: viscoelastic, density: 1000, c10: 500, bulk_modulus: 50000, g1: 0.4, "
        "tau1: 0.05, g2: 0.2, tau2: 0.3}");
    EXPECT_GT(a.scale, 0.009) << c.element.first;
    EXPECT_LE(a.relative, c.tolerance) << c.element.first << " " << c.precision;
    std::printf("[ cuda vs openmp ] viscoelastic %s %s: max |du| / max |u| = %.3e\n",
                c.element.first.c_str(), c.precision.c_str(), a.relative);
  }
}

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

/// The node pass's ways of clearing the node forces (FEM_CUDA_FORCE_CLEAR; auto takes fused in
/// single precision and fill in double) and of caching them in the L2 (FEM_CUDA_L2_FORCES; auto
/// persists small arrays), each forced for every case: none changes what is summed, so the
/// atomic bounds hold.
TEST_P(CudaAtomicModes, FusedForceClearMatchesOpenMpOverTheWholeRun) {
  const ScopedEnv fused("FEM_CUDA_FORCE_CLEAR", "fused");
  expect_agreement(GetParam(), " (forces zeroed in the node pass)");
}

TEST_P(CudaAtomicModes, FilledForceClearMatchesOpenMpOverTheWholeRun) {
  const ScopedEnv fill("FEM_CUDA_FORCE_CLEAR", "fill");
  expect_agreement(GetParam(), " (forces filled before each element pass)");
}

TEST_P(CudaAtomicModes, PersistingNodeForcesMatchOpenMpOverTheWholeRun) {
  const ScopedEnv persist("FEM_CUDA_L2_FORCES", "persist");
  expect_agreement(GetParam(), " (node forces persisting in L2)");
}

/// The deterministic gather with its residency limit off and at the tightest setting
/// (FEM_CUDA_GATHER_BLOCKS; auto limits it on tetrahedral meshes): it only changes how many
/// blocks run at once, not what each sums.
class CudaGatherLimit : public ::testing::TestWithParam<AgreementCase> {};

TEST_P(CudaGatherLimit, AnyResidencyMatchesOpenMpOverTheWholeRun) {
  for (const char* blocks : {"0", "1"}) {
    const ScopedEnv limit("FEM_CUDA_GATHER_BLOCKS", blocks);
    expect_agreement(GetParam(),
                     blocks[0] == '0' ? " (gather unlimited)" : " (gather 1 block per SM)");
  }
}

std::vector<AgreementCase> deterministic_cases() {
  std::vector<AgreementCase> cases = agreement_cases(true);
  std::erase_if(cases, [](const AgreementCase& c) { return c.assembly != "deterministic"; });
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Cube, CudaGatherLimit, ::testing::ValuesIn(deterministic_cases()),
                         agreement_name);

/// What a run on several processes asks of the backend (issue 16; the physics suite runs the
/// same checks on FEM_TEST_BACKEND): single steps, each a graph of one step or launched directly
/// when it keeps forces or is measured, give the bits of advance_measured's graphs; ghost nodes;
/// per-node forces; setting u_n at a few nodes.
class CudaAdvanceStep : public ::testing::TestWithParam<StepCase> {
 protected:
  void SetUp() override {
    std::string why;
    cuda_ = backend_here(*plugins_, "cuda", why);
    if (!cuda_) GTEST_SKIP() << "no CUDA backend here: " << why;
  }

  std::unique_ptr<PluginRegistry> plugins_ = std::make_unique<PluginRegistry>();
  std::unique_ptr<Backend> cuda_;  // after plugins_: destroyed before its plugin is unloaded
};

TEST_P(CudaAdvanceStep, StepsMatchAdvanceMeasuredBitForBit) {
  expect_steps_match_advance_measured(*plugins_, *cuda_, "cuda", GetParam());
}

TEST_P(CudaAdvanceStep, GhostNodesFollowTheExchangeAndStayOutOfTheNorms) {
  expect_ghosts_follow_the_exchange(*plugins_, *cuda_, "cuda", GetParam());
}

TEST_P(CudaAdvanceStep, NodalInternalForcesAddUpToInternalForceSum) {
  expect_nodal_forces_add_up(*plugins_, *cuda_, "cuda", GetParam());
}

TEST_P(CudaAdvanceStep, SetNodalDisplacementsChangesOnlyThoseNodes) {
  expect_nodal_displacements_set(*plugins_, *cuda_, "cuda", GetParam());
}

INSTANTIATE_TEST_SUITE_P(Cases, CudaAdvanceStep, ::testing::ValuesIn(step_cases()), step_case_name);

/// A CUDA tuning variable with a value it does not know, and the fix its message must name.
struct BadKnob {
  const char* variable;
  const char* value;
  const char* hint;
};

class CudaKnobs : public ::testing::TestWithParam<BadKnob> {};

/// Refused when the problem is created, naming the valid values.
TEST_P(CudaKnobs, UnknownValueIsRefusedWithTheChoices) {
  auto plugins = std::make_unique<PluginRegistry>();
  std::string why;
  std::unique_ptr<Backend> cuda = backend_here(*plugins, "cuda", why);
  if (!cuda) GTEST_SKIP() << "no CUDA backend here: " << why;
  const BadKnob& knob = GetParam();
  const ScopedEnv bad(knob.variable, knob.value);
  try {
    compare_with_openmp(*plugins, *cuda, "cuda", atomic_cases().front());
    ADD_FAILURE() << knob.variable << "=" << knob.value << " was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(knob.hint), std::string::npos) << e.what();
  }
}

INSTANTIATE_TEST_SUITE_P(
    Environment, CudaKnobs,
    ::testing::Values(
        BadKnob{"FEM_CUDA_ATOMICS", "warpp", "use auto (the default), plain or warp"},
        BadKnob{"FEM_CUDA_FORCE_CLEAR", "zero", "use auto (the default), fused or fill"},
        BadKnob{"FEM_CUDA_L2_FORCES", "keep", "use auto (the default), persist or normal"},
        BadKnob{"FEM_CUDA_GATHER_BLOCKS", "two", "use auto (the default), 0 (no limit) or 1..16"}),
    [](const ::testing::TestParamInfo<BadKnob>& knob) {
      return std::string(knob.param.variable + 9);  // without "FEM_CUDA_"
    });

}  // namespace
}  // namespace fem::test
