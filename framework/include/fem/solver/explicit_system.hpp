// Turns a Model into the arrays an explicit backend runs on: reference geometry per quadrature
// point, hourglass data, lumped masses, the critical time step, node-to-slot incidence and the
// boundary conditions as per-dof arrays.
#pragma once

#include <cstdint>
#include <string>

#include "fem/backend.hpp"
#include "fem/model.hpp"

namespace fem {

struct ExplicitSetup {
  ExplicitSystem system;
  double critical_time_step = 0.0;     ///< min over elements of L_e / c_e
  std::int64_t critical_element = -1;  ///< global id of the element that sets it
  std::int64_t num_steps = 0;          ///< end_time / time_step
  double total_mass = 0.0;
  double total_volume = 0.0;
  std::vector<std::string> warnings;
};

/// Precomputes everything in double precision. Inverted or degenerate elements, conflicting
/// boundary conditions and similar problems are InputErrors naming the element or node id.
ExplicitSetup setup_explicit(const Model& model);

}  // namespace fem
