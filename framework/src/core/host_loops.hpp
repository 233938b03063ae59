// Host loops over nodes, cells and dofs that run on every core and give one thread's result.
//
// Large models spend their setup in loops that are trivially parallel but were written for one
// thread: copies of the connectivity, scans of the nodes for a selector, per-dof arrays. At 73 M
// tetrahedra each cost about a second on one core. These helpers keep the result exactly what
// the serial loop gives (same order, same values), so that nothing downstream can tell.
#pragma once

#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <exception>
#include <vector>

namespace fem::detail {

/// Below this many items a loop stays on one thread: starting the team costs more than it saves.
inline constexpr std::int64_t kParallelHostLoopMinimum = 65536;

/// `to` = `from`, copied by every core. Into a HostArray (whose resize does not write) the pages
/// are first touched by the copying threads; into a std::vector the resize still zeroes them on
/// one thread, and only the copy is shared.
template <class T, class FromAllocator, class ToAllocator>
void copy_in_parallel(const std::vector<T, FromAllocator>& from, std::vector<T, ToAllocator>& to) {
  const auto n = static_cast<std::int64_t>(from.size());
  to.resize(from.size());
  const T* source = from.data();
  T* target = to.data();
#pragma omp parallel for schedule(static) if (n >= kParallelHostLoopMinimum)
  for (std::int64_t i = 0; i < n; ++i) target[i] = source[i];
}

/// The indices i in [0, count) for which pick(i) holds, ascending: each thread scans one
/// contiguous range and the ranges are joined in order. An exception thrown by pick (or by the
/// allocation) is rethrown on the calling thread.
template <class Index, class Pick>
std::vector<Index> indices_where(std::int64_t count, const Pick& pick) {
  std::vector<std::vector<Index>> parts;
  std::vector<std::exception_ptr> failures;
#pragma omp parallel if (count >= kParallelHostLoopMinimum)
  {
#pragma omp single
    {
      parts.resize(static_cast<std::size_t>(omp_get_num_threads()));
      failures.resize(parts.size());
    }
    const auto threads = static_cast<std::int64_t>(parts.size());
    const auto t = static_cast<std::size_t>(omp_get_thread_num());
    const std::int64_t begin = count * static_cast<std::int64_t>(t) / threads;
    const std::int64_t end = count * static_cast<std::int64_t>(t + 1) / threads;
    try {
      for (std::int64_t i = begin; i < end; ++i)
        if (pick(i)) parts[t].push_back(static_cast<Index>(i));
    } catch (...) {
      failures[t] = std::current_exception();
    }
  }
  for (const std::exception_ptr& failure : failures)
    if (failure) std::rethrow_exception(failure);
  std::size_t total = 0;
  for (const std::vector<Index>& part : parts) total += part.size();
  std::vector<Index> indices;
  indices.reserve(total);
  for (const std::vector<Index>& part : parts)
    indices.insert(indices.end(), part.begin(), part.end());
  return indices;
}

}  // namespace fem::detail
