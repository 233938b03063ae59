// The sliced ELL layout of the wave step's matrix (fem/sliced_block_rows.hpp), which the CUDA
// backend (slices of 32) and Kokkos on a device read: every row's blocks are where the layout
// says, padding is never needed by a row, and a step read through it gives the bits of the
// compressed rows' step (kernels::wave_node_step), for slices of 1, 7 and 32 rows.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include <fem/kernels/wave_step.hpp>
#include <fem/sliced_block_rows.hpp>

#include "support/wave_agreement.hpp"

namespace fem::test {
namespace {

template <int BS>
void expect_same_step(const BlockCsrMatrix& m, int slice_rows) {
  const SlicedBlockRows s = sliced_block_rows(m, slice_rows);
  ASSERT_EQ(s.lengths.size(), static_cast<std::size_t>(m.rows));
  std::int64_t longest = 0;
  for (std::int64_t n = 0; n < m.rows; ++n) {
    ASSERT_EQ(s.lengths[n], m.offsets[n + 1] - m.offsets[n]);
    longest = std::max<std::int64_t>(longest, s.lengths[n]);
  }
  EXPECT_GE(s.stored_blocks, m.blocks());
  EXPECT_LE(s.stored_blocks, longest * slice_rows * ((m.rows + slice_rows - 1) / slice_rows));
  if (slice_rows == 1) {
    EXPECT_EQ(s.stored_blocks, m.blocks());
  }
  const std::size_t dofs = static_cast<std::size_t>(BS * m.rows);
  std::vector<double> u(dofs), b(static_cast<std::size_t>(m.rows)), v0(dofs);
  for (std::size_t i = 0; i < dofs; ++i) {
    u[i] = std::sin(0.37 * static_cast<double>(i));
    v0[i] = 1e-3 * std::cos(0.11 * static_cast<double>(i));
  }
  for (std::size_t n = 0; n < b.size(); ++n) b[n] = 0.9 + 1e-4 * static_cast<double>(n % 13);
  std::vector<double> v_rows = v0, next_rows(dofs), v_sliced = v0, next_sliced(dofs);
  for (std::int64_t n = 0; n < m.rows; ++n) {
    kernels::wave_node_step<BS, double>(n, m.offsets.data(), m.columns.data(), m.values.data(),
                                        b.data(), u.data(), v_rows.data(), next_rows.data());
    kernels::wave_sliced_node_step<BS, double>(n, slice_rows, s.starts.data(), s.lengths.data(),
                                               s.columns.data(), s.values.data(), b.data(),
                                               u.data(), v_sliced.data(), next_sliced.data());
  }
  EXPECT_EQ(v_sliced, v_rows);
  EXPECT_EQ(next_sliced, next_rows);
}

TEST(SlicedBlockRows, StepReadsTheSameBitsAsTheCompressedRows) {
  for (const int slice_rows : {1, 7, 32}) {
    SCOPED_TRACE("slices of " + std::to_string(slice_rows));
    expect_same_step<2>(random_block_matrix(2, 1237, 5), slice_rows);
    expect_same_step<3>(random_block_matrix(3, 999, 6), slice_rows);
  }
}

}  // namespace
}  // namespace fem::test
