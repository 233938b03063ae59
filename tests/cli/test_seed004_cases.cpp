// cases/seed004/bunny.yaml from the command line at a small size: `fem check` prints the
// co-rotational solver's resolved settings and the multigrid levels, and `fem run` runs it.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "support/run_fem.hpp"

namespace fem::test {
namespace {

const std::string kBunny = std::string(FEM_SOURCE_DIR) + "/cases/seed004/bunny.yaml";

TEST(Seed004Cases, CheckPrintsTheCorotationalSettings) {
  // 46 divisions: the seed's smallest model, 12,070 voxels (the case file's comment).
  const FemResult check = run_fem("check " + kBunny + " --set mesh.divisions=46");
  ASSERT_EQ(check.code, 0) << check.output;
  EXPECT_NE(check.output.find("body: 12070 elements of hex8"), std::string::npos) << check.output;
  EXPECT_NE(check.output.find("solver: corotational, end time 2 s, time step 0.05 s (40 steps), "
                              "mass damping 2 1/s"),
            std::string::npos)
      << check.output;
  EXPECT_NE(check.output.find("multigrid: 2 V-cycles per step, 2 pre- and 1 post-smoothing "
                              "sweeps; 12070 voxels"),
            std::string::npos)
      << check.output;
  EXPECT_NE(check.output.find("coarsest level: conjugate gradients to 0.1"), std::string::npos)
      << check.output;
  // One piece, clamped: nothing loose.
  EXPECT_EQ(check.output.find("floats freely"), std::string::npos) << check.output;
}

TEST(Seed004Cases, BunnyRunsAFewSteps) {
  const std::string dir = fresh_temp_dir("fem_seed004", "bunny");
  const FemResult run =
      run_fem("run " + kBunny + " --set mesh.divisions=24 --end-time 0.1 -q --output " + dir);
  ASSERT_EQ(run.code, 0) << run.output;
  EXPECT_NE(run.output.find("completed 2 steps of 0.05 s"), std::string::npos) << run.output;
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace fem::test
