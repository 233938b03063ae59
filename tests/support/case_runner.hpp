// Test helpers: build a model from YAML text and run it on a backend without writing files.
#pragma once

#include <array>
#include <memory>
#include <string>

#include <fem/case.hpp>
#include <fem/model.hpp>
#include <fem/plugin_registry.hpp>
#include <fem/solver/explicit_solver.hpp>

namespace fem::test {

/// A case ready to run: plugins, model, backend and solver (after setup).
struct PreparedRun {
  std::unique_ptr<PluginRegistry> plugins;
  Model model;
  std::unique_ptr<Backend> backend;
  std::unique_ptr<ExplicitSolver> solver;
};

/// A validated case built against the default plugins, with its backend and solver.
inline PreparedRun prepare_spec(const CaseSpec& spec) {
  PreparedRun r;
  r.plugins = std::make_unique<PluginRegistry>();
  r.model = build_model(spec, *r.plugins);
  r.backend = r.plugins->create_backend(r.model.spec);
  r.solver = std::make_unique<ExplicitSolver>(r.model, *r.backend, r.model.spec.backend);
  return r;
}

inline PreparedRun prepare(const std::string& yaml,
                           const std::vector<CaseOverride>& overrides = {}) {
  return prepare_spec(parse_case(yaml, "<test>", overrides));
}

/// The same from a case file (relative paths in it are relative to its folder).
inline PreparedRun prepare_file(const std::string& path,
                                const std::vector<CaseOverride>& overrides = {}) {
  return prepare_spec(load_case(path, overrides));
}

inline ExplicitRunReport run_in_memory(PreparedRun& r) {
  ExplicitRunOptions options;
  options.write_files = false;
  return r.solver->run(options);
}

inline std::vector<double> displacement(PreparedRun& r) {
  std::vector<double> u;
  r.solver->problem().displacement(u);
  return u;
}

/// The force the supports exert on a node set at rest: internal forces at the final state minus
/// the body force acting on the supported nodes themselves (it goes straight into the support).
inline std::array<double, 3> support_reaction(PreparedRun& r, const std::string& set) {
  std::vector<double> f;
  r.solver->problem().internal_forces(displacement(r), f);
  const System& sys = r.solver->setup().system;
  std::array<double, 3> reaction = {0, 0, 0};
  for (const std::int32_t n : r.model.mesh.node_sets.at(set))
    for (int i = 0; i < 3; ++i)
      reaction[i] +=
          f[3 * n + i] - (sys.gravity_amplitude >= 0 ? sys.lumped_mass[n] * sys.gravity[i] : 0.0);
  return reaction;
}

}  // namespace fem::test
