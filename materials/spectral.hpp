// Principal values of a symmetric strain tensor for laws written in principal stretches (Ogden),
// exact and differentiable by dual numbers at and near coincident principal values.
//
// The eigen decomposition E = Q diag(e) Q^T is taken of E's value by cyclic Jacobi rotations
// (accurate eigenvectors whatever the spacing of the eigenvalues). A dual E carries a derivative
// dE; a law never differentiates the eigenvalues or eigenvectors themselves, which have no
// derivative at coincident eigenvalues through a closed form (the square root of a vanishing
// discriminant). It uses what is smooth there:
//   - a scalar sum_a g(e_a) has the derivative sum_a g'(e_a) (Q^T dE Q)_aa;
//   - a matrix function f(E) = Q diag(f(e_a)) Q^T has the derivative
//     Q [f[e_a, e_b] (Q^T dE Q)_ab] Q^T (Daleckii-Krein), with the divided difference
//     f[e_a, e_b] = (f(e_a) - f(e_b)) / (e_a - e_b), which tends to f'(e_a) as e_b -> e_a: then
//     any orthonormal basis of the repeated eigenvalue's eigenspace gives the same result.
// The functions here are powers of the principal values c_a = 1 + 2 e_a of C = I + 2E, whose
// divided differences are formed as c_b^(g-1) expm1(g log1p(x)) / x with x = (c_a - c_b) / c_b:
// accurate for every spacing, without the cancellation of the plain difference quotient.
//
// C++17 (the CUDA builds compile it).
#pragma once

#include <cmath>

#include <fem/dual.hpp>
#include <fem/tensor.hpp>

namespace fem::materials {

/// Eigenvalues e and eigenvectors (the columns of Q) of a symmetric 3x3 matrix A: A = Q diag(e)
/// Q^T, by cyclic Jacobi rotations until every off-diagonal entry is negligible against its
/// pair of diagonal entries (quadratic convergence: 3-5 sweeps).
template <class R>
FEM_INLINE void symmetric_eigen(Mat3<R> A, R e[3], Mat3<R>& Q) {
  Q = Mat3<R>::identity();
  const R negligible = sizeof(R) < sizeof(double) ? R(1e-9) : R(1e-18);
  const R small_angle = sizeof(R) < sizeof(double) ? R(1e-4) : R(1e-8);  // t^2 below round-off
  for (int sweep = 0; sweep < 16; ++sweep) {
    bool rotated = false;
    for (int pair = 0; pair < 3; ++pair) {
      const int p = pair == 2 ? 1 : 0;
      const int q = pair == 0 ? 1 : 2;
      const R apq = A.m[p][q];
      if (fem::abs(apq) <= negligible * (fem::abs(A.m[p][p]) + fem::abs(A.m[q][q]))) {
        A.m[p][q] = A.m[q][p] = R(0);
        continue;
      }
      rotated = true;
      // The rotation in the (p, q) plane that zeroes A_pq: t = tan(angle), the smaller root of
      // t^2 + 2 theta t - 1 = 0. Late sweeps rotate by tiny angles: there t = A_pq / (A_qq - A_pp)
      // and c = 1 to round-off (relative errors t^2), without the square roots.
      const R diff = A.m[q][q] - A.m[p][p];
      R t, c;
      if (fem::abs(apq) < small_angle * fem::abs(diff)) {
        t = apq / diff;
        c = R(1);
      } else {
        const R theta = diff / (R(2) * apq);
        t = (theta >= R(0) ? R(1) : R(-1)) / (fem::abs(theta) + std::sqrt(theta * theta + R(1)));
        c = R(1) / std::sqrt(t * t + R(1));
      }
      const R s = t * c;
      A.m[p][p] -= t * apq;
      A.m[q][q] += t * apq;
      A.m[p][q] = A.m[q][p] = R(0);
      const int r = 3 - p - q;
      const R arp = A.m[r][p], arq = A.m[r][q];
      A.m[r][p] = A.m[p][r] = c * arp - s * arq;
      A.m[r][q] = A.m[q][r] = s * arp + c * arq;
      for (int k = 0; k < 3; ++k) {
        const R qkp = Q.m[k][p], qkq = Q.m[k][q];
        Q.m[k][p] = c * qkp - s * qkq;
        Q.m[k][q] = s * qkp + c * qkq;
      }
    }
    if (!rotated) break;
  }
  for (int a = 0; a < 3; ++a) e[a] = A.m[a][a];
}

/// The divided difference of c^g with respect to e between c_a = 1 + 2 ea and c_b = 1 + 2 eb
/// (log_cb = ln c_b): (c_a^g - c_b^g) / (ea - eb), and its limit 2 g c^(g-1) at ea = eb.
template <class R>
FEM_INLINE R power_divided_difference(R ea, R eb, R log_cb, R g) {
  const R x = R(2) * (ea - eb) / (R(1) + R(2) * eb);  // c_a / c_b - 1
  const R ratio = x == R(0) ? g : std::expm1(g * std::log1p(x)) / x;
  return R(2) * std::exp((g - R(1)) * log_cb) * ratio;
}

/// The principal values of a symmetric tensor E (scalar plain or dual) and, for a dual, its
/// derivative in the principal axes. The functions of E below are the powers of C = I + 2E.
template <class T>
struct Spectrum {
  using R = real_t<T>;
  R e[3];
  R log_c[3];  ///< ln c_a = log1p(2 e_a), shared by every power
  Mat3<R> Q;
  Mat3<R> dE;  ///< Q^T dE Q (dual E only)

