// Sampled source signals from CSV files (`type: tabular, file:`): the wave solver evaluates them
// at any length, on the host; the solvers that evaluate amplitudes in their kernels refuse more
// than kMaxAmplitudePoints samples; bad files stop at their line.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <numbers>

#include "support/case_runner.hpp"
#include "support/run_fem.hpp"
#include "waves/wave_cases.hpp"

namespace fem::test {
namespace {

constexpr double kFrequency = 5.0e4;  // Hz, 3 cycles: 60 us
constexpr int kSamples = 2001;        // 30 ns apart

/// The 3-cycle Hann burst of AmplitudeKind::ToneBurst, sampled into a CSV with a comment and a
/// header, time in units of `time_unit` seconds.
std::string burst_file(const std::string& dir, const std::string& name, double time_unit) {
  const std::string path = dir + "/" + name;
  std::ofstream out(path);
  out << "# a 3-cycle Hann-windowed tone burst at 50 kHz\ntime,value\n";
  out.precision(17);
  const double duration = 3.0 / kFrequency;
  for (int i = 0; i < kSamples; ++i) {
    const double t = duration * i / (kSamples - 1);
    const double phase = 2.0 * std::numbers::pi * kFrequency * t;
    out << t / time_unit << ", " << std::sin(phase) * 0.5 * (1.0 - std::cos(phase / 3.0)) << "\n";
  }
  return path;
}

/// The column driven at its end by `amplitude`, with a probe at 0.3 m.
std::string column_case(const std::string& amplitude, const std::string& solver_type) {
  Column c;
  c.length = 0.6;
  c.cells = 120;
  c.sets = "  probe: {plane: {point: [0.3, 0, 0], normal: [1, 0, 0]}}";
  c.conditions = "  - {set: left, displacement: {x: 1.0e-6}, amplitude: burst}";
  c.extra = "amplitudes:\n  burst: " + amplitude;
  c.solver = "{type: " + solver_type + ", end_time: 1.2e-4, time_step: 5.0e-7}";
  c.output =
      solver_type == "elastodynamic" ? "{vtk: false, receivers: [{set: probe}]}" : "{vtk: false}";
  return c.yaml();
}

/// The probe's trace (x displacement) under the wave solver.
std::vector<double> probe_trace(const std::string& amplitude) {
  WaveRun run = wave_model(column_case(amplitude, "elastodynamic"));
  return trace_component(run_waves(run), 0, 0);
}

TEST(WaveSignals, ACsvSignalDrivesTheSameWaveAsItsFormula) {
  const std::string dir = fresh_temp_dir("fem-wave-signals", "csv");
  std::filesystem::create_directories(dir);
  const std::vector<double> formula =
      probe_trace("{type: tone_burst, frequency: 5.0e4, cycles: 3}");
  const std::vector<double> sampled =
      probe_trace("{type: tabular, file: " + burst_file(dir, "burst.csv", 1.0) + "}");
  ASSERT_EQ(sampled.size(), formula.size());
  const Deviation d = deviation(sampled, formula);
  EXPECT_GT(d.peak, 1e-7);
  // Linear interpolation of a sine sampled every 30 ns: (omega h)^2 / 8 = 1.1e-5 of the peak.
  EXPECT_LT(d.difference, 1e-4 * d.peak) << d.difference << " of " << d.peak;
  RecordProperty("relative_difference", fmt::format("{:.3g}", d.difference / d.peak));
  // The same samples in microseconds, scaled back.
  const std::vector<double> micro = probe_trace(
      "{type: tabular, file: " + burst_file(dir, "burst_us.csv", 1e-6) + ", time_scale: 1.0e-6}");
  EXPECT_LT(deviation(micro, sampled).difference, 1e-9 * d.peak);
}

std::string refusal(const std::string& amplitude, const std::string& solver_type) {
  try {
    if (solver_type == "elastodynamic")
      probe_trace(amplitude);
    else
      prepare(column_case(amplitude, solver_type));
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(WaveSignals, BadSignalFilesAndLongSignalsElsewhereAreRefused) {
  const std::string dir = fresh_temp_dir("fem-wave-signals", "bad");
  std::filesystem::create_directories(dir);
  const std::string missing =
      refusal("{type: tabular, file: " + dir + "/none.csv}", "elastodynamic");
  EXPECT_NE(missing.find("<test>:"), std::string::npos) << missing;
  EXPECT_NE(missing.find("does not exist"), std::string::npos) << missing;
  {
    std::ofstream out(dir + "/backwards.csv");
    out << "t, v\n0, 0\n1e-6, 1\n# a comment\n0.5e-6, 2\n";
  }
  const std::string backwards =
      refusal("{type: tabular, file: " + dir + "/backwards.csv}", "elastodynamic");
  EXPECT_NE(backwards.find("backwards.csv:5:"), std::string::npos) << backwards;
  EXPECT_NE(backwards.find("must increase strictly"), std::string::npos) << backwards;
  {
    std::ofstream out(dir + "/word.csv");
    out << "0, 0\n1e-6, one\n";
  }
  const std::string word = refusal("{type: tabular, file: " + dir + "/word.csv}", "elastodynamic");
  EXPECT_NE(word.find("word.csv:2:"), std::string::npos) << word;
  EXPECT_NE(word.find("two numbers"), std::string::npos) << word;
  // 2001 samples: only the wave solver evaluates them.
  const std::string explicit_long =
      refusal("{type: tabular, file: " + burst_file(dir, "long.csv", 1.0) + "}", "explicit");
  EXPECT_NE(explicit_long.find("amplitude 'burst' holds 2001 samples"), std::string::npos)
      << explicit_long;
  EXPECT_NE(explicit_long.find("at most 64 points"), std::string::npos) << explicit_long;
}

}  // namespace
}  // namespace fem::test
