// How much memory fem can still take, and the refusal of work that needs more: input whose size
// announces a failure (a mesh file larger than the memory, a generated mesh of too many cells) is
// refused with both sizes before the work starts, instead of running out of memory midway.
#pragma once

#include <string>

#include "fem/error.hpp"

namespace fem {

/// What this process can still allocate: the smallest of the system's available memory
/// (MemAvailable in /proc/meminfo), what the memory limit of its control group leaves (a Slurm
/// job's `--mem`, a container's limit: exceeding it kills the process with no message), and what
/// the address-space limit (`ulimit -v`) leaves above the address space already in use.
struct MemoryBudget {
  double bytes = -1;   ///< usable bytes; negative where neither is known (not Linux)
  std::string limits;  ///< "the address-space limit (ulimit -v) is 1.0 GiB, 0.3 GiB in use; the
                       ///< system had 20.1 GiB available", or "" where unknown
};

/// Measured now (reads /proc and /sys/fs/cgroup; cheap enough for once per input file, not for a
/// loop).
MemoryBudget memory_budget();

namespace detail {

/// The memory limit of a control group and what its processes use, in bytes; limit < 0 where
/// none is set.
struct CgroupMemory {
  double limit = -1;
  double used = 0;
};

/// The innermost memory limit over this process's control group and its ancestors, from
/// `proc_cgroup` (the format of /proc/self/cgroup) and the hierarchy mounted at `root`: cgroup v2
/// (`memory.max`, `memory.current`) or v1 (`memory/.../memory.limit_in_bytes`,
/// `memory.usage_in_bytes`). In a container the group's path may be the host's while its files
/// sit at the mount's top: the path is tried from its leaf up, then the mount itself.
CgroupMemory cgroup_memory(const std::string& proc_cgroup = "/proc/self/cgroup",
                           const std::string& root = "/sys/fs/cgroup");

}  // namespace detail

/// "3.3 GiB" (one decimal).
std::string gib(double bytes);

/// Throws InputError at `where` when `bytes`, the least that `what` needs ("generating the mesh
/// of 64 M hex8 cells"), exceed the budget; nothing where the budget is unknown.
void require_memory(double bytes, const std::string& what, const SourceLocation& where,
                    const std::string& hint, const MemoryBudget& budget = memory_budget());

}  // namespace fem
