// Structured rectangle of plane cells in the xy-plane (plane strain): quadrilaterals, or each
// split into two triangles along the same diagonal.
#include <cstddef>

#include "generator_parts.hpp"

namespace fem::detail {

Mesh rectangle_mesh(const MeshSpec& spec) {
  const int nx = spec.divisions[0], ny = spec.divisions[1];
  const std::int64_t px = nx + 1;
  const auto id = [px](std::int64_t i, std::int64_t j) {
    return static_cast<std::int32_t>(i + px * j);
  };
  Mesh mesh;
  mesh.coords.resize(static_cast<std::size_t>(3 * px * (ny + 1)));
  for (std::int64_t j = 0; j <= ny; ++j)
    for (std::int64_t i = 0; i <= nx; ++i) {
      const std::int32_t n = id(i, j);
      // size * (i / n), as the box does, so that the far edges lie exactly at origin + size.
      mesh.coords[3 * n] = spec.origin[0] + spec.size[0] * (static_cast<double>(i) / nx);
      mesh.coords[3 * n + 1] = spec.origin[1] + spec.size[1] * (static_cast<double>(j) / ny);
      mesh.coords[3 * n + 2] = spec.origin[2];
    }
  CellRegion region;
  region.name = "domain";
  region.shape = spec.cells;
  region.nodes_per_cell = nodes_per_cell(spec.cells);
  const bool triangles = spec.cells == CellShape::Tri3;
  region.connectivity.reserve(static_cast<std::size_t>(nx) * ny * (triangles ? 6 : 4));
  for (int j = 0; j < ny; ++j)
    for (int i = 0; i < nx; ++i) {
      const std::int32_t a = id(i, j), b = id(i + 1, j), c = id(i + 1, j + 1), d = id(i, j + 1);
      if (triangles)
        region.connectivity.insert(region.connectivity.end(), {a, b, c, a, c, d});
      else
        region.connectivity.insert(region.connectivity.end(), {a, b, c, d});
    }
  mesh.regions.push_back(std::move(region));
  return mesh;
}

}  // namespace fem::detail
