// Seed 002's models (cases/seed002, meshes from scripts/models/*.py): each script writes a small
// version of its mesh into a temporary folder, scripts/models/mshinfo.py reads it back (every
// node exists, cells are counter-clockwise or of positive volume), `fem check` accepts the case
// with that mesh, and `fem run` runs a few steps of it and writes the receivers' traces.
#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>
#include <string>

#include "support/run_fem.hpp"

namespace {
namespace fs = std::filesystem;
using fem::test::run_fem;
using fem::test::run_shell;

struct SeedModel {
  const char* name;
  const char* scale;     ///< --scale of the script: a few thousand cells
  const char* end_time;  ///< a few steps of the case's time step
  const char* receiver;  ///< one of the case's receivers
};

void PrintTo(const SeedModel& m, std::ostream* os) {
  *os << m.name;
}

class SeedModels : public ::testing::TestWithParam<SeedModel> {};

const std::string kSource = FEM_SOURCE_DIR;

bool python3_here() {
  return run_shell("python3 -c 'import array, struct'").code == 0;
}

// Lines of a CSV file.
int lines_of(const std::string& path) {
  std::istringstream in(fem::test::read_text(path));
  int n = 0;
  for (std::string line; std::getline(in, line);) ++n;
  return n;
}

TEST_P(SeedModels, ScriptWritesAMeshTheCaseChecksAndRuns) {
  if (!python3_here()) GTEST_SKIP() << "python3 is not installed: the model scripts cannot run";
  const SeedModel& m = GetParam();
  const std::string dir = fem::test::fresh_temp_dir("fem_seed_models", m.name);
  fs::create_directories(dir);
  const std::string mesh = dir + "/" + m.name + ".msh";
  const auto made = run_shell("python3 " + kSource + "/scripts/models/" + m.name + ".py --scale " +
                              m.scale + " -o " + mesh);
  ASSERT_EQ(made.code, 0) << made.output;
  EXPECT_NE(made.output.find(" DoF "), std::string::npos) << made.output;  // sizes printed
  const auto info = run_shell("python3 " + kSource + "/scripts/models/mshinfo.py " + mesh);
  ASSERT_EQ(info.code, 0) << info.output;
  EXPECT_NE(info.output.find("0 cells with a non-positive"), std::string::npos) << info.output;

  const std::string kase = kSource + "/cases/seed002/" + m.name + ".yaml";
  const std::string with_mesh = kase + " --set mesh.file=" + mesh;
  const auto check = run_fem("check " + with_mesh);
  ASSERT_EQ(check.code, 0) << check.output;
  EXPECT_NE(check.output.find("valid"), std::string::npos) << check.output;

  const std::string out = dir + "/out";
  const auto run =
      run_fem("run " + with_mesh + " --set solver.end_time=" + m.end_time +
              " --set output.vtk=false --set 'output.receiver_formats=[csv]'" + " --output " + out);
  ASSERT_EQ(run.code, 0) << run.output;
  const std::string trace = out + "/" + m.receiver + ".csv";
  ASSERT_TRUE(fs::exists(trace)) << run.output;
  EXPECT_GE(lines_of(trace), 5) << trace;
  fs::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(
    Seed002, SeedModels,
    ::testing::Values(SeedModel{"weld", "0.005", "2.0e-8", "receiver_a"},
                      SeedModel{"gear", "0.002", "4.0e-8", "receiver"},
                      SeedModel{"geophysical", "0.005", "4.0e-3", "receiver"},
                      SeedModel{"plate_defect", "0.001", "2.0e-6", "pulse_echo"}),
    [](const ::testing::TestParamInfo<SeedModel>& p) { return std::string(p.param.name); });

}  // namespace
