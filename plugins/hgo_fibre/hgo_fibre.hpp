// Transversely isotropic fibre-reinforced hyperelasticity of Holzapfel-Gasser-Ogden type: the
// built-in neo-Hookean matrix (same isochoric and volumetric terms, so k1 = 0 is exactly
// neo_hookean) plus one family of fibres along the unit reference direction a0:
//   Psi = mu/2 (J^(-2/3) I1 - 3) + kappa/2 (J - 1)^2 + k1/(2 k2) (exp(k2 (I4 - 1)^2) - 1)
//   S   = S_neo_hookean + 2 k1 (I4 - 1) exp(k2 (I4 - 1)^2) a0 (x) a0,   I4 = a0 . C a0
// The fibre term acts only while I4 > 1: fibres do not bear compression. I4 is the full (not the
// isochoric) invariant, as Nolan et al. (2014, J Mech Behav Biomed Mater 39) recommend for
// compressible HGO models: with the isochoric one a fibre-reinforced body does not keep its
// shape under hydrostatic pressure. The fibre direction is a parameter of the material; a case
// gives blocks different directions through different materials.
//
// exp() is built from + - * / (exp_arithmetic below), like fem::cube_root, so the CUDA, Kokkos
// and OpenMP builds compute the same bits and backends can be compared in single precision too
// (library exp differs between CPU and GPU in the last bits: docs/architecture.md).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <fem/material.hpp>
#include <fem/materials/isotropic.hpp>

namespace hgo {

/// exp(x) from arithmetic only: x = k ln2 + r with |r| <= ln2/2 (Cody-Waite), a Taylor
/// polynomial for exp(r) (degree 13 in double, 7 in single: below half an ulp of truncation),
/// and 2^k put into the exponent bits. About 1 ulp from the library's exp. With T a dual number
/// (the implicit solver's tangent) the derivative follows the polynomial: precision is chosen by
/// the underlying scalar, fem::real_t<T>, not by sizeof(T).
template <class T>
FEM_INLINE T exp_arithmetic(T x) {
  constexpr bool single = sizeof(fem::real_t<T>) == 4;
  const T limit = single ? T(87) : T(708);
  if (x != x) return x;  // NaN
  if (x > limit) {       // +inf, made by overflow (no <limits> on the device)
    T big = T(1e30);
    return big * big * big * big * big * big * big * big * big * big * big;
  }
  if (x < -limit) return T(0);
  const T ln2_hi = single ? T(6.9314575195e-01) : T(6.93147180369123816490e-01);
  const T ln2_lo = single ? T(1.4286067653e-06) : T(1.90821492927058770002e-10);
  const T scaled = x * T(1.44269504088896338700);  // x / ln 2
  const int k = static_cast<int>(scaled + (scaled >= T(0) ? T(0.5) : T(-0.5)));
  const T r = (x - T(k) * ln2_hi) - T(k) * ln2_lo;
  // Horner on 1/n!, highest degree first.
  constexpr int degree = single ? 7 : 13;
  T p = T(1);
  for (int n = degree; n >= 1; --n) p = T(1) + p * r / T(n);
  if constexpr (single) {
    const std::uint32_t bits = static_cast<std::uint32_t>(k + 127) << 23;
    float two_k;
    memcpy(&two_k, &bits, 4);
    return p * two_k;
  } else {
    const std::uint64_t bits = static_cast<std::uint64_t>(k + 1023) << 52;
    double two_k;
    memcpy(&two_k, &bits, 8);
    return p * two_k;
  }
}

struct HgoFibre {
  static constexpr const char* name = "hgo_fibre";
  static constexpr const char* description =
      "fibre-reinforced neo-Hookean, Holzapfel-Gasser-Ogden type (mu, kappa, k1, k2, a0)";
  // mu, kappa, k1, k2, a0 (unit), max_fibre_stretch (host only: the time step)
  static constexpr int num_params = 8;
  static constexpr const char* param_names[num_params] = {
      "shear_modulus", "bulk_modulus", "k1", "k2", "a0_x", "a0_y", "a0_z", "max_fibre_stretch"};
  static constexpr int num_state = 0;
  static constexpr bool small_strain = false;

  static void parse(fem::ParamReader& in, double* p) {
    const fem::IsotropicConstants c = fem::read_isotropic_constants(in);
    p[0] = c.mu;
    p[1] = c.bulk();
    p[2] = in.number("k1");
    if (!(p[2] >= 0.0))
      in.fail("k1", "'k1' (fibre stiffness, Pa) must be >= 0, got " + std::to_string(p[2]),
              "k1 = 0 leaves the neo-Hookean matrix alone");
    p[3] = in.number("k2");
    in.require_positive("k2", p[3]);  // k1/(2 k2) has no meaning for k2 <= 0
    const std::vector<double> a = in.vector3("fibre_direction");
    const double norm = std::sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
    if (!(norm > 0.0) || !std::isfinite(norm))
      in.fail("fibre_direction", "'fibre_direction' must be a non-zero vector",
              "give the fibre direction in the reference configuration, e.g. [1, 0, 0]; it "
              "need not be of unit length");
    for (int i = 0; i < 3; ++i) p[4 + i] = a[i] / norm;
    p[7] = in.number("max_fibre_stretch", 1.1);
    in.require_range("max_fibre_stretch", p[7], 1.0, 10.0, true, true);
  }

