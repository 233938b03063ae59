// Finite-strain viscoelasticity by a Prony series on the isochoric stress (Simo 1987; Holzapfel,
// "Nonlinear Solid Mechanics", sec. 6.10), in Abaqus/CalculiX's convention (*VISCOELASTIC,
// TIME=PRONY): the hyperelastic constants give the instantaneous response, and the normalised
// shear relaxation modulus is
//   g(t) = G(t) / G0 = g_R + sum_i g_i exp(-t / tau_i),   g_R = 1 - sum_i g_i,
// with at most three terms. The second Piola-Kirchhoff stress is
//   S = S_vol + g_R S_iso(C) + sum_i h_i,
//   h_i(t) = g_i int_0^t exp(-(t - s) / tau_i) dS_iso/ds ds,
// S_iso and S_vol the base law's isochoric and volumetric stresses (the volumetric response
// stays elastic: bulk relaxation k_i is not supported). Over a step dt the convolution is
// integrated exactly for an S_iso linear in time over the step:
//   h_i^{n+1} = exp(-dt/tau_i) h_i^n + g_i (1 - exp(-dt/tau_i)) / (dt/tau_i) (S_iso^{n+1} -
//   S_iso^n).
// So a strain held after a ramp relaxes exactly as the Prony series says, whatever the step.
// dt = +infinity (static increments, dynamic relaxation) gives the long-term response
// S_vol + g_R S_iso; dt = 0 re-evaluates an accepted state (h_i unchanged).
//
// The base law is compressible Mooney-Rivlin in Abaqus's form (c10, c01, d1 or bulk_modulus;
// neo-Hookean with c01 = 0). The algorithm uses only the base's volumetric/deviatoric split
// (volumetric_pressure, volumetric_energy, deviatoric_stress, strain_energy): another base is
// another `using Base` and its parameter names.
//
// State per quadrature point (24 values, fem::kernels::kMaxMaterialState): h_1, h_2, h_3 and
// S_iso^n, each 6 components in the order xx yy zz xy yz xz.
//
// C++17 (the CUDA builds compile it).
#pragma once

#include <cmath>
#include <string>

#include <fem/material.hpp>

// The base law's header names its own class with FEM_MATERIAL; this header names Viscoelastic,
// so the base's line must name nothing here.
#pragma push_macro("FEM_MATERIAL")
#undef FEM_MATERIAL
#define FEM_MATERIAL(Type)
#include "../mooney_rivlin/mooney_rivlin.hpp"
#pragma pop_macro("FEM_MATERIAL")

namespace fem::materials {

struct Viscoelastic {
  using Base = MooneyRivlin;
  static constexpr int max_terms = 3;
  static constexpr int base_params = Base::num_params;
  static constexpr const char* name = "viscoelastic";
  static constexpr const char* description =
      "finite-strain viscoelasticity, Prony series on the isochoric stress of Mooney-Rivlin "
      "(c10, c01, d1 or bulk_modulus, g1..g3, tau1..tau3)";
  static constexpr int num_params = base_params + 1 + 2 * max_terms;
  static constexpr const char* param_names[num_params] = {"c10", "c01", "1/d1", "g_r",  "g1",
                                                          "g2",  "g3",  "tau1", "tau2", "tau3"};
  static constexpr int num_state = 6 * (max_terms + 1);
  static constexpr bool small_strain = false;
  static_assert(base_params == 3, "param_names lists Mooney-Rivlin's parameters");

  /// Where the terms' parameters and the state's blocks are.
  static constexpr int kGR = base_params;
  static constexpr int kG = base_params + 1;
  static constexpr int kTau = base_params + 1 + max_terms;
  static constexpr int kPreviousIso = 6 * max_terms;

