// Voxel meshes: the `voxels` generator's shapes, and voxel_mesh() / downsample() on label
// lattices (the conventions of fem/mesh/voxels.hpp: nodes on the lattice, none unused, numbered
// lexicographically; one region per label).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numbers>
#include <queue>
#include <set>
#include <string>
#include <vector>

#include <fem/mesh/generators.hpp>
#include <fem/mesh/voxels.hpp>

#include "mesh/mesh_checks.hpp"

namespace fem {
namespace {

MeshSpec voxels(const std::string& shape, std::array<int, 3> divisions,
                std::array<double, 3> size = {0.32, 0.32, 0.32}) {
  MeshSpec s;
  s.generator = "voxels";
  s.shape = shape;
  s.size = size;
  s.origin = {-0.1, 0.25, 1.0};
  s.divisions = divisions;
  return s;
}

std::array<double, 3> spacing(const MeshSpec& s) {
  return {s.size[0] / s.divisions[0], s.size[1] / s.divisions[1], s.size[2] / s.divisions[2]};
}

/// The lattice coordinates of node n, checking that the node lies exactly on the lattice.
std::array<std::int64_t, 3> lattice_point(const Mesh& mesh, std::int32_t n,
                                          const std::array<double, 3>& origin,
                                          const std::array<double, 3>& h) {
  std::array<std::int64_t, 3> ijk{};
  for (int d = 0; d < 3; ++d) {
    const double x = mesh.coords[3 * n + d];
    ijk[d] = std::llround((x - origin[d]) / h[d]);
    EXPECT_EQ(x, origin[d] + static_cast<double>(ijk[d]) * h[d]) << "node " << n << " axis " << d;
  }
  return ijk;
}

std::int64_t cells(const Mesh& mesh) {
  std::int64_t n = 0;
  for (const CellRegion& r : mesh.regions) n += r.num_cells();
  return n;
}

TEST(VoxelGenerator, BoxShapeFillsEveryVoxel) {
  const MeshSpec s = voxels("box", {3, 4, 5}, {0.3, 0.4, 0.5});
  const Mesh mesh = generate_mesh(s);
  ASSERT_EQ(mesh.regions.size(), 1u);
  EXPECT_EQ(mesh.regions[0].name, "domain");
  EXPECT_EQ(mesh.regions[0].shape, CellShape::Hex8);
  EXPECT_EQ(mesh.regions[0].num_cells(), 60);
  EXPECT_EQ(mesh.num_nodes(), 4 * 5 * 6);
  // Every hexahedron is a positive cube of edge 0.1 in VTK order.
  const CellRegion& r = mesh.regions[0];
  for (std::int64_t c = 0; c < r.num_cells(); ++c) {
    EXPECT_NEAR(test::hex_volume(mesh, r.connectivity.data() + 8 * c), 1e-3, 1e-15);
    EXPECT_NEAR(test::hex_min_scaled_jacobian(mesh, r.connectivity.data() + 8 * c), 1.0, 1e-12);
  }
}

TEST(VoxelGenerator, SphereVolumeApproachesTheBall) {
  const MeshSpec s = voxels("sphere", {32, 32, 32});
  const Mesh mesh = generate_mesh(s);
  const double h = s.size[0] / 32, r = s.size[0] / 2;
  const double volume = static_cast<double>(cells(mesh)) * h * h * h;
  const double ball = 4.0 / 3.0 * std::numbers::pi * r * r * r;
  EXPECT_NEAR(volume / ball, 1.0, 0.03);
  // Inscribed: the extreme voxels touch the box's faces.
  const auto b = mesh.bounds();
  for (int d = 0; d < 3; ++d) {
    EXPECT_DOUBLE_EQ(b[0][d], s.origin[d]);
    EXPECT_NEAR(b[1][d], s.origin[d] + s.size[d], 1e-12);
  }
}

TEST(VoxelGenerator, NodesLieOnTheLatticeUsedAndInLexicographicOrder) {
  for (const std::string shape : {"sphere", "torus", "blob", "box"}) {
    const MeshSpec s = voxels(shape, {12, 10, 9}, {0.24, 0.2, 0.18});
    const Mesh mesh = generate_mesh(s);
    const std::array<double, 3> h = spacing(s);
    std::vector<int> used(static_cast<std::size_t>(mesh.num_nodes()), 0);
    for (const CellRegion& r : mesh.regions)
      for (std::int64_t c = 0; c < r.num_cells(); ++c) {
        const std::int32_t* hex = r.connectivity.data() + 8 * c;
        // A voxel's corners in VTK order: i, j, k offsets of the unit cube's corners.
        const auto base = lattice_point(mesh, hex[0], s.origin, h);
        for (int a = 0; a < 8; ++a) {
          ++used[static_cast<std::size_t>(hex[a])];
          const auto p = lattice_point(mesh, hex[a], s.origin, h);
          for (int d = 0; d < 3; ++d)
            EXPECT_EQ(p[d] - base[d], (test::kHexRef[a][d] + 1) / 2) << shape << " cell " << c;
        }
      }
    EXPECT_EQ(std::count(used.begin(), used.end(), 0), 0) << shape << ": unused nodes";
    std::int64_t previous = -1;
    for (std::int32_t n = 0; n < mesh.num_nodes(); ++n) {
      const auto p = lattice_point(mesh, n, s.origin, h);
      const std::int64_t index = p[0] + 13 * (p[1] + 11 * p[2]);
      EXPECT_GT(index, previous) << shape << ": node " << n << " out of lattice order";
      previous = index;
    }
  }
}

TEST(VoxelGenerator, TorusHasItsHoleAndIsSymmetric) {
  const MeshSpec s = voxels("torus", {20, 20, 6}, {0.2, 0.2, 0.06});
  const VoxelLattice lattice = shape_lattice(s.shape, s.size, s.origin, s.divisions);
  // The axis passes through the hole; the tube's centre circle (rho = 0.7) is filled.
  EXPECT_EQ(lattice.labels[lattice.index(10, 10, 3)], 0);
  EXPECT_EQ(lattice.labels[lattice.index(16, 10, 3)], 1);  // p = (0.65, 0.05, 0.17)
  for (std::int64_t k = 0; k < 6; ++k)
    for (std::int64_t j = 0; j < 20; ++j)
      for (std::int64_t i = 0; i < 20; ++i) {
        const std::int32_t v = lattice.labels[lattice.index(i, j, k)];
        EXPECT_EQ(v, lattice.labels[lattice.index(19 - i, j, k)]);
        EXPECT_EQ(v, lattice.labels[lattice.index(j, i, k)]);
        EXPECT_EQ(v, lattice.labels[lattice.index(i, j, 5 - k)]);
      }
}

TEST(VoxelGenerator, BlobIsOnePieceThatIsNotSymmetricInX) {
  const MeshSpec s = voxels("blob", {32, 32, 32});
  const VoxelLattice lattice = shape_lattice(s.shape, s.size, s.origin, s.divisions);
  // Voxels joined by faces, from the first filled one.
  std::vector<char> seen(lattice.labels.size(), 0);
  const auto first = std::find(lattice.labels.begin(), lattice.labels.end(), 1);
  ASSERT_NE(first, lattice.labels.end());
  std::queue<std::int64_t> todo;
  todo.push(first - lattice.labels.begin());
  seen[static_cast<std::size_t>(todo.front())] = 1;
  std::int64_t reached = 0;
  while (!todo.empty()) {
    const std::int64_t v = todo.front();
    todo.pop();
    ++reached;
    const std::int64_t i = v % 32, j = v / 32 % 32, k = v / 1024;
    for (const auto& [di, dj, dk] : {std::array<int, 3>{1, 0, 0}, std::array<int, 3>{-1, 0, 0},
                                     std::array<int, 3>{0, 1, 0}, std::array<int, 3>{0, -1, 0},
                                     std::array<int, 3>{0, 0, 1}, std::array<int, 3>{0, 0, -1}}) {
      const std::int64_t a = i + di, b = j + dj, c = k + dk;
      if (a < 0 || b < 0 || c < 0 || a >= 32 || b >= 32 || c >= 32) continue;
      const std::int64_t w = lattice.index(a, b, c);
      if (lattice.labels[w] != 1 || seen[w]) continue;
      seen[w] = 1;
      todo.push(w);
    }
  }
  const Mesh mesh = generate_mesh(s);
  EXPECT_EQ(reached, cells(mesh));
  EXPECT_GT(reached, 3000);  // about an eighth of the box
  std::int64_t mirrored = 0;
  for (std::int64_t k = 0; k < 32; ++k)
    for (std::int64_t j = 0; j < 32; ++j)
      for (std::int64_t i = 0; i < 32; ++i)
        mirrored +=
            lattice.labels[lattice.index(i, j, k)] != lattice.labels[lattice.index(31 - i, j, k)];
  EXPECT_GT(mirrored, 100);
}

TEST(VoxelGenerator, RefusesWhatItCannotMake) {
  const auto error = [](const MeshSpec& s) {
    try {
      (void)generate_mesh(s);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(error(voxels("torus", {1, 1, 1})).find("no voxel centre lies inside the torus"),
            std::string::npos);
  EXPECT_NE(error(voxels("bunny", {4, 4, 4})).find("unknown voxel shape 'bunny'"),
            std::string::npos);
  MeshSpec tets = voxels("box", {2, 2, 2});
  tets.cells = CellShape::Tet4;
  EXPECT_NE(error(tets).find("the voxels generator makes hex8 cells"), std::string::npos);
  EXPECT_NE(error(voxels("box", {2, 0, 2})).find("mesh.divisions.y must be at least 1"),
            std::string::npos);
}

/// A 4 x 3 x 2 lattice: labels by hand, background 0.
VoxelLattice small_lattice() {
  VoxelLattice l;
  l.dims = {4, 3, 2};
  l.origin = {1.0, 2.0, 3.0};
  l.spacing = {0.5, 0.25, 0.125};
  l.labels = {
      1, 1, 0, 2,  //
      1, 1, 0, 2,  //
      0, 0, 0, 2,  // k = 0
      1, 0, 0, 0,  //
      0, 0, 0, 0,  //
      0, 0, 2, 2,  // k = 1
  };
  return l;
}

TEST(VoxelMesh, OneRegionPerLabelSharingNodes) {
  const Mesh mesh = voxel_mesh(small_lattice());
  ASSERT_EQ(mesh.regions.size(), 2u);
  EXPECT_EQ(mesh.regions[0].name, "label_1");
  EXPECT_EQ(mesh.regions[1].name, "label_2");
  EXPECT_EQ(mesh.regions[0].num_cells(), 5);
  EXPECT_EQ(mesh.regions[1].num_cells(), 5);
  // Lattice nodes touched by a filled voxel, counted independently of voxel_mesh.
  const VoxelLattice l = small_lattice();
  std::set<std::int64_t> corners;
  for (std::int64_t k = 0; k < 2; ++k)
    for (std::int64_t j = 0; j < 3; ++j)
      for (std::int64_t i = 0; i < 4; ++i)
        if (l.labels[l.index(i, j, k)] != 0)
          for (int a = 0; a < 8; ++a)
            corners.insert((i + a % 2) + 5 * ((j + a / 2 % 2) + 4 * (k + a / 4)));
  EXPECT_EQ(mesh.num_nodes(), static_cast<std::int64_t>(corners.size()));
  // The first node is the lattice's corner (0, 0, 0) below voxel (0, 0, 0), exactly.
  EXPECT_EQ(mesh.coords[0], 1.0);
  EXPECT_EQ(mesh.coords[1], 2.0);
  EXPECT_EQ(mesh.coords[2], 3.0);
  // Cells of a region in lattice order: label_2's first is voxel (3, 0, 0).
  EXPECT_DOUBLE_EQ(mesh.coords[3 * mesh.regions[1].connectivity[0]], 1.0 + 3 * 0.5);
}

TEST(VoxelMesh, AllBackgroundGivesAnEmptyMesh) {
  VoxelLattice l = small_lattice();
  std::fill(l.labels.begin(), l.labels.end(), 7);
  l.background = 7;
  const Mesh mesh = voxel_mesh(l);
  EXPECT_TRUE(mesh.regions.empty());
  EXPECT_EQ(mesh.num_nodes(), 0);
}

TEST(VoxelMesh, KeepLabelsAndCounts) {
  VoxelLattice l = small_lattice();
  EXPECT_EQ(label_counts(l), (std::map<std::int32_t, std::int64_t>{{1, 5}, {2, 5}}));
  keep_labels(l, {2});
  EXPECT_EQ(label_counts(l), (std::map<std::int32_t, std::int64_t>{{2, 5}}));
  const Mesh mesh = voxel_mesh(l);
  ASSERT_EQ(mesh.regions.size(), 1u);
  EXPECT_EQ(mesh.regions[0].name, "label_2");
}

TEST(Downsample, HalfABlockMakesAVoxelOfItsMostFrequentLabel) {
  // Blocks of 2 x 2 x 2 over 4 x 3 x 2 voxels: 2 x 2 x 1 blocks, the second row cut by the far
  // face (its missing voxels count as background).
  const VoxelLattice out = downsample(small_lattice(), 2);
  EXPECT_EQ(out.dims, (std::array<std::int64_t, 3>{2, 2, 1}));
  EXPECT_EQ(out.spacing, (std::array<double, 3>{1.0, 0.5, 0.25}));
  EXPECT_EQ(out.origin, (std::array<double, 3>{1.0, 2.0, 3.0}));
  // Block (0, 0): five 1s of 8: label 1. Block (1, 0): 2, 2 below, nothing above: 2 of 8.
  // Block (0, 1): no foreground. Block (1, 1): 2 below, 2, 2 above: 3 of the 8 (4 missing).
  EXPECT_EQ(out.labels, (std::vector<std::int32_t>{1, 0, 0, 0}));

  VoxelLattice tie;
  tie.dims = {2, 2, 2};
  tie.labels = {3, 3, 2, 2, 0, 0, 0, 0};
  EXPECT_EQ(downsample(tie, 2).labels, (std::vector<std::int32_t>{2}));  // 2 x 3, 2 x 2: smallest
  tie.labels = {3, 3, 3, 2, 0, 0, 0, 0};
  EXPECT_EQ(downsample(tie, 2).labels, (std::vector<std::int32_t>{3}));
  tie.labels = {3, 3, 0, 2, 0, 0, 0, 0};  // 3 of 8: less than half
  EXPECT_EQ(downsample(tie, 2).labels, (std::vector<std::int32_t>{0}));
  EXPECT_EQ(downsample(tie, 1).labels, tie.labels);
}

}  // namespace
}  // namespace fem
