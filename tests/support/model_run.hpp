// Test helper: a model built from YAML text against the default plugins, with the backend the
// case names, for tests that drive a solver themselves (waves, voxels).
#pragma once

#include <memory>
#include <string>

#include <fem/backend.hpp>
#include <fem/case.hpp>
#include <fem/model.hpp>
#include <fem/plugin_registry.hpp>

namespace fem::test {

struct ModelRun {
  std::unique_ptr<PluginRegistry> plugins;
  Model model;
  std::unique_ptr<Backend> backend;
};

inline ModelRun model_run(const std::string& yaml) {
  ModelRun r;
  r.plugins = std::make_unique<PluginRegistry>();
  r.model = build_model(parse_case(yaml, "<test>"), *r.plugins);
  r.backend = r.plugins->create_backend(r.model.spec.backend);
  return r;
}

}  // namespace fem::test
