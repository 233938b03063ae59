// The OpenMP backend's copy of a model's blocks and the element passes over them: what the
// explicit problem and the implicit operator both run (forces, averaged nodal pressure, tangent
// action, element matrices, results). Element-node results go to per-slot storage and are
// gathered per node through the node-to-slot incidence, so sums never depend on threads.
#pragma once

#include <omp.h>

#include <cstdint>
#include <type_traits>
#include <vector>

#include <fem/backend.hpp>
#include <fem/kernels/material_table.hpp>
#include <fem/openmp/element_kernels.hpp>

namespace fem::openmp {

template <class T, class Allocator>
std::vector<T> convert(const std::vector<double, Allocator>& v) {
  return std::vector<T>(v.begin(), v.end());
}

template <class T>
struct BlockData {
  const BlockSystem* system;
  std::vector<std::int32_t> connectivity;
  std::vector<T> gradients, volumes, hourglass_vectors, hourglass_base, hourglass_stiffness, params,
      state, trial_state;
  int num_state = 0;
  const kernels::PrecisionPasses<Passes, T>* passes = nullptr;  ///< the material's, this precision
  KernelShape shape = kernels::kGeneric;
  typename Passes<T>::Force forces = nullptr;
  typename Passes<T>::Evaluate evaluate = nullptr;
  typename Passes<T>::Pressure pressure = nullptr;  ///< averaged-nodal-pressure blocks only
};

/// The first element (global order) that failed an element pass.
struct PassFailure {
  int block = -1;
  std::int64_t element = -1;
  double value = 0.0;
  bool finite = true;
  [[nodiscard]] bool failed() const { return block >= 0; }
};

template <class T>
class ElementBlocks {
 public:
  explicit ElementBlocks(const System& s) : sys_(s) {
    for (const BlockSystem& b : s.blocks) {
      const MaterialKernels& table =
          kernels::checked_material_kernels<MaterialKernels>(b, "openmp");
      BlockData<T> d;
      d.system = &b;
      d.passes = &table.passes.template of<T>();
      d.connectivity = b.connectivity;
      d.gradients = convert<T>(b.shape_gradients);
      d.volumes = convert<T>(b.quadrature_volumes);
      d.hourglass_vectors = convert<T>(b.hourglass_vectors);
      d.hourglass_base = convert<T>(b.hourglass_base);
      d.hourglass_stiffness = convert<T>(b.hourglass_stiffness);
      d.params = convert<T>(b.material_params);
      d.num_state = b.material->host.num_state;
      d.state.assign(static_cast<std::size_t>(b.num_elements * b.quadrature_points * d.num_state),
                     T(0));
      d.shape = kernel_shape(b.family, b.nodes_per_element, b.quadrature_points);
      d.forces = kernels::required_kernel(d.passes->forces[d.shape], b);
      d.evaluate = kernels::required_kernel(d.passes->evaluate[d.shape], b);
      if (b.pressure_offset >= 0) d.pressure = kernels::required_kernel(d.passes->pressure, b);
      blocks_.push_back(std::move(d));
    }
    if (s.num_pressure_elements > 0) {
      element_pressure_.assign(static_cast<std::size_t>(s.num_pressure_elements), T(0));
      element_volume_ratio_.assign(static_cast<std::size_t>(s.num_pressure_elements), T(0));
      nodal_pressure_.assign(static_cast<std::size_t>(s.num_nodes), T(0));
      pressure_inverse_volume_ = convert<T>(s.pressure_inverse_volume);
    }
  }

  [[nodiscard]] std::vector<BlockData<T>>& blocks() { return blocks_; }
  [[nodiscard]] const std::vector<BlockData<T>>& blocks() const { return blocks_; }

  /// The arguments of block b's kernels at displacement u, element-node results into `slots`
  /// (the global slot array; the block's offset is added here).
  ElementPassArgs<T> pass_args(BlockData<T>& b, const T* u, T* slots) {
    const BlockSystem& s = *b.system;
    ElementPassArgs<T> a{
        s.num_elements,
        s.nodes_per_element,
        s.quadrature_points,
        b.connectivity.data(),
        b.gradients.data(),
        b.volumes.data(),
        b.hourglass_vectors.empty() ? nullptr : b.hourglass_vectors.data(),
        b.hourglass_base.empty() ? nullptr : b.hourglass_base.data(),
        b.hourglass_stiffness.empty() ? nullptr : b.hourglass_stiffness.data(),
        b.params.data(),
        b.state.empty() ? nullptr : b.state.data(),
        b.num_state,
        u,
        slots ? slots + 3 * s.force_offset : nullptr,
        nullptr,  // always deterministic: the node pass gathers per-slot forces
        3,
        s.pressure_offset >= 0 ? element_pressure_.data() + s.pressure_offset : nullptr,
        nullptr,
        nodal_pressure_.empty() ? nullptr : nodal_pressure_.data(),
        nullptr};
    a.dt = time_step_;
    return a;
  }

