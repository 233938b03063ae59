// The CUDA backend's element passes: one thread per element around the shared per-element kernels
// of fem/kernels/ (forces, results, the averaged nodal pressure, and for implicit solves the
// tangent action, element matrices and pressure coupling), with the material law inlined.
//
// Material plugins are compiled against this header (fem_add_material), which instantiates the
// kernels for every shape and both precisions into the one kernel table of
// fem/kernels/kernel_table.hpp. A kernel that meets det F <= 0 or a non-finite value records the
// element in a Failure slot; every kernel of the step loop returns at once while the slot is
// set, so the state freezes at the last good step without a host round trip.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include <fem/cuda/check.hpp>
#include <fem/kernels/element_kernels.hpp>
#include <fem/kernels/element_matrix.hpp>
#include <fem/kernels/kernel_table.hpp>
#include <fem/material.hpp>

namespace fem::cuda {

using kernels::ElementPassArgs;
using kernels::ElementResultsOut;
using kernels::kernel_shape;
using kernels::KernelShape;
using kernels::kNumShapes;

inline constexpr unsigned long long kNoFailure = ~0ull;

/// Device-resident record of the first failing element of a run.
struct Failure {
  unsigned long long element;  ///< kNoFailure while the run is healthy
  int block;
  double value;  ///< det F of the failing element
};

/// The launchers' function-pointer types (fem/kernels/kernel_table.hpp), each enqueuing one
/// block's pass on a stream.
template <class T>
struct Passes {
  /// Records the first failing element in the Failure slot (which must not be null) and does
  /// nothing once it is set (`block` is what it records as the block).
  using Force = void (*)(const ElementPassArgs<T>&, int block, Failure*, cudaStream_t);
  using Evaluate = void (*)(const ElementPassArgs<T>&, const ElementResultsOut&, cudaStream_t);
  /// The tangent action into the per-slot forces (ElementPassArgs::direction set).
  using Tangent = void (*)(const ElementPassArgs<T>&, cudaStream_t);
  /// Element blocks into `out`: [e][a][9], [e][a][b][9], or [e][13] (pressure coupling).
  using Matrix = void (*)(const ElementPassArgs<T>&, T* out, cudaStream_t);
  /// Pass 1 of the averaged nodal pressure (or of its tangent); returns at once while the
  /// Failure slot, if given, is set.
  using Pressure = void (*)(const ElementPassArgs<T>&, const Failure*, cudaStream_t);
};

/// What a material plugin built for the CUDA backend provides.
struct MaterialKernels {
  std::uint32_t struct_size;
  kernels::MaterialPasses<Passes> passes;
};

// Threads per block of the element kernels; a compile-time knob (-DFEM_CUDA_ELEMENT_THREADS=N in
// CMAKE_CUDA_FLAGS) so that block sizes can be compared without editing the source.
#ifndef FEM_CUDA_ELEMENT_THREADS
#define FEM_CUDA_ELEMENT_THREADS 64
#endif
inline constexpr int kElementThreads = FEM_CUDA_ELEMENT_THREADS;
// Minimum resident blocks per SM asked of the compiler (__launch_bounds__), which caps registers
// per thread at 65536 / (64 x blocks). The element kernels are latency-bound: more resident warps
// hide more of the gather, as long as the cap does not spill. Measured on the H100 with
// neo-Hookean (docs/performance.md, v10), single precision only (double spills under any cap
// that gains residency):
//   tet4, warp-aggregated atomics: 24 blocks (48 -> 40 registers, no spills): +7 % at first;
//   since the laws take H = F - I (c11e9a2) the kernel needs 64 registers uncapped and 24 blocks
//   spilled 108 bytes, -20 % (2026-11-27: 24 blocks 1.54e10, 20 blocks (48 registers, 20 bytes
//   spilled) 2.10e10, 18 (56, none) 2.06e10, uncapped (64) 1.91e10): now 20;
//   hex8r: 10 blocks (111 -> 96 registers, no spills): +6 %; 11 (80 registers) +5 %, 14 (72)
//   -1 %, 16 (64, spilling) -8 %.
// Each is a compile-time knob (in CMAKE_CUDA_FLAGS; 1 leaves the compiler free;
// scripts/device/caps-compare.sh times variants side by side), and
// FEM_CUDA_ELEMENT_MIN_BLOCKS=N sets every kernel's, for measuring. A material heavier than
// neo-Hookean may spill under these caps (ptxas -v shows it): build its plugin with the knobs at 1.
#ifndef FEM_CUDA_TET4_SINGLE_MIN_BLOCKS
#define FEM_CUDA_TET4_SINGLE_MIN_BLOCKS 20
#endif
#ifndef FEM_CUDA_HEX8R_SINGLE_MIN_BLOCKS
#define FEM_CUDA_HEX8R_SINGLE_MIN_BLOCKS 10
#endif

template <class T, int NPE, int NQP, Family FAMILY, bool WARP_AGGREGATED>
constexpr int element_min_blocks() {
#ifdef FEM_CUDA_ELEMENT_MIN_BLOCKS
  return FEM_CUDA_ELEMENT_MIN_BLOCKS;
#else
  if constexpr (!std::is_same_v<T, float>) return 1;
  if constexpr (NPE == 4 && NQP == 1 && FAMILY == Family::Isoparametric && WARP_AGGREGATED)
    return FEM_CUDA_TET4_SINGLE_MIN_BLOCKS;
  if constexpr (FAMILY == Family::Hex8Hourglass) return FEM_CUDA_HEX8R_SINGLE_MIN_BLOCKS;
  return 1;
#endif
}

inline unsigned grid_for(std::int64_t n, int threads) {
  return static_cast<unsigned>((n + threads - 1) / threads);
}

/// WARP_AGGREGATED: atomic assembly with warp-aggregated atomics (see
/// ElementPassArgs::warp_aggregated_atomics); lanes past the last element leave at once and take
/// no part in it.
template <class M, class T, int NPE, int NQP, Family FAMILY, bool WARP_AGGREGATED>
__global__ void __launch_bounds__(kElementThreads,
                                  element_min_blocks<T, NPE, NQP, FAMILY, WARP_AGGREGATED>())
    element_forces_kernel(const ElementPassArgs<T> a, int block, Failure* failure) {
  if (failure->element != kNoFailure) return;  // frozen after a failed step
  const std::int64_t e = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (e >= a.num_elements) return;
  const T j = kernels::element_forces<M, T, NPE, NQP, FAMILY, WARP_AGGREGATED>(a, e);
  if (!(j > T(0)) || !kernels::is_finite(j)) {
    const auto id = static_cast<unsigned long long>(e);
    if (atomicMin(&failure->element, id) > id) {
      failure->block = block;
      failure->value = static_cast<double>(j);
    }
  }
}

template <class M, class T, int NPE, int NQP, Family FAMILY>
__global__ void __launch_bounds__(kElementThreads)
    element_evaluate_kernel(const ElementPassArgs<T> a, const ElementResultsOut r) {
  const std::int64_t e = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (e < a.num_elements) kernels::element_evaluate<M, T, NPE, NQP, FAMILY>(a, e, r);
}

/// Pass 1 of the averaged nodal pressure (TANGENT: of the tangent action).
template <class M, class T, bool TANGENT>
__global__ void __launch_bounds__(kElementThreads)
    element_pressure_kernel(const ElementPassArgs<T> a, const Failure* failure) {
  if (failure && failure->element != kNoFailure) return;  // frozen after a failed step
  const std::int64_t e = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (e >= a.num_elements) return;
  if constexpr (TANGENT)
    kernels::element_pressure_tangent<M, T>(a, e);
  else
    kernels::element_pressure<M, T>(a, e);
}

/// The tangent action K_e(u) v_e of every element into its slots (implicit solves: always the
/// deterministic per-slot storage, no register cap: the dual numbers need twice the registers of
/// the force pass, and the pass runs once per Krylov iteration, not per explicit step).
template <class M, class T, int NPE, int NQP, Family FAMILY>
__global__ void __launch_bounds__(kElementThreads)
    element_tangent_kernel(const ElementPassArgs<T> a) {
  const std::int64_t e = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (e < a.num_elements) kernels::element_tangent<M, T, NPE, NQP, FAMILY>(a, e);
}

/// Element stiffness blocks (kernels::element_matrix): each thread zeroes and fills its
/// element's npe (DIAGONAL) or npe^2 blocks of `out`.
template <class M, class T, int NPE, int NQP, Family FAMILY, bool DIAGONAL>
__global__ void __launch_bounds__(kElementThreads)
    element_matrix_kernel(const ElementPassArgs<T> a, T* out) {
  const std::int64_t e = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (e >= a.num_elements) return;
  const std::int64_t npe = NPE ? NPE : a.nodes_per_element;
  const std::int64_t size = 9 * npe * (DIAGONAL ? 1 : npe);
  T* blocks = out + e * size;
  for (std::int64_t i = 0; i < size; ++i) blocks[i] = T(0);
  kernels::element_matrix<M, T, NPE, NQP, FAMILY, DIAGONAL>(a, e, blocks);
}

/// Averaged nodal pressure: kernels::pressure_coupling of every element, [e][13].
template <class M, class T>
__global__ void __launch_bounds__(kElementThreads)
    pressure_coupling_kernel(const ElementPassArgs<T> a, T* out) {
  const std::int64_t e = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (e < a.num_elements) kernels::pressure_coupling<M, T>(a, e, out + 13 * e);
}

/// The launchers of the kernel table (fem/kernels/kernel_table.hpp): one thread per element of
/// the block, enqueued on the stream given.
struct Launch {
  template <class M, class T, int NPE, int NQP, Family FAMILY>
  static void forces(const ElementPassArgs<T>& a, int block, Failure* failure, cudaStream_t s) {
    if (a.num_elements == 0) return;
    const unsigned grid = grid_for(a.num_elements, kElementThreads);
    if (a.node_forces && a.warp_aggregated_atomics)
      element_forces_kernel<M, T, NPE, NQP, FAMILY, true>
          <<<grid, kElementThreads, 0, s>>>(a, block, failure);
    else
      element_forces_kernel<M, T, NPE, NQP, FAMILY, false>
          <<<grid, kElementThreads, 0, s>>>(a, block, failure);
    FEM_CUDA_CHECK_LAUNCH();
  }

