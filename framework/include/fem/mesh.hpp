// The mesh: node coordinates, cell regions and named node sets, independent of element types.
//
// A mesh knows topology (how many nodes a cell has, and which), not formulation: whether an
// eight-node region is run with one-point hexahedra or fully integrated ones is decided by the
// case's blocks. Node ids are 0-based and dense.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace fem {

/// Cell topologies a mesh can hold. Node ordering follows VTK for each topology. Tri3 and Quad4
/// are plane cells (plane strain, per unit thickness): a mesh of them lies in a plane z = const,
/// nodes counter-clockwise seen from +z, and holds no solid cells.
enum class CellShape : int {
  Tet4 = 0,
  Hex8 = 1,
  Tet10 = 2,
  Hex20 = 3,
  Hex27 = 4,
  Tri3 = 5,
  Quad4 = 6
};

int nodes_per_cell(CellShape s);
const char* to_string(CellShape s);
/// 2 for plane cells (tri3, quad4), 3 for solids.
int cell_dimension(CellShape s);

/// Where a cell comes from, so that messages can name it as the user knows it after the run has
/// renumbered nodes and sorted cells (fem/mesh/ordering.hpp).
struct CellOrigin {
  std::int64_t id = 0;     ///< the mesh file's element id; for a generator, its 0-based cell number
  std::int32_t line = 0;   ///< 1-based line of source_files[file] defining it; 0: not known
  std::int32_t file = -1;  ///< index into Mesh::source_files; -1: a generated cell
};

/// A set of cells of one shape, such as a generator's whole domain or a file's physical group.
struct CellRegion {
  std::string name;
  CellShape shape = CellShape::Hex8;
  int nodes_per_cell = 8;
  std::vector<std::int32_t> connectivity;  ///< nodes_per_cell entries per cell
  /// Per cell, for meshes read from a file and for cells sorted by the node ordering; empty:
  /// cell c is the generator's cell c.
  std::vector<CellOrigin> origins = {};
  [[nodiscard]] std::int64_t num_cells() const {
    return nodes_per_cell ? static_cast<std::int64_t>(connectivity.size()) / nodes_per_cell : 0;
  }
  [[nodiscard]] CellOrigin origin(std::int64_t c) const {
    return origins.empty() ? CellOrigin{c, 0, -1} : origins[static_cast<std::size_t>(c)];
  }
};

struct Mesh {
  std::vector<double> coords;  ///< x0,y0,z0,x1,... (metres)
  std::vector<CellRegion> regions;
  std::map<std::string, std::vector<std::int32_t>> node_sets;  ///< sorted, unique node ids
  /// The mesh file and the files it includes (CellOrigin::file indexes them); empty if generated.
  std::vector<std::string> source_files;
  /// Per node its id in the input numbering (the file's order, the case's `ids:`) once the run
  /// has renumbered the nodes; empty while they are numbered as input.
  std::vector<std::int32_t> input_node_ids;
  /// Per node the label the mesh file gives it (Gmsh's node tag, Abaqus's node number), in the
  /// current numbering; empty where the file's order is the label (generated meshes, VTK).
  /// Messages name nodes by it, as they name elements by the file's element ids.
  std::vector<std::int64_t> node_labels;

  [[nodiscard]] std::int64_t num_nodes() const {
    return static_cast<std::int64_t>(coords.size()) / 3;
  }
  [[nodiscard]] std::array<double, 3> node(std::int64_t i) const {
    return {coords[3 * i], coords[3 * i + 1], coords[3 * i + 2]};
  }
  /// 2 for a mesh of plane cells (plane strain, z = const), 3 otherwise (also with no cells).
  [[nodiscard]] int dimension() const;
  /// Axis-aligned bounding box {min, max}.
  [[nodiscard]] std::array<std::array<double, 3>, 2> bounds() const;
  /// The input id of node n (see input_node_ids).
  [[nodiscard]] std::int32_t input_node_id(std::int32_t n) const {
    return input_node_ids.empty() ? n : input_node_ids[static_cast<std::size_t>(n)];
  }
  /// Node n's label in the mesh file (see node_labels), else its input id. Nodes a reader or
  /// generator added after the file's (midside nodes) have no label: their input id.
  [[nodiscard]] std::int64_t node_label(std::int32_t n) const {
    return static_cast<std::size_t>(n) < node_labels.size()
               ? node_labels[static_cast<std::size_t>(n)]
               : input_node_id(n);
  }
};

}  // namespace fem
