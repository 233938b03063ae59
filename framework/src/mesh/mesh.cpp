#include "fem/mesh.hpp"

#include <algorithm>
#include <limits>

namespace fem {

int nodes_per_cell(CellShape s) {
  switch (s) {
    case CellShape::Tet4:
      return 4;
    case CellShape::Hex8:
      return 8;
    case CellShape::Tet10:
      return 10;
    case CellShape::Hex20:
      return 20;
    case CellShape::Hex27:
      return 27;
    case CellShape::Tri3:
      return 3;
    case CellShape::Quad4:
      return 4;
  }
  return 0;
}

const char* to_string(CellShape s) {
  switch (s) {
    case CellShape::Tet4:
      return "tet4";
    case CellShape::Hex8:
      return "hex8";
    case CellShape::Tet10:
      return "tet10";
    case CellShape::Hex20:
      return "hex20";
    case CellShape::Hex27:
      return "hex27";
    case CellShape::Tri3:
      return "tri3";
    case CellShape::Quad4:
      return "quad4";
  }
  return "?";
}

int cell_dimension(CellShape s) {
  return s == CellShape::Tri3 || s == CellShape::Quad4 ? 2 : 3;
}

int Mesh::dimension() const {
  return !regions.empty() && cell_dimension(regions.front().shape) == 2 ? 2 : 3;
}

std::array<std::array<double, 3>, 2> Mesh::bounds() const {
  std::array<std::array<double, 3>, 2> b;
  for (int k = 0; k < 3; ++k) {
    b[0][k] = std::numeric_limits<double>::max();
    b[1][k] = std::numeric_limits<double>::lowest();
  }
  for (std::int64_t i = 0; i < num_nodes(); ++i)
    for (int k = 0; k < 3; ++k) {
      b[0][k] = std::min(b[0][k], coords[3 * i + k]);
      b[1][k] = std::max(b[1][k], coords[3 * i + k]);
    }
  return b;
}

}  // namespace fem
