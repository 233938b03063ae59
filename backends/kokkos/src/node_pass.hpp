// The Kokkos backend's node-side kernels: the fused node pass of an explicit step and the force
// gathers. Plain functors over raw pointers into the problem's Views, so the same code is a CUDA
// kernel or a host loop depending on the space it is launched on.
#pragma once

#include <cstdint>

#include <fem/amplitude.hpp>
#include <fem/kokkos/element_kernels.hpp>
#include <fem/tensor.hpp>

namespace fem::kokkos::detail {

/// Gather forces, loads, damped central difference (seed 000, eqs. 3-5) and prescribed
/// displacements for one node, with the arithmetic of the OpenMP reference, term for term.
template <class T>
struct NodePass {
  unsigned long long step;  // the step this pass completes (recorded if it finds a failure)
  double t, t_next;         // loads at t(n), prescribed displacements at t(n+1)
  const std::int64_t* offsets;
  const std::int64_t* slots;
  const T* forces;       // per-slot element forces (deterministic assembly)
  const T* node_forces;  // or already summed per node (atomic assembly), [node][stride]
  int node_force_stride;
  const T* acoef;  // 2 dt^2 / ((2 + q dt) m)
  T b, c;
  /// Per node: bit i set if dof i is prescribed, bit 3 + i if it carries a nodal load; most
  /// nodes have neither and then read no per-dof boundary-condition data at all.
  const std::uint8_t* dof_flags;
  const std::int32_t* prescribed_amplitude;
  const T* prescribed_value;
  const std::int32_t* load_amplitude;
  const T* load_value;
  const Amplitude* amplitudes;
  T gravity[3];  // 2 dt^2 / (2 + q dt) * g * amplitude(t), or 0
  const T* u;
  T* u_next;  // holds u_{n-1} on entry
  FailureSlot* failure;

  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t n) const {
    if (failure->key != kNoFailure) {
      // This step's element pass failed: freeze the run; nothing moves from here on.
      if (n == 0 && failure->step == kNoFailure) failure->step = step;
      return;
    }
    T p[3] = {T(0), T(0), T(0)};
    if (node_forces) {
      for (int i = 0; i < 3; ++i) p[i] = node_forces[node_force_stride * n + i];
    } else {
      for (std::int64_t j = offsets[n]; j < offsets[n + 1]; ++j)
        for (int i = 0; i < 3; ++i) p[i] += forces[3 * slots[j] + i];
    }
    const unsigned flags = dof_flags[n];
    for (int i = 0; i < 3; ++i) {
      const std::int64_t d = 3 * n + i;
      T next;
      if (flags & (1u << i)) {
        next = prescribed_value[d] *
               static_cast<T>(evaluate(amplitudes[prescribed_amplitude[d]], t_next));
      } else {
        T r = -p[i];
        if (flags & (8u << i))
          r += load_value[d] * static_cast<T>(evaluate(amplitudes[load_amplitude[d]], t));
        next = acoef[n] * r + gravity[i] + b * u[d] - c * u_next[d];
      }
      u_next[d] = next;
    }
  }
};

/// out[3k + i] = sum of the element forces at node nodes[k] (all nodes if `nodes` is null).
template <class T>
struct GatherForces {
  const std::int32_t* nodes;
  const std::int64_t* offsets;
  const std::int64_t* slots;
  const T* forces;
  const T* node_forces;  // atomic assembly: already summed, [node][stride]
  int node_force_stride;
  double* out;

  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t k) const {
    const std::int64_t n = nodes ? nodes[k] : k;
    double p[3] = {0, 0, 0};
    if (node_forces) {
      for (int i = 0; i < 3; ++i)
        p[i] = static_cast<double>(node_forces[node_force_stride * n + i]);
    } else {
      for (std::int64_t j = offsets[n]; j < offsets[n + 1]; ++j)
        for (int i = 0; i < 3; ++i) p[i] += static_cast<double>(forces[3 * slots[j] + i]);
    }
    for (int i = 0; i < 3; ++i) out[3 * k + i] = p[i];
  }
};

/// u and u_prev at a list of nodes, in double.
template <class T>
struct PickNodes {
  const std::int32_t* nodes;
  const T* u;
  const T* u_prev;
  double* out_u;
  double* out_prev;

  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t k) const {
    const std::int64_t n = nodes[k];
    for (int i = 0; i < 3; ++i) {
      out_u[3 * k + i] = static_cast<double>(u[3 * n + i]);
      out_prev[3 * k + i] = static_cast<double>(u_prev[3 * n + i]);
    }
  }
};

/// A "material" without stress: runs the shared element kernel for det F alone.
struct DetOnly {
  template <class T>
  FEM_HD static Mat3<T> stress(const T* /*params*/, const Mat3<T>& /*F*/, T* /*state*/) {
    return Mat3<T>::zero();
  }
};

/// The smallest det F of one element (args already offset to it, as element 0), computed by the
/// same shared kernel as the element pass: the value a failure report quotes.
template <class T>
struct ElementDetF {
  kernels::ElementPassArgs<T> a;
  T* out;

  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t) const {
    *out = kernels::element_forces<DetOnly, T, 0, 0, Family::Isoparametric>(a, 0);
  }
};

}  // namespace fem::kokkos::detail
