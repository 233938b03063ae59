// The loose pieces of a voxel object (issue 18, "Bad input"): connected components by shared
// vertices, which of them have no prescribed dof, and the warning lines that name them.
#include <gtest/gtest.h>

#include <fem/voxel/voxel_pieces.hpp>

#include "voxel_cases.hpp"

namespace fem::test {
namespace {

constexpr double kEdge = 0.01;

/// Two cubes of voxels in an 8 x 3 x 3 lattice: 2 x 3 x 3 at x < 2 and 3 x 3 x 3 at x >= 5,
/// a gap of two voxels between them.
struct TwoCubes {
  VoxelObject object =
      voxel_object({8, 3, 3}, kEdge, [](int i, int, int) { return i < 2 || i >= 5; });
  voxel::VoxelHierarchy h = voxel::build_voxel_hierarchy(object.mesh, object.cells);

  /// Every dof prescribed at the vertices whose x is below `below` (m).
  [[nodiscard]] std::vector<std::uint8_t> clamped_below(double below) const {
    std::vector<std::uint8_t> fixed(static_cast<std::size_t>(h.levels[0].vertices), 0);
    for (std::size_t v = 0; v < fixed.size(); ++v)
      if (h.vertex_node[v] >= 0 && object.mesh.node(h.vertex_node[v])[0] < below) fixed[v] = 7;
    return fixed;
  }
};

TEST(VoxelPieces, TwoCubesOneClampedLeaveOneLoosePiece) {
  const TwoCubes c;
  const std::vector<voxel::VoxelPiece> pieces = voxel::voxel_pieces(c.h, c.clamped_below(1e-6));
  ASSERT_EQ(pieces.size(), 2u);
  // Largest first: the free cube at x >= 5 voxels, then the clamped one at x = 0.
  EXPECT_EQ(pieces[0].voxels, 27);
  EXPECT_FALSE(pieces[0].supported);
  EXPECT_NEAR(pieces[0].lower[0], 5 * kEdge, 1e-12);
  EXPECT_NEAR(pieces[0].upper[0], 8 * kEdge, 1e-12);
  EXPECT_NEAR(pieces[0].upper[2], 3 * kEdge, 1e-12);
  EXPECT_EQ(pieces[1].voxels, 18);
  EXPECT_TRUE(pieces[1].supported);
  EXPECT_NEAR(pieces[1].upper[0], 2 * kEdge, 1e-12);
  // The named vertex is one of the piece's.
  EXPECT_GE(c.object.mesh.node(c.h.vertex_node[pieces[0].vertex])[0], 5 * kEdge - 1e-12);

  const std::vector<std::string> lines = voxel::loose_piece_warnings(
      pieces, [&](std::int32_t v) { return std::int64_t{c.h.vertex_node[v]}; });
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_NE(lines[0].find("voxel piece of 27 voxels"), std::string::npos) << lines[0];
  EXPECT_NE(lines[0].find("floats freely"), std::string::npos) << lines[0];
  EXPECT_NE(lines[0].find("(node " + std::to_string(c.h.vertex_node[pieces[0].vertex]) + ")"),
            std::string::npos)
      << lines[0];
  EXPECT_NE(lines[0].find("[0.05 0 0] .. [0.08 0.03 0.03] m"), std::string::npos) << lines[0];
  EXPECT_NE(lines[0].find("fix a node of it"), std::string::npos) << lines[0];
  EXPECT_NE(lines[0].find("mesh.labels"), std::string::npos) << lines[0];
}

TEST(VoxelPieces, EveryPieceClampedWarnsOfNothing) {
  const TwoCubes c;
  // x = 0 and the faces at x = 5 voxels: both cubes held.
  std::vector<std::uint8_t> fixed = c.clamped_below(1e-6);
  const std::vector<std::uint8_t> far = c.clamped_below(5 * kEdge + 1e-6);
  for (std::size_t v = 0; v < fixed.size(); ++v)
    if (far[v] && c.object.mesh.node(c.h.vertex_node[v])[0] > 4 * kEdge) fixed[v] = 4;  // uz only
  const std::vector<voxel::VoxelPiece> pieces = voxel::voxel_pieces(c.h, fixed);
  ASSERT_EQ(pieces.size(), 2u);
  EXPECT_TRUE(pieces[0].supported && pieces[1].supported);
  EXPECT_TRUE(voxel::loose_piece_warnings(pieces, [](std::int32_t v) { return v; }).empty());
}

TEST(VoxelPieces, VoxelsSharingOnlyAVertexAreOnePiece) {
  // A diagonal staircase of voxels touching corner to corner.
  const VoxelObject o =
      voxel_object({4, 4, 4}, kEdge, [](int i, int j, int k) { return i == j && j == k; });
  const voxel::VoxelHierarchy h = voxel::build_voxel_hierarchy(o.mesh, o.cells);
  const std::vector<voxel::VoxelPiece> pieces =
      voxel::voxel_pieces(h, std::vector<std::uint8_t>(h.levels[0].vertices, 0));
  ASSERT_EQ(pieces.size(), 1u);
  EXPECT_EQ(pieces[0].voxels, 4);
  EXPECT_FALSE(pieces[0].supported);
  // One free body: said so, without the advice to remove it.
  const std::vector<std::string> lines =
      voxel::loose_piece_warnings(pieces, [](std::int32_t v) { return v; });
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_NE(lines[0].find("the voxel body (4 voxels in"), std::string::npos) << lines[0];
  EXPECT_NE(lines[0].find("floats freely"), std::string::npos) << lines[0];
  EXPECT_EQ(lines[0].find("mesh.labels"), std::string::npos) << lines[0];
}

TEST(VoxelPieces, ManyLoosePiecesAreListedUpToTheLimitThenCounted) {
  // Eight single voxels two apart, none held.
  const VoxelObject o = voxel_object({16, 1, 1}, kEdge, [](int i, int, int) { return i % 2 == 0; });
  const voxel::VoxelHierarchy h = voxel::build_voxel_hierarchy(o.mesh, o.cells);
  const std::vector<voxel::VoxelPiece> pieces =
      voxel::voxel_pieces(h, std::vector<std::uint8_t>(h.levels[0].vertices, 0));
  ASSERT_EQ(pieces.size(), 8u);
  const std::vector<std::string> lines = voxel::loose_piece_warnings(
      pieces, [](std::int32_t v) { return v; }, 5);
  ASSERT_EQ(lines.size(), 6u);
  EXPECT_NE(lines[0].find("(8 of 8 pieces loose)"), std::string::npos) << lines[0];
  EXPECT_NE(lines[5].find("3 more loose voxel pieces (3 voxels)"), std::string::npos) << lines[5];
}

}  // namespace
}  // namespace fem::test
