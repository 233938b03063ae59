// The co-rotated voxel multigrid of seed 004 (Dick, Georgii & Westermann 2011; docs/voxels.md),
// written once for every backend: each function is the work of one element, one vertex or one
// (vertex, stencil slot) pair, and a backend only decides how to run them in parallel
// (fem/voxel/voxel_operator_impl.hpp).
//
// Vertices of a level sit on a lattice; vertex x's equation couples it with the 27 vertices
// x + d, d in {-1, 0, 1}^3, through 3x3 blocks A^x_d (seed eq. 9). Slot s of d is
// (dx + 1) + 3 (dy + 1) + 9 (dz + 1); slot 13 is the vertex itself. Corner p of a voxel is
// a + 2 b + 4 c for its lattice offset (a, b, c) in {0, 1}^3.
//
// Boundary conditions are per dof. A prescribed dof's row is the identity with the prescribed
// value on the right; its column is eliminated from the free rows (moved to the right-hand
// side), so the free part stays symmetric and the coarse operators P^T A P (P: trilinear
// interpolation with rows of prescribed dofs zero) stay symmetric positive definite, which the
// coarsest level's conjugate gradients need. A coarse dof that no free fine dof interpolates
// from is "void": its row is the identity and its right-hand side zero.
#pragma once

#include <cstdint>
#include <type_traits>

#include "fem/config.hpp"

