// The CUDA backend's node pass: one thread per node sums the node's force (read once in atomic
// assembly, gathered through the incidence in deterministic assembly), applies boundary
// conditions, loads and contact, advances the central-difference update and, in measured steps,
// reduces the step norms. Also the kernels the step graph runs around it: the amplitude table
// and the second stage of the norm reduction.
#pragma once

#include <cuda_runtime.h>

#include <array>
#include <cstdint>
#include <type_traits>
#include <utility>

#include <fem/amplitude.hpp>
#include <fem/contact/rigid_surface.hpp>
#include <fem/cuda/element_kernels.cuh>

#include "device_blocks.cuh"  // kNodeThreads

namespace fem::cuda {

/// Node-update coefficients in device memory, so that captured graphs stay valid when dynamic
/// relaxation changes its damping: b, c, then gravity (2 dt^2 / (2 + q dt) * g).
constexpr int kCoefB = 0, kCoefC = 1, kCoefGravity = 2, kNumCoef = 5;
/// NodePassArgs::dof_flags bit of a ghost node (System::ghost): another process owns it.
constexpr unsigned kGhostNode = 128u;
/// StepNorms reductions, per block then finalised: maxima first, then sums.
constexpr int kNormIncMax = 0, kNormResMax = 1, kNormIntMax = 2, kNormIncSq = 3, kNormResSq = 4,
              kNormNum = 5, kNormDen = 6, kNumNorms = 7, kNumMaxNorms = 3;

template <class T>
struct NodePassArgs {
  std::int64_t num_nodes;
  const std::int32_t* offsets;  // 32-bit incidence: half the index bytes of the gather
  const std::int32_t* slots;
  const T* forces;
  T* node_forces;  // atomic assembly: already summed per node (then `forces` is unused)
  int node_force_stride;
  /// Atomic assembly: zero each node's force once read, so that the next step's element pass
  /// finds them cleared without a separate fill of the whole array (see StepPlan).
  bool clear_node_forces;
  const T* acoef;              // force_scale / m
  const T* coef;               // kCoef*
  const T* gravity_weight;     // physical / iteration mass, or null
  const double* inverse_mass;  // of the iteration mass (measured steps)
  /// Per node: bit i set if dof i is prescribed, bit 3 + i if it carries a nodal load, bit 6 if
  /// it is a contact node, kGhostNode if it is a ghost. Most nodes have none, and then the
  /// per-dof boundary-condition arrays are not read at all.
  const std::uint8_t* dof_flags;
  const std::int32_t* prescribed_amplitude;
  const T* prescribed_value;
  const std::int32_t* load_amplitude;
  const T* load_value;
  int gravity_amplitude;
  /// This step's row of the amplitude table (amplitude_table_kernel): [curve][2], the curves at
  /// the start and at the end of the step. Filled once per graph of steps, not by a kernel per
  /// step (which took 3 us of the 2M-element tet4 cube's 96-us step); nor evaluated in the node
  /// kernel (a shared copy needs a barrier that holds every block's loads behind one thread's
  /// evaluation; a copy per thread costs every thread the registers of the evaluation).
  const double* amplitudes;
  /// Step counter, double-buffered by the step's parity: this step is steps[from] + 1, which
  /// block 0 writes to steps[1 - from] once the step is not frozen by a failure. Reading one
  /// slot and writing the other keeps the blocks of one kernel from racing; the host takes the
  /// larger of the two as the last completed step.
  long long* steps;
  int from;
  const T* u;
  T* u_next;  // holds u_{n-1} on entry
  const Failure* failure;
  // Contact (only read for nodes with bit 6).
  const std::uint8_t* contact_mask;
  const T* coords;
  const contact::SurfaceView<T>* surfaces;
  // Measured steps: P(u_n) kept for the next step (keep), per-block partial norms and contact
  // forces (measure).
  T* saved_forces;
  bool keep;
  double* partials;       // [block][kNumNorms]
  double* contact_force;  // [surface][3], atomically added
  unsigned long long* contact_count;
  /// Null: every node, one thread each. Otherwise the pass updates only these num_listed nodes
  /// (a partitioned run's overlapped step: the nodes its halo sends, then the rest); it must
  /// then not clear node forces (they are cleared before the element pass).
  const std::int32_t* nodes = nullptr;
  std::int64_t num_listed = 0;
};

/// The amplitude table of the next `steps` steps: row k, [curve][2], holds every curve at the
/// start and at the end of step steps[from] + 1 + k.
static __global__ void amplitude_table_kernel(const long long* steps, int from, int count,
                                              double dt, const Amplitude* amplitudes, int curves,
                                              double* table) {
  const double first = static_cast<double>(steps[from] + 1);
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < count * curves;
       i += gridDim.x * blockDim.x) {
    const int k = i / curves, curve = i % curves;
    const double t = (first + k) * dt;
    table[2 * i] = evaluate(amplitudes[curve], t);
    table[2 * i + 1] = evaluate(amplitudes[curve], t + dt);
  }
}

