// A 64-bit fingerprint of the model a backend runs: what a checkpoint is checked against, so that
// a restart refuses a checkpoint of another model (mesh, materials, supports, loads, amplitudes,
// contact) but not a change of backend, precision, assembly, end time or output. The time step
// is compared on its own (the solvers integrate with different ones).
#pragma once

#include <cstdint>
#include <optional>

#include "fem/backend.hpp"

namespace fem {

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
