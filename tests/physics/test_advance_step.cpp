// Single steps, ghost nodes and per-node forces: what a run on several processes asks of a
// backend (issue 16), on the backend under test (tests/support/backend.hpp; the CUDA backend
// runs the same checks in tests/gpu).
#include <gtest/gtest.h>

#include <memory>

#include "support/advance_step_checks.hpp"
#include "support/backend.hpp"

namespace fem::test {
namespace {

class AdvanceStep : public ::testing::TestWithParam<StepCase> {
 protected:
  void SetUp() override { backend_ = plugins_->create_backend(backend_under_test()); }

  std::unique_ptr<PluginRegistry> plugins_ = std::make_unique<PluginRegistry>();
  std::unique_ptr<Backend> backend_;  // after plugins_: destroyed before its plugin is unloaded
};

TEST_P(AdvanceStep, StepsMatchAdvanceMeasuredBitForBit) {
  expect_steps_match_advance_measured(*plugins_, *backend_, backend_under_test(), GetParam());
}

TEST_P(AdvanceStep, GhostNodesFollowTheExchangeAndStayOutOfTheNorms) {
  expect_ghosts_follow_the_exchange(*plugins_, *backend_, backend_under_test(), GetParam());
}

TEST_P(AdvanceStep, NodalInternalForcesAddUpToInternalForceSum) {
  expect_nodal_forces_add_up(*plugins_, *backend_, backend_under_test(), GetParam());
}

TEST_P(AdvanceStep, SetNodalDisplacementsChangesOnlyThoseNodes) {
  expect_nodal_displacements_set(*plugins_, *backend_, backend_under_test(), GetParam());
}

INSTANTIATE_TEST_SUITE_P(Cases, AdvanceStep, ::testing::ValuesIn(step_cases()), step_case_name);

}  // namespace
}  // namespace fem::test
