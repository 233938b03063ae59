// A cell that the reader accepts (positive volume) but the solver setup cannot use (here a
// sliver: det J far below the cell's size cubed) is reported as the user knows it: at the mesh
// file's line of the element, with the file's element id and the nodes' input ids (the file's
// order, as `ids:` takes them) and their numbers in the file, not the run's reordered numbering,
// and with det J in a format that shows a small value.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>

#include "output/scratch_dir.hpp"
#include "support/case_runner.hpp"

namespace fem::test {
namespace {

/// 1-based line of the first occurrence of `needle` in `text`.
int line_of(const std::string& text, const std::string& needle) {
  const std::size_t at = text.find(needle);
  EXPECT_NE(at, std::string::npos) << needle;
  return 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<long>(at), '\n'));
}

// Two tetrahedra with sparse file ids: element 7 is sound, element 205 a sliver 1e-15 thick
// (6 x its volume = det J = 1e-15, positive, so the reader passes it). Nodes in file order:
// 10 -> 0, 20 -> 1, 30 -> 2, 40 -> 3, 50 -> 4, 60 -> 5; element 205 is (20, 50, 30, 60).
const std::string kAbaqus = R"(*NODE
10, 0, 0, 0
20, 1, 0, 0
30, 0, 1, 0
40, 0, 0, 1
50, 1, 1, 0
60, 0.5, 0.5, 1e-15
*ELEMENT, TYPE=C3D4, ELSET=tissue
7, 10, 20, 30, 40
205, 20, 50, 30, 60
)";

const std::string kGmsh = R"($MeshFormat
2.2 0 8
$EndMeshFormat
$PhysicalNames
1
3 1 "tissue"
$EndPhysicalNames
$Nodes
6
10 0 0 0
20 1 0 0
30 0 1 0
40 0 0 1
50 1 1 0
60 0.5 0.5 1e-15
$EndNodes
$Elements
2
7 4 2 1 1 10 20 30 40
205 4 2 1 1 20 50 30 60
$EndElements
)";

struct MeshText {
  std::string file_name, text, element_line;
};

class BadCellMessage : public ::testing::TestWithParam<MeshText> {};

TEST_P(BadCellMessage, NamesTheFileLineElementIdAndInputNodeIds) {
  const MeshText& mesh = GetParam();
  ScratchDir dir;
  std::ofstream(dir / mesh.file_name) << mesh.text;
  std::ofstream(dir / "case.yaml") << "mesh: {file: " << mesh.file_name << R"(}
materials:
  m: {type: neo_hookean, density: 1000, youngs_modulus: 3000, poisson_ratio: 0.45}
blocks: [{name: tissue, region: tissue, element: tet4, material: m}]
solver: {end_time: 0.01}
)";
  // rcm (the default for files) renumbers the nodes and sorts the cells; shuffled renumbers only.
  for (const char* ordering : {"rcm", "shuffled"}) {
    SCOPED_TRACE(ordering);
    try {
      PreparedRun run = prepare_file(dir / "case.yaml", {{"solver.node_ordering", ordering}});
      ADD_FAILURE() << "the sliver was accepted";
    } catch (const InputError& e) {
      EXPECT_EQ(std::filesystem::path(e.where().file).filename().string(), mesh.file_name)
          << e.what();
      EXPECT_EQ(e.where().line, line_of(mesh.text, mesh.element_line)) << e.what();
      EXPECT_NE(
          e.message().find(
              "element 205 (block 'tissue', nodes 1 4 2 5; in the file 20 50 30 60) is degenerate"),
          std::string::npos)
          << e.what();
      EXPECT_NE(e.message().find("det J = 1.000e-15"), std::string::npos) << e.what();
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Formats, BadCellMessage,
                         ::testing::Values(MeshText{"slivers.inp", kAbaqus, "205, 20"},
                                           MeshText{"slivers.msh", kGmsh, "205 4"}),
                         [](const ::testing::TestParamInfo<MeshText>& param) {
                           return param.param.file_name.substr(param.param.file_name.size() - 3);
                         });

}  // namespace
}  // namespace fem::test
