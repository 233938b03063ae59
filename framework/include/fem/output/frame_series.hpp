// The field frames a run writes to files: the VTK series (output.vtk), the XDMF series
// (output.xdmf), or both, written together and numbered alike, so that the solvers and the
// checkpoints deal with one object whatever the formats.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "fem/output/vtk_series.hpp"
#include "fem/output/xdmf_series.hpp"

namespace fem {

class FrameSeries {
 public:
  /// Either may be null, not both.
  FrameSeries(std::unique_ptr<VtkSeriesWriter> vtk, std::unique_ptr<XdmfSeriesWriter> xdmf);

  /// Appends a frame to every series (collective on several ranks, as the writers are).
  void write(const OutputFrame& frame);
  /// Brings every index file (.pvd, .xdmf) up to date.
  void flush();
  /// A frame outside the series as a .vtu ("<name>_last_good.vtu"); returns its path, or an
  /// empty string where no VTK series is written.
  std::string write_single(const OutputFrame& frame, const std::string& file_name);

  /// The index files a reader opens: the .pvd and/or the .xdmf.
  [[nodiscard]] std::vector<std::string> index_paths() const;
  [[nodiscard]] int frames_written() const;
  /// The VTK frames (empty without a VTK series) and the number the next frame gets.
  [[nodiscard]] std::vector<SeriesFrame> frames() const;
  [[nodiscard]] int next_index() const;
  /// Continues the series a checkpoint recorded (see VtkSeriesWriter::resume and
  /// XdmfSeriesWriter::resume).
  void resume(std::vector<SeriesFrame> frames, int next_index);

  [[nodiscard]] VtkSeriesWriter* vtk() const { return vtk_.get(); }
  [[nodiscard]] XdmfSeriesWriter* xdmf() const { return xdmf_.get(); }

 private:
  std::unique_ptr<VtkSeriesWriter> vtk_;
  std::unique_ptr<XdmfSeriesWriter> xdmf_;
};

}  // namespace fem
