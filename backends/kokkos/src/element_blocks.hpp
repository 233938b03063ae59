// The Kokkos backend's copy of a model's blocks in an execution space's memory and the element
// passes over them: what the explicit problem and the implicit operator both run (forces,
// averaged nodal pressure, tangent action, element matrices, results), through the material's
// kernel table (fem/kokkos/element_kernels.hpp). Element-node results go to per-slot storage
// (or, in an explicit run with atomic assembly, straight into node forces).
#pragma once

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <vector>

#include <fem/backend.hpp>
#include <fem/kernels/material_table.hpp>
#include <fem/kokkos/element_kernels.hpp>
#include <fem/tensor.hpp>

#include "runtime.hpp"
#include "views.hpp"

namespace fem::kokkos {

template <class Space, class T>
struct BlockData {
  const BlockSystem* system = nullptr;
  View<Space, std::int32_t> connectivity;
  View<Space, T> gradients, volumes, hourglass_vectors, hourglass_base, hourglass_stiffness, params,
      state, trial_state;
  int num_state = 0;
  const kernels::PrecisionPasses<Passes, T>* passes = nullptr;  ///< the material's, this space
  KernelShape shape = kernels::kGeneric;
  typename Passes<T>::Force forces = nullptr;
  typename Passes<T>::Evaluate evaluate = nullptr;
  typename Passes<T>::Pressure pressure = nullptr;  ///< averaged-nodal-pressure blocks only
};

/// Elements [first, first + count) of the pass `a` (records layout): its per-element arrays
/// offset.
template <class T>
ElementPassArgs<T> element_range(ElementPassArgs<T> a, std::int64_t first, std::int64_t count) {
  const std::int64_t npe = a.nodes_per_element, nqp = a.quadrature_points;
  a.connectivity += first * npe;
  a.gradients += first * nqp * npe * 3;
  a.volumes += first * nqp;
  if (a.hourglass_vectors) a.hourglass_vectors += first * 12;
  if (a.hourglass_stiffness) a.hourglass_stiffness += first;
  if (a.state) a.state += first * nqp * a.num_state;
  if (a.forces) a.forces += first * npe * 3;
  if (a.element_pressure) a.element_pressure += first;
  a.num_elements = count;
  return a;
}

namespace detail {

/// Averaged nodal pressure, pass 2: every node's volume-weighted mean of its ANP elements'
/// values (fem/kernels/averaged_pressure.hpp). A frozen `failure` (explicit runs) stops it.
template <class T>
struct NodalAverage {
  const std::int64_t* offsets;
  const std::int32_t* elements;
  const T* element_values;
  const T* inverse_volume;
  T* out;
  const FailureSlot* failure;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t n) const {
    if (failure && failure->step != kNoFailure) return;
    out[n] = kernels::nodal_average(n, offsets, elements, element_values, inverse_volume);
  }
};

/// A "material" without stress: runs the shared element kernel for det F alone.
struct DetOnly {
  static constexpr int num_params = 0;
  static constexpr int num_state = 0;
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

}  // namespace detail

template <class Space, class T>
class ElementBlocks {
 public:
  explicit ElementBlocks(const System& s) : sys_(s) {
    for (const BlockSystem& b : s.blocks) {
      const MaterialKernels& table =
          kernels::checked_material_kernels<MaterialKernels>(b, "kokkos");
      BlockData<Space, T> d;
      d.system = &b;
      d.passes = &table.spaces[kTableRow<Space>].template of<T>();
      d.connectivity = upload<Space, std::int32_t>("fem::connectivity", b.connectivity);
      d.gradients = upload<Space, T>("fem::gradients", b.shape_gradients);
      d.volumes = upload<Space, T>("fem::volumes", b.quadrature_volumes);
      d.hourglass_vectors = upload<Space, T>("fem::hourglass_vectors", b.hourglass_vectors);
      d.hourglass_base = upload<Space, T>("fem::hourglass_base", b.hourglass_base);
      d.hourglass_stiffness = upload<Space, T>("fem::hourglass_stiffness", b.hourglass_stiffness);
      d.params = upload<Space, T>("fem::material_params", b.material_params);
      d.num_state = b.material->host.num_state;
      d.state = View<Space, T>(
          "fem::material_state",
          static_cast<std::size_t>(b.num_elements * b.quadrature_points * d.num_state));
      d.shape = kernel_shape(b.family, b.nodes_per_element, b.quadrature_points);
      d.forces = kernels::required_kernel(d.passes->forces[d.shape], b);
      d.evaluate = kernels::required_kernel(d.passes->evaluate[d.shape], b);
      if (b.pressure_offset >= 0) d.pressure = kernels::required_kernel(d.passes->pressure, b);
      blocks_.push_back(std::move(d));
    }
    if (s.num_pressure_elements > 0) {
      const auto ne = static_cast<std::size_t>(s.num_pressure_elements);
      const auto nn = static_cast<std::size_t>(s.num_nodes);
      element_pressure_ = View<Space, T>("fem::element_pressure", ne);
      element_volume_ratio_ = View<Space, T>("fem::element_volume_ratio", ne);
      nodal_pressure_ = View<Space, T>("fem::nodal_pressure", nn);
      nodal_volume_ratio_ = View<Space, T>("fem::nodal_volume_ratio", nn);
      pressure_offsets_ =
          upload<Space, std::int64_t>("fem::pressure_offsets", s.pressure_incidence_offsets);
      pressure_elements_ =
          upload<Space, std::int32_t>("fem::pressure_elements", s.pressure_incidence_elements);
      pressure_inverse_volume_ =
          upload<Space, T>("fem::pressure_inverse_volume", s.pressure_inverse_volume);
    }
    det_scratch_ = View<Space, T>("fem::det_scratch", 3 * kernels::kMaxNodesPerElement + 1);
  }

