// Sliced ELL of the wave step's block rows (fem/sliced_block_rows.hpp).
#include "fem/sliced_block_rows.hpp"

#include <algorithm>

namespace fem {

SlicedBlockRows sliced_block_rows(const BlockCsrMatrix& m, int slice_rows) {
  SlicedBlockRows s;
  s.slice_rows = slice_rows;
  s.block_size = m.block_size;
  s.rows = m.rows;
  const int bs2 = m.block_size * m.block_size;
  const std::int64_t c = slice_rows, nodes = m.rows;
  const std::int64_t slices = (nodes + c - 1) / c;
  s.starts.assign(static_cast<std::size_t>(slices + 1), 0);
  s.lengths.resize(static_cast<std::size_t>(nodes));
  for (std::int64_t k = 0; k < slices; ++k) {
    std::int64_t width = 0;
    for (std::int64_t n = k * c; n < std::min(nodes, (k + 1) * c); ++n) {
      const std::int64_t length = m.offsets[n + 1] - m.offsets[n];
      s.lengths[n] = static_cast<std::int32_t>(length);
      width = std::max(width, length);
    }
    s.starts[k + 1] = s.starts[k] + c * width;
  }
  s.stored_blocks = s.starts.back();
  s.columns.resize(static_cast<std::size_t>(s.stored_blocks));
  s.values.assign(static_cast<std::size_t>(bs2 * s.stored_blocks), 0.0);
#pragma omp parallel for schedule(static)
  for (std::int64_t k = 0; k < slices; ++k) {
    const std::int64_t width = (s.starts[k + 1] - s.starts[k]) / c;
    for (std::int64_t lane = 0; lane < c; ++lane) {
      const std::int64_t n = k * c + lane;
      // Rows past the last node pad the last slice: their own index, as any padding.
      const std::int64_t first = n < nodes ? m.offsets[n] : 0;
      const std::int64_t length = n < nodes ? s.lengths[n] : 0;
      for (std::int64_t j = 0; j < width; ++j) {
        const std::int64_t slot = s.starts[k] + j * c + lane;
        s.columns[slot] =
            j < length ? m.columns[first + j] : static_cast<std::int32_t>(std::min(n, nodes - 1));
        if (j >= length) continue;
        for (int e = 0; e < bs2; ++e)
          s.values[bs2 * s.starts[k] + (bs2 * j + e) * c + lane] = m.values[bs2 * (first + j) + e];
      }
    }
  }
  return s;
}

}  // namespace fem
