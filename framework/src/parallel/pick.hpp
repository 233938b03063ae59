// Gathering the listed items of a flat array of `per` values per item: what restricting a
// system, a state or a frame to one part of a partitioned mesh does everywhere.
#pragma once

#include <cstddef>
#include <vector>

namespace fem::parallel::detail {

/// `per` values per listed item of `from`, in list order; empty when `from` is (a field that
/// nobody fills).
template <class T, class Allocator, class Index>
std::vector<T, Allocator> pick(const std::vector<T, Allocator>& from,
                               const std::vector<Index>& items, std::size_t per) {
  std::vector<T, Allocator> out;
  if (from.empty()) return out;
  out.reserve(items.size() * per);
  for (const Index i : items) {
    const auto first =
        from.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(i) * per);
    out.insert(out.end(), first, first + static_cast<std::ptrdiff_t>(per));
  }
  return out;
}

}  // namespace fem::parallel::detail
