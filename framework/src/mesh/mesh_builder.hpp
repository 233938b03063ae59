// What a mesh-file reader has read, in the file's own ids, turned into a Mesh with dense 0-based
// ids (framework/src/mesh/ only, not installed). Shared by the Gmsh, Abaqus and VTK readers so
// that all formats give the same checks and the same messages.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "fem/error.hpp"
#include "fem/mesh.hpp"

namespace fem::detail {

/// A line of one of the files a mesh is read from (an Abaqus deck and its *INCLUDE files).
struct FilePos {
  int line = 0;
  int file = 0;  ///< index from MeshBuilder::add_file(); 0 is the main file
  FilePos(int l = 0, int f = 0) : line(l), file(f) {}  // NOLINT: a line of the main file
};

class MeshBuilder {
 public:
  explicit MeshBuilder(std::string file) { files_.push_back(std::move(file)); }

  /// Another file the mesh continues in; returns its index for FilePos.
  int add_file(std::string file) {
    files_.push_back(std::move(file));
    return static_cast<int>(files_.size()) - 1;
  }
  [[nodiscard]] const std::string& file(int index = 0) const { return files_[index]; }
  [[nodiscard]] SourceLocation at(FilePos p) const { return {files_[p.file], p.line, 0}; }

  /// Refuses (InputError at `where`) `nodes` more nodes and `elements` more elements, as a
  /// file's header announces them ("nodes that $Nodes announces"), where holding them would take
  /// more memory than fem can still use: before reading them, instead of running out midway.
  void require_room(std::int64_t nodes, std::int64_t elements, FilePos where,
                    const std::string& announced) const;

  /// A node with the file's id. A repeated id is an InputError naming both lines.
  void add_node(std::int64_t id, double x, double y, double z, FilePos where);

  /// A cell with the file's element id and node ids, already in VTK order: a solid, or a plane
  /// cell (tri3, quad4). Returns its index, for add_to_region(). A repeated element id is an
  /// InputError naming both lines. Plane cells are the mesh's cells only when the file holds no
  /// solid cells; next to solids they are faces, and finish() drops them (see add_to_group()).
  std::int64_t add_cell(std::int64_t id, CellShape shape, const std::int64_t* nodes, FilePos where);
  /// An element that is not a cell (a face, an edge, a point): its id still counts for
  /// duplicates, and its nodes can go into node sets through add_to_node_set().
  void add_other_element(std::int64_t id, FilePos where);

  /// Whether the file defined a cell (solid or plane) with this id, and which (-1 if none).
  [[nodiscard]] std::int64_t cell_index(std::int64_t element_id) const;
  [[nodiscard]] bool has_element(std::int64_t element_id) const {
    return element_index_.count(element_id) != 0;
  }

  /// The cell belongs to the region: nothing else, also for a plane cell that finish() drops
  /// because the file has solids.
  void add_to_region(std::int64_t cell, const std::string& region);
  /// The file's group `name` holds the cell (a Gmsh physical group, an Abaqus element set): a
  /// region, except that a plane cell next to solids is a face, whose group has always been a
  /// node set of its nodes (what Gmsh and Abaqus files name their boundaries with).
  void add_to_group(std::int64_t cell, const std::string& name, FilePos where);
  /// Nodes (file ids) that belong to a named node set; `line` is where the file names them.
  void add_to_node_set(const std::string& set, const std::int64_t* nodes, int count, FilePos where);

  /// A face (3 or 4 corner nodes, file ids) of a surface group, for rigid contact surfaces.
  void add_surface_face(const std::string& group, const std::int64_t* corners, int count,
                        FilePos where);
  /// The group's faces as triangles (quadrilaterals split along 0-2): [t][3 vertices][x, y, z]
  /// in file units, from every node the file defines. Unknown group or node: InputError.
  [[nodiscard]] std::vector<double> surface_soup(const std::string& group) const;

  /// Chooses the cells (the solids; the plane cells if there are none), resolves node ids (a
  /// cell or set naming an undefined node is an InputError at its line), rejects inverted cells,
  /// drops nodes that no cell uses, and names the regions: cells of one shape keep the group's
  /// name, a group of several shapes becomes '<name>/<shape>' per shape, cells of no group form
  /// 'domain'. A plane mesh must lie in one plane z = const; its clockwise cells are turned
  /// counter-clockwise (logged), and a cell of zero area is an InputError.
  Mesh finish();

 private:
  std::vector<std::string> files_;
  std::vector<double> coords_;
  std::vector<std::int64_t> node_id_;  ///< the file's id of each node
  std::vector<FilePos> node_line_;
  std::unordered_map<std::int64_t, std::int32_t> node_index_;

  std::vector<CellShape> cell_shape_;
  std::vector<std::int64_t> cell_id_;
  std::vector<FilePos> cell_line_;
  std::vector<std::int64_t> cell_offset_{0};
  std::vector<std::int64_t> cell_nodes_;  ///< file node ids
  std::vector<std::uint8_t> cell_grouped_;
  std::unordered_map<std::int64_t, std::int64_t> element_index_;  ///< id -> cell, -1 if not one
  std::unordered_map<std::int64_t, FilePos> element_line_;

  std::map<std::string, std::vector<std::int64_t>> regions_;  ///< name -> cell indices
  struct SetNodes {
    std::vector<std::int64_t> ids;
    std::vector<FilePos> lines;
  };
  std::map<std::string, SetNodes> node_sets_;
  std::map<std::string, SetNodes> surfaces_;  ///< 3 node ids per triangle
  /// Per group, the plane cells add_to_group() put in it, with the line that did: the group's
  /// node set if the file has solids.
  std::map<std::string, std::vector<std::pair<std::int64_t, FilePos>>> face_groups_;

  void check_new_element(std::int64_t id, FilePos where);
  /// File node ids of the chosen cells -> dense ids in file order (nodes of no chosen cell are
  /// left out: geometry points, stray nodes); fills mesh.coords and returns, per file node, its
  /// dense id or -1.
  std::vector<std::int32_t> number_nodes(const std::vector<std::uint8_t>& chosen,
                                         std::vector<std::int32_t>& cell_conn, Mesh& mesh) const;
  /// A plane mesh: every node in the plane z = const of the first, and the cells turned
  /// counter-clockwise seen from +z.
  void check_plane(const std::vector<std::uint8_t>& chosen, const std::vector<std::int32_t>& dense,
                   std::vector<std::int32_t>& cell_conn, const Mesh& mesh) const;
  /// Solids: no inverted or degenerate cell.
  void check_solids(const std::vector<std::uint8_t>& chosen,
                    const std::vector<std::int32_t>& cell_conn, const Mesh& mesh) const;
};

}  // namespace fem::detail