/// Zeroes one node's force (stride 3, or 4 with one vector store in single precision).
template <class T>
__device__ inline void clear_force(T* f, int stride) {
  if constexpr (sizeof(T) == sizeof(float)) {
    if (stride == 4) {
      *reinterpret_cast<float4*>(f) = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
      return;
    }
  }
  for (int i = 0; i < stride; ++i) f[i] = T(0);
}

/// Reduces one norm's kNodeThreads values in buf (shared memory, written by every thread of the
/// block) into buf[0], pairwise in a fixed order: the maximum for the first kNumMaxNorms norms,
/// the sum for the rest. Every thread of the block calls it.
__device__ inline void reduce_norm(double* buf, int q) {
  __syncthreads();
  for (int stride = kNodeThreads / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride)
      buf[threadIdx.x] = q < kNumMaxNorms ? fmax(buf[threadIdx.x], buf[threadIdx.x + stride])
                                          : buf[threadIdx.x] + buf[threadIdx.x + stride];
    __syncthreads();
  }
}

/// What a node kernel is compiled for, as bits of its template argument: each variant gets the
/// registers (and so the occupancy) that its own work needs.
enum NodeVariant : int {
  kNodeMeasure = 1,  ///< reduce the step norms (measured steps)
  /// Correct contact nodes (flag bit 6); only systems with contact surfaces. Inlined, the surface
  /// projections would set every node's register count (single precision: 66 with them, 48
  /// without).
  kNodeContact = 2,
  /// Deterministic assembly: gather each node's element-node forces through the incidence
  /// (atomic assembly reads one summed force).
  kNodeGather = 4,
  kNumNodeVariants = 8
};

/// Resident blocks asked of the plain atomic variant, the step loop's common case (a compile-time
/// knob, -DFEM_CUDA_NODE_MIN_BLOCKS=N in CMAKE_CUDA_FLAGS), in single precision: 5 (48
/// registers, no spills) measured 1-2 % faster than 6 (40, spilling 28 bytes). Double precision
/// and the other variants are left free (docs/performance.md, v10).
#ifndef FEM_CUDA_NODE_MIN_BLOCKS
#define FEM_CUDA_NODE_MIN_BLOCKS 5
#endif
template <class T>
constexpr int node_min_blocks(int variant) {
  return variant == 0 && std::is_same_v<T, float> ? FEM_CUDA_NODE_MIN_BLOCKS : 1;
}

