// Linear anisotropic elasticity with small-strain kinematics: sigma = C eps with a full,
// symmetric 6x6 stiffness in Voigt notation (order 11, 22, 33, 23, 13, 12; engineering shear
// strains 2 eps_ij), given as the 21 constants c11 ... c66 of its upper triangle in the case's
// axes, as ultrasonic testing gives austenitic weld metal or composites. Any anisotropy: cubic,
// transversely isotropic, orthotropic, triclinic. Constants not given are zero; the matrix must
// be positive definite (a real wave speed in every direction).
#pragma once

#include <algorithm>
#include <cmath>
#include <string>

#include <fem/material.hpp>

namespace fem::materials {

struct LinearElasticAnisotropic {
  static constexpr const char* name = "linear_elastic_anisotropic";
  static constexpr const char* description =
      "linear anisotropic elasticity (small strain), full 6x6 Voigt stiffness c11..c66";
  static constexpr int num_state = 0;
  static constexpr bool small_strain = true;
  static constexpr int num_params = 21;
  /// The upper triangle, row by row: c11 c12 c13 c14 c15 c16 c22 c23 ... c66.
  static constexpr const char* param_names[num_params] = {
      "c11", "c12", "c13", "c14", "c15", "c16", "c22", "c23", "c24", "c25", "c26",
      "c33", "c34", "c35", "c36", "c44", "c45", "c46", "c55", "c56", "c66"};

  /// Position of C_ij (0-based Voigt indices) among the params.
  FEM_HD static constexpr int index(int i, int j) {
    const int r = i < j ? i : j, c = i < j ? j : i;
    return r * 6 - r * (r - 1) / 2 + (c - r);
  }

  static void parse(ParamReader& in, double* p) {
    for (int k = 0; k < num_params; ++k) p[k] = in.number(param_names[k], 0.0);
    for (int i = 0; i < 6; ++i) {
      const std::string key = param_names[index(i, i)];
      if (!in.has(key))
        in.fail_here("the diagonal constant " + key + " is missing",
                     "give c11, c22, c33, c44, c55 and c66 (Pa) and the couplings that are not "
                     "zero, in Voigt order 11, 22, 33, 23, 13, 12");
    }
    // Positive definite: a Cholesky factorisation of the Mandel form (shear rows and columns
    // scaled by sqrt(2), so that it is the energy's matrix in an orthonormal basis) succeeds.
    double a[6][6];
    for (int i = 0; i < 6; ++i)
      for (int j = 0; j < 6; ++j)
        a[i][j] =
            p[index(i, j)] * (i >= 3 ? std::sqrt(2.0) : 1.0) * (j >= 3 ? std::sqrt(2.0) : 1.0);
    for (int j = 0; j < 6; ++j) {
      double d = a[j][j];
      for (int k = 0; k < j; ++k) d -= a[j][k] * a[j][k];
      if (!(d > 1e-12 * a[j][j]))
        in.fail_here(
            "the stiffness c11..c66 is not positive definite: some strain would store "
            "no energy, and waves would have no real speed",
            "check the constants' values, units (Pa) and Voigt order (11, 22, 33, 23, "
            "13, 12)");
      a[j][j] = std::sqrt(d);
      for (int i = j + 1; i < 6; ++i) {
        double s = a[i][j];
        for (int k = 0; k < j; ++k) s -= a[i][k] * a[j][k];
        a[i][j] = s / a[j][j];
      }
    }
  }

  /// An upper bound of rho c^2 over directions (the explicit solvers' critical step): the
  /// largest Gershgorin row sum of the Mandel form bounds its largest eigenvalue, which bounds
  /// the acoustic tensor's.
  static double dilatational_modulus(const double* p) {
    double bound = 0.0;
    for (int i = 0; i < 6; ++i) {
      double row = 0.0;
      for (int j = 0; j < 6; ++j)
        row += std::abs(p[index(i, j)]) * (i >= 3 ? std::sqrt(2.0) : 1.0) *
               (j >= 3 ? std::sqrt(2.0) : 1.0);
      bound = std::max(bound, row);
    }
    return bound;
  }

  template <class T>
  FEM_HD static Mat3<T> stress(const T* p, const Mat3<T>& F, T* /*state*/) {
    return stress_of_strain(p, fem::small_strain(F));
  }

  /// The same from H = F - I (keeps the strain's digits in single precision).
  template <class T>
  FEM_HD static Mat3<T> stress_from_gradient(const T* p, const Mat3<T>& H, T* /*state*/) {
    return stress_of_strain(p, small_strain_from_gradient(H));
  }

  template <class T>
  FEM_HD static T strain_energy(const T* p, const Mat3<T>& F, const T* /*state*/) {
    const Mat3<T> eps = fem::small_strain(F);
    const Mat3<T> s = stress_of_strain(p, eps);
    T w = T(0);
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) w += s.m[i][j] * eps.m[i][j];
    return T(0.5) * w;
  }

 private:
  template <class T>
  FEM_HD static Mat3<T> stress_of_strain(const T* p, const Mat3<T>& eps) {
    // Voigt strains with engineering shears.
    const T e[6] = {eps.m[0][0],        eps.m[1][1],        eps.m[2][2],
                    T(2) * eps.m[1][2], T(2) * eps.m[0][2], T(2) * eps.m[0][1]};
    T s[6];
    for (int i = 0; i < 6; ++i) {
      s[i] = T(0);
      for (int j = 0; j < 6; ++j) s[i] += T(p[index(i, j)]) * e[j];
    }
    Mat3<T> out;
    out.m[0][0] = s[0];
    out.m[1][1] = s[1];
    out.m[2][2] = s[2];
    out.m[1][2] = out.m[2][1] = s[3];
    out.m[0][2] = out.m[2][0] = s[4];
    out.m[0][1] = out.m[1][0] = s[5];
    return out;
  }
};

}  // namespace fem::materials

FEM_MATERIAL(fem::materials::LinearElasticAnisotropic)
