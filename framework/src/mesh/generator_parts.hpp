// Building blocks of the built-in mesh generators (framework/src/mesh/ only, not installed).
//
// Every generator first builds hexahedra and knows, while it does, which nodes lie on the
// boundary; tetrahedra and distortion are derived from that. Keeping the boundary flags here
// (rather than recomputing them from coordinates) is what lets distortion leave the boundary
// exactly in place, so that boundary selectors still pick the same nodes.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "fem/case.hpp"
#include "fem/mesh.hpp"

namespace fem::detail {

/// A structured rectangle of tri3 or quad4 cells (spec.cells) in the plane z = origin.z.
Mesh rectangle_mesh(const MeshSpec& spec);

/// A structured or block-structured hexahedral mesh in VTK node order.
struct HexGrid {
  std::vector<double> coords;             ///< x0,y0,z0,x1,...
  std::vector<std::int32_t> hexes;        ///< 8 node ids per cell
  std::vector<std::uint8_t> on_boundary;  ///< 1 for nodes on the domain's surface
};

/// Box of divisions[0] x divisions[1] x divisions[2] hexahedra; nodes x fastest, then y, then z.
HexGrid box_hexes(const MeshSpec& spec);

/// O-grid cylinder along z: a core block surrounded by a ring, outer nodes exactly on the circle.
HexGrid cylinder_hexes(const MeshSpec& spec);

/// Splits every hexahedron into 6 positive tetrahedra so that neighbouring hexahedra agree on the
/// diagonals of their shared faces, whatever their relative orientation (rule in tet_split.cpp).
std::vector<std::int32_t> split_hexes_into_tets(const std::vector<std::int32_t>& hexes);

/// Makes quadratic cells (`quadratic`: Tet10 of tet4 cells, Hex20 of hex8 cells, in VTK order)
/// of linear ones: one node at the middle of every edge, shared by all cells around the edge,
/// appended to `coords` after the corner nodes in order of first use. Edges stay straight.
std::vector<std::int32_t> add_mid_edge_nodes(std::vector<double>& coords,
                                             const std::vector<std::int32_t>& cells,
                                             CellShape quadratic);

/// Moves every node not flagged on_boundary by a random vector no longer than
/// `fraction` x the smallest height of the hexahedra around it, seeded by `seed`. Cells of
/// `cells` (the mesh actually returned) never invert: a move that would invert one is shortened.
void distort_interior_nodes(std::vector<double>& coords,
                            const std::vector<std::uint8_t>& on_boundary,
                            const std::vector<std::int32_t>& hexes, const CellRegion& cells,
                            double fraction, unsigned seed);

// Cell geometry (cell_geometry.cpp).

/// det[x_a - x_c, x_b - x_c, x_d - x_c] at hexahedron corner c, with a, b, d its neighbours in
/// right-handed order: positive for every corner of a valid hexahedron in VTK order.
double hex_corner_jacobian(const std::vector<double>& coords, const std::int32_t* hex, int corner);

/// Six times the signed volume of a tetrahedron in VTK order (positive when valid).
double tet_volume6(const std::vector<double>& coords, const std::int32_t* tet);

/// Twice the signed area of a plane polygon (tri3, quad4) in the xy-plane: positive when its
/// nodes run counter-clockwise seen from +z.
double polygon_area2(const std::vector<double>& coords, const std::int32_t* nodes, int count);

/// The smallest distance between opposite faces over the eight corner parallelepipeds of a
/// hexahedron: the size below which a node move cannot be "small" for this cell. Equals the
/// shortest edge for a rectangular box, and shrinks for skewed cells.
double hex_min_height(const std::vector<double>& coords, const std::int32_t* hex);

/// True when the cell has positive volume everywhere it is checked: all 8 corner Jacobians of a
/// hexahedron, the volume of a tetrahedron.
bool cell_is_valid(const std::vector<double>& coords, const CellRegion& cells, std::int64_t cell);

}  // namespace fem::detail
