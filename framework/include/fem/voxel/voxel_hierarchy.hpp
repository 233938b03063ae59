// The grid hierarchy of the co-rotated voxel multigrid (seed 004, sections 3.2 and 4.1;
// docs/voxels.md): the voxels of a mesh on their lattice, and coarser levels by 2x2x2
// agglomeration (a coarse cell for every 2^3 block that holds at least one finer cell) down to
// a coarsest level of a few hundred vertices. Everything is indexed with 32-bit integers and
// stored without void ranges; each level's vertices are grouped by the 8 colours of the
// Gauss-Seidel sweep (lattice parities), in lexicographic order within a colour (x fastest),
// each colour starting at a multiple of kColourAlignment (padding vertices in between, which
// every kernel treats as a prescribed vertex with nothing attached).
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "fem/mesh.hpp"

namespace fem::voxel {

/// A colour's first vertex is a multiple of this (a warp on a GPU: seed section 4.3).
inline constexpr std::int64_t kColourAlignment = 32;
inline constexpr int kColours = 8;

using Lattice = std::array<std::int32_t, 3>;

struct VoxelLevel {
  std::int64_t vertices = 0;  ///< with padding
  std::int64_t real_vertices = 0;
  /// Colour c's vertices are [colour_start[c], colour_start[c + 1]).
  std::array<std::int64_t, kColours + 1> colour_start{};
  std::vector<Lattice> lattice;          ///< per vertex (this level's spacing); padding: {-1,-1,-1}
  std::vector<std::uint8_t> padding;     ///< per vertex, 1 for padding
  std::vector<std::int32_t> neighbours;  ///< 27 per vertex (kernels/voxel_kernels.hpp slots), -1
  /// Levels > 0: 27 per vertex, the finer level's vertex at 2 X + k (slot k), -1 where none.
  std::vector<std::int32_t> children;
  /// All levels but the coarsest: 8 per vertex, the coarser vertices it interpolates from,
  /// -1 after the last.
  std::vector<std::int32_t> parents;
};

struct VoxelHierarchy {
  double edge = 0.0;               ///< the voxels' edge, m
  std::array<double, 3> origin{};  ///< position of lattice point (0, 0, 0), m
  std::int64_t elements = 0;
  /// 8 per element: its fine vertices by corner (a + 2 b + 4 c for lattice offset (a, b, c)).
  std::vector<std::int32_t> element_vertices;
  /// 8 per fine vertex: the element whose corner p the vertex is (-1: none).
  std::vector<std::int32_t> vertex_elements;
  std::vector<std::int32_t> vertex_node;  ///< per fine vertex, its mesh node (-1: padding)
  std::vector<std::int32_t> node_vertex;  ///< per mesh node, its fine vertex (-1: in no voxel)
  std::vector<VoxelLevel> levels;         ///< finest first
};

/// Builds the hierarchy of the voxels `cells` (8 mesh nodes each, any node order) of `mesh`.
/// Every cell must be an axis-aligned cube of the same edge with its nodes on one lattice;
/// throws fem::Error naming the first cell (by its index in `cells`) that is not. Coarsens while
/// the coarsest level has more than `max_coarsest_vertices` vertices, at most `max_levels`
/// levels in all.
VoxelHierarchy build_voxel_hierarchy(const Mesh& mesh, const std::vector<std::int32_t>& cells,
                                     std::int64_t max_coarsest_vertices = 512, int max_levels = 16);

/// The per-level masks the kernels read (bit c: dof c is prescribed at level 0, void on coarser
/// levels; padding vertices 7), from the prescribed dofs of the fine vertices (bit c set where
/// dof c is prescribed). A coarse dof is void when no free finer dof interpolates from it.
std::vector<std::vector<std::uint8_t>> level_masks(const VoxelHierarchy& h,
                                                   const std::vector<std::uint8_t>& fine_fixed);

}  // namespace fem::voxel
