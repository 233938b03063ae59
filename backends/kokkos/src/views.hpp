// The Kokkos backend's arrays: Views in an execution space's memory, and the host copies in and
// out of them that setup, output and the transfer verbs make.
#pragma once

#include <Kokkos_Core.hpp>
#if defined(__SSE__)
#include <xmmintrin.h>
#endif

#include <cstddef>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include <fem/error.hpp>
#include <fem/kokkos/spaces.hpp>

namespace fem::kokkos {

template <class Space, class T>
using View = Kokkos::View<T*, typename Space::memory_space>;

/// The row of a material's kernel table (MaterialKernels::spaces) for Space.
template <class Space>
inline constexpr int kTableRow = std::is_same_v<Space, DeviceSpace> ? kDeviceSpace : kHostSpace;

/// d = src, converted to d's value type (sizes must match).
template <class V, class S, class Allocator>
void copy_in(const V& d, const std::vector<S, Allocator>& src) {
  const auto h = Kokkos::create_mirror_view(d);
  for (std::size_t i = 0; i < src.size(); ++i)
    h(i) = static_cast<typename V::non_const_value_type>(src[i]);
  Kokkos::deep_copy(d, h);
}

/// A new View of Space holding src, converted to T.
template <class Space, class T, class S, class Allocator>
View<Space, T> upload(const std::string& label, const std::vector<S, Allocator>& src) {
  View<Space, T> d(Kokkos::view_alloc(Kokkos::WithoutInitializing, label), src.size());
  copy_in(d, src);
  return d;
}

/// out = d, in double (waits for the work queued before).
template <class V>
void copy_out(const V& d, std::vector<double>& out) {
  const auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), d);
  out.resize(d.extent(0));
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = static_cast<double>(h(i));
}

template <class V>
auto data_or_null(const V& v) {
  return v.extent(0) ? v.data() : nullptr;
}

/// Bytes the Views hold.
template <class... V>
std::size_t view_bytes(const V&... views) {
  return ((views.span() * sizeof(typename V::value_type)) + ... + std::size_t{0});
}

/// Kokkos reports a failed allocation as a std::runtime_error: rethrows it as what a user can act
/// on (other errors as they are). Called from a handler.
template <class Space>
[[noreturn]] void rethrow_allocation_failure(const std::runtime_error& e) {
  if (dynamic_cast<const Error*>(&e)) throw;
  throw Error(std::string("the Kokkos backend could not allocate the case's memory on ") +
              Space::name() + ": " + e.what() +
              "\n  hint: run in single precision (--precision single), use a coarser mesh, "
              "or a device with more memory");
}

/// Flush denormals to zero on the host threads a host space runs on, as the OpenMP reference
/// does (and nvcc's --ftz on the device): x86 arithmetic in the denormal range is up to 100x
/// slower and the two backends must round alike.
template <class Space>
void flush_denormals() {
  if constexpr (kRunsOnHost<Space>) {
#if defined(__SSE__)
    _mm_setcsr(_mm_getcsr() | 0x8040);  // FTZ (bit 15) | DAZ (bit 6), this thread
#if defined(KOKKOS_ENABLE_OPENMP) && defined(_OPENMP)
    if constexpr (std::is_same_v<Space, Kokkos::OpenMP>) {
#pragma omp parallel
      _mm_setcsr(_mm_getcsr() | 0x8040);
    }
#endif
#endif
  }
}

}  // namespace fem::kokkos
