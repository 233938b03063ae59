// The OpenMP backend's element kernels: one fused pass per block computing every element's nodal
// forces from the current displacements, with the material law inlined.
//
// Material plugins are compiled against this header (fem_add_material), which instantiates the
// templates below for each formulation family and both precisions; the backend calls them through
// MaterialKernels. Element-node forces are written to per-slot storage and gathered per node by
// the node pass, so results do not depend on thread count or scheduling.
#pragma once

#include <omp.h>

#include <cmath>
#include <cstdint>

#include <fem/element.hpp>
#include <fem/material.hpp>
#include <fem/tensor.hpp>

namespace fem::openmp {

/// Largest element the runtime-sized fallback handles.
inline constexpr int kMaxNodesPerElement = 27;

/// Inputs and outputs of one block's element pass, in the run's precision T.
template <class T>
struct ElementPassArgs {
  std::int64_t num_elements;
  int nodes_per_element;
  int quadrature_points;
  const std::int32_t* connectivity;  ///< [e][a]
  const T* gradients;                ///< [e][q][a][k]
  const T* volumes;                  ///< [e][q]
  const T* hourglass_vectors;        ///< [e][4][8] or null
  const T* hourglass_stiffness;      ///< [e] or null
  const T* params;
  T* state;  ///< [e][q][num_state]
  int num_state;
  const T* u;  ///< [node][3]
  T* forces;   ///< [e][a][3] of this block (already offset)
  // Filled when an element meets det F <= 0 or a non-finite value (smallest such element).
  std::int64_t* bad_element;
  T* bad_value;
};

/// Per-element results (quadrature averages) at a displacement.
template <class T>
struct ElementEvalArgs {
  ElementPassArgs<T> pass;   ///< forces unused
  double* cauchy;            ///< [e][6]
  double* green_lagrange;    ///< [e][6]
  double* strain_energy;     ///< [e]
  double* hourglass_energy;  ///< [e]
  double* min_jacobian;      ///< [e]
};

/// Shapes with compiled-in sizes; everything else takes the runtime-sized path.
enum KernelShape : int {
  kTet4 = 0,
  kHex8Full = 1,
  kHex8Hourglass = 2,
  kGeneric = 3,
  kNumShapes = 4
};

inline KernelShape kernel_shape(Family family, int npe, int nqp) {
  if (family == Family::Hex8Hourglass) return kHex8Hourglass;
  if (npe == 4 && nqp == 1) return kTet4;
  if (npe == 8 && nqp == 8) return kHex8Full;
  return kGeneric;
}

template <class T>
using ForceKernel = void (*)(const ElementPassArgs<T>&);
template <class T>
using EvalKernel = void (*)(const ElementEvalArgs<T>&);

/// What a material plugin built for the OpenMP backend provides.
struct MaterialKernels {
  std::uint32_t struct_size;
  ForceKernel<float> forces_single[kNumShapes];
  ForceKernel<double> forces_double[kNumShapes];
  EvalKernel<float> evaluate_single[kNumShapes];
  EvalKernel<double> evaluate_double[kNumShapes];
};

namespace detail {

/// Deformation gradient F = I + sum_a u_a (x) dN_a/dX at one quadrature point.
template <class T, int CAP>
inline Mat3<T> deformation_gradient(const T (&ue)[CAP][3], const T* grad, int npe) {
  Mat3<T> F = Mat3<T>::identity();
  for (int a = 0; a < npe; ++a)
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) F.m[i][j] += ue[a][i] * grad[3 * a + j];
  return F;
}

/// The element's nodal displacements, gathered through its connectivity.
template <class T, int CAP>
inline void gather_displacements(const ElementPassArgs<T>& a, std::int64_t e, int npe,
                                 T (&ue)[CAP][3]) {
  const std::int32_t* conn = a.connectivity + e * npe;
  for (int n = 0; n < npe; ++n)
    for (int i = 0; i < 3; ++i) ue[n][i] = a.u[3 * static_cast<std::int64_t>(conn[n]) + i];
}

/// Hourglass mode amplitudes s_m = Gamma_m^T u (4 modes x 3 components) of a one-point hexahedron.
template <class T, int CAP>
inline void hourglass_amplitudes(const T* gamma, const T (&ue)[CAP][3], T (&s)[4][3]) {
  for (int m = 0; m < 4; ++m) {
    for (int i = 0; i < 3; ++i) s[m][i] = T(0);
    for (int n = 0; n < 8; ++n)
      for (int i = 0; i < 3; ++i) s[m][i] += gamma[8 * m + n] * ue[n][i];
  }
}

template <class T>
inline void report_bad(const ElementPassArgs<T>& a, std::int64_t e, T value) {
#pragma omp critical(fem_openmp_bad_element)
  {
    if (*a.bad_element < 0 || e < *a.bad_element) {
      *a.bad_element = e;
      *a.bad_value = value;
    }
  }
}

}  // namespace detail

