// The OpenMP backend's element passes: parallel loops over a block's elements around the shared
// per-element kernels of fem/kernels/, with the material law inlined.
//
// Material plugins are compiled against this header (fem_add_material), which instantiates the
// loops for each kernel shape and both precisions into the table of fem/kernels/kernel_table.hpp;
// the backend calls them through it. Element-node results go to per-slot storage and are
// gathered per node by the node pass, so results do not depend on thread count or scheduling.
#pragma once

#include <omp.h>

#include <cstdint>

#include <fem/kernels/element_kernels.hpp>
#include <fem/kernels/element_matrix.hpp>
#include <fem/kernels/kernel_table.hpp>
#include <fem/material.hpp>

namespace fem::openmp {

using kernels::ElementPassArgs;
using kernels::ElementResultsOut;
using kernels::kernel_shape;
using kernels::KernelShape;
using kernels::kMaxNodesPerElement;
using kernels::kNumShapes;

/// Loops shorter than these run on the calling thread. Opening a parallel region costs a few
/// microseconds on an idle machine, more than a whole step of a 100-element model, and on a
/// machine busier than its cores up to a scheduler time slice per barrier (a 216-element cube ran
/// 2.5x slower on 2 threads than on 1 on the 2-core development machine while it compiled).
inline constexpr std::int64_t kMinParallelElements = 256;
inline constexpr std::int64_t kMinParallelNodes = 1024;

/// The first element (smallest id) whose det F was not finite and positive, and that value.
template <class T>
struct BadElement {
  std::int64_t element = -1;
  T value = T(0);
};

/// The function-pointer types of the passes (fem/kernels/kernel_table.hpp).
template <class T>
struct Passes {
  using Force = BadElement<T> (*)(const ElementPassArgs<T>&);
  using Evaluate = void (*)(const ElementPassArgs<T>&, const ElementResultsOut&);
  /// The tangent action into the slots (ElementPassArgs::direction set).
  using Tangent = void (*)(const ElementPassArgs<T>&);
  /// Element blocks into `out`: [e][a][9], [e][a][b][9], or [e][13] (pressure coupling).
  using Matrix = void (*)(const ElementPassArgs<T>&, T* out);
  using Pressure = void (*)(const ElementPassArgs<T>&);
};

/// What a material plugin built for the OpenMP backend provides.
struct MaterialKernels {
  std::uint32_t struct_size;
  kernels::MaterialPasses<Passes> passes;
};

/// The loops, one per pass.
struct Launch {
  template <class M, class T, int NPE, int NQP, Family FAMILY>
  static BadElement<T> forces(const ElementPassArgs<T>& a) {
    BadElement<T> bad;
#pragma omp parallel for schedule(static) if (a.num_elements >= kMinParallelElements)
    for (std::int64_t e = 0; e < a.num_elements; ++e) {
      const T j = kernels::element_forces<M, T, NPE, NQP, FAMILY>(a, e);
      if (!(j > T(0)) || !kernels::is_finite(j)) {
#pragma omp critical(fem_openmp_bad_element)
        if (bad.element < 0 || e < bad.element) bad = {e, j};
      }
    }
    return bad;
  }

  template <class M, class T, int NPE, int NQP, Family FAMILY>
  static void evaluate(const ElementPassArgs<T>& a, const ElementResultsOut& r) {
#pragma omp parallel for schedule(static) if (a.num_elements >= kMinParallelElements)
    for (std::int64_t e = 0; e < a.num_elements; ++e)
      kernels::element_evaluate<M, T, NPE, NQP, FAMILY>(a, e, r);
  }

  template <class M, class T, int NPE, int NQP, Family FAMILY>
  static void tangent(const ElementPassArgs<T>& a) {
#pragma omp parallel for schedule(static) if (a.num_elements >= kMinParallelElements)
    for (std::int64_t e = 0; e < a.num_elements; ++e)
      kernels::element_tangent<M, T, NPE, NQP, FAMILY>(a, e);
  }

  template <class M, class T, int NPE, int NQP, Family FAMILY, bool DIAGONAL>
  static void matrix(const ElementPassArgs<T>& a, T* out) {
    const std::int64_t npe = a.nodes_per_element;
    const std::int64_t size = 9 * npe * (DIAGONAL ? 1 : npe);
#pragma omp parallel for schedule(static) if (a.num_elements >= kMinParallelElements)
    for (std::int64_t e = 0; e < a.num_elements; ++e) {
      T* block = out + e * size;
      for (std::int64_t i = 0; i < size; ++i) block[i] = T(0);
      kernels::element_matrix<M, T, NPE, NQP, FAMILY, DIAGONAL>(a, e, block);
    }
  }

  template <class M, class T>
  static void pressure(const ElementPassArgs<T>& a) {
#pragma omp parallel for schedule(static) if (a.num_elements >= kMinParallelElements)
    for (std::int64_t e = 0; e < a.num_elements; ++e) kernels::element_pressure<M, T>(a, e);
  }

  template <class M, class T>
  static void pressure_tangent(const ElementPassArgs<T>& a) {
#pragma omp parallel for schedule(static) if (a.num_elements >= kMinParallelElements)
    for (std::int64_t e = 0; e < a.num_elements; ++e) kernels::element_pressure_tangent<M, T>(a, e);
  }

  template <class M, class T>
  static void pressure_coupling(const ElementPassArgs<T>& a, T* out) {
#pragma omp parallel for schedule(static) if (a.num_elements >= kMinParallelElements)
    for (std::int64_t e = 0; e < a.num_elements; ++e)
      kernels::pressure_coupling<M, T>(a, e, out + 13 * e);
  }
};

/// The kernel table of material M: every shape, both precisions.
template <class M>
MaterialKernels make_material_kernels() {
  MaterialKernels k{};
  k.struct_size = sizeof(MaterialKernels);
  kernels::fill_passes<Launch, M>(k.passes);
  return k;
}

}  // namespace fem::openmp

/// Defines the entry point of material M's OpenMP build (used by fem_add_material's template).
#define FEM_OPENMP_MATERIAL_PLUGIN(M, VERSION)                                                     \
  namespace {                                                                                      \
  const fem::openmp::MaterialKernels fem_openmp_kernels = fem::openmp::make_material_kernels<M>(); \
  const fem::MaterialApi fem_material_api = {fem::make_material_host_api<M>(), "openmp",           \
                                             &fem_openmp_kernels};                                 \
  }                                                                                                \
  FEM_DEFINE_PLUGIN_ENTRY(FEM_PLUGIN_MATERIAL, M::name, VERSION, "openmp", &fem_material_api)
