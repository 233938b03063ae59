// The index files of a series (framework/src/output/ only, not installed): the .pvd, a small
// VTKFile "Collection" listing one .vtu (or .pvtu) per time, and the .pvtu, a
// "PUnstructuredGrid" listing the pieces of one frame and the arrays every piece holds.
#pragma once

#include <string>
#include <vector>

#include "fem/output/vtk_series.hpp"

namespace fem::detail {

using PvdEntry = SeriesFrame;

/// The complete XML document for `entries`, in order.
std::string format_pvd(const std::vector<PvdEntry>& entries);

/// One array every piece of a .pvtu holds, as the pieces' files declare it.
struct PvtuArray {
  std::string name;
  std::string type;  ///< VTK XML type name: "Float64", "Int64", ...
  int components = 1;
  bool id_type = false;  ///< a vtkIdType array, which VTK marks IdType="1" to read it back as one
};

/// What the pieces of a .pvtu hold besides their geometry.
struct PvtuLayout {
  std::vector<PvtuArray> point_arrays;
  std::vector<PvtuArray> cell_arrays;
  std::string point_global_ids;  ///< name of the point global-id array; empty if none
  std::string cell_global_ids;
};

/// The complete .pvtu document for pieces `sources` (relative to the .pvtu's directory).
std::string format_pvtu(const PvtuLayout& layout, const std::vector<std::string>& sources);

/// `s` with the five XML special characters escaped, for attribute values.
std::string xml_escape(const std::string& s);

}  // namespace fem::detail
