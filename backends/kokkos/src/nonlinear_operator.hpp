// The Kokkos backend's nonlinear operator (fem/operator.hpp), the OpenMP reference's verbs
// (backends/openmp/src/nonlinear_operator.hpp) on an execution space:
//
//  - internal_forces: the pressure passes and the material's force passes write every
//    element-node force to its slot (the history to the trial state), one gather sums each
//    node's slots in incidence order; the first bad element is read back with the forces' one
//    wait, since the verb returns it;
//  - linearize: copies u, and with averaged nodal pressure its nodal pressures, into Views of
//    the operator's own: an internal_forces() between two tangent verbs recomputes the
//    pressures the force pass reads;
//  - apply: the dual-number tangent passes into the slots, then one gather that writes
//    y = s_K K v + s_M M v at free dofs and y = v at prescribed ones;
//  - diagonal and block_diagonal: the element matrices' diagonal 3x3 blocks into the slots and
//    one gather; averaged nodal pressure adds its coupling's node blocks, summed on the host by
//    operator_assembly.hpp once per linearization (13 values per ANP element down, 9 per node
//    up), as the OpenMP operator sums them;
//  - assemble: element matrices on the space in chunks, assembled on the host by
//    operator_assembly.hpp.
//
// Same kernels, expressions and summation orders as the OpenMP operator: on a host space the
// verbs give its bits.
#pragma once

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <vector>

#include <fem/backend.hpp>
#include <fem/error.hpp>
#include <fem/operator.hpp>
#include <fem/operator_assembly.hpp>

#include "element_blocks.hpp"
#include "linear_algebra.hpp"
#include "runtime.hpp"
#include "views.hpp"

namespace fem::kokkos {

/// Elements per launch of the full element matrices in assemble(): bounds the scratch View
/// (64 blocks of 9 entries per hexahedron: 64 Ki hexahedra are 300 MB in double precision).
inline constexpr std::int64_t kMatrixChunkElements = 1 << 16;

namespace detail {

/// out[3n + i] = the sum of node n's element-node slots (3 per slot), in incidence order; with
/// TANGENT the operator's action on `direction`: s_K sum + s_M m_n v at free dofs, v at
/// prescribed ones. Index n (a node) or, with PER_DOF, d = 3n + i (a dof): the same sums, three
/// threads a node on a device, where a small mesh's gather (seed 001's 1,331 nodes) is
/// latency-bound and three times the threads fill three times the SMs (as the CUDA backend's).
template <class T, bool TANGENT, bool PER_DOF>
struct GatherSlots {
  const std::int64_t* offsets;
  const std::int64_t* slots;
  const T* slot_values;
  const std::uint8_t* fixed;  ///< per node: bit i set where dof i is prescribed
  const T* mass;
  T stiffness_shift, mass_shift;
  const T* direction;
  T* out;

  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t index) const {
    if constexpr (PER_DOF) {
      const std::int64_t n = index / 3;
      const int i = static_cast<int>(index - 3 * n);
      T sum = T(0);
      for (std::int64_t j = offsets[n]; j < offsets[n + 1]; ++j)
        sum += slot_values[3 * slots[j] + i];
      write(n, i, sum);
    } else {
      T sum[3] = {T(0), T(0), T(0)};
      for (std::int64_t j = offsets[index]; j < offsets[index + 1]; ++j)
        for (int i = 0; i < 3; ++i) sum[i] += slot_values[3 * slots[j] + i];
      for (int i = 0; i < 3; ++i) write(index, i, sum[i]);
    }
  }
  KOKKOS_INLINE_FUNCTION void write(const std::int64_t n, const int i, const T sum) const {
    const std::int64_t d = 3 * n + i;
    if constexpr (TANGENT)
      out[d] = ((fixed[n] >> i) & 1u) ? direction[d]
                                      : stiffness_shift * sum + mass_shift * mass[n] * direction[d];
    else
      out[d] = sum;
  }
};

/// The 3x3 node blocks of A = s_K K + s_M M from the element diagonal blocks in the slots (9
/// each) and the pressure coupling's node blocks (or null), with identity rows and columns at
/// prescribed dofs: [node][9], or with DIAGONAL their diagonals, [node][3].
template <class T, bool DIAGONAL>
struct NodeBlocks {
  const std::int64_t* offsets;
  const std::int64_t* slots;
  const T* slot_blocks;
  const T* pressure_blocks;
  const std::uint8_t* fixed;
  const T* mass;
  T stiffness_shift, mass_shift;
  T* out;

  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t n) const {
    T sum[9] = {};
    for (std::int64_t j = offsets[n]; j < offsets[n + 1]; ++j)
      for (int c = 0; c < 9; ++c) sum[c] += slot_blocks[9 * slots[j] + c];
    if (pressure_blocks)
      for (int c = 0; c < 9; ++c) sum[c] += pressure_blocks[9 * n + c];
    const unsigned held = fixed[n];
    for (int i = 0; i < 3; ++i)
      for (int k = 0; k < 3; ++k) {
        if (DIAGONAL && i != k) continue;
        const bool prescribed = (((held >> i) | (held >> k)) & 1u) != 0;
        const T value =
            prescribed ? (i == k ? T(1) : T(0))
                       : stiffness_shift * sum[3 * i + k] + (i == k ? mass_shift * mass[n] : T(0));
        if constexpr (DIAGONAL)
          out[3 * n + i] = value;
        else
          out[9 * n + 3 * i + k] = value;
      }
  }
};

}  // namespace detail

