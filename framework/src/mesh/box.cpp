// Structured box of hexahedra.
#include <algorithm>
#include <cstddef>

#include "../core/host_loops.hpp"
#include "generator_parts.hpp"

namespace fem::detail {

HexGrid box_hexes(const MeshSpec& spec) {
  const int nx = spec.divisions[0], ny = spec.divisions[1], nz = spec.divisions[2];
  const std::int64_t px = nx + 1, py = ny + 1, pz = nz + 1;
  const auto id = [&](std::int64_t i, std::int64_t j, std::int64_t k) {
    return static_cast<std::int32_t>(i + px * (j + py * k));
  };

  HexGrid g;
  // Every node and cell is written where its indices put it, so the loops run on every core
  // (at 73 M tetrahedra one thread spent seconds here) and give the same mesh on any count.
  g.coords.resize(static_cast<std::size_t>(3 * px * py * pz));
  g.on_boundary.resize(static_cast<std::size_t>(px * py * pz));
#pragma omp parallel for schedule(static) if (px * py * pz >= kParallelHostLoopMinimum)
  for (std::int64_t k = 0; k < pz; ++k)
    for (std::int64_t j = 0; j < py; ++j)
      for (std::int64_t i = 0; i < px; ++i) {
        const std::int32_t n = id(i, j, k);
        // size * (i / n) rather than accumulated steps: i / n is exactly 1 on the far face, so
        // that face lies exactly at origin + size, where plane selectors look for it.
        g.coords[3 * n] = spec.origin[0] + spec.size[0] * (static_cast<double>(i) / nx);
        g.coords[3 * n + 1] = spec.origin[1] + spec.size[1] * (static_cast<double>(j) / ny);
        g.coords[3 * n + 2] = spec.origin[2] + spec.size[2] * (static_cast<double>(k) / nz);
        g.on_boundary[n] = i == 0 || i == nx || j == 0 || j == ny || k == 0 || k == nz;
      }

  g.hexes.resize(static_cast<std::size_t>(8) * nx * ny * nz);
  const std::int64_t rows = static_cast<std::int64_t>(ny) * nz;
#pragma omp parallel for schedule(static) if (rows * nx >= kParallelHostLoopMinimum)
  for (std::int64_t row = 0; row < rows; ++row) {
    const std::int64_t j = row % ny, k = row / ny;
    std::int32_t* hex = g.hexes.data() + 8 * row * nx;
    for (std::int64_t i = 0; i < nx; ++i, hex += 8) {
      const std::int32_t corners[8] = {
          id(i, j, k),     id(i + 1, j, k),     id(i + 1, j + 1, k),     id(i, j + 1, k),
          id(i, j, k + 1), id(i + 1, j, k + 1), id(i + 1, j + 1, k + 1), id(i, j + 1, k + 1)};
      std::copy_n(corners, 8, hex);
    }
  }
  return g;
}

}  // namespace fem::detail
