// The per-element work of the element passes, written once for every backend: the internal
// forces of the explicit step and of the implicit residual, and the tangent action K_e(u) v_e
// of the implicit solver, which is the same code evaluated in dual numbers (fem/dual.hpp).
//
// Each function handles one element and is host/device code (FEM_HD): the OpenMP backend calls it
// in a parallel loop, the CUDA backend from one thread per element, Kokkos from a parallel_for.
// Backends own the loop, the memory and how a bad element is reported; the arithmetic and the
// material call live here so that backends agree to round-off.
#pragma once

#include <cstdint>

#include "fem/config.hpp"
#include "fem/dual.hpp"
#include "fem/element.hpp"
#include "fem/kernels/averaged_pressure.hpp"
#include "fem/tensor.hpp"

namespace fem::kernels {

/// Largest element the runtime-sized path handles.
inline constexpr int kMaxNodesPerElement = 27;
/// Largest per-quadrature-point material state (history variables).
/// 24: three Prony terms of the viscoelastic law (6 per term and 6 for the previous isochoric
/// stress). Passes size stack arrays by it only where a law has state (element_evaluate's copy).
inline constexpr int kMaxMaterialState = 24;

/// One element's entries of a per-element array: entry c is data[c * stride], `data` pointing at
/// the element's first entry. See ElementPassArgs::element_stride.
template <class V>
struct ElementRecord {
  V* data;
  std::int64_t stride;
  FEM_INLINE V& operator[](std::int64_t c) const { return data[c * stride]; }
  /// The entries from c on (one quadrature point's block of a record, say).
  FEM_INLINE ElementRecord from(std::int64_t c) const { return {data + c * stride, stride}; }
};

/// Inputs and outputs of one block's element pass, in the run's precision T. All pointers refer
/// to the backend's memory (host for OpenMP, device for CUDA).
///
/// The read-only per-element arrays (connectivity, gradients, volumes, hourglass_vectors) are
/// written below as records [e][c]; a backend may instead store them component-major, [c][e]
/// with a row stride of element_stride >= num_elements (structure of arrays). That is the CUDA
/// backend's layout: the 32 threads of a warp, one element each, then read one 128-byte line
/// per entry instead of 32 records' worth of lines. Material state and the per-slot forces stay
/// records (a material law takes its state as one pointer; the node pass reads a slot's three
/// forces together).
template <class T>
struct ElementPassArgs {
  std::int64_t num_elements;
  int nodes_per_element;
  int quadrature_points;
  const std::int32_t* connectivity;  ///< [e][a]
  const T* gradients;                ///< [e][q][a][k]: dN_a/dX_k
  const T* volumes;                  ///< [e][q]: w_q det J_q
  const T* hourglass_vectors;        ///< [e][4][3]: h_m . X_j, or null
  const T* hourglass_base;           ///< [4][8]: h_m, or null
  const T* hourglass_stiffness;      ///< [e] or null
  const T* params;                   ///< material parameters
  T* state;                          ///< [e][q][num_state] or null
  int num_state;
  const T* u;  ///< [node][3]
  T* forces;   ///< [e][a][3] of this block (already offset); deterministic assembly
  /// Atomic assembly instead: forces are added straight into [node][node_force_stride].
  /// Null: use `forces`.
  T* node_forces = nullptr;
  /// 3, or 4 where a backend adds a node's three components with one vector atomic
  /// (CUDA, single precision: red.global.add.v4.f32 on sm_90), the fourth lane unused.
  int node_force_stride = 3;
  /// AveragedNodalPressureTet (fem/kernels/averaged_pressure.hpp). Pass 1 writes V_e U'(J_e)
  /// per element of this block (already offset) and, if set, V_e J_e (results only).
  T* element_pressure = nullptr;
  T* element_volume_ratio = nullptr;
  /// Pass 3 reads the nodal pressures [node] and, if set, the nodal volume ratios (results).
  const T* nodal_pressure = nullptr;
  const T* nodal_volume_ratio = nullptr;
  /// 0: the arrays above are records [e][c]; otherwise component-major [c][e] with this stride.
  std::int64_t element_stride = 0;
  /// Atomic assembly on a GPU: whether the lanes of a warp that add to the same node first sum
  /// their forces, so that one atomic per node and warp goes out (detail::assemble_force).
  /// Backends without warps ignore it.
  bool warp_aggregated_atomics = false;
  /// The tangent passes (element_tangent, element_pressure_tangent): the direction v [node][3].
  /// They write K_e(u) v_e where the force pass writes forces, and pass 1 of the averaged nodal
  /// pressure writes the derivative of V_e U'(J_e) along v into element_pressure.
  const T* direction = nullptr;
  /// Averaged nodal pressure, tangent pass 3: the nodal pressures' derivative along v [node].
  const T* nodal_pressure_derivative = nullptr;
  /// Implicit solves: the law reads the committed history from `state` and writes its update
  /// here ([e][q][num_state]); the solver commits it once an increment converges. Null: the
  /// state is updated in place (explicit steps).
  T* trial_state = nullptr;
  /// The time step the material history advances over (rate-dependent laws only, see
  /// stress_step in fem/material.hpp): the explicit step, the implicit increment, +infinity for
  /// static increments and dynamic relaxation (the long-term response), 0 where an accepted state
  /// is re-evaluated. Last member: plugins built before it read the members above unchanged.
  T dt = T(0);

