// The table of element passes a material build gives its backend: one layout for every backend
// and one function that fills it, so that a new pass is added here once, not three times.
//
// A backend names its function-pointer types in a template `Passes<T>` (Force, Evaluate,
// Tangent, Matrix, Pressure) and its launchers in a class `Launch` with static member templates
//   forces<M, T, NPE, NQP, FAMILY>, evaluate<...>, tangent<...>,
//   matrix<M, T, NPE, NQP, FAMILY, DIAGONAL>, pressure<M, T>, pressure_tangent<M, T>,
//   pressure_coupling<M, T>,
// each running the shared per-element kernel of fem/kernels/ over a block in its own way (an
// OpenMP loop, a CUDA launch, a Kokkos parallel_for). C++17: CUDA builds compile it.
#pragma once

#include <cstdint>
#include <type_traits>

#include "fem/element.hpp"
#include "fem/kernels/averaged_pressure.hpp"
#include "fem/kernels/element_kernels.hpp"
#include "fem/material.hpp"

namespace fem::kernels {

/// One precision's passes; entries a material cannot run stay null (the averaged-nodal-pressure
/// family and its pressure passes without a volumetric split).
template <template <class> class Passes, class T>
struct PrecisionPasses {
  using P = Passes<T>;
  typename P::Force forces[kNumShapes];            ///< internal forces (explicit step, residual)
  typename P::Evaluate evaluate[kNumShapes];       ///< stress, strain and energies (output)
  typename P::Tangent tangent[kNumShapes];         ///< tangent action K_e(u) v_e (dual numbers)
  typename P::Matrix diagonal_blocks[kNumShapes];  ///< element_matrix, the npe diagonal blocks
  typename P::Matrix matrix[kNumShapes];           ///< element_matrix, all npe^2 blocks
  typename P::Pressure pressure;                   ///< averaged nodal pressure, pass 1
  typename P::Pressure pressure_tangent;           ///< pass 1 of the tangent action
  typename P::Matrix pressure_coupling;            ///< pressure_coupling ([e][13])
};

/// Both precisions of one material for one backend (and, for Kokkos, one execution space).
template <template <class> class Passes>
struct MaterialPasses {
  PrecisionPasses<Passes, float> single;
  PrecisionPasses<Passes, double> dbl;
  template <class T>
  [[nodiscard]] const PrecisionPasses<Passes, T>& of() const {
    if constexpr (std::is_same_v<T, float>)
      return single;
    else
      return dbl;
  }
};

/// Fills the passes of material M in precision T from the backend's Launch.
template <class Launch, class M, template <class> class Passes, class T>
void fill_passes(PrecisionPasses<Passes, T>& p) {
#define FEM_FILL_SHAPE(SHAPE, NPE, NQP, FAMILY)                                        \
  if constexpr (family_supported<M>(FAMILY)) {                                         \
    p.forces[SHAPE] = &Launch::template forces<M, T, NPE, NQP, FAMILY>;                \
    p.evaluate[SHAPE] = &Launch::template evaluate<M, T, NPE, NQP, FAMILY>;            \
    p.tangent[SHAPE] = &Launch::template tangent<M, T, NPE, NQP, FAMILY>;              \
    p.diagonal_blocks[SHAPE] = &Launch::template matrix<M, T, NPE, NQP, FAMILY, true>; \
    p.matrix[SHAPE] = &Launch::template matrix<M, T, NPE, NQP, FAMILY, false>;         \
  }
  FEM_FOR_EACH_KERNEL_SHAPE(FEM_FILL_SHAPE)
#undef FEM_FILL_SHAPE
  if constexpr (has_volumetric_split<M>) {
    p.pressure = &Launch::template pressure<M, T>;
    p.pressure_tangent = &Launch::template pressure_tangent<M, T>;
    p.pressure_coupling = &Launch::template pressure_coupling<M, T>;
  }
}

/// Both precisions.
template <class Launch, class M, template <class> class Passes>
void fill_passes(MaterialPasses<Passes>& p) {
  fill_passes<Launch, M, Passes, float>(p.single);
  fill_passes<Launch, M, Passes, double>(p.dbl);
}

}  // namespace fem::kernels
