// Absorbing layers of the elastodynamic solver: graded mass-proportional damping (seed 002's
// geophysical model, d = d_max (x / L)^3; Rajagopal et al. 2012) and, optionally, a graded
// stiffness reduction (after Pettit et al. 2014), by the depth of each node into a layer along a
// boundary node set.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <functional>
#include <queue>
#include <utility>
#include <vector>

#include "fem/error.hpp"
#include "fem/solver/wave_setup.hpp"

namespace fem {

namespace {

/// Per node, the distance to the nearest node of `seeds`, for nodes within `limit` of one
/// (+inf elsewhere): Dijkstra over the mesh's node graph carrying each node's nearest seed and
/// measuring the straight distance to it (a vector distance transform: exact wherever the
/// nearest seed is reached through nodes nearer to it, which holds in the meshes layers lie in).
std::vector<double> distance_to_set(const Mesh& mesh, const NodeGraph& graph,
                                    const std::vector<std::int32_t>& seeds, double limit) {
  const std::int64_t nn = mesh.num_nodes();
  std::vector<double> distance(static_cast<std::size_t>(nn), INFINITY);
  std::vector<std::int32_t> nearest(static_cast<std::size_t>(nn), -1);
  using Entry = std::pair<double, std::int32_t>;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<>> queue;
  for (const std::int32_t s : seeds) {
    distance[s] = 0.0;
    nearest[s] = s;
    queue.emplace(0.0, s);
  }
  while (!queue.empty()) {
    const auto [d, n] = queue.top();
    queue.pop();
    if (d > distance[n]) continue;
    const std::array<double, 3> seed = mesh.node(nearest[n]);
    for (std::int64_t j = graph.offsets[n]; j < graph.offsets[n + 1]; ++j) {
      const std::int32_t m = graph.neighbours[j];
      const std::array<double, 3> x = mesh.node(m);
      const double dm = std::hypot(x[0] - seed[0], x[1] - seed[1], x[2] - seed[2]);
      if (dm < distance[m] && dm <= limit) {
        distance[m] = dm;
        nearest[m] = nearest[n];
        queue.emplace(dm, m);
      }
    }
  }
  return distance;
}

}  // namespace

AbsorbingProfile absorbing_profile(const Model& model, const NodeGraph& graph) {
  const std::int64_t nn = model.mesh.num_nodes();
  AbsorbingProfile profile;
  profile.damping.assign(static_cast<std::size_t>(nn), 0.0);
  for (const AbsorbingLayerSpec& layer : model.spec.solver.absorbing_layers) {
    const auto set = model.mesh.node_sets.find(layer.set);
    if (set == model.mesh.node_sets.end() || set->second.empty())
      throw InputError(layer.where,
                       "absorbing layer: node set '" + layer.set +
                           "' has no nodes, so the layer lies along nothing",
                       "name the boundary nodes the layer starts from (e.g. a box face set)");
    const std::vector<double> distance =
        distance_to_set(model.mesh, graph, set->second, layer.thickness);
    const bool reduce = layer.stiffness_reduction > 0.0;
    if (reduce && profile.stiffness_scale.empty())
      profile.stiffness_scale.assign(static_cast<std::size_t>(nn), 1.0);
#pragma omp parallel for schedule(static)
    for (std::int64_t n = 0; n < nn; ++n) {
      if (!(distance[n] <= layer.thickness)) continue;
      const double x = std::pow((layer.thickness - distance[n]) / layer.thickness, layer.power);
      profile.damping[n] = std::max(profile.damping[n], layer.max_damping * x);
      if (reduce)
        profile.stiffness_scale[n] =
            std::min(profile.stiffness_scale[n], std::exp(-layer.stiffness_reduction * x));
    }
  }
  return profile;
}

}  // namespace fem
