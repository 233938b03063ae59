// Transversely isotropic hyperelasticity for ligaments and tendons: Weiss, Maker and Govindjee
// (1996), as FEBio's uncoupled "trans iso Mooney-Rivlin" has it, a Mooney-Rivlin matrix with one
// family of fibres along the unit vector a0:
//   W = c1 (I1~ - 3) + c2 (I2~ - 3) + F2(l~) + U(J),
// l~ = sqrt(a0 . C~ a0) the isochoric fibre stretch, and the fibre term given by its
// l~ dF2/dl~ (a stress, Pa):
//   0                             for l~ <= 1 (fibres carry no compression),
//   c3 (exp(c4 (l~ - 1)) - 1)     for 1 < l~ < lam_max (the toe region of crimped fibres),
//   c5 l~ + c6                    for l~ >= lam_max (straightened fibres, linear),
// c6 = c3 (exp(c4 (lam_max - 1)) - 1) - c5 lam_max so that it is continuous. Parameters have
// FEBio's names (c1 = Abaqus' C10, c2 = C01). One difference from FEBio: the volumetric term is
// Abaqus/CalculiX's U(J) = (1/D1) (J - 1)^2 = K/2 (J - 1)^2 as in the other laws of this tree,
// where FEBio's uncoupled materials take K/2 (ln J)^2 (the two agree to second order in J - 1).
// One fibre direction per material (all its elements), in the case's axes.
//
// The energy of the toe region, F2 = c3 int_1^l (exp(c4 (s - 1)) - 1) / s ds, has no
// elementary form: with the exponential integral it is
//   c3 [exp(-c4) sum_{k>=1} c4^k (l^k - 1) / (k k!) + (exp(-c4) - 1) ln l],
// a series of positive terms summed to round-off (about c4 l + 10 sqrt(c4 l) terms).
#pragma once

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "../hyperelastic.hpp"

namespace fem::materials {

struct TransverselyIsotropic {
  static constexpr const char* name = "transversely_isotropic";
  static constexpr const char* description =
      "transversely isotropic Mooney-Rivlin with exponential-linear fibres (Weiss 1996, FEBio)";
  static constexpr int num_params = 11;
  static constexpr const char* param_names[num_params] = {
      "c1", "c2", "c3", "c4", "c5", "lam_max", "c6", "fiber_x", "fiber_y", "fiber_z", "1/d1"};
  static constexpr int num_state = 0;
  static constexpr bool small_strain = false;
  using Volumetric = VolumetricPolynomial<1>;

