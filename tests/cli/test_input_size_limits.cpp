// Large inputs cost bounded memory: `fem check` runs under `ulimit -v` (address space) and must
// finish with its answer, not with std::bad_alloc. The bounds on case files sit between what the
// case costs now and what it cost when every list item became a checked Value (about 550 bytes
// each on top of yaml-cpp's own 460): a regression runs out of memory here. Meshes that cannot
// fit (a file larger than the memory, a header announcing more nodes than it holds, a generated
// box too fine) are refused with both sizes before the work (fem/memory.hpp).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "support/run_fem.hpp"

namespace {
namespace fs = std::filesystem;

const std::string kCase = std::string(FEM_TEST_DATA_DIR) + "/small_cube.yaml";

/// The small cube case with `line` inserted below the line `section` ("node_sets:").
std::string small_cube_with(const std::string& section, const std::string& line) {
  std::string yaml = fem::test::read_text(kCase);
  const std::size_t at = yaml.find(section + "\n");
  yaml.insert(at + section.size() + 1, line + "\n");
  return yaml;
}

std::string write_case(const std::string& name, const std::string& yaml) {
  const std::string dir = fem::test::fresh_temp_dir("fem_size_limits", name);
  fs::create_directories(dir);
  const std::string path = dir + "/" + name + ".yaml";
  std::ofstream(path) << yaml;
  return path;
}

/// `fem check path` with its address space limited to `kib` KiB.
fem::test::FemResult check_within(const std::string& path, long kib) {
  return fem::test::run_fem("check " + path, "ulimit -v " + std::to_string(kib) + ";");
}

TEST(InputSizeLimits, MillionNodeIdsAreCheckedWithin800MB) {
  // 1 M ids in 2 MB of text: about 500 MB now, 1 GB when each item was a Value.
  std::string ids = "0";
  for (int i = 1; i < 1000000; ++i) ids += ",0";
  const std::string path =
      write_case("many_ids", small_cube_with("node_sets:", "  many: {ids: [" + ids + "]}"));
  const fem::test::FemResult r = check_within(path, 800000);
  EXPECT_EQ(r.code, 0) << r.output.substr(0, 2000);
  EXPECT_NE(r.output.find("many: 1 nodes"), std::string::npos) << r.output.substr(0, 2000);
  fs::remove_all(fs::path(path).parent_path());
}

TEST(InputSizeLimits, OverlongTabularAmplitudeIsRefusedWithin800MB) {
  // 400,000 points: counted on the YAML list and refused before any point is read
  // (about 600 MB, nearly all of it yaml-cpp's tree; 820 MB when each point became a Value).
  std::string points = "[0, 0]";
  for (int i = 1; i < 400000; ++i) points += ",[0,0]";
  const std::string path = write_case(
      "long_curve",
      small_cube_with("amplitudes:", "  long: {type: tabular, points: [" + points + "]}"));
  const fem::test::FemResult r = check_within(path, 800000);
  EXPECT_EQ(r.code, 2) << r.output.substr(0, 2000);
  EXPECT_NE(r.output.find("'points' has 400000 points; at most 64 are supported"),
            std::string::npos)
      << r.output.substr(0, 2000);
  fs::remove_all(fs::path(path).parent_path());
}

TEST(InputSizeLimits, CaseFileOverTheLimitExitsWithTwoAtOnce) {
  // 19 MB of curve (a million points) cost 2 GB and 32 s before the limit; now it is not read.
  std::string points = "[0, 0]";
  for (int i = 1; i < 1000000; ++i) points += ", [" + std::to_string(i) + ", 0.5]";
  const std::string path = write_case(
      "huge_curve",
      small_cube_with("amplitudes:", "  long: {type: tabular, points: [" + points + "]}"));
  const fem::test::FemResult r = check_within(path, 400000);
  EXPECT_EQ(r.code, 2) << r.output.substr(0, 2000);
  EXPECT_NE(r.output.find(path + ": error: the case file is larger than the 4.0 MiB"),
            std::string::npos)
      << r.output.substr(0, 2000);
  fs::remove_all(fs::path(path).parent_path());
}

/// The small cube case reading its mesh from `mesh_file` instead of generating it.
std::string small_cube_from(const std::string& mesh_file) {
  std::string yaml = fem::test::read_text(kCase);
  const std::size_t at = yaml.find("mesh: {generator");
  yaml.replace(at, yaml.find('\n', at) - at, "mesh: {file: " + mesh_file + "}");
  return yaml;
}

TEST(InputSizeLimits, MeshFileLargerThanTheMemoryIsRefusedBeforeItIsRead) {
  // A sparse 2 GiB file: reading it under a 1 GB address space could only run out of memory.
  const std::string path = write_case("huge_mesh_file", small_cube_from("huge.msh"));
  const std::string mesh = (fs::path(path).parent_path() / "huge.msh").string();
  std::ofstream(mesh) << "$MeshFormat\n";
  fs::resize_file(mesh, std::uintmax_t{2} << 30);
  const fem::test::FemResult r = check_within(path, 1000000);
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find(mesh + ": error: reading mesh file '" + mesh +
                          "' (2147483648 bytes) needs at least 2.0 GiB, more than the "),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("the address-space limit (ulimit -v) is 1.0 GiB"), std::string::npos)
      << r.output;
  fs::remove_all(fs::path(path).parent_path());
}