  [[nodiscard]] const std::vector<BlockData<Space, T>>& blocks() const { return blocks_; }

  /// The arguments of block b's kernels at displacement u, element-node results into `slots`
  /// (the global slot array; the block's offset is added here) or added into `node_forces`.
  ElementPassArgs<T> pass_args(const BlockData<Space, T>& b, const T* u, T* slots,
                               T* node_forces = nullptr, int node_force_stride = 3) const {
    const BlockSystem& s = *b.system;
    ElementPassArgs<T> a{
        s.num_elements,
        s.nodes_per_element,
        s.quadrature_points,
        b.connectivity.data(),
        b.gradients.data(),
        b.volumes.data(),
        data_or_null(b.hourglass_vectors),
        data_or_null(b.hourglass_base),
        data_or_null(b.hourglass_stiffness),
        data_or_null(b.params),
        data_or_null(b.state),
        b.num_state,
        u,
        slots ? slots + 3 * s.force_offset : nullptr,
        node_forces,
        node_force_stride,
        s.pressure_offset >= 0 ? element_pressure_.data() + s.pressure_offset : nullptr,
        nullptr,
        data_or_null(nodal_pressure_),
        nullptr};
    a.dt = time_step_;
    // Atomic assembly on a GPU: a warp's lanes that add to one node sum first where that
    // measured faster (the CUDA backend's rule, kernels::warp_aggregation_pays).
    a.warp_aggregated_atomics = node_forces != nullptr && !kRunsOnHost<Space> &&
                                kernels::warp_aggregation_pays<T>(s.nodes_per_element);
    return a;
  }

  /// The step the material history of the next passes advances over (ElementPassArgs::dt).
  void set_time_step(double dt) { time_step_ = static_cast<T>(dt); }

  /// Averaged nodal pressure, passes 1 and 2: each ANP element's V_e U'(J_e), then every
  /// node's volume-weighted mean. With volume_ratio (results) also the nodal mean volume ratios.
  /// A frozen `failure` (may be null) stops them.
  void pressure_passes(const T* u, const FailureSlot* failure, bool volume_ratio) {
    if (sys_.num_pressure_elements == 0) return;
    for (const BlockData<Space, T>& b : blocks_) {
      if (!b.pressure) continue;
      ElementPassArgs<T> args = pass_args(b, u, nullptr);
      if (volume_ratio)
        args.element_volume_ratio = element_volume_ratio_.data() + b.system->pressure_offset;
      b.pressure(args, failure);
    }
    nodal_average(element_pressure_, nodal_pressure_, failure);
    if (volume_ratio) nodal_average(element_volume_ratio_, nodal_volume_ratio_, failure);
  }

