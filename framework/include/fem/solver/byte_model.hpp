// The byte model of one explicit step: the least memory traffic an element-step needs, from which
// `fem bench` reports effective bandwidth (bytes per element-step x element-steps per second).
//
// Counted once per step: each element's own data (connectivity, reference shape gradients,
// quadrature volumes, hourglass projections and stiffness, material state read and written),
// and each node's displacement gathered by the element pass (3 values) plus the node pass's
// u(n) and u(n-1) read, u(n+1) written and mass coefficient (10 values). Layout-dependent traffic
// (per-slot element forces, the node-to-slot incidence, boundary-condition arrays, cache misses)
// is left out, so the figure is a floor on real traffic: docs/performance.md compares it with the
// full count of the CUDA backend's layout.
#pragma once

#include "fem/backend.hpp"
#include "fem/config.hpp"

namespace fem {

struct ByteModel {
  double element_bytes = 0.0;  ///< element data, summed over all elements of all blocks
  double node_bytes = 0.0;     ///< node data, summed over all nodes
  std::int64_t num_elements = 0;
  /// Minimal bytes moved per element-step (element and node traffic spread over the elements).
  [[nodiscard]] double per_element_step() const {
    return num_elements > 0 ? (element_bytes + node_bytes) / static_cast<double>(num_elements)
                            : 0.0;
  }
};

/// The byte model of a system run in the given precision.
ByteModel minimal_step_bytes(const System& system, Precision precision);

}  // namespace fem
