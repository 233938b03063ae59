// The Kokkos backend's element passes: a parallel_for over a block's elements around the shared
// per-element kernels of fem/kernels/, with the material law inlined.
//
// Material plugins are compiled against this header (fem_add_material), which instantiates the
// passes of the shared table (fem/kernels/kernel_table.hpp: forces, results, tangent action,
// element matrices, averaged nodal pressure) for every kernel shape, both precisions and each
// execution space the backend can run on (fem/kokkos/spaces.hpp). A force pass that meets
// det F <= 0 or a non-finite value records the element in a FailureSlot; once an explicit run's
// node pass has frozen the slot, every later kernel of the run returns at once, so the state
// stays at the last good step without a per-step host check.
//
// Compiled as CUDA C++17 in a CUDA-enabled Kokkos: device lambdas in public static members, no
// std:: in device code.
#pragma once

#include <cstdint>

#include <fem/kernels/element_kernels.hpp>
#include <fem/kernels/element_matrix.hpp>
#include <fem/kernels/kernel_table.hpp>
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

/// The function-pointer types of the passes (fem/kernels/kernel_table.hpp). Every pointer an
/// ElementPassArgs or an `out` holds is in the memory of the pass's execution space.
template <class T>
struct Passes {
  /// Element forces; a bad element's key goes to `failure`, and a frozen `failure` makes the
  /// pass return at once (see FailureSlot).
  using Force = void (*)(const ElementPassArgs<T>&, int block, FailureSlot* failure);
  using Evaluate = void (*)(const ElementPassArgs<T>&, const ElementResultsOut&);
  /// The tangent action into the slots (ElementPassArgs::direction set).
  using Tangent = void (*)(const ElementPassArgs<T>&);
  /// Element blocks into `out`: [e][a][9], [e][a][b][9], or [e][13] (pressure coupling).
  using Matrix = void (*)(const ElementPassArgs<T>&, T* out);
  /// Pass 1 of averaged nodal pressure or of its tangent; a frozen `failure` (may be null)
  /// makes it return at once.
  using Pressure = void (*)(const ElementPassArgs<T>&, const FailureSlot* failure);
};

/// What a material plugin built for the Kokkos backend provides: the shared table, one per
/// execution space (index SpaceIndex).
struct MaterialKernels {
  std::uint32_t struct_size;
  kernels::MaterialPasses<Passes> spaces[kNumSpaces];
};

/// The loops of the passes on execution space Space, one parallel_for each.
template <class Space>
struct Launch {
  template <class M, class T, int NPE, int NQP, Family FAMILY>
  static void forces(const ElementPassArgs<T>& args, int block, FailureSlot* failure) {
    // Warp-aggregated atomics (ElementPassArgs::warp_aggregated_atomics) exist only on a GPU;
    // host spaces do not instantiate them.
    if constexpr (!kRunsOnHost<Space>)
      if (args.warp_aggregated_atomics && args.node_forces != nullptr) {
        forces_as<M, T, NPE, NQP, FAMILY, true>(args, block, failure);
        return;
      }
    forces_as<M, T, NPE, NQP, FAMILY, false>(args, block, failure);
  }

  template <class M, class T, int NPE, int NQP, Family FAMILY, bool WARP_AGGREGATED>
  static void forces_as(const ElementPassArgs<T>& args, int block, FailureSlot* failure) {
    const ElementPassArgs<T> a = args;
    const unsigned long long base = static_cast<unsigned long long>(block) << kBlockShift;
    Kokkos::parallel_for(
        "fem::kokkos::element_forces", Range<Space>(0, a.num_elements),
        KOKKOS_LAMBDA(const std::int64_t e) {
          if (failure->step != kNoFailure) return;  // frozen after a failed step
          const T j = kernels::element_forces<M, T, NPE, NQP, FAMILY, WARP_AGGREGATED>(a, e);
          if (!(j > T(0)) || !kernels::is_finite(j))
            Kokkos::atomic_fetch_min(&failure->key, base + static_cast<unsigned long long>(e));
        });
  }

