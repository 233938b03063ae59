// The OpenMP backend's nonlinear operator (fem/operator.hpp): internal forces, the tangent
// action by the dual-number element kernels, diagonal and 3x3 node blocks from the element
// matrices, and the assembled tangent. Every verb is native here: this is the reference the
// other backends are compared with.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include <fem/backend.hpp>
#include <fem/operator.hpp>
#include <fem/operator_assembly.hpp>

#include "element_blocks.hpp"
#include "linear_algebra.hpp"

namespace fem::openmp {

template <class T>
class NonlinearOperatorImpl final : public NonlinearOperator {
 public:
  NonlinearOperatorImpl(const System& s, LinearAlgebraImpl<T>& algebra)
      : NonlinearOperator(s), algebra_(algebra), sys_(s), blocks_(s) {
    slots_.assign(static_cast<std::size_t>(3 * s.num_force_slots), T(0));
    mass_ = convert<T>(s.lumped_mass);
    prescribed_.resize(static_cast<std::size_t>(3 * s.num_nodes));
    for (std::size_t d = 0; d < prescribed_.size(); ++d)
      prescribed_[d] = s.prescribed_amplitude[d] >= 0 ? 1 : 0;
  }

  [[nodiscard]] LinearAlgebra& algebra() override { return algebra_; }

  void commit() override { blocks_.commit_state(); }
  void material_state(std::size_t block, std::vector<double>& state) const override {
    const std::vector<T>& s = blocks_.blocks()[block].state;
    state.assign(s.begin(), s.end());
  }
  void set_material_state(std::size_t block, const std::vector<double>& state) override {
    blocks_.blocks()[block].state = convert<T>(state);
  }

  void element_results(const std::vector<double>& u, std::vector<BlockResults>& out) override {
    const std::vector<T> ut(u.begin(), u.end());
    blocks_.evaluate(ut.data(), out);
  }

  [[nodiscard]] std::size_t memory_bytes() const override {
    return blocks_.memory_bytes() +
           (slots_.size() + mass_.size() + linearization_.size()) * sizeof(T);
  }

 protected:
  ElementCheck do_internal_forces(const Vector& u, Vector& f) override {
    blocks_.set_time_step(time_step());
    const PassFailure bad = blocks_.forces(host<T>(u).data(), slots_.data(), true);
    gather(host<T>(f));
    ElementCheck check;
    if (bad.failed()) {
      check.status =
          bad.finite ? ElementCheck::Status::InvertedElement : ElementCheck::Status::NotFinite;
      check.block = bad.block;
      check.element = bad.element;
      check.value = bad.value;
    }
    return check;
  }

  ElementCheck do_linearize(const Vector& u) override {
    linearization_ = host<T>(u);
    blocks_.set_time_step(time_step());
    blocks_.pressure_passes(linearization_.data(), false);
    // internal_forces() between two tangent verbs recomputes the blocks' nodal pressures.
    linearized_pressure_ = blocks_.nodal_pressure();
    coupling_.clear();
    return {};
  }

  void do_apply(const Vector& v, Vector& y) override {
    require_linearization();
    const std::vector<T>& vs = host<T>(v);
    blocks_.tangent(linearization_.data(), pressure(), vs.data(), slots_.data());
    const T sk = static_cast<T>(shift_stiffness()), sm = static_cast<T>(shift_mass());
    std::vector<T>& ys = host<T>(y);
    const std::int64_t nn = sys_.num_nodes;
#pragma omp parallel for schedule(static) if (nn >= kMinParallelNodes)
    for (std::int64_t n = 0; n < nn; ++n) {
      T sum[3] = {T(0), T(0), T(0)};
      for (std::int64_t j = sys_.incidence_offsets[n]; j < sys_.incidence_offsets[n + 1]; ++j)
        for (int i = 0; i < 3; ++i) sum[i] += slots_[3 * sys_.incidence_slots[j] + i];
      for (int i = 0; i < 3; ++i) {
        const std::int64_t d = 3 * n + i;
        ys[d] = prescribed_[d] ? vs[d] : sk * sum[i] + sm * mass_[n] * vs[d];
      }
    }
  }

  void do_diagonal(Vector& d) override {
    const std::vector<T> blocks = node_blocks();
    std::vector<T>& ds = host<T>(d);
    for (std::int64_t n = 0; n < sys_.num_nodes; ++n)
      for (int i = 0; i < 3; ++i) ds[3 * n + i] = blocks[9 * n + 4 * i];
  }

  void do_block_diagonal(Vector& out) override {
    host<T>(out) = node_blocks();
  }