  static void parse(ParamReader& in, double* p) {
    p[0] = in.number("c1");
    p[1] = in.number("c2", 0.0);
    if (!(p[0] + p[1] > 0.0))
      in.fail_here("the matrix's initial shear modulus 2 (c1 + c2) must be > 0",
                   "c1 and c2 are the Mooney-Rivlin constants (Abaqus' C10, C01), Pa");
    const char* fibre_hint =
        "the fibre's l dF2/dl is c3 (exp(c4 (l - 1)) - 1) up to the stretch lam_max, then "
        "c5 l + c6 (FEBio's trans iso Mooney-Rivlin)";
    for (int i = 2; i < 5; ++i) {
      p[i] = in.number(param_names[i]);
      if (p[i] < 0.0)
        in.fail(param_names[i], std::string(param_names[i]) + " must be >= 0", fibre_hint);
    }
    p[5] = in.number("lam_max");
    if (!(p[5] >= 1.0)) in.fail("lam_max", "lam_max must be >= 1 (a stretch)", fibre_hint);
    if (!(p[3] * (p[5] - 1.0) < 500.0))
      in.fail("c4", "c4 (lam_max - 1) must be < 500: the toe's exponential overflows", fibre_hint);
    p[6] = p[2] * std::expm1(p[3] * (p[5] - 1.0)) - p[4] * p[5];
    const std::vector<double> a = in.vector3("fiber_direction");
    const double norm = std::sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2]);
    if (!(norm > 0.0) || !std::isfinite(norm))
      in.fail("fiber_direction", "fiber_direction must be a non-zero vector",
              "the fibres' direction in the reference configuration, in the case's axes; it is "
              "normalised");
    for (int i = 0; i < 3; ++i) p[7 + i] = a[i] / norm;
    Volumetric::parse(in, p + 10);
  }
  /// K + 4/3 mu0 of the matrix plus the fibres' stiffest tangent, d(l dF2/dl)/dl at lam_max or
  /// c5 beyond: fibres are loaded into their linear region, where an explicit step from the
  /// initial moduli alone would be unstable.
  static double dilatational_modulus(const double* p) {
    const double fibre = std::max(p[2] * p[3] * std::exp(p[3] * (p[5] - 1.0)), p[4]);
    return Volumetric::bulk_modulus(p + 10) + 4.0 / 3.0 * 2.0 * (p[0] + p[1]) + fibre;
  }

  template <class T>
  FEM_HD static Mat3<T> stress(const T* p, const Mat3<T>& F, T* /*state*/) {
    return piola(p, IsochoricKinematics<T>::from_deformation(F), true);
  }
  /// The same from H = F - I (E, J - 1 and l~ - 1 from H: single precision keeps small strains).
  template <class T>
  FEM_HD static Mat3<T> stress_from_gradient(const T* p, const Mat3<T>& H, T* /*state*/) {
    return piola(p, IsochoricKinematics<T>::from_gradient(H), true);
  }
  template <class T>
  FEM_HD static T strain_energy(const T* p, const Mat3<T>& F, const T* /*state*/) {
    const auto k = IsochoricKinematics<T>::from_deformation(F);
    return p[0] * k.i1_bar_minus_three() + p[1] * k.i2_bar_minus_three() +
           fibre_energy(p, fibre_stretch(p, k)) + Volumetric::energy(p + 10, k.j_minus_one);
  }

  // Volumetric/deviatoric split: U(J) = (J - 1)^2 / D1.
  template <class T>
  FEM_HD static T volumetric_pressure(const T* p, T J) {
    return Volumetric::pressure(p + 10, J - T(1));
  }
  template <class T>
  FEM_HD static T volumetric_energy(const T* p, T J) {
    return Volumetric::energy(p + 10, J - T(1));
  }
  template <class T>
  FEM_HD static Mat3<T> deviatoric_stress(const T* p, const Mat3<T>& F, T* /*state*/) {
    return piola(p, IsochoricKinematics<T>::from_deformation(F), false);
  }

  /// l~ dF2/dl~ at the fibre stretch l~ (given with l~ - 1, which keeps a small stretch's
  /// digits).
  template <class T>
  FEM_HD static T fibre_stress(const T* p, T stretch, T stretch_minus_one) {
    if (stretch_minus_one <= T(0)) return T(0);
    if (stretch < p[5]) return p[2] * exp_minus_one(p[3] * stretch_minus_one);
    return p[4] * stretch + p[6];
  }

 private:
  /// l~ and l~ - 1 along the fibre.
  template <class T>
  FEM_HD static void fibre_stretch_of(const T* p, const IsochoricKinematics<T>& k, T& stretch,
                                      T& stretch_minus_one) {
    const T i4_minus_one = k.i4_bar_minus_one(p + 7);
    stretch = fem::sqrt(T(1) + i4_minus_one);
    stretch_minus_one = i4_minus_one / (stretch + T(1));
  }
  template <class T>
  FEM_HD static T fibre_stretch(const T* p, const IsochoricKinematics<T>& k) {
    T stretch, stretch_minus_one;
    fibre_stretch_of(p, k, stretch, stretch_minus_one);
    return stretch;
  }

  /// F2(l~): 0 in compression, the exponential integral's series in the toe, linear beyond.
  template <class T>
  FEM_HD static T fibre_energy(const T* p, T stretch) {
    if (stretch <= T(1)) return T(0);
    const T lam_max = p[5];
    const T toe_end = stretch < lam_max ? stretch : lam_max;
    T w = toe_energy(p, toe_end);
    if (stretch >= lam_max) w += p[4] * (stretch - lam_max) + p[6] * fem::log(stretch / lam_max);
    return w;
  }
  /// c3 [exp(-c4) sum_k c4^k (l^k - 1) / (k k!) + (exp(-c4) - 1) ln l].
  template <class T>
  FEM_HD static T toe_energy(const T* p, T stretch) {
    using R = real_t<T>;
    const R c4 = value_of(p[3]);
    R coefficient = std::exp(-c4);  // exp(-c4) c4^k / k!
    const T l_minus_one = stretch - T(1);
    T power_minus_one = T(0);  // l^k - 1
    T sum = T(0);
    for (int k = 1; k < 4000; ++k) {
      coefficient *= c4 / R(k);
      power_minus_one = power_minus_one * stretch + l_minus_one;
      const T term = coefficient * power_minus_one / T(k);
      sum += term;
      if (R(k) > c4 * value_of(stretch) && value_of(term) <= R(1e-17) * value_of(sum)) break;
    }
    return p[2] * (sum + (T(std::exp(-c4)) - T(1)) * fem::log(stretch));
  }

  template <class T>
  FEM_HD static Mat3<T> piola(const T* p, const IsochoricKinematics<T>& k, bool volumetric) {
    T stretch, stretch_minus_one;
    fibre_stretch_of(p, k, stretch, stretch_minus_one);
    const T psi4 = fibre_stress(p, stretch, stretch_minus_one) / (T(2) * stretch * stretch);
    const T vol = volumetric ? k.J * Volumetric::pressure(p + 10, k.j_minus_one) : T(0);
    return k.invariant_piola(p[0], p[1], psi4, p + 7, vol);
  }
};

}  // namespace fem::materials

FEM_MATERIAL(fem::materials::TransverselyIsotropic)
