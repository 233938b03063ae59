// The node update of the explicit elastodynamic step (seed 002) in increment form, written once
// for every backend: node n gathers its block row of the precomputed matrix K (the stiffness
// scaled by -1 / (m / dt^2 + c / (2 dt)) row by row, docs/waves.md), then
//   v_n <- (K u)_n + b_n v_n,   u_next_n = u_n + v_n.
// A stiffness does not resist a rigid translation: its block rows sum to zero, so
//   (K u)_n = sum over j != n of K_nj (u_j - u_n)
// and the diagonal block is neither stored nor read. In single precision this keeps a body's
// translation (a force source pushes the whole body) out of the forces, where the rounded
// entries of a stored diagonal would turn it into a growing error; it also saves a block a row.
// The row is summed block by block in column order, each block's columns in order, so that a
// backend that keeps this order gives the reference's bits.
#pragma once

#include <cstdint>

#include "fem/config.hpp"

namespace fem::kernels {

/// Block row n: acc = sum over the row's off-diagonal blocks of K_nj (u_j - u_n). `value(j, e)`
/// is entry e (row-major) of the row's j-th block, `column(j)` its block column: the storage is
/// the backend's (a padding block of zeros may name column n).
template <int BS, class T, class Value, class Column>
FEM_INLINE void wave_row_product(std::int64_t n, std::int64_t first, std::int64_t last,
                                 const Value& value, const Column& column, const T* u,
                                 T (&acc)[BS]) {
  T own[BS];
  for (int i = 0; i < BS; ++i) {
    acc[i] = T(0);
    own[i] = u[BS * n + i];
  }
  for (std::int64_t j = first; j < last; ++j) {
    const T* x = u + static_cast<std::int64_t>(BS) * column(j);
    T d[BS];
    for (int c = 0; c < BS; ++c) d[c] = x[c] - own[c];
    for (int i = 0; i < BS; ++i)
      for (int c = 0; c < BS; ++c) acc[i] += value(j, BS * i + c) * d[c];
  }
}

/// The update of node n from its row product.
template <int BS, class T>
FEM_INLINE void wave_node_update(std::int64_t n, const T (&acc)[BS], const T* b, const T* u, T* v,
                                 T* u_next) {
  const T bn = b[n];
  for (int i = 0; i < BS; ++i) {
    const std::int64_t d = BS * n + i;
    const T vi = acc[i] + bn * v[d];
    v[d] = vi;
    u_next[d] = u[d] + vi;
  }
}

/// The whole update of node n on compressed block rows (offsets, columns, values).
template <int BS, class T>
FEM_INLINE void wave_node_step(std::int64_t n, const std::int64_t* offsets,
                               const std::int32_t* columns, const T* values, const T* b, const T* u,
                               T* v, T* u_next) {
  T acc[BS];
  wave_row_product<BS, T>(
      n, offsets[n], offsets[n + 1],
      [values](std::int64_t j, int e) { return values[BS * BS * j + e]; },
      [columns](std::int64_t j) { return columns[j]; }, u, acc);
  wave_node_update<BS, T>(n, acc, b, u, v, u_next);
}

/// The whole update of node n on sliced block rows (fem/sliced_block_rows.hpp, slices of
/// `slice_rows`): the same sums in the same order as wave_node_step.
template <int BS, class T>
FEM_INLINE void wave_sliced_node_step(std::int64_t n, int slice_rows, const std::int64_t* starts,
                                      const std::int32_t* lengths, const std::int32_t* columns,
                                      const T* values, const T* b, const T* u, T* v, T* u_next) {
  const std::int64_t start = starts[n / slice_rows];
  const std::int64_t lane = n % slice_rows;
  const std::int32_t* row_columns = columns + start + lane;
  const T* row_values = values + BS * BS * start + lane;
  T acc[BS];
  wave_row_product<BS, T>(
      n, 0, lengths[n],
      [row_values, slice_rows](std::int64_t j, int e) {
        return row_values[(BS * BS * j + e) * slice_rows];
      },
      [row_columns, slice_rows](std::int64_t j) { return row_columns[j * slice_rows]; }, u, acc);
  wave_node_update<BS, T>(n, acc, b, u, v, u_next);
}

/// A source at one position d with increment (or prescribed value) x.
template <class T>
FEM_INLINE void wave_source_at(std::int64_t d, T x, bool displacement, const T* u, T* v,
                               T* u_next) {
  if (displacement) {
    u_next[d] = x;
    v[d] = x - u[d];
  } else {
    v[d] += x;
    u_next[d] += x;
  }
}

}  // namespace fem::kernels
