// A history file fem writes (histories, energy.csv, convergence.csv: a header of column names,
// then one row of numbers per sample) read back for comparison in tests.
#pragma once

#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace fem::test {

struct HistoryCsv {
  std::vector<std::string> names;         ///< the header's column names
  std::vector<std::vector<double>> rows;  ///< each row's numbers, as written

  /// Column name -> its values by row (a row's numbers past the header's names are dropped).
  [[nodiscard]] std::map<std::string, std::vector<double>> columns() const {
    std::map<std::string, std::vector<double>> out;
    for (const std::vector<double>& row : rows)
      for (std::size_t c = 0; c < row.size() && c < names.size(); ++c)
        out[names[c]].push_back(row[c]);
    return out;
  }
};

/// The file at `path`; empty names and rows if it cannot be read.
inline HistoryCsv read_history_csv(const std::string& path) {
  const auto split = [](const std::string& line) {
    std::vector<std::string> cells;
    std::istringstream in(line);
    for (std::string cell; std::getline(in, cell, ',');) cells.push_back(cell);
    return cells;
  };
  HistoryCsv csv;
  std::ifstream in(path);
  std::string line;
  if (!std::getline(in, line)) return csv;
  csv.names = split(line);
  while (std::getline(in, line)) {
    std::vector<double>& row = csv.rows.emplace_back();
    for (const std::string& cell : split(line)) row.push_back(std::stod(cell));
  }
  return csv;
}

}  // namespace fem::test
