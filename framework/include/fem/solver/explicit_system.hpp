// Turns a Model into the arrays an explicit backend runs on: reference geometry per quadrature
// point, hourglass data, lumped masses, the critical time step, node-to-slot incidence and the
// boundary conditions as per-dof arrays.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "fem/backend.hpp"
#include "fem/model.hpp"
#include "fem/signal_table.hpp"

namespace fem {

struct ExplicitSetup {
  System system;
  double critical_time_step = 0.0;     ///< min over elements of L_e / c_e
  std::int64_t critical_element = -1;  ///< global id of the element that sets it
  std::int64_t num_steps = 0;          ///< end_time / time_step
  double total_mass = 0.0;
  double total_volume = 0.0;
  /// Dynamic relaxation: the largest eigenvalue of M^-1 K the fictitious mass allows, and the
  /// first estimate of the lowest (improved while iterating).
  double lambda_max = 0.0;
  double lambda_min = 0.0;
  std::vector<std::string> warnings;
  /// Per entry of system.amplitudes, the sampled signal it was read from (`file:`), null for
  /// the other curves: a solver that evaluates amplitudes on the host (the wave solver) takes
  /// long signals from here, whatever their length.
  std::vector<std::shared_ptr<const SignalTable>> amplitude_tables;
};

/// Dynamic relaxation (seed 003, eqs. 5-6): the damping coefficient c (per unit of the
/// fictitious time) that damps the lowest mode, eigenvalue lambda_min, critically for step h.
double relaxation_damping(double lambda_min, double h);
/// The convergence rate (spectral radius of the error reduction per iteration) of that damping,
/// rho = sqrt(beta) = sqrt((2 - c h) / (2 + c h)).
double relaxation_rate(double damping, double h);

/// Precomputes everything in double precision. Inverted or degenerate elements, conflicting
/// boundary conditions and similar problems are InputErrors naming the element or node id.
ExplicitSetup setup_explicit(const Model& model);

/// Deterministic gather: for each node, the element-node slots that contribute to it, in slot
/// order (System::incidence_offsets/slots from the blocks' connectivity and force offsets).
void build_force_incidence(System& sys);
/// The averaged-nodal-pressure gather: each block's pressure_offset, and for each node its ANP
/// elements (all ANP blocks) and 1 / sum of their reference volumes. Other families neither
/// give nor take.
void build_pressure_incidence(System& sys);

/// Resolves an amplitude name into (curve index, scale of the value) in the system.
using AmplitudeResolver =
    std::function<std::pair<std::int32_t, double>(const std::string&, const SourceLocation&)>;
/// Fills the contact part of the system from the case's `contact:` entries: surfaces (STL files
/// read and bucketed), reference coordinates, contact node masks.
void setup_contact(const Model& model, System& sys, const AmplitudeResolver& amplitude);
/// A face of the mesh boundary (a face that belongs to one element only): its corner nodes in
/// the element's order, counter-clockwise seen from outside.
struct BoundaryFace {
  std::array<std::int32_t, 4> nodes;
  int corners = 0;            ///< 3 or 4 (2: an edge of a plane cell)
  std::int32_t block = -1;    ///< the element it bounds: Model::blocks index, element in the block,
  std::int64_t element = -1;  ///< and face of ElementData::face_nodes
  int face = -1;
};
std::vector<BoundaryFace> boundary_faces(const Model& model);
/// Of the mesh boundary (boundary_faces(model), computed once for all sets), the faces all of
/// whose nodes (mid-edge nodes of quadratic faces too) belong to `nodes` (any order): the faces a
/// pressure on the set loads, each with all its nodes as the pressure integrates them.
struct FaceInSet {
  BoundaryFace boundary;
  PressureFace face;
};
std::vector<FaceInSet> boundary_faces_in_set(const Model& model,
                                             const std::vector<BoundaryFace>& boundary,
                                             const std::vector<std::int32_t>& nodes);
/// Adds `value` to the load of dof `dof` under amplitude curve `amplitude`: a dof already loaded
/// under another curve is an InputError at `where` that names the node by its label.
void add_dof_load(const Model& model, System& sys, std::int64_t dof, std::int32_t amplitude,
                  double value, const SourceLocation& where);
/// The case's pressure loads: dead ones added to the per-dof loads, follower ones into
/// System::follower_pressures. InputError where a set bounds no face or amplitudes conflict.
void setup_pressures(const Model& model, System& sys, const AmplitudeResolver& amplitude);
/// Nodes on the boundary of the mesh (on a face that belongs to one element only), sorted.
std::vector<std::int32_t> boundary_nodes(const Model& model);

}  // namespace fem
