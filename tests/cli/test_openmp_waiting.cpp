// When fem asks libgomp to spin less at barriers: only when the load average says that other
// processes take CPU time (apps/fem/openmp_waiting.hpp).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "openmp_waiting.hpp"

namespace fem::cli {
namespace {

std::string loadavg_file(const std::string& text) {
  const std::filesystem::path path =
      std::filesystem::temp_directory_path() / ("fem_loadavg_" + std::to_string(::getpid()));
  std::ofstream(path) << text;
  return path.string();
}

TEST(OpenMpWaiting, BusyFromTheOneMinuteLoadAverage) {
  EXPECT_TRUE(machine_busy(loadavg_file("1.52 0.40 0.20 3/120 4242\n").c_str()));
  EXPECT_TRUE(machine_busy(loadavg_file("0.75 0.40 0.20 1/120 4242\n").c_str()));
  // Idle now, whatever the longer averages or the tasks runnable at this instant say.
  EXPECT_FALSE(machine_busy(loadavg_file("0.31 1.90 2.40 2/120 4242\n").c_str()));
}

TEST(OpenMpWaiting, UnreadableLoadAverageCountsAsIdle) {
  EXPECT_FALSE(machine_busy("/nonexistent/loadavg"));
  EXPECT_FALSE(machine_busy(loadavg_file("busy\n").c_str()));
}

TEST(OpenMpWaiting, SettlesOnlyABusyMachineWhereTheUserLeftOpenMpAlone) {
  EXPECT_TRUE(openmp_waiting_needs_settling(true, nullptr, nullptr, nullptr, nullptr));
  EXPECT_FALSE(openmp_waiting_needs_settling(false, nullptr, nullptr, nullptr, nullptr));
  EXPECT_FALSE(openmp_waiting_needs_settling(true, "1000", nullptr, nullptr, nullptr));
  EXPECT_FALSE(openmp_waiting_needs_settling(true, nullptr, "passive", nullptr, nullptr));
}

// With OMP_PROC_BIND or OMP_PLACES set, libgomp binds the first thread before main: a program
// executed again would inherit that one CPU and run one thread (it did: "OpenMP, 1 threads").
TEST(OpenMpWaiting, NeverRunsAgainWhereOpenMpHasBoundTheFirstThread) {
  EXPECT_FALSE(openmp_waiting_needs_settling(true, nullptr, nullptr, "spread", nullptr));
  EXPECT_FALSE(openmp_waiting_needs_settling(true, nullptr, nullptr, nullptr, "threads"));
  EXPECT_FALSE(openmp_waiting_needs_settling(true, nullptr, nullptr, "spread", "threads"));
}

}  // namespace
}  // namespace fem::cli
