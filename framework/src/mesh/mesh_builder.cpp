#include "mesh_builder.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <utility>

#include "fem/memory.hpp"
#include "generator_parts.hpp"

namespace fem::detail {

namespace {

std::string line_text(const MeshBuilder& b, FilePos p) {
  if (p.line <= 0) return "an earlier place";
  return (p.file == 0 ? "line " : b.file(p.file) + ":") + std::to_string(p.line);
}

}  // namespace

void MeshBuilder::require_room(std::int64_t nodes, std::int64_t elements, FilePos where,
                               const std::string& announced) const {
  // The least each takes here: a node its coordinates (24 bytes), file id and line (16) and an
  // entry of the id map (32 or more); an element two map entries (its index and its line).
  constexpr double kNodeBytes = 72, kElementBytes = 64;
  require_memory(
      kNodeBytes * static_cast<double>(nodes) + kElementBytes * static_cast<double>(elements),
      "reading the " + std::to_string(nodes + elements) + " " + announced, at(where),
      "the mesh is too large for this machine: use a coarser mesh, or run "
      "where more memory is available");
}

void MeshBuilder::add_node(std::int64_t id, double x, double y, double z, FilePos line) {
  const auto [it, inserted] = node_index_.emplace(id, static_cast<std::int32_t>(node_line_.size()));
  if (!inserted)
    throw InputError(at(line), "node " + std::to_string(id) + " is defined twice",
                     "the first definition is at " + line_text(*this, node_line_[it->second]) +
                         "; node ids must be unique");
  if (node_line_.size() >= static_cast<std::size_t>(INT32_MAX))
    throw InputError(at(line), "the mesh has more nodes than 32-bit ids can number");
  coords_.insert(coords_.end(), {x, y, z});
  node_id_.push_back(id);
  node_line_.push_back(line);
}

void MeshBuilder::check_new_element(std::int64_t id, FilePos line) {
  const auto [it, inserted] = element_line_.emplace(id, line);
  if (!inserted)
    throw InputError(at(line), "element " + std::to_string(id) + " is defined twice",
                     "the first definition is at " + line_text(*this, it->second) +
                         "; element ids must be unique");
}

std::int64_t MeshBuilder::add_cell(std::int64_t id, CellShape shape, const std::int64_t* nodes,
                                   FilePos line) {
  check_new_element(id, line);
  const auto index = static_cast<std::int64_t>(cell_shape_.size());
  element_index_[id] = index;
  cell_shape_.push_back(shape);
  cell_id_.push_back(id);
  cell_line_.push_back(line);
  cell_nodes_.insert(cell_nodes_.end(), nodes, nodes + nodes_per_cell(shape));
  cell_offset_.push_back(static_cast<std::int64_t>(cell_nodes_.size()));
  cell_grouped_.push_back(0);
  return index;
}

void MeshBuilder::add_other_element(std::int64_t id, FilePos line) {
  check_new_element(id, line);
  element_index_[id] = -1;
}

std::int64_t MeshBuilder::cell_index(std::int64_t element_id) const {
  const auto it = element_index_.find(element_id);
  return it == element_index_.end() ? -1 : it->second;
}

void MeshBuilder::add_to_region(std::int64_t cell, const std::string& region) {
  regions_[region].push_back(cell);
  cell_grouped_[cell] = 1;
}

void MeshBuilder::add_to_group(std::int64_t cell, const std::string& name, FilePos where) {
  add_to_region(cell, name);
  if (cell_dimension(cell_shape_[cell]) == 2) face_groups_[name].emplace_back(cell, where);
}

void MeshBuilder::add_to_node_set(const std::string& set, const std::int64_t* nodes, int count,
                                  FilePos line) {
  SetNodes& s = node_sets_[set];
  s.ids.insert(s.ids.end(), nodes, nodes + count);
  s.lines.insert(s.lines.end(), count, line);
}

void MeshBuilder::add_surface_face(const std::string& group, const std::int64_t* corners, int count,
                                   FilePos where) {
  SetNodes& s = surfaces_[group];
  const int triangles[2][3] = {{0, 1, 2}, {0, 2, 3}};
  for (int t = 0; t < (count == 4 ? 2 : 1); ++t)
    for (const int corner : triangles[t]) {
      s.ids.push_back(corners[corner]);
      s.lines.push_back(where);
    }
}

std::vector<double> MeshBuilder::surface_soup(const std::string& group) const {
  const auto it = surfaces_.find(group);
  if (it == surfaces_.end()) {
    std::vector<std::string> names;
    for (const auto& [name, faces] : surfaces_) names.push_back(name);
    const std::string guess = did_you_mean(group, names.data(), names.data() + names.size());
    std::string list;
    for (const std::string& n : names) list += (list.empty() ? "" : ", ") + n;
    throw InputError(at(0), "the mesh file has no surface group '" + group + "'",
                     (guess.empty() ? "" : guess + " ") +
                         (names.empty() ? "it has no triangles or quadrilaterals in groups"
                                        : "surface groups: " + list));
  }
  std::vector<double> soup;
  soup.reserve(it->second.ids.size() * 3);
  for (std::size_t i = 0; i < it->second.ids.size(); ++i) {
    const auto node = node_index_.find(it->second.ids[i]);
    if (node == node_index_.end())
      throw InputError(at(it->second.lines[i]),
                       "a face of surface '" + group + "' refers to node " +
                           std::to_string(it->second.ids[i]) + ", which the file does not define");
    soup.insert(soup.end(), coords_.begin() + 3 * node->second,
                coords_.begin() + 3 * node->second + 3);
  }
  return soup;
}

std::vector<std::int32_t> MeshBuilder::number_nodes(const std::vector<std::uint8_t>& chosen,
                                                    std::vector<std::int32_t>& cell_conn,
                                                    Mesh& mesh) const {
  const auto num_file_nodes = static_cast<std::int64_t>(node_line_.size());
  std::vector<std::uint8_t> used(static_cast<std::size_t>(num_file_nodes), 0);
  for (std::size_t c = 0; c < chosen.size(); ++c) {
    if (!chosen[c]) continue;
    for (std::int64_t k = cell_offset_[c]; k < cell_offset_[c + 1]; ++k) {
      const auto it = node_index_.find(cell_nodes_[k]);
      if (it == node_index_.end())
        throw InputError(at(cell_line_[c]),
                         "element " + std::to_string(cell_id_[c]) + " refers to node " +
                             std::to_string(cell_nodes_[k]) + ", which the file does not define",
                         "the file defines " + std::to_string(num_file_nodes) +
                             " nodes; check that the node section is complete");
      cell_conn[k] = it->second;
      used[it->second] = 1;
    }
  }
  std::vector<std::int32_t> dense(static_cast<std::size_t>(num_file_nodes), -1);
  for (std::int64_t n = 0; n < num_file_nodes; ++n)
    if (used[n]) {
      dense[n] = static_cast<std::int32_t>(mesh.coords.size() / 3);
      mesh.coords.insert(mesh.coords.end(), coords_.begin() + 3 * n, coords_.begin() + 3 * n + 3);
      mesh.node_labels.push_back(node_id_[n]);
    }
  for (std::size_t c = 0; c < chosen.size(); ++c)
    if (chosen[c])
      for (std::int64_t k = cell_offset_[c]; k < cell_offset_[c + 1]; ++k)
        cell_conn[k] = dense[cell_conn[k]];
  return dense;
}

void MeshBuilder::check_plane(const std::vector<std::uint8_t>& chosen,
                              const std::vector<std::int32_t>& dense,
                              std::vector<std::int32_t>& cell_conn, const Mesh& mesh) const {
  // The plane is the first node's. A file written in another plane (or a 3D surface mesh whose
  // volume was not meshed) would otherwise run as a plane-strain model of its projection.
  // Coordinates written in decimal put a plane z = c a rounding error off it: 1e-9 of the mesh's
  // size is allowed.
  const auto b = mesh.bounds();
  const double tolerance = 1e-9 * std::max(b[1][0] - b[0][0], b[1][1] - b[0][1]);
  std::int64_t first = -1;
  for (std::size_t n = 0; n < dense.size(); ++n) {
    if (dense[n] < 0) continue;
    if (first < 0) {
      first = static_cast<std::int64_t>(n);
      continue;
    }
    const double z = coords_[3 * n + 2], z0 = coords_[3 * first + 2];
    if (!(std::abs(z - z0) <= tolerance))  // NaN too
      throw InputError(at(node_line_[n]),
                       fmt::format("node {} of the plane mesh has z = {}, off its plane z = {} "
                                   "(that of node {})",
                                   node_id_[n], z, z0, node_id_[first]),
                       "fem reads plane meshes (a file of triangles or quadrilaterals and no "
                       "tetrahedra or hexahedra) in the xy-plane, z = const: turn the mesh into "
                       "it; for a solid, export the 3D mesh (with Gmsh, gmsh -3)");
  }

  // Gmsh meshes a surface whose normal is -z clockwise, and other programs may list a cell
  // either way: a clockwise cell is the same cell listed the other way round, so it is turned
  // (node 0 kept: 0,2,1 and 0,3,2,1) rather than refused. A cell of zero area has no way round.
  std::int64_t turned = 0, plane_cells = 0;
  for (std::size_t c = 0; c < chosen.size(); ++c) {
    if (!chosen[c]) continue;
    ++plane_cells;
    std::int32_t* nodes = cell_conn.data() + cell_offset_[c];
    const int count = nodes_per_cell(cell_shape_[c]);
    const double area2 = polygon_area2(mesh.coords, nodes, count);
    // Nodes on one line seldom give exactly zero in floating point: the area is compared with
    // the square of the longest edge.
    double longest2 = 0.0;
    for (int i = 0; i < count; ++i) {
      const std::array<double, 3> p = mesh.node(nodes[i]), q = mesh.node(nodes[(i + 1) % count]);
      longest2 = std::max(longest2, (q[0] - p[0]) * (q[0] - p[0]) + (q[1] - p[1]) * (q[1] - p[1]));
    }
    if (!(std::abs(area2) > 1e-12 * longest2))
      throw InputError(at(cell_line_[c]),
                       "element " + std::to_string(cell_id_[c]) + " (" + to_string(cell_shape_[c]) +
                           ") is degenerate: its area is zero",
                       "its nodes coincide or lie on one line (in the xy-plane); fix the element "
                       "or regenerate the mesh");
    if (area2 < 0.0) {
      std::reverse(nodes + 1, nodes + count);
      ++turned;
    }
  }
  if (turned > 0)
    spdlog::info(
        "{}: {} of {} plane cells ran clockwise (seen from +z) and were turned "
        "counter-clockwise",
        files_[0], turned, plane_cells);
}

void MeshBuilder::check_solids(const std::vector<std::uint8_t>& chosen,
                               const std::vector<std::int32_t>& cell_conn, const Mesh& mesh) const {
  // A mirrored cell (nodes in another program's order) would stop the solver later with a less
  // useful message. Hexahedra are judged by the sum of their corner Jacobians, so that a
  // distorted but usable cell with one bad corner still passes.
  for (std::size_t c = 0; c < chosen.size(); ++c) {
    if (!chosen[c]) continue;
    const std::int32_t* nodes = cell_conn.data() + cell_offset_[c];
    double measure = 0.0;
    if (cell_shape_[c] == CellShape::Hex8 || cell_shape_[c] == CellShape::Hex20)
      for (int corner = 0; corner < 8; ++corner)
        measure += hex_corner_jacobian(mesh.coords, nodes, corner);
    else if (cell_shape_[c] == CellShape::Tet4 || cell_shape_[c] == CellShape::Tet10)
      measure = tet_volume6(mesh.coords, nodes);
    else
      continue;
    if (!(measure > 0.0))
      throw InputError(at(cell_line_[c]),
                       "element " + std::to_string(cell_id_[c]) + " (" + to_string(cell_shape_[c]) +
                           ") is inverted or degenerate: its volume is not positive",
                       "its nodes are mirrored (listed in another order than the format's) or "
                       "coincide; fix the element's node order or regenerate the mesh");
  }
}

Mesh MeshBuilder::finish() {
  const auto num_cells = static_cast<std::int64_t>(cell_shape_.size());
  // Solids win: next to them a plane cell is a face (a Gmsh physical surface, an Abaqus set of
  // CPS3), which names a boundary as it always has.
  const bool solid = std::any_of(cell_shape_.begin(), cell_shape_.end(),
                                 [](CellShape s) { return cell_dimension(s) == 3; });
  std::vector<std::uint8_t> chosen(static_cast<std::size_t>(num_cells));
  for (std::int64_t c = 0; c < num_cells; ++c)
    chosen[c] = cell_dimension(cell_shape_[c]) == (solid ? 3 : 2) ? 1 : 0;
  if (num_cells == 0)
    throw InputError(at(0),
                     "the mesh file has no cells: no tetrahedra or hexahedra, nor (for a plane "
                     "mesh) 3-node triangles or 4-node quadrilaterals",
                     "export the mesh, not only its boundary; with Gmsh, mesh in 3D (gmsh -3), or "
                     "in 2D (gmsh -2) for a plane mesh");
  if (solid)
    for (const auto& [name, faces] : face_groups_)
      for (const auto& [c, where] : faces)
        add_to_node_set(name, cell_nodes_.data() + cell_offset_[c], nodes_per_cell(cell_shape_[c]),
                        where);

  std::vector<std::int32_t> cell_conn(cell_nodes_.size());
  Mesh mesh;
  mesh.source_files = files_;
  const std::vector<std::int32_t> dense = number_nodes(chosen, cell_conn, mesh);
  if (solid)
    check_solids(chosen, cell_conn, mesh);
  else
    check_plane(chosen, dense, cell_conn, mesh);

  for (std::int64_t c = 0; c < num_cells; ++c)
    if (chosen[c] && !cell_grouped_[c]) regions_["domain"].push_back(c);
  for (const auto& [name, cells] : regions_) {
    std::map<std::string, CellRegion> by_shape;  // by shape name, for a stable order
    for (const std::int64_t c : cells) {
      if (!chosen[c]) continue;
      CellRegion& r = by_shape[to_string(cell_shape_[c])];
      r.shape = cell_shape_[c];
      r.nodes_per_cell = nodes_per_cell(r.shape);
      r.connectivity.insert(r.connectivity.end(), cell_conn.begin() + cell_offset_[c],
                            cell_conn.begin() + cell_offset_[c + 1]);
      r.origins.push_back({cell_id_[c], cell_line_[c].line, cell_line_[c].file});
    }
    for (auto& [shape, r] : by_shape) {
      r.name = by_shape.size() == 1 ? name : name + "/" + shape;
      mesh.regions.push_back(std::move(r));
    }
  }
  for (auto& [name, s] : node_sets_) {
    std::vector<std::int32_t> ids;
    for (std::size_t i = 0; i < s.ids.size(); ++i) {
      const auto it = node_index_.find(s.ids[i]);
      if (it == node_index_.end())
        throw InputError(at(s.lines[i]), "node set '" + name + "' contains node " +
                                             std::to_string(s.ids[i]) +
                                             ", which the file does not define");
      // Nodes of no cell (a point of the geometry, say) carry no degrees of freedom.
      if (dense[it->second] >= 0) ids.push_back(dense[it->second]);
    }
    std::sort(ids.begin(), ids.end());
    ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
    mesh.node_sets[name] = std::move(ids);
  }
  return mesh;
}

}  // namespace fem::detail
