// Where a run's results go in memory, besides or instead of its files: the frames the VTK series
// gets, the rows of its CSV tables (histories, energy, convergence...) and its summary. The Python
// module reads runs through a MemorySink, so that nothing has to be written and read back.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "fem/output/frame.hpp"

namespace fem {

/// Called by the solvers where they write a frame, a table row or summary.json, whether or not
/// they write files. Frames come in mesh point order (output_mesh()) with cells in block order,
/// as the .vtu files hold them.
class RunSink {
 public:
  virtual ~RunSink() = default;
  /// A table the run records (the CSV file's stem: "energy", a history's name...) and the names
  /// of its columns after time and step; called once, before the table's first row.
  virtual void table(const std::string& name, const std::vector<std::string>& columns) = 0;
  /// One row of a table declared before.
  virtual void row(const std::string& name, double time, std::int64_t step,
                   const std::vector<double>& values) = 0;
  virtual void frame(const OutputFrame& frame) = 0;
  /// The run's summary as summary.json holds it (JSON text); the last call is the final one.
  virtual void summary(const std::string& json) = 0;
};

/// A table kept in memory: time, step and the rows (columns.size() values each, row-major).
struct MemoryTable {
  std::vector<std::string> columns;
  std::vector<double> time;
  std::vector<std::int64_t> step;
  std::vector<double> values;
};

/// Keeps everything a run sends.
class MemorySink : public RunSink {
 public:
  void table(const std::string& name, const std::vector<std::string>& columns) override;
  void row(const std::string& name, double time, std::int64_t step,
           const std::vector<double>& values) override;
  void frame(const OutputFrame& frame) override { frames_.push_back(frame); }
  void summary(const std::string& json) override { summary_ = json; }

  [[nodiscard]] const std::vector<OutputFrame>& frames() const { return frames_; }
  [[nodiscard]] const std::map<std::string, MemoryTable>& tables() const { return tables_; }
  /// Table names in the order the run declared them.
  [[nodiscard]] const std::vector<std::string>& table_order() const { return order_; }
  [[nodiscard]] const std::string& summary() const { return summary_; }

 private:
  std::vector<OutputFrame> frames_;
  std::map<std::string, MemoryTable> tables_;
  std::vector<std::string> order_;
  std::string summary_;
};

}  // namespace fem
