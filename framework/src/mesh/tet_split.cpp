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

#include "generator_parts.hpp"

namespace fem::detail {

namespace {

// Faces of a VTK hexahedron, counter-clockwise seen from outside.
constexpr int kHexFaces[6][4] = {{0, 3, 2, 1}, {4, 5, 6, 7}, {0, 1, 5, 4},
                                 {3, 7, 6, 2}, {0, 4, 7, 3}, {1, 2, 6, 5}};

}  // namespace

std::vector<std::int32_t> split_hexes_into_tets(const std::vector<std::int32_t>& hexes) {
  std::vector<std::int32_t> tets;
  tets.reserve(hexes.size() / 8 * 24);
  for (std::size_t h = 0; h + 8 <= hexes.size(); h += 8) {
    const std::int32_t* hex = hexes.data() + h;
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
        for (std::int32_t n : {apex, q[tri[0]], q[tri[1]], q[tri[2]]}) tets.push_back(n);
    }
  }
  return tets;
}

}  // namespace fem::detail
