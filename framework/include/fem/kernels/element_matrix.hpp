// The element tangent as matrices: the 3x3 node blocks K_ab of an element's stiffness at the
// linearization point, for the diagonal and block-diagonal preconditioners and the assembled
// sparse tangent. The tangent action (element_tangent in element_kernels.hpp) is the main path;
// this is its matrix form, from the same law through the same dual numbers.
//
// At each quadrature point the material tangent A_iJkL = dP_iJ / dF_kL is nine directional
// derivatives of the law (one dual evaluation per unit dF), and
//   K_ab,ik = sum_q V_q sum_JL (dN_a/dX_J) A_iJkL (dN_b/dX_L)   (+ the hourglass stiffness).
// Averaged nodal pressure couples an element with its neighbours' neighbours. The element matrix
// of that family holds the element-local part (deviatoric, and the geometric term of the
// averaged pressure); the coupling through the nodal averages is the sum over nodes k of
// rank-one terms a_k b_k^T / (4 V_k) built from pressure_coupling() below (docs/implicit.md),
// which backends add where they assemble.
#pragma once

#include <cstdint>

#include "fem/config.hpp"
#include "fem/dual.hpp"
#include "fem/element.hpp"
#include "fem/kernels/averaged_pressure.hpp"
#include "fem/kernels/element_kernels.hpp"
#include "fem/tensor.hpp"

namespace fem::kernels {

/// A[3i+J][3k+L] = dP_iJ / dF_kL of law M at F, from the committed state at quadrature point
/// `point`. With averaged nodal pressure the pressure is held at `pressure` (the averaged
/// value): its derivative couples elements and is not part of the element's own tangent.
template <class M, class T, Family FAMILY>
FEM_INLINE void material_tangent(const ElementPassArgs<T>& a, std::int64_t point, const Mat3<T>& H,
                                 T pressure, T (&A)[9][9]) {
  using S = Dual<T>;
  const detail::LawParams<M, S, T> params(a.params);
  for (int kl = 0; kl < 9; ++kl) {
    Mat3<S> Hs;  // dP/dF = dP/dH
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) Hs.m[i][j] = S(H.m[i][j], 3 * i + j == kl ? T(1) : T(0));
    detail::LawState<M, S, T> state(a, point);
    Mat3<S> P;
    if constexpr (FAMILY == Family::AveragedNodalPressureTet) {
      P = stress_with_pressure<M, S>(params.get(), detail::identity_plus(Hs), state.get(),
                                     S(pressure, T(0)));
    } else {
      (void)pressure;
      P = material_stress<M, S>(params.get(), Hs, state.get(), S(a.dt));
    }
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) A[3 * i + j][kl] = P.m[i][j].d;
  }
}