  /// Element e's entries of `base`, a per-element array of `size` entries per element.
  template <class V>
  FEM_INLINE ElementRecord<V> record(V* base, std::int64_t e, std::int64_t size) const {
    return element_stride ? ElementRecord<V>{base + e, element_stride}
                          : ElementRecord<V>{base + e * size, 1};
  }
};

/// Per-element results at a displacement (quadrature averages, double).
/// Where element_evaluate writes; cauchy, green_lagrange and min_jacobian may be null (an
/// energy record without a frame), and hourglass_energy too where the family has no hourglass
/// control (its values are zero).
struct ElementResultsOut {
  double* cauchy;            ///< [e][6]: xx yy zz xy yz xz
  double* green_lagrange;    ///< [e][6]
  double* strain_energy;     ///< [e]
  double* hourglass_energy;  ///< [e]
  double* min_jacobian;      ///< [e]
};

/// Shapes with compiled-in sizes; everything else takes the runtime-sized path.
enum KernelShape : int {
  kTet4 = 0,
  kHex8Full = 1,
  kHex8Hourglass = 2,
  kTet4AveragedPressure = 3,
  kGeneric = 4,
  kNumShapes = 5
};

inline KernelShape kernel_shape(Family family, int npe, int nqp) {
  if (family == Family::Hex8Hourglass) return kHex8Hourglass;
  if (family == Family::AveragedNodalPressureTet) return kTet4AveragedPressure;
  if (npe == 4 && nqp == 1) return kTet4;
  if (npe == 8 && nqp == 8) return kHex8Full;
  return kGeneric;
}

/// Calls f(shape, NPE, NQP, FAMILY) with the compile-time sizes and family of every shape: the one
/// list each backend's kernel table is built from. A backend fills an entry only where
/// family_supported<M>(FAMILY) (the ANP family needs the material's volumetric split).
#define FEM_FOR_EACH_KERNEL_SHAPE(F)                                                      \
  F(::fem::kernels::kTet4, 4, 1, ::fem::Family::Isoparametric)                            \
  F(::fem::kernels::kHex8Full, 8, 8, ::fem::Family::Isoparametric)                        \
  F(::fem::kernels::kHex8Hourglass, 8, 1, ::fem::Family::Hex8Hourglass)                   \
  F(::fem::kernels::kTet4AveragedPressure, 4, 1, ::fem::Family::AveragedNodalPressureTet) \
  F(::fem::kernels::kGeneric, 0, 0, ::fem::Family::Isoparametric)

/// False for NaN and infinities (no <cmath> needed on the device; no fast-math in fem builds).
template <class T>
FEM_INLINE bool is_finite(T x) {
  return x - x == T(0);
}

/// Atomic x += v on the device (atomic assembly) and, so that the same kernel compiles
/// everywhere, a compare-and-swap loop on the host.
template <class T>
FEM_INLINE void atomic_add(T* x, T v) {
#if defined(__CUDA_ARCH__)
  atomicAdd(x, v);
#else
  T expected = *x, desired;
  do {
    desired = expected + v;
  } while (
      !__atomic_compare_exchange(x, &expected, &desired, true, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
#endif
}

/// Where warp aggregation pays in atomic assembly on a GPU, as measured on the H100
/// (docs/performance.md, v9): tetrahedra and double precision; single-precision hexahedra spend
/// more on the aggregation than the atomics it saves. The CUDA backend's `auto` and the Kokkos
/// backend on a device both take this rule.
template <class T>
constexpr bool warp_aggregation_pays(int nodes_per_element) {
  return nodes_per_element == 4 || sizeof(T) == sizeof(double);
}

namespace detail {

/// The displacements of an element's nodes (conn: its connectivity record) in the scalar S of
/// the work: u itself (S = T), or u with the direction v as derivative (S = Dual<T>, the
/// tangent action).
template <class S, class T, int CAP>
FEM_INLINE void gather_displacements(const ElementPassArgs<T>& a,
                                     ElementRecord<const std::int32_t> conn, int npe,
                                     S (&ue)[CAP][3]) {
  for (int n = 0; n < npe; ++n)
    for (int i = 0; i < 3; ++i) {
      const std::int64_t d = 3 * static_cast<std::int64_t>(conn[n]) + i;
      if constexpr (is_dual_v<S>)
        ue[n][i] = S(a.u[d], a.direction[d]);
      else
        ue[n][i] = a.u[d];
    }
}

/// Displacement gradient H = sum_a u_a (x) dN_a/dX at one quadrature point (F = I + H).
template <class S, class T, int CAP>
FEM_INLINE Mat3<S> displacement_gradient(const S (&ue)[CAP][3], ElementRecord<const T> grad,
                                         int npe) {
  Mat3<S> H = Mat3<S>::zero();
  for (int a = 0; a < npe; ++a)
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) H.m[i][j] += ue[a][i] * grad[3 * a + j];
  return H;
}

template <class T>
FEM_INLINE Mat3<T> identity_plus(Mat3<T> H) {
  for (int i = 0; i < 3; ++i) H.m[i][i] += T(1);
  return H;
}

/// The law's parameters in the scalar of the work: the backend's array itself (S = T), or a
/// copy as dual constants (the tangent).
template <class M, class S, class T, bool DUAL = is_dual_v<S>>
struct LawParams {
  const T* p;
  FEM_INLINE explicit LawParams(const T* params) : p(params) {}
  FEM_INLINE const S* get() const { return p; }
};
template <class M, class S, class T>
struct LawParams<M, S, T, true> {
  S p[M::num_params > 0 ? M::num_params : 1];
  FEM_INLINE explicit LawParams(const T* params) {
    for (int k = 0; k < M::num_params; ++k) p[k] = S(params[k]);
  }
  FEM_INLINE const S* get() const { return p; }
};

/// The history a law sees at one quadrature point (material state, num_state > 0). Forces:
/// the backend's array, updated in place (explicit) or copied into trial_state first (implicit).
/// The tangent: a dual copy of the committed state, derivatives zero, discarded afterwards.
template <class M, class S, class T, bool DUAL = is_dual_v<S>>
struct LawState {
  T* state = nullptr;
  FEM_INLINE LawState(const ElementPassArgs<T>& a, std::int64_t point) {
    if constexpr (M::num_state > 0) {
      state = a.state + point * M::num_state;
      if (a.trial_state) {
        T* trial = a.trial_state + point * M::num_state;
        for (int s = 0; s < M::num_state; ++s) trial[s] = state[s];
        state = trial;
      }
    } else {
      (void)a;
      (void)point;
    }
  }
  FEM_INLINE T* get() { return state; }
};
template <class M, class S, class T>
struct LawState<M, S, T, true> {
  S copy[M::num_state > 0 ? M::num_state : 1];
  FEM_INLINE LawState(const ElementPassArgs<T>& a, std::int64_t point) {
    if constexpr (M::num_state > 0) {
      for (int s = 0; s < M::num_state; ++s) copy[s] = S(a.state[point * M::num_state + s]);
    } else {
      (void)a;
      (void)point;
    }
  }
  FEM_INLINE S* get() { return M::num_state > 0 ? copy : nullptr; }
};

/// Hourglass mode amplitudes of a one-point hexahedron, s_m = Gamma_m^T u (4 modes x 3), with
/// the Flanagan-Belytschko vectors gamma_m = (h_m - (h_m . X_j) b_j) / 8 never formed:
/// sum_n (b_n)_j u_n = H e_j, so s_m = (h_m . u - H c_m) / 8, with c_m = h_m . X_j (the 12
/// numbers stored per element) and H the displacement gradient the stress needs anyway. Fewer
/// live values than the 32 gamma entries, which is what bounds the kernel's occupancy on a GPU.
template <class S, class T, int CAP>
FEM_INLINE void hourglass_amplitudes(const ElementPassArgs<T>& a, std::int64_t e,
                                     const S (&ue)[CAP][3], const Mat3<S>& H, S (&s)[4][3]) {
  const ElementRecord<const T> c = a.record(a.hourglass_vectors, e, 12);
  for (int m = 0; m < 4; ++m)
    for (int i = 0; i < 3; ++i) {
      S hu = S(0);
      for (int n = 0; n < 8; ++n) hu += a.hourglass_base[8 * m + n] * ue[n][i];
      s[m][i] = S(0.125) *
                (hu - H.m[i][0] * c[3 * m] - H.m[i][1] * c[3 * m + 1] - H.m[i][2] * c[3 * m + 2]);
    }
}

/// Hourglass forces f_n = k sum_m gamma_mn s_m by the same identity:
/// k/8 (sum_m h_mn s_m - G b_n) with G_ij = sum_m s_mi c_mj (b_n: the one-point gradients).
/// hourglass_moment gives G, hourglass_force adds one node's force.
template <class S, class T>
FEM_INLINE Mat3<S> hourglass_moment(const ElementPassArgs<T>& a, std::int64_t e,
                                    const S (&s)[4][3]) {
  const ElementRecord<const T> c = a.record(a.hourglass_vectors, e, 12);
  Mat3<S> g = Mat3<S>::zero();
  for (int m = 0; m < 4; ++m)
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) g.m[i][j] += s[m][i] * c[3 * m + j];
  return g;
}

template <class S, class T>
FEM_INLINE void add_hourglass_force(const ElementPassArgs<T>& a, int n, ElementRecord<const T> b,
                                    const S (&s)[4][3], const Mat3<S>& g, T k_over_8, S (&f)[3]) {
  for (int i = 0; i < 3; ++i) {
    S hs = S(0);
    for (int m = 0; m < 4; ++m) hs += a.hourglass_base[8 * m + n] * s[m][i];
    f[i] += k_over_8 *
            (hs - g.m[i][0] * b[3 * n] - g.m[i][1] * b[3 * n + 1] - g.m[i][2] * b[3 * n + 2]);
  }
}

/// Atomic assembly of one element-node force into node_force (stride 3 or 4, see
/// ElementPassArgs). One vector atomic instead of three where the hardware has it: on sm_90 the
/// element pass of a tetrahedron is bound by the L2's atomic throughput, not by bandwidth.
template <class T>
FEM_INLINE void atomic_add_force(T* node_force, const T (&f)[3], int stride) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900 && !defined(FEM_CUDA_SCALAR_ATOMICS)
  if constexpr (sizeof(T) == sizeof(float)) {
    if (stride == 4) {
      atomicAdd(reinterpret_cast<float4*>(node_force), make_float4(f[0], f[1], f[2], 0.0f));
      return;
    }
  }
#endif
  (void)stride;
  for (int i = 0; i < 3; ++i) atomic_add(node_force + i, f[i]);
}

#if defined(__CUDA_ARCH__)
/// Warp aggregation: the active lanes of the calling warp that pass the same `node` sum their
/// `f`. Returns true in the lowest such lane, which then holds the group's sum; the others
/// return false with `f` partly summed. Every active lane must call it (it is warp-synchronous;
/// lanes that left the kernel early are not in the active mask and take no part).
///
/// The lanes of one node form a list in lane order (`next`: the next higher lane of the group);
/// pointer jumping (Wyllie) adds each lane's successor's partial sum and links to its
/// successor's successor, so after ceil(log2(group size)) rounds every lane holds the sum from
/// itself to the end of its list. Lanes with a node of their own skip the loop at no cost but
/// the match and one vote.
template <class T>
__device__ inline bool warp_sum_same_node(std::int32_t node, T (&f)[3]) {
  const unsigned active = __activemask();
  const unsigned peers = __match_any_sync(active, node);
  unsigned lane;
  asm("mov.u32 %0, %%laneid;" : "=r"(lane));
  const unsigned higher = peers & ~((2u << lane) - 1u);  // 2u << 31 wraps to 0: no higher lane
  int next = higher ? __ffs(static_cast<int>(higher)) - 1 : -1;
  while (__any_sync(active, next >= 0)) {
    const int from = next >= 0 ? next : static_cast<int>(lane);  // no successor: unused
    T g[3];
    for (int i = 0; i < 3; ++i) g[i] = __shfl_sync(active, f[i], from);
    const int after = __shfl_sync(active, next, from);
    if (next >= 0) {
      for (int i = 0; i < 3; ++i) f[i] += g[i];
      next = after;
    }
  }
  return (peers & ((1u << lane) - 1u)) == 0u;
}
#endif

/// Adds element-node force f into node `node` of node_forces (atomic assembly). With
/// WARP_AGGREGATED (CUDA only; ElementPassArgs::warp_aggregated_atomics) the lanes of a warp
/// that add to the same node sum first and one of them adds the sum: consecutive elements share
/// nodes, so a warp sends fewer atomics. Elsewhere it is atomic_add_force.
template <class T, bool WARP_AGGREGATED>
FEM_INLINE void assemble_force(T* node_forces, std::int32_t node, const T (&f)[3], int stride) {
  T* const node_force = node_forces + stride * static_cast<std::int64_t>(node);
#if defined(__CUDA_ARCH__)
  if constexpr (WARP_AGGREGATED) {
    T sum[3] = {f[0], f[1], f[2]};
    if (warp_sum_same_node(node, sum)) atomic_add_force(node_force, sum, stride);
    return;
  }
#endif
  atomic_add_force(node_force, f, stride);
}

/// The node that element e sends k-th in the one-point loop of element_forces. In order, except
/// for warp-aggregated hexahedra: lanes aggregate only what they add in the same round, and
/// neighbours along a row of hexahedra share their nodes in different slots (1 2 5 6 of one are
/// 0 3 4 7 of the next). So an even element sends its x = 1 face first and an odd one its x = 0
/// face, then the other way round: both neighbours of a lane meet it in one of the two halves.
/// Only an order: any mesh gives the same sums, a generated box twice fewer atomics.
template <int NPE, bool WARP_AGGREGATED>
FEM_INLINE int emit_order(std::int64_t e, int k) {
  if constexpr (WARP_AGGREGATED && NPE == 8) {
    // Entry k in nibble k: even 1 2 5 6 0 3 4 7, odd 0 3 4 7 1 2 5 6.
    const unsigned order = (e & 1) ? 0x65217430u : 0x74306521u;
    return static_cast<int>((order >> (4 * k)) & 15u);
  } else {
    (void)e;
    return k;
  }
}

}  // namespace detail

