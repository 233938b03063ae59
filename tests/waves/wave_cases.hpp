// Cases of the elastodynamic tests: a column of hexahedra one element across, its lateral
// motion held (rollers) so that it carries plane waves: P waves at sqrt((lambda + 2 mu) / rho)
// with the transverse dofs fixed, S waves at sqrt(mu / rho) with the axial and one transverse dof
// fixed. Steel-like: rho 7800, E 200 GPa, nu 0.3.
#pragma once

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <fem/case.hpp>
#include <fem/model.hpp>
#include <fem/plugin_registry.hpp>
#include <fem/solver/wave_solver.hpp>

#include "support/model_run.hpp"

namespace fem::test {

inline constexpr double kDensity = 7800.0, kYoung = 2.0e11, kPoisson = 0.3;
inline double lame_mu() {
  return kYoung / (2.0 * (1.0 + kPoisson));
}
inline double lame_lambda() {
  return kYoung * kPoisson / ((1.0 + kPoisson) * (1.0 - 2.0 * kPoisson));
}
inline double p_speed() {
  return std::sqrt((lame_lambda() + 2.0 * lame_mu()) / kDensity);
}
inline double s_speed() {
  return std::sqrt(lame_mu() / kDensity);
}

/// A column [0, length] x [0, h]^2 of `cells` hexahedra along x. `wave` "p": u_y = u_z = 0
/// everywhere; "s": u_x = u_z = 0. Sets `all`, `left` (x = 0) and `right` (x = length), plus
/// `sets` (YAML lines under node_sets); `conditions` are more boundary_conditions lines;
/// `extra` more top-level keys (amplitudes, loads).
struct Column {
  double length = 1.0;
  int cells = 100;
  std::string wave = "p";
  std::string solver = "{type: elastodynamic, end_time: 1.0e-4}";
  std::string sets, conditions, extra;
  std::string output = "{vtk: false}";
  std::string precision = "double";
  std::string backend = "openmp";
  [[nodiscard]] std::string yaml() const {
    const double h = length / cells;
    return fmt::format(R"(
name: column
backend: {backend}
precision: {precision}
mesh: {{generator: box, cells: hex8, size: [{length}, {h}, {h}], divisions: [{cells}, 1, 1]}}
materials:
  steel: {{type: linear_elastic, density: {rho}, youngs_modulus: {E}, poisson_ratio: {nu}}}
blocks:
  - {{name: bar, element: hex8, material: steel}}
node_sets:
  all: {{box: {{min: [-1, -1, -1], max: [{far}, 1, 1]}}}}
  left: {{plane: {{point: [0, 0, 0], normal: [1, 0, 0]}}}}
  right: {{plane: {{point: [{length}, 0, 0], normal: [1, 0, 0]}}}}
{sets}
boundary_conditions:
  - {{set: all, fixed: [{fixed}]}}
{conditions}
solver: {solver}
output: {output}
{extra}
)",
                       fmt::arg("backend", backend), fmt::arg("precision", precision),
                       fmt::arg("length", length), fmt::arg("h", h), fmt::arg("cells", cells),
                       fmt::arg("rho", kDensity), fmt::arg("E", kYoung), fmt::arg("nu", kPoisson),
                       fmt::arg("far", 2.0 * length + 1.0), fmt::arg("sets", sets),
                       fmt::arg("fixed", wave == "p" ? "y, z" : "x, z"),
                       fmt::arg("conditions", conditions), fmt::arg("solver", solver),
                       fmt::arg("output", output), fmt::arg("extra", extra));
  }
};

/// A model ready for the wave solver, with the plugins and backend it runs on.
using WaveRun = ModelRun;

inline WaveRun wave_model(const std::string& yaml) {
  return model_run(yaml);
}