  /// Element forces at u (after the pressure passes) into `slots`, or added into `node_forces`
  /// (zeroed by the caller) with the given stride. Bad elements go to `failure`. `trial`:
  /// material history goes to the blocks' trial state (implicit solves, forces that must not
  /// advance the history) instead of being updated in place.
  void forces(const T* u, T* slots, T* node_forces, int node_force_stride, FailureSlot* failure,
              bool trial) {
    pressure_passes(u, failure, false);
    for (std::size_t b = 0; b < blocks_.size(); ++b) {
      BlockData<Space, T>& block = blocks_[b];
      ElementPassArgs<T> args = pass_args(block, u, slots, node_forces, node_force_stride);
      if (trial && block.num_state > 0) {
        if (block.trial_state.extent(0) != block.state.extent(0))
          block.trial_state = View<Space, T>("fem::trial_state", block.state.extent(0));
        args.trial_state = block.trial_state.data();
      }
      block.forces(args, static_cast<int>(b), failure);
    }
  }

  /// The nodal pressures of the last pressure_passes() (empty without ANP blocks).
  [[nodiscard]] const View<Space, T>& nodal_pressure() const { return nodal_pressure_; }

  /// The tangent action K(u) v, element by element, into the slots; `pressure`: the nodal
  /// pressures at u (null without ANP blocks).
  void tangent(const T* u, const T* pressure, const T* v, T* slots) {
    if (sys_.num_pressure_elements > 0) {
      // Pass 1 of the tangent into the element pressures (scratch: every pass 1 rewrites
      // them), then their nodal average: the nodal pressures' derivative along v.
      for (const BlockData<Space, T>& b : blocks_) {
        if (!b.pressure) continue;
        ElementPassArgs<T> args = pass_args(b, u, nullptr);
        args.direction = v;
        kernels::required_kernel(b.passes->pressure_tangent, *b.system)(args, nullptr);
      }
      if (nodal_pressure_derivative_.extent(0) != nodal_pressure_.extent(0))
        nodal_pressure_derivative_ =
            View<Space, T>("fem::nodal_pressure_derivative", nodal_pressure_.extent(0));
      nodal_average(element_pressure_, nodal_pressure_derivative_, nullptr);
    }
    for (const BlockData<Space, T>& b : blocks_) {
      ElementPassArgs<T> args = pass_args(b, u, slots);
      args.direction = v;
      args.nodal_pressure = pressure;
      args.nodal_pressure_derivative = data_or_null(nodal_pressure_derivative_);
      kernels::required_kernel(b.passes->tangent[b.shape], *b.system)(args);
    }
  }

  /// Element stiffness blocks of elements [first, first + count) of block b at u (nodal
  /// pressures `pressure`) into `out`: npe diagonal blocks per element ([e][a][9], diagonal)
  /// or all npe^2 ([e][a][b][9]).
  void element_matrices(std::size_t b, const T* u, const T* pressure, bool diagonal,
                        std::int64_t first, std::int64_t count, T* out) const {
    const BlockData<Space, T>& d = blocks_[b];
    ElementPassArgs<T> args = pass_args(d, u, nullptr);
    args.nodal_pressure = pressure;
    kernels::required_kernel(
        diagonal ? d.passes->diagonal_blocks[d.shape] : d.passes->matrix[d.shape], *d.system)(
        element_range(args, first, count), out);
  }

  /// Averaged nodal pressure: kernels::pressure_coupling of every ANP element at u into `out`,
  /// [13] each, in the global pressure order.
  void pressure_coupling(const T* u, T* out) const {
    for (const BlockData<Space, T>& b : blocks_) {
      if (!b.pressure) continue;
      kernels::required_kernel(b.passes->pressure_coupling, *b.system)(
          pass_args(b, u, nullptr), out + 13 * b.system->pressure_offset);
    }
  }

