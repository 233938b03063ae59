// `fem bench` on a co-rotational voxel case (seed 004): the solver the case names is the one
// timed, and the CPU backends agree.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "bench/bench_support.hpp"
#include "support/run_fem.hpp"

namespace {
namespace fs = std::filesystem;
using fem::test::run_fem;
using fem::test::bench::backend_list;
using fem::test::bench::read_json;
using fem::test::bench::run_of;
using fem::test::bench::second_cpu_backend;
using fem::test::bench::temp_dir;

TEST(BenchVoxels, TimesCorotationalStepsAndTheBackendsAgree) {
  const std::string out = temp_dir("voxels");
  const std::string cube = std::string(FEM_SOURCE_DIR) + "/cases/seed004/cube.yaml";
  // 8^3 voxels of 11.2 mm (the box keeps its size).
  const auto r = run_fem("bench " + cube + " --backends " + backend_list() +
                         " --precision single,double --steps 3 --repeats 2 --warmup 1 --no-plots"
                         " --set mesh.divisions=[8,8,8] --output " +
                         out);
  ASSERT_EQ(r.code, 0) << r.output;
  const nlohmann::json j = read_json(out + "/bench.json");
  EXPECT_TRUE(j["agree"].get<bool>()) << r.output;
  for (const std::string p : {"single", "double"}) {
    const nlohmann::json* ref = run_of(j, "openmp", p);
    ASSERT_NE(ref, nullptr);
    EXPECT_EQ((*ref)["status"], "ok") << ref->dump();
    EXPECT_EQ((*ref)["elements"], 512);
    EXPECT_EQ((*ref)["total_steps"], 1 + 2 * 3);
    EXPECT_DOUBLE_EQ((*ref)["time_step_s"].get<double>(), 0.05) << "the case's Newmark step";
    EXPECT_GT((*ref)["backend_memory_bytes"].get<double>(), 0.0);
    const nlohmann::json* other = run_of(j, second_cpu_backend(), p);
    ASSERT_NE(other, nullptr);
    EXPECT_EQ((*other)["agreement"], "ok") << other->dump();
  }
  fs::remove_all(out);
}

}  // namespace
