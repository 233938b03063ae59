// Rigid contact surfaces as a backend receives them: an analytic plane or sphere, or a
// triangulated surface with a uniform bucket grid for the closest-point search.
//
// Contact is frictionless, finite sliding, node to surface, and enforced as in seed 003 (section
// 3.6): after the node update, a contact node that has penetrated the surface is moved to the
// closest point of the surface. Only the normal part of its motion changes; the tangential part is
// kept (no friction). The correction d, seen as a force d / a_n (a_n = force_scale / m_n, the
// node-update coefficient), is the contact force the surface exerts on the node.
//
// The surface may translate rigidly: offset(t) = translation * amplitude(t) at the end of the step.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "fem/config.hpp"

namespace fem {

/// At most this many surfaces: the per-node membership is one byte.
inline constexpr int kMaxSurfaces = 8;

enum class SurfaceKind : int { Plane = 0, Sphere = 1, Triangles = 2 };

/// A triangulated surface prepared for the search: merged vertices, outward normals (face,
/// edge and vertex angle-weighted pseudo-normals, which give the right inside/outside sign at
/// edges and corners too), and a uniform grid whose cells list the triangles whose bounding box
/// (grown by one cell) they overlap. Flat arrays, so that a device can hold a copy.
struct TriangleMesh {
  std::vector<double> vertices;         ///< [v][3]
  std::vector<std::int32_t> triangles;  ///< [t][3] vertex ids
  std::vector<double> face_normals;     ///< [t][3] unit
  std::vector<double> edge_normals;     ///< [t][edge][3], edge e from vertex e to e+1
  std::vector<double> vertex_normals;   ///< [v][3]
  double grid_origin[3] = {0, 0, 0};
  double cell_size = 0.0;
  std::int32_t grid_dims[3] = {0, 0, 0};
  std::vector<std::int32_t> cell_offsets;    ///< cells + 1
  std::vector<std::int32_t> cell_triangles;  ///< triangle ids per cell
};

struct RigidSurface {
  std::string name;
  SurfaceKind kind = SurfaceKind::Plane;
  double point[3] = {0, 0, 0};   ///< plane point, sphere centre
  double normal[3] = {0, 0, 1};  ///< plane: unit normal towards the side the body stays on
  double radius = 0.0;           ///< sphere
  /// Sphere and triangles: +1 the body stays outside the closed surface, -1 inside.
  int side = 1;
  double translation[3] = {0, 0, 0};  ///< rigid motion: offset(t) = translation * amplitude(t)
  std::int32_t amplitude = -1;        ///< -1: fixed
  TriangleMesh mesh;                  ///< Triangles
};

namespace contact {

/// A view of a TriangleMesh in a backend's memory and precision.
template <class T>
struct TriangleView {
  const T* vertices;
  const std::int32_t* triangles;
  const T* face_normals;
  const T* edge_normals;
  const T* vertex_normals;
  T origin[3];
  T cell_size;
  std::int32_t dims[3];
  const std::int32_t* cell_offsets;
  const std::int32_t* cell_triangles;
};

/// A surface in a backend's precision, with the view of its triangles (if any).
template <class T>
struct SurfaceView {
  int kind;
  T point[3];
  T normal[3];
  T radius;
  int side;
  T translation[3];
  std::int32_t amplitude;
  TriangleView<T> mesh;
};

template <class T>
FEM_INLINE T dot3(const T* a, const T* b) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/// Closest point to p on triangle (a, b, c) (Ericson, Real-Time Collision Detection, 5.1.5).
/// `region` says what it lies on: 0-2 vertex a/b/c, 3-5 edge ab/bc/ca, 6 the face.
template <class T>
FEM_INLINE void closest_on_triangle(const T* p, const T* a, const T* b, const T* c, T* out,
                                    int& region) {
  T ab[3], ac[3], ap[3];
  for (int i = 0; i < 3; ++i) {
    ab[i] = b[i] - a[i];
    ac[i] = c[i] - a[i];
    ap[i] = p[i] - a[i];
  }
  const T d1 = dot3(ab, ap), d2 = dot3(ac, ap);
  if (d1 <= T(0) && d2 <= T(0)) {
    for (int i = 0; i < 3; ++i) out[i] = a[i];
    region = 0;
    return;
  }
  T bp[3];
  for (int i = 0; i < 3; ++i) bp[i] = p[i] - b[i];
  const T d3 = dot3(ab, bp), d4 = dot3(ac, bp);
  if (d3 >= T(0) && d4 <= d3) {
    for (int i = 0; i < 3; ++i) out[i] = b[i];
    region = 1;
    return;
  }
  const T vc = d1 * d4 - d3 * d2;
  if (vc <= T(0) && d1 >= T(0) && d3 <= T(0)) {
    const T v = d1 / (d1 - d3);
    for (int i = 0; i < 3; ++i) out[i] = a[i] + v * ab[i];
    region = 3;
    return;
  }
  T cp[3];
  for (int i = 0; i < 3; ++i) cp[i] = p[i] - c[i];
  const T d5 = dot3(ab, cp), d6 = dot3(ac, cp);
  if (d6 >= T(0) && d5 <= d6) {
    for (int i = 0; i < 3; ++i) out[i] = c[i];
    region = 2;
    return;
  }
  const T vb = d5 * d2 - d1 * d6;
  if (vb <= T(0) && d2 >= T(0) && d6 <= T(0)) {
    const T w = d2 / (d2 - d6);
    for (int i = 0; i < 3; ++i) out[i] = a[i] + w * ac[i];
    region = 5;
    return;
  }
  const T va = d3 * d6 - d5 * d4;
  if (va <= T(0) && (d4 - d3) >= T(0) && (d5 - d6) >= T(0)) {
    const T w = (d4 - d3) / ((d4 - d3) + (d5 - d6));
    for (int i = 0; i < 3; ++i) out[i] = b[i] + w * (c[i] - b[i]);
    region = 4;
    return;
  }
  const T denom = T(1) / (va + vb + vc);
  const T v = vb * denom, w = vc * denom;
  for (int i = 0; i < 3; ++i) out[i] = a[i] + ab[i] * v + ac[i] * w;
  region = 6;
}

/// Closest point `best` of the triangulated surface to x among the triangles listed in x's grid
/// cell, and the outward pseudo-normal there (`normal`, unit: face, edge or vertex normal by where
/// the point lies). A cell lists every triangle within one cell size of it, so the answer is exact
/// for points closer than that to the surface; for points farther away (or outside the grid)
/// there is none and the function returns false.
template <class T>
FEM_INLINE bool closest_on_triangles(const TriangleView<T>& m, const T* x, T* best,
                                     const T*& normal) {
  std::int64_t c = 0;
  for (int i = 2; i >= 0; --i) {
    const T f = (x[i] - m.origin[i]) / m.cell_size;
    if (!(f >= T(0)) || f >= static_cast<T>(m.dims[i])) return false;
    c = c * m.dims[i] + static_cast<int>(f);
  }
  T best_d2 = m.cell_size * m.cell_size;
  int best_tri = -1, best_region = 6;
  for (std::int32_t j = m.cell_offsets[c]; j < m.cell_offsets[c + 1]; ++j) {
    const std::int32_t t = m.cell_triangles[j];
    const std::int32_t* v = m.triangles + 3 * t;
    T q[3];
    int region = 6;
    closest_on_triangle(x, m.vertices + 3 * v[0], m.vertices + 3 * v[1], m.vertices + 3 * v[2], q,
                        region);
    const T d2 = (x[0] - q[0]) * (x[0] - q[0]) + (x[1] - q[1]) * (x[1] - q[1]) +
                 (x[2] - q[2]) * (x[2] - q[2]);
    if (d2 < best_d2) {
      best_d2 = d2;
      best_tri = t;
      best_region = region;
      for (int i = 0; i < 3; ++i) best[i] = q[i];
    }
  }
  if (best_tri < 0) return false;
  if (best_region < 3)
    normal = m.vertex_normals + 3 * m.triangles[3 * best_tri + best_region];
  else if (best_region < 6)
    normal = m.edge_normals + 9 * best_tri + 3 * (best_region - 3);
  else
    normal = m.face_normals + 3 * best_tri;
  return true;
}

/// Moves x to the closest point of the triangulated surface if it is on the wrong side (see
/// closest_on_triangles). Returns whether it moved.
template <class T>
FEM_INLINE bool project_triangles(const TriangleView<T>& m, int side, T* x) {
  T best[3] = {0, 0, 0};
  const T* n = nullptr;
  if (!closest_on_triangles(m, x, best, n)) return false;
  const T d[3] = {x[0] - best[0], x[1] - best[1], x[2] - best[2]};
  // side +1: the body stays outside (d . n >= 0); -1: inside (d . n <= 0).
  if (static_cast<T>(side) * dot3(d, n) >= T(0)) return false;
  for (int i = 0; i < 3; ++i) x[i] = best[i];
  return true;
}

/// The signed gap of x (already shifted by minus the surface offset) to the surface: positive on
/// the side the body stays on, negative inside, and the unit normal pointing to the allowed side
/// (the direction a contact force pushes). False where the surface is out of reach (a
/// triangulated surface farther than one grid cell; the centre of a sphere).
template <class T>
FEM_INLINE bool signed_gap(const SurfaceView<T>& s, const T* x, T& gap, T* normal) {
  using std::sqrt;
  if (s.kind == static_cast<int>(SurfaceKind::Plane)) {
    const T d[3] = {x[0] - s.point[0], x[1] - s.point[1], x[2] - s.point[2]};
    gap = dot3(d, s.normal);
    for (int i = 0; i < 3; ++i) normal[i] = s.normal[i];
    return true;
  }
  if (s.kind == static_cast<int>(SurfaceKind::Sphere)) {
    const T d[3] = {x[0] - s.point[0], x[1] - s.point[1], x[2] - s.point[2]};
    const T r = sqrt(dot3(d, d));
    if (!(r > T(0))) return false;
    const T sign = static_cast<T>(s.side);
    gap = sign * (r - s.radius);
    for (int i = 0; i < 3; ++i) normal[i] = sign * d[i] / r;
    return true;
  }
  T best[3] = {0, 0, 0};
  const T* n = nullptr;
  if (!closest_on_triangles(s.mesh, x, best, n)) return false;
  const T d[3] = {x[0] - best[0], x[1] - best[1], x[2] - best[2]};
  const T sign = static_cast<T>(s.side) * dot3(d, n) >= T(0) ? T(1) : T(-1);
  const T length = sqrt(dot3(d, d));
  gap = sign * length;
  for (int i = 0; i < 3; ++i)
    normal[i] = length > T(0) ? sign * d[i] / length : static_cast<T>(s.side) * n[i];
  return true;
}

/// Moves x (current position, already shifted by minus the surface offset) to the surface if
/// it has penetrated. Returns whether it moved.
template <class T>
FEM_INLINE bool project(const SurfaceView<T>& s, T* x) {
  if (s.kind == static_cast<int>(SurfaceKind::Plane)) {
    const T d[3] = {x[0] - s.point[0], x[1] - s.point[1], x[2] - s.point[2]};
    const T g = dot3(d, s.normal);
    if (g >= T(0)) return false;
    for (int i = 0; i < 3; ++i) x[i] -= g * s.normal[i];
    return true;
  }
  if (s.kind == static_cast<int>(SurfaceKind::Sphere)) {
    const T d[3] = {x[0] - s.point[0], x[1] - s.point[1], x[2] - s.point[2]};
    const T r2 = dot3(d, d);
    const bool penetrated = s.side > 0 ? r2 < s.radius * s.radius : r2 > s.radius * s.radius;
    if (!penetrated || !(r2 > T(0))) return false;
    using std::sqrt;
    const T scale = s.radius / sqrt(r2);
    for (int i = 0; i < 3; ++i) x[i] = s.point[i] + scale * d[i];
    return true;
  }
  return project_triangles(s.mesh, s.side, x);
}

/// The contact correction of one node against one surface after its update: next (u(n+1), 3
/// values) is moved to the surface if the node has penetrated it. `amplitude` is the surface's
/// motion curve at the end of the step. Returns whether it moved, and by how much in `moved`.
template <class T>
FEM_INLINE bool correct_node(const SurfaceView<T>& surf, T amplitude, const T* X, T* next,
                             T* moved) {
  const T a = surf.amplitude >= 0 ? amplitude : T(0);
  T offset[3], x[3];
  for (int i = 0; i < 3; ++i) {
    offset[i] = surf.translation[i] * a;
    x[i] = X[i] + next[i] - offset[i];
  }
  if (!project(surf, x)) return false;
  for (int i = 0; i < 3; ++i) {
    const T u = x[i] + offset[i] - X[i];
    moved[i] = u - next[i];
    next[i] = u;
  }
  return true;
}

}  // namespace contact
}  // namespace fem