namespace fem::kernels::voxel {

// Full unrolling on a device, where it keeps small arrays indexed by loop counters in
// registers; the host compiler decides for itself.
#if defined(__CUDA_ARCH__)
#define FEM_VOXEL_UNROLL _Pragma("unroll")
#else
#define FEM_VOXEL_UNROLL
#endif

inline constexpr int kSlots = 27;
inline constexpr int kCentre = 13;
inline constexpr int kBlockEntries = 9;
inline constexpr int kRowEntries = kSlots * kBlockEntries;  ///< 243 per vertex
inline constexpr int kCorners = 8;
inline constexpr int kElementDofs = 24;
/// Five Newton iterations of the polar decomposition, as in the seed (section 4.2.1).
inline constexpr int kPolarIterations = 5;

/// The offset along `axis` (-1, 0 or 1) of stencil slot s.
FEM_INLINE int slot_offset(int s, int axis) {
  return (axis == 0 ? s % 3 : axis == 1 ? (s / 3) % 3 : s / 9) - 1;
}
FEM_INLINE int offset_slot(int dx, int dy, int dz) {
  return (dx + 1) + 3 * (dy + 1) + 9 * (dz + 1);
}
/// The lattice offset along `axis` (0 or 1) of voxel corner p.
FEM_INLINE int corner_offset(int p, int axis) {
  return (p >> axis) & 1;
}
/// The trilinear weight of a fine vertex at lattice offset (a, b, c) in {-1, 0, 1}^3 from the
/// coarse vertex it is nearest (seed eq. 10: w_k = (2 - |k1|)(2 - |k2|)(2 - |k3|) / 8).
FEM_INLINE double transfer_weight(int a, int b, int c) {
  return 0.125 * (2 - (a < 0 ? -a : a)) * (2 - (b < 0 ? -b : b)) * (2 - (c < 0 ? -c : c));
}

/// Where entry e (9 slot + 3 row + column) of vertex v's stencil row is stored: vertex-major
/// (the 243 entries of a vertex together: CPU caches) or entry-major (entry e of consecutive
/// vertices together: coalesced on a GPU).
struct StencilLayout {
  std::int64_t vertex_stride = kRowEntries;
  std::int64_t entry_stride = 1;
  [[nodiscard]] FEM_INLINE std::int64_t at(std::int64_t v, int e) const {
    return v * vertex_stride + static_cast<std::int64_t>(e) * entry_stride;
  }
};

/// 3x3 inverse times a vector, x = M^-1 y, by cofactors; the identity where M is singular (a
/// vertex with nothing attached).
template <class T>
FEM_INLINE void solve3(const T (&m)[9], const T (&y)[3], T (&x)[3]) {
  const T c00 = m[4] * m[8] - m[5] * m[7], c01 = m[5] * m[6] - m[3] * m[8],
          c02 = m[3] * m[7] - m[4] * m[6];
  const T det = m[0] * c00 + m[1] * c01 + m[2] * c02;
  if (!(det != T(0))) {
    for (int i = 0; i < 3; ++i) x[i] = y[i];
    return;
  }
  const T inv[9] = {c00, m[2] * m[7] - m[1] * m[8], m[1] * m[5] - m[2] * m[4],
                    c01, m[0] * m[8] - m[2] * m[6], m[2] * m[3] - m[0] * m[5],
                    c02, m[1] * m[6] - m[0] * m[7], m[0] * m[4] - m[1] * m[3]};
  for (int i = 0; i < 3; ++i)
    x[i] = (inv[3 * i] * y[0] + inv[3 * i + 1] * y[1] + inv[3 * i + 2] * y[2]) / det;
}

/// The rotation of the polar decomposition F = R U by Newton's iteration X <- (X + X^-T) / 2
/// from X = F (Higham 1986), `iterations` times. Returns det F; R is meaningful where it is
/// positive.
template <class T>
FEM_INLINE T polar_rotation(const T (&f)[9], T (&r)[9], int iterations = kPolarIterations) {
  for (int i = 0; i < 9; ++i) r[i] = f[i];
  const T det_f = f[0] * (f[4] * f[8] - f[5] * f[7]) - f[1] * (f[3] * f[8] - f[5] * f[6]) +
                  f[2] * (f[3] * f[7] - f[4] * f[6]);
  for (int it = 0; it < iterations; ++it) {
    // X^-T = cof(X) / det X.
    const T cof[9] = {
        r[4] * r[8] - r[5] * r[7], r[5] * r[6] - r[3] * r[8], r[3] * r[7] - r[4] * r[6],
        r[2] * r[7] - r[1] * r[8], r[0] * r[8] - r[2] * r[6], r[1] * r[6] - r[0] * r[7],
        r[1] * r[5] - r[2] * r[4], r[2] * r[3] - r[0] * r[5], r[0] * r[4] - r[1] * r[3]};
    const T det = r[0] * cof[0] + r[1] * cof[1] + r[2] * cof[2];
    if (!(det != T(0))) break;
    for (int i = 0; i < 9; ++i) r[i] = T(0.5) * (r[i] + cof[i] / det);
  }
  return det_f;
}

/// dN_p/dX_k at the centre of a cube of edge h: +-1/(4 h).
template <class T>
FEM_INLINE T centre_gradient(int p, int k, T inverse_edge) {
  return (corner_offset(p, k) ? T(0.25) : T(-0.25)) * inverse_edge;
}

/// g[3 i + k] += the gradient of voxel e's field d (3 per vertex) at its centre, d_i,k.
template <class T>
FEM_INLINE void add_centre_gradient(std::int64_t e, const std::int32_t* element_vertices,
                                    const T* d, T inverse_edge, T (&g)[9]) {
  for (int p = 0; p < kCorners; ++p) {
    const std::int64_t v = element_vertices[kCorners * e + p];
    T grad[3];
    for (int k = 0; k < 3; ++k) grad[k] = centre_gradient(p, k, inverse_edge);
    for (int i = 0; i < 3; ++i)
      for (int k = 0; k < 3; ++k) g[3 * i + k] += d[3 * v + i] * grad[k];
  }
}

/// The rotation of element e from its average deformation gradient (the gradient at the voxel's
/// centre, seed section 4.2.1), written to rotations[9 e ..] (row-major). Returns det F.
template <class T>
FEM_INLINE T element_rotation(std::int64_t e, const std::int32_t* element_vertices, const T* u,
                              T inverse_edge, T* rotations) {
  T f[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  add_centre_gradient(e, element_vertices, u, inverse_edge, f);
  T r[9];
  const T det = polar_rotation(f, r);
  for (int i = 0; i < 9; ++i) rotations[9 * e + i] = r[i];
  return det;
}

/// out = R M R^T for a 3x3 block M (row-major, rows `stride` apart) and a rotation R
/// (row-major): first M R^T, then R times that.
template <class T>
FEM_INLINE void rotated_block(const T* r, const T* m, int stride, T (&out)[9]) {
  T mr[9];
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      mr[3 * i + j] = m[i * stride] * r[3 * j] + m[i * stride + 1] * r[3 * j + 1] +
                      m[i * stride + 2] * r[3 * j + 2];
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      out[3 * i + j] = r[3 * i] * mr[j] + r[3 * i + 1] * mr[3 + j] + r[3 * i + 2] * mr[6 + j];
}

/// Block `slot` of fine vertex v's stiffness row, sum over the voxels at v of R K_pq R^T (seed
/// eq. 4), plus `mass_shift` I on the diagonal block: out = 9 entries, row-major.
/// vertex_elements[8 v + p]: the voxel whose corner p is v (-1: none); stiffness: 24x24 per
/// material, row-major by (3 corner + component). A slot before the centre is the transpose of
/// the neighbour's block toward v (R K_qp R^T), summed in the same order (the voxels by v's
/// corner p, which is their order by the neighbour's corner q = p + const), so that the blocks
/// between two vertices are exact transposes: A_v,v+d = (A_v+d,v)^T to the bit.
template <class T>
FEM_INLINE void fine_block(std::int64_t v, int slot, const std::int32_t* vertex_elements,
                           const std::uint8_t* element_material, const T* rotations,
                           const T* stiffness, T mass_shift, T (&out)[9]) {
  for (int i = 0; i < 9; ++i) out[i] = T(0);
  const int d[3] = {slot_offset(slot, 0), slot_offset(slot, 1), slot_offset(slot, 2)};
  const bool mirrored = slot < kCentre;
  FEM_VOXEL_UNROLL
  for (int p = 0; p < kCorners; ++p) {
    int q = 0;
    bool inside = true;
    for (int k = 0; k < 3; ++k) {
      const int c = corner_offset(p, k) + d[k];
      inside = inside && (c == 0 || c == 1);
      q += c << k;
    }
    if (!inside) continue;
    const std::int64_t e = vertex_elements[kCorners * v + p];
    if (e < 0) continue;
    const T* k =
        stiffness + static_cast<std::int64_t>(element_material[e]) * kElementDofs * kElementDofs;
    T block[9];
    rotated_block(rotations + 9 * e,
                  mirrored ? k + 3 * q * kElementDofs + 3 * p : k + 3 * p * kElementDofs + 3 * q,
                  kElementDofs, block);
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) out[3 * i + j] += block[mirrored ? 3 * j + i : 3 * i + j];
  }
  if (slot == kCentre)
    for (int i = 0; i < 3; ++i) out[4 * i] += mass_shift;
}

/// Corner q of voxel e rotated back: y = R^T (X + u) - X, with X relative to the voxel's centre
/// and u the corner's displacement (none where u is null); r: the voxel's rotation, row-major.
template <class T>
FEM_INLINE void unrotated_displacement(std::int64_t e, int q, const std::int32_t* element_vertices,
                                       const T* r, T edge, const T* u, T (&y)[3]) {
  T x[3];
  for (int k = 0; k < 3; ++k) x[k] = (corner_offset(q, k) ? T(0.5) : T(-0.5)) * edge;
  for (int k = 0; k < 3; ++k) y[k] = r[k] * x[0] + r[3 + k] * x[1] + r[6 + k] * x[2] - x[k];
  if (u) {
    const T* d = u + 3 * static_cast<std::int64_t>(element_vertices[kCorners * e + q]);
    for (int k = 0; k < 3; ++k) y[k] += r[k] * d[0] + r[3 + k] * d[1] + r[6 + k] * d[2];
  }
}

/// The co-rotated force of voxel e at its corner p: R K_p (R^T (X + u) - X), summed over the
/// voxel's corners q, with X relative to the voxel's centre (K does not resist the translation
/// that removes, and single precision keeps its digits on large objects). u: displacements of
/// the voxels' vertices (element_vertices gives voxel e's), or null for R K_p (R^T X - X) alone.
template <class T>
FEM_INLINE void corotated_corner_force(std::int64_t e, int p, const std::int32_t* element_vertices,
                                       const std::uint8_t* element_material, const T* rotations,
                                       const T* stiffness, T edge, const T* u, T (&out)[3]) {
  const T* r = rotations + 9 * e;
  const T* k_p = stiffness +
                 static_cast<std::int64_t>(element_material[e]) * kElementDofs * kElementDofs +
                 3 * p * kElementDofs;
  T z[3] = {0, 0, 0};
  for (int q = 0; q < kCorners; ++q) {
    T y[3];
    unrotated_displacement(e, q, element_vertices, r, edge, u, y);
    for (int i = 0; i < 3; ++i)
      z[i] += k_p[i * kElementDofs + 3 * q] * y[0] + k_p[i * kElementDofs + 3 * q + 1] * y[1] +
              k_p[i * kElementDofs + 3 * q + 2] * y[2];
  }
  for (int i = 0; i < 3; ++i) out[i] = r[3 * i] * z[0] + r[3 * i + 1] * z[1] + r[3 * i + 2] * z[2];
}

/// The force the supports exert on fine vertex v once a step is done: what its equation of
/// motion leaves over,
///   m (a + alpha v) + f_int(u) - f - m g,  f_int: the sum of corotated_corner_force over its
///   voxels,
/// with the step's rotations and end state u, v, a (zero at a free dof, to the solve's
/// tolerance). out: 3 values.
template <class T>
FEM_INLINE void support_force(std::int64_t v, const std::int32_t* vertex_elements,
                              const std::int32_t* element_vertices,
                              const std::uint8_t* element_material, const T* rotations,
                              const T* stiffness, T edge, const T* mass, const T* u, const T* vel,
                              const T* acc, const T* force, T mass_damping, const T (&gravity)[3],
                              T* out) {
  const T m = mass[v];
  for (int i = 0; i < 3; ++i)
    out[i] =
        m * (acc[3 * v + i] + mass_damping * vel[3 * v + i]) - force[3 * v + i] - m * gravity[i];
  for (int p = 0; p < kCorners; ++p) {
    const std::int64_t e = vertex_elements[kCorners * v + p];
    if (e < 0) continue;
    T f[3];
    corotated_corner_force(e, p, element_vertices, element_material, rotations, stiffness, edge, u,
                           f);
    for (int i = 0; i < 3; ++i) out[i] += f[i];
  }
}

/// How many values voxel_results writes per voxel.
inline constexpr int kResultValues = 14;

/// Voxel e's results in the state u, in the co-rotated model's own terms: its rotation R from u
/// (as element_rotation), the small strain of its corners rotated back, d_q = R^T (X_q + u_q) -
/// X_q, at the voxel's centre, eps = sym(grad d), the Cauchy stress R (C : eps) R^T (C: the
/// material's small-strain tangent, 81 values, tangent[9 (3 i + j) + 3 k + l]) and the strain
/// energy d^T K d / 2 (K: the voxel stiffness the solver uses, 2 x 2 x 2 points). out[0..13]:
/// the stress (xx yy zz xy yz xz), eps (the same order), the energy (J) and det F.
template <class T>
FEM_INLINE void voxel_results(std::int64_t e, const std::int32_t* element_vertices,
                              const std::uint8_t* element_material, const T* tangents,
                              const T* stiffness, T edge, const T* u, T* out) {
  const T inverse_edge = T(1) / edge;
  T f[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  add_centre_gradient(e, element_vertices, u, inverse_edge, f);
  T r[9];
  const T det = polar_rotation(f, r);
  T d[kCorners][3];
  for (int q = 0; q < kCorners; ++q)
    unrotated_displacement(e, q, element_vertices, r, edge, u, d[q]);
  T h[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0};
  for (int q = 0; q < kCorners; ++q)
    for (int k = 0; k < 3; ++k) {
      const T g = centre_gradient(q, k, inverse_edge);
      for (int i = 0; i < 3; ++i) h[3 * i + k] += d[q][i] * g;
    }
  T eps[9];
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) eps[3 * i + j] = T(0.5) * (h[3 * i + j] + h[3 * j + i]);
  const std::int64_t m = element_material[e];
  const T* c = tangents + 81 * m;
  T s[9];
  for (int ij = 0; ij < 9; ++ij) {
    T acc = 0;
    for (int kl = 0; kl < 9; ++kl) acc += c[9 * ij + kl] * eps[kl];
    s[ij] = acc;
  }
  T sigma[9];  // R s R^T
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) {
      T acc = 0;
      for (int a = 0; a < 3; ++a)
        for (int b = 0; b < 3; ++b) acc += r[3 * i + a] * s[3 * a + b] * r[3 * j + b];
      sigma[3 * i + j] = acc;
    }
  const T* k = stiffness + m * kElementDofs * kElementDofs;
  T energy = 0;
  for (int p = 0; p < kCorners; ++p)
    for (int i = 0; i < 3; ++i) {
      T row = 0;
      for (int q = 0; q < kCorners; ++q)
        for (int j = 0; j < 3; ++j) row += k[(3 * p + i) * kElementDofs + 3 * q + j] * d[q][j];
      energy += d[p][i] * row;
    }
  constexpr int kVoigt[6][2] = {{0, 0}, {1, 1}, {2, 2}, {0, 1}, {1, 2}, {0, 2}};
  for (int v = 0; v < 6; ++v) {
    out[v] = sigma[3 * kVoigt[v][0] + kVoigt[v][1]];
    out[6 + v] = eps[3 * kVoigt[v][0] + kVoigt[v][1]];
  }
  out[12] = T(0.5) * energy;
  out[13] = det;
}