namespace detail {

/// Pass 1 of the averaged-nodal-pressure tetrahedron in the scalar S: V_e U'(J_e) (S = T), or its
/// derivative along a.direction (S = Dual<T>); both written to a.element_pressure.
template <class M, class T, class S>
FEM_INLINE void element_pressure_work(const ElementPassArgs<T>& a, std::int64_t e) {
  S ue[4][3];
  detail::gather_displacements<S, T, 4>(a, a.record(a.connectivity, e, 4), 4, ue);
  const Mat3<S> F = detail::identity_plus(
      detail::displacement_gradient<S, T, 4>(ue, a.record(a.gradients, e, 12), 4));
  const S J = volume_ratio<M, S>(F);
  const T v = a.record(a.volumes, e, 1)[0];
  const LawParams<M, S, T> params(a.params);
  const S q = S(v) * M::template volumetric_pressure<S>(params.get(), J);
  if constexpr (is_dual_v<S>) {
    a.element_pressure[e] = q.d;
  } else {
    a.element_pressure[e] = q;
    if (a.element_volume_ratio) a.element_volume_ratio[e] = v * J;
  }
}

/// The element work of element_forces (S = T) and element_tangent (S = Dual<T>): one gather,
/// the law at every quadrature point, the nodal forces, and for S = Dual their derivatives
/// along a.direction, which are the element's tangent applied to the direction. Returns the
/// smallest det F over the quadrature points.
template <class M, class T, class S, int NPE, int NQP, Family FAMILY, bool WARP_AGGREGATED>
FEM_INLINE T element_work(const ElementPassArgs<T>& a, std::int64_t e) {
  constexpr int CAP = NPE ? NPE : kMaxNodesPerElement;
  constexpr bool HOURGLASS = FAMILY == Family::Hex8Hourglass;
  constexpr bool AVERAGED_PRESSURE = FAMILY == Family::AveragedNodalPressureTet;
  constexpr bool TANGENT = is_dual_v<S>;
  const int npe = NPE ? NPE : a.nodes_per_element;
  const int nqp = NQP ? NQP : a.quadrature_points;
  const ElementRecord<const std::int32_t> conn = a.record(a.connectivity, e, npe);
  S ue[CAP][3];
  gather_displacements<S, T, CAP>(a, conn, npe, ue);
  const ElementRecord<const T> gradients = a.record(a.gradients, e, nqp * npe * 3);
  const ElementRecord<const T> volumes = a.record(a.volumes, e, nqp);
  const LawParams<M, S, T> params(a.params);
  T min_j = T(1);
  S hourglass_s[4][3];  // one-point hexahedra only
  // v P at point q (and the hexahedron's hourglass amplitudes, which come from the same H).
  const auto weighted_stress = [&](int q) {
    const Mat3<S> H = displacement_gradient<S, T, CAP>(ue, gradients.from(q * npe * 3), npe);
    if constexpr (HOURGLASS) hourglass_amplitudes<S, T, CAP>(a, e, ue, H, hourglass_s);
    const Mat3<S> F = identity_plus(H);
    const T J = value_of(det(F));
    // Track the smallest det F; a non-finite value, once seen, is kept.
    if (is_finite(min_j) && (!(J >= min_j) || !is_finite(J))) min_j = J;
    LawState<M, S, T> state(a, e * nqp + q);
    if constexpr (AVERAGED_PRESSURE) {
      S pressure;
      if constexpr (TANGENT)
        pressure = S(element_mean<T, NPE>(a.nodal_pressure, conn),
                     element_mean<T, NPE>(a.nodal_pressure_derivative, conn));
      else
        pressure = element_mean<T, NPE>(a.nodal_pressure, conn);
      return S(volumes[q]) * stress_with_pressure<M, S>(params.get(), F, state.get(), pressure);
    } else {
      return S(volumes[q]) * material_stress<M, S>(params.get(), H, state.get(), S(a.dt));
    }
  };
  // f_n += v P b_n at one point.
  const auto add_stress_force = [](const Mat3<S>& vP, ElementRecord<const T> grad, int n,
                                   S(&f)[3]) {
    for (int i = 0; i < 3; ++i)
      f[i] +=
          vP.m[i][0] * grad[3 * n] + vP.m[i][1] * grad[3 * n + 1] + vP.m[i][2] * grad[3 * n + 2];
  };
  // One element-node force (or its derivative) out: into its slot (deterministic assembly) or
  // added into its node.
  const auto emit = [&](int n, const S(&fs)[3]) {
    T f[3];
    for (int i = 0; i < 3; ++i) {
      if constexpr (TANGENT)
        f[i] = fs[i].d;
      else
        f[i] = fs[i];
    }
    if (a.node_forces)
      assemble_force<T, WARP_AGGREGATED>(a.node_forces, conn[n], f, a.node_force_stride);
    else
      for (int i = 0; i < 3; ++i) a.forces[(e * npe + n) * 3 + i] = f[i];
  };
  if constexpr (NQP == 1) {
    // One point: a node's force is final once computed, so it goes out at once and no element
    // force vector stays live (registers bound the hexahedron kernel's occupancy on a GPU).
    const Mat3<S> vP = weighted_stress(0);
    Mat3<S> g;
    T k_over_8 = T(0);
    if constexpr (HOURGLASS) {  // f_hg = k Gamma Gamma^T u (Joldes, Wittek & Miller 2008)
      g = hourglass_moment(a, e, hourglass_s);
      k_over_8 = T(0.125) * a.hourglass_stiffness[e];
    }
    for (int k = 0; k < npe; ++k) {
      const int n = emit_order<NPE, WARP_AGGREGATED>(e, k);
      S f[3] = {S(0), S(0), S(0)};
      add_stress_force(vP, gradients, n, f);
      if constexpr (HOURGLASS) add_hourglass_force(a, n, gradients, hourglass_s, g, k_over_8, f);
      emit(n, f);
    }
  } else {
    static_assert(!HOURGLASS, "the hourglass-controlled hexahedron has one point");
    S fe[CAP][3];
    for (int n = 0; n < npe; ++n)
      for (int i = 0; i < 3; ++i) fe[n][i] = S(0);
    for (int q = 0; q < nqp; ++q) {
      const Mat3<S> vP = weighted_stress(q);
      for (int n = 0; n < npe; ++n) add_stress_force(vP, gradients.from(q * npe * 3), n, fe[n]);
    }
    for (int n = 0; n < npe; ++n) emit(n, fe[n]);
  }
  return min_j;
}

}  // namespace detail

