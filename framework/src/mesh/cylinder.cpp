// O-grid ("butterfly") cylinder of hexahedra along z.
//
// A polar grid would collapse its innermost cells into wedges at the axis; an O-grid avoids
// that. The cross-section is a square core of m x m cells (m = circumferential_divisions / 4)
// surrounded by a ring of radial_divisions layers. The core's boundary nodes are placed at equal
// polar angles (so along a side they are spaced like tan), and every ring node lies on the ray
// through its core boundary node, spaced evenly out to the circle. Ring edges are therefore
// radial, core cells are rectangles, and the worst angle (where the ring meets a core corner) is
// 135 degrees: scaled Jacobian ~0.7 for any resolution.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <numbers>

#include "generator_parts.hpp"

namespace fem::detail {

namespace {

/// Half-width of the core square. Chosen so the core's cells are about as large as the ring's
/// radial steps (2a/m ~ (R - 1.2 a)/n_r, 1.2 averaging the side-middle and corner ring depths),
/// then kept between 0.2 R and 0.5 R so neither the core nor the ring gets squeezed.
double core_half_width(double radius, int m, int radial) {
  const double a = radius / (2.0 * radial / m + 1.2);
  return std::clamp(a, 0.2 * radius, 0.5 * radius);
}

}  // namespace

HexGrid cylinder_hexes(const MeshSpec& spec) {
  const int m = spec.circumferential_divisions / 4;
  const int nc = spec.circumferential_divisions;
  const int nr = spec.radial_divisions;
  const int na = spec.axial_divisions;
  const double radius = spec.radius;
  const double a = core_half_width(radius, m, nr);

  // Core node coordinates along one axis, a * tan(angle): equal polar angles on the core's
  // boundary. Mirrored so that the core is exactly symmetric (tan(pi/4) is not exactly 1).
  std::vector<double> t(static_cast<std::size_t>(m) + 1);
  for (int i = 0; 2 * i <= m; ++i) {
    const double angle = -std::numbers::pi / 4 + std::numbers::pi / 2 * i / m;
    t[i] = i == 0 ? -1.0 : (2 * i == m ? 0.0 : std::tan(angle));
    t[m - i] = -t[i];
  }

  const std::int64_t core_nodes = static_cast<std::int64_t>(m + 1) * (m + 1);
  const std::int64_t per_level = core_nodes + static_cast<std::int64_t>(nr) * nc;
  const auto core_node = [&](int i, int j) { return static_cast<std::int64_t>(j) * (m + 1) + i; };
  // Ring node on layer l (0 = the core's boundary) at boundary position k, counter-clockwise
  // from the core corner (a, -a).
  const auto ring_node = [&](int l, int k) -> std::int64_t {
    k %= nc;
    if (l > 0) return core_nodes + static_cast<std::int64_t>(l - 1) * nc + k;
    if (k < m) return core_node(m, k);
    if (k < 2 * m) return core_node(2 * m - k, m);
    if (k < 3 * m) return core_node(0, 3 * m - k);
    return core_node(k - 3 * m, 0);
  };

  // One cross-section (x, y relative to the axis), then extruded.
  std::vector<double> section(static_cast<std::size_t>(2 * per_level));
  for (int j = 0; j <= m; ++j)
    for (int i = 0; i <= m; ++i) {
      const std::int64_t n = core_node(i, j);
      section[2 * n] = a * t[i];
      section[2 * n + 1] = a * t[j];
    }
  for (int k = 0; k < nc; ++k) {
    const std::int64_t inner = ring_node(0, k);
    const double px = section[2 * inner], py = section[2 * inner + 1];
    const double r0 = std::hypot(px, py);
    for (int l = 1; l <= nr; ++l) {
      // The last layer is set to the radius itself so lateral nodes lie on the circle.
      const double r = l == nr ? radius : r0 + (radius - r0) * l / nr;
      const std::int64_t n = ring_node(l, k);
      section[2 * n] = px / r0 * r;
      section[2 * n + 1] = py / r0 * r;
    }
  }

  HexGrid g;
  const std::int64_t levels = na + 1;
  g.coords.resize(static_cast<std::size_t>(3 * levels * per_level));
  g.on_boundary.assign(static_cast<std::size_t>(levels * per_level), 0);
  for (std::int64_t z = 0; z < levels; ++z) {
    const double zc = spec.origin[2] + spec.height * (static_cast<double>(z) / na);
    for (std::int64_t s = 0; s < per_level; ++s) {
      const std::int64_t n = z * per_level + s;
      g.coords[3 * n] = spec.origin[0] + section[2 * s];
      g.coords[3 * n + 1] = spec.origin[1] + section[2 * s + 1];
      g.coords[3 * n + 2] = zc;
      g.on_boundary[n] =
          z == 0 || z == na || s >= core_nodes + static_cast<std::int64_t>(nr - 1) * nc;
    }
  }

  // Cross-section quads, counter-clockwise seen from +z so the extruded hexahedra are positive.
  std::vector<std::array<std::int64_t, 4>> quads;
  quads.reserve(static_cast<std::size_t>(m * m + nr * nc));
  for (int j = 0; j < m; ++j)
    for (int i = 0; i < m; ++i)
      quads.push_back(
          {core_node(i, j), core_node(i + 1, j), core_node(i + 1, j + 1), core_node(i, j + 1)});
  for (int l = 0; l < nr; ++l)
    for (int k = 0; k < nc; ++k)
      quads.push_back(
          {ring_node(l, k), ring_node(l + 1, k), ring_node(l + 1, k + 1), ring_node(l, k + 1)});

  g.hexes.reserve(quads.size() * 8 * static_cast<std::size_t>(na));
  for (std::int64_t z = 0; z < na; ++z)
    for (const auto& q : quads) {
      for (std::int64_t n : q) g.hexes.push_back(static_cast<std::int32_t>(z * per_level + n));
      for (std::int64_t n : q)
        g.hexes.push_back(static_cast<std::int32_t>((z + 1) * per_level + n));
    }
  return g;
}

}  // namespace fem::detail
