// A sampled time signal read from a CSV file (a measured or designed transducer excitation), for
// `amplitudes: {name: {type: tabular, file: signal.csv}}`. Evaluated on the host, so it may be
// as long as the file: the elastodynamic solver takes any length; the solvers whose kernels
// evaluate amplitudes on the device take up to kMaxAmplitudePoints samples (fem/amplitude.hpp).
#pragma once

#include <string>
#include <vector>

namespace fem {

struct SignalTable {
  std::string file;
  std::vector<double> time;   ///< s, strictly increasing
  std::vector<double> value;  ///< per sample

  /// Piecewise linear between the samples, held at the first and last value outside them.
  [[nodiscard]] double at(double t) const;
};

/// Reads two columns, time and value (more columns are ignored), separated by commas,
/// semicolons, tabs or spaces; lines starting with '#' and empty lines are skipped, and so is a
/// first line that is not numbers (a header). Times are multiplied by `time_scale`, values by
/// `value_scale`. Throws InputError at file:line for a line without two numbers, times that do
/// not increase, fewer than 2 samples or a file that cannot be read.
SignalTable read_signal_csv(const std::string& path, double time_scale = 1.0,
                            double value_scale = 1.0);

}  // namespace fem