  /// The step the material history of the next passes advances over (ElementPassArgs::dt).
  void set_time_step(double dt) { time_step_ = static_cast<T>(dt); }

  /// Averaged nodal pressure, passes 1 and 2 (fem/kernels/averaged_pressure.hpp): each ANP
  /// element's V_e U'(J_e), then every node's volume-weighted mean. With volume_ratio (results)
  /// also the nodal mean volume ratios, for the volumetric energy.
  void pressure_passes(const T* u, bool volume_ratio) {
    if (sys_.num_pressure_elements == 0) return;
    for (BlockData<T>& b : blocks_) {
      if (!b.pressure) continue;
      ElementPassArgs<T> args = pass_args(b, u, nullptr);
      if (volume_ratio)
        args.element_volume_ratio = element_volume_ratio_.data() + b.system->pressure_offset;
      b.pressure(args);
    }
    nodal_average(element_pressure_, nodal_pressure_);
    if (volume_ratio) {
      nodal_volume_ratio_.resize(nodal_pressure_.size());
      nodal_average(element_volume_ratio_, nodal_volume_ratio_);
    }
  }

  /// Element forces at u into the slots (after the pressure passes). `trial`: material history
  /// goes to trial_state (implicit solves) instead of being updated in place.
  PassFailure forces(const T* u, T* slots, bool trial = false) {
    PassFailure failure;
    pressure_passes(u, false);
    for (std::size_t b = 0; b < blocks_.size(); ++b) {
      ElementPassArgs<T> args = pass_args(blocks_[b], u, slots);
      if (trial && blocks_[b].num_state > 0) {
        blocks_[b].trial_state.resize(blocks_[b].state.size());
        args.trial_state = blocks_[b].trial_state.data();
      }
      const BadElement<T> bad = blocks_[b].forces(args);
      if (bad.element >= 0 && !failure.failed())
        failure = {static_cast<int>(b), bad.element, static_cast<double>(bad.value),
                   kernels::is_finite(bad.value)};
    }
    return failure;
  }

  /// The nodal pressures of the last pressure_passes() (empty without ANP blocks).
  [[nodiscard]] const std::vector<T>& nodal_pressure() const { return nodal_pressure_; }

  /// The tangent action K(u) v, element by element, into the slots; `pressure`: the nodal
  /// pressures at u (null without ANP blocks).
  void tangent(const T* u, const T* pressure, const T* v, T* slots) {
    if (sys_.num_pressure_elements > 0) {
      for (BlockData<T>& b : blocks_) {
        if (!b.pressure) continue;
        ElementPassArgs<T> args = pass_args(b, u, nullptr);
        args.direction = v;
        args.nodal_pressure = pressure;
        args.element_pressure = element_pressure_derivative() + b.system->pressure_offset;
        kernels::required_kernel(b.passes->pressure_tangent, *b.system)(args);
      }
      nodal_pressure_derivative_.resize(nodal_pressure_.size());
      nodal_average(element_pressure_derivative_, nodal_pressure_derivative_);
    }
    for (BlockData<T>& b : blocks_) {
      ElementPassArgs<T> args = pass_args(b, u, slots);
      args.direction = v;
      args.nodal_pressure = pressure;
      if (!nodal_pressure_derivative_.empty())
        args.nodal_pressure_derivative = nodal_pressure_derivative_.data();
      kernels::required_kernel(b.passes->tangent[b.shape], *b.system)(args);
    }
  }

  /// Element stiffness blocks of block b at u (nodal pressures `pressure`): its npe diagonal
  /// blocks per element ([e][a][9], diagonal) or all npe^2 ([e][a][b][9]).
  void element_matrices(std::size_t b, const T* u, const T* pressure, bool diagonal,
                        std::vector<T>& out) {
    BlockData<T>& d = blocks_[b];
    const BlockSystem& s = *d.system;
    const std::int64_t npe = s.nodes_per_element;
    out.resize(static_cast<std::size_t>(s.num_elements * 9 * npe * (diagonal ? 1 : npe)));
    ElementPassArgs<T> args = pass_args(d, u, nullptr);
    args.nodal_pressure = pressure;
    kernels::required_kernel(
        diagonal ? d.passes->diagonal_blocks[d.shape] : d.passes->matrix[d.shape], s)(args,
                                                                                      out.data());
  }

