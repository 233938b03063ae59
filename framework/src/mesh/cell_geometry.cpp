// Signed volumes and sizes of generated cells, for distortion and its validity check.
#include <algorithm>
#include <cmath>
#include <limits>

#include "generator_parts.hpp"

namespace fem::detail {

namespace {

using Vec = std::array<double, 3>;

Vec diff(const std::vector<double>& x, std::int32_t a, std::int32_t b) {
  return {x[3 * a] - x[3 * b], x[3 * a + 1] - x[3 * b + 1], x[3 * a + 2] - x[3 * b + 2]};
}

Vec cross(const Vec& a, const Vec& b) {
  return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
}

double dot(const Vec& a, const Vec& b) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

double norm(const Vec& a) {
  return std::sqrt(dot(a, a));
}

// Neighbours of each VTK hexahedron corner, ordered so that the three edges are right-handed
// (for the unit cube every corner then gives det = +1).
constexpr int kCornerNeighbours[8][3] = {{1, 3, 4}, {2, 0, 5}, {3, 1, 6}, {0, 2, 7},
                                         {7, 5, 0}, {4, 6, 1}, {5, 7, 2}, {6, 4, 3}};

}  // namespace

double hex_corner_jacobian(const std::vector<double>& coords, const std::int32_t* hex, int corner) {
  const int* n = kCornerNeighbours[corner];
  const std::int32_t c = hex[corner];
  return dot(cross(diff(coords, hex[n[0]], c), diff(coords, hex[n[1]], c)),
             diff(coords, hex[n[2]], c));
}

double tet_volume6(const std::vector<double>& coords, const std::int32_t* tet) {
  return dot(cross(diff(coords, tet[1], tet[0]), diff(coords, tet[2], tet[0])),
             diff(coords, tet[3], tet[0]));
}

double polygon_area2(const std::vector<double>& coords, const std::int32_t* nodes, int count) {
  double a = 0.0;
  for (int i = 0; i < count; ++i) {
    const std::int64_t p = 3 * static_cast<std::int64_t>(nodes[i]);
    const std::int64_t q = 3 * static_cast<std::int64_t>(nodes[(i + 1) % count]);
    a += coords[p] * coords[q + 1] - coords[q] * coords[p + 1];
  }
  return a;
}

double hex_min_height(const std::vector<double>& coords, const std::int32_t* hex) {
  double h = std::numeric_limits<double>::max();
  for (int corner = 0; corner < 8; ++corner) {
    const int* n = kCornerNeighbours[corner];
    const Vec a = diff(coords, hex[n[0]], hex[corner]);
    const Vec b = diff(coords, hex[n[1]], hex[corner]);
    const Vec c = diff(coords, hex[n[2]], hex[corner]);
    // Volume over the largest face area of the parallelepiped is its smallest height.
    const double face = std::max({norm(cross(a, b)), norm(cross(b, c)), norm(cross(c, a))});
    const double volume = dot(cross(a, b), c);
    h = std::min(h, face > 0 ? volume / face : 0.0);
  }
  return std::max(h, 0.0);
}

bool cell_is_valid(const std::vector<double>& coords, const CellRegion& cells, std::int64_t cell) {
  const std::int32_t* nodes = cells.connectivity.data() + cell * cells.nodes_per_cell;
  if (cells.shape == CellShape::Tet4) return tet_volume6(coords, nodes) > 0;
  for (int corner = 0; corner < 8; ++corner)
    if (!(hex_corner_jacobian(coords, nodes, corner) > 0)) return false;
  return true;
}

}  // namespace fem::detail