/// Pass 1 of the averaged-nodal-pressure tetrahedron: V_e U'(J_e) of element e (and V_e J_e when
/// results ask for it). The material must have the volumetric split.
template <class M, class T>
FEM_INLINE void element_pressure(const ElementPassArgs<T>& a, std::int64_t e) {
  detail::element_pressure_work<M, T, T>(a, e);
}

/// Pass 1 of the tangent action of the averaged-nodal-pressure tetrahedron: the derivative of
/// V_e U'(J_e) along a.direction, into a.element_pressure (the nodal average of it is
/// a.nodal_pressure_derivative of pass 3).
template <class M, class T>
FEM_INLINE void element_pressure_tangent(const ElementPassArgs<T>& a, std::int64_t e) {
  detail::element_pressure_work<M, T, Dual<T>>(a, e);
}

/// Nodal forces of element e, written to a.forces. Returns the smallest det F over its
/// quadrature points (the caller reports an element whose value is not finite and positive).
/// WARP_AGGREGATED: see detail::assemble_force (the CUDA backend's atomic assembly only).
template <class M, class T, int NPE, int NQP, Family FAMILY, bool WARP_AGGREGATED = false>
FEM_INLINE T element_forces(const ElementPassArgs<T>& a, std::int64_t e) {
  return detail::element_work<M, T, T, NPE, NQP, FAMILY, WARP_AGGREGATED>(a, e);
}

