// Runs a case held in memory against the installed fem and the plugins of this build.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <fem/case.hpp>
#include <fem/model.hpp>
#include <fem/plugin_registry.hpp>
#include <fem/solver/explicit_solver.hpp>

namespace plugins_test {

/// The installed plugins plus the ones this project built.
inline const fem::PluginRegistry& registry() {
  static const fem::PluginRegistry r({FEM_PLUGINS_BINARY_DIR});
  return r;
}

/// Backends that can run here (openmp always; kokkos and cuda where built and usable).
inline std::vector<std::string> usable_backends() {
  std::vector<std::string> out;
  for (const std::string& b : registry().names("backend")) {
    try {
      (void)registry().create_backend(b);
      out.push_back(b);
    } catch (const std::exception&) {
    }
  }
  return out;
}

struct Run {
  fem::Model model;
  std::unique_ptr<fem::Backend> backend;
  std::unique_ptr<fem::ExplicitSolver> solver;
  fem::ExplicitProblem& problem() { return solver->problem(); }
  std::vector<double> displacement() {
    std::vector<double> u;
    solver->problem().displacement(u);
    return u;
  }
};

inline std::unique_ptr<Run> prepare(const fem::CaseSpec& spec) {
  auto r = std::make_unique<Run>();
  r->model = fem::build_model(spec, registry());
  r->backend = registry().create_backend(r->model.spec.backend);
  r->solver = std::make_unique<fem::ExplicitSolver>(r->model, *r->backend, r->model.spec.backend);
  return r;
}

inline std::unique_ptr<Run> prepare(const std::string& yaml,
                                    const std::vector<fem::CaseOverride>& overrides = {}) {
  return prepare(fem::parse_case(yaml, "<test>", overrides));
}

inline fem::ExplicitRunReport run(Run& r) {
  fem::ExplicitRunOptions options;
  options.write_files = false;
  return r.solver->run(options);
}

}  // namespace plugins_test
