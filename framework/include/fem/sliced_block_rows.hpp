// The wave step's matrix in sliced ELL (SELL-C): rows in slices of C, each slice as wide as its
// longest row, the j-th block of the C rows of a slice side by side entry by entry, so that C
// threads computing C consecutive rows load each entry as one contiguous run:
//   columns[start + C j + lane], values[BS^2 start + C (BS^2 j + e) + lane]
// with start = starts[row / C] (the block slots of the slices before), lane = row % C. Padding
// (value 0, column the row itself) is never read: a row stops at lengths[row]. C = 1 is the
// compressed block rows themselves. Built once on the host by the backends that store it
// (CUDA: C = 32 always; Kokkos: 32 on a device, 1 on the host) and read by
// kernels::wave_sliced_node_step (fem/kernels/wave_step.hpp).
#pragma once

#include <cstdint>
#include <vector>

#include "fem/operator.hpp"

namespace fem {

struct SlicedBlockRows {
  int slice_rows = 32;
  int block_size = 3;
  std::int64_t rows = 0;
  std::int64_t stored_blocks = 0;     ///< with the padding
  std::vector<std::int64_t> starts;   ///< slices + 1: block slots before each slice
  std::vector<std::int32_t> lengths;  ///< blocks of each row
  std::vector<std::int32_t> columns;  ///< per slot
  std::vector<double> values;         ///< block_size^2 per slot, interleaved by lane
  /// The fraction of the stored blocks that are padding.
  [[nodiscard]] double padding(std::int64_t blocks) const {
    return stored_blocks > 0
               ? static_cast<double>(stored_blocks - blocks) / static_cast<double>(stored_blocks)
               : 0.0;
  }
};

SlicedBlockRows sliced_block_rows(const BlockCsrMatrix& m, int slice_rows);

}  // namespace fem