  template <class M, class T, int NPE, int NQP, Family FAMILY>
  static void evaluate(const ElementPassArgs<T>& a, const ElementResultsOut& r, cudaStream_t s) {
    per_element(element_evaluate_kernel<M, T, NPE, NQP, FAMILY>, a, s, r);
  }

  template <class M, class T, int NPE, int NQP, Family FAMILY>
  static void tangent(const ElementPassArgs<T>& a, cudaStream_t s) {
    per_element(element_tangent_kernel<M, T, NPE, NQP, FAMILY>, a, s);
  }

  template <class M, class T, int NPE, int NQP, Family FAMILY, bool DIAGONAL>
  static void matrix(const ElementPassArgs<T>& a, T* out, cudaStream_t s) {
    per_element(element_matrix_kernel<M, T, NPE, NQP, FAMILY, DIAGONAL>, a, s, out);
  }

  template <class M, class T>
  static void pressure(const ElementPassArgs<T>& a, const Failure* failure, cudaStream_t s) {
    per_element(element_pressure_kernel<M, T, false>, a, s, failure);
  }

  template <class M, class T>
  static void pressure_tangent(const ElementPassArgs<T>& a, const Failure* failure,
                               cudaStream_t s) {
    per_element(element_pressure_kernel<M, T, true>, a, s, failure);
  }

