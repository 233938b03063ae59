// The Kokkos backend against the OpenMP reference, on whatever execution space the installed
// Kokkos provides (Serial in CI, CUDA on the GPU machine; FEM_KOKKOS_SPACE=host for its host
// space). The whole physics suite also runs on it: ctest -L kokkos.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <fem/solver/explicit_system.hpp>

#include "support/backend_agreement.hpp"
#include "support/backend_here.hpp"
#include "support/case_runner.hpp"
#include "support/device_listing.hpp"

namespace fem::test {
namespace {

TEST(KokkosBackend, NamesItsKokkosAndExecutionSpace) {
  const PluginRegistry plugins;
  std::string why;
  const auto kokkos = backend_here(plugins, "kokkos", why);
  if (!kokkos) GTEST_SKIP() << why;
  const std::string space = kokkos->execution_space();
  EXPECT_EQ(space.rfind("Kokkos ", 0), 0u) << space;
  EXPECT_TRUE(space.find("Serial") != std::string::npos ||
              space.find("OpenMP") != std::string::npos ||
              space.find("Threads") != std::string::npos || space.find("Cuda") != std::string::npos)
      << space;
}

TEST(KokkosBackend, UnknownSpaceSelectionIsRefusedWithTheChoices) {
  const PluginRegistry plugins;
  if (plugins.find("backend", "kokkos") == nullptr) GTEST_SKIP() << "no Kokkos backend built";
  const char* before = std::getenv("FEM_KOKKOS_SPACE");
  const std::string saved = before ? before : "";
  setenv("FEM_KOKKOS_SPACE", "gpu0", 1);
  std::string why;
  const auto kokkos = backend_here(plugins, "kokkos", why);
  if (before)
    setenv("FEM_KOKKOS_SPACE", saved.c_str(), 1);
  else
    unsetenv("FEM_KOKKOS_SPACE");
  EXPECT_EQ(kokkos, nullptr);
  EXPECT_NE(why.find("FEM_KOKKOS_SPACE='gpu0'"), std::string::npos) << why;
  EXPECT_NE(why.find("'host'"), std::string::npos) << why;
}

/// On a CUDA-enabled Kokkos, `device: N` picks the GPU as it does on the CUDA backend: every
/// visible GPU listed once with the one in use marked, one past the last refused at the key's
/// place, the run on the chosen GPU naming it; Kokkos runs on one GPU per process, so another
/// GPU in the same process is refused with the reason.
TEST(KokkosBackend, GpusAreListedAndChosenByNumber) {
  const PluginRegistry plugins;
  std::string why;
  const auto kokkos = backend_here(plugins, "kokkos", why);
  if (!kokkos) GTEST_SKIP() << why;
  const std::vector<ComputeDevice> devices = kokkos->devices();
  if (devices.empty())
    GTEST_SKIP() << "Kokkos runs on " << kokkos->execution_space() << ": no GPU to choose";
  const int count = static_cast<int>(devices.size());
  const int chosen = expect_gpus_listed_and_one_past_refused(plugins, "kokkos", devices);
  PreparedRun r = prepare_file(FEM_TEST_DATA_DIR "/small_cube.yaml",
                               {{"backend", "kokkos"}, {"device", std::to_string(chosen)}});
  const std::string space = r.backend->execution_space();
  EXPECT_EQ(space.substr(space.rfind(", ") + 2), "device " + std::to_string(chosen)) << space;
  (void)run_in_memory(r);
  const std::vector<double> u = displacement(r);
  ASSERT_FALSE(u.empty());
  EXPECT_GT(*std::max_element(u.begin(), u.end()), 0.0);
  std::printf("[ kokkos devices ] device %d of %d: %s (%s)\n", chosen, count,
              devices[chosen].name.c_str(), devices[chosen].details.c_str());
  if (count > 1) {
    const int other = chosen == 0 ? 1 : 0;
    try {
      (void)plugins.create_backend("kokkos", other, {}, {"case.yaml", 3, 9});
      ADD_FAILURE() << "device " << other << " was accepted beside device " << chosen;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("cannot move to device"), std::string::npos) << e.what();
    }
  }
}

class KokkosAgreement : public ::testing::TestWithParam<AgreementCase> {};

/// The seed-000 cube on OpenMP and Kokkos side by side, compared over the whole run.
TEST_P(KokkosAgreement, MatchesOpenMpOverTheWholeRun) {
  const AgreementCase& c = GetParam();
  auto plugins = std::make_unique<PluginRegistry>();
  std::string why;
  const auto kokkos = backend_here(*plugins, "kokkos", why);
  if (!kokkos) GTEST_SKIP() << why;
  if (c.assembly == "atomic" && kokkos->execution_space().find("Serial") != std::string::npos)
    GTEST_SKIP() << "atomic assembly on Kokkos' Serial space adds in the deterministic order: "
                    "nothing the deterministic cases do not already compare";
  const Agreement a = compare_with_openmp(*plugins, *kokkos, "kokkos", c);
  EXPECT_GT(a.scale, 0.009);
  EXPECT_LE(a.relative, c.tolerance);
  std::printf(
      "[ kokkos vs openmp ] %s: %s %s %s: max |du| / max |u| = %.3e (worst per-instant ratio "
      "%.3e) over %lld steps\n",
      kokkos->execution_space().c_str(), c.element.first.c_str(), c.precision.c_str(),
      c.assembly.c_str(), a.relative, a.worst_instant, static_cast<long long>(a.steps));
}

INSTANTIATE_TEST_SUITE_P(Cube, KokkosAgreement, ::testing::ValuesIn(agreement_cases(true)),
                         agreement_name);

/// A cube crushed through itself: both backends stop at the same step, name the same element
/// and quote the same det F, and leave the same last good state.
TEST(KokkosBackend, FailureReportMatchesOpenMp) {
  const std::string yaml = R"(
mesh: {generator: box, cells: hex8, size: [0.05, 0.05, 0.05], divisions: [2, 2, 2]}
materials:
  tissue: {type: neo_hookean, density: 1000, youngs_modulus: 3000, poisson_ratio: 0.45}
blocks: [{name: tissue, element: hex8r, material: tissue}]
node_sets:
  bottom: {plane: {point: [0, 0, 0], normal: [0, 0, 1]}}
  top: {plane: {point: [0, 0, 0.05], normal: [0, 0, 1]}}
amplitudes:
  crush: {type: linear, start: 0, end: 0.05}
boundary_conditions:
  - {set: bottom, fixed: all}
  - {set: top, displacement: {z: -0.08}, amplitude: crush}
solver: {end_time: 0.1}
)";
  auto plugins = std::make_unique<PluginRegistry>();
  std::string why;
  const auto kokkos = backend_here(*plugins, "kokkos", why);
  if (!kokkos) GTEST_SKIP() << why;
  for (const char* precision : {"single", "double"}) {
    SCOPED_TRACE(precision);
    Model ref_model = build_model(
        parse_case(yaml, "<test>", {{"precision", precision}, {"backend", "openmp"}}), *plugins);
    const ExplicitSetup ref_setup = setup_explicit(ref_model);
    auto openmp = plugins->create_backend("openmp");
    auto reference = openmp->create_explicit(ref_setup.system, ref_model.spec.precision);
    Model model = build_model(
        parse_case(yaml, "<test>", {{"precision", precision}, {"backend", "kokkos"}}), *plugins);
    const ExplicitSetup setup = setup_explicit(model);
    auto run = kokkos->create_explicit(setup.system, model.spec.precision);
    // In two calls, so the second starts from a state the first left.
    const std::int64_t half = setup.num_steps / 2;
    AdvanceResult r1 = reference->advance(0, half), k1 = run->advance(0, half);
    ASSERT_EQ(r1.status, k1.status);
    AdvanceResult r2 = reference->advance(half, setup.num_steps - half);
    AdvanceResult k2 = run->advance(half, setup.num_steps - half);
    ASSERT_NE(r2.status, AdvanceResult::Status::Ok) << "the crush did not invert an element";
    EXPECT_EQ(k2.status, r2.status);
    EXPECT_EQ(k2.steps_done, r2.steps_done);
    EXPECT_EQ(k2.block, r2.block);
    EXPECT_EQ(k2.element, r2.element);
    EXPECT_EQ(k2.value, r2.value);
    std::vector<double> ur, uk, pr, pk;
    reference->displacement(ur);
    run->displacement(uk);
    reference->previous_displacement(pr);
    run->previous_displacement(pk);
    EXPECT_EQ(uk, ur);
    EXPECT_EQ(pk, pr);
  }
}

}  // namespace
}  // namespace fem::test