  /// The parameters by name, in the order parse() writes them.
  template <class T>
  struct Params {
    T mu, kappa, k1, k2;
    T a0[3];  ///< unit fibre direction in the reference configuration
  };
  template <class T>
  FEM_HD static Params<T> named(const T* p) {
    return {p[0], p[1], p[2], p[3], {p[4], p[5], p[6]}};
  }

  /// Fibre modulus along a0 at stretch lambda, d^2 Psi_f / d lambda^2 (4 k1 at lambda = 1).
  static double fibre_modulus(const double* p, double lambda) {
    const Params<double> q = named(p);
    const double d = lambda * lambda - 1.0, e = std::exp(q.k2 * d * d);
    return 2.0 * q.k1 * d * e + 4.0 * lambda * lambda * q.k1 * e * (1.0 + 2.0 * q.k2 * d * d);
  }

  /// P-wave modulus for the stable time step: the matrix's kappa + 4/3 mu plus the fibres'
  /// stiffness at the largest stretch the run is meant to reach (max_fibre_stretch).
  static double dilatational_modulus(const double* p) {
    const double max_fibre_stretch = p[7];
    return named(p).kappa + 4.0 / 3.0 * named(p).mu + fibre_modulus(p, max_fibre_stretch);
  }

  template <class T>
  FEM_HD static fem::Mat3<T> stress(const T* p, const fem::Mat3<T>& F, T* /*state*/) {
    const Params<T> q = named(p);
    // The neo-Hookean matrix, written exactly as the built-in neo_hookean.
    const fem::Mat3<T> C = fem::transpose_times_self(F);
    const T J = fem::det(F);
    const fem::Mat3<T> Cinv = fem::inverse(C, J * J);
    const T J23 = T(1) / fem::cube_root(J * J);  // J^(-2/3)
    const T iso = q.mu * J23;
    const T third_trC = fem::trace(C) / T(3);
    const T vol = q.kappa * J * (J - T(1));
    fem::Mat3<T> S;
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j)
        S.m[i][j] = (vol - iso * third_trC) * Cinv.m[i][j] + (i == j ? iso : T(0));
    // The fibres, in tension only.
    const T* a = q.a0;
    T I4 = T(0);
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) I4 += a[i] * C.m[i][j] * a[j];
    const T d = I4 - T(1);
    if (d > T(0) && q.k1 > T(0)) {
      const T s = T(2) * q.k1 * d * exp_arithmetic(q.k2 * d * d);
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) S.m[i][j] += s * a[i] * a[j];
    }
    return F * S;
  }

  /// The same from the displacement gradient H = F - I, which fem calls in single precision
  /// (fem/material.hpp): the matrix written exactly as the built-in neo_hookean's
  /// stress_from_gradient, and I4 - 1 = 2 a0 . E a0 from E = (H + H^T + H^T H) / 2, so that
  /// small strains keep their digits in float.
  template <class T>
  FEM_HD static fem::Mat3<T> stress_from_gradient(const T* p, const fem::Mat3<T>& H, T* /*state*/) {
    const Params<T> q = named(p);
    const T j_minus_one = fem::jacobian_minus_one(H);
    const T J = T(1) + j_minus_one;
    fem::Mat3<T> M = fem::green_lagrange_from_gradient(H);
    const fem::Mat3<T> Cinv = fem::inverse(fem::Mat3<T>::identity() + T(2) * M, J * J);
    const T* a = q.a0;
    T two_aEa = T(0);  // I4 - 1
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) two_aEa += a[i] * M.m[i][j] * a[j];
    two_aEa = T(2) * two_aEa;
    const T iso = T(2) * q.mu / fem::cube_root(J * J);  // 2 mu J^(-2/3)
    const T third_trE = fem::trace(M) / T(3);
    const T vol = q.kappa * J * j_minus_one;
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j)
        M.m[i][j] = iso * (M.m[i][j] - (i == j ? third_trE : T(0))) + (i == j ? vol : T(0));
    fem::Mat3<T> S = Cinv * M;
    if (two_aEa > T(0) && q.k1 > T(0)) {
      const T s = T(2) * q.k1 * two_aEa * exp_arithmetic(q.k2 * two_aEa * two_aEa);
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) S.m[i][j] += s * a[i] * a[j];
    }
    fem::Mat3<T> F = H;
    for (int i = 0; i < 3; ++i) F.m[i][i] += T(1);
    return F * S;
  }

  template <class T>
  FEM_HD static T strain_energy(const T* p, const fem::Mat3<T>& F, const T* /*state*/) {
    const fem::Mat3<T> C = fem::transpose_times_self(F);
    const T J = fem::det(F);
    const T I1 = fem::trace(C);
    const Params<T> q = named(p);
    T psi = T(0.5) * q.mu * (I1 / fem::cube_root(J * J) - T(3)) +
            T(0.5) * q.kappa * (J - T(1)) * (J - T(1));
    const T* a = q.a0;
    T I4 = T(0);
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) I4 += a[i] * C.m[i][j] * a[j];
    const T d = I4 - T(1);
    if (d > T(0) && q.k1 > T(0))
      psi += q.k1 / (T(2) * q.k2) * (exp_arithmetic(q.k2 * d * d) - T(1));
    return psi;
  }
};

}  // namespace hgo

FEM_MATERIAL(hgo::HgoFibre)
