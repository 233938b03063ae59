// `fem fit`: material (or any numeric) parameters of a case fitted so that a history of the run
// matches a measured curve, by least squares over `fem run` processes (least_squares.hpp).
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

#include "child_run.hpp"

namespace fem::cli {

struct FitOptions {
  StudyCase study;
  std::vector<std::string> parameters;  ///< key.path=start (start > 0)
  std::string data;                     ///< CSV: x, y
  std::string x, y;                     ///< table.column of the run's histories
  std::string output;                   ///< default: <the case's output folder>_fit
  int max_runs = 100;
};

void add_fit_options(CLI::App& cmd, FitOptions& options);
int fit_command(const FitOptions& options);

/// The measured curve: x and y columns of a CSV file (the first two columns; a first line that
/// is not numbers is a header; '#' starts a comment line). Throws InputError with the line.
struct Curve {
  std::vector<double> x, y;
};
Curve read_curve(const std::string& path);

/// The simulated y at each of `at`, by linear interpolation along (x, y), whose x must be
/// monotone (repeated values are allowed; the later one counts). Returns "" or why it cannot.
std::string interpolate(const std::vector<double>& x, const std::vector<double>& y,
                        const std::vector<double>& at, std::vector<double>& out);

}  // namespace fem::cli