template <class Space, class T>
class NonlinearOperatorImpl final : public NonlinearOperator {
 public:
  NonlinearOperatorImpl(const System& s, LinearAlgebraImpl<Space, T>& algebra) try
      : NonlinearOperator(s), algebra_(algebra), sys_(s), blocks_(s) {
    const auto nodes = static_cast<std::size_t>(s.num_nodes);
    offsets_ = upload<Space, std::int64_t>("fem::incidence_offsets", s.incidence_offsets);
    slots_ = upload<Space, std::int64_t>("fem::incidence_slots", s.incidence_slots);
    slot_values_ =
        View<Space, T>("fem::slot_values", static_cast<std::size_t>(3 * s.num_force_slots));
    mass_ = upload<Space, T>("fem::lumped_mass", s.lumped_mass);
    std::vector<std::uint8_t> fixed(nodes, 0);
    for (std::int64_t n = 0; n < s.num_nodes; ++n)
      for (int i = 0; i < 3; ++i)
        if (s.prescribed_amplitude[3 * n + i] >= 0) fixed[n] |= static_cast<std::uint8_t>(1u << i);
    fixed_ = upload<Space, std::uint8_t>("fem::fixed_dofs", fixed);
    linearization_ = View<Space, T>("fem::linearization", 3 * nodes);
    if (s.num_pressure_elements > 0)
      linearized_pressure_ = View<Space, T>("fem::linearized_pressure", nodes);
    failure_ = Kokkos::View<FailureSlot, typename Space::memory_space>("fem::failure");
  } catch (const std::runtime_error& e) {
    rethrow_allocation_failure<Space>(e);
  }

  [[nodiscard]] LinearAlgebra& algebra() override { return algebra_; }

  void commit() override { blocks_.commit_state(); }
  void material_state(std::size_t block, std::vector<double>& state) const override {
    copy_out(blocks_.blocks()[block].state, state);
  }
  void set_material_state(std::size_t block, const std::vector<double>& state) override {
    copy_in(blocks_.blocks()[block].state, state);
  }

  void element_results(const std::vector<double>& u, std::vector<BlockResults>& out) override {
    const auto d_u = upload<Space, T>("fem::u", u);
    blocks_.evaluate(d_u.data(), out);
  }

  [[nodiscard]] std::size_t memory_bytes() const override {
    return blocks_.memory_bytes() + view_bytes(offsets_, slots_, fixed_, slot_values_,
                                               element_blocks_, element_matrices_, mass_,
                                               linearization_, linearized_pressure_,
                                               pressure_blocks_, coupling_device_);
  }

