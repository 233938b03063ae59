// How much memory fem can still take, and the refusal of work that needs more: input whose size
// announces a failure (a mesh file larger than the memory, a generated mesh of too many cells) is
// refused with both sizes before the work starts, instead of running out of memory midway.
#pragma once

#include <string>

#include "fem/error.hpp"

namespace fem {

/// What this process can still allocate: the smaller of the system's available memory
/// (MemAvailable in /proc/meminfo) and what the address-space limit (`ulimit -v`) leaves above
/// the address space already in use.
struct MemoryBudget {
  double bytes = -1;   ///< usable bytes; negative where neither is known (not Linux)
  std::string limits;  ///< "the address-space limit (ulimit -v) is 1.0 GiB, 0.3 GiB in use; the
                       ///< system had 20.1 GiB available", or "" where unknown
};

/// Measured now (reads /proc; cheap enough for once per input file, not for a loop).
MemoryBudget memory_budget();

/// "3.3 GiB" (one decimal).
std::string gib(double bytes);

/// Throws InputError at `where` when `bytes`, the least that `what` needs ("generating the mesh
/// of 64 M hex8 cells"), exceed the budget; nothing where the budget is unknown.
void require_memory(double bytes, const std::string& what, const SourceLocation& where,
                    const std::string& hint, const MemoryBudget& budget = memory_budget());

}  // namespace fem
