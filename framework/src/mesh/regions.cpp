#include "fem/mesh/regions.hpp"

#include <algorithm>
#include <array>
#include <utility>
#include <vector>

namespace fem {

namespace {

/// The cell's node ids, sorted: the same for a cell however its nodes are listed.
std::vector<std::int32_t> sorted_nodes(const CellRegion& r, std::int64_t c) {
  std::vector<std::int32_t> nodes(r.connectivity.begin() + c * r.nodes_per_cell,
                                  r.connectivity.begin() + (c + 1) * r.nodes_per_cell);
  std::sort(nodes.begin(), nodes.end());
  return nodes;
}

std::uint64_t hash_of(const std::vector<std::int32_t>& nodes) {
  std::uint64_t h = 1469598103934665603ull;
  for (const std::int32_t n : nodes) {
    h ^= static_cast<std::uint32_t>(n);
    h *= 1099511628211ull;
    h ^= h >> 29;
  }
  return h;
}

}  // namespace

std::int64_t shared_cells(const CellRegion& a, const CellRegion& b) {
  if (a.shape != b.shape || a.nodes_per_cell != b.nodes_per_cell) return 0;
  std::vector<std::pair<std::uint64_t, std::int64_t>> keys;  // (hash, cell of a)
  keys.reserve(static_cast<std::size_t>(a.num_cells()));
  for (std::int64_t c = 0; c < a.num_cells(); ++c)
    keys.emplace_back(hash_of(sorted_nodes(a, c)), c);
  std::sort(keys.begin(), keys.end());
  std::int64_t shared = 0;
  for (std::int64_t c = 0; c < b.num_cells(); ++c) {
    const std::vector<std::int32_t> nodes = sorted_nodes(b, c);
    const std::uint64_t h = hash_of(nodes);
    // Equal hashes are compared node by node: a collision must not count.
    for (auto it = std::lower_bound(keys.begin(), keys.end(), std::make_pair(h, std::int64_t{0}));
         it != keys.end() && it->first == h; ++it)
      if (sorted_nodes(a, it->second) == nodes) {
        ++shared;
        break;
      }
  }
  return shared;
}

}  // namespace fem
