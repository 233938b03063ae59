#include "fem/mesh/ordering.hpp"

#include <algorithm>
#include <numeric>
#include <random>
#include <stdexcept>

namespace fem {

NodeOrdering parse_node_ordering(const std::string& name) {
  if (name == "input") return NodeOrdering::Input;
  if (name == "rcm") return NodeOrdering::Rcm;
  if (name == "shuffled") return NodeOrdering::Shuffled;
  throw std::invalid_argument("unknown node ordering '" + name + "'");
}

const char* to_string(NodeOrdering ordering) {
  switch (ordering) {
    case NodeOrdering::Input:
      return "input";
    case NodeOrdering::Rcm:
      return "rcm";
    case NodeOrdering::Shuffled:
      return "shuffled";
  }
  return "?";
}

namespace {

/// Node-to-cell incidence over all regions (CSR); a cell is (region, index).
struct NodeCells {
  std::vector<std::int64_t> offsets;
  std::vector<std::int64_t> cells;  ///< region r's cell c as region_first[r] + c
  std::vector<std::int64_t> region_first;

  explicit NodeCells(const Mesh& mesh)
      : offsets(static_cast<std::size_t>(mesh.num_nodes()) + 1, 0) {
    std::int64_t first = 0;
    for (const CellRegion& r : mesh.regions) {
      region_first.push_back(first);
      first += r.num_cells();
      for (const std::int32_t n : r.connectivity) ++offsets[static_cast<std::size_t>(n) + 1];
    }
    std::partial_sum(offsets.begin(), offsets.end(), offsets.begin());
    cells.resize(static_cast<std::size_t>(offsets.back()));
    std::vector<std::int64_t> fill(offsets.begin(), offsets.end() - 1);
    for (std::size_t ri = 0; ri < mesh.regions.size(); ++ri) {
      const CellRegion& r = mesh.regions[ri];
      for (std::size_t k = 0; k < r.connectivity.size(); ++k)
        cells[static_cast<std::size_t>(fill[r.connectivity[k]]++)] =
            region_first[ri] + static_cast<std::int64_t>(k) / r.nodes_per_cell;
    }
  }
  [[nodiscard]] std::int64_t degree(std::int32_t n) const { return offsets[n + 1] - offsets[n]; }
};

/// Breadth-first traversal from `start` over nodes sharing a cell; neighbours are visited in
/// increasing degree (cells at the node, a cheap stand-in for the graph degree). Appends the
/// visit order to `order` and returns the number of levels.
class Traversal {
 public:
  Traversal(const Mesh& mesh, const NodeCells& incidence)
      : nc_(incidence), mark_(static_cast<std::size_t>(mesh.num_nodes()), -1) {
    for (const CellRegion& r : mesh.regions) region_of_.push_back(&r);
  }

  /// BFS from start with the given stamp; returns levels, fills `order`, `last_level_first`.
  int run(std::int32_t start, int stamp, std::vector<std::int32_t>& order,
          std::size_t& last_level_begin) {
    const std::size_t begin = order.size();
    order.push_back(start);
    mark_[start] = stamp;
    std::size_t level_begin = begin, level_end = order.size();
    int levels = 0;
    std::vector<std::int32_t> next;
    while (level_begin < level_end) {
      ++levels;
      last_level_begin = level_begin;
      for (std::size_t k = level_begin; k < level_end; ++k) {
        next.clear();
        const std::int32_t n = order[k];
        for (std::int64_t j = nc_.offsets[n]; j < nc_.offsets[n + 1]; ++j) {
          const auto [conn, npc] = cell(nc_.cells[j]);
          for (int a = 0; a < npc; ++a)
            if (mark_[conn[a]] != stamp) {
              mark_[conn[a]] = stamp;
              next.push_back(conn[a]);
            }
        }
        std::stable_sort(next.begin(), next.end(), [&](std::int32_t x, std::int32_t y) {
          return nc_.degree(x) < nc_.degree(y);
        });
        order.insert(order.end(), next.begin(), next.end());
      }
      level_begin = level_end;
      level_end = order.size();
    }
    return levels;
  }

