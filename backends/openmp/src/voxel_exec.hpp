// How the OpenMP backend runs the voxel multigrid's kernels (fem/voxel/voxel_operator_impl.hpp):
// std::vectors, parallel loops, reductions in fixed chunks (linear_algebra.hpp), and the
// coarsest level's team as one thread (the level has a few hundred vertices).
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

#include "fem/kernels/voxel_kernels.hpp"
#include "linear_algebra.hpp"

namespace fem::openmp {

struct VoxelExec {
  static constexpr bool kEntryMajor = false;

  template <class U>
  struct Array {
    std::vector<U> values;
    U* data() { return values.data(); }
    const U* data() const { return values.data(); }
    [[nodiscard]] std::size_t size() const { return values.size(); }
  };
  template <class U>
  static Array<U> make(std::int64_t n) {
    return Array<U>{std::vector<U>(static_cast<std::size_t>(n), U(0))};
  }
  template <class U>
  static void upload(Array<U>& a, const U* host, std::int64_t n, std::int64_t offset = 0) {
    std::copy(host, host + n, a.values.begin() + offset);
  }
  template <class U>
  static void download(const Array<U>& a, U* host, std::int64_t n, std::int64_t offset = 0) {
    std::copy(a.values.begin() + offset, a.values.begin() + offset + n, host);
  }
  template <class F>
  static void for_each(std::int64_t begin, std::int64_t end, const F& f) {
#pragma omp parallel for schedule(static) if (end - begin >= kMinParallelEntries)
    for (std::int64_t i = begin; i < end; ++i) f(i);
  }
  using Lanes = kernels::voxel::OneLane;
  template <class F>
  static void for_each_lanes(std::int64_t begin, std::int64_t end, const F& f) {
    for_each(begin, end, [&](std::int64_t i) { f(i, Lanes{}); });
  }
  template <class F>
  static double sum(std::int64_t n, const F& f) {
    return chunked_sum(n, f);
  }
  struct Team {
    [[nodiscard]] int rank() const { return 0; }
    [[nodiscard]] int size() const { return 1; }
    void barrier() const {}
    [[nodiscard]] double sum(double x) const { return x; }
    [[nodiscard]] kernels::voxel::OneLane lanes(int /*count*/) const { return {}; }
  };
  template <class F>
  static void team(const F& f) {
    f(Team{});
  }
  /// Loops run as they are issued: nothing to record.
  using Recording = std::shared_ptr<void>;
  template <class F>
  static Recording record(const F& /*enqueue*/) {
    return nullptr;
  }
  static void replay(const Recording& /*r*/) {}
  static void synchronize() {}
  /// Loops run in order, as they are issued: no side queue.
  static void fork() {}
  static void unfork() {}
  static void join() {}
};

}  // namespace fem::openmp
