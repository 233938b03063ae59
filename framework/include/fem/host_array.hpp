// Host arrays that a parallel loop fills: a std::vector whose resize() leaves new elements of
// trivial types unwritten, so that the loop's threads touch the pages first (each core faults
// in and clears its own part) instead of one thread zeroing gigabytes before the loop runs. On
// the 73 M-element cube the serial zeroing of the shape gradients alone took seconds.
#pragma once

#include <memory>
#include <new>
#include <type_traits>
#include <utility>
#include <vector>

namespace fem {

/// std::allocator whose value-initialisation (what resize(n) asks for) default-initialises:
/// trivial types are left unwritten; resize(n, value), assign and copies write as usual.
template <class T>
class UninitializedAllocator : public std::allocator<T> {
 public:
  template <class U>
  struct rebind {
    using other = UninitializedAllocator<U>;
  };
  UninitializedAllocator() = default;
  template <class U>
  explicit UninitializedAllocator(const UninitializedAllocator<U>& /*other*/) noexcept {}

  template <class U>
  void construct(U* p) noexcept(std::is_nothrow_default_constructible_v<U>) {
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};

/// A large array of the system that setup fills in parallel: resize(n) does not write it.
template <class T>
using HostArray = std::vector<T, UninitializedAllocator<T>>;

}  // namespace fem
