// What the isochoric/volumetric hyperelastic laws (Mooney-Rivlin, reduced polynomial, Ogden,
// transversely isotropic) share: Abaqus/CalculiX's volumetric term sum_i (1/D_i) (J - 1)^(2i),
// its parameters, and the stress of an energy of the isochoric invariants.
//
// Every law here is W = W_dev(C~) + U(J) with C~ = J^(-2/3) C. Its stress is computed from the
// Green-Lagrange strain E and J (and J - 1): from F (stress()) or from the displacement gradient
// H = F - I (stress_from_gradient(), which single precision uses), where E and J - 1 formed from
// H keep a small strain's digits. The isochoric stresses are written with dev() of small
// quantities, never as the difference of O(1) terms (I - I1/3 C^-1 loses a small strain's digits
// in single precision; 2 C^-1 dev(E) does not).
//
// C++17 (the CUDA builds compile it).
#pragma once

#include <cmath>
#include <string>

#include <fem/material.hpp>

namespace fem::materials {

/// exp(x) - 1, accurate for small x, for plain and dual scalars.
template <class T>
FEM_INLINE T exp_minus_one(const T& x) {
  if constexpr (is_dual_v<T>)
    return chain(x, std::expm1(x.v), std::exp(x.v));
  else
    return std::expm1(x);
}

/// Abaqus/CalculiX's volumetric energy U(J) = sum_{i=1..n} inv_d[i-1] (J - 1)^(2i), with the
/// coefficients stored as inv_d = 1/D_i (0: no term). K = 2/D1 is the initial bulk modulus.
template <int N>
struct VolumetricPolynomial {
  /// Reads d1 (or bulk_modulus, d1 = 2/K) and, for N > 1, the optional d2 .. dN (0 or absent:
  /// no term) into inv_d[0..N-1].
  static void parse(ParamReader& in, double* inv_d) {
    const bool has_d1 = in.has("d1");
    const bool has_k = in.has("bulk_modulus");
    const std::string hint =
        "give d1 (Abaqus/CalculiX's D1 in 1/Pa, the initial bulk modulus is K = 2/d1) or "
        "bulk_modulus (Pa); for a nearly incompressible solid take K about 1000 times the "
        "shear modulus";
    if (has_d1 == has_k)
      in.fail_here(has_d1 ? "d1 and bulk_modulus both given" : "the volumetric term is missing",
                   hint);
    if (has_d1) {
      const double d1 = in.number("d1");
      if (!(d1 > 0.0))
        in.fail("d1",
                "d1 must be > 0: fem solves compressible laws only (d1 = 0 is the "
                "incompressible limit)",
                hint);
      inv_d[0] = 1.0 / d1;
    } else {
      const double k = in.number("bulk_modulus");
      in.require_positive("bulk_modulus", k);
      inv_d[0] = 0.5 * k;
    }
    static constexpr const char* keys[3] = {"d1", "d2", "d3"};
    static constexpr const char* powers[3] = {"2", "4", "6"};
    static_assert(N >= 1 && N <= 3, "one to three volumetric terms");
    for (int i = 1; i < N; ++i) {
      const std::string key = keys[i];
      const double d = in.number(key, 0.0);
      if (d < 0.0) {
        std::string message = key;
        message += " must be >= 0 (0 or absent: no (J - 1)^";
        message += powers[i];
        message += " term)";
        in.fail(key, message);
      }
      inv_d[i] = d > 0.0 ? 1.0 / d : 0.0;
    }
  }
  static double bulk_modulus(const double* inv_d) { return 2.0 * inv_d[0]; }

  /// U at J = 1 + j_minus_one (J - 1 given: formed from H, it keeps a small strain's digits).
  template <class T>
  FEM_HD static T energy(const T* inv_d, T j_minus_one) {
    const T x = j_minus_one * j_minus_one;
    T power = x, u = T(0);
    for (int i = 0; i < N; ++i) {
      u += inv_d[i] * power;
      power *= x;
    }
    return u;
  }
  /// U'(J) = sum_i 2i/D_i (J - 1)^(2i - 1), at J = 1 + j_minus_one.
  template <class T>
  FEM_HD static T pressure(const T* inv_d, T j_minus_one) {
    const T y = j_minus_one;
    const T x = y * y;
    T power = y, p = T(0);
    for (int i = 0; i < N; ++i) {
      p += T(2 * (i + 1)) * inv_d[i] * power;
      power *= x;
    }
    return p;
  }
};

/// Kinematics of an isochoric/volumetric law: F, E, J and J - 1, and C^-1.
template <class T>
struct IsochoricKinematics {
  Mat3<T> F;
  Mat3<T> E;  ///< Green-Lagrange strain (C = I + 2E)
  T J;
  T j_minus_one;
  Mat3<T> Cinv;

