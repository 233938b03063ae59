// Compressible reduced polynomial in Abaqus/CalculiX's form (*HYPERELASTIC, REDUCED POLYNOMIAL,
// N = 1..3):
//   W = sum_{i=1..N} C_i0 (I1~ - 3)^i + sum_{i=1..N} (1/D_i) (J - 1)^(2i),
// I1~ = J^(-2/3) tr C. N = 3 is the Yeoh model (*HYPERELASTIC, YEOH: C10, C20, C30, D1, D2, D3);
// N = 1 is neo-Hookean (mu = 2 C10). The order is the highest C_i0 given; absent ones are 0.
// Initial shear modulus mu0 = 2 C10, initial bulk modulus K0 = 2/D1.
#pragma once

#include "../hyperelastic.hpp"

namespace fem::materials {

struct ReducedPolynomial {
  static constexpr const char* name = "reduced_polynomial";
  static constexpr const char* description =
      "reduced polynomial / Yeoh, Abaqus form (c10, c20, c30, d1 or bulk_modulus, d2, d3)";
  static constexpr int num_params = 6;
  static constexpr const char* param_names[num_params] = {"c10",  "c20",  "c30",
                                                          "1/d1", "1/d2", "1/d3"};
  static constexpr int num_state = 0;
  static constexpr bool small_strain = false;
  using Volumetric = VolumetricPolynomial<3>;

  static void parse(ParamReader& in, double* p) {
    p[0] = in.number("c10");
    p[1] = in.number("c20", 0.0);
    p[2] = in.number("c30", 0.0);
    if (!(p[0] > 0.0))
      in.fail("c10", "c10 must be > 0: the initial shear modulus is 2 c10",
              "c10, c20, c30 are Abaqus/CalculiX's C10, C20, C30 (Pa)");
    Volumetric::parse(in, p + 3);
  }
  static double dilatational_modulus(const double* p) {
    return Volumetric::bulk_modulus(p + 3) + 4.0 / 3.0 * 2.0 * p[0];
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
    const T x = k.i1_bar_minus_three();
    return x * (p[0] + x * (p[1] + x * p[2])) + Volumetric::energy(p + 3, k.j_minus_one);
  }

  // Volumetric/deviatoric split: U(J) = sum_i (J - 1)^(2i) / D_i.
  template <class T>
  FEM_HD static T volumetric_pressure(const T* p, T J) {
    return Volumetric::pressure(p + 3, J - T(1));
  }
  template <class T>
  FEM_HD static T volumetric_energy(const T* p, T J) {
    return Volumetric::energy(p + 3, J - T(1));
  }
  template <class T>
  FEM_HD static Mat3<T> deviatoric_stress(const T* p, const Mat3<T>& F, T* /*state*/) {
    return piola(p, IsochoricKinematics<T>::from_deformation(F), false);
  }

 private:
  template <class T>
  FEM_HD static Mat3<T> piola(const T* p, const IsochoricKinematics<T>& k, bool volumetric) {
    const T x = k.i1_bar_minus_three();
    const T psi1 = p[0] + x * (T(2) * p[1] + T(3) * x * p[2]);  // dW/dI1~
    const T vol = volumetric ? k.J * Volumetric::pressure(p + 3, k.j_minus_one) : T(0);
    return k.invariant_piola(psi1, T(0), T(0), nullptr, vol);
  }
};

}  // namespace fem::materials

FEM_MATERIAL(fem::materials::ReducedPolynomial)
