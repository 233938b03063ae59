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

/// Geometry and topology in VTK terms. Cells of several types may be mixed.
struct OutputMesh {
  std::vector<double> points;              ///< reference coordinates, 3 per point
  std::vector<std::uint8_t> cell_types;    ///< VTK cell type per cell (VTK_TETRA = 10, ...)
  std::vector<std::int64_t> offsets;       ///< size num_cells + 1 into connectivity
  std::vector<std::int64_t> connectivity;  ///< VTK node order
  [[nodiscard]] std::int64_t num_cells() const {
    return static_cast<std::int64_t>(cell_types.size());
  }
};

struct OutputFrame {
  double time = 0.0;
  std::int64_t step = 0;
  std::vector<Field> point_fields;
  std::vector<Field> cell_fields;
};

}  // namespace fem
