// Absorbing layers of the elastodynamic solver: graded mass-proportional damping (seed 002's
// geophysical model, d = d_max (x / L)^3; Rajagopal et al. 2012), by the depth of each node into
// a layer along a boundary node set.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "fem/error.hpp"
#include "fem/solver/wave_setup.hpp"

namespace fem {

namespace {

/// The set's nodes bucketed on a grid of cell `size`: the nodes within `size` of a point are in
/// the 27 cells around it.
class NodeBuckets {
 public:
  NodeBuckets(const Mesh& mesh, const std::vector<std::int32_t>& nodes, double size)
      : mesh_(mesh), size_(size) {
    for (const std::int32_t n : nodes) cells_[key(cell(mesh.node(n)))].push_back(n);
  }

  /// Distance from p to the nearest bucketed node, or +inf beyond `size`.
  [[nodiscard]] double nearest(const std::array<double, 3>& p) const {
    const std::array<std::int64_t, 3> c = cell(p);
    double best = INFINITY;
    for (int dx = -1; dx <= 1; ++dx)
      for (int dy = -1; dy <= 1; ++dy)
        for (int dz = -1; dz <= 1; ++dz) {
          const auto it = cells_.find(key({c[0] + dx, c[1] + dy, c[2] + dz}));
          if (it == cells_.end()) continue;
          for (const std::int32_t n : it->second) {
            const std::array<double, 3> q = mesh_.node(n);
            best = std::min(best, std::hypot(p[0] - q[0], p[1] - q[1], p[2] - q[2]));
          }
        }
    return best <= size_ ? best : INFINITY;
  }

 private:
  [[nodiscard]] std::array<std::int64_t, 3> cell(const std::array<double, 3>& p) const {
    return {static_cast<std::int64_t>(std::floor(p[0] / size_)),
            static_cast<std::int64_t>(std::floor(p[1] / size_)),
            static_cast<std::int64_t>(std::floor(p[2] / size_))};
  }
  static std::uint64_t key(const std::array<std::int64_t, 3>& c) {
    // 21 bits per axis: enough for 2 million cells a side.
    const auto bits = [](std::int64_t v) { return static_cast<std::uint64_t>(v) & 0x1fffffull; };
    return bits(c[0]) | bits(c[1]) << 21 | bits(c[2]) << 42;
  }

  const Mesh& mesh_;
  double size_;
  std::unordered_map<std::uint64_t, std::vector<std::int32_t>> cells_;
};

}  // namespace

std::vector<double> absorbing_damping(const Model& model) {
  const std::int64_t nn = model.mesh.num_nodes();
  std::vector<double> damping(static_cast<std::size_t>(nn), 0.0);
  for (const AbsorbingLayerSpec& layer : model.spec.solver.absorbing_layers) {
    const auto set = model.mesh.node_sets.find(layer.set);
    if (set == model.mesh.node_sets.end() || set->second.empty())
      throw InputError(layer.where,
                       "absorbing layer: node set '" + layer.set +
                           "' has no nodes, so the layer lies along nothing",
                       "name the boundary nodes the layer starts from (e.g. a box face set)");
    const NodeBuckets buckets(model.mesh, set->second, layer.thickness);
#pragma omp parallel for schedule(static)
    for (std::int64_t n = 0; n < nn; ++n) {
      const double distance = buckets.nearest(model.mesh.node(n));
      if (!(distance <= layer.thickness)) continue;
      const double depth = (layer.thickness - distance) / layer.thickness;
      damping[n] = std::max(damping[n], layer.max_damping * std::pow(depth, layer.power));
    }
  }
  return damping;
}

}  // namespace fem
