// The measured curve of `fem fit` and the simulated one at its points (fit.hpp).
#include <fmt/format.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include <fem/error.hpp>

#include "fit.hpp"

namespace fem::cli {

namespace {

/// The first two comma-, semicolon-, tab- or space-separated numbers of a line, or false.
bool two_numbers(const std::string& line, double& a, double& b) {
  std::string text = line;
  for (char& c : text)
    if (c == ',' || c == ';' || c == '\t') c = ' ';
  std::istringstream in(text);
  std::string first, second;
  if (!(in >> first >> second)) return false;
  char* end = nullptr;
  a = std::strtod(first.c_str(), &end);
  if (end != first.c_str() + first.size()) return false;
  b = std::strtod(second.c_str(), &end);
  return end == second.c_str() + second.size() && std::isfinite(a) && std::isfinite(b);
}

}  // namespace

Curve read_curve(const std::string& path) {
  std::ifstream in(path);
  if (!in)
    throw InputError({path, 0, 0}, "cannot open the data file",
                     "--data names a CSV file of two columns: x and the measured y");
  Curve c;
  std::string line;
  int number = 0;
  bool header_allowed = true;
  while (std::getline(in, line)) {
    ++number;
    std::size_t first = line.find_first_not_of(" \t\r");
    if (first == std::string::npos || line[first] == '#') continue;
    double x = 0, y = 0;
    if (two_numbers(line, x, y)) {
      c.x.push_back(x);
      c.y.push_back(y);
    } else if (!header_allowed) {
      throw InputError({path, number, 1}, "'" + line + "' is not two numbers",
                       "each line after the header holds x and y, e.g. -0.002,1.93");
    }
    header_allowed = false;
  }
  if (c.x.empty())
    throw InputError({path, 0, 0}, "the data file holds no points",
                     "each line holds x and y, e.g. -0.002,1.93");
  return c;
}

std::string interpolate(const std::vector<double>& x, const std::vector<double>& y,
                        const std::vector<double>& at, std::vector<double>& out) {
  if (x.size() < 2) return "the run's history has fewer than two rows";
  // Monotone increasing or decreasing, allowing repeats (a curve held at its start or end).
  int direction = 0;
  for (std::size_t i = 1; i < x.size(); ++i) {
    const int d = x[i] > x[i - 1] ? 1 : x[i] < x[i - 1] ? -1 : 0;
    if (d == 0) continue;
    if (direction != 0 && d != direction)
      return fmt::format("x is not monotone in the run's history (it turns at row {}, x = {})",
                         i + 1, x[i - 1]);
    direction = d;
  }
  if (direction == 0) return "x does not change in the run's history";
  const double lo = direction > 0 ? x.front() : x.back();
  const double hi = direction > 0 ? x.back() : x.front();
  out.assign(at.size(), 0.0);
  for (std::size_t k = 0; k < at.size(); ++k) {
    const double a = at[k];
    // Round-off of the history's last digits should not push a data point at the end outside.
    const double slack = 1e-9 * (hi - lo);
    if (a < lo - slack || a > hi + slack)
      return fmt::format("the data point x = {} lies outside the run's range [{}, {}]", a, lo, hi);
    // The last segment [i-1, i] that holds a (the later of repeated x values wins).
    std::size_t segment = 0;
    for (std::size_t i = 1; i < x.size(); ++i) {
      const double a0 = std::min(x[i - 1], x[i]) - slack, a1 = std::max(x[i - 1], x[i]) + slack;
      if (a >= a0 && a <= a1 && x[i] != x[i - 1]) segment = i;
    }
    if (segment == 0) return fmt::format("no segment of the run's history holds x = {}", a);
    const double t = (a - x[segment - 1]) / (x[segment] - x[segment - 1]);
    out[k] = y[segment - 1] + t * (y[segment] - y[segment - 1]);
  }
  return {};
}

}  // namespace fem::cli
