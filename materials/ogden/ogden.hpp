// Compressible Ogden in Abaqus/CalculiX's form (*HYPERELASTIC, OGDEN, N = 1..3):
//   W = sum_{i=1..N} 2 mu_i / alpha_i^2 (l1~^alpha_i + l2~^alpha_i + l3~^alpha_i - 3)
//     + sum_{i=1..N} (1/D_i) (J - 1)^(2i),
// l~_a = J^(-1/3) l_a the isochoric principal stretches. Initial shear modulus mu0 = sum mu_i,
// initial bulk modulus K0 = 2/D1. N = 1, alpha1 = 2 is neo_hookean with mu = mu1.
//
// With c_a = l_a^2 the eigenvalues of C, S = 2 dW/dC is
//   S = sum_i (2 mu_i / alpha_i) J^(-alpha_i/3) [C^(b_i - 1) - tr(C^b_i)/3 C^-1] + J U'(J) C^-1,
// b_i = alpha_i / 2, computed as (C^(b-1) - C^-1) - (tr(C^b) - 3)/3 C^-1 from the eigenvalues of
// E = (C - I)/2 (spectral.hpp: the matrix power's derivative by divided differences, right at
// coincident principal stretches, as at F = I and in uniaxial states).
#pragma once

#include "../hyperelastic.hpp"
#include "../spectral.hpp"

namespace fem::materials {

struct Ogden {
  static constexpr const char* name = "ogden";
  static constexpr const char* description =
      "compressible Ogden, Abaqus form, N = 1..3 (mu1, alpha1, ..., d1 or bulk_modulus, d2, d3)";
  static constexpr int max_terms = 3;
  static constexpr int num_params = 9;
  /// mu_i, alpha_i of N = 1..3 terms (absent terms: mu = 0), then 1/D1, 1/D2, 1/D3.
  static constexpr const char* param_names[num_params] = {
      "mu1", "alpha1", "mu2", "alpha2", "mu3", "alpha3", "1/d1", "1/d2", "1/d3"};
  static constexpr int num_state = 0;
  static constexpr bool small_strain = false;
  using Volumetric = VolumetricPolynomial<3>;

  static void parse(ParamReader& in, double* p) {
    int terms = 0;
    double mu0 = 0.0;
    for (int i = 0; i < max_terms; ++i) {
      const std::string mu = param_names[2 * i];
      const std::string alpha = param_names[2 * i + 1];
      const bool has_mu = in.has(mu), has_alpha = in.has(alpha);
      p[2 * i] = 0.0;
      p[2 * i + 1] = 1.0;
      if (!has_mu && !has_alpha) continue;
      if (has_mu != has_alpha)
        in.fail(has_mu ? mu : alpha, "an Ogden term needs both " + mu + " and " + alpha,
                "term i of N = 1..3 is 2 mu_i / alpha_i^2 (l1~^alpha_i + l2~^alpha_i + "
                "l3~^alpha_i - 3) (Abaqus/CalculiX's form)");
      if (terms != i)
        in.fail(mu, mu + " is given without the terms before it",
                "number the terms from 1: mu1, alpha1, then mu2, alpha2, then mu3, alpha3");
      p[2 * i] = in.number(mu);
      p[2 * i + 1] = in.number(alpha);
      if (p[2 * i + 1] == 0.0)
        in.fail(alpha, alpha + " must not be 0 (the term divides by alpha^2)",
                "alpha = 2 with N = 1 is neo-Hookean; rubber fits have alpha between -5 and 8");
      mu0 += p[2 * i];
      ++terms;
    }
    if (terms == 0)
      in.fail_here("no Ogden term: give mu1 and alpha1 (and mu2, alpha2, mu3, alpha3 for N = 2, 3)",
                   "mu_i in Pa; the initial shear modulus is mu1 + mu2 + mu3");
    if (!(mu0 > 0.0))
      in.fail_here("the initial shear modulus mu1 + mu2 + mu3 must be > 0",
                   "check the signs of the mu_i (Abaqus/CalculiX's convention)");
    Volumetric::parse(in, p + 2 * max_terms);
  }
  static double dilatational_modulus(const double* p) {
    double mu0 = 0.0;
    for (int i = 0; i < max_terms; ++i) mu0 += p[2 * i];
    return Volumetric::bulk_modulus(p + 2 * max_terms) + 4.0 / 3.0 * mu0;
  }

