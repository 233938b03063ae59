// A 64-bit fingerprint of the model a backend runs: what a checkpoint is checked against, so that
// a restart refuses a checkpoint of another model (mesh, materials, supports, loads, amplitudes,
// contact) but not a change of backend, precision, assembly, end time or output. The time step
// is compared on its own (the solvers integrate with different ones).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "fem/backend.hpp"

namespace fem {

/// FNV-1a over the bytes of values, arrays and strings added one after another: the hash of
/// fingerprint(System), and of the models of solvers without a System (the voxel solver's).
class Fingerprint {
 public:
  void bytes(const void* data, std::size_t n) {
    const auto* p = static_cast<const unsigned char*>(data);
    for (std::size_t i = 0; i < n; ++i) hash_ = (hash_ ^ p[i]) * 0x100000001b3ull;
  }
  template <class T>
  void add(const T& value) {
    static_assert(std::is_arithmetic_v<T> || std::is_enum_v<T>);
    bytes(&value, sizeof value);
  }
  template <class T, class Allocator>
  void add(const std::vector<T, Allocator>& v) {
    add<std::uint64_t>(v.size());
    bytes(v.data(), v.size() * sizeof(T));
  }
  void add(const std::string& s) {
    add<std::uint64_t>(s.size());
    bytes(s.data(), s.size());
  }
  template <class T, std::size_t N>
  void add(const T (&a)[N]) {
    bytes(a, sizeof a);
  }
  [[nodiscard]] std::uint64_t value() const { return hash_; }

 private:
  std::uint64_t hash_ = 0xcbf29ce484222325ull;
};

/// Adds an amplitude's definition (kind, times, values).
void add_amplitude(Fingerprint& h, const Amplitude& a);

/// FNV-1a over every array and value of `system` that the steps depend on, except
/// `deterministic` (how forces are summed, not what they are) and `time_step`.
std::uint64_t fingerprint(const System& system);

/// fingerprint(system), computed the first time it is asked for and kept: hashing every array
/// byte by byte takes seconds for large models (about 2 s per 10 M tetrahedra), which a run that
/// writes and reads no checkpoint need not spend. `system` must outlive it and stay unchanged.
class LazyFingerprint {
 public:
  explicit LazyFingerprint(const System& system) : system_(system) {}
  [[nodiscard]] std::uint64_t value() const {
    if (!value_) value_ = fingerprint(system_);
    return *value_;
  }

 private:
  const System& system_;
  mutable std::optional<std::uint64_t> value_;
};

}  // namespace fem