/// The message of the InputError that building or setting up the wave model of `yaml` throws
/// ("" if none).
inline std::string wave_refusal(const std::string& yaml) {
  try {
    WaveRun run = wave_model(yaml);
    setup_waves(run.model, *run.backend);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

/// Runs the case in memory (no files), keeping the receivers' traces.
inline WaveRunReport run_waves(WaveRun& r) {
  WaveSolver solver(r.model, *r.backend, r.model.spec.backend);
  WaveRunOptions options;
  options.keep_traces = true;
  return solver.run(options);
}

/// A nodal field (3 a node, in the run's numbering) in the input numbering of the mesh: the wave
/// solver groups nodes by valence (fem/mesh/ordering.hpp), other solvers do not.
inline std::vector<double> in_input_order(const Model& model, const std::vector<double>& u) {
  std::vector<double> out(u.size());
  for (std::int32_t n = 0; n < static_cast<std::int32_t>(u.size() / 3); ++n)
    for (int i = 0; i < 3; ++i)
      out[3 * static_cast<std::size_t>(model.mesh.input_node_id(n)) + i] =
          u[3 * static_cast<std::size_t>(n) + i];
  return out;
}

/// Component `axis` of the first node of receiver r, per sample.
inline std::vector<double> trace_component(const WaveRunReport& report, std::size_t r, int axis) {
  const std::vector<double>& t = report.traces[r];
  const std::size_t samples = report.trace_times[r].size();
  const std::size_t row = t.size() / samples;
  std::vector<double> out(samples);
  for (std::size_t s = 0; s < samples; ++s) out[s] = t[s * row + static_cast<std::size_t>(axis)];
  return out;
}

/// The largest |value| of a trace.
inline double largest_magnitude(const std::vector<double>& values) {
  double m = 0.0;
  for (const double x : values) m = std::max(m, std::abs(x));
  return m;
}

/// How far `got` lies from `want`: the largest |want| and the largest |got - want|.
struct Deviation {
  double peak = 0.0, difference = 0.0;
};
inline Deviation deviation(const std::vector<double>& got, const std::vector<double>& want) {
  Deviation d;
  for (std::size_t k = 0; k < std::min(got.size(), want.size()); ++k) {
    d.peak = std::max(d.peak, std::abs(want[k]));
    d.difference = std::max(d.difference, std::abs(got[k] - want[k]));
  }
  return d;
}

/// The time of the largest |value| of a trace, refined by a parabola through its neighbours.
inline double peak_time(const std::vector<double>& times, const std::vector<double>& values,
                        std::size_t stride = 1, std::size_t offset = 0) {
  std::size_t best = 0;
  const std::size_t n = times.size();
  for (std::size_t s = 0; s < n; ++s)
    if (std::abs(values[s * stride + offset]) > std::abs(values[best * stride + offset])) best = s;
  if (best == 0 || best + 1 >= n) return times[best];
  const double a = values[(best - 1) * stride + offset], b = values[best * stride + offset],
               c = values[(best + 1) * stride + offset];
  const double shift = 0.5 * (a - c) / (a - 2.0 * b + c);
  return times[best] + shift * (times[best + 1] - times[best]);
}

/// The pulse of the wave-speed tests: a Gaussian of displacement at the left end (x = 0) moving
/// x (P, wave "p") or y (S, "s"), receivers `near` and `far` at x = 0.5 and 1.5 m, and a run
/// long enough for it to pass both. A case type with the Column's fields takes it.
template <class Case>
void add_speed_pulse(Case& c, const std::string& wave) {
  c.solver = wave == "p" ? "{type: elastodynamic, end_time: 4.0e-4}"
                         : "{type: elastodynamic, end_time: 6.5e-4}";
  c.sets =
      "  near: {plane: {point: [0.5, 0, 0], normal: [1, 0, 0]}}\n"
      "  far: {plane: {point: [1.5, 0, 0], normal: [1, 0, 0]}}";
  c.conditions = fmt::format("  - {{set: left, displacement: {{{}: 1.0e-6}}, amplitude: pulse}}",
                             wave == "p" ? "x" : "y");
  c.extra = "amplitudes:\n  pulse: {type: gaussian, centre: 6.0e-5, width: 1.0e-5}";
  c.output = "{vtk: false, receivers: [{set: near}, {set: far}]}";
}

/// The speed of that pulse in a run of `yaml`, peak to peak between the receivers.
inline double pulse_speed(const std::string& yaml, const std::string& wave) {
  WaveRun run = wave_model(yaml);
  const WaveRunReport r = run_waves(run);
  const int axis = wave == "p" ? 0 : 1;
  return 1.0 / (peak_time(r.trace_times[1], trace_component(r, 1, axis)) -
                peak_time(r.trace_times[0], trace_component(r, 0, axis)));
}

/// The pulse in a 2 m column of 400 hexahedra (its width is 12 elements); `edit` may change the
/// case (its material).
inline double column_pulse_speed(const std::string& wave,
                                 const std::function<std::string(std::string)>& edit = {}) {
  Column c;
  c.length = 2.0;
  c.cells = 400;
  c.wave = wave;
  add_speed_pulse(c, wave);
  return pulse_speed(edit ? edit(c.yaml()) : c.yaml(), wave);
}

}  // namespace fem::test
