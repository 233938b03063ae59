// Random perturbation of interior nodes, so that tests see non-affine cells (patch tests on
// regular grids pass for reasons that do not survive real meshes).
#include <algorithm>
#include <cstddef>
#include <limits>
#include <random>

#include "generator_parts.hpp"

namespace fem::detail {

namespace {

/// Uniform in (-1, 1) from exactly one 32-bit draw. std::uniform_real_distribution would do, but
/// its algorithm is implementation-defined; this keeps a seed's mesh the same on every platform.
double symmetric_unit(std::mt19937& gen) {
  return 2.0 * ((static_cast<double>(gen()) + 0.5) / 4294967296.0) - 1.0;
}

/// Cells that would be inverted by the current node positions.
std::vector<std::int64_t> invalid_cells(const std::vector<double>& coords,
                                        const CellRegion& cells) {
  std::vector<std::int64_t> bad;
  for (std::int64_t c = 0; c < cells.num_cells(); ++c)
    if (!cell_is_valid(coords, cells, c)) bad.push_back(c);
  return bad;
}

}  // namespace

void distort_interior_nodes(std::vector<double>& coords,
                            const std::vector<std::uint8_t>& on_boundary,
                            const std::vector<std::int32_t>& hexes, const CellRegion& cells,
                            double fraction, unsigned seed) {
  const std::size_t num_nodes = on_boundary.size();
  // Local size: the smallest height of the hexahedra around the node (the cells that the
  // tetrahedra, if any, were cut from), so a move is small relative to every cell it touches.
  std::vector<double> size(num_nodes, std::numeric_limits<double>::max());
  for (std::size_t h = 0; h + 8 <= hexes.size(); h += 8) {
    const double hh = hex_min_height(coords, hexes.data() + h);
    for (std::size_t i = h; i < h + 8; ++i) size[hexes[i]] = std::min(size[hexes[i]], hh);
  }

  std::mt19937 gen(seed);
  std::vector<double> move(3 * num_nodes, 0.0);
  for (std::size_t n = 0; n < num_nodes; ++n) {
    if (on_boundary[n]) continue;
    // Uniform in the ball by rejection from the cube (accepts ~52%).
    double v[3];
    do {
      for (double& c : v) c = symmetric_unit(gen);
    } while (v[0] * v[0] + v[1] * v[1] + v[2] * v[2] > 1.0);
    for (int k = 0; k < 3; ++k) move[3 * n + k] = fraction * size[n] * v[k];
  }

  const std::vector<double> original = coords;
  const auto apply = [&] {
    for (std::size_t i = 0; i < coords.size(); ++i) coords[i] = original[i] + move[i];
  };
  apply();

  // Several large moves around one cell can still invert it (rare below fraction 0.3, but the
  // generator promises valid cells). Shorten the moves of such cells' nodes until all are valid;
  // after a few halvings give up on those nodes, which restores cells of the valid
  // undistorted mesh, so the loop ends.
  const int nodes_per_cell = cells.nodes_per_cell;
  for (int round = 0;; ++round) {
    const std::vector<std::int64_t> bad = invalid_cells(coords, cells);
    if (bad.empty()) break;
    std::vector<std::uint8_t> touched(num_nodes, 0);
    for (std::int64_t c : bad)
      for (int i = 0; i < nodes_per_cell; ++i)
        touched[cells.connectivity[static_cast<std::size_t>(c * nodes_per_cell + i)]] = 1;
    const double scale = round < 8 ? 0.5 : 0.0;
    for (std::size_t n = 0; n < num_nodes; ++n)
      if (touched[n])
        for (int k = 0; k < 3; ++k) move[3 * n + k] *= scale;
    apply();
  }
}

}  // namespace fem::detail
