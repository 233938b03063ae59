// CSV time histories (one file per history: time, step and the chosen quantities of a node set).
#pragma once

#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

namespace fem {

class CsvHistory {
 public:
  /// Opens `path` and writes the header "time,step,<columns...>". Throws fem::Error if it cannot.
  /// resume_at > 0 (a restart): keeps the file's first resume_at bytes, the rows up to the
  /// checkpoint, and appends after them; a file shorter than that (or none) starts afresh.
  CsvHistory(const std::string& path, std::vector<std::string> columns,
             std::uint64_t resume_at = 0);
  /// Appends one row (values in column order) and flushes, so a crash loses nothing written.
  /// A row the file system refuses (full disk) is cut off again: the file ends with a whole row.
  void append(double time, long long step, const std::vector<double>& values);
  [[nodiscard]] const std::string& path() const { return path_; }
  /// Bytes of the file so far (header and complete rows): what a checkpoint records.
  [[nodiscard]] std::uint64_t bytes() const { return bytes_; }
  /// Whether the constructor continued an existing file (resume_at > 0 and the file had it).
  [[nodiscard]] bool resumed() const { return resumed_; }

 private:
  std::string path_;
  std::ofstream out_;
  std::size_t num_columns_;
  std::uint64_t bytes_ = 0;
  bool resumed_ = false;
};

}  // namespace fem
