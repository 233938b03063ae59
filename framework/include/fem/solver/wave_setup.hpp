// What the elastodynamic solver (seed 002, docs/waves.md) precomputes once: the materials'
// small-strain stiffness, the assembled stiffness K in node blocks, the stability limit of the
// central difference on M^-1 K, and the per-node damping of absorbing layers.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "fem/backend.hpp"
#include "fem/model.hpp"
#include "fem/operator.hpp"
#include "fem/operator_assembly.hpp"

namespace fem {

/// The material tangent at the reference state, A[3i+J][3k+L] = dP_iJ / dF_kL at F = I: the
/// elasticity tensor of linear waves in a stress-free body (any anisotropy).
using ElasticTangent = std::array<double, 81>;

/// The tangent of a block's material, measured through the backend's own dual-number element
/// matrix on the unit tetrahedron: with nodes 0, e_x, e_y, e_z, the stiffness block of nodes
/// J+1 and L+1 is V A_iJkL (V = 1/6), so no material needs code for the wave solver. Throws
/// InputError (at the block's material) where it is not finite or not positive definite on
/// symmetric strains: such a material has no real wave speed.
ElasticTangent elastic_tangent(Backend& backend, const Model& model, std::size_t block);

/// The P-wave speed along `direction` (unit) and the largest over a set of directions, m/s.
double largest_wave_speed(const ElasticTangent& a, double density);

/// K at u = 0 from the blocks' reference geometry (System::blocks: shape gradients and
/// quadrature volumes) and each block's tangent: K_ab = sum_q V_q G_a^T A G_b, assembled into
/// 3x3 node blocks on `graph` (tangent_graph) in a fixed order (elements coloured so that no two
/// of a colour share a node, colours one after another), so the bits do not depend on the number
/// of threads. `node_scale` (empty: none) scales each element's stiffness by the mean over its
/// nodes (absorbing layers' stiffness reduction).
BlockCsrMatrix assemble_wave_stiffness(const System& sys,
                                       const std::vector<ElasticTangent>& tangents,
                                       const NodeGraph& graph,
                                       const std::vector<double>& node_scale = {});

/// The stability limit of the undamped central difference, dt <= 2 / sqrt(lambda_max) with
/// lambda_max the largest eigenvalue of M^-1 K on the free dofs, estimated by Lanczos on
/// M^-1/2 K M^-1/2 (converges from below to a relative 1e-8), and where it is set: the node with
/// the largest Gershgorin row sum of M^-1 K (the stiffest, lightest spot).
struct StabilityLimit {
  double lambda_max = 0.0;
  double critical_time_step = 0.0;
  std::int32_t node = -1;
  int iterations = 0;
};
/// `free_dof[d]` false at prescribed dofs (their rows and columns are left out).
StabilityLimit stability_limit(const BlockCsrMatrix& k, const std::vector<double>& mass,
                               const std::vector<bool>& free_dof);

/// What the case's absorbing layers (solver.absorbing_layers) do at each node: mass-proportional
/// damping d = d_max X^p (1/s) and, with stiffness_reduction g, a stiffness scale
/// exp(-g X^p) (empty when no layer reduces stiffness); over overlapping layers the largest
/// damping and the smallest scale. X, a node's depth fraction into a layer, comes from its
/// distance to the nearest node of the layer's set, found through `graph`.
struct AbsorbingProfile {
  std::vector<double> damping;
  std::vector<double> stiffness_scale;
};
AbsorbingProfile absorbing_profile(const Model& model, const NodeGraph& graph);

}  // namespace fem
