// The voxels of a model as the voxel hierarchy takes them: every block's 8-node hexahedra, block
// after block. Shared by the co-rotational solver (which refuses other cells) and the implicit
// solvers' voxel preconditioner (which then steps aside).
#pragma once

#include <cstdint>
#include <vector>

#include "fem/model.hpp"

namespace fem::voxel {

struct ModelHexahedra {
  std::vector<std::int32_t> cells;  ///< 8 mesh nodes per cell
  std::vector<std::int32_t> block;  ///< per cell, its block's index in Model::blocks
  /// The first block whose cells are not 8-node hexahedra (-1: none; cells and block are then
  /// empty).
  std::int32_t other_block = -1;
};

ModelHexahedra model_hexahedra(const Model& model);

}  // namespace fem::voxel
