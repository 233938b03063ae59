// Each format's parser, filling a MeshBuilder (framework/src/mesh/ only, not installed): the
// Mesh readers finish() it, read_surface_triangles() asks it for a surface.
#pragma once

#include <map>
#include <set>
#include <string>

#include "mesh_builder.hpp"

namespace fem::detail {

class DeckLines;

MeshBuilder parse_gmsh(const std::string& path);
MeshBuilder parse_abaqus(const std::string& path);
/// The same from the bytes of the file `path` names (the fuzzers; messages name `path`). An
/// Abaqus deck's *INCLUDE files are still read from disk, relative to `path`'s folder.
MeshBuilder parse_gmsh_bytes(const std::string& path, std::string bytes);
MeshBuilder parse_abaqus_bytes(const std::string& path, const std::string& bytes);
/// An Abaqus deck's mesh and, per element set, the element types of its cells (upper case,
/// "C3D8R"): what the analysis translator needs to choose each section's element. Reads the
/// deck's lines from where `deck` stands to its end.
struct AbaqusDeckMesh {
  MeshBuilder builder;
  std::map<std::string, std::set<std::string>> set_types;
};
AbaqusDeckMesh parse_abaqus_deck(DeckLines& deck);
MeshBuilder parse_vtk(const std::string& path);

}  // namespace fem::detail