TEST(InputSizeLimits, GmshHeaderAnnouncingMoreNodesThanMemoryHoldsIsRefusedAtItsLine) {
  const std::string path = write_case("announced_nodes", small_cube_from("nodes.msh"));
  std::ofstream(fs::path(path).parent_path() / "nodes.msh")
      << "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n20000000\n1 0 0 0\n";
  const fem::test::FemResult r = check_within(path, 1000000);
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("nodes.msh:5: error: reading the 20000000 nodes that $Nodes announces "
                          "needs at least 1.3 GiB, more than the "),
            std::string::npos)
      << r.output;
  fs::remove_all(fs::path(path).parent_path());
}

TEST(InputSizeLimits, ImageLargerThanTheMemoryIsRefusedBeforeItsSamplesAreRead) {
  // 2000 x 2000 x 500 bytes (1.9 GiB, within 2^31 samples) in a sparse data file.
  const std::string path = write_case("huge_image", small_cube_from("huge.mhd"));
  const fs::path dir = fs::path(path).parent_path();
  std::ofstream(dir / "huge.mhd") << "ObjectType = Image\nNDims = 3\nDimSize = 2000 2000 500\n"
                                     "ElementType = MET_UCHAR\nElementDataFile = huge.raw\n";
  std::ofstream(dir / "huge.raw") << '\0';
  fs::resize_file(dir / "huge.raw", std::uintmax_t{2000} * 2000 * 500);
  std::string yaml = fem::test::read_text(path);
  yaml.replace(yaml.find("mesh: {file: huge.mhd}"), 22, "mesh: {image: huge.mhd}");
  std::ofstream(path) << yaml;
  const fem::test::FemResult r = check_within(path, 1000000);
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("error: reading image '" + (dir / "huge.mhd").string() +
                          "' (2000 x 2000 x 500 samples of 1 byte) needs at least 1.9 GiB"),
            std::string::npos)
      << r.output;
  fs::remove_all(dir);
}

TEST(InputSizeLimits, GeneratedMeshLargerThanTheMemoryIsRefusedBeforeItIsBuilt) {
  // 64 M hexahedra (3.3 GiB of coordinates and connectivity) under a 1 GB address space.
  const fem::test::FemResult r =
      fem::test::run_fem("check " + kCase + " --set mesh.divisions=400", "ulimit -v 1000000;");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("small_cube.yaml:5:1: error: the generated mesh of 64481201 nodes and "
                          "64000000 hex8 cells needs at least 3.3 GiB, more than the "),
            std::string::npos)
      << r.output;
}

}  // namespace
