// Runs one small case on the OpenMP reference and on another backend side by side, comparing the
// displacements over the whole run: what "backend X agrees with OpenMP" means in the tests.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <fem/case.hpp>
#include <fem/model.hpp>
#include <fem/plugin_registry.hpp>
#include <fem/solver/explicit_system.hpp>

#include "support/element_types.hpp"

namespace fem::test {

struct AgreementCase {
  ElementCase element;
  std::string precision;
  std::string assembly;
  double tolerance;
};

inline void PrintTo(const AgreementCase& c, std::ostream* os) {
  *os << c.element.first << ' ' << c.precision << ' ' << c.assembly << " (tolerance " << c.tolerance
      << ')';
}

inline std::string agreement_name(const ::testing::TestParamInfo<AgreementCase>& i) {
  return i.param.element.first + "_" + i.param.precision + "_" + i.param.assembly;
}

/// Every linear element type (and with `quadratic` the quadratic ones) in both precisions,
/// deterministic assembly (bounds 1e-5 single, 1e-10 double) and, with `atomic`, atomic assembly
/// as well: it sums element forces in a varying order, so single precision rounds differently
/// from run to run and gets a looser bound.
inline std::vector<AgreementCase> agreement_cases(bool atomic, bool quadratic = false) {
  std::vector<AgreementCase> cases;
  for (const ElementCase& e : element_types(quadratic)) {
    cases.push_back({e, "single", "deterministic", 1e-5});
    cases.push_back({e, "double", "deterministic", 1e-10});
    if (atomic) {
      cases.push_back({e, "single", "atomic", 1e-4});
      cases.push_back({e, "double", "atomic", 1e-10});
    }
  }
  return cases;
}

struct Agreement {
  double relative = 0.0;       ///< max over the run of |u_other - u_openmp|, over max |u_openmp|
  double worst_instant = 0.0;  ///< the largest per-instant ratio (dominated by early rounding)
  double scale = 0.0;          ///< max |u_openmp| over the run
  std::int64_t steps = 0;
};

/// The seed-000 cube (6 per edge, neo-Hookean unless `material` says otherwise, smooth
/// compression with shear) on OpenMP and on `other`, compared every 50 steps. The bound is the
/// largest difference at any time relative to the largest displacement of the run: early on, when
/// displacements are 1e-9 m, F = I + grad u holds only a few digits of grad u in single precision,
/// so a per-instant ratio measures rounding, not the backends.
inline Agreement compare_with_openmp(
    PluginRegistry& plugins, Backend& other, const std::string& other_name, const AgreementCase& c,
    const std::string& material =
        "{type: neo_hookean, density: 1000, youngs_modulus: 3000, poisson_ratio: 0.49}") {
  const std::string yaml = R"(
mesh: {generator: box, cells: )" +
                           c.element.second +
                           R"(, size: [0.05, 0.05, 0.05], divisions: [6, 6, 6]}
materials:
  tissue: )" + material + R"(
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
      parse_case(yaml, "<test>", {{"precision", c.precision}, {"backend", "openmp"}}), plugins);
  const ExplicitSetup setup = setup_explicit(model);
  auto openmp = plugins.create_backend("openmp");
  auto reference = openmp->create_explicit(setup.system, model.spec.precision);
  Model other_model = build_model(
      parse_case(
          yaml, "<test>",
          {{"precision", c.precision}, {"backend", other_name}, {"solver.assembly", c.assembly}}),
      plugins);
  const ExplicitSetup other_setup = setup_explicit(other_model);
  auto run = other.create_explicit(other_setup.system, other_model.spec.precision);

  Agreement a;
  a.steps = setup.num_steps;
  std::vector<double> ur, uo;
  double worst_abs = 0.0;
  for (std::int64_t step = 0; step < setup.num_steps; step += 50) {
    const std::int64_t n = std::min<std::int64_t>(50, setup.num_steps - step);
    EXPECT_EQ(reference->advance(step, n).steps_done, n);
    EXPECT_EQ(run->advance(step, n).steps_done, n);
    reference->displacement(ur);
    run->displacement(uo);
    double diff = 0.0, max_u = 0.0;
    for (std::size_t i = 0; i < ur.size(); ++i) {
      diff = std::max(diff, std::abs(uo[i] - ur[i]));
      max_u = std::max(max_u, std::abs(ur[i]));
    }
    if (max_u > 0) a.worst_instant = std::max(a.worst_instant, diff / max_u);
    worst_abs = std::max(worst_abs, diff);
    a.scale = std::max(a.scale, max_u);
  }
  a.relative = a.scale > 0 ? worst_abs / a.scale : 0.0;
  return a;
}

}  // namespace fem::test