  static void parse(ParamReader& in, double* p) {
    Base::parse(in, p);
    static constexpr const char* g_keys[max_terms] = {"g1", "g2", "g3"};
    static constexpr const char* tau_keys[max_terms] = {"tau1", "tau2", "tau3"};
    static constexpr const char* k_keys[max_terms] = {"k1", "k2", "k3"};
    const std::string hint =
        "g1..g3 and tau1..tau3 are Abaqus/CalculiX's *VISCOELASTIC, TIME=PRONY g_i and tau_i: "
        "the normalised shear relaxation modulus is g_R + sum g_i exp(-t/tau_i), g_R = 1 - sum "
        "g_i, and the hyperelastic constants give the instantaneous response";
    double sum = 0.0;
    int terms = 0;
    for (int i = 0; i < max_terms; ++i) {
      const std::string g = g_keys[i], tau = tau_keys[i], k = k_keys[i];
      if (in.has(k) && in.number(k) != 0.0)
        in.fail(k,
                k + " (bulk relaxation) is not supported: the volumetric response is elastic; "
                    "give 0 or leave it out",
                hint);
      const bool has_g = in.has(g), has_tau = in.has(tau);
      p[kG + i] = 0.0;
      p[kTau + i] = 1.0;  // unused term: g = 0
      if (!has_g && !has_tau) continue;
      if (has_g != has_tau)
        in.fail(has_g ? g : tau, "a Prony term needs both " + g + " and " + tau, hint);
      if (terms != i) in.fail(g, g + " is given without the terms before it", hint);
      ++terms;
      p[kG + i] = in.number(g);
      p[kTau + i] = in.number(tau);
      in.require_range(g, p[kG + i], 0.0, 1.0, true, false);
      in.require_positive(tau, p[kTau + i]);
      sum += p[kG + i];
    }
    if (terms == 0) in.fail_here("no Prony term: give g1 and tau1 (and g2, tau2, g3, tau3)", hint);
    if (!(sum < 1.0))
      in.fail(g_keys[terms - 1],
              "g1 + g2 + g3 must be < 1 (the long-term modulus g_R = 1 - sum g_i must be > 0)",
              hint);
    p[kGR] = 1.0 - sum;
  }
  /// The instantaneous modulus (the explicit solver's critical step).
  static double dilatational_modulus(const double* p) { return Base::dilatational_modulus(p); }

  /// The stress after a step dt from the history in `state`, which it advances (see above).
  template <class T>
  FEM_HD static Mat3<T> stress_step(const T* p, const Mat3<T>& F, T* state, T dt) {
    const T J = det(F);
    // S_iso = F^-1 P_iso of the base law.
    const Mat3<T> s_iso = inverse(F, J) * Base::template deviatoric_stress<T>(p, F, nullptr);
    T iso[6];
    to_voigt(s_iso, iso);
    T viscous[6];
    for (int c = 0; c < 6; ++c) viscous[c] = p[kGR] * iso[c];
    using R = real_t<T>;
    const R step = value_of(dt);
    for (int i = 0; i < max_terms; ++i) {
      const R x = step / value_of(p[kTau + i]);
      // exp(-x) and (1 - exp(-x)) / x, with their limits at x = 0 (no time passes) and
      // x = infinity (the long-term response: the branch has relaxed).
      const R decay = std::exp(-x);
      const R average = x > R(0) ? -std::expm1(-x) / x : R(1);
      T* h = state + 6 * i;
      for (int c = 0; c < 6; ++c) {
        h[c] = T(decay) * h[c] + p[kG + i] * T(average) * (iso[c] - state[kPreviousIso + c]);
        viscous[c] += h[c];
      }
    }
    for (int c = 0; c < 6; ++c) state[kPreviousIso + c] = iso[c];
    const Mat3<T> P = F * from_voigt(viscous);
    return P + Base::template volumetric_pressure<T>(p, J) * cofactor(F);
  }

  /// The stress at dt = 0 (no time passes): the history as committed.
  template <class T>
  FEM_HD static Mat3<T> stress(const T* p, const Mat3<T>& F, T* state) {
    return stress_step<T>(p, F, state, T(0));
  }

  /// The elastic energy of the long-term (equilibrium) branch, U(J) + g_R W_iso, per reference
  /// volume. The energy held in the relaxing branches is not a function of F and the h_i, so it
  /// is left out (the energy balance of a viscous run is not closed by it).
  template <class T>
  FEM_HD static T strain_energy(const T* p, const Mat3<T>& F, const T* /*state*/) {
    const T volumetric = Base::template volumetric_energy<T>(p, det(F));
    return volumetric + p[kGR] * (Base::template strain_energy<T>(p, F, nullptr) - volumetric);
  }

 private:
  template <class T>
  FEM_HD static void to_voigt(const Mat3<T>& S, T (&v)[6]) {
    v[0] = S.m[0][0];
    v[1] = S.m[1][1];
    v[2] = S.m[2][2];
    v[3] = T(0.5) * (S.m[0][1] + S.m[1][0]);
    v[4] = T(0.5) * (S.m[1][2] + S.m[2][1]);
    v[5] = T(0.5) * (S.m[0][2] + S.m[2][0]);
  }
  template <class T>
  FEM_HD static Mat3<T> from_voigt(const T (&v)[6]) {
    Mat3<T> S;
    S.m[0][0] = v[0];
    S.m[1][1] = v[1];
    S.m[2][2] = v[2];
    S.m[0][1] = S.m[1][0] = v[3];
    S.m[1][2] = S.m[2][1] = v[4];
    S.m[0][2] = S.m[2][0] = v[5];
    return S;
  }
};

}  // namespace fem::materials

FEM_MATERIAL(fem::materials::Viscoelastic)