  FEM_HD explicit Spectrum(const Mat3<T>& E) {
    Mat3<R> value;
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) value.m[i][j] = value_of(E.m[i][j]);
    symmetric_eigen(value, e, Q);
    for (int a = 0; a < 3; ++a) log_c[a] = std::log1p(R(2) * e[a]);
    if constexpr (is_dual_v<T>) {
      Mat3<R> d;
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) d.m[i][j] = E.m[i][j].d;
      dE = transpose(Q) * (d * Q);
    }
  }

  /// sum_a (c_a^g - 1), each term expm1(g ln c_a): no cancellation at small strains.
  FEM_HD T power_trace_minus_three(R g) const {
    R v = R(0);
    for (int a = 0; a < 3; ++a) v += std::expm1(g * log_c[a]);
    if constexpr (is_dual_v<T>) {
      R d = R(0);  // d(c^g)/de = 2 g c^(g-1)
      for (int a = 0; a < 3; ++a) d += R(2) * g * std::exp((g - R(1)) * log_c[a]) * dE.m[a][a];
      return T(v, d);
    } else {
      return v;
    }
  }

  /// The matrix function C^g - C^-1 = Q diag(c_a^g - 1/c_a) Q^T, its principal values formed as
  /// (c^g - 1) - (1/c - 1) = expm1(g ln c) + 2e / (1 + 2e).
  FEM_HD Mat3<T> power_minus_inverse(R g) const {
    R f[3];
    for (int a = 0; a < 3; ++a)
      f[a] = std::expm1(g * log_c[a]) + R(2) * e[a] / (R(1) + R(2) * e[a]);
    Mat3<T> out;
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) {
        R v = R(0);
        for (int a = 0; a < 3; ++a) v += Q.m[i][a] * f[a] * Q.m[j][a];
        out.m[i][j] = v;
      }
    if constexpr (is_dual_v<T>) {
      // Daleckii-Krein: Q [f[e_a, e_b] dE_ab] Q^T; 1/c has the divided difference -2/(c_a c_b).
      Mat3<R> rotated;
      for (int a = 0; a < 3; ++a)
        for (int b = a; b < 3; ++b) {
          const R divided = power_divided_difference(e[a], e[b], log_c[b], g) +
                            R(2) / ((R(1) + R(2) * e[a]) * (R(1) + R(2) * e[b]));
          rotated.m[a][b] = divided * dE.m[a][b];
          rotated.m[b][a] = divided * dE.m[b][a];
        }
      const Mat3<R> d = Q * (rotated * transpose(Q));
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) out.m[i][j].d = d.m[i][j];
    }
    return out;
  }
};

}  // namespace fem::materials
