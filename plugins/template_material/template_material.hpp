// The smallest complete material plugin: copy this folder, rename the material, change the law.
//
// A compressible neo-Hookean law with a polynomial volumetric part (no transcendental functions,
// so every backend computes the same bits):
//   Psi = mu/2 (I1 - 3) - mu (J - 1) + (lambda + mu)/2 (J - 1)^2
//   S   = mu I + ((lambda + mu) (J - 1) - mu) J C^-1
// It is stress-free at F = I and reduces to linear elasticity (lambda, mu) for small strains.
#pragma once

#include <fem/material.hpp>
#include <fem/materials/isotropic.hpp>

struct TemplateMaterial : fem::LameParameters {  // parse(): any isotropic pair -> lambda(p), mu(p)
  static constexpr const char* name = "template_material";  // the `type:` in a case file
  static constexpr const char* description = "polynomial neo-Hookean (plugin template)";
  static constexpr int num_state = 0;
  static constexpr bool small_strain = false;

  template <class T>  // first Piola-Kirchhoff stress P = F S
  FEM_HD static fem::Mat3<T> stress(const T* p, const fem::Mat3<T>& F, T* /*state*/) {
    const fem::Mat3<T> C = fem::transpose_times_self(F);
    const T J = fem::det(F);
    const fem::Mat3<T> Cinv = fem::inverse(C, J * J);
    const T vol = ((lambda(p) + mu(p)) * (J - T(1)) - mu(p)) * J;
    fem::Mat3<T> S = vol * Cinv;
    for (int i = 0; i < 3; ++i) S.m[i][i] += mu(p);
    return F * S;
  }

  template <class T>  // per unit reference volume
  FEM_HD static T strain_energy(const T* p, const fem::Mat3<T>& F, const T* /*state*/) {
    const T J = fem::det(F), I1 = fem::trace(fem::transpose_times_self(F));
    return T(0.5) * mu(p) * (I1 - T(3)) - mu(p) * (J - T(1)) +
           T(0.5) * (lambda(p) + mu(p)) * (J - T(1)) * (J - T(1));
  }
};

FEM_MATERIAL(TemplateMaterial)
