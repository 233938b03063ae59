// Materials are code, written once. A material is one header with a class like this:
//
//   struct MyMaterial {
//     static constexpr const char* name = "my_material";
//     static constexpr const char* description = "one line for `fem plugins`";
//     static constexpr int num_params = 2;                  // values parse() writes
//     static constexpr const char* param_names[num_params] = {"shear_modulus", "bulk_modulus"};
//     static constexpr int num_state = 0;                   // per quadrature point history values
//     static constexpr bool small_strain = false;           // true: stress() returns Cauchy stress
//                                                           // of linearised kinematics
//     static void parse(fem::ParamReader& in, double* params);         // host: validate and store
//     static double dilatational_modulus(const double* params);        // host: lambda + 2 mu
//     template <class T> FEM_HD static fem::Mat3<T> stress(const T* params, const fem::Mat3<T>& F,
//                                                          T* state);  // first Piola-Kirchhoff P
//     template <class T> FEM_HD static T strain_energy(const T* params, const fem::Mat3<T>& F,
//                                                      const T* state); // per reference volume
//   };
//   FEM_MATERIAL(MyMaterial)
//
// Optionally, the stress from the displacement gradient H = grad u = F - I, which the element
// kernels then call instead of stress(): F = I + H rounded to the run's precision loses the
// small strains' digits (in single precision a strain of 1e-5 keeps two), and J - 1 = det F - 1
// or sym(F) - I computed from it lose them again. A law that forms its strains from H
// (green_lagrange_from_gradient, jacobian_minus_one, sym(H)) keeps them:
//
//     template <class T> FEM_HD static fem::Mat3<T> stress_from_gradient(const T* params,
//                                                     const fem::Mat3<T>& H, T* state);
//
// equal to stress(I + H) in exact arithmetic. Whether a material has it is detected at compile
// time (fem::has_gradient_stress); fem::material_stress() calls it in single precision, where
// it matters, and stress() in double.
//
// Optionally, a volumetric/deviatoric split W(F) = W_dev(F) + U(J), which the averaged-nodal-
// pressure tetrahedron (Family::AveragedNodalPressureTet, element tet4_anp) needs: it replaces
// the element's own pressure U'(J) by an average over neighbouring elements. All three or none:
//
//     template <class T> FEM_HD static T volumetric_pressure(const T* params, T J);  // U'(J)
//     template <class T> FEM_HD static T volumetric_energy(const T* params, T J);    // U(J)
//     template <class T> FEM_HD static fem::Mat3<T> deviatoric_stress(const T* params,
//                                                   const fem::Mat3<T>& F, T* state);
//
// such that stress(F) = deviatoric_stress(F) + U'(J) cof(F) (the first Piola-Kirchhoff form of
// sigma_vol = U'(J) I) and strain_energy(F) = W_dev(F) + U(J). Small-strain laws use the
// linearised volume ratio J = 1 + tr(eps) and sigma = deviatoric_stress + U'(J) I. Whether a
// material has the split is detected at compile time (fem::has_volumetric_split); tet4_anp refuses
// materials without it.
//
// Optionally, a rate-dependent law (viscoelasticity) takes the time step of the increment its
// history advances over:
//
//     template <class T> FEM_HD static fem::Mat3<T> stress_step(const T* params,
//                                                    const fem::Mat3<T>& F, T* state, T dt);
//
// It reads the committed history h_n from `state` and writes h_{n+1} there. The element passes
// give it a copy to write (the trial state of an implicit increment, so that every Newton
// iteration starts again from h_n; a dual copy for the tangent, whose derivative is then the
// algorithmic tangent at fixed h_n and dt), or the state itself in an explicit step. dt is the
// step the solver advances: the explicit step, the implicit increment, +infinity for static
// increments and dynamic relaxation (the law's long-term, fully relaxed response) and 0 where a
// pass re-evaluates an accepted state (output, reactions), which must give back the stress of
// that state. Such a law keeps stress() (dt = 0, for programs that call it directly). Whether a
// material has it is detected at compile time (fem::has_stress_step); it is reported to the
// host as MaterialHostApi::rate_dependent.
//
// fem_add_material(<name> <header>) compiles it once per enabled backend against that backend's
// kernel templates, which fuse stress() into the element kernels of every formulation family.
// Laws written in the Lame constants can derive from fem::LameParameters (materials/isotropic.hpp)
// for num_params, param_names, parse() and dilatational_modulus().
#pragma once

#include <cstdint>
#include <type_traits>
#include <utility>

#include "fem/config.hpp"
#include "fem/param_reader.hpp"
#include "fem/tensor.hpp"