/// The stiffness blocks of element e at a.u, added into `out` (zeroed by the caller): with
/// DIAGONAL the npe blocks K_aa ([a][3][3]), otherwise all npe^2 blocks K_ab ([a][b][3][3]).
/// Row i, column k of a block: force component i at node a per displacement k at node b.
template <class M, class T, int NPE, int NQP, Family FAMILY, bool DIAGONAL>
FEM_INLINE void element_matrix(const ElementPassArgs<T>& a, std::int64_t e, T* out) {
  constexpr int CAP = NPE ? NPE : kMaxNodesPerElement;
  constexpr bool HOURGLASS = FAMILY == Family::Hex8Hourglass;
  const int npe = NPE ? NPE : a.nodes_per_element;
  const int nqp = NQP ? NQP : a.quadrature_points;
  const ElementRecord<const std::int32_t> conn = a.record(a.connectivity, e, npe);
  T ue[CAP][3];
  detail::gather_displacements<T, T, CAP>(a, conn, npe, ue);
  const ElementRecord<const T> gradients = a.record(a.gradients, e, nqp * npe * 3);
  const ElementRecord<const T> volumes = a.record(a.volumes, e, nqp);
  T pressure = T(0);
  if constexpr (FAMILY == Family::AveragedNodalPressureTet)
    pressure = element_mean<T, NPE>(a.nodal_pressure, conn);
  const auto block = [&](int row, int col) { return out + 9 * (DIAGONAL ? row : row * npe + col); };
  for (int q = 0; q < nqp; ++q) {
    const ElementRecord<const T> grad = gradients.from(q * npe * 3);
    const Mat3<T> H = detail::displacement_gradient<T, T, CAP>(ue, grad, npe);
    T A[9][9];
    material_tangent<M, T, FAMILY>(a, e * nqp + q, H, pressure, A);
    const T v = volumes[q];
    for (int b = 0; b < npe; ++b) {
      // AB[3i+J][k] = sum_L A_iJkL dN_b/dX_L
      T AB[9][3];
      for (int r = 0; r < 9; ++r)
        for (int k = 0; k < 3; ++k)
          AB[r][k] = A[r][3 * k] * grad[3 * b] + A[r][3 * k + 1] * grad[3 * b + 1] +
                     A[r][3 * k + 2] * grad[3 * b + 2];
      for (int ar = DIAGONAL ? b : 0; ar < (DIAGONAL ? b + 1 : npe); ++ar) {
        T* K = block(ar, b);
        for (int i = 0; i < 3; ++i)
          for (int k = 0; k < 3; ++k)
            K[3 * i + k] += v * (grad[3 * ar] * AB[3 * i][k] + grad[3 * ar + 1] * AB[3 * i + 1][k] +
                                 grad[3 * ar + 2] * AB[3 * i + 2][k]);
      }
    }
  }
  if constexpr (HOURGLASS) {
    // f_hg = k Gamma Gamma^T u: K_ab = k sum_m gamma_ma gamma_mb I, with
    // gamma_ma = (h_ma - sum_j (h_m . X_j) dN_a/dX_j) / 8.
    const ElementRecord<const T> c = a.record(a.hourglass_vectors, e, 12);
    T gamma[4][8];
    for (int m = 0; m < 4; ++m)
      for (int n = 0; n < 8; ++n)
        gamma[m][n] =
            T(0.125) * (a.hourglass_base[8 * m + n] - c[3 * m] * gradients[3 * n] -
                        c[3 * m + 1] * gradients[3 * n + 1] - c[3 * m + 2] * gradients[3 * n + 2]);
    const T k = a.hourglass_stiffness[e];
    for (int r = 0; r < 8; ++r)
      for (int col = DIAGONAL ? r : 0; col < (DIAGONAL ? r + 1 : 8); ++col) {
        T g = T(0);
        for (int m = 0; m < 4; ++m) g += gamma[m][r] * gamma[m][col];
        T* K = block(r, col);
        for (int i = 0; i < 3; ++i) K[4 * i] += k * g;
      }
  }
}

/// Averaged nodal pressure: what element e contributes to the coupling of the exact tangent at
/// a.u. out[3a + i] = V_e (dJ_e/du_a)_i (the gradient of the element's volume ratio, cof(F)
/// dN_a/dX, or dN_a/dX for small-strain laws), out[12] = U''(J_e). With them the pressure part of
/// the tangent is  sum_k a_k b_k^T / (4 V_k),  a_k = sum_{e at k} V_e dJ_e/du, b_k = sum_{e at k}
/// U''(J_e) V_e dJ_e/du,  V_k the ANP volume around node k.
template <class M, class T>
FEM_INLINE void pressure_coupling(const ElementPassArgs<T>& a, std::int64_t e, T* out) {
  using S = Dual<T>;
  T ue[4][3];
  detail::gather_displacements<T, T, 4>(a, a.record(a.connectivity, e, 4), 4, ue);
  const ElementRecord<const T> grad = a.record(a.gradients, e, 12);
  const Mat3<T> F = detail::identity_plus(detail::displacement_gradient<T, T, 4>(ue, grad, 4));
  const T v = a.record(a.volumes, e, 1)[0];
  Mat3<T> dJ;  // dJ/dF
  if constexpr (M::small_strain)
    dJ = Mat3<T>::identity();
  else
    dJ = cofactor(F);
  for (int n = 0; n < 4; ++n)
    for (int i = 0; i < 3; ++i)
      out[3 * n + i] = v * (dJ.m[i][0] * grad[3 * n] + dJ.m[i][1] * grad[3 * n + 1] +
                            dJ.m[i][2] * grad[3 * n + 2]);
  const detail::LawParams<M, S, T> params(a.params);
  const S J(volume_ratio<M, T>(F), T(1));
  out[12] = M::template volumetric_pressure<S>(params.get(), J).d;
}

}  // namespace fem::kernels
