// Compressible neo-Hookean in the form of the TLED papers (seed 000, eqs. 16-18):
//   Psi = mu/2 (J^(-2/3) I1 - 3) + kappa/2 (J - 1)^2
//   S   = mu J^(-2/3) (I - tr(C)/3 C^-1) + kappa J (J - 1) C^-1
#pragma once

#include <fem/material.hpp>
#include <fem/materials/isotropic.hpp>

namespace fem::materials {

struct NeoHookean {
  static constexpr const char* name = "neo_hookean";
  static constexpr const char* description = "compressible neo-Hookean (TLED form: mu, kappa)";
  static constexpr int num_params = 2;
  static constexpr const char* param_names[num_params] = {"shear_modulus", "bulk_modulus"};
  static constexpr int num_state = 0;
  static constexpr bool small_strain = false;

  static void parse(ParamReader& in, double* p) {
    const IsotropicConstants c = read_isotropic_constants(in);
    p[0] = c.mu;
    p[1] = c.bulk();
  }
  static double dilatational_modulus(const double* p) { return kappa(p) + 4.0 / 3.0 * mu(p); }
  /// The parameters by name, in the order parse() writes them.
  template <class T>
  FEM_HD static T mu(const T* p) {
    return p[0];
  }
  template <class T>
  FEM_HD static T kappa(const T* p) {
    return p[1];
  }

  template <class T>
  FEM_HD static Mat3<T> stress(const T* p, const Mat3<T>& F, T* /*state*/) {
    const T J = det(F);
    return piola(p, F, J, kappa(p) * J * (J - T(1)));
  }

  /// The same from H = F - I, with every small quantity formed from H: J - 1 from H's invariants
  /// and the isochoric part as 2 mu J^(-2/3) C^-1 dev(E), which equals
  /// mu J^(-2/3) (I - tr(C)/3 C^-1) (C = I + 2E) without its cancellation at small strains.
  template <class T>
  FEM_HD static Mat3<T> stress_from_gradient(const T* p, const Mat3<T>& H, T* /*state*/) {
    const T j_minus_one = jacobian_minus_one(H);
    const T J = T(1) + j_minus_one;
    Mat3<T> M = green_lagrange_from_gradient(H);
    const Mat3<T> Cinv = inverse(Mat3<T>::identity() + T(2) * M, J * J);
    const T iso = T(2) * mu(p) / cube_root(J * J);  // 2 mu J^(-2/3)
    const T third_trE = trace(M) / T(3);
    const T vol = kappa(p) * J * j_minus_one;  // J U'(J)
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j)
        M.m[i][j] = iso * (M.m[i][j] - (i == j ? third_trE : T(0))) + (i == j ? vol : T(0));
    Mat3<T> F = H;
    for (int i = 0; i < 3; ++i) F.m[i][i] += T(1);
    return F * (Cinv * M);
  }

  // Volumetric/deviatoric split (the averaged-nodal-pressure tetrahedron uses it):
  // U(J) = kappa/2 (J - 1)^2, p = U'(J) = kappa (J - 1); the isochoric part is deviatoric.
  template <class T>
  FEM_HD static T volumetric_pressure(const T* p, T J) {
    return kappa(p) * (J - T(1));
  }
  template <class T>
  FEM_HD static T volumetric_energy(const T* p, T J) {
    return T(0.5) * kappa(p) * (J - T(1)) * (J - T(1));
  }
  template <class T>
  FEM_HD static Mat3<T> deviatoric_stress(const T* p, const Mat3<T>& F, T* /*state*/) {
    return piola(p, F, det(F), T(0));
  }

  template <class T>
  FEM_HD static T strain_energy(const T* p, const Mat3<T>& F, const T* /*state*/) {
    const T J = det(F);
    const T I1 = trace(transpose_times_self(F));
    return T(0.5) * mu(p) * (I1 / cube_root(J * J) - T(3)) +
           T(0.5) * kappa(p) * (J - T(1)) * (J - T(1));
  }

 private:
  /// P = F S with S = mu J^(-2/3) (I - tr(C)/3 C^-1) + vol C^-1, vol = J U'(J) (0: deviatoric).
  template <class T>
  FEM_HD static Mat3<T> piola(const T* p, const Mat3<T>& F, T J, T vol) {
    const Mat3<T> C = transpose_times_self(F);
    const Mat3<T> Cinv = inverse(C, J * J);
    const T J23 = T(1) / cube_root(J * J);  // J^(-2/3)
    const T iso = mu(p) * J23;
    const T third_trC = trace(C) / T(3);
    Mat3<T> S;
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j)
        S.m[i][j] = (vol - iso * third_trC) * Cinv.m[i][j] + (i == j ? iso : T(0));
    return F * S;
  }
};

}  // namespace fem::materials

FEM_MATERIAL(fem::materials::NeoHookean)
