// The CUDA backend against the OpenMP reference. Without a GPU (CI) these tests skip and say why;
// on the GPU machine they run, as does the whole physics suite with FEM_TEST_BACKEND=cuda.
// With the default build (no FMA contraction, denormals flushed on both sides) the two backends
// agree bit for bit; the bounds below are the product's promise, which also covers
// -DFEM_CUDA_FMAD=ON builds in double precision.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include <fem/solver/explicit_system.hpp>

#include "support/case_runner.hpp"
#include "support/element_types.hpp"

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

struct AgreementCase {
  ElementCase element;
  std::string precision;
  std::string assembly;
  double tolerance;
};

void PrintTo(const AgreementCase& c, std::ostream* os) {
  *os << c.element.first << ' ' << c.precision << ' ' << c.assembly << " (tolerance " << c.tolerance
      << ')';
}

class CudaAgreement : public ::testing::TestWithParam<AgreementCase> {};

/// Runs the seed-000 cube on OpenMP and CUDA side by side and compares displacements every 50
/// steps over the whole run: max |u_cuda - u_openmp| / max |u_openmp|.
TEST_P(CudaAgreement, MatchesOpenMpOverTheWholeRun) {
  const AgreementCase& c = GetParam();
  auto plugins = std::make_unique<PluginRegistry>();
  std::string why;
  std::unique_ptr<Backend> cuda = cuda_backend(*plugins, why);
  if (!cuda) GTEST_SKIP() << "no CUDA backend here: " << why;

  const std::string yaml = R"(
backend: cuda
mesh: {generator: box, cells: )" +
                           c.element.second + R"(, size: [0.05, 0.05, 0.05], divisions: [6, 6, 6]}
materials:
  tissue: {type: neo_hookean, density: 1000, youngs_modulus: 3000, poisson_ratio: 0.49}
blocks: [{element: )" + c.element.first +
                           R"(, material: tissue}]
node_sets:
  bottom: {plane: {point: [0, 0, 0], normal: [0, 0, 1]}}
  top: {plane: {point: [0, 0, 0.05], normal: [0, 0, 1]}}
amplitudes:
  load: {type: smooth_step, start: 0, end: 1.0}
boundary_conditions:
  - {set: bottom, fixed: [z]}
  - {set: top, displacement: {x: 0.002, z: -0.01}, amplitude: load}
solver: {end_time: 1.0, mass_damping: 2}
)";
  // One model per backend: each resolves the material plugin built for its backend.
  Model model = build_model(
      parse_case(yaml, "<test>", {{"precision", c.precision}, {"backend", "openmp"}}), *plugins);
  const ExplicitSetup setup = setup_explicit(model);
  auto openmp = plugins->create_backend("openmp");
  auto reference = openmp->create_explicit(setup.system, model.spec.precision);
  Model cuda_model = build_model(
      parse_case(yaml, "<test>", {{"precision", c.precision}, {"solver.assembly", c.assembly}}),
      *plugins);
  const ExplicitSetup cuda_setup = setup_explicit(cuda_model);
  auto gpu = cuda->create_explicit(cuda_setup.system, cuda_model.spec.precision);

  std::vector<double> ur, ug;
  double worst = 0.0, scale = 0.0, worst_abs = 0.0;
  for (std::int64_t step = 0; step < setup.num_steps; step += 50) {
    const std::int64_t n = std::min<std::int64_t>(50, setup.num_steps - step);
    ASSERT_EQ(reference->advance(step, n).steps_done, n);
    ASSERT_EQ(gpu->advance(step, n).steps_done, n);
    reference->displacement(ur);
    gpu->displacement(ug);
    double diff = 0.0, max_u = 0.0;
    for (std::size_t i = 0; i < ur.size(); ++i) {
      diff = std::max(diff, std::abs(ug[i] - ur[i]));
      max_u = std::max(max_u, std::abs(ur[i]));
    }
    if (max_u > 0) worst = std::max(worst, diff / max_u);
    worst_abs = std::max(worst_abs, diff);
    scale = std::max(scale, max_u);
  }
  // The bound: the largest difference at any time relative to the largest displacement of the
  // run. (Early on, when displacements are 1e-9 m, F = I + grad u holds only a few significant
  // digits of grad u in single precision, so a per-instant ratio measures rounding, not the
  // backends.)
  EXPECT_GT(scale, 0.009);
  EXPECT_LE(worst_abs / scale, c.tolerance);
  std::printf(
      "[ cuda vs openmp ] %s %s: max |du| / max |u| = %.3e (worst per-instant ratio %.3e) "
      "over %lld steps\n",
      c.element.first.c_str(), c.precision.c_str(), worst_abs / scale, worst,
      static_cast<long long>(setup.num_steps));
}

std::vector<AgreementCase> agreement_cases() {
  std::vector<AgreementCase> cases;
  for (const ElementCase& e :
       {ElementCase{"tet4", "tet4"}, ElementCase{"hex8", "hex8"}, ElementCase{"hex8r", "hex8"}}) {
    cases.push_back({e, "single", "deterministic", 1e-5});
    cases.push_back({e, "double", "deterministic", 1e-10});
    // Atomic assembly sums element forces in a varying order, so single precision rounds
    // differently from run to run: a looser bound there.
    cases.push_back({e, "single", "atomic", 1e-4});
    cases.push_back({e, "double", "atomic", 1e-10});
  }
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Cube, CudaAgreement, ::testing::ValuesIn(agreement_cases()),
                         [](const ::testing::TestParamInfo<AgreementCase>& i) {
                           return i.param.element.first + "_" + i.param.precision + "_" +
                                  i.param.assembly;
                         });

}  // namespace
}  // namespace fem::test
