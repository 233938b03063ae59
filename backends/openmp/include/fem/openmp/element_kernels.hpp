// The OpenMP backend's element pass: a parallel loop over a block's elements around the shared
// per-element kernels of fem/kernels/element_kernels.hpp, with the material law inlined.
//
// Material plugins are compiled against this header (fem_add_material), which instantiates the
// loops for each kernel shape and both precisions; the backend calls them through
// MaterialKernels. Element-node forces go to per-slot storage and are gathered per node by the
// node pass, so results do not depend on thread count or scheduling.
#pragma once

#include <omp.h>

#include <cstdint>

#include <fem/kernels/element_kernels.hpp>
#include <fem/kernels/element_matrix.hpp>
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

template <class T>
using ForceLoop = BadElement<T> (*)(const ElementPassArgs<T>&);
template <class T>
using EvaluateLoop = void (*)(const ElementPassArgs<T>&, const ElementResultsOut&);
template <class T>
using PressureLoop = void (*)(const ElementPassArgs<T>&);
/// The tangent action K_e(u) v_e of every element (ElementPassArgs::direction), into the slots.
template <class T>
using TangentLoop = void (*)(const ElementPassArgs<T>&);
/// Element stiffness blocks into `out`: [e][a][9] (diagonal blocks) or [e][a][b][9] (all).
template <class T>
using MatrixLoop = void (*)(const ElementPassArgs<T>&, T* out);

/// What a material plugin built for the OpenMP backend provides.
struct MaterialKernels {
  std::uint32_t struct_size;
  ForceLoop<float> forces_single[kNumShapes];
  ForceLoop<double> forces_double[kNumShapes];
  EvaluateLoop<float> evaluate_single[kNumShapes];
  EvaluateLoop<double> evaluate_double[kNumShapes];
  /// Pass 1 of the averaged-nodal-pressure tetrahedron; null without a volumetric split (as
  /// are that family's force and evaluate entries).
  PressureLoop<float> pressure_single;
  PressureLoop<double> pressure_double;
  // The implicit solver's verbs (fem/operator.hpp): tangent action, its averaged-pressure pass 1,
  // diagonal blocks and all blocks of the element matrices.
  TangentLoop<float> tangent_single[kNumShapes];
  TangentLoop<double> tangent_double[kNumShapes];
  PressureLoop<float> pressure_tangent_single;
  PressureLoop<double> pressure_tangent_double;
  MatrixLoop<float> diagonal_blocks_single[kNumShapes];
  MatrixLoop<double> diagonal_blocks_double[kNumShapes];
  MatrixLoop<float> matrix_single[kNumShapes];
  MatrixLoop<double> matrix_double[kNumShapes];
  /// Averaged nodal pressure: kernels::pressure_coupling of every element ([e][13]).
  MatrixLoop<float> pressure_coupling_single;
  MatrixLoop<double> pressure_coupling_double;
};

template <class M, class T, int NPE, int NQP, Family FAMILY>
BadElement<T> element_forces(const ElementPassArgs<T>& a) {
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
void element_evaluate(const ElementPassArgs<T>& a, const ElementResultsOut& r) {
#pragma omp parallel for schedule(static) if (a.num_elements >= kMinParallelElements)
  for (std::int64_t e = 0; e < a.num_elements; ++e)
    kernels::element_evaluate<M, T, NPE, NQP, FAMILY>(a, e, r);
}

template <class M, class T>
void element_pressure(const ElementPassArgs<T>& a) {
#pragma omp parallel for schedule(static) if (a.num_elements >= kMinParallelElements)
  for (std::int64_t e = 0; e < a.num_elements; ++e) kernels::element_pressure<M, T>(a, e);
}

template <class M, class T>
void element_pressure_tangent(const ElementPassArgs<T>& a) {
#pragma omp parallel for schedule(static) if (a.num_elements >= kMinParallelElements)
  for (std::int64_t e = 0; e < a.num_elements; ++e) kernels::element_pressure_tangent<M, T>(a, e);
}

template <class M, class T, int NPE, int NQP, Family FAMILY>
void element_tangent(const ElementPassArgs<T>& a) {
#pragma omp parallel for schedule(static) if (a.num_elements >= kMinParallelElements)
  for (std::int64_t e = 0; e < a.num_elements; ++e)
    kernels::element_tangent<M, T, NPE, NQP, FAMILY>(a, e);
}

template <class M, class T>
void pressure_coupling(const ElementPassArgs<T>& a, T* out) {
#pragma omp parallel for schedule(static) if (a.num_elements >= kMinParallelElements)
  for (std::int64_t e = 0; e < a.num_elements; ++e)
    kernels::pressure_coupling<M, T>(a, e, out + 13 * e);
}

template <class M, class T, int NPE, int NQP, Family FAMILY, bool DIAGONAL>
void element_matrix(const ElementPassArgs<T>& a, T* out) {
  const std::int64_t npe = a.nodes_per_element;
  const std::int64_t size = 9 * npe * (DIAGONAL ? 1 : npe);
#pragma omp parallel for schedule(static) if (a.num_elements >= kMinParallelElements)
  for (std::int64_t e = 0; e < a.num_elements; ++e) {
    T* block = out + e * size;
    for (std::int64_t i = 0; i < size; ++i) block[i] = T(0);
    kernels::element_matrix<M, T, NPE, NQP, FAMILY, DIAGONAL>(a, e, block);
  }
}

/// The kernel table of material M: every shape, both precisions.
template <class M>
MaterialKernels make_material_kernels() {
  MaterialKernels k{};
  k.struct_size = sizeof(MaterialKernels);
#define FEM_OPENMP_SHAPE(SHAPE, NPE, NQP, FAMILY)                                         \
  if constexpr (kernels::family_supported<M>(FAMILY)) {                                   \
    k.forces_single[SHAPE] = &element_forces<M, float, NPE, NQP, FAMILY>;                 \
    k.forces_double[SHAPE] = &element_forces<M, double, NPE, NQP, FAMILY>;                \
    k.evaluate_single[SHAPE] = &element_evaluate<M, float, NPE, NQP, FAMILY>;             \
    k.evaluate_double[SHAPE] = &element_evaluate<M, double, NPE, NQP, FAMILY>;            \
    k.tangent_single[SHAPE] = &element_tangent<M, float, NPE, NQP, FAMILY>;               \
    k.tangent_double[SHAPE] = &element_tangent<M, double, NPE, NQP, FAMILY>;              \
    k.diagonal_blocks_single[SHAPE] = &element_matrix<M, float, NPE, NQP, FAMILY, true>;  \
    k.diagonal_blocks_double[SHAPE] = &element_matrix<M, double, NPE, NQP, FAMILY, true>; \
    k.matrix_single[SHAPE] = &element_matrix<M, float, NPE, NQP, FAMILY, false>;          \
    k.matrix_double[SHAPE] = &element_matrix<M, double, NPE, NQP, FAMILY, false>;         \
  }
  FEM_FOR_EACH_KERNEL_SHAPE(FEM_OPENMP_SHAPE)
#undef FEM_OPENMP_SHAPE
  if constexpr (has_volumetric_split<M>) {
    k.pressure_single = &element_pressure<M, float>;
    k.pressure_double = &element_pressure<M, double>;
    k.pressure_tangent_single = &element_pressure_tangent<M, float>;
    k.pressure_tangent_double = &element_pressure_tangent<M, double>;
    k.pressure_coupling_single = &pressure_coupling<M, float>;
    k.pressure_coupling_double = &pressure_coupling<M, double>;
  }
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
