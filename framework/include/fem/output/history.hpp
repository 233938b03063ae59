// CSV time histories (one file per history: time, step and the chosen quantities of a node set).
#pragma once

#include <fstream>
#include <string>
#include <vector>

namespace fem {

class CsvHistory {
 public:
  /// Opens `path` and writes the header "time,step,<columns...>". Throws fem::Error if it cannot.
  CsvHistory(const std::string& path, std::vector<std::string> columns);
  /// Appends one row (values in column order) and flushes, so a crash loses nothing written.
  void append(double time, long long step, const std::vector<double>& values);
  [[nodiscard]] const std::string& path() const { return path_; }

 private:
  std::string path_;
  std::ofstream out_;
  std::size_t num_columns_;
};

}  // namespace fem
