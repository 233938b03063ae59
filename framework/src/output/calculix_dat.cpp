// Tables in CalculiX's .dat layout (fem/output/calculix_dat.hpp).
#include "fem/output/calculix_dat.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <iterator>

#include "fem/error.hpp"

namespace fem {

std::string fortran_e14_7(double x) {
  // C's %.6E rounds to seven significant digits d.dddddd; Fortran writes them as 0.ddddddd with
  // the exponent one higher.
  if (x == 0.0) return " 0.0000000E+00";
  const std::string c = fmt::format("{:.6E}", std::abs(x));
  const std::size_t e = c.find('E');
  const int exponent = std::atoi(c.c_str() + e + 1) + 1;
  return fmt::format("{}0.{}{}E{}{:02d}", x < 0 ? '-' : ' ', c[0], c.substr(2, 6),
                     exponent < 0 ? '-' : '+', std::abs(exponent));
}

namespace {

/// The time of a heading line (" ... for set X and time  0.5000000E-02"), if it is one.
std::optional<double> heading_time(const std::string& line) {
  const std::size_t at = line.find(" and time ");
  if (line.find(" for set ") == std::string::npos || at == std::string::npos) return {};
  return std::strtod(line.c_str() + at + 10, nullptr);
}

}  // namespace

CalculixDat::CalculixDat(std::string path, std::optional<double> resume_time)
    : path_(std::move(path)) {
  std::string kept;
  if (resume_time) {
    // The tables up to the checkpoint's time, compared as printed: a restart appends the rest.
    std::ifstream in(path_, std::ios::binary);
    const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    const double last = std::strtod(fortran_e14_7(*resume_time).c_str(), nullptr);
    std::size_t end = text.size();
    for (std::size_t start = 0; start < text.size();) {
      std::size_t stop = text.find('\n', start);
      if (stop == std::string::npos) stop = text.size();
      const std::optional<double> t = heading_time(text.substr(start, stop - start));
      if (t && *t > last) {
        end = start > 0 ? start - 1 : 0;  // before the blank line that opens the table
        break;
      }
      start = stop + 1;
    }
    kept = text.substr(0, end);
  }
  out_.open(path_, std::ios::binary | std::ios::trunc);
  if (!out_) throw Error("cannot write '" + path_ + "'");
  out_ << kept;
  out_.flush();
}

void CalculixDat::heading(const std::string& heading, const std::string& set, double time) {
  std::string upper = set;
  std::transform(upper.begin(), upper.end(), upper.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  out_ << "\n " << heading << " for set " << upper << " and time " << fortran_e14_7(time) << "\n\n";
}

void CalculixDat::nodes(const std::string& heading_text, const std::string& set, double time,
                        std::vector<std::pair<std::int64_t, std::array<double, 3>>> rows) {
  std::sort(rows.begin(), rows.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  heading(heading_text, set, time);
  for (const auto& [node, v] : rows)
    out_ << fmt::format("{:10d}{:14.6E}{:14.6E}{:14.6E}\n", node, v[0], v[1], v[2]);
  out_.flush();
  if (!out_) throw Error("cannot write '" + path_ + "' (disk full?)");
}

void CalculixDat::elements(const std::string& heading_text, const std::string& set, double time,
                           std::vector<std::pair<std::int64_t, std::vector<double>>> rows) {
  std::sort(rows.begin(), rows.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  heading(heading_text, set, time);
  for (const auto& [element, values] : rows) {
    out_ << fmt::format("{:10d}{:4d}", element, 1);
    for (const double v : values) out_ << fmt::format("{:14.6E}", v);
    out_ << '\n';
  }
  out_.flush();
  if (!out_) throw Error("cannot write '" + path_ + "' (disk full?)");
}

void CalculixDat::total(const std::string& heading_text, const std::string& set, double time,
                        const std::array<double, 3>& sum) {
  heading(heading_text, set, time);
  out_ << fmt::format("      {:14.6E}{:14.6E}{:14.6E}\n", sum[0], sum[1], sum[2]);
  out_.flush();
  if (!out_) throw Error("cannot write '" + path_ + "' (disk full?)");
}

}  // namespace fem
