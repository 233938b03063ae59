// The voxel mesh keys of a case: the voxels generator (shape, size, divisions) and a segmented
// image with blocks on its label regions, checked when the case is loaded.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include <fem/case.hpp>
#include <fem/mesh/generators.hpp>
#include <fem/output/vtk_series.hpp>

#include "case/case_test_support.hpp"
#include "output/scratch_dir.hpp"

namespace fem::test {
namespace {

#define EXPECT_SAYS(e, text) EXPECT_TRUE(mentions(e, text)) << (e).what()

const std::string kOneBlock = R"(
materials: {soft: {type: neo_hookean, youngs_modulus: 3000, poisson_ratio: 0.3}}
blocks: [{element: hex8r, material: soft}]
solver: {end_time: 0.01}
)";

TEST(VoxelKeys, GeneratorParsesAndMeshesItsShape) {
  const CaseSpec c = parse_case(
      "mesh: {generator: voxels, shape: torus, size: [0.1, 0.1, 0.03], divisions: [20, 20, 6]}" +
          kOneBlock,
      "case.yaml");
  EXPECT_EQ(c.mesh.generator, "voxels");
  EXPECT_EQ(c.mesh.shape, "torus");
  EXPECT_EQ(c.mesh.divisions, (std::array<int, 3>{20, 20, 6}));
  const Mesh mesh = generate_mesh(c.mesh);
  ASSERT_EQ(mesh.regions.size(), 1u);
  EXPECT_EQ(mesh.regions[0].name, "domain");
  EXPECT_GT(mesh.regions[0].num_cells(), 0);
  // The default shape is the sphere.
  EXPECT_EQ(parse_case("mesh: {generator: voxels}" + kOneBlock, "case.yaml").mesh.shape, "sphere");
}

TEST(VoxelKeys, GeneratorRefusesKeysThatDoNotApply) {
  InputError e = case_error("mesh: {generator: voxels, shape: bunny}" + kOneBlock);
  EXPECT_SAYS(e, "case.yaml:1:34: error: 'shape' must be one of sphere, torus, blob, box");
  e = case_error("mesh: {generator: voxels, radius: 0.1}" + kOneBlock);
  EXPECT_SAYS(e, "'radius' does not apply to generator 'voxels'");
  EXPECT_SAYS(e, "a voxels takes shape, size, divisions");
  e = case_error("mesh: {generator: box, shape: sphere}" + kOneBlock);
  EXPECT_SAYS(e, "case.yaml:1:24: error: 'shape' does not apply to generator 'box'");
  EXPECT_SAYS(e, "belongs to generator: voxels");
  e = case_error("mesh: {generator: cylinder, radius: 1, height: 1, size: [1, 1, 1]}" + kOneBlock);
  EXPECT_SAYS(e, "belongs to generator: box, rectangle or voxels");
  e = case_error("mesh: {generator: voxels, distortion: 0.1}" + kOneBlock);
  EXPECT_SAYS(e, "case.yaml:1:27: error: 'distortion' does not apply to generator 'voxels'");
  e = case_error("mesh: {generator: voxels, cells: tet4}" + kOneBlock);
  EXPECT_SAYS(e, "'cells' must be hex8, got 'tet4'");
}

TEST(VoxelKeys, ImageCaseHasARegionPerLabelForItsBlocks) {
  if (!vtk_output_available()) GTEST_SKIP() << "built without VTK: images cannot be read";
  // A MetaImage of 2 x 2 x 2 voxels of 1 mm: four of label 1 (z = 0), three of label 4.
  ScratchDir dir;
  std::ofstream(dir / "tiny.raw", std::ios::binary) << std::string("\1\1\1\1\4\4\4\0", 8);
  std::ofstream(dir / "tiny.mhd") << "ObjectType = Image\nNDims = 3\nDimSize = 2 2 2\n"
                                     "ElementSpacing = 1 1 1\nOffset = 0 0 0\n"
                                     "ElementType = MET_UCHAR\nElementDataFile = tiny.raw\n";
  const std::string materials = R"(
materials:
  soft: {type: neo_hookean, youngs_modulus: 3000, poisson_ratio: 0.3}
  hard: {type: linear_elastic, youngs_modulus: 1.0e6, poisson_ratio: 0.3}
)";
  const std::string mesh = "mesh: {image: " + (dir / "tiny.mhd") + ", scale: 0.001}";
  const CaseSpec c = parse_case(mesh + materials + R"(blocks:
  - {name: organ, region: label_1, element: hex8r, material: soft}
  - {name: lesion, region: label_4, element: hex8, material: hard}
solver: {end_time: 0.01}
)",
                                "case.yaml");
  ASSERT_TRUE(c.mesh.file_mesh);
  EXPECT_EQ(c.mesh.file_mesh->regions.size(), 2u);
  EXPECT_EQ(c.mesh.file_mesh->regions[1].num_cells(), 3);
  // The generated mesh is the image's.
  EXPECT_EQ(generate_mesh(c.mesh).num_nodes(), c.mesh.file_mesh->num_nodes());
  EXPECT_DOUBLE_EQ(c.mesh.file_mesh->bounds()[0][0], -0.0005);

  const InputError e = case_error(mesh + materials + R"(blocks:
  - {name: organ, region: label_2, element: hex8r, material: soft}
)");
  EXPECT_SAYS(e,
              "case.yaml:6:27: error: block 'organ' uses mesh region 'label_2', which the "
              "image does not have");
  EXPECT_SAYS(e, "defined mesh regions: label_1, label_4");

  // A label without a block would drop out of the model: refused at 'blocks'.
  const InputError unused = case_error(mesh + materials + R"(blocks:
  - {name: organ, region: label_1, element: hex8r, material: soft}
)");
  EXPECT_SAYS(unused,
              "case.yaml:5:1: error: the image's label_4 (3 voxels) has no block, so no "
              "material");
  EXPECT_SAYS(unused, "{region: label_4, element: hex8r, material: ...}");
  EXPECT_SAYS(unused, "mesh.labels");
  // Left out on purpose, it is not meshed.
  const CaseSpec organ =
      parse_case(mesh.substr(0, mesh.size() - 1) + ", labels: [1]}" + materials + R"(blocks:
  - {name: organ, region: label_1, element: hex8r, material: soft}
solver: {end_time: 0.01}
)",
                 "case.yaml");
  EXPECT_EQ(organ.mesh.file_mesh->regions.size(), 1u);
}

}  // namespace
}  // namespace fem::test