/// Nodal forces of every element of a block. NPE/NQP = 0: sizes taken at run time.
template <class M, class T, int NPE, int NQP, bool HOURGLASS>
void element_forces(const ElementPassArgs<T>& a) {
  constexpr int CAP = NPE ? NPE : kMaxNodesPerElement;
  const int npe = NPE ? NPE : a.nodes_per_element;
  const int nqp = NQP ? NQP : a.quadrature_points;
#pragma omp parallel for schedule(static)
  for (std::int64_t e = 0; e < a.num_elements; ++e) {
    T ue[CAP][3];
    T fe[CAP][3] = {};
    detail::gather_displacements<T, CAP>(a, e, npe, ue);
    for (int q = 0; q < nqp; ++q) {
      const T* grad = a.gradients + (e * nqp + q) * npe * 3;
      const Mat3<T> F = detail::deformation_gradient<T, CAP>(ue, grad, npe);
      const T J = det(F);
      if (!(J > T(0)) || !std::isfinite(J)) detail::report_bad(a, e, J);
      T* state = a.num_state ? a.state + (e * nqp + q) * a.num_state : nullptr;
      const Mat3<T> P = M::template stress<T>(a.params, F, state);
      const T v = a.volumes[e * nqp + q];
      for (int n = 0; n < npe; ++n)
        for (int i = 0; i < 3; ++i)
          fe[n][i] += v * (P.m[i][0] * grad[3 * n] + P.m[i][1] * grad[3 * n + 1] +
                           P.m[i][2] * grad[3 * n + 2]);
    }
    if constexpr (HOURGLASS) {
      // f_hg = k * Gamma Gamma^T u, Gamma the 8x4 hourglass shape vectors (Joldes et al. 2008).
      const T* gamma = a.hourglass_vectors + e * 32;
      const T k = a.hourglass_stiffness[e];
      T s[4][3];
      detail::hourglass_amplitudes<T, CAP>(gamma, ue, s);
      for (int m = 0; m < 4; ++m)
        for (int n = 0; n < 8; ++n)
          for (int i = 0; i < 3; ++i) fe[n][i] += k * gamma[8 * m + n] * s[m][i];
    }
    T* out = a.forces + e * npe * 3;
    for (int n = 0; n < npe; ++n)
      for (int i = 0; i < 3; ++i) out[3 * n + i] = fe[n][i];
  }
}

