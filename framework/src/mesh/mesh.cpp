#include "fem/mesh.hpp"

#include <algorithm>
#include <limits>

#include "../core/host_loops.hpp"

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
  // Smallest and largest are exact whatever the order, so every core may take a part.
  double lo[3], hi[3];
  for (int k = 0; k < 3; ++k) {
    lo[k] = std::numeric_limits<double>::max();
    hi[k] = std::numeric_limits<double>::lowest();
  }
  const std::int64_t n = num_nodes();
  const double* x = coords.data();
#pragma omp parallel for reduction(min       \
                                   : lo[:3]) \
    reduction(max                            \
              : hi[:3]) if (n >= detail::kParallelHostLoopMinimum)
  for (std::int64_t i = 0; i < n; ++i)
    for (int k = 0; k < 3; ++k) {
      lo[k] = std::min(lo[k], x[3 * i + k]);
      hi[k] = std::max(hi[k], x[3 * i + k]);
    }
  return {{{lo[0], lo[1], lo[2]}, {hi[0], hi[1], hi[2]}}};
}

}  // namespace fem
