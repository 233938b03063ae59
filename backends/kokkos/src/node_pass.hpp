// The Kokkos backend's node-side kernels: the fused node pass of an explicit step and the force
// gathers. Plain functors over raw pointers into the problem's Views, so the same code is a CUDA
// kernel or a host loop depending on the space it is launched on.
#pragma once

#include <cstdint>
#include <type_traits>

#include <fem/amplitude.hpp>
#include <fem/contact/rigid_surface.hpp>
#include <fem/kokkos/element_kernels.hpp>

namespace fem::kokkos::detail {

/// NodePass::dof_flags bit of a ghost node (System::ghost): another process owns it.
constexpr unsigned kGhostNode = 128u;

/// What a measured node pass reduces (StepNorms): maxima, sums, contact forces per surface.
struct NormAccumulator {
  double inc_max, res_max, int_max, inc_sq, res_sq, num, den;
  double contact[3 * kMaxSurfaces];
  long long contact_nodes;
};

/// Gather forces, loads, damped central difference (seed 000, eqs. 3-5, and the dynamic
/// relaxation of seed 003, eqs. 5-6), prescribed displacements and contact for one node, with the
/// arithmetic of the OpenMP reference, term for term. Launched as a parallel_for, or as a
/// parallel_reduce that also computes StepNorms.
template <class T>
struct NodePass {
  using value_type = NormAccumulator;

  unsigned long long step;  // the step this pass completes (recorded if it finds a failure)
  double t, t_next;         // loads at t(n), prescribed displacements at t(n+1)
  const std::int64_t* offsets;
  const std::int64_t* slots;
  const T* forces;       // per-slot element forces (deterministic assembly)
  const T* node_forces;  // or already summed per node (atomic assembly), [node][stride]
  int node_force_stride;
  const T* acoef;  // force_scale / m
  T b, c;
  /// Per node: bit i set if dof i is prescribed, bit 3 + i if it carries a nodal load, bit 6 if
  /// it is a contact node, kGhostNode if it is a ghost; most nodes have none and then read no
  /// per-dof data at all.
  const std::uint8_t* dof_flags;
  const std::int32_t* prescribed_amplitude;
  const T* prescribed_value;
  const std::int32_t* load_amplitude;
  const T* load_value;
  const Amplitude* amplitudes;
  T gravity[3];                // force_scale * g * amplitude(t), or 0
  const T* gravity_weight;     // physical / iteration mass, or null
  const double* inverse_mass;  // iteration mass (measured passes)
  const T* u;
  T* u_next;  // holds u_{n-1} on entry
  FailureSlot* failure;
  const std::uint8_t* contact_mask;
  const T* coords;
  const contact::SurfaceView<T>* surfaces;
  T* saved_forces;  // P(u_n) kept (keep) or read (measured pass)
  bool keep;