/// Stress, strain and energies per element, averaged over quadrature points (volume-weighted).
template <class M, class T, int NPE, int NQP, bool HOURGLASS>
void element_evaluate(const ElementEvalArgs<T>& r) {
  const ElementPassArgs<T>& a = r.pass;
  constexpr int CAP = NPE ? NPE : kMaxNodesPerElement;
  const int npe = NPE ? NPE : a.nodes_per_element;
  const int nqp = NQP ? NQP : a.quadrature_points;
#pragma omp parallel for schedule(static)
  for (std::int64_t e = 0; e < a.num_elements; ++e) {
    T ue[CAP][3];
    detail::gather_displacements<T, CAP>(a, e, npe, ue);
    double sigma[3][3] = {}, strain[3][3] = {}, volume = 0.0, energy = 0.0;
    double min_j = 1e300;
    for (int q = 0; q < nqp; ++q) {
      const T* grad = a.gradients + (e * nqp + q) * npe * 3;
      const Mat3<T> F = detail::deformation_gradient<T, CAP>(ue, grad, npe);
      const T J = det(F);
      min_j = std::fmin(min_j, static_cast<double>(J));
      const T* state = a.num_state ? a.state + (e * nqp + q) * a.num_state : nullptr;
      // Evaluate on a copy of the state so that post-processing never advances history.
      T scratch[16];
      T* state_copy = nullptr;
      if (state) {
        for (int s = 0; s < a.num_state && s < 16; ++s) scratch[s] = state[s];
        state_copy = scratch;
      }
      const Mat3<T> P = M::template stress<T>(a.params, F, state_copy);
      Mat3<T> s_cauchy;
      Mat3<T> E;
      if constexpr (M::small_strain) {
        s_cauchy = P;
        E = small_strain(F);
      } else {
        s_cauchy = (T(1) / J) * (P * transpose(F));
        E = green_lagrange(F);
      }
      const double v = a.volumes[e * nqp + q];
      volume += v;
      energy += v * static_cast<double>(M::template strain_energy<T>(a.params, F, state));
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j) {
          sigma[i][j] += v * static_cast<double>(s_cauchy.m[i][j]);
          strain[i][j] += v * static_cast<double>(E.m[i][j]);
        }
    }
    const int voigt[6][2] = {{0, 0}, {1, 1}, {2, 2}, {0, 1}, {1, 2}, {0, 2}};
    for (int c = 0; c < 6; ++c) {
      // Symmetrise: P F^T / J is symmetric only up to round-off.
      const int i = voigt[c][0], j = voigt[c][1];
      r.cauchy[6 * e + c] = 0.5 * (sigma[i][j] + sigma[j][i]) / volume;
      r.green_lagrange[6 * e + c] = 0.5 * (strain[i][j] + strain[j][i]) / volume;
    }
    r.strain_energy[e] = energy;
    r.min_jacobian[e] = min_j;
    double hg = 0.0;
    if constexpr (HOURGLASS) {
      T s[4][3];
      detail::hourglass_amplitudes<T, CAP>(a.hourglass_vectors + e * 32, ue, s);
      for (int m = 0; m < 4; ++m)
        for (int i = 0; i < 3; ++i)
          hg += static_cast<double>(s[m][i]) * static_cast<double>(s[m][i]);
      hg *= 0.5 * static_cast<double>(a.hourglass_stiffness[e]);
    }
    r.hourglass_energy[e] = hg;
  }
}

/// The kernel table of material M: every shape, both precisions.
template <class M>
constexpr MaterialKernels make_material_kernels() {
  return MaterialKernels{
      sizeof(MaterialKernels),
      {&element_forces<M, float, 4, 1, false>, &element_forces<M, float, 8, 8, false>,
       &element_forces<M, float, 8, 1, true>, &element_forces<M, float, 0, 0, false>},
      {&element_forces<M, double, 4, 1, false>, &element_forces<M, double, 8, 8, false>,
       &element_forces<M, double, 8, 1, true>, &element_forces<M, double, 0, 0, false>},
      {&element_evaluate<M, float, 4, 1, false>, &element_evaluate<M, float, 8, 8, false>,
       &element_evaluate<M, float, 8, 1, true>, &element_evaluate<M, float, 0, 0, false>},
      {&element_evaluate<M, double, 4, 1, false>, &element_evaluate<M, double, 8, 8, false>,
       &element_evaluate<M, double, 8, 1, true>, &element_evaluate<M, double, 0, 0, false>}};
}

}  // namespace fem::openmp

/// Defines the entry point of material M's OpenMP build (used by fem_add_material's template).
#define FEM_OPENMP_MATERIAL_PLUGIN(M, VERSION)                                     \
  namespace {                                                                      \
  constexpr fem::openmp::MaterialKernels fem_openmp_kernels =                      \
      fem::openmp::make_material_kernels<M>();                                     \
  constexpr fem::MaterialApi fem_material_api = {fem::make_material_host_api<M>(), \
                                                 &fem_openmp_kernels};             \
  }                                                                                \
  FEM_DEFINE_PLUGIN_ENTRY(FEM_PLUGIN_MATERIAL, M::name, VERSION, "openmp", &fem_material_api)
