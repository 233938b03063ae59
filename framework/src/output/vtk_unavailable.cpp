// What a build without VTK (FEM_WITH_VTK=OFF) offers: the same API, failing with a message that
// says how to get output, so that a case asking for .vtu output fails up front rather than
// running for hours and writing nothing.
#ifndef FEM_WITH_VTK

#include "fem/error.hpp"
#include "fem/output/vtk_series.hpp"

namespace fem {

struct VtkSeriesWriter::Impl {};

bool vtk_output_available() {
  return false;
}

VtkSeriesWriter::VtkSeriesWriter(std::string /*directory*/, std::string /*basename*/,
                                 OutputMesh /*mesh*/, SeriesPiece /*piece*/,
                                 VtkCompression /*compression*/) {
  // Every rank of a partitioned run throws this same message: no rank waits for another.
  throw Error(
      "fem was built without VTK (FEM_WITH_VTK=OFF): field output is unavailable; rebuild with "
      "VTK or set output.vtk: false");
}

VtkSeriesWriter::~VtkSeriesWriter() = default;

// Unreachable: no writer can be constructed. Defined so that callers link either way.
std::string VtkSeriesWriter::write(const OutputFrame& /*frame*/) {
  return {};
}
void VtkSeriesWriter::flush() {}
std::string VtkSeriesWriter::write_single(const OutputFrame& /*frame*/,
                                          const std::string& /*file_name*/) {
  return {};
}
std::string VtkSeriesWriter::pvd_path() const {
  return {};
}
int VtkSeriesWriter::frames_written() const {
  return 0;
}
const std::vector<SeriesFrame>& VtkSeriesWriter::frames() const {
  static const std::vector<SeriesFrame> none;
  return none;
}
int VtkSeriesWriter::next_index() const {
  return 0;
}
void VtkSeriesWriter::resume(std::vector<SeriesFrame> /*frames*/, int /*next_index*/) {}

VtuContents read_vtu(const std::string& /*path*/) {
  throw Error(
      "fem was built without VTK (FEM_WITH_VTK=OFF): .vtu files cannot be read; rebuild with "
      "VTK");
}

}  // namespace fem

#endif  // !FEM_WITH_VTK
