// Pressure on element faces: a surface load p(t) normal to the faces of a node set's part of the
// mesh boundary, pushing into the body (positive p compresses, as in Abaqus and CalculiX).
//
// The consistent nodal forces of a face are f_a = -p * integral of N_a n dA, n the outward unit
// normal, integrated by quadrature over the face's own shape functions (2-node edges of plane
// cells, per unit thickness; 3- and 6-node triangles; 4- and 8-node quadrilaterals). A dead
// pressure acts on the reference surface and is computed once into the per-dof loads; a follower
// pressure acts on the deformed surface X + u (its direction and area change with the body) and
// is evaluated from the current displacement by the solver that supports it (the implicit ones).
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace fem {

/// The nodes of one face, corners first (counter-clockwise seen from outside; a plane cell's
/// edge with the cell on its left), then the mid-edge nodes of a quadratic face (VTK order).
struct PressureFace {
  std::array<std::int32_t, 8> nodes = {};
  std::int32_t num_nodes = 0;  ///< 2 (edge), 3, 4, 6 or 8
};

/// One `loads:` entry with a pressure: its faces and its curve.
struct PressureSurface {
  std::string set;  ///< the node set that names the faces (messages, logs)
  std::vector<PressureFace> faces;
  double pressure = 0.0;        ///< Pa, times the amplitude's scale
  std::int32_t amplitude = -1;  ///< index into System::amplitudes
  bool follower = false;
};

/// Adds the nodal forces of `pressure` on every face of `surface` to `forces` (3 per node),
/// on the faces at `coordinates` (3 per node) plus `displacement` (3 per node; null: the
/// reference surface).
void add_pressure_forces(const PressureSurface& surface, double pressure,
                         const std::vector<double>& coordinates, const double* displacement,
                         std::vector<double>& forces);

/// Calls add(row, col, value) for the entries of the load stiffness K_p = -d(forces)/du of
/// `pressure` on the faces at `coordinates` + `displacement` (dofs 3 per node; not symmetric:
/// the caller symmetrises it or not). Zero for a dead pressure, which does not depend on u.
void add_pressure_stiffness(const PressureSurface& surface, double pressure,
                            const std::vector<double>& coordinates, const double* displacement,
                            const std::function<void(std::int64_t, std::int64_t, double)>& add);

/// The area of the faces at `coordinates` (+ `displacement`, may be null), m^2 (plane cells' edges:
/// m per unit thickness).
double pressure_surface_area(const PressureSurface& surface, const std::vector<double>& coordinates,
                             const double* displacement);

}  // namespace fem
