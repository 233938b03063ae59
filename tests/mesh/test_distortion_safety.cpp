// White-box test of the distortion's safety net. Below the generator's limit (0.3) the moves are
// small enough that cells never invert in practice, so generate_mesh cannot reach the code that
// shortens inverting moves; this drives the internal function with moves far beyond the limit.
#include <gtest/gtest.h>

#include "../../framework/src/mesh/generator_parts.hpp"

namespace fem {
namespace {

CellRegion region_of(CellShape shape, const std::vector<std::int32_t>& hexes) {
  CellRegion r;
  r.shape = shape;
  r.nodes_per_cell = nodes_per_cell(shape);
  r.connectivity = shape == CellShape::Tet4 ? detail::split_hexes_into_tets(hexes) : hexes;
  return r;
}

std::int64_t invalid_cells(const std::vector<double>& coords, const CellRegion& r) {
  std::int64_t bad = 0;
  for (std::int64_t c = 0; c < r.num_cells(); ++c) bad += !detail::cell_is_valid(coords, r, c);
  return bad;
}

// (UncheckedLargeMovesWouldInvertCells shows that these moves, unchecked, do invert cells.)
TEST(DistortionSafety, InvertingMovesAreShortened) {
  MeshSpec s;
  s.divisions = {5, 5, 5};
  for (CellShape shape : {CellShape::Hex8, CellShape::Tet4})
    for (double fraction : {1.0, 2.0}) {
      const detail::HexGrid g = detail::box_hexes(s);
      const CellRegion r = region_of(shape, g.hexes);

      std::vector<double> x = g.coords;
      detail::distort_interior_nodes(x, g.on_boundary, g.hexes, r, fraction, 3);
      EXPECT_EQ(invalid_cells(x, r), 0) << to_string(shape) << " " << fraction;
      int moved = 0, interior = 0;
      for (std::size_t n = 0; n < g.on_boundary.size(); ++n) {
        const bool same = x[3 * n] == g.coords[3 * n] && x[3 * n + 1] == g.coords[3 * n + 1] &&
                          x[3 * n + 2] == g.coords[3 * n + 2];
        if (g.on_boundary[n]) {
          EXPECT_TRUE(same) << "boundary node " << n;
        } else {
          ++interior;
          moved += !same;
        }
      }
      EXPECT_GT(moved, interior / 2);
    }
}

TEST(DistortionSafety, UncheckedLargeMovesWouldInvertCells) {
  // Guards the test above: the same moves without the net do invert cells. Emulated by
  // distorting with a single-cell region (the net then only watches that cell) and checking all.
  MeshSpec s;
  s.divisions = {5, 5, 5};
  const detail::HexGrid g = detail::box_hexes(s);
  const CellRegion all = region_of(CellShape::Tet4, g.hexes);
  CellRegion first = all;
  first.connectivity.resize(4);
  std::vector<double> x = g.coords;
  detail::distort_interior_nodes(x, g.on_boundary, g.hexes, first, 2.0, 3);
  EXPECT_GT(invalid_cells(x, all), 0);
}

}  // namespace
}  // namespace fem
