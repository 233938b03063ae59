#include "fem/solver/byte_model.hpp"

namespace fem {

ByteModel minimal_step_bytes(const System& system, Precision precision) {
  const double real = precision == Precision::Single ? 4.0 : 8.0;
  ByteModel m;
  for (const BlockSystem& b : system.blocks) {
    const double npe = b.nodes_per_element, nq = b.quadrature_points;
    const double state = b.material ? b.material->host.num_state : 0;
    double per_element = 4.0 * npe                   // connectivity (int32)
                         + real * nq * npe * 3       // dN/dX
                         + real * nq                 // w det J
                         + 2.0 * real * nq * state;  // material state read and written
    if (b.family == Family::Hex8Hourglass) per_element += real * (12 + 1);  // h.X_j, k
    m.element_bytes += per_element * static_cast<double>(b.num_elements);
    m.num_elements += b.num_elements;
  }
  // Gathered u (3) + node pass: u(n), u(n-1) read, u(n+1) written (9) + mass coefficient (1).
  m.node_bytes = real * 13.0 * static_cast<double>(system.num_nodes);
  return m;
}

}  // namespace fem
