// Elements are data. An element plugin describes its reference cell, quadrature and tabulated
// shape functions; the formulation family it names is implemented once per backend.
#pragma once

#include <cstdint>

namespace fem {

/// How a backend turns an element's data into nodal forces. A new family is a framework change;
/// a new element of an existing family is a plugin.
enum class Family : std::int32_t {
  /// Total Lagrangian isoparametric: F = I + sum_a u_a (dN_a/dX)^T at each quadrature point,
  /// f_a = sum_q w_q det(J_q) P(F_q) dN_a/dX. Any node and quadrature count.
  Isoparametric = 0,
  /// One-point hexahedron (uniform strain at the centroid) plus Flanagan-Belytschko hourglass
  /// control in the total Lagrangian form of Joldes et al. (2008): f_hg = k Y Y^T u.
  Hex8Hourglass = 1,
  /// Linear tetrahedron with averaged nodal pressure: the improved ANP of seed 003 (Joldes,
  /// Wittek & Miller), after Bonet & Burton (1998). Deviatoric stress from the element's own F;
  /// the pressure is the mean of its nodes' pressures, each the reference-volume-weighted mean of
  /// the element pressures around the node over all ANP elements, whatever their material.
  /// 4 nodes, 1 quadrature point; the material must provide a volumetric split.
  AveragedNodalPressureTet = 2,
};

const char* to_string(Family f);

/// Everything the framework needs to know about an element type. All arrays are owned by the
/// plugin and live as long as it is loaded. Node ordering is the element's own; vtk_node_order
/// maps it to VTK's (nullptr = identical).
struct ElementData {
  std::uint32_t struct_size;  ///< sizeof(ElementData) when the plugin was built
  const char* name;
  const char* description;
  Family family;
  std::int32_t cell_shape;  ///< fem::CellShape the element accepts from a mesh
  std::int32_t num_nodes;
  std::int32_t num_quadrature_points;
  std::int32_t vtk_cell_type;
  const double* reference_coords;     ///< num_nodes * 3
  const double* quadrature_points;    ///< num_quadrature_points * 3
  const double* quadrature_weights;   ///< num_quadrature_points
  const double* shape_values;         ///< [q][a]: N_a at quadrature point q
  const double* shape_gradients;      ///< [q][a][k]: dN_a/dxi_k at quadrature point q
  const double* lumped_mass_weights;  ///< fraction of element mass per node, sums to 1
  std::int32_t num_faces;
  const std::int32_t* face_offsets;  ///< num_faces + 1 into face_nodes
  /// Outward-oriented (corners counter-clockwise seen from outside). Quadratic faces (6-node
  /// triangles, 8-node quadrilaterals) list their corners first, then the mid-edge nodes, in
  /// VTK order.
  const std::int32_t* face_nodes;
  std::int32_t num_hourglass_modes;      ///< Hex8Hourglass: 4
  const double* hourglass_base_vectors;  ///< [mode][a]: h vectors of Flanagan-Belytschko
  const std::int32_t* vtk_node_order;    ///< vtk_node_order[i] = element node at VTK position i
  /// Characteristic length from volume and largest face area: length = factor * V / A_max.
  /// 1 for hexahedra (the edge of a cube), 3 for tetrahedra (the smallest altitude).
  double length_factor;
};

}  // namespace fem
