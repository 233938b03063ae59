// Mesh files: Gmsh .msh (2.2 and 4.1, ASCII and binary), Abaqus .inp, VTK .vtu / .vtk.
//
// Every reader gives the same Mesh: nodes in the file's order with dense 0-based ids (nodes that
// no volume cell uses are dropped), cells in VTK node order grouped into regions named after the
// file's groups (Gmsh physical groups, Abaqus element sets, VTK region arrays), and the file's
// node sets (Gmsh physical groups of surfaces, curves and points, Abaqus node sets, VTK node-set
// arrays). A group with cells of several shapes becomes one region per shape, '<name>/<shape>';
// cells of no group form the region 'domain'. docs/case-reference.md lists the conventions.
// Every problem with the file is an InputError at file:line (binary data: the section's line and
// the byte offset).
#pragma once

#include <string>

#include "fem/mesh.hpp"

namespace fem {

/// Reads a mesh file, choosing the format by extension (.msh, .inp, .vtu, .vtk).
Mesh read_mesh(const std::string& path);

Mesh read_gmsh(const std::string& path);
Mesh read_abaqus(const std::string& path);
/// .vtu (XML) or legacy .vtk, through the VTK library; without VTK an InputError says so.
Mesh read_vtk_mesh(const std::string& path);

/// "'.msh' (Gmsh), ..." for messages.
const char* mesh_file_formats();

}  // namespace fem
