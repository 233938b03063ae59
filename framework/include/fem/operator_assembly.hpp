// Host-side pieces of assembling an operator's tangent, shared by the backends and the probing
// defaults of fem/operator.hpp: the sparsity of the tangent, the scatter of element matrices
// with prescribed dofs eliminated, and the coupling that averaged nodal pressure adds.
#pragma once

#include <cstdint>
#include <vector>

#include "fem/backend.hpp"
#include "fem/operator.hpp"

namespace fem {

/// Nodes the tangent couples, per node, sorted, the node itself included: nodes that share an
/// element, and for nodes of averaged-nodal-pressure elements the nodes two elements away
/// (a nodal pressure averages the elements around its node).
struct NodeGraph {
  std::vector<std::int64_t> offsets;  ///< num_nodes + 1
  std::vector<std::int32_t> neighbours;
  /// Index of `col` among the neighbours of `row` (col must be one).
  [[nodiscard]] std::int64_t position(std::int32_t row, std::int32_t col) const;
  /// How many edges the tangent spans: 1, or 2 with averaged nodal pressure.
  int radius = 1;
};
NodeGraph tangent_graph(const System& system);

/// The dof-wise CSR pattern of a tangent on `graph` (3x3 node blocks expanded), values zero.
CsrMatrix tangent_matrix_pattern(const System& system, const NodeGraph& graph);

/// Adds scale * the element matrices of block b ([e][a][b][3][3], element_matrix's layout) into
/// `a`, skipping rows and columns of prescribed dofs.
template <class T>
void add_element_matrices(const System& system, const NodeGraph& graph, const BlockSystem& block,
                          const T* matrices, double scale, CsrMatrix& a);

/// Averaged nodal pressure: adds scale * sum_k a_k b_k^T / (4 V_k) (kernels::pressure_coupling,
/// `coupling` [ANP element][13]) into `a`, skipping prescribed rows and columns.
void add_pressure_coupling(const System& system, const NodeGraph& graph,
                           const std::vector<double>& coupling, double scale, CsrMatrix& a);
/// The same for the 3x3 node blocks only ([node][9]), prescribed rows and columns skipped.
void add_pressure_coupling_blocks(const System& system, const std::vector<double>& coupling,
                                  double scale, std::vector<double>& blocks);

/// Identity rows and columns at prescribed dofs, and mass_shift * the lumped mass on the
/// diagonal of free ones.
void finish_tangent_matrix(const System& system, const NodeGraph& graph, double mass_shift,
                           CsrMatrix& a);

}  // namespace fem
