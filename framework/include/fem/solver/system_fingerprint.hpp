// A 64-bit fingerprint of the model a backend runs: what a checkpoint is checked against, so that
// a restart refuses a checkpoint of another model (mesh, materials, supports, loads, amplitudes,
// contact) but not a change of backend, precision, assembly, end time or output. The time step
// is compared on its own (the solvers integrate with different ones).
#pragma once

#include <cstdint>

#include "fem/backend.hpp"

namespace fem {

/// FNV-1a over every array and value of `system` that the steps depend on, except
/// `deterministic` (how forces are summed, not what they are) and `time_step`.
std::uint64_t fingerprint(const System& system);

}  // namespace fem
