// The averaged-nodal-pressure tetrahedron on another backend against the OpenMP reference, on a
// mixed, two-material model: hexahedra (stiff) under tet4_anp (soft) sharing the interface
// nodes. It covers what the one-block agreement cube does not: the nodal-pressure gather across
// blocks and element families, the step graphs of a device backend, and the results path.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ostream>
#include <string>
#include <vector>

#include <fem/case.hpp>
#include <fem/model.hpp>
#include <fem/plugin_registry.hpp>
#include <fem/solver/explicit_system.hpp>

#include "support/backend_here.hpp"
#include "support/column_mesh.hpp"

namespace fem::test {

struct AnpAgreement {
  double displacement = 0.0;  ///< max over the run of |du| / max |u|
  double stress = 0.0;        ///< max |d sigma| / max |sigma| at the end
  double energy = 0.0;        ///< relative difference of the strain energy at the end
  double scale = 0.0;         ///< max |u| over the run
  std::int64_t steps = 0;
};

inline AnpAgreement compare_anp_column_with_openmp(PluginRegistry& plugins, Backend& other,
                                                   const std::string& other_name,
                                                   const std::string& precision,
                                                   const std::string& assembly) {
  const std::string yaml = "mesh: {file: " + write_column(4, 0.005, true) + R"(}
materials:
  stiff: {type: neo_hookean, density: 1000, youngs_modulus: 30000, poisson_ratio: 0.49}
  soft: {type: neo_hookean, density: 1000, youngs_modulus: 3000, poisson_ratio: 0.49}
blocks:
  - {name: core, region: lower, element: hex8r, material: stiff}
  - {name: cap, region: upper, element: tet4_anp, material: soft}
node_sets:
  bottom: {plane: {point: [0, 0, 0], normal: [0, 0, 1]}}
  top: {plane: {point: [0, 0, 0.04], normal: [0, 0, 1]}}
amplitudes:
  load: {type: smooth_step, start: 0, end: 0.5}
boundary_conditions:
  - {set: bottom, fixed: all}
  - {set: top, displacement: {x: 0.001, z: -0.004}, amplitude: load}
solver: {end_time: 0.5, mass_damping: 20}
)";
  Model model = build_model(
      parse_case(yaml, "<test>", {{"precision", precision}, {"backend", "openmp"}}), plugins);
  const ExplicitSetup setup = setup_explicit(model);
  auto openmp = plugins.create_backend("openmp");
  auto reference = openmp->create_explicit(setup.system, model.spec.precision);
  Model other_model = build_model(
      parse_case(
          yaml, "<test>",
          {{"precision", precision}, {"backend", other_name}, {"solver.assembly", assembly}}),
      plugins);
  const ExplicitSetup other_setup = setup_explicit(other_model);
  EXPECT_GT(other_setup.system.num_pressure_elements, 0);
  auto run = other.create_explicit(other_setup.system, other_model.spec.precision);

  // The whole run in graph-replayed chunks, compared every 100 steps.
  std::vector<double> ur, uo;
  double worst = 0.0, scale = 0.0;
  for (std::int64_t step = 0; step < setup.num_steps; step += 100) {
    const std::int64_t n = std::min<std::int64_t>(100, setup.num_steps - step);
    EXPECT_EQ(reference->advance(step, n).steps_done, n);
    EXPECT_EQ(run->advance(step, n).steps_done, n);
    reference->displacement(ur);
    run->displacement(uo);
    for (std::size_t i = 0; i < ur.size(); ++i) {
      worst = std::max(worst, std::abs(uo[i] - ur[i]));
      scale = std::max(scale, std::abs(ur[i]));
    }
  }
  // Stress and energy output (the results path computes nodal volume ratios too).
  std::vector<BlockResults> rr, ro;
  reference->element_results(ur, rr);
  run->element_results(ur, ro);
  double stress_diff = 0.0, stress_scale = 0.0, energy_r = 0.0, energy_o = 0.0;
  for (std::size_t b = 0; b < rr.size(); ++b) {
    for (std::size_t i = 0; i < rr[b].cauchy_stress.size(); ++i) {
      stress_diff =
          std::max(stress_diff, std::abs(ro[b].cauchy_stress[i] - rr[b].cauchy_stress[i]));
      stress_scale = std::max(stress_scale, std::abs(rr[b].cauchy_stress[i]));
    }
    for (std::size_t e = 0; e < rr[b].strain_energy.size(); ++e) {
      energy_r += rr[b].strain_energy[e];
      energy_o += ro[b].strain_energy[e];
    }
  }
  AnpAgreement a;
  a.displacement = worst / scale;
  a.stress = stress_diff / stress_scale;
  a.energy = std::abs(energy_o - energy_r) / energy_r;
  a.scale = scale;
  a.steps = setup.num_steps;
  return a;
}

/// One agreement run of the column: precision, assembly, and the bound on max |du| / max |u|
/// (stresses and energies get 100 times more: they are differences of nearby displacements).
struct AnpCase {
  std::string precision, assembly;
  double tolerance;
};

inline void PrintTo(const AnpCase& c, std::ostream* os) {
  *os << c.precision << ' ' << c.assembly << " (tolerance " << c.tolerance << ')';
}

inline std::string anp_case_name(const ::testing::TestParamInfo<AnpCase>& i) {
  return i.param.precision + "_" + i.param.assembly;
}

/// The column on `backend` against OpenMP, within the case's bounds; skips where the backend
/// cannot run here.
inline void expect_anp_column_matches_openmp(const std::string& backend, const AnpCase& c) {
  auto plugins = std::make_unique<PluginRegistry>();
  std::string why;
  const auto other = backend_here(*plugins, backend, why);
  if (!other) GTEST_SKIP() << "no " << backend << " backend here: " << why;
  const AnpAgreement a =
      compare_anp_column_with_openmp(*plugins, *other, backend, c.precision, c.assembly);
  std::printf(
      "[ %s vs openmp, anp ] %s %s: max |du| / max |u| = %.3e, stress %.3e, energy %.3e over "
      "%lld steps\n",
      backend.c_str(), c.precision.c_str(), c.assembly.c_str(), a.displacement, a.stress, a.energy,
      static_cast<long long>(a.steps));
  EXPECT_GT(a.scale, 0.003);
  EXPECT_LE(a.displacement, c.tolerance);
  EXPECT_LE(a.stress, 100 * c.tolerance);
  EXPECT_LE(a.energy, 100 * c.tolerance);
}

}  // namespace fem::test
