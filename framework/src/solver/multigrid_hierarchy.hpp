// The geometric hierarchy of a built-in box mesh, for the multigrid preconditioner
// (multigrid.cpp): box models at halved divisions and the transfer matrices between consecutive
// levels. Host-side geometry, built once per run; the matrices are then uploaded to the backend.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <unordered_map>
#include <utility>
#include <vector>

#include "fem/backend.hpp"
#include "fem/model.hpp"
#include "fem/operator.hpp"

namespace fem::multigrid {

/// A node's place on the undistorted box grid: half cells from the origin along x, y and z
/// (corners of cells at even numbers, the mid-edge nodes of tet10 and hex20 also at odd ones). Half
/// cells of a coarse level are whole cells of the level below it, so the fine node at the place of
/// a coarse node p is the one at 2 p.
using GridPoint = std::array<std::int32_t, 3>;

/// The nodes of a box mesh by their grid points.
class BoxGrid {
 public:
  BoxGrid(const std::array<int, 3>& divisions, std::vector<GridPoint> points);
  [[nodiscard]] const std::array<int, 3>& divisions() const { return divisions_; }
  [[nodiscard]] std::int64_t num_nodes() const { return static_cast<std::int64_t>(points_.size()); }
  [[nodiscard]] const GridPoint& point(std::int64_t node) const { return points_[node]; }
  /// The node at grid point p, or -1 where the mesh has none.
  [[nodiscard]] std::int32_t node_at(const GridPoint& p) const;

 private:
  [[nodiscard]] std::int64_t key(const GridPoint& p) const;
  std::array<int, 3> divisions_;
  std::vector<GridPoint> points_;
  std::unordered_map<std::int64_t, std::int32_t> nodes_;
};

/// The grid of a model whose mesh comes from the box generator, found from the nodes'
/// coordinates rather than their numbers: solver.node_ordering may have renumbered them, and
/// mesh.distortion moved the interior ones off the grid.
BoxGrid box_grid(const Model& model);

/// A coarse level: the box of the finer model at half its divisions, with the same blocks (the
/// same element and material plugins and parameters).
struct CoarseModel {
  std::unique_ptr<Model> model;  ///< behind a pointer: its blocks point into its spec
  BoxGrid grid;
  std::vector<std::int32_t> fine_node;  ///< per coarse node, the fine node at its place
};

/// Coarsens a box model whose divisions are all even. A coarse node takes the coordinates of the
/// fine node at its place (on a distorted mesh, the coarse elements are then the fine ones'
/// corners), and belongs to the node sets that fine node belongs to, so that the coarse
/// boundary conditions hold where the fine ones do whatever selected the sets (geometry or
/// explicit node ids). Contacts, loads, gravity and initial velocities are dropped: they are not
/// in the tangent (contact stiffness stays on the fine level, in the operator that wraps it).
CoarseModel coarsen(const Model& fine, const BoxGrid& fine_grid);

/// The prolongation P (fine dofs x coarse dofs): at every fine node, per component, the coarse
/// element's own interpolation of the coarse nodes (trilinear on hexahedra; linear or quadratic
/// on the Kuhn tetrahedron of the generator's split that holds the node), so that P reproduces
/// the coarse finite-element functions exactly on the fine mesh (the grids, and the Kuhn splits
/// of a grid and of its refinement, are nested). Rows of prescribed fine dofs and columns of
/// prescribed coarse dofs are empty: the coarse correction never touches a prescribed dof.
CsrMatrix prolongation(CellShape cells, const BoxGrid& fine, const System& fine_system,
                       const BoxGrid& coarse, const System& coarse_system);

/// The injection (coarse dofs x fine dofs): each coarse dof takes the value of the fine dof at
/// its place.
CsrMatrix injection(const std::vector<std::int32_t>& fine_node, std::int64_t fine_nodes);

/// A^T.
CsrMatrix transpose(const CsrMatrix& a);

}  // namespace fem::multigrid
