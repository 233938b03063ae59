// St Venant-Kirchhoff: S = lambda tr(E) I + 2 mu E with the Green-Lagrange strain E.
// Large rotations are exact; it softens unphysically in strong compression.
#pragma once

#include <fem/material.hpp>
#include <fem/materials/isotropic.hpp>

namespace fem::materials {

struct SaintVenantKirchhoff : LameParameters {
  static constexpr const char* name = "saint_venant_kirchhoff";
  static constexpr const char* description = "St Venant-Kirchhoff hyperelasticity";
  static constexpr int num_state = 0;
  static constexpr bool small_strain = false;

  template <class T>
  FEM_HD static Mat3<T> stress(const T* p, const Mat3<T>& F, T* /*state*/) {
    return F * second_piola(p, green_lagrange(F));
  }

  /// The same from H = F - I: E from H keeps the strain's digits that I + H rounds away.
  template <class T>
  FEM_HD static Mat3<T> stress_from_gradient(const T* p, const Mat3<T>& H, T* /*state*/) {
    return (Mat3<T>::identity() + H) * second_piola(p, green_lagrange_from_gradient(H));
  }

  template <class T>
  FEM_HD static T strain_energy(const T* p, const Mat3<T>& F, const T* /*state*/) {
    const Mat3<T> E = green_lagrange(F);
    const T tr = trace(E);
    return T(0.5) * lambda(p) * tr * tr + mu(p) * ddot(E, E);
  }

 private:
  /// S = lambda tr(E) I + 2 mu E.
  template <class T>
  FEM_HD static Mat3<T> second_piola(const T* p, const Mat3<T>& E) {
    Mat3<T> S = (T(2) * mu(p)) * E;
    const T volumetric = lambda(p) * trace(E);
    for (int i = 0; i < 3; ++i) S.m[i][i] += volumetric;
    return S;
  }
};

}  // namespace fem::materials

FEM_MATERIAL(fem::materials::SaintVenantKirchhoff)
