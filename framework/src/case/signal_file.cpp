// CSV time signals (fem/signal_table.hpp).
#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <fstream>
#include <string>

#include "fem/error.hpp"
#include "fem/signal_table.hpp"

namespace fem {

namespace {

/// The numbers of a line split at commas, semicolons, tabs and spaces; false if a field is not
/// a number.
bool parse_fields(const std::string& line, std::vector<double>& out) {
  out.clear();
  std::size_t i = 0;
  const auto separator = [](char c) {
    return c == ',' || c == ';' || c == ' ' || c == '\t' || c == '\r';
  };
  while (i < line.size()) {
    while (i < line.size() && separator(line[i])) ++i;
    if (i == line.size()) break;
    std::size_t j = i;
    while (j < line.size() && !separator(line[j])) ++j;
    double x = 0.0;
    const char* first = line.data() + i;
    const char* last = line.data() + j;
    if (*first == '+') ++first;
    const auto [end, ec] = std::from_chars(first, last, x);
    if (ec != std::errc() || end != last) return false;
    out.push_back(x);
    i = j;
  }
  return true;
}

}  // namespace

double SignalTable::at(double t) const {
  if (time.empty()) return 0.0;
  if (t <= time.front()) return value.front();
  if (t >= time.back()) return value.back();
  const std::size_t i =
      static_cast<std::size_t>(std::upper_bound(time.begin(), time.end(), t) - time.begin());
  const double w = (t - time[i - 1]) / (time[i] - time[i - 1]);
  return value[i - 1] + w * (value[i] - value[i - 1]);
}

SignalTable read_signal_csv(const std::string& path, double time_scale, double value_scale) {
  std::ifstream in(path);
  if (!in) {
    const int err = errno;
    throw InputError({path, 0, 0},
                     "cannot open signal file '" + path +
                         "': " + (err ? std::strerror(err) : "it cannot be read"),
                     "the path is relative to the case file's folder");
  }
  SignalTable table;
  table.file = path;
  std::string line;
  std::vector<double> fields;
  int number = 0;
  bool first_data = true;
  while (std::getline(in, line)) {
    ++number;
    const std::size_t start = line.find_first_not_of(" \t\r");
    if (start == std::string::npos || line[start] == '#') continue;
    const bool numbers = parse_fields(line, fields);
    if (first_data && !numbers) {  // a header
      first_data = false;
      continue;
    }
    first_data = false;
    const SourceLocation at{path, number, 1};
    if (!numbers || fields.size() < 2)
      throw InputError(at, "a signal sample needs two numbers, time and value, got '" + line + "'",
                       "write one 'time, value' pair a line");
    const double t = fields[0] * time_scale, v = fields[1] * value_scale;
    if (!std::isfinite(t) || !std::isfinite(v))
      throw InputError(at, "the sample '" + line + "' is not finite");
    if (!table.time.empty() && !(t > table.time.back()))
      throw InputError(at,
                       "signal times must increase strictly: " + std::to_string(fields[0]) +
                           " follows the previous sample's time",
                       "sort the samples by time and drop repeated times");
    table.time.push_back(t);
    table.value.push_back(v);
  }
  if (table.time.size() < 2)
    throw InputError({path, number, 0},
                     "signal file '" + path + "' holds " + std::to_string(table.time.size()) +
                         " sample(s); a signal needs at least 2",
                     "one 'time, value' pair a line");
  return table;
}

}  // namespace fem