  template <class M, class T, int NPE, int NQP, Family FAMILY>
  static void evaluate(const ElementPassArgs<T>& args, const ElementResultsOut& out) {
    const ElementPassArgs<T> a = args;
    const ElementResultsOut r = out;
    Kokkos::parallel_for(
        "fem::kokkos::element_evaluate", Range<Space>(0, a.num_elements),
        KOKKOS_LAMBDA(const std::int64_t e) {
          kernels::element_evaluate<M, T, NPE, NQP, FAMILY>(a, e, r);
        });
  }

  template <class M, class T, int NPE, int NQP, Family FAMILY>
  static void tangent(const ElementPassArgs<T>& args) {
    const ElementPassArgs<T> a = args;
    Kokkos::parallel_for(
        "fem::kokkos::element_tangent", Range<Space>(0, a.num_elements),
        KOKKOS_LAMBDA(const std::int64_t e) {
          kernels::element_tangent<M, T, NPE, NQP, FAMILY>(a, e);
        });
  }

  template <class M, class T, int NPE, int NQP, Family FAMILY, bool DIAGONAL>
  static void matrix(const ElementPassArgs<T>& args, T* out) {
    const ElementPassArgs<T> a = args;
    const std::int64_t npe = a.nodes_per_element;
    const std::int64_t size = 9 * npe * (DIAGONAL ? 1 : npe);
    Kokkos::parallel_for(
        "fem::kokkos::element_matrix", Range<Space>(0, a.num_elements),
        KOKKOS_LAMBDA(const std::int64_t e) {
          T* block = out + e * size;
          for (std::int64_t i = 0; i < size; ++i) block[i] = T(0);
          kernels::element_matrix<M, T, NPE, NQP, FAMILY, DIAGONAL>(a, e, block);
        });
  }

  template <class M, class T>
  static void pressure(const ElementPassArgs<T>& args, const FailureSlot* failure) {
    const ElementPassArgs<T> a = args;
    Kokkos::parallel_for(
        "fem::kokkos::element_pressure", Range<Space>(0, a.num_elements),
        KOKKOS_LAMBDA(const std::int64_t e) {
          if (failure && failure->step != kNoFailure) return;  // frozen after a failed step
          kernels::element_pressure<M, T>(a, e);
        });
  }

  template <class M, class T>
  static void pressure_tangent(const ElementPassArgs<T>& args, const FailureSlot* failure) {
    const ElementPassArgs<T> a = args;
    Kokkos::parallel_for(
        "fem::kokkos::element_pressure_tangent", Range<Space>(0, a.num_elements),
        KOKKOS_LAMBDA(const std::int64_t e) {
          if (failure && failure->step != kNoFailure) return;
          kernels::element_pressure_tangent<M, T>(a, e);
        });
  }

  template <class M, class T>
  static void pressure_coupling(const ElementPassArgs<T>& args, T* out) {
    const ElementPassArgs<T> a = args;
    Kokkos::parallel_for(
        "fem::kokkos::pressure_coupling", Range<Space>(0, a.num_elements),
        KOKKOS_LAMBDA(const std::int64_t e) {
          kernels::pressure_coupling<M, T>(a, e, out + 13 * e);
        });
  }
};

/// The kernel table of material M: every space, shape and precision (where the host space is
/// the default space both rows hold the same functions, compiled once).
template <class M>
MaterialKernels make_material_kernels() {
  MaterialKernels k{};
  k.struct_size = sizeof(MaterialKernels);
  kernels::fill_passes<Launch<SpaceOf<kDeviceSpace>>, M>(k.spaces[kDeviceSpace]);
  kernels::fill_passes<Launch<SpaceOf<kHostSpace>>, M>(k.spaces[kHostSpace]);
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
