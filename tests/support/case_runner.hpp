// Test helpers: build a model from YAML text and run it on a backend without writing files.
#pragma once

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

inline PreparedRun prepare(const std::string& yaml,
                           const std::vector<CaseOverride>& overrides = {}) {
  PreparedRun r;
  r.plugins = std::make_unique<PluginRegistry>();
  r.model = build_model(parse_case(yaml, "<test>", overrides), *r.plugins);
  r.backend = r.plugins->create_backend(r.model.spec.backend);
  r.solver = std::make_unique<ExplicitSolver>(r.model, *r.backend, r.model.spec.backend);
  return r;
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

}  // namespace fem::test
