// Each format's parser, filling a MeshBuilder (framework/src/mesh/ only, not installed): the
// Mesh readers finish() it, read_surface_triangles() asks it for a surface.
#pragma once

#include <string>

#include "mesh_builder.hpp"

namespace fem::detail {

MeshBuilder parse_gmsh(const std::string& path);
MeshBuilder parse_abaqus(const std::string& path);
MeshBuilder parse_vtk(const std::string& path);

}  // namespace fem::detail
