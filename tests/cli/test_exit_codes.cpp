// Every way `fem` can fail ends with one of its documented exit codes (README: 0 done, 1 internal
// error, 2 bad input, 3 failed solve, 4 disagreement, 5 interrupted: tests/cli/test_signals.cpp)
// and fem's own message: not CLI11's codes (105 for a missing file, 106, 109, ...) nor a bare
// std::bad_alloc.
#include <gtest/gtest.h>

#include <string>

#include "support/run_fem.hpp"

namespace {

using fem::test::FemResult;
using fem::test::run_fem;

const std::string kCase = std::string(FEM_TEST_DATA_DIR) + "/small_cube.yaml";

bool says(const FemResult& r, const std::string& text) {
  return r.output.find(text) != std::string::npos;
}

TEST(ExitCodes, MissingCaseFileIsBadInputWithFemsMessage) {
  for (const char* command : {"check", "run", "export", "bench"}) {
    const FemResult r = run_fem(std::string(command) + " /nonexistent/case.yaml");
    EXPECT_EQ(r.code, 2) << command << "\n" << r.output;
    EXPECT_TRUE(says(r,
                     "/nonexistent/case.yaml: error: cannot open case file "
                     "'/nonexistent/case.yaml': No such file or directory"))
        << command << "\n"
        << r.output;
  }
}

TEST(ExitCodes, FolderGivenAsTheCaseIsBadInput) {
  const FemResult r = run_fem("check " FEM_TEST_DATA_DIR);
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_TRUE(says(r, "error: cannot open case file '" FEM_TEST_DATA_DIR "': it is a directory"))
      << r.output;
}

TEST(ExitCodes, CommandLineThatDoesNotParseIsBadInput) {
  for (const std::string& args :
       {std::string("check"), "check " + kCase + " --no-such-flag", std::string("frobnicate"),
        "run " + kCase + " --precision half"}) {
    const FemResult r = run_fem(args);
    EXPECT_EQ(r.code, 2) << args << "\n" << r.output;
    EXPECT_TRUE(says(r, "Run with --help for more information")) << args << "\n" << r.output;
  }
  EXPECT_EQ(run_fem("--version").code, 0);
}

TEST(ExitCodes, OutOfMemoryIsBadInputSayingWhatAndTheLimit) {
  // 3.4 M nodes under a 1 GB address space: the mesh fits, the solver's setup does not.
  const FemResult r = run_fem("check " + kCase + " --set mesh.divisions=150", "ulimit -v 1000000;");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_TRUE(says(r,
                   "error: out of memory while setting up the solver for 3442951 nodes and "
                   "3375000 elements"))
      << r.output;
  EXPECT_TRUE(says(r, "reduce it (mesh.divisions, a coarser mesh file)")) << r.output;
  EXPECT_TRUE(says(r, "the address-space limit (ulimit -v) is 1.0 GiB")) << r.output;
}

TEST(ExitCodes, HexBoxBelowThe32BitLimitIsRefusedForItsMemoryNotItsIds) {
  // 64 M hexahedra: within 32-bit ids (once refused as 384 M cells), beyond a 1 GB address space
  // (tests/cli/test_input_size_limits.cpp checks the message).
  const FemResult r = run_fem("check " + kCase + " --set mesh.divisions=400", "ulimit -v 1000000;");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_FALSE(says(r, "32-bit")) << r.output;
  EXPECT_TRUE(says(r, "the generated mesh of 64481201 nodes and 64000000 hex8 cells")) << r.output;
}

}  // namespace
