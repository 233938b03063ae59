// Writes a case's model as an Abaqus input deck (.inp) that CalculiX (ccx) also reads.
//
// Nodes, elements (hex8r -> C3D8R, hex8 -> C3D8, tet4 -> C3D4; VTK and Abaqus share the node
// order of these cells), node sets, one element set per block, materials (neo_hookean ->
// *HYPERELASTIC, NEO HOOKE with C10 = mu/2, D1 = 2/K, the same energy as fem's law;
// linear_elastic -> *ELASTIC, geometrically linear step), density, amplitudes (tabular; a smooth
// step is sampled, because CalculiX has no SMOOTH STEP definition), boundary conditions, nodal
// loads, gravity, initial velocities, one step and *NODE PRINT / *EL PRINT of every history set.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "fem/model.hpp"

namespace fem {

struct AbaqusExportOptions {
  /// static: *STATIC (quasi-static, what CalculiX solves best); dynamic: implicit *DYNAMIC;
  /// explicit: *DYNAMIC, EXPLICIT.
  enum class Step { Static, Dynamic, Explicit } step = Step::Static;
  /// Increments of the step (and print requests): the step is cut into this many equal parts,
  /// so the printed states lie at t = k * end_time / intervals.
  int intervals = 20;
  /// Points per sampled smooth-step amplitude.
  int amplitude_points = 41;
  std::string source;  ///< the command that wrote it, for the heading
};

/// What the writer did beyond a one-to-one translation.
struct AbaqusExportReport {
  std::vector<std::string> notes;
  int held_rigid_body_modes = 0;  ///< static step: free rigid-body motions held by *EQUATION
};

/// Writes the deck. Throws InputError for what has no Abaqus equivalent (an element or material
/// type), naming it and the case location.
AbaqusExportReport write_abaqus_deck(const Model& model, const AbaqusExportOptions& options,
                                     std::ostream& out);

AbaqusExportOptions::Step parse_abaqus_step(const std::string& name);

}  // namespace fem
