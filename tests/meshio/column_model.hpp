// The small mixed model every file in tests/meshio/data describes (10 x 10 x 20 mm column: one
// hexahedron under six tetrahedra), and a form of a Mesh that does not depend on node numbering,
// so that meshes read from different formats can be compared.
#pragma once

#include <algorithm>
#include <array>
#include <map>
#include <string>
#include <vector>

#include <fem/mesh.hpp>

namespace fem::test {

using Point = std::array<double, 3>;

/// A mesh by coordinates: regions as sorted lists of cells (each its nodes' points in VTK
/// order), node sets as sorted point lists.
struct MeshByPoints {
  std::vector<Point> nodes;
  std::map<std::string, std::pair<CellShape, std::vector<std::vector<Point>>>> regions;
  std::map<std::string, std::vector<Point>> node_sets;
  bool operator==(const MeshByPoints&) const = default;
};

inline MeshByPoints by_points(const Mesh& mesh) {
  MeshByPoints m;
  for (std::int64_t n = 0; n < mesh.num_nodes(); ++n) m.nodes.push_back(mesh.node(n));
  std::sort(m.nodes.begin(), m.nodes.end());
  for (const CellRegion& r : mesh.regions) {
    auto& [shape, cells] = m.regions[r.name];
    shape = r.shape;
    for (std::int64_t c = 0; c < r.num_cells(); ++c) {
      std::vector<Point> cell;
      for (int i = 0; i < r.nodes_per_cell; ++i)
        cell.push_back(mesh.node(r.connectivity[c * r.nodes_per_cell + i]));
      cells.push_back(cell);
    }
    std::sort(cells.begin(), cells.end());
  }
  for (const auto& [name, ids] : mesh.node_sets) {
    std::vector<Point>& points = m.node_sets[name];
    for (const std::int32_t n : ids) points.push_back(mesh.node(n));
    std::sort(points.begin(), points.end());
  }
  return m;
}

/// The column as the test files describe it, in millimetres.
inline Mesh column_mesh() {
  Mesh m;
  m.coords = {0,  0,  0,  10, 0,  0,  10, 10, 0,  0,  10, 0,  0,  0,  10, 10, 0,  10,
              10, 10, 10, 0,  10, 10, 0,  0,  20, 10, 0,  20, 10, 10, 20, 0,  10, 20};
  CellRegion hex{"core", CellShape::Hex8, 8, {0, 1, 2, 3, 4, 5, 6, 7}};
  // The upper cube split around its diagonal 4-10 (E-K).
  CellRegion tets{"shell", CellShape::Tet4, 4, {4, 5,  6, 10, 4, 6, 7, 10, 4, 7, 11, 10,
                                                4, 11, 8, 10, 4, 8, 9, 10, 4, 9, 5,  10}};
  CellRegion solid_hex = hex, solid_tets = tets;
  solid_hex.name = "solid/hex8";
  solid_tets.name = "solid/tet4";
  m.regions = {hex, tets, solid_hex, solid_tets};
  m.node_sets = {{"bottom", {0, 1, 2, 3}}, {"top", {8, 9, 10, 11}}, {"tip", {10}}};
  return m;
}

}  // namespace fem::test