/// What the right-hand side of the Newmark step adds at a vertex (seed eq. 8 with lumped mass
/// and mass-proportional damping C = alpha M):
///   b = f + m g + m (mass_shift u_old + velocity_scale v_old + a_old)
/// with mass_shift = 4 / dt^2 + 2 alpha / dt and velocity_scale = 4 / dt + alpha.
template <class T>
struct StepScales {
  T mass_shift;
  T velocity_scale;
  T gravity[3];
};

/// Fine vertex v's whole row of the step's equations (seed eqs. 4 and 8), by one thread: its 27
/// blocks (fine_block, plus `mass_shift` m_v I on the diagonal block) written to a, its
/// right-hand side to b, and the boundary conditions applied: prescribed columns eliminated
/// into b, prescribed rows made identity rows with their value. `fixed[v]`: bit c set where dof
/// c is prescribed, to prescribed[3 v + c]. The voxel corners' positions enter relative to the
/// voxel's centre (K does not resist the translation that removes), so single precision keeps
/// its digits on large objects. `blocks_stored`: the blocks are in a already (a pass that formed
/// the slots from the centre on and wrote each to both rows, which halves the products: the CPU
/// backends), and are read instead of formed (a GPU's pass writes each entry once and reads
/// none back).
template <class T, class Layout>
FEM_INLINE void fine_row(std::int64_t v, bool blocks_stored, const std::int32_t* vertex_elements,
                         const std::uint8_t* element_material, const T* rotations,
                         const T* stiffness, T edge, const T* mass, const T* u_old, const T* v_old,
                         const T* a_old, const T* force, const StepScales<T>& scales,
                         const std::uint8_t* fixed, const T* prescribed,
                         const std::int32_t* neighbours, T* a, const Layout& layout, T* b) {
  T acc[3];
  const T m = mass[v];
  for (int i = 0; i < 3; ++i)
    acc[i] = force[3 * v + i] + m * scales.gravity[i] +
             m * (scales.mass_shift * u_old[3 * v + i] + scales.velocity_scale * v_old[3 * v + i] +
                  a_old[3 * v + i]);
  // -sum over voxels and corners q of R K_pq (R^T X_q - X_q).
  for (int p = 0; p < kCorners; ++p) {
    const std::int64_t e = vertex_elements[kCorners * v + p];
    if (e < 0) continue;
    T f[3];
    corotated_corner_force(e, p, nullptr, element_material, rotations, stiffness, edge,
                           static_cast<const T*>(nullptr), f);
    for (int i = 0; i < 3; ++i) acc[i] -= f[i];
  }
  const int fixed_rows = fixed[v];
  FEM_VOXEL_UNROLL
  for (int s = 0; s < kSlots; ++s) {
    T block[9];
    if (blocks_stored)
      for (int e = 0; e < 9; ++e) block[e] = a[layout.at(v, kBlockEntries * s + e)];
    else
      fine_block(v, s, vertex_elements, element_material, rotations, stiffness,
                 m * scales.mass_shift, block);
    // A prescribed column (a neighbour's or the vertex's own) moves to the right-hand side.
    const std::int64_t n = neighbours[kSlots * v + s];
    const int fixed_columns = n < 0 ? 0 : fixed[n];
    if (fixed_columns != 0)
      for (int c = 0; c < 3; ++c) {
        if (!((fixed_columns >> c) & 1)) continue;
        const T g = prescribed[3 * n + c];
        for (int r = 0; r < 3; ++r) {
          acc[r] -= block[3 * r + c] * g;
          block[3 * r + c] = T(0);
        }
      }
    for (int r = 0; r < 3; ++r) {
      if (!((fixed_rows >> r) & 1)) continue;
      for (int c = 0; c < 3; ++c) block[3 * r + c] = T(s == kCentre && c == r);
    }
    for (int e = 0; e < 9; ++e) a[layout.at(v, kBlockEntries * s + e)] = block[e];
  }
  for (int r = 0; r < 3; ++r)
    b[3 * v + r] = ((fixed_rows >> r) & 1) ? prescribed[3 * v + r] : acc[r];
}

