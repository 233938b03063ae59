// Mesh files: Gmsh .msh (2.2 and 4.1, ASCII and binary), Abaqus .inp, VTK .vtu / .vtk.
//
// Every reader gives the same Mesh: nodes in the file's order with dense 0-based ids (nodes that
// no cell uses are dropped), cells in VTK node order grouped into regions named after the file's
// groups (Gmsh physical groups, Abaqus element sets, VTK region arrays), and the file's node sets
// (Gmsh physical groups of surfaces, curves and points, Abaqus node sets, VTK node-set arrays). A
// group with cells of several shapes becomes one region per shape, '<name>/<shape>'; cells of no
// group form the region 'domain'.
//
// The cells are the file's solids (tet4, hex8, tet10). A file without solids is a plane mesh
// (Mesh::dimension() 2): its 3-node triangles and 4-node quadrilaterals are the cells (tri3,
// quad4), the groups of surfaces the regions and those of curves and points the node sets. It
// must lie in one plane z = const; cells listed clockwise seen from +z are turned. Next to solids,
// triangles and quadrilaterals are faces, read for node sets and contact surfaces only.
// docs/case-reference.md lists the conventions. Every problem with the file is an InputError at
// file:line (binary data: the section's line and the byte offset).
#pragma once

#include <string>
#include <vector>

#include "fem/mesh.hpp"

namespace fem {

/// Reads a mesh file, choosing the format by extension (.msh, .inp, .vtu, .vtk).
Mesh read_mesh(const std::string& path);

Mesh read_gmsh(const std::string& path);
Mesh read_abaqus(const std::string& path);
/// .vtu (XML) or legacy .vtk, through the VTK library; without VTK an InputError says so.
Mesh read_vtk_mesh(const std::string& path);

/// The faces of a surface group of a mesh file, as triangles (quadrilaterals split in two):
/// [t][3 vertices][x, y, z], in the file's units, for rigid contact surfaces. Groups: Gmsh
/// physical surfaces; Abaqus element sets of triangles and quadrilaterals (S3, CPS4, ...); in a
/// VTK file all triangles and quads form 'surface', and those flagged by a `region:<name>`
/// array '<name>'. The file needs no volume cells. Throws InputError for an unknown group.
std::vector<double> read_surface_triangles(const std::string& path, const std::string& group);

/// "'.msh' (Gmsh), ..." for messages.
const char* mesh_file_formats();

}  // namespace fem
