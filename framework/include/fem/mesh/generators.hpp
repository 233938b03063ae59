// Built-in mesh generators (box and cylinder: hexahedra or tetrahedra; rectangle: plane cells).
#pragma once

#include "fem/case.hpp"
#include "fem/mesh.hpp"

namespace fem {

/// Builds the mesh a MeshSpec describes: one region named "domain" (or, for a mesh file, a copy
/// of the mesh read with the case). Throws InputError (at spec.where) for impossible parameters.
/// Node and cell numbering are deterministic.
Mesh generate_mesh(const MeshSpec& spec);

}  // namespace fem