/// Block `slot` of coarse vertex X's row of the Galerkin operator P^T A P, matrix-free from the
/// fine rows (seed eqs. 10 and 11 in one pass: each free fine row of a child x = 2X + k enters
/// with weight w_k, and each of its blocks toward x + d = 2(X + I) + k' with weight w_k').
/// children[27 X + k]: the fine vertex at 2X + k (-1: none). Rows of void coarse dofs
/// (coarse_fixed) become identity rows. The children are shared among `lanes` as row_product's
/// slots; every lane holds the block.
template <class T, class Layout, class Lanes>
FEM_INLINE void coarse_block(std::int64_t x_coarse, int slot, const std::int32_t* children,
                             const std::uint8_t* fine_fixed, const T* fine_a,
                             const Layout& fine_layout, const std::uint8_t* coarse_fixed,
                             const Lanes& lanes, T (&out)[9]) {
  for (int i = 0; i < 9; ++i) out[i] = T(0);
  const int target[3] = {2 * slot_offset(slot, 0), 2 * slot_offset(slot, 1),
                         2 * slot_offset(slot, 2)};
  for (int k = lanes.lane(); k < kSlots; k += lanes.count()) {
    const std::int64_t x = children[kSlots * x_coarse + k];
    if (x < 0) continue;
    const int free_rows = ~fine_fixed[x] & 7;
    if (free_rows == 0) continue;
    const int kk[3] = {slot_offset(k, 0), slot_offset(k, 1), slot_offset(k, 2)};
    const T wk = static_cast<T>(transfer_weight(kk[0], kk[1], kk[2]));
    // Blocks toward x + d with |k + d - 2I| <= 1 per axis.
    int lo[3], hi[3];
    for (int j = 0; j < 3; ++j) {
      lo[j] = target[j] - 1 - kk[j];
      hi[j] = target[j] + 1 - kk[j];
      if (lo[j] < -1) lo[j] = -1;
      if (hi[j] > 1) hi[j] = 1;
    }
    for (int dz = lo[2]; dz <= hi[2]; ++dz)
      for (int dy = lo[1]; dy <= hi[1]; ++dy)
        for (int dx = lo[0]; dx <= hi[0]; ++dx) {
          const T w =
              wk * static_cast<T>(transfer_weight(kk[0] + dx - target[0], kk[1] + dy - target[1],
                                                  kk[2] + dz - target[2]));
          const int s = offset_slot(dx, dy, dz);
          for (int r = 0; r < 3; ++r) {
            if (!((free_rows >> r) & 1)) continue;
            for (int c = 0; c < 3; ++c)
              out[3 * r + c] += w * fine_a[fine_layout.at(x, kBlockEntries * s + 3 * r + c)];
          }
        }
  }
  lanes.sum(out);
  if (slot == kCentre)
    for (int r = 0; r < 3; ++r)
      if ((coarse_fixed[x_coarse] >> r) & 1) out[4 * r] = T(1);
}

/// The trilinear weight with which corner a of the fine voxel at child position c of a coarse
/// cell interpolates from the cell's corner I (all three corner indices, a + 2 b + 4 c): the
/// product over the axes of (2 - |c + a - 2 I|) / 2 (0, 1/8, 1/4, 1/2 or 1: exact in either
/// precision).
template <class T = double>
FEM_INLINE T child_weight(int c, int a, int corner) {
  T w = T(1);
  for (int k = 0; k < 3; ++k) {
    const int d = corner_offset(c, k) + corner_offset(a, k) - 2 * corner_offset(corner, k);
    w *= T(0.5) * static_cast<T>(2 - (d < 0 ? -d : d));
  }
  return w;
}

