// Two ranks of a partitioned series played one after the other in one process (the output tests
// cannot start MPI): a communicator for either rank, and the piece of a mesh and of a frame a
// rank writes.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "fem/output/frame.hpp"
#include "fem/parallel/communicator.hpp"

namespace fem::test {

/// Rank `rank` of two, alone in this process. A gather returns this rank's contribution for
/// both, unless `other` says what the other rank contributes instead (its failure, say).
class RankOfTwo : public parallel::Communicator {
 public:
  explicit RankOfTwo(int rank) : rank_(rank) {}
  std::function<std::string(const std::string& mine)> other = [](const std::string& m) {
    return m;
  };

  [[nodiscard]] int rank() const override { return rank_; }
  [[nodiscard]] int size() const override { return 2; }
  [[nodiscard]] std::string description() const override { return "test, 2 ranks"; }
  void all_reduce(double* /*values*/, int /*count*/, parallel::Reduction /*op*/) override {}
  void all_reduce(std::int64_t* /*values*/, int /*count*/, parallel::Reduction /*op*/) override {}
  void broadcast(void* /*data*/, std::size_t /*bytes*/, int /*root*/) override {}
  std::vector<char> all_gather_bytes(const void* data, std::size_t bytes,
                                     std::vector<std::size_t>& sizes) override {
    const std::string mine(static_cast<const char*>(data), bytes);
    const std::string theirs = other(mine);
    const std::string all = rank_ == 0 ? mine + theirs : theirs + mine;
    sizes = rank_ == 0 ? std::vector{mine.size(), theirs.size()}
                       : std::vector{theirs.size(), mine.size()};
    return {all.begin(), all.end()};
  }
  void exchange_bytes(const std::vector<int>& /*ranks*/,
                      const std::vector<std::pair<const void*, std::size_t>>& /*send*/,
                      const std::vector<std::pair<void*, std::size_t>>& /*recv*/) override {
    ADD_FAILURE() << "the writer exchanges nothing point to point";
  }
  [[noreturn]] void abort(int /*exit_code*/) override { std::abort(); }

 private:
  int rank_;
};

/// The piece of `whole` holding `cells` (global numbers) and the points they use, in ascending
/// global number, with their ids.
inline OutputMesh piece_of(const OutputMesh& whole, const std::vector<std::int64_t>& cells) {
  OutputMesh piece;
  for (const std::int64_t c : cells) {
    for (auto i = whole.offsets[c]; i < whole.offsets[c + 1]; ++i) {
      piece.point_ids.push_back(whole.connectivity[static_cast<std::size_t>(i)]);
    }
  }
  std::sort(piece.point_ids.begin(), piece.point_ids.end());
  piece.point_ids.erase(std::unique(piece.point_ids.begin(), piece.point_ids.end()),
                        piece.point_ids.end());
  const auto local = [&](std::int64_t global) {
    return std::lower_bound(piece.point_ids.begin(), piece.point_ids.end(), global) -
           piece.point_ids.begin();
  };
  for (const std::int64_t p : piece.point_ids) {
    piece.points.insert(piece.points.end(), whole.points.begin() + 3 * p,
                        whole.points.begin() + 3 * p + 3);
  }
  piece.offsets.push_back(0);
  for (const std::int64_t c : cells) {
    piece.cell_types.push_back(whole.cell_types[static_cast<std::size_t>(c)]);
    for (auto i = whole.offsets[c]; i < whole.offsets[c + 1]; ++i) {
      piece.connectivity.push_back(local(whole.connectivity[static_cast<std::size_t>(i)]));
    }
    piece.offsets.push_back(static_cast<std::int64_t>(piece.connectivity.size()));
  }
  piece.cell_ids = cells;
  return piece;
}

/// The tuples `ids` of each field.
inline std::vector<Field> select(const std::vector<Field>& fields,
                                 const std::vector<std::int64_t>& ids) {
  std::vector<Field> out;
  for (const Field& f : fields) {
    Field part{f.name, f.components, {}};
    for (const std::int64_t id : ids) {
      const auto first = f.values.begin() + id * f.components;
      part.values.insert(part.values.end(), first, first + f.components);
    }
    out.push_back(std::move(part));
  }
  return out;
}

inline OutputFrame frame_of(const OutputFrame& whole, const OutputMesh& piece) {
  OutputFrame f = whole;
  f.point_fields = select(whole.point_fields, piece.point_ids);
  f.cell_fields = select(whole.cell_fields, piece.cell_ids);
  return f;
}

}  // namespace fem::test