  FEM_HD static IsochoricKinematics from_deformation(const Mat3<T>& F) {
    const T J = det(F);
    return {F, green_lagrange(F), J, J - T(1), inverse(transpose_times_self(F), J * J)};
  }
  FEM_HD static IsochoricKinematics from_gradient(const Mat3<T>& H) {
    Mat3<T> F = H;
    for (int i = 0; i < 3; ++i) F.m[i][i] += T(1);
    const T jm1 = jacobian_minus_one(H);
    const T J = T(1) + jm1;
    const Mat3<T> E = green_lagrange_from_gradient(H);
    return {F, E, J, jm1, inverse(Mat3<T>::identity() + T(2) * E, J * J)};
  }

  /// J^(-2/3).
  FEM_HD T j_minus_two_thirds() const { return T(1) / cube_root(J * J); }
  /// J^(-2/3) - 1 without cancellation: -(J^(2/3) - 1) / J^(2/3), J^(2/3) - 1 =
  /// (J^2 - 1) / (J^(4/3) + J^(2/3) + 1).
  FEM_HD T j_minus_two_thirds_minus_one() const {
    const T j23 = cube_root(J * J);
    return -(j_minus_one * (J + T(1))) / ((j23 * j23 + j23 + T(1)) * j23);
  }
  /// I1~ - 3 = J^(-2/3) (3 + 2 tr E) - 3.
  FEM_HD T i1_bar_minus_three() const {
    return T(2) * trace(E) * j_minus_two_thirds() + T(3) * j_minus_two_thirds_minus_one();
  }
  /// I2~ - 3 = J^(-4/3) I2 - 3, I2 = 3 + 4 tr E + 2 ((tr E)^2 - tr(E^2)).
  FEM_HD T i2_bar_minus_three() const {
    const T t = trace(E);
    const T i2_minus_three = T(4) * t + T(2) * (t * t - ddot(E, E));
    const T j43 = j_minus_two_thirds() * j_minus_two_thirds();
    const T j43_minus_one = j_minus_two_thirds_minus_one() * (j_minus_two_thirds() + T(1));
    return j43 * i2_minus_three + T(3) * j43_minus_one;
  }
  /// The isochoric stretch squared along the unit vector a: I4~ - 1 = J^(-2/3) (1 + 2 a.E a) - 1.
  FEM_HD T i4_bar_minus_one(const T a[3]) const {
    T aea = T(0);
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) aea += a[i] * E.m[i][j] * a[j];
    return T(2) * aea * j_minus_two_thirds() + j_minus_two_thirds_minus_one();
  }

  /// P = F S for S = 2 dW/dC of W = W_dev(I1~, I2~, I4~) + U(J), given psi1 = dW/dI1~,
  /// psi2 = dW/dI2~, psi4 = dW/dI4~ along the unit vector a (nullptr: none) and vol = J U'(J):
  ///   S = 4 J^(-2/3) psi1 C^-1 dev(E) + 4 J^(-4/3) psi2 C^-1 dev((1 + 2 tr E) E - 2 E^2)
  ///     + 2 J^(-2/3) psi4 (a (x) a - I4/3 C^-1) + vol C^-1,
  /// the derivatives of I1~ and I2~ written with C^-1 dev(C) = 2 C^-1 dev(E) and
  /// C^-1 dev(I1 C - C^2) = 2 C^-1 dev((1 + 2 tr E) E - 2 E^2).
  FEM_HD Mat3<T> invariant_piola(T psi1, T psi2, T psi4, const T* a, T vol) const {
    const T j23 = j_minus_two_thirds();
    const T t = trace(E);
    const Mat3<T> E2 = E * E;
    const T c1 = T(4) * j23 * psi1;
    const T c2 = T(4) * j23 * j23 * psi2;
    Mat3<T> M;
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j)
        M.m[i][j] = c1 * E.m[i][j] + c2 * ((T(1) + T(2) * t) * E.m[i][j] - T(2) * E2.m[i][j]);
    const T third_trace = trace(M) / T(3);
    for (int i = 0; i < 3; ++i) M.m[i][i] -= third_trace;
    Mat3<T> S = Cinv * M;
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) S.m[i][j] += vol * Cinv.m[i][j];
    if (a != nullptr) {
      T i4 = T(0);  // a.C a
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) i4 += a[i] * ((i == j ? T(1) : T(0)) + T(2) * E.m[i][j]) * a[j];
      const T c4 = T(2) * j23 * psi4;
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) S.m[i][j] += c4 * (a[i] * a[j] - i4 / T(3) * Cinv.m[i][j]);
    }
    return F * S;
  }
};

}  // namespace fem::materials
