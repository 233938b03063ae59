// Host-computed tangent terms of operator decorators (host_tangent_term.hpp).
#include "host_tangent_term.hpp"

#include <algorithm>
#include <map>

namespace fem {

void HostTangentTerm::set(LinearAlgebra& la, std::int64_t rows, std::vector<TangentEntry> entries) {
  std::sort(entries.begin(), entries.end(), [](const TangentEntry& a, const TangentEntry& b) {
    return a.row != b.row ? a.row < b.row : a.col < b.col;
  });
  host_ = CsrMatrix{};
  host_.rows = host_.cols = rows;
  host_.offsets.assign(static_cast<std::size_t>(rows + 1), 0);
  for (std::size_t i = 0; i < entries.size(); ++i) {
    if (i > 0 && entries[i].row == entries[i - 1].row && entries[i].col == entries[i - 1].col) {
      host_.values.back() += entries[i].value;
      continue;
    }
    host_.columns.push_back(entries[i].col);
    host_.values.push_back(entries[i].value);
    ++host_.offsets[entries[i].row + 1];
  }
  for (std::int64_t r = 0; r < rows; ++r) host_.offsets[r + 1] += host_.offsets[r];
  device_.reset();
  if (!empty()) device_ = la.matrix(host_);
}

void HostTangentTerm::add_apply(LinearAlgebra& la, const Vector& v, Vector& y, double scale) {
  if (!device_) return;
  if (!scratch_) scratch_ = la.vector(host_.rows);
  la.multiply(*device_, v, *scratch_);
  la.axpby(scale, *scratch_, 1.0, y);
}

void HostTangentTerm::add_diagonal(LinearAlgebra& la, Vector& d, double scale) const {
  if (empty()) return;
  std::vector<double> h;
  la.download(d, h);
  for (std::int64_t r = 0; r < host_.rows; ++r)
    for (std::int64_t j = host_.offsets[r]; j < host_.offsets[r + 1]; ++j)
      if (host_.columns[j] == r) h[r] += scale * host_.values[j];
  la.upload(h, d);
}

void HostTangentTerm::add_block_diagonal(LinearAlgebra& la, Vector& blocks, double scale) const {
  if (empty()) return;
  std::vector<double> h;
  la.download(blocks, h);
  for (std::int64_t r = 0; r < host_.rows; ++r)
    for (std::int64_t j = host_.offsets[r]; j < host_.offsets[r + 1]; ++j)
      if (host_.columns[j] / 3 == r / 3)
        h[9 * (r / 3) + 3 * (r % 3) + host_.columns[j] % 3] += scale * host_.values[j];
  la.upload(h, blocks);
}

void HostTangentTerm::add_assembled(CsrMatrix& a, double scale) const {
  if (empty()) return;
  // The union of the two patterns, row by row (the term may couple nodes the mesh does not).
  CsrMatrix sum;
  sum.rows = a.rows;
  sum.cols = a.cols;
  sum.offsets.assign(static_cast<std::size_t>(a.rows + 1), 0);
  for (std::int64_t r = 0; r < a.rows; ++r) {
    std::map<std::int64_t, double> row;
    for (std::int64_t j = a.offsets[r]; j < a.offsets[r + 1]; ++j) row[a.columns[j]] += a.values[j];
    for (std::int64_t j = host_.offsets[r]; j < host_.offsets[r + 1]; ++j)
      row[host_.columns[j]] += scale * host_.values[j];
    for (const auto& [col, value] : row) {
      sum.columns.push_back(col);
      sum.values.push_back(value);
    }
    sum.offsets[r + 1] = static_cast<std::int64_t>(sum.columns.size());
  }
  a = std::move(sum);
}

}  // namespace fem