  /// Results of every block at u (output frames).
  /// Every element's results at u; with `fields` false the energies only (the other arrays
  /// of `out` left empty: an energy record without a frame).
  void evaluate(const T* u, std::vector<BlockResults>& out, bool fields = true) {
    pressure_passes(u, nullptr, true);  // every step recomputes the nodal pressures it uses
    out.resize(blocks_.size());
    for (std::size_t b = 0; b < blocks_.size(); ++b) {
      const auto ne = static_cast<std::size_t>(blocks_[b].system->num_elements);
      const std::size_t nf = fields ? ne : 0;
      View<Space, double> cauchy("fem::cauchy", 6 * nf), strain("fem::strain", 6 * nf),
          energy("fem::energy", ne), hourglass("fem::hourglass_energy", ne),
          min_j("fem::min_jacobian", nf);
      const ElementResultsOut r{fields ? cauchy.data() : nullptr, fields ? strain.data() : nullptr,
                                energy.data(), hourglass.data(), fields ? min_j.data() : nullptr};
      ElementPassArgs<T> args = pass_args(blocks_[b], u, nullptr);
      args.nodal_volume_ratio = data_or_null(nodal_volume_ratio_);
      blocks_[b].evaluate(args, r);
      copy_out(cauchy, out[b].cauchy_stress);
      copy_out(strain, out[b].green_lagrange);
      copy_out(energy, out[b].strain_energy);
      copy_out(hourglass, out[b].hourglass_energy);
      copy_out(min_j, out[b].min_jacobian);
    }
  }

  /// Makes the trial history of the last forces(..., true) the committed one.
  void commit_state() {
    for (BlockData<Space, T>& b : blocks_)
      if (b.num_state > 0 && b.trial_state.extent(0) == b.state.extent(0))
        Kokkos::deep_copy(Space(), b.state, b.trial_state);
  }

  /// det F of element e of block `block` at u, by the element pass's own arithmetic.
  T det_f(int block, std::int64_t e, const T* u) {
    const BlockData<Space, T>& b = blocks_[static_cast<std::size_t>(block)];
    ElementPassArgs<T> a = element_range(pass_args(b, u, nullptr), e, 1);
    a.hourglass_vectors = nullptr;
    a.hourglass_base = nullptr;
    a.hourglass_stiffness = nullptr;
    a.state = nullptr;
    a.num_state = 0;
    a.element_pressure = nullptr;
    a.forces = det_scratch_.data();
    Kokkos::parallel_for(
        "fem::kokkos::det_f", Range<Space>(0, 1),
        detail::ElementDetF<T>{a, det_scratch_.data() + 3 * kernels::kMaxNodesPerElement});
    T value{};
    Kokkos::deep_copy(value, Kokkos::subview(det_scratch_, 3 * kernels::kMaxNodesPerElement));
    return value;
  }

  [[nodiscard]] std::size_t memory_bytes() const {
    std::size_t bytes = 0;
    for (const BlockData<Space, T>& b : blocks_)
      bytes +=
          view_bytes(b.connectivity, b.gradients, b.volumes, b.hourglass_vectors, b.hourglass_base,
                     b.hourglass_stiffness, b.params, b.state, b.trial_state);
    return bytes + view_bytes(element_pressure_, element_volume_ratio_, nodal_pressure_,
                              nodal_volume_ratio_, nodal_pressure_derivative_, pressure_offsets_,
                              pressure_elements_, pressure_inverse_volume_, det_scratch_);
  }

 private:
  void nodal_average(const View<Space, T>& element_values, const View<Space, T>& nodal,
                     const FailureSlot* failure) const {
    Kokkos::parallel_for(
        "fem::kokkos::nodal_average", Range<Space>(0, sys_.num_nodes),
        detail::NodalAverage<T>{pressure_offsets_.data(), pressure_elements_.data(),
                                element_values.data(), pressure_inverse_volume_.data(),
                                nodal.data(), failure});
  }

  RuntimeRef runtime_;  // first member: outlives the Views below
  const System& sys_;
  std::vector<BlockData<Space, T>> blocks_;
  // Averaged nodal pressure: per ANP element (global order; every pass 1 writes
  // element_pressure_, the pressures or their derivative) and per node, and the incidence.
  View<Space, T> element_pressure_, element_volume_ratio_, nodal_pressure_, nodal_volume_ratio_,
      nodal_pressure_derivative_, pressure_inverse_volume_;
  T time_step_ = T(0);
  View<Space, std::int64_t> pressure_offsets_;
  View<Space, std::int32_t> pressure_elements_;
  View<Space, T> det_scratch_;  ///< det_f(): the element's forces and the value
};

}  // namespace fem::kokkos