  void do_assemble(CsrMatrix& a) override {
    require_linearization();
    if (graph_.offsets.empty()) graph_ = tangent_graph(sys_);
    a = tangent_matrix_pattern(sys_, graph_);
    std::vector<T> matrices;
    for (std::size_t b = 0; b < blocks_.blocks().size(); ++b) {
      blocks_.element_matrices(b, linearization_.data(), pressure(), false, matrices);
      add_element_matrices(sys_, graph_, *blocks_.blocks()[b].system, matrices.data(),
                           shift_stiffness(), a);
    }
    add_pressure_coupling(sys_, graph_, coupling(), shift_stiffness(), a);
    finish_tangent_matrix(sys_, graph_, shift_mass(), a);
  }

 private:
  void require_linearization() const {
    if (linearization_.empty())
      throw Error("openmp backend: a tangent verb before linearize() (solver bug)");
  }

  /// out[3n + i] = the sum of node n's element-node slots.
  void gather(std::vector<T>& out) const {
    const std::int64_t nn = sys_.num_nodes;
#pragma omp parallel for schedule(static) if (nn >= kMinParallelNodes)
    for (std::int64_t n = 0; n < nn; ++n) {
      T sum[3] = {T(0), T(0), T(0)};
      for (std::int64_t j = sys_.incidence_offsets[n]; j < sys_.incidence_offsets[n + 1]; ++j)
        for (int i = 0; i < 3; ++i) sum[i] += slots_[3 * sys_.incidence_slots[j] + i];
      for (int i = 0; i < 3; ++i) out[3 * n + i] = sum[i];
    }
  }

  /// The 3x3 node blocks of A (9 per node), gathered from the element diagonal blocks through
  /// the node-to-slot incidence, with identity rows and columns at prescribed dofs.
  std::vector<T> node_blocks() {
    require_linearization();
    std::vector<T> element_blocks(static_cast<std::size_t>(9 * sys_.num_force_slots), T(0));
    std::vector<T> matrices;
    for (std::size_t b = 0; b < blocks_.blocks().size(); ++b) {
      const BlockSystem& s = *blocks_.blocks()[b].system;
      blocks_.element_matrices(b, linearization_.data(), pressure(), true, matrices);
      std::copy(matrices.begin(), matrices.end(), element_blocks.begin() + 9 * s.force_offset);
    }
    std::vector<double> pressure_blocks;
    if (sys_.num_pressure_elements > 0) {
      pressure_blocks.assign(static_cast<std::size_t>(9 * sys_.num_nodes), 0.0);
      add_pressure_coupling_blocks(sys_, coupling(), 1.0, pressure_blocks);
    }
    const T sk = static_cast<T>(shift_stiffness()), sm = static_cast<T>(shift_mass());
    std::vector<T> out(static_cast<std::size_t>(9 * sys_.num_nodes), T(0));
    const std::int64_t nn = sys_.num_nodes;
#pragma omp parallel for schedule(static) if (nn >= kMinParallelNodes)
    for (std::int64_t n = 0; n < nn; ++n) {
      T sum[9] = {};
      for (std::int64_t j = sys_.incidence_offsets[n]; j < sys_.incidence_offsets[n + 1]; ++j)
        for (int c = 0; c < 9; ++c) sum[c] += element_blocks[9 * sys_.incidence_slots[j] + c];
      if (!pressure_blocks.empty())
        for (int c = 0; c < 9; ++c) sum[c] += static_cast<T>(pressure_blocks[9 * n + c]);
      for (int i = 0; i < 3; ++i)
        for (int k = 0; k < 3; ++k) {
          const bool fixed = prescribed_[3 * n + i] || prescribed_[3 * n + k];
          out[9 * n + 3 * i + k] = fixed ? (i == k ? T(1) : T(0))
                                         : sk * sum[3 * i + k] + (i == k ? sm * mass_[n] : T(0));
        }
    }
    return out;
  }

  /// The nodal pressures at the linearization point (null without ANP blocks).
  const T* pressure() const {
    return linearized_pressure_.empty() ? nullptr : linearized_pressure_.data();
  }

  /// Averaged nodal pressure: kernels::pressure_coupling at the linearization point, in double.
  const std::vector<double>& coupling() {
    if (coupling_.empty() && sys_.num_pressure_elements > 0) {
      std::vector<T> c;
      blocks_.pressure_coupling(linearization_.data(), c);
      coupling_.assign(c.begin(), c.end());
    }
    return coupling_;
  }

  LinearAlgebraImpl<T>& algebra_;
  const System& sys_;
  ElementBlocks<T> blocks_;
  std::vector<T> slots_, mass_, linearization_, linearized_pressure_;
  std::vector<double> coupling_;
  std::vector<std::uint8_t> prescribed_;
  NodeGraph graph_;
};

}  // namespace fem::openmp
