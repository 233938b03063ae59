// The field frames a run writes to files: the VTK series (output.vtk), the XDMF series
// (output.xdmf), or both, written together and numbered alike, so that the solvers and the
// checkpoints deal with one object whatever the formats.
#pragma once

#include <future>
#include <memory>
#include <string>
#include <vector>

#include "fem/output/vtk_series.hpp"
#include "fem/output/xdmf_series.hpp"

namespace fem {

/// Where a series writes its frames: on the thread that calls write(), or on a thread of its own
/// while the caller goes on (the next steps of a GPU run, whose host cores wait on the device).
enum class FrameWriting { OnCaller, Background };

class FrameSeries {
 public:
  /// Either may be null, not both. In the background, one frame is written at a time, in order.
  FrameSeries(std::unique_ptr<VtkSeriesWriter> vtk, std::unique_ptr<XdmfSeriesWriter> xdmf,
              FrameWriting writing = FrameWriting::OnCaller);
  /// Waits for a frame still being written (its failure, if any, is logged: the caller is
  /// already ending).
  ~FrameSeries();
  FrameSeries(const FrameSeries&) = delete;
  FrameSeries& operator=(const FrameSeries&) = delete;

  /// Appends a frame to every series (collective on several ranks, as the writers are). In the
  /// background: waits for the frame before it, rethrowing its failure, then returns while this
  /// one is written. Every other call below first waits for the frame in flight the same way.
  void write(OutputFrame frame);
  /// Brings every index file (.pvd, .xdmf) up to date.
  void flush();
  /// A frame outside the series as a .vtu ("<name>_last_good.vtu"); returns its path, or an
  /// empty string where no VTK series is written.
  std::string write_single(const OutputFrame& frame, const std::string& file_name);

  /// The index files a reader opens: the .pvd and/or the .xdmf.
  [[nodiscard]] std::vector<std::string> index_paths() const;
  /// Frames handed to write(), the one still being written in the background included.
  [[nodiscard]] int frames_written() const { return frames_handed_; }
  /// The VTK frames (empty without a VTK series) and the number the next frame gets.
  [[nodiscard]] std::vector<SeriesFrame> frames() const;
  [[nodiscard]] int next_index() const;
  /// Continues the series a checkpoint recorded (see VtkSeriesWriter::resume and
  /// XdmfSeriesWriter::resume).
  void resume(std::vector<SeriesFrame> frames, int next_index);

  [[nodiscard]] VtkSeriesWriter* vtk() const { return vtk_.get(); }
  [[nodiscard]] XdmfSeriesWriter* xdmf() const { return xdmf_.get(); }
  [[nodiscard]] FrameWriting writing() const { return writing_; }

 private:
  /// Waits for the frame in flight, if any, and rethrows its failure.
  void wait() const;
  void write_now(const OutputFrame& frame);

  std::unique_ptr<VtkSeriesWriter> vtk_;
  std::unique_ptr<XdmfSeriesWriter> xdmf_;
  FrameWriting writing_;
  int frames_handed_ = 0;
  /// The background write in flight. Declared last, so that it is finished before the writers
  /// it uses are destroyed.
  mutable std::future<void> pending_;
};

}  // namespace fem