/// The element tangent applied to the direction, K_e(u) v_e = d/dt f_e(u + t v) at t = 0,
/// written where element_forces writes forces: the same work in dual numbers, so that the
/// tangent of every law, element and family needs no code of its own. With averaged nodal
/// pressure, a.nodal_pressure_derivative must hold the derivative of the nodal pressures
/// (element_pressure_tangent, then the nodal average). Returns the smallest det F.
template <class M, class T, int NPE, int NQP, Family FAMILY, bool WARP_AGGREGATED = false>
FEM_INLINE T element_tangent(const ElementPassArgs<T>& a, std::int64_t e) {
  return detail::element_work<M, T, Dual<T>, NPE, NQP, FAMILY, WARP_AGGREGATED>(a, e);
}

/// Stress, strain and energies of element e, averaged over quadrature points (volume-weighted).
/// Never advances material history: the law sees a copy of the state.
template <class M, class T, int NPE, int NQP, Family FAMILY>
FEM_INLINE void element_evaluate(const ElementPassArgs<T>& a, std::int64_t e,
                                 const ElementResultsOut& r) {
  static_assert(M::num_state <= kMaxMaterialState, "too many state variables per point");
  constexpr int CAP = NPE ? NPE : kMaxNodesPerElement;
  constexpr bool HOURGLASS = FAMILY == Family::Hex8Hourglass;
  constexpr bool AVERAGED_PRESSURE = FAMILY == Family::AveragedNodalPressureTet;
  const int npe = NPE ? NPE : a.nodes_per_element;
  const int nqp = NQP ? NQP : a.quadrature_points;
  const ElementRecord<const std::int32_t> conn = a.record(a.connectivity, e, npe);
  T ue[CAP][3];
  detail::gather_displacements<T, T, CAP>(a, conn, npe, ue);
  const ElementRecord<const T> gradients = a.record(a.gradients, e, nqp * npe * 3);
  const ElementRecord<const T> volumes = a.record(a.volumes, e, nqp);
  double sigma[3][3] = {}, strain[3][3] = {}, volume = 0.0, energy = 0.0, min_j = 1e300;
  double hourglass_sq = 0.0;  // sum of the squared hourglass amplitudes (one-point hexahedra)
  for (int q = 0; q < nqp; ++q) {
    const Mat3<T> H =
        detail::displacement_gradient<T, T, CAP>(ue, gradients.from(q * npe * 3), npe);
    if constexpr (HOURGLASS) {
      T s[4][3];
      detail::hourglass_amplitudes<T, T, CAP>(a, e, ue, H, s);
      for (int m = 0; m < 4; ++m)
        for (int i = 0; i < 3; ++i)
          hourglass_sq += static_cast<double>(s[m][i]) * static_cast<double>(s[m][i]);
    }
    const Mat3<T> F = detail::identity_plus(H);
    const T J = det(F);
    if (static_cast<double>(J) < min_j) min_j = static_cast<double>(J);
    const T* state = a.num_state ? a.state + (e * nqp + q) * a.num_state : nullptr;
    T scratch[M::num_state > 0 ? M::num_state : 1];  // stateless laws: no stack array
    for (int s = 0; s < a.num_state; ++s) scratch[s] = state[s];
    Mat3<T> P;
    if constexpr (AVERAGED_PRESSURE)
      P = stress_with_pressure<M, T>(a.params, F, state ? scratch : nullptr,
                                     element_mean<T, NPE>(a.nodal_pressure, conn));
    else
      // dt = 0: results re-evaluate the state the last step accepted, whose stress a
      // rate-dependent law gives back from its updated history.
      P = material_stress<M, T>(a.params, H, state ? scratch : nullptr, T(0));
    // The strain field is Green-Lagrange for every law, as its name says: a small-strain law
    // works with sym(F) - I, which grows under rigid rotation where E = (F^T F - I)/2 stays 0.
    const Mat3<T> E = green_lagrange_from_gradient(H);
    Mat3<T> s_cauchy;
    if constexpr (M::small_strain)
      s_cauchy = P;
    else
      s_cauchy = (T(1) / J) * (P * transpose(F));
    const double v = static_cast<double>(volumes[q]);
    volume += v;
    energy += v * static_cast<double>(M::template strain_energy<T>(a.params, F, state));
    if constexpr (AVERAGED_PRESSURE) {
      // The volumetric energy is the nodes' (sum_a V_a U(J_a) / 4, J_a the nodal mean volume
      // ratio), shared among elements by reference volume: V_e mean_a U(J_a) replaces V_e U(J_e).
      if (a.nodal_volume_ratio) {
        T nodal = T(0);
        for (int n = 0; n < npe; ++n)
          nodal += M::template volumetric_energy<T>(a.params, a.nodal_volume_ratio[conn[n]]);
        energy += v * (static_cast<double>(nodal) / npe -
                       static_cast<double>(
                           M::template volumetric_energy<T>(a.params, volume_ratio<M, T>(F))));
      }
    }
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) {
        sigma[i][j] += v * static_cast<double>(s_cauchy.m[i][j]);
        strain[i][j] += v * static_cast<double>(E.m[i][j]);
      }
  }
  const int voigt[6][2] = {{0, 0}, {1, 1}, {2, 2}, {0, 1}, {1, 2}, {0, 2}};
  for (int c = 0; c < 6; ++c) {
    // Symmetrise: P F^T / J is symmetric only up to round-off.
    const int i = voigt[c][0], j = voigt[c][1];
    if (r.cauchy) r.cauchy[6 * e + c] = 0.5 * (sigma[i][j] + sigma[j][i]) / volume;
    if (r.green_lagrange)
      r.green_lagrange[6 * e + c] = 0.5 * (strain[i][j] + strain[j][i]) / volume;
  }
  r.strain_energy[e] = energy;
  if (r.min_jacobian) r.min_jacobian[e] = min_j;
  if (r.hourglass_energy)
    r.hourglass_energy[e] =
        HOURGLASS ? 0.5 * static_cast<double>(a.hourglass_stiffness[e]) * hourglass_sq : 0.0;
}

}  // namespace fem::kernels
