// What one output step holds: the reference mesh as VTK cells and named point / cell fields.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace fem {

/// A named field with `components` values per point or per cell (row-major), in double.
struct Field {
  std::string name;
  int components = 1;
  std::vector<double> values;
};

/// A named set of points or cells: one flag (0 or 1) per point or cell.
struct NamedFlags {
  std::string name;
  std::vector<std::uint8_t> flags;
};

/// Geometry and topology in VTK terms. Cells of several types may be mixed.
struct OutputMesh {
  std::vector<double> points;              ///< reference coordinates, 3 per point
  std::vector<std::uint8_t> cell_types;    ///< VTK cell type per cell (VTK_TETRA = 10, ...)
  std::vector<std::int64_t> offsets;       ///< size num_cells + 1 into connectivity
  std::vector<std::int64_t> connectivity;  ///< VTK node order
  /// Optional ids of the points and cells in the whole model's numbering, for a piece of a
  /// partitioned series: written as the point and cell global-id arrays ("GlobalNodeId",
  /// "GlobalElementId") so that readers can match pieces to one another and to a one-process
  /// run. Empty: no array is written (a one-process run's files do not change).
  std::vector<std::int64_t> point_ids;
  std::vector<std::int64_t> cell_ids;
  /// Named sets, written with every frame as unsigned char arrays ParaView can threshold on, in
  /// the convention fem's VTK reader reads back: point arrays `node_set:<name>`, cell arrays
  /// `region:<name>`.
  std::vector<NamedFlags> point_sets;
  std::vector<NamedFlags> cell_sets;
  [[nodiscard]] std::int64_t num_cells() const {
    return static_cast<std::int64_t>(cell_types.size());
  }
};

/// How the arrays in a .vtu are compressed (output.compression): zlib writes the smallest files,
/// LZ4 files about 1.75x as large 7x faster, none about 3x as large, fastest.
enum class VtkCompression { Zlib, Lz4, None };

struct OutputFrame {
  double time = 0.0;
  std::int64_t step = 0;
  std::vector<Field> point_fields;
  std::vector<Field> cell_fields;
};

}  // namespace fem
