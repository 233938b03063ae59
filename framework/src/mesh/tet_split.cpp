// Conforming split of hexahedra into tetrahedra.
//
// Two hexahedra that share a face must cut it along the same diagonal, or the tetrahedral mesh
// has cracks. Splitting every hexahedron the same way relative to its local node 0 only works
// when all cells are oriented alike (a structured box); the O-grid cylinder is not. The rule here
// depends on global node ids only, so both neighbours of a face decide alike:
//
//   * every quadrilateral face is cut along the diagonal through its smallest global node id;
//   * the hexahedron is "pulled" from its smallest node v: each triangle of the three faces that
//     do not contain v is joined to v.
//
// The faces that contain v are cut through v by the first rule (v is their smallest node), which
// is exactly how the cones from v meet them, so the split agrees with the face rule on all six
// faces. Pulling from a vertex triangulates any convex hexahedron, always into 6 tetrahedra. On a
// box numbered x fastest, v is local node 0 and the three far faces are all cut through node 6:
// the classic Kuhn (Freudenthal) split along the main diagonal 0-6.
#include <algorithm>
#include <array>
#include <cstddef>
#include <span>
#include <unordered_map>

#include "../core/host_loops.hpp"
#include "generator_parts.hpp"

namespace fem::detail {

namespace {

// Faces of a VTK hexahedron, counter-clockwise seen from outside.
constexpr int kHexFaces[6][4] = {{0, 3, 2, 1}, {4, 5, 6, 7}, {0, 1, 5, 4},
                                 {3, 7, 6, 2}, {0, 4, 7, 3}, {1, 2, 6, 5}};

}  // namespace

std::vector<std::int32_t> split_hexes_into_tets(const std::vector<std::int32_t>& hexes) {
  // Every hexahedron gives exactly 6 tetrahedra (24 ids), so each one's place is known and the
  // hexahedra split on every core, in the same order as one thread would.
  const auto num_hexes = static_cast<std::int64_t>(hexes.size() / 8);
  std::vector<std::int32_t> tets(static_cast<std::size_t>(num_hexes) * 24);
#pragma omp parallel for schedule(static) if (num_hexes >= kParallelHostLoopMinimum)
  for (std::int64_t h = 0; h < num_hexes; ++h) {
    const std::int32_t* hex = hexes.data() + 8 * h;
    std::int32_t* out = tets.data() + 24 * h;
    const std::int32_t apex = *std::min_element(hex, hex + 8);
    for (const auto& face : kHexFaces) {
      const std::int32_t q[4] = {hex[face[0]], hex[face[1]], hex[face[2]], hex[face[3]]};
      if (std::find(q, q + 4, apex) != q + 4) continue;
      const auto smallest = static_cast<int>(std::min_element(q, q + 4) - q);
      // Start the fan at the smallest corner (or its opposite: same diagonal).
      const int s = smallest % 2;
      // Triangles keep the face's outward counter-clockwise order; with the apex inside the
      // cell, (apex, a, b, c) then has positive volume.
      const std::array<int, 3> fan[2] = {{s, s + 1, s + 2}, {s, s + 2, (s + 3) % 4}};
      for (const auto& tri : fan)
        for (std::int32_t n : {apex, q[tri[0]], q[tri[1]], q[tri[2]]}) *out++ = n;
    }
  }
  return tets;
}

std::vector<std::int32_t> add_mid_edge_nodes(std::vector<double>& coords,
                                             const std::vector<std::int32_t>& cells,
                                             CellShape quadratic) {
  // Edges in the VTK order of the mid-edge nodes: VTK_QUADRATIC_TETRA's 4..9 and
  // VTK_QUADRATIC_HEXAHEDRON's 8..19.
  constexpr int kTetEdges[6][2] = {{0, 1}, {1, 2}, {2, 0}, {0, 3}, {1, 3}, {2, 3}};
  constexpr int kHexEdges[12][2] = {{0, 1}, {1, 2}, {2, 3}, {3, 0}, {4, 5}, {5, 6},
                                    {6, 7}, {7, 4}, {0, 4}, {1, 5}, {2, 6}, {3, 7}};
  const bool hex = quadratic == CellShape::Hex20;
  const std::span<const int[2]> edges =
      hex ? std::span<const int[2]>(kHexEdges) : std::span<const int[2]>(kTetEdges);
  const std::size_t corners = hex ? 8 : 4;
  std::unordered_map<std::uint64_t, std::int32_t> mid;  // edge (low id, high id) -> node id
  mid.reserve(cells.size() * 2);
  std::vector<std::int32_t> out;
  out.reserve(cells.size() / corners * (corners + edges.size()));
  for (std::size_t t = 0; t + corners <= cells.size(); t += corners) {
    const std::int32_t* cell = cells.data() + t;
    out.insert(out.end(), cell, cell + corners);
    for (const auto& e : edges) {
      const std::int32_t a = std::min(cell[e[0]], cell[e[1]]), b = std::max(cell[e[0]], cell[e[1]]);
      const std::uint64_t key =
          (static_cast<std::uint64_t>(a) << 32) | static_cast<std::uint32_t>(b);
      const auto [it, inserted] =
          mid.try_emplace(key, static_cast<std::int32_t>(coords.size() / 3));
      if (inserted)
        for (int k = 0; k < 3; ++k) coords.push_back(0.5 * (coords[3 * a + k] + coords[3 * b + k]));
      out.push_back(it->second);
    }
  }
  return out;
}

}  // namespace fem::detail
