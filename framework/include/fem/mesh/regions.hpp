// Relations between mesh regions.
#pragma once

#include <cstdint>

#include "fem/mesh.hpp"

namespace fem {

/// How many cells of `b` are also cells of `a` (the same nodes, in any order). Regions of a mesh
/// file overlap when a cell belongs to two of its groups; two blocks must not take the same cell.
std::int64_t shared_cells(const CellRegion& a, const CellRegion& b);

}  // namespace fem