 protected:
  ElementCheck do_internal_forces(const Vector& u, Vector& f) override {
    const T* us = view_of<Space, T>(u).data();
    Kokkos::deep_copy(failure_, FailureSlot{kNoFailure, kNoFailure});
    blocks_.set_time_step(time_step());
    blocks_.forces(us, slot_values_.data(), nullptr, 3, failure_.data(), true);
    gather<false>(nullptr, view_of<Space, T>(f).data());
    // The element check is what this verb returns: its one wait.
    FailureSlot slot{};
    Kokkos::deep_copy(slot, failure_);
    ElementCheck check;
    if (slot.key != kNoFailure) {
      check.block = static_cast<int>(slot.key >> kBlockShift);
      check.element = static_cast<std::int64_t>(slot.key & ((1ull << kBlockShift) - 1));
      check.value = static_cast<double>(blocks_.det_f(check.block, check.element, us));
      check.status = kernels::is_finite(check.value) ? ElementCheck::Status::InvertedElement
                                                     : ElementCheck::Status::NotFinite;
    }
    return check;
  }

  ElementCheck do_linearize(const Vector& u) override {
    Kokkos::deep_copy(Space(), linearization_, view_of<Space, T>(u));
    blocks_.set_time_step(time_step());
    if (sys_.num_pressure_elements > 0) {
      blocks_.pressure_passes(linearization_.data(), nullptr, false);
      Kokkos::deep_copy(Space(), linearized_pressure_, blocks_.nodal_pressure());
    }
    linearized_ = true;
    coupling_.clear();
    pressure_blocks_ready_ = false;
    return {};
  }

  void do_apply(const Vector& v, Vector& y) override {
    require_linearization();
    const T* vs = view_of<Space, T>(v).data();
    blocks_.tangent(linearization_.data(), data_or_null(linearized_pressure_), vs,
                    slot_values_.data());
    gather<true>(vs, view_of<Space, T>(y).data());
  }

  void do_diagonal(Vector& d) override { node_blocks<true>(view_of<Space, T>(d).data()); }

  void do_block_diagonal(Vector& blocks) override {
    node_blocks<false>(view_of<Space, T>(blocks).data());
  }

  void do_assemble(CsrMatrix& a) override {
    require_linearization();
    if (graph_.offsets.empty()) graph_ = tangent_graph(sys_);
    a = tangent_matrix_pattern(sys_, graph_);
    std::vector<T> matrices;
    for (std::size_t b = 0; b < blocks_.blocks().size(); ++b) {
      element_matrices(b, matrices);
      add_element_matrices(sys_, graph_, *blocks_.blocks()[b].system, matrices.data(),
                           shift_stiffness(), a);
    }
    add_pressure_coupling(sys_, graph_, coupling(), shift_stiffness(), a);
    finish_tangent_matrix(sys_, graph_, shift_mass(), a);
  }

 private:
  void require_linearization() const {
    if (!linearized_) throw Error("kokkos backend: a tangent verb before linearize() (solver bug)");
  }

  /// The slots gathered into `out` (TANGENT: the operator's action on `direction`).
  template <bool TANGENT>
  void gather(const T* direction, T* out) {
    constexpr bool kPerDof = !kRunsOnHost<Space>;
    Kokkos::parallel_for(
        "fem::kokkos::gather_slots", Range<Space>(0, (kPerDof ? 3 : 1) * sys_.num_nodes),
        detail::GatherSlots<T, TANGENT, kPerDof>{
            offsets_.data(), slots_.data(), slot_values_.data(), fixed_.data(), mass_.data(),
            static_cast<T>(shift_stiffness()), static_cast<T>(shift_mass()), direction, out});
  }

  /// The node blocks of A into `out` ([node][9], or DIAGONAL: [node][3]).
  template <bool DIAGONAL>
  void node_blocks(T* out) {
    require_linearization();
    if (element_blocks_.extent(0) == 0)
      element_blocks_ = View<Space, T>("fem::element_diagonal_blocks",
                                       static_cast<std::size_t>(9 * sys_.num_force_slots));
    for (std::size_t b = 0; b < blocks_.blocks().size(); ++b) {
      const BlockSystem& s = *blocks_.blocks()[b].system;
      blocks_.element_matrices(b, linearization_.data(), data_or_null(linearized_pressure_), true,
                               0, s.num_elements, element_blocks_.data() + 9 * s.force_offset);
    }
    Kokkos::parallel_for("fem::kokkos::node_blocks", Range<Space>(0, sys_.num_nodes),
                         detail::NodeBlocks<T, DIAGONAL>{
                             offsets_.data(), slots_.data(), element_blocks_.data(),
                             pressure_blocks(), fixed_.data(), mass_.data(),
                             static_cast<T>(shift_stiffness()), static_cast<T>(shift_mass()), out});
  }