  template <class T>
  FEM_HD static Mat3<T> stress(const T* p, const Mat3<T>& F, T* /*state*/) {
    return piola(p, IsochoricKinematics<T>::from_deformation(F), true);
  }
  /// The same from H = F - I (E and J - 1 from H: single precision keeps small strains).
  template <class T>
  FEM_HD static Mat3<T> stress_from_gradient(const T* p, const Mat3<T>& H, T* /*state*/) {
    return piola(p, IsochoricKinematics<T>::from_gradient(H), true);
  }
  template <class T>
  FEM_HD static T strain_energy(const T* p, const Mat3<T>& F, const T* /*state*/) {
    const auto k = IsochoricKinematics<T>::from_deformation(F);
    const Spectrum<T> spectrum(k.E);
    const T log_j = fem::log(k.J);
    T w = Volumetric::energy(p + 2 * max_terms, k.j_minus_one);
    for (int i = 0; i < max_terms; ++i) {
      const T mu = p[2 * i], alpha = p[2 * i + 1];
      if (mu == T(0)) continue;
      const T scale = fem::exp(-alpha / T(3) * log_j);  // J^(-alpha/3)
      const T sum_minus_three = spectrum.power_trace_minus_three(value_of(alpha) / 2);
      w += T(2) * mu / (alpha * alpha) * (T(3) * (scale - T(1)) + scale * sum_minus_three);
    }
    return w;
  }

  // Volumetric/deviatoric split: U(J) = sum_i (J - 1)^(2i) / D_i.
  template <class T>
  FEM_HD static T volumetric_pressure(const T* p, T J) {
    return Volumetric::pressure(p + 2 * max_terms, J - T(1));
  }
  template <class T>
  FEM_HD static T volumetric_energy(const T* p, T J) {
    return Volumetric::energy(p + 2 * max_terms, J - T(1));
  }
  template <class T>
  FEM_HD static Mat3<T> deviatoric_stress(const T* p, const Mat3<T>& F, T* /*state*/) {
    return piola(p, IsochoricKinematics<T>::from_deformation(F), false);
  }

 private:
  template <class T>
  FEM_HD static Mat3<T> piola(const T* p, const IsochoricKinematics<T>& k, bool volumetric) {
    using R = real_t<T>;
    const Spectrum<T> spectrum(k.E);
    const T log_j = fem::log(k.J);
    T vol = volumetric ? k.J * Volumetric::pressure(p + 2 * max_terms, k.j_minus_one) : T(0);
    Mat3<T> S = Mat3<T>::zero();
    for (int i = 0; i < max_terms; ++i) {
      const T mu = p[2 * i], alpha = p[2 * i + 1];
      if (mu == T(0)) continue;
      const R b = value_of(alpha) / R(2);
      const T scale = T(2) * mu / alpha * fem::exp(-alpha / T(3) * log_j);
      const Mat3<T> power = spectrum.power_minus_inverse(b - R(1));      // C^(b-1) - C^-1
      const T third_trace = spectrum.power_trace_minus_three(b) / T(3);  // (tr C^b - 3) / 3
      for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c)
          S.m[r][c] += scale * (power.m[r][c] - third_trace * k.Cinv.m[r][c]);
    }
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 3; ++c) S.m[r][c] += vol * k.Cinv.m[r][c];
    return k.F * S;
  }
};

}  // namespace fem::materials

FEM_MATERIAL(fem::materials::Ogden)