/// w[a] = child_weight(c, a, corner_i) child_weight(c, a, corner_j) for the 8 corners a, from
/// two weights a axis: the same values (every factor is a power of two or zero, so each product
/// is exact in any order) for a sixth of the integer work, which was half of level 1's
/// coarsening on the H200.
template <class T>
FEM_INLINE void child_pair_weights(int c, int corner_i, int corner_j, T (&w)[kCorners]) {
  T axis[3][2];
  for (int k = 0; k < 3; ++k)
    for (int a = 0; a < 2; ++a) {
      const int di = corner_offset(c, k) + a - 2 * corner_offset(corner_i, k),
                dj = corner_offset(c, k) + a - 2 * corner_offset(corner_j, k);
      axis[k][a] = (T(0.5) * static_cast<T>(2 - (di < 0 ? -di : di))) *
                   (T(0.5) * static_cast<T>(2 - (dj < 0 ? -dj : dj)));
    }
  for (int a = 0; a < kCorners; ++a)
    w[a] =
        axis[0][corner_offset(a, 0)] * axis[1][corner_offset(a, 1)] * axis[2][corner_offset(a, 2)];
}

/// Entry (3 I + i, 3 J + j) of W_c^T K W_c: a voxel's stiffness K (24x24, row-major by 3
/// corner + component) seen from the corners I and J of the coarse cell that holds it at child
/// position c (W_c: child_weight, per component). kElementDofs^2 entries per child position.
FEM_INLINE double child_stiffness(const double* k, int c, int row, int column) {
  double sum = 0.0;
  for (int a = 0; a < kCorners; ++a) {
    const double wa = child_weight(c, a, row / 3);
    if (wa == 0.0) continue;
    for (int b = 0; b < kCorners; ++b)
      sum += wa * child_weight(c, b, column / 3) *
             k[(3 * a + row % 3) * kElementDofs + 3 * b + column % 3];
  }
  return sum;
}

// Level 1 cell by cell (after assemble). Level 1's operator is a sum over its cells (the
// 2x2x2 voxel blocks it agglomerates, by their corner-0 vertex X) of 24x24 cell matrices C, stored
// as the 3x3 blocks between corners I <= J (36 pairs, corner_pair, 9 entries each, entry e of
// pair p of cell X at layout.at(X, 9 p + e)), plus identity rows at void dofs. C = sum over the
// voxels of the cell of W_c^T (R K R^T + mass_shift M) W_c (W_c: the trilinear weights of the
// voxel at child position c, child_weight; M: the voxel's corners' shares of the lumped mass;
// prescribed dofs dropped), and the rows are a gather over the (at most 8) cells of each block
// (row_block_from_cells). That is the Galerkin operator P^T A P that coarse_block forms from the
// stored fine rows, summed in another order, without reading those rows: R commutes with the
// scalar weights, so W_c^T K W_c is formed once per material (child_stiffness) and a voxel's
// block costs two 3x3 products. Measured on the H200 (docs/performance.md): 2 M voxels 1.7x
// faster a step than coarse_block for level 1; forming levels 2 and below from the cells too
// (C' = sum over child cells of W_c^T C W_c) was slower than coarse_block there, where the
// cells hold no rotation to factor out.

/// The 36 pairs I <= J of a cell's corners, numbered row by row.
inline constexpr int kCornerPairs = kCorners * (kCorners + 1) / 2;
inline constexpr int kCellEntries = kCornerPairs * kBlockEntries;
FEM_INLINE int corner_pair(int i, int j) {
  return i * kCorners - i * (i - 1) / 2 + (j - i);
}
/// The corners (I, J) of pair p.
FEM_INLINE void pair_corners(int pair, int& i, int& j) {
  i = 0;
  while (i + 1 < kCorners && corner_pair(i + 1, i + 1) <= pair) ++i;
  j = i + pair - corner_pair(i, i);
}
/// Block (a, b) of a cell matrix stored as its pairs: entry (r, c) of it.
template <class T, class Layout>
FEM_INLINE T cell_entry(const T* cells, const Layout& layout, std::int64_t cell, int a, int b,
                        int r, int c) {
  return a <= b ? cells[layout.at(cell, kBlockEntries * corner_pair(a, b) + 3 * r + c)]
                : cells[layout.at(cell, kBlockEntries * corner_pair(b, a) + 3 * c + r)];
}

/// The voxels of the fine level, as voxel_cell_block reads them.
template <class T>
struct FineVoxels {
  /// 8 per level-1 vertex X: the voxel at child position c of the cell whose corner 0 is X (-1:
  /// none).
  const std::int32_t* cell_elements;
  const std::int32_t* element_vertices;  ///< 8 per voxel
  const std::uint8_t* element_material;
  /// Per voxel, nonzero where a corner has a prescribed dof.
  const std::uint8_t* element_fixed;
  const T* rotations;  ///< 9 per voxel
  const T* stiffness;  ///< 576 per material
  /// child_stiffness of each material (576 per child position, 8 positions per material).
  const T* child_stiffness;
  /// 8 per voxel: its corners' share of their lumped mass (the vertex's mass over its voxels).
  const T* corner_mass;
  const std::uint8_t* fixed;  ///< per fine vertex (level masks)
  T mass_shift;
};