  KOKKOS_INLINE_FUNCTION void init(value_type& v) const {
    v.inc_max = v.res_max = v.int_max = v.inc_sq = v.res_sq = v.num = v.den = 0.0;
    for (int i = 0; i < 3 * kMaxSurfaces; ++i) v.contact[i] = 0.0;
    v.contact_nodes = 0;
  }
  // Kokkos before 3.7 joins through volatile references, Kokkos 4 refuses them; no compound
  // assignment in the body, which C++20 deprecates on volatile operands.
  using join_type = std::conditional_t<(KOKKOS_VERSION >= 30700), value_type, volatile value_type>;
  KOKKOS_INLINE_FUNCTION void join(join_type& dst, const join_type& src) const {
    dst.inc_max = dst.inc_max > src.inc_max ? dst.inc_max : src.inc_max;
    dst.res_max = dst.res_max > src.res_max ? dst.res_max : src.res_max;
    dst.int_max = dst.int_max > src.int_max ? dst.int_max : src.int_max;
    dst.inc_sq = dst.inc_sq + src.inc_sq;
    dst.res_sq = dst.res_sq + src.res_sq;
    dst.num = dst.num + src.num;
    dst.den = dst.den + src.den;
    for (int i = 0; i < 3 * kMaxSurfaces; ++i) dst.contact[i] = dst.contact[i] + src.contact[i];
    dst.contact_nodes = dst.contact_nodes + src.contact_nodes;
  }

  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t n) const { update(n, nullptr); }
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t n, value_type& acc) const {
    update(n, &acc);
  }

  KOKKOS_INLINE_FUNCTION void update(const std::int64_t n, value_type* acc) const {
    if (failure->key != kNoFailure) {
      // This step's element pass failed: freeze the run; nothing moves from here on.
      if (n == 0 && failure->step == kNoFailure) failure->step = step;
      return;
    }
    const unsigned flags = dof_flags[n];
    // Another process owns a ghost node and sends its u_{n+1} after the step: nothing of it is
    // written here (u_next keeps u_{n-1} until then) and it stays out of this process's norms.
    if (flags & kGhostNode) return;
    T p[3] = {T(0), T(0), T(0)};
    if (node_forces) {
      for (int i = 0; i < 3; ++i) p[i] = node_forces[node_force_stride * n + i];
    } else {
      for (std::int64_t j = offsets[n]; j < offsets[n + 1]; ++j)
        for (int i = 0; i < 3; ++i) p[i] += forces[3 * slots[j] + i];
    }
    const T g = gravity_weight ? gravity_weight[n] : T(1);
    T next[3], r[3];
    for (int i = 0; i < 3; ++i) {
      const std::int64_t d = 3 * n + i;
      if (flags & (1u << i)) {
        next[i] = prescribed_value[d] *
                  static_cast<T>(evaluate(amplitudes[prescribed_amplitude[d]], t_next));
        r[i] = T(0);
      } else {
        r[i] = -p[i];
        if (flags & (8u << i))
          r[i] += load_value[d] * static_cast<T>(evaluate(amplitudes[load_amplitude[d]], t));
        next[i] = acoef[n] * r[i] + gravity[i] * g + b * u[d] - c * u_next[d];
      }
    }
    if (flags & 64u) {
      const unsigned mask = contact_mask[n];
      for (int s = 0; s < kMaxSurfaces; ++s) {
        if (!(mask & (1u << s))) continue;
        const contact::SurfaceView<T>& surf = surfaces[s];
        const T amp = surf.amplitude >= 0
                          ? static_cast<T>(evaluate(amplitudes[surf.amplitude], t_next))
                          : T(0);
        T moved[3];
        if (!contact::correct_node(surf, amp, coords + 3 * n, next, moved)) continue;
        if (acc) {
          ++acc->contact_nodes;
          for (int i = 0; i < 3; ++i) {
            const double force = static_cast<double>(moved[i]) / static_cast<double>(acoef[n]);
            acc->contact[3 * s + i] += force;
            r[i] += static_cast<T>(force);
          }
        }
      }
    }
    for (int i = 0; i < 3; ++i) {
      const std::int64_t d = 3 * n + i;
      if (acc) {
        const double pi =
            static_cast<double>(p[i]) < 0 ? -static_cast<double>(p[i]) : static_cast<double>(p[i]);
        if (pi > acc->int_max) acc->int_max = pi;
        if (!(flags & (1u << i))) {
          const double inc = static_cast<double>(next[i]) - static_cast<double>(u[d]);
          const double du = static_cast<double>(u[d]) - static_cast<double>(u_next[d]);
          const double res = static_cast<double>(r[i]) +
                             static_cast<double>(gravity[i] * g) / static_cast<double>(acoef[n]);
          const double ainc = inc < 0 ? -inc : inc, ares = res < 0 ? -res : res;
          if (ainc > acc->inc_max) acc->inc_max = ainc;
          if (ares > acc->res_max) acc->res_max = ares;
          acc->inc_sq += inc * inc;
          acc->res_sq += res * res;
          acc->num += du * (static_cast<double>(p[i]) - static_cast<double>(saved_forces[d]));
          acc->den += du * du / inverse_mass[n];
        }
      }
      if (keep) saved_forces[d] = p[i];
      u_next[d] = next[i];
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

/// u at a list of nodes set from double values (the receiving half of a halo exchange).
template <class T>
struct PutNodes {
  const std::int32_t* nodes;
  const double* values;
  T* u;

  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t k) const {
    const std::int64_t n = nodes[k];
    for (int i = 0; i < 3; ++i) u[3 * n + i] = static_cast<T>(values[3 * k + i]);
  }
};

}  // namespace fem::kokkos::detail