  /// Averaged nodal pressure: kernels::pressure_coupling at the linearization point, [ANP
  /// element][13] in double on the host (empty without ANP blocks). Computed on the space and
  /// copied out, once per linearization.
  const std::vector<double>& coupling() {
    if (coupling_.empty() && sys_.num_pressure_elements > 0) {
      if (coupling_device_.extent(0) == 0)
        coupling_device_ = View<Space, T>(
            "fem::pressure_coupling", static_cast<std::size_t>(13 * sys_.num_pressure_elements));
      blocks_.pressure_coupling(linearization_.data(), coupling_device_.data());
      copy_out(coupling_device_, coupling_);
    }
    return coupling_;
  }

  /// The pressure coupling's 3x3 node blocks in the space's memory, or null without ANP blocks:
  /// summed on the host by add_pressure_coupling_blocks once per linearization (the OpenMP
  /// operator's sums) and copied in, in the run's precision.
  const T* pressure_blocks() {
    if (sys_.num_pressure_elements == 0) return nullptr;
    if (!pressure_blocks_ready_) {
      std::vector<double> blocks(static_cast<std::size_t>(9 * sys_.num_nodes), 0.0);
      add_pressure_coupling_blocks(sys_, coupling(), 1.0, blocks);
      if (pressure_blocks_.extent(0) == 0)
        pressure_blocks_ = View<Space, T>("fem::pressure_blocks", blocks.size());
      copy_in(pressure_blocks_, blocks);
      pressure_blocks_ready_ = true;
    }
    return pressure_blocks_.data();
  }

  /// All npe^2 stiffness blocks of every element of block b at the linearization point, computed
  /// on the space in chunks of kMatrixChunkElements and copied into `out` ([e][a][b][9],
  /// element_matrix's layout).
  void element_matrices(std::size_t b, std::vector<T>& out) {
    const BlockSystem& s = *blocks_.blocks()[b].system;
    const std::int64_t size =
        9 * static_cast<std::int64_t>(s.nodes_per_element) * s.nodes_per_element;
    out.resize(static_cast<std::size_t>(s.num_elements * size));
    const std::int64_t chunk = std::min(s.num_elements, kMatrixChunkElements);
    if (element_matrices_.extent(0) < static_cast<std::size_t>(chunk * size))
      element_matrices_ =
          View<Space, T>("fem::element_matrices", static_cast<std::size_t>(chunk * size));
    for (std::int64_t first = 0; first < s.num_elements; first += chunk) {
      const std::int64_t count = std::min(chunk, s.num_elements - first);
      blocks_.element_matrices(b, linearization_.data(), data_or_null(linearized_pressure_), false,
                               first, count, element_matrices_.data());
      const Kokkos::View<T*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> host(
          out.data() + first * size, static_cast<std::size_t>(count * size));
      Kokkos::deep_copy(
          host, Kokkos::subview(element_matrices_, std::make_pair(std::size_t{0}, host.extent(0))));
    }
  }

  RuntimeRef runtime_;  // first member: outlives the Views below
  LinearAlgebraImpl<Space, T>& algebra_;
  const System& sys_;
  ElementBlocks<Space, T> blocks_;
  View<Space, std::int64_t> offsets_, slots_;  ///< the node-to-slot incidence
  View<Space, std::uint8_t> fixed_;            ///< per node: bit i set where dof i is prescribed
  /// Element-node values: forces or the tangent action [slot][3]; diagonal blocks [slot][9];
  /// full element matrices of one chunk of elements (assemble).
  View<Space, T> slot_values_, element_blocks_, element_matrices_;
  View<Space, T> mass_, linearization_, linearized_pressure_;
  bool linearized_ = false;
  Kokkos::View<FailureSlot, typename Space::memory_space> failure_;
  // Averaged nodal pressure at the linearization point: the coupling (on the space and in
  // double on the host) and its node blocks.
  View<Space, T> coupling_device_, pressure_blocks_;
  std::vector<double> coupling_;
  bool pressure_blocks_ready_ = false;
  NodeGraph graph_;
};

}  // namespace fem::kokkos