/// Pair `pair` of level 1's cell matrix C^1 at cell X. A voxel none of whose corners has a
/// prescribed dof adds R (W_c^T K W_c)_IJ R^T (the rotation commutes with the scalar weights,
/// so W_c^T K W_c is formed once, child_stiffness, and a block costs two 3x3 products) and its
/// corners' mass shares; a voxel with a prescribed dof at a corner is summed corner by corner
/// without those dofs.
template <class T>
FEM_INLINE void voxel_cell_block(std::int64_t x_coarse, int pair, const FineVoxels<T>& fine,
                                 T (&out)[9]) {
  int corner_i, corner_j;
  pair_corners(pair, corner_i, corner_j);
  for (int i = 0; i < 9; ++i) out[i] = T(0);
  for (int c = 0; c < kCorners; ++c) {
    const std::int64_t e = fine.cell_elements[kCorners * x_coarse + c];
    if (e < 0) continue;
    const std::int64_t material = fine.element_material[e];
    const T* r = fine.rotations + 9 * e;
    const T* mass = fine.corner_mass + kCorners * e;
    T block[9];
    if (fine.element_fixed[e] == 0) {
      rotated_block(r,
                    fine.child_stiffness + (material * kCorners + c) * kElementDofs * kElementDofs +
                        3 * corner_i * kElementDofs + 3 * corner_j,
                    kElementDofs, block);
      T w[kCorners];
      child_pair_weights(c, corner_i, corner_j, w);
      T m = T(0);
      for (int a = 0; a < kCorners; ++a) m += w[a] * mass[a];
      for (int i = 0; i < 9; ++i) out[i] += block[i];
      for (int i = 0; i < 3; ++i) out[4 * i] += fine.mass_shift * m;
      continue;
    }
    const T* k = fine.stiffness + material * kElementDofs * kElementDofs;
    for (int a = 0; a < kCorners; ++a) {
      const T wa = child_weight<T>(c, a, corner_i);
      const int free_a = ~fine.fixed[fine.element_vertices[kCorners * e + a]] & 7;
      if (wa == T(0) || free_a == 0) continue;
      for (int b = 0; b < kCorners; ++b) {
        const T wb = child_weight<T>(c, b, corner_j);
        const int free_b = ~fine.fixed[fine.element_vertices[kCorners * e + b]] & 7;
        if (wb == T(0) || free_b == 0) continue;
        rotated_block(r, k + 3 * a * kElementDofs + 3 * b, kElementDofs, block);
        if (a == b)
          for (int i = 0; i < 3; ++i) block[4 * i] += fine.mass_shift * mass[a];
        for (int i = 0; i < 3; ++i)
          for (int j = 0; j < 3; ++j)
            if (((free_a >> i) & 1) && ((free_b >> j) & 1))
              out[3 * i + j] += wa * wb * block[3 * i + j];
      }
    }
  }
}

/// Block `slot` of level-1 vertex X's row from the cells: the cells holding X and X + d have
/// corner 0 at X + m, m in {-1, 0}^3, with X at their corner -m and X + d at d - m; void dofs
/// (fixed) get identity rows.
template <class T, class Layout>
FEM_INLINE void row_block_from_cells(std::int64_t x, int slot, const std::int32_t* neighbours,
                                     const T* cells, const Layout& layout,
                                     const std::uint8_t* fixed, T (&out)[9]) {
  for (int i = 0; i < 9; ++i) out[i] = T(0);
  const int d[3] = {slot_offset(slot, 0), slot_offset(slot, 1), slot_offset(slot, 2)};
  for (int cell = 0; cell < kCorners; ++cell) {
    int m[3], corner_i = 0, corner_j = 0;
    bool inside = true;
    for (int k = 0; k < 3; ++k) {
      m[k] = corner_offset(cell, k) - 1;
      const int j = d[k] - m[k];
      inside = inside && (j == 0 || j == 1);
      corner_i |= (-m[k]) << k;
      corner_j |= j << k;
    }
    if (!inside) continue;
    const std::int64_t origin = neighbours[kSlots * x + offset_slot(m[0], m[1], m[2])];
    if (origin < 0) continue;
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j)
        out[3 * i + j] += cell_entry(cells, layout, origin, corner_i, corner_j, i, j);
  }
  if (slot == kCentre)
    for (int i = 0; i < 3; ++i)
      if ((fixed[x] >> i) & 1) out[4 * i] = T(1);
}

/// One thread doing a vertex's whole row (the CPU backends, and the coarsest level's team).
struct OneLane {
  [[nodiscard]] FEM_INLINE int lane() const { return 0; }
  [[nodiscard]] FEM_INLINE int count() const { return 1; }
  template <class T, int N>
  FEM_INLINE void sum(T (&/*x*/)[N]) const {}
};

/// Consecutive threads of a GPU warp that share an index (the CUDA backend, and Kokkos on its Cuda
/// space): sums by butterfly shuffles, so that every lane holds the same total. Host code never
/// runs one with more than one lane.
struct WarpLanes {
  int lane_ = 0, count_ = 1;
  unsigned mask_ = 1u;  ///< the group's threads in the warp
  [[nodiscard]] FEM_INLINE int lane() const { return lane_; }
  [[nodiscard]] FEM_INLINE int count() const { return count_; }
  template <class T, int N>
  FEM_INLINE void sum(T (&x)[N]) const {
#if defined(__CUDA_ARCH__)
    for (int offset = count_ / 2; offset > 0; offset /= 2)
      for (int k = 0; k < N; ++k) x[k] += __shfl_xor_sync(mask_, x[k], offset, count_);
#else
    (void)x;
#endif
  }
  /// Lane `lane` of a group of `count` (a power of two up to 32) whose thread is at
  /// `thread_in_warp` in its warp.
  static FEM_INLINE WarpLanes of(int lane, int count, unsigned thread_in_warp) {
    const unsigned group = count == 32 ? 0xffffffffu : (1u << count) - 1u;
    return {lane, count, group << (thread_in_warp - static_cast<unsigned>(lane))};
  }
};

/// product += block s of vertex v's row times un (the neighbour's three values).
template <class T, class Layout>
FEM_INLINE void add_block_product(std::int64_t v, int s, const T* a, const Layout& layout,
                                  const T (&un)[3], T (&product)[3]) {
  for (int r = 0; r < 3; ++r)
    product[r] += a[layout.at(v, kBlockEntries * s + 3 * r)] * un[0] +
                  a[layout.at(v, kBlockEntries * s + 3 * r + 1)] * un[1] +
                  a[layout.at(v, kBlockEntries * s + 3 * r + 2)] * un[2];
}

/// (A u)_v, without the diagonal block when `skip_centre`, computed by the `lanes` that share
/// vertex v (a Lanes object: lane(), count(), sum(x) adds x over the lanes and gives every lane
/// the total): lane k takes slots k, k + count, ..., so that on a device several threads keep a
/// row's loads in flight at once (docs/voxels.md, "Several threads a vertex").
template <class T, class Layout, class Lanes>
FEM_INLINE void row_product(std::int64_t v, const std::int32_t* neighbours, const T* a,
                            const Layout& layout, const T* u, bool skip_centre, const Lanes& lanes,
                            T (&product)[3]) {
  for (int i = 0; i < 3; ++i) product[i] = T(0);
  // Unrolled fully where the lanes' count is a constant (OneLane).
  FEM_VOXEL_UNROLL
  for (int s = lanes.lane(); s < kSlots; s += lanes.count()) {
    if (skip_centre && s == kCentre) continue;
    const std::int64_t n = neighbours[kSlots * v + s];
    if (n < 0) continue;
    const T un[3] = {u[3 * n], u[3 * n + 1], u[3 * n + 2]};
    add_block_product(v, s, a, layout, un, product);
  }
  lanes.sum(product);
}

