// The connected pieces of a voxel object and which of them have no support (issue 18, "Bad
// input"). A segmented image often holds specks or a second organ apart from the body; without
// a prescribed dof such a piece floats freely. Dynamics still solves (the mass term makes every
// step's matrix definite), so CorotationalSimulation warns instead of refusing, and names each
// loose piece so the user can find it.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "fem/voxel/voxel_hierarchy.hpp"

namespace fem::voxel {

/// One connected piece: voxels sharing at least a vertex with another voxel of it.
struct VoxelPiece {
  std::int64_t voxels = 0;
  std::array<double, 3> lower{}, upper{};  ///< bounding box of its voxels, m
  std::int32_t vertex = -1;                ///< its fine vertex of lowest index
  bool supported = false;                  ///< some dof of one of its vertices is prescribed
};

/// The pieces of the hierarchy's voxels, largest first (ties: by lowest vertex), with
/// `fine_fixed` per fine vertex (bit c set where dof c is prescribed, as level_masks takes).
std::vector<VoxelPiece> voxel_pieces(const VoxelHierarchy& h,
                                     const std::vector<std::uint8_t>& fine_fixed);

/// One warning line per loose (unsupported) piece, the first `max_listed` of them, then one
/// line with the count of the others. `node_name(vertex)` gives the id of the vertex's node the
/// user knows (the mesh's input id). Empty when every piece is supported.
std::vector<std::string> loose_piece_warnings(
    const std::vector<VoxelPiece>& pieces,
    const std::function<std::int64_t(std::int32_t)>& node_name, std::size_t max_listed = 5);

}  // namespace fem::voxel
