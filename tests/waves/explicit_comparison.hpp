// The elastodynamic solver against the explicit TLED solver on one case: the same mesh,
// material, loads and step, run both ways.
#pragma once

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "support/case_runner.hpp"
#include "waves/wave_cases.hpp"

namespace fem::test {

struct SolverComparison {
  std::int64_t wave_steps = 0;
  double scale = 0.0;                         ///< the largest |u| the wave run's first receiver saw
  double difference = 0.0;                    ///< the largest difference of the final displacements
  std::vector<double> explicit_displacement;  ///< the TLED run's, in the input numbering
};

/// `case_of(solver, output)` gives the case's YAML with those `solver:` and `output:` values;
/// the wave run needs a receiver (every node, every few steps) to measure the scale by.
inline SolverComparison compare_with_explicit(
    const std::function<std::string(const std::string&, const std::string&)>& case_of, double dt,
    int steps, const std::string& receivers) {
  const double end = steps * dt;
  SolverComparison c;
  WaveRun waves = wave_model(
      case_of(fmt::format("{{type: elastodynamic, end_time: {}, time_step: {}}}", end, dt),
              "{vtk: false, receivers: [" + receivers + "]}"));
  const WaveRunReport w = run_waves(waves);
  c.wave_steps = w.steps;
  for (const double x : w.traces[0]) c.scale = std::max(c.scale, std::abs(x));
  PreparedRun tled = prepare(case_of(
      fmt::format("{{type: explicit, end_time: {}, time_step: {}}}", end, dt), "{vtk: false}"));
  run_in_memory(tled);
  c.explicit_displacement = in_input_order(tled.model, displacement(tled));
  const std::vector<double> wave_u = in_input_order(waves.model, w.final_displacement);
  EXPECT_EQ(c.explicit_displacement.size(), wave_u.size());
  c.difference = deviation(wave_u, c.explicit_displacement).difference;
  return c;
}

}  // namespace fem::test