/// f(std::integral_constant<int, C>{}) with C = count (1, 2, 4, 8 or 16): a lane count known
/// at run time made a constant, so that the loops over a lane's slots unroll.
template <class F>
FEM_INLINE auto with_lanes_constant(int count, F&& f) {
  switch (count) {
    case 1:
      return f(std::integral_constant<int, 1>{});
    case 2:
      return f(std::integral_constant<int, 2>{});
    case 4:
      return f(std::integral_constant<int, 4>{});
    case 8:
      return f(std::integral_constant<int, 8>{});
    default:
      return f(std::integral_constant<int, 16>{});
  }
}

/// Lanes a vertex for a team of `threads` threads sharing `vertices` vertices: doubled (up to 16)
/// while the team holds twice the threads the groups need, so that every vertex still gets a
/// group of its own in one round.
FEM_INLINE int team_lanes(std::int64_t vertices, std::int64_t threads) {
  int count = 1;
  while (count < 16 && 2 * count * vertices <= threads) count *= 2;
  return count;
}

/// row_product (the whole row) for groups of a constant C lanes, with every load of a lane's
/// slots issued before the first is used: a missing neighbour's product is selected away
/// instead of skipped, so that the row costs two round trips to memory (the neighbours, then the
/// values) instead of one or two a slot. For a launch of one thread block (the coarsest solve),
/// where no other threads hide the loads' latency. (The smoothing kernels keep row_product: with
/// the GPU full of threads the extra registers cost more than the latency saved.)
template <int C, class T, class Layout, class Lanes>
FEM_INLINE void row_product_in_flight(std::int64_t v, const std::int32_t* neighbours, const T* a,
                                      const Layout& layout, const T* u, const Lanes& lanes,
                                      T (&product)[3]) {
  constexpr int kPerLane = (kSlots + C - 1) / C;
  std::int32_t n[kPerLane];
  FEM_VOXEL_UNROLL
  for (int j = 0; j < kPerLane; ++j) {
    const int s = lanes.lane() + j * C;
    n[j] = s < kSlots ? neighbours[kSlots * v + s] : -1;
  }
  for (int i = 0; i < 3; ++i) product[i] = T(0);
  FEM_VOXEL_UNROLL
  for (int j = 0; j < kPerLane; ++j) {
    const int s = lanes.lane() + j * C < kSlots ? lanes.lane() + j * C : kSlots - 1;
    const std::int64_t m = n[j] >= 0 ? n[j] : 0;  // a vertex to read from, used or not
    T un[3];
    for (int c = 0; c < 3; ++c) {
      const T x = u[3 * m + c];
      un[c] = n[j] >= 0 ? x : T(0);
    }
    add_block_product(v, s, a, layout, un, product);
  }
  lanes.sum(product);
}

/// b - (A u)_v, without the diagonal block when `skip_centre`, in every lane.
template <class T, class Layout, class Lanes>
FEM_INLINE void row_remainder(std::int64_t v, const std::int32_t* neighbours, const T* a,
                              const Layout& layout, const T* b, const T* u, bool skip_centre,
                              const Lanes& lanes, T (&acc)[3]) {
  row_product(v, neighbours, a, layout, u, skip_centre, lanes, acc);
  for (int i = 0; i < 3; ++i) acc[i] = b[3 * v + i] - acc[i];
}

/// One block Gauss-Seidel update of vertex v: u_v = A_vv^-1 (b_v - sum over the other slots),
/// written by the first of its lanes.
template <class T, class Layout, class Lanes>
FEM_INLINE void relax_vertex(std::int64_t v, const std::int32_t* neighbours, const T* a,
                             const Layout& layout, const T* b, T* u, const Lanes& lanes) {
  T acc[3];
  row_remainder(v, neighbours, a, layout, b, u, true, lanes, acc);
  if (lanes.lane() != 0) return;
  T d[9];
  for (int e = 0; e < 9; ++e) d[e] = a[layout.at(v, kBlockEntries * kCentre + e)];
  T x[3];
  solve3(d, acc, x);
  for (int i = 0; i < 3; ++i) u[3 * v + i] = x[i];
}

/// r_v = b_v - (A u)_v (seed eq. 12).
template <class T, class Layout, class Lanes>
FEM_INLINE void vertex_residual(std::int64_t v, const std::int32_t* neighbours, const T* a,
                                const Layout& layout, const T* b, const T* u, T* r,
                                const Lanes& lanes) {
  T acc[3];
  row_remainder(v, neighbours, a, layout, b, u, false, lanes, acc);
  if (lanes.lane() != 0) return;
  for (int i = 0; i < 3; ++i) r[3 * v + i] = acc[i];
}

/// Coarse vertex X: b_X = sum over children of w_k r_x at free fine dofs (seed eq. 13, P^T r),
/// and the coarse correction starts from zero.
template <class T, class Lanes>
FEM_INLINE void restrict_vertex(std::int64_t x_coarse, const std::int32_t* children,
                                const std::uint8_t* fine_fixed, const T* fine_r, T* coarse_b,
                                T* coarse_u, const Lanes& lanes) {
  T acc[3] = {0, 0, 0};
  for (int k = lanes.lane(); k < kSlots; k += lanes.count()) {
    const std::int64_t x = children[kSlots * x_coarse + k];
    if (x < 0) continue;
    const T w =
        static_cast<T>(transfer_weight(slot_offset(k, 0), slot_offset(k, 1), slot_offset(k, 2)));
    for (int c = 0; c < 3; ++c)
      if (!((fine_fixed[x] >> c) & 1)) acc[c] += w * fine_r[3 * x + c];
  }
  lanes.sum(acc);
  if (lanes.lane() != 0) return;
  for (int c = 0; c < 3; ++c) {
    coarse_b[3 * x_coarse + c] = acc[c];
    coarse_u[3 * x_coarse + c] = T(0);
  }
}

