// Linear isotropic elasticity with small-strain kinematics: sigma = lambda tr(eps) I + 2 mu eps,
// eps = sym(grad u). The element force is then linear in the displacement, as for linear FEM.
#pragma once

#include <fem/material.hpp>
#include <fem/materials/isotropic.hpp>

namespace fem::materials {

struct LinearElastic : LameParameters {
  static constexpr const char* name = "linear_elastic";
  static constexpr const char* description = "linear isotropic elasticity (small strain)";
  static constexpr int num_state = 0;
  static constexpr bool small_strain = true;

  template <class T>
  FEM_HD static Mat3<T> stress(const T* p, const Mat3<T>& F, T* /*state*/) {
    return stress_of_strain(p, fem::small_strain(F));
  }

  /// The same from H = F - I: eps = sym(H) keeps the strain's digits that I + H rounds away.
  template <class T>
  FEM_HD static Mat3<T> stress_from_gradient(const T* p, const Mat3<T>& H, T* /*state*/) {
    return stress_of_strain(p, small_strain_from_gradient(H));
  }

  template <class T>
  FEM_HD static T strain_energy(const T* p, const Mat3<T>& F, const T* /*state*/) {
    const Mat3<T> eps = fem::small_strain(F);
    const T tr = trace(eps);
    return T(0.5) * lambda(p) * tr * tr + mu(p) * ddot(eps, eps);
  }

  // Volumetric/deviatoric split in the linearised volume ratio J = 1 + tr(eps):
  // U = K/2 (J - 1)^2 with K = lambda + 2 mu / 3, sigma_dev = 2 mu dev(eps).
  template <class T>
  FEM_HD static T volumetric_pressure(const T* p, T J) {
    return bulk(p) * (J - T(1));
  }
  template <class T>
  FEM_HD static T volumetric_energy(const T* p, T J) {
    return T(0.5) * bulk(p) * (J - T(1)) * (J - T(1));
  }
  template <class T>
  FEM_HD static Mat3<T> deviatoric_stress(const T* p, const Mat3<T>& F, T* /*state*/) {
    Mat3<T> s = (T(2) * mu(p)) * fem::small_strain(F);
    const T mean = trace(s) / T(3);
    for (int i = 0; i < 3; ++i) s.m[i][i] -= mean;
    return s;
  }

 private:
  template <class T>
  FEM_HD static Mat3<T> stress_of_strain(const T* p, const Mat3<T>& eps) {
    Mat3<T> s = (T(2) * mu(p)) * eps;
    const T volumetric = lambda(p) * trace(eps);
    for (int i = 0; i < 3; ++i) s.m[i][i] += volumetric;
    return s;
  }
  template <class T>
  FEM_HD static T bulk(const T* p) {
    return lambda(p) + T(2) * mu(p) / T(3);
  }
};

}  // namespace fem::materials

FEM_MATERIAL(fem::materials::LinearElastic)
