// Each format's parser, filling a MeshBuilder (framework/src/mesh/ only, not installed): the
// Mesh readers finish() it, read_surface_triangles() asks it for a surface.
#pragma once

#include <string>

#include "mesh_builder.hpp"

namespace fem::detail {

MeshBuilder parse_gmsh(const std::string& path);
MeshBuilder parse_abaqus(const std::string& path);
/// The same from the bytes of the file `path` names (the fuzzers; messages name `path`). An
/// Abaqus deck's *INCLUDE files are still read from disk, relative to `path`'s folder.
MeshBuilder parse_gmsh_bytes(const std::string& path, std::string bytes);
MeshBuilder parse_abaqus_bytes(const std::string& path, const std::string& bytes);
MeshBuilder parse_vtk(const std::string& path);

}  // namespace fem::detail
