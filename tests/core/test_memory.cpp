// The memory budget's control-group limit (framework/src/core/memory.cpp): read from fake
// /proc/self/cgroup files and cgroup hierarchies, v1 and v2, as batch systems and containers
// lay them out.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "fem/memory.hpp"

namespace fem {
namespace {
namespace fs = std::filesystem;

class CgroupMemory : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() /
            ("fem_cgroup_" +
             std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(root_);
    fs::create_directories(root_);
  }
  void TearDown() override { fs::remove_all(root_); }

  /// Writes `text` to the file at `relative` (folders made), returns its path.
  std::string write(const std::string& relative, const std::string& text) {
    const fs::path path = root_ / relative;
    fs::create_directories(path.parent_path());
    std::ofstream(path) << text;
    return path.string();
  }
  [[nodiscard]] std::string sys() const { return (root_ / "sys").string(); }

  fs::path root_;
};

TEST_F(CgroupMemory, V2LimitOfTheProcessGroup) {
  // A Slurm job step: the limit sits on the job's group, the step's own says max.
  const std::string proc = write("cgroup", "0::/system.slice/slurm/job_7/step_0\n");
  write("sys/system.slice/slurm/job_7/step_0/memory.max", "max\n");
  write("sys/system.slice/slurm/job_7/step_0/memory.current", "1000\n");
  write("sys/system.slice/slurm/job_7/memory.max", "4294967296\n");
  write("sys/system.slice/slurm/job_7/memory.current", "1073741824\n");
  const detail::CgroupMemory m = detail::cgroup_memory(proc, sys());
  EXPECT_EQ(m.limit, 4294967296.0);
  EXPECT_EQ(m.used, 1073741824.0);
}

TEST_F(CgroupMemory, V1LimitAtTheMountInAContainer) {
  // The host's path names a group the container does not see; its files are at the mount.
  const std::string proc = write("cgroup", "5:cpu,cpuacct:/\n4:memory:/docker/abc\n0::/\n");
  write("sys/memory/memory.limit_in_bytes", "2147483648\n");
  write("sys/memory/memory.usage_in_bytes", "536870912\n");
  const detail::CgroupMemory m = detail::cgroup_memory(proc, sys());
  EXPECT_EQ(m.limit, 2147483648.0);
  EXPECT_EQ(m.used, 536870912.0);
}

TEST_F(CgroupMemory, NoLimitWhereV1SaysItsHugeNumberOrNothingIsMounted) {
  const std::string proc = write("cgroup", "4:memory:/\n0::/\n");
  write("sys/memory/memory.limit_in_bytes", "9223372036854771712\n");
  write("sys/memory/memory.usage_in_bytes", "1825562624\n");
  EXPECT_LT(detail::cgroup_memory(proc, sys()).limit, 0);
  EXPECT_LT(detail::cgroup_memory(proc, (root_ / "nothing").string()).limit, 0);
  EXPECT_LT(detail::cgroup_memory((root_ / "no_proc_file").string(), sys()).limit, 0);
}

TEST(MemoryBudget, RefusesOnlyWhatExceedsAKnownBudget) {
  const MemoryBudget budget{1024.0 * 1024 * 1024, "the system had 1.0 GiB available"};
  EXPECT_NO_THROW(require_memory(1000.0, "a small mesh", {"m.msh", 3, 0}, "hint", budget));
  try {
    require_memory(3.0 * 1024 * 1024 * 1024, "reading mesh file 'm.msh'", {"m.msh", 0, 0},
                   "use a coarser mesh", budget);
    ADD_FAILURE() << "not refused";
  } catch (const InputError& e) {
    EXPECT_EQ(e.message(),
              "reading mesh file 'm.msh' needs at least 3.0 GiB, more than the 1.0 GiB fem can "
              "still use here (the system had 1.0 GiB available)");
  }
  // An unknown budget (not Linux) refuses nothing.
  EXPECT_NO_THROW(require_memory(1e18, "anything", {}, "", MemoryBudget{}));
}

}  // namespace
}  // namespace fem
