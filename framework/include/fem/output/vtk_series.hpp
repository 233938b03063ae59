// Writes a .vtu file per output step and keeps a .pvd time series index up to date.
//
// The .pvd index is rewritten (to a temporary file, then renamed) after every frame, so a run that
// stops early still leaves a series ParaView opens with every frame written so far.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "fem/output/frame.hpp"

namespace fem {

/// Whether this build of fem writes and reads .vtu files (CMake option FEM_WITH_VTK). Without
/// it, VtkSeriesWriter's constructor and read_vtu throw fem::Error saying how to fix it.
bool vtk_output_available();

/// One frame of a series as its .pvd lists it.
struct SeriesFrame {
  double time = 0.0;
  std::string file;  ///< relative to the .pvd's directory, so the series can be moved as a whole
};

class VtkSeriesWriter {
 public:
  /// Creates `directory` if needed. Files are `<directory>/<basename>_<NNNNNN>.vtu` and
  /// `<directory>/<basename>.pvd`.
  VtkSeriesWriter(std::string directory, std::string basename, OutputMesh mesh);
  ~VtkSeriesWriter();
  VtkSeriesWriter(const VtkSeriesWriter&) = delete;
  VtkSeriesWriter& operator=(const VtkSeriesWriter&) = delete;

  /// Appends a frame to the series; returns the .vtu path written.
  std::string write(const OutputFrame& frame);
  /// Writes a frame outside the series (e.g. "<basename>_last_good.vtu"); returns its path.
  /// `file_name` is relative to the series directory; the .pvd does not list it.
  std::string write_single(const OutputFrame& frame, const std::string& file_name);

  [[nodiscard]] std::string pvd_path() const;
  [[nodiscard]] int frames_written() const;

  /// The frames the .pvd lists now, and the number the next frame's file gets.
  [[nodiscard]] const std::vector<SeriesFrame>& frames() const;
  [[nodiscard]] int next_index() const;
  /// Continues a series a checkpoint recorded (restart): the .pvd lists `frames` and the next
  /// frame is numbered `next_index`, replacing any file of that number a later run left.
  void resume(std::vector<SeriesFrame> frames, int next_index);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// Reads a .vtu back (tests, .vtu mesh input later). Throws fem::InputError on a bad file.
struct VtuContents {
  OutputMesh mesh;
  std::vector<Field> point_fields;
  std::vector<Field> cell_fields;
};
VtuContents read_vtu(const std::string& path);

}  // namespace fem