  template <class M, class T>
  static void pressure_coupling(const ElementPassArgs<T>& a, T* out, cudaStream_t s) {
    per_element(pressure_coupling_kernel<M, T>, a, s, out);
  }

 private:
  /// kernel(a, rest...) with one thread per element of a.
  template <class T, class... Params, class... Rest>
  static void per_element(void (*kernel)(ElementPassArgs<T>, Params...),
                          const ElementPassArgs<T>& a, cudaStream_t s, Rest... rest) {
    if (a.num_elements == 0) return;
    kernel<<<grid_for(a.num_elements, kElementThreads), kElementThreads, 0, s>>>(a, rest...);
    FEM_CUDA_CHECK_LAUNCH();
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

}  // namespace fem::cuda

/// Defines the entry point of material M's CUDA build (used by fem_add_material's template).
#define FEM_CUDA_MATERIAL_PLUGIN(M, VERSION)                                                 \
  namespace {                                                                                \
  const fem::cuda::MaterialKernels fem_cuda_kernels = fem::cuda::make_material_kernels<M>(); \
  const fem::MaterialApi fem_material_api = {fem::make_material_host_api<M>(), "cuda",       \
                                             &fem_cuda_kernels};                             \
  }                                                                                          \
  FEM_DEFINE_PLUGIN_ENTRY(FEM_PLUGIN_MATERIAL, M::name, VERSION, "cuda", &fem_material_api)
