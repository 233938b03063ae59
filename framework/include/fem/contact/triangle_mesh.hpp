// Triangulated rigid surfaces on the host: reading STL files and building the search grid.
#pragma once

#include <string>

#include "fem/contact/rigid_surface.hpp"

namespace fem {

/// Reads an ASCII or binary STL file (coordinates times `scale`), merges coincident vertices
/// and computes the outward normals. Throws InputError naming the file (and line, for ASCII)
/// for an unreadable, truncated or malformed file, or one without triangles.
TriangleMesh read_stl(const std::string& path, double scale = 1.0);
/// The same from the file's bytes (`path` names it in messages).
TriangleMesh read_stl_bytes(const std::string& bytes, const std::string& path, double scale = 1.0);

/// Merges coincident vertices of a triangle soup ([t][3 vertices][3 coords]) and fills
/// vertices, triangles and the normals. `source` names the surface in messages.
TriangleMesh triangle_mesh_from_soup(const std::vector<double>& soup, const std::string& source);

/// The uniform bucket grid of the closest-point search: cubic cells of `cell_size` (0:
/// half the mean edge length) over the bounding box grown by two cells; each cell
/// lists the triangles whose bounding box, grown by one cell, it overlaps.
void build_search_grid(TriangleMesh& mesh, double cell_size = 0.0);

}  // namespace fem
