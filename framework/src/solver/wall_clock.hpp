// The wall clock the solvers time their phases with.
#pragma once

#include <spdlog/spdlog.h>

#include <chrono>
#include <string>
#include <string_view>

namespace fem {

using Clock = std::chrono::steady_clock;

/// Seconds of wall time from `start` to now.
inline double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

/// The phases of a setup, each logged at debug level (SPDLOG_LEVEL=debug) with its wall time as
/// "<what>: <phase> <seconds> s": where a large model's setup goes, without a profiler.
class PhaseLog {
 public:
  explicit PhaseLog(std::string_view what) : what_(what) {}
  /// Ends the phase that began at the last call (or at construction).
  void done(std::string_view phase) {
    spdlog::debug("{}: {} {:.3f} s", what_, phase, seconds_since(start_));
    start_ = Clock::now();
  }

 private:
  std::string what_;
  Clock::time_point start_ = Clock::now();
};

}  // namespace fem