/// Fine vertex x: u_x += (P e)_x at its free dofs (seed eq. 15). parents[8 x ..]: the coarse
/// vertices it interpolates from (-1 past the last), each with weight 1 / their count.
template <class T>
FEM_INLINE void interpolate_vertex(std::int64_t x, const std::int32_t* parents,
                                   const std::uint8_t* fine_fixed, const T* coarse_e, T* fine_u) {
  T acc[3] = {0, 0, 0};
  int count = 0;
  for (int j = 0; j < kCorners; ++j) {
    const std::int64_t p = parents[kCorners * x + j];
    if (p < 0) break;
    ++count;
    for (int c = 0; c < 3; ++c) acc[c] += coarse_e[3 * p + c];
  }
  if (count == 0) return;
  const T w = T(1) / static_cast<T>(count);
  for (int c = 0; c < 3; ++c)
    if (!((fine_fixed[x] >> c) & 1)) fine_u[3 * x + c] += w * acc[c];
}

/// Newmark (beta 1/4, gamma 1/2) after the solve (seed eqs. 5 and 6): the new acceleration and
/// velocity from the new displacement u, which becomes u_old.
template <class T>
FEM_INLINE void newmark_vertex(std::int64_t v, T dt, const T* u, T* u_old, T* v_old, T* a_old) {
  for (int i = 0; i < 3; ++i) {
    const std::int64_t d = 3 * v + i;
    const T du = u[d] - u_old[d];
    const T a_new = T(4) / (dt * dt) * (du - dt * v_old[d]) - a_old[d];
    v_old[d] = T(2) / dt * du - v_old[d];
    a_old[d] = a_new;
    u_old[d] = u[d];
  }
}

/// The coarsest level's solve, A x = b from the x given, by conjugate gradients preconditioned with
/// the 3x3 diagonal blocks, run by one team of threads (one thread block on a GPU: the seed's
/// section 4.2.7) that share the work vertex by vertex. `Team` gives rank(), size(), barrier()
/// and sum(double) (the team's sum of each thread's value, returned to every thread, after a
/// barrier) and lanes(count) (a Lanes object, as row_product's, for groups of `count` threads,
/// or one thread where the team cannot split). r, z, p and q are scratch vectors of the level's
/// size. Stops when |r| <= tolerance |b| or after max_iterations; writes the iterations, |r|^2
/// and |b|^2 to report[0..2] (rank 0).
template <class T, class Layout, class Team>
FEM_INLINE void coarsest_cg(const Team& team, std::int64_t vertices, const std::int32_t* neighbours,
                            const T* a, const Layout& layout, const T* b, T* x, T* r, T* z, T* p,
                            T* q, int max_iterations, double tolerance, double* report) {
  const std::int64_t first = team.rank(), stride = team.size();
  // z_v = D_v^-1 r_v, from r_v's values (no reload of what this thread just wrote).
  auto precondition = [&](std::int64_t v, const T(&rv)[3], T(&zv)[3]) {
    T d[9];
    for (int e = 0; e < 9; ++e) d[e] = a[layout.at(v, kBlockEntries * kCentre + e)];
    solve3(d, rv, zv);
  };
  double local = 0.0, local2 = 0.0, local3 = 0.0;
  for (std::int64_t v = first; v < vertices; v += stride) {
    T rv[3], zv[3];
    row_remainder(v, neighbours, a, layout, b, x, false, OneLane{}, rv);
    precondition(v, rv, zv);
    for (int i = 0; i < 3; ++i) {
      r[3 * v + i] = rv[i];
      z[3 * v + i] = zv[i];
      p[3 * v + i] = zv[i];
      local += static_cast<double>(b[3 * v + i]) * static_cast<double>(b[3 * v + i]);
      local2 += static_cast<double>(rv[i]) * static_cast<double>(zv[i]);
      local3 += static_cast<double>(rv[i]) * static_cast<double>(rv[i]);
    }
  }
  const double bb = team.sum(local);
  double rz = team.sum(local2);
  const double stop = tolerance * tolerance * bb;
  double rr = team.sum(local3);
  // q = A p by groups of lanes where the team outnumbers the vertices (a level of ~100 vertices
  // and a team of 512 threads: 4 a vertex), each group's first lane writing.
  const auto lanes = team.lanes(team_lanes(vertices, stride));
  const std::int64_t group_first = team.rank() / lanes.count(),
                     group_stride = team.size() / lanes.count();
  int it = 0;
  while (it < max_iterations && rr > stop && rz > 0.0) {
    local = with_lanes_constant(lanes.count(), [&](auto lanes_constant) {
      double pq = 0.0;
      for (std::int64_t v = group_first; v < vertices; v += group_stride) {
        T qv[3];
        row_product_in_flight<decltype(lanes_constant)::value>(v, neighbours, a, layout, p, lanes,
                                                               qv);
        if (lanes.lane() != 0) continue;
        for (int i = 0; i < 3; ++i) {
          q[3 * v + i] = qv[i];
          pq += static_cast<double>(p[3 * v + i]) * static_cast<double>(qv[i]);
        }
      }
      return pq;
    });
    const double pq = team.sum(local);
    if (!(pq > 0.0)) break;
    const T alpha = static_cast<T>(rz / pq);
    local = 0.0;
    local2 = 0.0;
    for (std::int64_t v = first; v < vertices; v += stride) {
      T rv[3], zv[3];
      for (int i = 0; i < 3; ++i) {
        x[3 * v + i] += alpha * p[3 * v + i];
        rv[i] = r[3 * v + i] - alpha * q[3 * v + i];
        r[3 * v + i] = rv[i];
      }
      precondition(v, rv, zv);
      for (int i = 0; i < 3; ++i) {
        z[3 * v + i] = zv[i];
        local += static_cast<double>(rv[i]) * static_cast<double>(zv[i]);
        local2 += static_cast<double>(rv[i]) * static_cast<double>(rv[i]);
      }
    }
    const double rz_new = team.sum(local);
    rr = team.sum(local2);
    const T beta = static_cast<T>(rz > 0.0 ? rz_new / rz : 0.0);
    rz = rz_new;
    for (std::int64_t v = first; v < vertices; v += stride)
      for (int i = 0; i < 3; ++i) p[3 * v + i] = z[3 * v + i] + beta * p[3 * v + i];
    team.barrier();
    ++it;
  }
  if (team.rank() == 0) {
    report[0] = it;
    report[1] = rr;
    report[2] = bb;
  }
}

}  // namespace fem::kernels::voxel
