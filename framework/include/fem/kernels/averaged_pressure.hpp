// Host/device pieces of the averaged-nodal-pressure tetrahedron (Family::AveragedNodalPressureTet),
// the improved ANP of seed 003 after Bonet & Burton (1998). One step is three passes:
//
//   1. per ANP element:  q_e = V_e U'(J_e)                  (element_pressure in element_kernels)
//   2. per node:         p_a = sum_e q_e / sum_e V_e          (nodal_average; e over the node's
//                        ANP elements of every block and material, V_e reference volumes)
//   3. per ANP element:  P = deviatoric_stress(F) + pbar cof(F),  pbar = mean of p_a over its nodes
//
// The backends own the loops; the arithmetic is here so that they agree to the last bit.
#pragma once

#include <cstdint>

#include "fem/config.hpp"
#include "fem/element.hpp"
#include "fem/material.hpp"
#include "fem/tensor.hpp"

namespace fem::kernels {

/// Whether material M can run formulation family `f` (the ANP family needs the split).
template <class M>
constexpr bool family_supported(Family f) {
  return f != Family::AveragedNodalPressureTet || has_volumetric_split<M>;
}

/// The volume ratio the material's volumetric law takes: det F, or 1 + tr(eps) for small-strain
/// laws (which keeps their element forces linear in the displacement).
template <class M, class T>
FEM_INLINE T volume_ratio(const Mat3<T>& F) {
  if constexpr (M::small_strain)
    return trace(F) - T(2);
  else
    return det(F);
}

/// First Piola-Kirchhoff stress with the material's own pressure replaced by `pressure`:
/// P = P_dev(F) + p cof(F), i.e. sigma = sigma_dev + p I (small strain: sigma_dev + p I).
template <class M, class T>
FEM_INLINE Mat3<T> stress_with_pressure(const T* params, const Mat3<T>& F, T* state, T pressure) {
  Mat3<T> P = M::template deviatoric_stress<T>(params, F, state);
  if constexpr (M::small_strain) {
    for (int i = 0; i < 3; ++i) P.m[i][i] += pressure;
    return P;
  } else {
    return P + pressure * cofactor(F);
  }
}

/// Node n's average: sum of the per-element values of its ANP elements (CSR offsets/elements)
/// times the node's inverse reference volume. Deterministic: always the same order.
template <class T>
FEM_INLINE T nodal_average(std::int64_t n, const std::int64_t* offsets,
                           const std::int32_t* elements, const T* element_values,
                           const T* inverse_volume) {
  T sum = T(0);
  for (std::int64_t j = offsets[n]; j < offsets[n + 1]; ++j) sum += element_values[elements[j]];
  return sum * inverse_volume[n];
}

/// Mean of a nodal quantity over the nodes of one element (conn: its node ids, indexable).
template <class T, int NPE, class Nodes>
FEM_INLINE T element_mean(const T* nodal, const Nodes& conn) {
  T sum = T(0);
  for (int a = 0; a < NPE; ++a) sum += nodal[conn[a]];
  return sum * (T(1) / T(NPE));
}

}  // namespace fem::kernels
