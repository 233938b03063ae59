// Geometry and topology checks for generated meshes, computed independently of the generator
// (trilinear shape functions, not the generator's own corner tables).
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <map>
#include <vector>

#include <Eigen/Dense>

#include <fem/mesh.hpp>

namespace fem::test {

using Vec3 = Eigen::Vector3d;

inline Vec3 point(const Mesh& mesh, std::int32_t n) {
  return {mesh.coords[3 * n], mesh.coords[3 * n + 1], mesh.coords[3 * n + 2]};
}

/// Reference coordinates of the VTK hexahedron's nodes.
inline constexpr int kHexRef[8][3] = {{-1, -1, -1}, {1, -1, -1}, {1, 1, -1}, {-1, 1, -1},
                                      {-1, -1, 1},  {1, -1, 1},  {1, 1, 1},  {-1, 1, 1}};

/// dx/dxi of the trilinear map at reference point xi.
inline Eigen::Matrix3d hex_jacobian(const Mesh& mesh, const std::int32_t* hex, const Vec3& xi) {
  Eigen::Matrix3d j = Eigen::Matrix3d::Zero();
  for (int a = 0; a < 8; ++a) {
    const double r[3] = {static_cast<double>(kHexRef[a][0]), static_cast<double>(kHexRef[a][1]),
                         static_cast<double>(kHexRef[a][2])};
    const Vec3 dn(r[0] * (1 + xi[1] * r[1]) * (1 + xi[2] * r[2]) / 8,
                  r[1] * (1 + xi[0] * r[0]) * (1 + xi[2] * r[2]) / 8,
                  r[2] * (1 + xi[0] * r[0]) * (1 + xi[1] * r[1]) / 8);
    j += point(mesh, hex[a]) * dn.transpose();
  }
  return j;
}

/// Smallest scaled Jacobian (det J / product of column lengths) over the 8 corners; negative or
/// zero when the cell is inverted or degenerate at some corner.
inline double hex_min_scaled_jacobian(const Mesh& mesh, const std::int32_t* hex) {
  double q = 1.0;
  for (const auto& corner : kHexRef) {
    const Eigen::Matrix3d j = hex_jacobian(mesh, hex, Vec3(corner[0], corner[1], corner[2]));
    q = std::min(q, j.determinant() / (j.col(0).norm() * j.col(1).norm() * j.col(2).norm()));
  }
  return q;
}

/// Exact volume of a trilinear hexahedron (det J is at most quadratic per direction, so 2x2x2
/// Gauss points integrate it exactly).
inline double hex_volume(const Mesh& mesh, const std::int32_t* hex) {
  const double g = 1 / std::sqrt(3.0);
  double v = 0;
  for (int i = 0; i < 8; ++i)
    v += hex_jacobian(mesh, hex, Vec3(kHexRef[i][0] * g, kHexRef[i][1] * g, kHexRef[i][2] * g))
             .determinant();
  return v;
}

inline double tet_volume(const Mesh& mesh, const std::int32_t* tet) {
  const Vec3 x0 = point(mesh, tet[0]);
  Eigen::Matrix3d m;
  m << point(mesh, tet[1]) - x0, point(mesh, tet[2]) - x0, point(mesh, tet[3]) - x0;
  return m.determinant() / 6;
}

inline double total_volume(const Mesh& mesh) {
  double v = 0;
  for (const CellRegion& r : mesh.regions)
    for (std::int64_t c = 0; c < r.num_cells(); ++c) {
      const std::int32_t* cell = r.connectivity.data() + c * r.nodes_per_cell;
      v += r.shape == CellShape::Tet4 ? tet_volume(mesh, cell) : hex_volume(mesh, cell);
    }
  return v;
}

/// How many cells use each face (faces keyed by their sorted node ids).
template <std::size_t N>
using FaceCount = std::map<std::array<std::int32_t, N>, int>;

inline FaceCount<3> tet_faces(const CellRegion& r) {
  FaceCount<3> faces;
  constexpr int kFaces[4][3] = {{0, 1, 2}, {0, 1, 3}, {1, 2, 3}, {0, 2, 3}};
  for (std::int64_t c = 0; c < r.num_cells(); ++c)
    for (const auto& f : kFaces) {
      std::array<std::int32_t, 3> key;
      for (int i = 0; i < 3; ++i) key[i] = r.connectivity[c * 4 + f[i]];
      std::sort(key.begin(), key.end());
      ++faces[key];
    }
  return faces;
}

inline FaceCount<4> hex_faces(const CellRegion& r) {
  FaceCount<4> faces;
  constexpr int kFaces[6][4] = {{0, 3, 2, 1}, {4, 5, 6, 7}, {0, 1, 5, 4},
                                {3, 7, 6, 2}, {0, 4, 7, 3}, {1, 2, 6, 5}};
  for (std::int64_t c = 0; c < r.num_cells(); ++c)
    for (const auto& f : kFaces) {
      std::array<std::int32_t, 4> key;
      for (int i = 0; i < 4; ++i) key[i] = r.connectivity[c * 8 + f[i]];
      std::sort(key.begin(), key.end());
      ++faces[key];
    }
  return faces;
}

}  // namespace fem::test