  /// Averaged nodal pressure: kernels::pressure_coupling of every ANP element at u, [13] each,
  /// in the global pressure order.
  void pressure_coupling(const T* u, std::vector<T>& out) {
    out.assign(static_cast<std::size_t>(13 * sys_.num_pressure_elements), T(0));
    for (BlockData<T>& b : blocks_) {
      if (!b.pressure) continue;
      ElementPassArgs<T> args = pass_args(b, u, nullptr);
      kernels::required_kernel(b.passes->pressure_coupling, *b.system)(
          args, out.data() + 13 * b.system->pressure_offset);
    }
  }

  /// Results of every block at u (output frames).
  /// Every element's results at u; with `fields` false the energies only (the other arrays
  /// of `out` left empty: an energy record without a frame).
  void evaluate(const T* u, std::vector<BlockResults>& out, bool fields = true) {
    pressure_passes(u, true);  // every step recomputes the nodal pressures it uses
    out.resize(blocks_.size());
    for (std::size_t b = 0; b < blocks_.size(); ++b) {
      const std::int64_t ne = blocks_[b].system->num_elements;
      const std::int64_t nf = fields ? ne : 0;
      BlockResults& r = out[b];
      r.cauchy_stress.assign(6 * nf, 0.0);
      r.green_lagrange.assign(6 * nf, 0.0);
      r.strain_energy.assign(ne, 0.0);
      r.hourglass_energy.assign(ne, 0.0);
      r.min_jacobian.assign(nf, 0.0);
      const ElementResultsOut results{fields ? r.cauchy_stress.data() : nullptr,
                                      fields ? r.green_lagrange.data() : nullptr,
                                      r.strain_energy.data(), r.hourglass_energy.data(),
                                      fields ? r.min_jacobian.data() : nullptr};
      ElementPassArgs<T> args = pass_args(blocks_[b], u, nullptr);
      args.nodal_volume_ratio = nodal_volume_ratio_.empty() ? nullptr : nodal_volume_ratio_.data();
      blocks_[b].evaluate(args, results);
    }
  }

  /// Makes the trial history of the last forces(..., true) the committed one.
  void commit_state() {
    for (BlockData<T>& b : blocks_)
      if (b.num_state > 0 && b.trial_state.size() == b.state.size()) b.state.swap(b.trial_state);
  }

  /// out[3n + i] = sum of the slots of node n (the deterministic gather), in double.
  void gather(const std::vector<T>& slots, std::vector<double>& out) const {
    out.assign(3 * sys_.num_nodes, 0.0);
#pragma omp parallel for schedule(static) if (sys_.num_nodes >= kMinParallelNodes)
    for (std::int64_t n = 0; n < sys_.num_nodes; ++n)
      for (std::int64_t j = sys_.incidence_offsets[n]; j < sys_.incidence_offsets[n + 1]; ++j)
        for (int i = 0; i < 3; ++i)
          out[3 * n + i] += static_cast<double>(slots[3 * sys_.incidence_slots[j] + i]);
  }

  [[nodiscard]] std::size_t memory_bytes() const {
    std::size_t bytes = 0;
    const auto add = [&bytes](const auto&... v) { ((bytes += v.size() * sizeof(v[0])), ...); };
    for (const BlockData<T>& b : blocks_)
      add(b.connectivity, b.gradients, b.volumes, b.hourglass_vectors, b.hourglass_base,
          b.hourglass_stiffness, b.params, b.state, b.trial_state);
    add(element_pressure_, element_volume_ratio_, nodal_pressure_, nodal_volume_ratio_,
        pressure_inverse_volume_, element_pressure_derivative_, nodal_pressure_derivative_);
    return bytes;
  }

 private:
  void nodal_average(const std::vector<T>& element_values, std::vector<T>& nodal) const {
    const std::int64_t* offsets = sys_.pressure_incidence_offsets.data();
    const std::int32_t* elements = sys_.pressure_incidence_elements.data();
    const T* values = element_values.data();
    const T* inverse_volume = pressure_inverse_volume_.data();
    T* out = nodal.data();
#pragma omp parallel for schedule(static) if (sys_.num_nodes >= kMinParallelNodes)
    for (std::int64_t n = 0; n < sys_.num_nodes; ++n)
      out[n] = kernels::nodal_average(n, offsets, elements, values, inverse_volume);
  }

  T* element_pressure_derivative() {
    element_pressure_derivative_.resize(element_pressure_.size());
    return element_pressure_derivative_.data();
  }

  const System& sys_;
  std::vector<BlockData<T>> blocks_;
  // Averaged nodal pressure: per ANP element (global order) and per node, and their derivatives
  // along the direction of the last tangent action.
  std::vector<T> element_pressure_, element_volume_ratio_, nodal_pressure_, nodal_volume_ratio_,
      pressure_inverse_volume_, element_pressure_derivative_, nodal_pressure_derivative_;
  T time_step_ = T(0);
};

}  // namespace fem::openmp