template <class T, int Variant>
__global__ void __launch_bounds__(kNodeThreads, node_min_blocks<T>(Variant))
    node_kernel(const NodePassArgs<T> a) {
  constexpr bool Measure = (Variant & kNodeMeasure) != 0;
  constexpr bool Contact = (Variant & kNodeContact) != 0;
  constexpr bool Gather = (Variant & kNodeGather) != 0;
  if (a.failure->element != kNoFailure) return;  // frozen after a failed step
  if (blockIdx.x == 0 && threadIdx.x == 0) a.steps[1 - a.from] = a.steps[a.from] + 1;
  // This step's amplitudes, [curve][2]: at the start and the end of the step.
  const auto amp_now = [&a](int curve) { return static_cast<T>(a.amplitudes[2 * curve]); };
  const auto amp_next = [&a](int curve) { return static_cast<T>(a.amplitudes[2 * curve + 1]); };
  const std::int64_t thread = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  // A listed pass: threads past the list get a node past the last, as threads past the last
  // node do in a full pass.
  const std::int64_t n = a.nodes == nullptr      ? thread
                         : thread < a.num_listed ? a.nodes[thread]
                                                 : a.num_nodes;
  double norms[kNumNorms] = {0, 0, 0, 0, 0, 0, 0};
  // Another process owns a ghost node and sends its u_{n+1} after the step: nothing of it is
  // written here (u_next keeps u_{n-1} until then) and it adds nothing to this process's norms.
  if (n < a.num_nodes && !(a.dof_flags[n] & kGhostNode)) {
    T p[3] = {T(0), T(0), T(0)};
    if constexpr (!Gather) {
      const T* const f = a.node_forces + a.node_force_stride * n;
      for (int i = 0; i < 3; ++i) p[i] = f[i];
    } else {
      for (std::int64_t j = a.offsets[n]; j < a.offsets[n + 1]; ++j) {
        const T* f = a.forces + 3 * static_cast<std::int64_t>(a.slots[j]);
        p[0] += f[0];
        p[1] += f[1];
        p[2] += f[2];
      }
    }
    const T g_amp = a.gravity_amplitude >= 0 ? amp_now(a.gravity_amplitude) : T(0);
    const T b = a.coef[kCoefB], c = a.coef[kCoefC], acoef = a.acoef[n];
    const unsigned flags = a.dof_flags[n];
    T u_now[3], u_prev[3];
    for (int i = 0; i < 3; ++i) {
      u_now[i] = a.u[3 * n + i];
      u_prev[i] = a.u_next[3 * n + i];
    }
    T next[3], r[3], gravity[3];
    for (int i = 0; i < 3; ++i) {
      const std::int64_t d = 3 * n + i;
      gravity[i] = a.coef[kCoefGravity + i] * g_amp;
      if (a.gravity_weight) gravity[i] = gravity[i] * a.gravity_weight[n];
      if (flags & (1u << i)) {
        next[i] = a.prescribed_value[d] * amp_next(a.prescribed_amplitude[d]);
        r[i] = T(0);
      } else {
        r[i] = -p[i];
        if (flags & (8u << i)) r[i] += a.load_value[d] * amp_now(a.load_amplitude[d]);
        next[i] = acoef * r[i] + gravity[i] + b * u_now[i] - c * u_prev[i];
      }
    }
    if (Contact && (flags & 64u)) {
      const unsigned mask = a.contact_mask[n];
      for (int s = 0; s < kMaxSurfaces; ++s) {
        if (!(mask & (1u << s))) continue;
        const contact::SurfaceView<T>& surf = a.surfaces[s];
        const T amp = surf.amplitude >= 0 ? amp_next(surf.amplitude) : T(0);
        T moved[3];
        if (!contact::correct_node(surf, amp, a.coords + 3 * n, next, moved)) continue;
        if constexpr (Measure) {
          atomicAdd(a.contact_count, 1ull);
          for (int i = 0; i < 3; ++i) {
            const double force = static_cast<double>(moved[i]) / static_cast<double>(acoef);
            atomicAdd(a.contact_force + 3 * s + i, force);
            r[i] += static_cast<T>(force);
          }
        }
      }
    }
    for (int i = 0; i < 3; ++i) {
      const std::int64_t d = 3 * n + i;
      if constexpr (Measure) {
        norms[kNormIntMax] = fmax(norms[kNormIntMax], fabs(static_cast<double>(p[i])));
        if (!(flags & (1u << i))) {
          const double inc = static_cast<double>(next[i]) - static_cast<double>(u_now[i]);
          const double du = static_cast<double>(u_now[i]) - static_cast<double>(u_prev[i]);
          const double res = static_cast<double>(r[i]) +
                             static_cast<double>(gravity[i]) / static_cast<double>(acoef);
          norms[kNormIncMax] = fmax(norms[kNormIncMax], fabs(inc));
          norms[kNormResMax] = fmax(norms[kNormResMax], fabs(res));
          norms[kNormIncSq] += inc * inc;
          norms[kNormResSq] += res * res;
          norms[kNormNum] +=
              du * (static_cast<double>(p[i]) - static_cast<double>(a.saved_forces[d]));
          norms[kNormDen] += du * du / a.inverse_mass[n];
        }
      }
      if (a.keep) a.saved_forces[d] = p[i];
      a.u_next[d] = next[i];
    }
  }
  // Last: a store to the address just loaded, issued early, would hold the loads after it.
  // Ghost nodes too: the next element pass adds their forces (nodal_internal_forces reads them).
  if (a.clear_node_forces && n < a.num_nodes)
    clear_force(a.node_forces + a.node_force_stride * n, a.node_force_stride);
  if constexpr (Measure) {
    // Block reduction in shared memory, one quantity at a time, in a fixed order.
    __shared__ double buf[kNodeThreads];
    for (int q = 0; q < kNumNorms; ++q) {
      buf[threadIdx.x] = norms[q];
      reduce_norm(buf, q);
      if (threadIdx.x == 0) a.partials[blockIdx.x * kNumNorms + q] = buf[0];
      __syncthreads();
    }
  }
}

/// Every variant's node kernel, indexed by NodeVariant bits.
template <class T, int... Variants>
constexpr std::array<void (*)(NodePassArgs<T>), sizeof...(Variants)> node_kernels(
    std::integer_sequence<int, Variants...>) {
  return {&node_kernel<T, Variants>...};
}

/// The second stage: one block reduces the per-block partials, in a fixed order.
static __global__ void finish_norms_kernel(const double* partials, int blocks, double* out) {
  __shared__ double buf[kNodeThreads];
  for (int q = 0; q < kNumNorms; ++q) {
    double v = 0.0;
    for (int k = threadIdx.x; k < blocks; k += blockDim.x) {
      const double x = partials[k * kNumNorms + q];
      v = q < kNumMaxNorms ? fmax(v, x) : v + x;
    }
    buf[threadIdx.x] = v;
    reduce_norm(buf, q);
    if (threadIdx.x == 0) out[q] = buf[0];
    __syncthreads();
  }
}

}  // namespace fem::cuda
