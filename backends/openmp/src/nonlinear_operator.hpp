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
    blocks_.pressure_passes(linearization_.data(), false);
    return {};
  }

  void do_apply(const Vector& v, Vector& y) override {
    require_linearization();
    const std::vector<T>& vs = host<T>(v);
    blocks_.tangent(linearization_.data(), vs.data(), slots_.data());
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
    build_pattern();
    const std::int64_t nn = sys_.num_nodes;
    a.rows = a.cols = 3 * nn;
    a.offsets.assign(static_cast<std::size_t>(3 * nn + 1), 0);
    for (std::int64_t n = 0; n < nn; ++n) {
      const std::int64_t width = 3 * (neighbour_offsets_[n + 1] - neighbour_offsets_[n]);
      for (int i = 0; i < 3; ++i) a.offsets[3 * n + i + 1] = a.offsets[3 * n + i] + width;
    }
    a.columns.resize(static_cast<std::size_t>(a.offsets.back()));
    a.values.assign(a.columns.size(), 0.0);
    for (std::int64_t n = 0; n < nn; ++n)
      for (int i = 0; i < 3; ++i) {
        std::int64_t p = a.offsets[3 * n + i];
        for (std::int64_t j = neighbour_offsets_[n]; j < neighbour_offsets_[n + 1]; ++j)
          for (int k = 0; k < 3; ++k) a.columns[p++] = 3 * neighbours_[j] + k;
      }
    // Element blocks scattered in element order: the same sums on any thread count.
    const double sk = shift_stiffness();
    std::vector<T> matrices;
    for (std::size_t b = 0; b < blocks_.blocks().size(); ++b) {
      const BlockSystem& s = *blocks_.blocks()[b].system;
      blocks_.element_matrices(b, linearization_.data(), false, matrices);
      const std::int64_t npe = s.nodes_per_element;
      for (std::int64_t e = 0; e < s.num_elements; ++e)
        for (std::int64_t ra = 0; ra < npe; ++ra) {
          const std::int32_t row_node = s.connectivity[e * npe + ra];
          for (std::int64_t cb = 0; cb < npe; ++cb) {
            const std::int32_t col_node = s.connectivity[e * npe + cb];
            const std::int64_t slot = position(row_node, col_node);
            const T* K = matrices.data() + 9 * ((e * npe + ra) * npe + cb);
            for (int i = 0; i < 3; ++i) {
              if (prescribed_[3 * row_node + i]) continue;
              const std::int64_t base = a.offsets[3 * row_node + i] + 3 * slot;
              for (int k = 0; k < 3; ++k)
                if (!prescribed_[3 * col_node + k])
                  a.values[base + k] += sk * static_cast<double>(K[3 * i + k]);
            }
          }
        }
    }
    for (std::int64_t n = 0; n < nn; ++n) {
      const std::int64_t slot =
          position(static_cast<std::int32_t>(n), static_cast<std::int32_t>(n));
      for (int i = 0; i < 3; ++i) {
        const std::int64_t at = a.offsets[3 * n + i] + 3 * slot + i;
        a.values[at] = prescribed_[3 * n + i]
                           ? 1.0
                           : a.values[at] + shift_mass() * static_cast<double>(mass_[n]);
      }
    }
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
      blocks_.element_matrices(b, linearization_.data(), true, matrices);
      std::copy(matrices.begin(), matrices.end(), element_blocks.begin() + 9 * s.force_offset);
    }
    const T sk = static_cast<T>(shift_stiffness()), sm = static_cast<T>(shift_mass());
    std::vector<T> out(static_cast<std::size_t>(9 * sys_.num_nodes), T(0));
    const std::int64_t nn = sys_.num_nodes;
#pragma omp parallel for schedule(static) if (nn >= kMinParallelNodes)
    for (std::int64_t n = 0; n < nn; ++n) {
      T sum[9] = {};
      for (std::int64_t j = sys_.incidence_offsets[n]; j < sys_.incidence_offsets[n + 1]; ++j)
        for (int c = 0; c < 9; ++c) sum[c] += element_blocks[9 * sys_.incidence_slots[j] + c];
      for (int i = 0; i < 3; ++i)
        for (int k = 0; k < 3; ++k) {
          const bool fixed = prescribed_[3 * n + i] || prescribed_[3 * n + k];
          out[9 * n + 3 * i + k] = fixed ? (i == k ? T(1) : T(0))
                                         : sk * sum[3 * i + k] + (i == k ? sm * mass_[n] : T(0));
        }
    }
    return out;
  }

  /// Node adjacency (nodes sharing an element, the node itself included), sorted per node.
  void build_pattern() {
    if (!neighbour_offsets_.empty()) return;
    const std::int64_t nn = sys_.num_nodes;
    std::vector<std::vector<std::int32_t>> adjacent(static_cast<std::size_t>(nn));
    for (const BlockSystem& b : sys_.blocks) {
      const std::int64_t npe = b.nodes_per_element;
      for (std::int64_t e = 0; e < b.num_elements; ++e)
        for (std::int64_t i = 0; i < npe; ++i)
          for (std::int64_t j = 0; j < npe; ++j)
            adjacent[b.connectivity[e * npe + i]].push_back(b.connectivity[e * npe + j]);
    }
    neighbour_offsets_.assign(static_cast<std::size_t>(nn + 1), 0);
    for (std::int64_t n = 0; n < nn; ++n) {
      std::vector<std::int32_t>& a = adjacent[n];
      a.push_back(static_cast<std::int32_t>(n));
      std::sort(a.begin(), a.end());
      a.erase(std::unique(a.begin(), a.end()), a.end());
      neighbour_offsets_[n + 1] = neighbour_offsets_[n] + static_cast<std::int64_t>(a.size());
    }
    neighbours_.reserve(static_cast<std::size_t>(neighbour_offsets_[nn]));
    for (const auto& a : adjacent) neighbours_.insert(neighbours_.end(), a.begin(), a.end());
  }

  /// Index of column node `col` within the neighbours of `row`.
  std::int64_t position(std::int32_t row, std::int32_t col) const {
    const auto begin = neighbours_.begin() + neighbour_offsets_[row];
    const auto end = neighbours_.begin() + neighbour_offsets_[row + 1];
    return std::lower_bound(begin, end, col) - begin;
  }

  LinearAlgebraImpl<T>& algebra_;
  const System& sys_;
  ElementBlocks<T> blocks_;
  std::vector<T> slots_, mass_, linearization_;
  std::vector<std::uint8_t> prescribed_;
  std::vector<std::int64_t> neighbour_offsets_;
  std::vector<std::int32_t> neighbours_;
};

}  // namespace fem::openmp
