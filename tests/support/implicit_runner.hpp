// Test helpers for the implicit solvers: a case built from YAML with its operator, and runs
// without files.
#pragma once

#include <cmath>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <fem/case.hpp>
#include <fem/model.hpp>
#include <fem/plugin_registry.hpp>
#include <fem/solver/implicit_solver.hpp>

namespace fem::test {

/// A validated implicit case with its backend and solver (after setup).
struct ImplicitRun {
  std::unique_ptr<PluginRegistry> plugins;
  Model model;
  std::unique_ptr<Backend> backend;
  std::unique_ptr<ImplicitSolver> solver;

  NonlinearOperator& op() { return solver->op(); }
  LinearAlgebra& la() { return solver->algebra(); }
};

inline ImplicitRun prepare_implicit_spec(const CaseSpec& spec) {
  ImplicitRun r;
  r.plugins = std::make_unique<PluginRegistry>();
  r.model = build_model(spec, *r.plugins);
  r.backend = r.plugins->create_backend(r.model.spec);
  r.solver = std::make_unique<ImplicitSolver>(r.model, *r.backend, r.model.spec.backend);
  return r;
}

inline ImplicitRun prepare_implicit(const std::string& yaml,
                                    const std::vector<CaseOverride>& overrides = {}) {
  return prepare_implicit_spec(parse_case(yaml, "<test>", overrides));
}

inline ImplicitRunReport run_implicit(ImplicitRun& r) {
  ImplicitRunOptions options;
  options.write_files = false;
  return r.solver->run(options);
}

/// Uploads a host vector into a new backend vector.
inline std::unique_ptr<Vector> device_vector(LinearAlgebra& la, const std::vector<double>& host) {
  auto v = la.vector(static_cast<std::int64_t>(host.size()));
  la.upload(host, *v);
  return v;
}

inline std::vector<double> host_vector(LinearAlgebra& la, const Vector& v) {
  std::vector<double> h;
  la.download(v, h);
  return h;
}

/// Uniform random entries in [-scale, scale].
inline std::vector<double> random_vector(std::int64_t n, double scale, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> dist(-scale, scale);
  std::vector<double> v(static_cast<std::size_t>(n));
  for (double& x : v) x = dist(rng);
  return v;
}

inline double norm2(const std::vector<double>& v) {
  double s = 0.0;
  for (const double x : v) s += x * x;
  return std::sqrt(s);
}

/// |a - b| / |b|.
inline double relative_difference(const std::vector<double>& a, const std::vector<double>& b) {
  double d = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i) d += (a[i] - b[i]) * (a[i] - b[i]);
  return std::sqrt(d) / norm2(b);
}

}  // namespace fem::test
