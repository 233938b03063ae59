#include "fem/voxel/voxel_hierarchy.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <unordered_map>

#include "fem/error.hpp"
#include "fem/kernels/voxel_kernels.hpp"

namespace fem::voxel {
namespace {

using kernels::voxel::kCorners;
using kernels::voxel::kSlots;

std::uint64_t key(const Lattice& p) {
  // 21 bits an axis, offset by one so that a neighbour at -1 has a key too.
  constexpr std::uint64_t mask = (1u << 21) - 1;
  return (static_cast<std::uint64_t>(p[0] + 1) & mask) |
         ((static_cast<std::uint64_t>(p[1] + 1) & mask) << 21) |
         ((static_cast<std::uint64_t>(p[2] + 1) & mask) << 42);
}

int colour(const Lattice& p) {
  return (p[0] & 1) + 2 * (p[1] & 1) + 4 * (p[2] & 1);
}

/// A level's vertices from their lattice points: ordered by colour, then z, y, x; colours
/// aligned; the 27 neighbours of each. Returns the lookup from lattice key to vertex.
std::unordered_map<std::uint64_t, std::int32_t> number_level(std::vector<Lattice> points,
                                                             VoxelLevel& level) {
  std::sort(points.begin(), points.end(), [](const Lattice& a, const Lattice& b) {
    const int ca = colour(a), cb = colour(b);
    if (ca != cb) return ca < cb;
    return std::tie(a[2], a[1], a[0]) < std::tie(b[2], b[1], b[0]);
  });
  points.erase(std::unique(points.begin(), points.end()), points.end());
  level.real_vertices = static_cast<std::int64_t>(points.size());
  level.lattice.clear();
  level.padding.clear();
  std::size_t next = 0;
  for (int c = 0; c < kColours; ++c) {
    level.colour_start[c] = static_cast<std::int64_t>(level.lattice.size());
    while (next < points.size() && colour(points[next]) == c) {
      level.lattice.push_back(points[next++]);
      level.padding.push_back(0);
    }
    while (static_cast<std::int64_t>(level.lattice.size()) % kColourAlignment != 0) {
      level.lattice.push_back({-1, -1, -1});
      level.padding.push_back(1);
    }
  }
  level.colour_start[kColours] = static_cast<std::int64_t>(level.lattice.size());
  level.vertices = level.colour_start[kColours];
  if (level.vertices > std::numeric_limits<std::int32_t>::max())
    throw Error("voxel multigrid: " + std::to_string(level.vertices) +
                " vertices exceed 32-bit indices");
  std::unordered_map<std::uint64_t, std::int32_t> at;
  at.reserve(points.size() * 2);
  for (std::int64_t v = 0; v < level.vertices; ++v)
    if (!level.padding[v]) at.emplace(key(level.lattice[v]), static_cast<std::int32_t>(v));
  level.neighbours.assign(static_cast<std::size_t>(kSlots * level.vertices), -1);
  for (std::int64_t v = 0; v < level.vertices; ++v) {
    if (level.padding[v]) continue;
    for (int s = 0; s < kSlots; ++s) {
      const Lattice& p = level.lattice[v];
      const Lattice q = {p[0] + kernels::voxel::slot_offset(s, 0),
                         p[1] + kernels::voxel::slot_offset(s, 1),
                         p[2] + kernels::voxel::slot_offset(s, 2)};
      const auto it = at.find(key(q));
      if (it != at.end()) level.neighbours[kSlots * v + s] = it->second;
    }
  }
  return at;
}

std::int32_t floor_half(std::int32_t x) {
  return x >= 0 ? x / 2 : -((1 - x) / 2);
}

}  // namespace

VoxelHierarchy build_voxel_hierarchy(const Mesh& mesh, const std::vector<std::int32_t>& cells,
                                     std::int64_t max_coarsest_vertices, int max_levels) {
  VoxelHierarchy h;
  h.elements = static_cast<std::int64_t>(cells.size()) / kCorners;
  if (h.elements == 0) throw Error("voxel multigrid: no voxels");
  // The edge from the first cell, the origin from the lowest node of any cell.
  {
    std::array<double, 3> lo{}, hi{};
    for (int k = 0; k < 3; ++k) {
      lo[k] = std::numeric_limits<double>::infinity();
      hi[k] = -lo[k];
    }
    for (int a = 0; a < kCorners; ++a)
      for (int k = 0; k < 3; ++k) {
        const double x = mesh.coords[3 * static_cast<std::size_t>(cells[a]) + k];
        lo[k] = std::min(lo[k], x);
        hi[k] = std::max(hi[k], x);
      }
    h.edge = hi[0] - lo[0];
    for (int k = 0; k < 3; ++k) h.origin[k] = std::numeric_limits<double>::infinity();
    for (const std::int32_t n : cells)
      for (int k = 0; k < 3; ++k)
        h.origin[k] = std::min(h.origin[k], mesh.coords[3 * static_cast<std::size_t>(n) + k]);
  }
  if (!(h.edge > 0.0)) throw Error("voxel multigrid: cell 0 has no extent");
  const double tolerance = 1e-6;
  std::vector<Lattice> node_lattice(static_cast<std::size_t>(mesh.num_nodes()), {-1, -1, -1});
  std::vector<Lattice> cell_origin(static_cast<std::size_t>(h.elements));
  std::vector<Lattice> fine_points;
  fine_points.reserve(cells.size());
  for (std::int64_t e = 0; e < h.elements; ++e) {
    Lattice lo = {std::numeric_limits<std::int32_t>::max(),
                  std::numeric_limits<std::int32_t>::max(),
                  std::numeric_limits<std::int32_t>::max()};
    std::array<Lattice, kCorners> p{};
    for (int a = 0; a < kCorners; ++a) {
      const std::int32_t n = cells[kCorners * e + a];
      for (int k = 0; k < 3; ++k) {
        const double x = (mesh.coords[3 * static_cast<std::size_t>(n) + k] - h.origin[k]) / h.edge;
        const double r = std::round(x);
        if (!(std::abs(x - r) < tolerance) || r > (1 << 20))
          throw Error("voxel multigrid: cell " + std::to_string(e) + " has node " +
                      std::to_string(n) + " off the lattice of voxels of edge " +
                      std::to_string(h.edge) + " m (cell 0's): the solver needs equal cubes");
        p[a][k] = static_cast<std::int32_t>(r);
        lo[k] = std::min(lo[k], p[a][k]);
      }
    }
    std::uint8_t seen = 0;
    for (int a = 0; a < kCorners; ++a) {
      int corner = 0;
      bool unit = true;
      for (int k = 0; k < 3; ++k) {
        const int d = p[a][k] - lo[k];
        unit = unit && (d == 0 || d == 1);
        corner += (d & 1) << k;
      }
      if (!unit || ((seen >> corner) & 1))
        throw Error("voxel multigrid: cell " + std::to_string(e) +
                    " is not an axis-aligned cube of edge " + std::to_string(h.edge) + " m");
      seen = static_cast<std::uint8_t>(seen | (1u << corner));
      node_lattice[static_cast<std::size_t>(cells[kCorners * e + a])] = p[a];
      fine_points.push_back(p[a]);
    }
    cell_origin[e] = lo;
  }

  // Levels: the fine one from the cells' nodes, then agglomeration.
  std::vector<std::vector<Lattice>> level_cells = {cell_origin};
  h.levels.emplace_back();
  std::vector<std::unordered_map<std::uint64_t, std::int32_t>> lookup;
  lookup.push_back(number_level(fine_points, h.levels[0]));
  while (static_cast<int>(h.levels.size()) < max_levels &&
         h.levels.back().real_vertices > max_coarsest_vertices) {
    std::vector<Lattice> coarse_cells;
    coarse_cells.reserve(level_cells.back().size() / 4 + 1);
    for (const Lattice& c : level_cells.back())
      coarse_cells.push_back({floor_half(c[0]), floor_half(c[1]), floor_half(c[2])});
    std::sort(coarse_cells.begin(), coarse_cells.end());
    coarse_cells.erase(std::unique(coarse_cells.begin(), coarse_cells.end()), coarse_cells.end());
    std::vector<Lattice> points;
    points.reserve(coarse_cells.size() * kCorners);
    for (const Lattice& c : coarse_cells)
      for (int a = 0; a < kCorners; ++a)
        points.push_back({c[0] + kernels::voxel::corner_offset(a, 0),
                          c[1] + kernels::voxel::corner_offset(a, 1),
                          c[2] + kernels::voxel::corner_offset(a, 2)});
    VoxelLevel coarse;
    auto coarse_lookup = number_level(points, coarse);
    if (coarse.real_vertices >= h.levels.back().real_vertices) break;  // no longer shrinking
    level_cells.push_back(std::move(coarse_cells));
    h.levels.push_back(std::move(coarse));
    lookup.push_back(std::move(coarse_lookup));
  }

  // Transfers between consecutive levels.
  for (std::size_t l = 1; l < h.levels.size(); ++l) {
    VoxelLevel& fine = h.levels[l - 1];
    VoxelLevel& coarse = h.levels[l];
    coarse.children.assign(static_cast<std::size_t>(kSlots * coarse.vertices), -1);
    for (std::int64_t x = 0; x < coarse.vertices; ++x) {
      if (coarse.padding[x]) continue;
      for (int k = 0; k < kSlots; ++k) {
        const Lattice& p = coarse.lattice[x];
        const Lattice q = {2 * p[0] + kernels::voxel::slot_offset(k, 0),
                           2 * p[1] + kernels::voxel::slot_offset(k, 1),
                           2 * p[2] + kernels::voxel::slot_offset(k, 2)};
        const auto it = lookup[l - 1].find(key(q));
        if (it != lookup[l - 1].end()) coarse.children[kSlots * x + k] = it->second;
      }
    }
    fine.parents.assign(static_cast<std::size_t>(kCorners * fine.vertices), -1);
    for (std::int64_t v = 0; v < fine.vertices; ++v) {
      if (fine.padding[v]) continue;
      const Lattice& p = fine.lattice[v];
      int count = 0;
      for (int a = 0; a < kCorners; ++a) {
        Lattice q{};
        bool valid = true;
        for (int k = 0; k < 3; ++k) {
          const int bit = kernels::voxel::corner_offset(a, k);
          if (p[k] % 2 == 0) {
            valid = valid && bit == 0;
            q[k] = p[k] / 2;
          } else {
            q[k] = floor_half(p[k]) + bit;
          }
        }
        if (!valid) continue;
        const auto it = lookup[l].find(key(q));
        if (it == lookup[l].end())
          throw Error("voxel multigrid: a coarse vertex is missing (solver bug)");
        fine.parents[kCorners * v + count++] = it->second;
      }
    }
  }

  // The fine level's element and node maps.
  const VoxelLevel& fine = h.levels[0];
  h.vertex_node.assign(static_cast<std::size_t>(fine.vertices), -1);
  h.node_vertex.assign(static_cast<std::size_t>(mesh.num_nodes()), -1);
  for (std::int32_t n = 0; n < mesh.num_nodes(); ++n) {
    if (node_lattice[n][0] < 0) continue;
    const std::int32_t v = lookup[0].at(key(node_lattice[n]));
    if (h.vertex_node[v] >= 0)
      throw Error("voxel multigrid: nodes " + std::to_string(h.vertex_node[v]) + " and " +
                  std::to_string(n) +
                  " are at the same place; merge duplicate nodes so that voxels share them");
    h.vertex_node[v] = n;
    h.node_vertex[n] = v;
  }
  h.element_vertices.resize(cells.size());
  h.vertex_elements.assign(static_cast<std::size_t>(kCorners * fine.vertices), -1);
  for (std::int64_t e = 0; e < h.elements; ++e)
    for (int a = 0; a < kCorners; ++a) {
      const std::int32_t v = h.node_vertex[cells[kCorners * e + a]];
      const Lattice& p = fine.lattice[v];
      int corner = 0;
      for (int k = 0; k < 3; ++k) corner += (p[k] - cell_origin[e][k]) << k;
      h.element_vertices[kCorners * e + corner] = v;
      h.vertex_elements[kCorners * v + corner] = static_cast<std::int32_t>(e);
    }
  return h;
}

std::vector<std::vector<std::uint8_t>> level_masks(const VoxelHierarchy& h,
                                                   const std::vector<std::uint8_t>& fine_fixed) {
  std::vector<std::vector<std::uint8_t>> masks(h.levels.size());
  masks[0] = fine_fixed;
  masks[0].resize(static_cast<std::size_t>(h.levels[0].vertices), 0);
  for (std::int64_t v = 0; v < h.levels[0].vertices; ++v)
    if (h.levels[0].padding[v]) masks[0][v] = 7;
  for (std::size_t l = 1; l < h.levels.size(); ++l) {
    const VoxelLevel& level = h.levels[l];
    masks[l].assign(static_cast<std::size_t>(level.vertices), 7);
    for (std::int64_t x = 0; x < level.vertices; ++x) {
      if (level.padding[x]) continue;
      int free_dofs = 0;
      for (int k = 0; k < kSlots; ++k) {
        const std::int32_t c = level.children[kSlots * x + k];
        if (c >= 0) free_dofs |= ~masks[l - 1][c] & 7;
      }
      masks[l][x] = static_cast<std::uint8_t>(~free_dofs & 7);
    }
  }
  return masks;
}

}  // namespace fem::voxel
