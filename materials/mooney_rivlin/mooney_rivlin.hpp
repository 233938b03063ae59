// Compressible Mooney-Rivlin in Abaqus/CalculiX's form (*HYPERELASTIC, MOONEY-RIVLIN):
//   W = C10 (I1~ - 3) + C01 (I2~ - 3) + (1/D1) (J - 1)^2,
// I1~ = J^(-2/3) I1 and I2~ = J^(-4/3) I2 the isochoric invariants of C = F^T F. Initial shear
// modulus mu0 = 2 (C10 + C01), initial bulk modulus K0 = 2/D1. With C01 = 0 it is neo_hookean
// with mu = 2 C10, kappa = 2/D1.
#pragma once

#include "../hyperelastic.hpp"

namespace fem::materials {

struct MooneyRivlin {
  static constexpr const char* name = "mooney_rivlin";
  static constexpr const char* description =
      "compressible Mooney-Rivlin, Abaqus form (c10, c01, d1 or bulk_modulus)";
  static constexpr int num_params = 3;
  static constexpr const char* param_names[num_params] = {"c10", "c01", "1/d1"};
  static constexpr int num_state = 0;
  static constexpr bool small_strain = false;
  using Volumetric = VolumetricPolynomial<1>;

  static void parse(ParamReader& in, double* p) {
    p[0] = in.number("c10");
    p[1] = in.number("c01", 0.0);
    if (!(p[0] + p[1] > 0.0))
      in.fail_here("the initial shear modulus 2 (c10 + c01) must be > 0",
                   "c10 and c01 are Abaqus/CalculiX's C10 and C01 (Pa)");
    Volumetric::parse(in, p + 2);
  }
  static double dilatational_modulus(const double* p) {
    return Volumetric::bulk_modulus(p + 2) + 4.0 / 3.0 * 2.0 * (p[0] + p[1]);
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
    return p[0] * k.i1_bar_minus_three() + p[1] * k.i2_bar_minus_three() +
           Volumetric::energy(p + 2, k.j_minus_one);
  }

  // Volumetric/deviatoric split: U(J) = (J - 1)^2 / D1.
  template <class T>
  FEM_HD static T volumetric_pressure(const T* p, T J) {
    return Volumetric::pressure(p + 2, J - T(1));
  }
  template <class T>
  FEM_HD static T volumetric_energy(const T* p, T J) {
    return Volumetric::energy(p + 2, J - T(1));
  }
  template <class T>
  FEM_HD static Mat3<T> deviatoric_stress(const T* p, const Mat3<T>& F, T* /*state*/) {
    return piola(p, IsochoricKinematics<T>::from_deformation(F), false);
  }

 private:
  template <class T>
  FEM_HD static Mat3<T> piola(const T* p, const IsochoricKinematics<T>& k, bool volumetric) {
    const T vol = volumetric ? k.J * Volumetric::pressure(p + 2, k.j_minus_one) : T(0);
    return k.invariant_piola(p[0], p[1], T(0), nullptr, vol);
  }
};

}  // namespace fem::materials

FEM_MATERIAL(fem::materials::MooneyRivlin)
