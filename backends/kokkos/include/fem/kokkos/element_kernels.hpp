// The Kokkos backend's element pass: a parallel_for over a block's elements around the shared
// per-element kernels of fem/kernels/element_kernels.hpp, with the material law inlined.
//
// Material plugins are compiled against this header (fem_add_material), which instantiates the
// loops for every kernel shape, both precisions and each execution space the backend can run on
// (fem/kokkos/spaces.hpp). A loop that meets det F <= 0 or a non-finite value records the
// element in a FailureSlot; once the node pass has frozen the slot, every later kernel of the run
// returns at once, so the state stays at the last good step without a per-step host check.
#pragma once

#include <cstdint>

#include <fem/kernels/element_kernels.hpp>
#include <fem/kokkos/spaces.hpp>
#include <fem/material.hpp>

namespace fem::kokkos {

using kernels::ElementPassArgs;
using kernels::ElementResultsOut;
using kernels::kernel_shape;
using kernels::KernelShape;
using kernels::kNumShapes;

inline constexpr unsigned long long kNoFailure = ~0ull;
/// A failure key is (block << kBlockShift) + element: its minimum is the first bad element of
/// the first bad block, the element the OpenMP reference reports.
inline constexpr int kBlockShift = 40;

/// Device-resident record of the first failing element of a run.
struct FailureSlot {
  unsigned long long key;   ///< smallest failure key of the failing step; kNoFailure while healthy
  unsigned long long step;  ///< the step whose element pass failed, once frozen; else kNoFailure
};

template <class T>
using ForceLoop = void (*)(const ElementPassArgs<T>&, int block, FailureSlot* failure);
template <class T>
using EvaluateLoop = void (*)(const ElementPassArgs<T>&, const ElementResultsOut&);
template <class T>
using PressureLoop = void (*)(const ElementPassArgs<T>&, const FailureSlot* failure);

/// What a material plugin built for the Kokkos backend provides: [space][shape].
struct MaterialKernels {
  std::uint32_t struct_size;
  ForceLoop<float> forces_single[kNumSpaces][kNumShapes];
  ForceLoop<double> forces_double[kNumSpaces][kNumShapes];
  EvaluateLoop<float> evaluate_single[kNumSpaces][kNumShapes];
  EvaluateLoop<double> evaluate_double[kNumSpaces][kNumShapes];
  /// Pass 1 of the averaged-nodal-pressure tetrahedron; null without a volumetric split (as
  /// are that family's force and evaluate entries).
  PressureLoop<float> pressure_single[kNumSpaces];
  PressureLoop<double> pressure_double[kNumSpaces];
};

template <class Space, class M, class T, int NPE, int NQP, Family FAMILY>
void element_forces(const ElementPassArgs<T>& args, int block, FailureSlot* failure) {
  const ElementPassArgs<T> a = args;
  const unsigned long long base = static_cast<unsigned long long>(block) << kBlockShift;
  Kokkos::parallel_for(
      "fem::kokkos::element_forces", Range<Space>(0, a.num_elements),
      KOKKOS_LAMBDA(const std::int64_t e) {
        if (failure->step != kNoFailure) return;  // frozen after a failed step
        const T j = kernels::element_forces<M, T, NPE, NQP, FAMILY>(a, e);
        if (!(j > T(0)) || !kernels::is_finite(j))
          Kokkos::atomic_fetch_min(&failure->key, base + static_cast<unsigned long long>(e));
      });
}

template <class Space, class M, class T, int NPE, int NQP, Family FAMILY>
void element_evaluate(const ElementPassArgs<T>& args, const ElementResultsOut& out) {
  const ElementPassArgs<T> a = args;
  const ElementResultsOut r = out;
  Kokkos::parallel_for(
      "fem::kokkos::element_evaluate", Range<Space>(0, a.num_elements),
      KOKKOS_LAMBDA(const std::int64_t e) {
        kernels::element_evaluate<M, T, NPE, NQP, FAMILY>(a, e, r);
      });
}

template <class Space, class M, class T>
void element_pressure(const ElementPassArgs<T>& args, const FailureSlot* failure) {
  const ElementPassArgs<T> a = args;
  Kokkos::parallel_for(
      "fem::kokkos::element_pressure", Range<Space>(0, a.num_elements),
      KOKKOS_LAMBDA(const std::int64_t e) {
        if (failure && failure->step != kNoFailure) return;  // frozen after a failed step
        kernels::element_pressure<M, T>(a, e);
      });
}

/// Fills the table row of space index I (the same functions for both rows where the host space
/// is the default space, so nothing is compiled twice).
template <class M, int I>
void fill_material_kernels(MaterialKernels& k) {
  using Space = SpaceOf<I>;
#define FEM_KOKKOS_SHAPE(SHAPE, NPE, NQP, FAMILY)                                        \
  if constexpr (kernels::family_supported<M>(FAMILY)) {                                  \
    k.forces_single[I][SHAPE] = &element_forces<Space, M, float, NPE, NQP, FAMILY>;      \
    k.forces_double[I][SHAPE] = &element_forces<Space, M, double, NPE, NQP, FAMILY>;     \
    k.evaluate_single[I][SHAPE] = &element_evaluate<Space, M, float, NPE, NQP, FAMILY>;  \
    k.evaluate_double[I][SHAPE] = &element_evaluate<Space, M, double, NPE, NQP, FAMILY>; \
  }
  FEM_FOR_EACH_KERNEL_SHAPE(FEM_KOKKOS_SHAPE)
#undef FEM_KOKKOS_SHAPE
  if constexpr (has_volumetric_split<M>) {
    k.pressure_single[I] = &element_pressure<Space, M, float>;
    k.pressure_double[I] = &element_pressure<Space, M, double>;
  }
}

/// The kernel table of material M: every space, shape and precision.
template <class M>
MaterialKernels make_material_kernels() {
  MaterialKernels k{};
  k.struct_size = sizeof(MaterialKernels);
  fill_material_kernels<M, kDeviceSpace>(k);
  fill_material_kernels<M, kHostSpace>(k);
  return k;
}

}  // namespace fem::kokkos

/// Defines the entry point of material M's Kokkos build (used by fem_add_material's template).
#define FEM_KOKKOS_MATERIAL_PLUGIN(M, VERSION)                                                     \
  namespace {                                                                                      \
  const fem::kokkos::MaterialKernels fem_kokkos_kernels = fem::kokkos::make_material_kernels<M>(); \
  const fem::MaterialApi fem_material_api = {fem::make_material_host_api<M>(), "kokkos",           \
                                             &fem_kokkos_kernels};                                 \
  }                                                                                                \
  FEM_DEFINE_PLUGIN_ENTRY(FEM_PLUGIN_MATERIAL, M::name, VERSION, "kokkos", &fem_material_api)