 private:
  std::pair<const std::int32_t*, int> cell(std::int64_t global) const {
    std::size_t r = 0;
    while (r + 1 < nc_.region_first.size() && nc_.region_first[r + 1] <= global) ++r;
    const CellRegion& region = *region_of_[r];
    const std::int64_t c = global - nc_.region_first[r];
    return {region.connectivity.data() + c * region.nodes_per_cell, region.nodes_per_cell};
  }

  const NodeCells& nc_;
  std::vector<int> mark_;
  std::vector<const CellRegion*> region_of_;
};

}  // namespace

std::vector<std::int32_t> reverse_cuthill_mckee(const Mesh& mesh) {
  const auto nn = static_cast<std::int32_t>(mesh.num_nodes());
  const NodeCells incidence(mesh);
  Traversal bfs(mesh, incidence);
  std::vector<char> placed(static_cast<std::size_t>(nn), 0);
  std::vector<std::int32_t> order, scratch;
  order.reserve(static_cast<std::size_t>(nn));
  int stamp = 0;
  for (std::int32_t seed = 0; seed < nn; ++seed) {
    if (placed[seed] || incidence.degree(seed) == 0) continue;
    // Pseudo-peripheral start: move to a least-degree node of the last level while that
    // deepens the level structure (George and Liu).
    std::int32_t start = seed;
    std::size_t last = 0;
    scratch.clear();
    int levels = bfs.run(start, ++stamp, scratch, last);
    for (int iteration = 0; iteration < 8; ++iteration) {
      const auto candidate = *std::min_element(scratch.begin() + static_cast<std::ptrdiff_t>(last),
                                               scratch.end(), [&](std::int32_t x, std::int32_t y) {
                                                 return incidence.degree(x) < incidence.degree(y);
                                               });
      std::vector<std::int32_t> trial;
      std::size_t trial_last = 0;
      const int trial_levels = bfs.run(candidate, ++stamp, trial, trial_last);
      if (trial_levels <= levels) break;
      start = candidate;
      levels = trial_levels;
      scratch.swap(trial);
      last = trial_last;
    }
    // The final traversal from `start` is in `scratch` (Cuthill-McKee order of the component).
    for (const std::int32_t n : scratch) placed[n] = 1;
    order.insert(order.end(), scratch.rbegin(), scratch.rend());
  }
  // Reverse per component is the same bandwidth as reversing the whole; nodes in no cell last.
  for (std::int32_t n = 0; n < nn; ++n)
    if (incidence.degree(n) == 0) order.push_back(n);
  return order;
}

std::int64_t node_bandwidth(const Mesh& mesh) {
  std::int64_t width = 0;
  for (const CellRegion& r : mesh.regions)
    for (std::int64_t c = 0; c < r.num_cells(); ++c) {
      const auto first = r.connectivity.begin() + c * r.nodes_per_cell;
      const auto [lo, hi] = std::minmax_element(first, first + r.nodes_per_cell);
      width = std::max<std::int64_t>(width, *hi - *lo);
    }
  return width;
}

void renumber_nodes(Mesh& mesh, const std::vector<std::int32_t>& new_to_old, bool sort_cells) {
  const std::size_t nn = static_cast<std::size_t>(mesh.num_nodes());
  if (new_to_old.size() != nn)
    throw std::invalid_argument("renumber_nodes: wrong permutation size");
  std::vector<std::int32_t> old_to_new(nn, -1);
  for (std::size_t i = 0; i < nn; ++i)
    old_to_new[static_cast<std::size_t>(new_to_old[i])] = static_cast<std::int32_t>(i);
  std::vector<double> coords(mesh.coords.size());
  for (std::size_t i = 0; i < nn; ++i)
    for (int k = 0; k < 3; ++k) coords[3 * i + k] = mesh.coords[3 * new_to_old[i] + k];
  mesh.coords.swap(coords);
  for (auto& [name, nodes] : mesh.node_sets) {
    for (std::int32_t& n : nodes) n = old_to_new[static_cast<std::size_t>(n)];
    std::sort(nodes.begin(), nodes.end());
  }
  // Messages name nodes by their input ids (the case's ids: and the file's order).
  std::vector<std::int32_t> input_ids(nn);
  for (std::size_t i = 0; i < nn; ++i) input_ids[i] = mesh.input_node_id(new_to_old[i]);
  mesh.input_node_ids.swap(input_ids);
  if (mesh.node_labels.size() == nn) {
    std::vector<std::int64_t> labels(nn);
    for (std::size_t i = 0; i < nn; ++i) labels[i] = mesh.node_labels[new_to_old[i]];
    mesh.node_labels.swap(labels);
  } else {
    mesh.node_labels.clear();
  }
  for (CellRegion& r : mesh.regions) {
    const int npc = r.nodes_per_cell;
    for (std::int32_t& n : r.connectivity) n = old_to_new[static_cast<std::size_t>(n)];
    if (!sort_cells) continue;
    std::vector<std::int64_t> cells(static_cast<std::size_t>(r.num_cells()));
    std::vector<std::int32_t> key(cells.size());
    for (std::size_t c = 0; c < cells.size(); ++c) {
      cells[c] = static_cast<std::int64_t>(c);
      const auto first = r.connectivity.begin() + static_cast<std::ptrdiff_t>(c) * npc;
      key[c] = *std::min_element(first, first + npc);
    }
    std::stable_sort(cells.begin(), cells.end(),
                     [&](std::int64_t x, std::int64_t y) { return key[x] < key[y]; });
    std::vector<std::int32_t> conn(r.connectivity.size());
    std::vector<CellOrigin> origins(cells.size());
    for (std::size_t c = 0; c < cells.size(); ++c) {
      std::copy_n(r.connectivity.begin() + cells[c] * npc, npc,
                  conn.begin() + static_cast<std::ptrdiff_t>(c) * npc);
      origins[c] = r.origin(cells[c]);
    }
    r.connectivity.swap(conn);
    r.origins.swap(origins);
  }
}

std::vector<std::int32_t> group_nodes_by_valence(const Mesh& mesh, std::int32_t window,
                                                 std::vector<std::int32_t> order) {
  const std::int64_t nn = mesh.num_nodes();
  // Cells around a node: its row length up to a constant on structured and most unstructured
  // meshes, and one pass over the cells to count.
  std::vector<std::int32_t> cells_at(static_cast<std::size_t>(nn), 0);
  for (const CellRegion& r : mesh.regions)
    for (const std::int32_t n : r.connectivity) ++cells_at[static_cast<std::size_t>(n)];
  if (order.empty()) {
    order.resize(static_cast<std::size_t>(nn));
    std::iota(order.begin(), order.end(), 0);
  }
  for (std::int64_t begin = 0; begin < nn; begin += window) {
    const auto first = order.begin() + begin;
    const auto last = order.begin() + std::min<std::int64_t>(nn, begin + window);
    std::stable_sort(first, last, [&](std::int32_t a, std::int32_t b) {
      return cells_at[static_cast<std::size_t>(a)] < cells_at[static_cast<std::size_t>(b)];
    });
  }
  return order;
}

void apply_node_ordering(Mesh& mesh, NodeOrdering ordering, std::int32_t valence_window) {
  // One permutation, one renumbering: the ordering's, regrouped by valence if asked.
  std::vector<std::int32_t> order;
  switch (ordering) {
    case NodeOrdering::Input:
      break;
    case NodeOrdering::Rcm:
      order = reverse_cuthill_mckee(mesh);
      break;
    case NodeOrdering::Shuffled:
      order.resize(static_cast<std::size_t>(mesh.num_nodes()));
      std::iota(order.begin(), order.end(), 0);
      std::shuffle(order.begin(), order.end(), std::mt19937(12345));
      break;
  }
  if (valence_window > 0) order = group_nodes_by_valence(mesh, valence_window, std::move(order));
  if (!order.empty()) renumber_nodes(mesh, order, ordering != NodeOrdering::Shuffled);
}

}  // namespace fem
