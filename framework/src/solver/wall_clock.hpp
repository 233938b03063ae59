// The wall clock the solvers time their phases with.
#pragma once

#include <chrono>

namespace fem {

using Clock = std::chrono::steady_clock;

/// Seconds of wall time from `start` to now.
inline double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

}  // namespace fem