namespace fem {

/// The backend-independent part of a material plugin, filled from the material class.
struct MaterialHostApi {
  std::uint32_t struct_size;
  const char* description;
  std::int32_t num_params;
  std::int32_t num_state;
  const char* const* param_names;
  bool small_strain;
  void (*parse)(ParamReader& in, double* params);
  double (*dilatational_modulus)(const double* params);
  bool volumetric_split;  ///< provides the volumetric/deviatoric split (see above)
  /// Has stress_step(): its stress depends on the time step (plugin ABI 9; it sits in what was
  /// the struct's tail padding, so sizeof is unchanged).
  bool rate_dependent;
};

namespace detail {
template <class M, class = void>
struct VolumetricSplit {
  static constexpr bool value = false;
};
template <class M>
struct VolumetricSplit<M,
                       std::void_t<decltype(M::template volumetric_pressure<double>(nullptr, 1.0)),
                                   decltype(M::template volumetric_energy<double>(nullptr, 1.0)),
                                   decltype(M::template deviatoric_stress<double>(
                                       nullptr, std::declval<const Mat3<double>&>(), nullptr))>> {
  static constexpr bool value = true;
};
}  // namespace detail

/// Whether material M has the optional volumetric/deviatoric split (C++17: CUDA builds use it).
template <class M>
inline constexpr bool has_volumetric_split = detail::VolumetricSplit<M>::value;

namespace detail {
template <class M, class = void>
struct GradientStress {
  static constexpr bool value = false;
};
template <class M>
struct GradientStress<M, std::void_t<decltype(M::template stress_from_gradient<double>(
                             nullptr, std::declval<const Mat3<double>&>(), nullptr))>> {
  static constexpr bool value = true;
};
}  // namespace detail

/// Whether material M computes its stress from the displacement gradient (stress_from_gradient).
template <class M>
inline constexpr bool has_gradient_stress = detail::GradientStress<M>::value;

namespace detail {
template <class M, class = void>
struct StressStep {
  static constexpr bool value = false;
};
template <class M>
struct StressStep<M, std::void_t<decltype(M::template stress_step<double>(
                         nullptr, std::declval<const Mat3<double>&>(), nullptr, 0.0))>> {
  static constexpr bool value = true;
};
}  // namespace detail

/// Whether material M is rate-dependent (has stress_step, see above).
template <class M>
inline constexpr bool has_stress_step = detail::StressStep<M>::value;

/// The first Piola-Kirchhoff stress of material M at displacement gradient H = F - I: in single
/// precision from H where the law takes it (float keeps 7 digits: F = I + H loses a small
/// strain's), else stress(I + H). Double keeps stress(F): its 16 digits lose at most 1e-10 of
/// the stress at a strain of 1e-6, and the laws' F forms are the cheaper ones (the dual-number
/// tangent of hex8 is 13 % faster with neo-Hookean's; docs/implicit.md).
template <class M, class T>
FEM_INLINE Mat3<T> material_stress(const T* params, const Mat3<T>& H, T* state) {
  if constexpr (has_gradient_stress<M> && sizeof(real_t<T>) < sizeof(double)) {
    return M::template stress_from_gradient<T>(params, H, state);
  } else {
    Mat3<T> F = H;
    for (int i = 0; i < 3; ++i) F.m[i][i] += T(1);
    return M::template stress<T>(params, F, state);
  }
}

/// The same over a time step dt: stress_step(I + H, dt) for a rate-dependent law, the
/// overload above for every other law (which ignores dt).
template <class M, class T>
FEM_INLINE Mat3<T> material_stress(const T* params, const Mat3<T>& H, T* state, T dt) {
  if constexpr (has_stress_step<M>) {
    Mat3<T> F = H;
    for (int i = 0; i < 3; ++i) F.m[i][i] += T(1);
    return M::template stress_step<T>(params, F, state, dt);
  } else {
    (void)dt;
    return material_stress<M, T>(params, H, state);
  }
}

/// What a material plugin's descriptor points at: host API plus the backend's kernel table.
struct MaterialApi {
  MaterialHostApi host;
  const char* backend;  ///< the backend the kernels were compiled for; it checks this first
  const void* kernels;  ///< backend-specific table; only that backend reads it
};

template <class M>
constexpr MaterialHostApi make_material_host_api() {
  return MaterialHostApi{
      sizeof(MaterialHostApi), M::description,    M::num_params, M::num_state,
      M::param_names,          M::small_strain,   &M::parse,     &M::dilatational_modulus,
      has_volumetric_split<M>, has_stress_step<M>};
}

/// Common algebra for hyperelastic laws.
///
/// Green-Lagrange strain E = (F^T F - I) / 2.
template <class T>
FEM_INLINE Mat3<T> green_lagrange(const Mat3<T>& F) {
  Mat3<T> E = transpose_times_self(F);
  for (int i = 0; i < 3; ++i) E.m[i][i] -= T(1);
  return T(0.5) * E;
}

/// Small-strain tensor sym(F) - I.
template <class T>
FEM_INLINE Mat3<T> small_strain(const Mat3<T>& F) {
  Mat3<T> e;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      e.m[i][j] = T(0.5) * (F.m[i][j] + F.m[j][i]) - (i == j ? T(1) : T(0));
  return e;
}

// The same from the displacement gradient H = F - I, without the cancellation of 1 + H - 1
// (stress_from_gradient above).

/// sym(H): the small-strain tensor.
template <class T>
FEM_INLINE Mat3<T> small_strain_from_gradient(const Mat3<T>& H) {
  Mat3<T> e;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) e.m[i][j] = T(0.5) * (H.m[i][j] + H.m[j][i]);
  return e;
}

/// E = (H + H^T + H^T H) / 2.
template <class T>
FEM_INLINE Mat3<T> green_lagrange_from_gradient(const Mat3<T>& H) {
  Mat3<T> E = transpose_times_self(H);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) E.m[i][j] = T(0.5) * (E.m[i][j] + H.m[i][j] + H.m[j][i]);
  return E;
}

/// J - 1 = det(I + H) - 1 = tr H + ((tr H)^2 - tr(H^2)) / 2 + det H, the invariants of H.
template <class T>
FEM_INLINE T jacobian_minus_one(const Mat3<T>& H) {
  const T tr = trace(H);
  T tr_h2 = T(0);
  for (int i = 0; i < 3; ++i)
    for (int k = 0; k < 3; ++k) tr_h2 += H.m[i][k] * H.m[k][i];
  return tr + T(0.5) * (tr * tr - tr_h2) + det(H);
}

}  // namespace fem

/// Names the material class of this header for the per-backend build generated by
/// fem_add_material(). Write it once, at global scope, after the class. A program that includes
/// several material headers (a test) defines FEM_MATERIAL(Type) as nothing before including them.
#ifndef FEM_MATERIAL
#define FEM_MATERIAL(Type) using fem_material_type = Type;
#endif
