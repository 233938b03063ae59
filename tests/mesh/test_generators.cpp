// Built-in box and cylinder generators: counts, volumes, cell validity, conformity, distortion.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <map>
#include <numbers>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <fem/mesh/generators.hpp>

#include "mesh/mesh_checks.hpp"

namespace fem {
namespace {

using test::point;
using test::Vec3;

MeshSpec box(int nx, int ny, int nz, CellShape cells = CellShape::Hex8) {
  MeshSpec s;
  s.generator = "box";
  s.cells = cells;
  s.size = {0.3, 0.2, 0.1};
  s.origin = {-0.1, 0.5, 2.0};
  s.divisions = {nx, ny, nz};
  return s;
}

MeshSpec cylinder(int circumferential, int radial, int axial, CellShape cells = CellShape::Hex8) {
  MeshSpec s;
  s.generator = "cylinder";
  s.cells = cells;
  s.origin = {0.2, -0.1, 0.5};
  s.radius = 0.05;
  s.height = 0.12;
  s.circumferential_divisions = circumferential;
  s.radial_divisions = radial;
  s.axial_divisions = axial;
  return s;
}

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

/// Smallest hexahedron scaled Jacobian or tetrahedron volume of the mesh (<= 0: invalid).
double worst_cell(const Mesh& mesh) {
  const CellRegion& r = mesh.regions.at(0);
  double worst = 1e300;
  for (std::int64_t c = 0; c < r.num_cells(); ++c) {
    const std::int32_t* cell = r.connectivity.data() + c * r.nodes_per_cell;
    worst = std::min(worst, r.shape == CellShape::Tet4 ? test::tet_volume(mesh, cell)
                                                       : test::hex_min_scaled_jacobian(mesh, cell));
  }
  return worst;
}

bool on_box_boundary(const MeshSpec& s, const Vec3& x) {
  for (int k = 0; k < 3; ++k)
    if (std::abs(x[k] - s.origin[k]) < 1e-12 || std::abs(x[k] - s.origin[k] - s.size[k]) < 1e-12)
      return true;
  return false;
}

double radial_distance(const MeshSpec& s, const Vec3& x) {
  return std::hypot(x[0] - s.origin[0], x[1] - s.origin[1]);
}

bool on_cylinder_boundary(const MeshSpec& s, const Vec3& x) {
  return std::abs(radial_distance(s, x) - s.radius) < 1e-12 * s.radius ||
         std::abs(x[2] - s.origin[2]) < 1e-12 || std::abs(x[2] - s.origin[2] - s.height) < 1e-12;
}

/// Every face of the mesh is used by one cell (then it must lie on the boundary) or two.
template <std::size_t N, class OnBoundary>
void expect_conforming(const Mesh& mesh, const test::FaceCount<N>& faces, OnBoundary on_boundary,
                       std::int64_t expected_boundary_faces) {
  std::int64_t boundary = 0;
  for (const auto& [face, count] : faces) {
    ASSERT_TRUE(count == 1 || count == 2) << "face used by " << count << " cells";
    if (count == 1) {
      ++boundary;
      for (std::int32_t n : face)
        ASSERT_TRUE(on_boundary(point(mesh, n))) << "hanging face at node " << n;
    }
  }
  EXPECT_EQ(boundary, expected_boundary_faces);
}

TEST(BoxGenerator, Hex8CountsNumberingAndExactVolume) {
  const MeshSpec s = box(3, 4, 2);
  const Mesh m = generate_mesh(s);
  ASSERT_EQ(m.regions.size(), 1u);
  EXPECT_EQ(m.regions[0].name, "domain");
  EXPECT_EQ(m.regions[0].shape, CellShape::Hex8);
  EXPECT_EQ(m.num_nodes(), 4 * 5 * 3);
  EXPECT_EQ(m.regions[0].num_cells(), 3 * 4 * 2);
  // x fastest, then y, then z.
  EXPECT_NEAR(m.node(1)[0] - m.node(0)[0], 0.1, 1e-15);
  EXPECT_NEAR(m.node(4)[1] - m.node(0)[1], 0.05, 1e-15);
  EXPECT_NEAR(m.node(20)[2] - m.node(0)[2], 0.05, 1e-15);
  const auto b = m.bounds();
  for (int k = 0; k < 3; ++k) {
    EXPECT_EQ(b[0][k], s.origin[k]);
    EXPECT_DOUBLE_EQ(b[1][k], s.origin[k] + s.size[k]);
  }
  EXPECT_NEAR(test::total_volume(m), 0.3 * 0.2 * 0.1, 1e-15);
  // First cell in VTK order: the unit-cube pattern scaled to the cell.
  const std::int32_t* c = m.regions[0].connectivity.data();
  EXPECT_EQ((std::vector<std::int32_t>(c, c + 8)),
            (std::vector<std::int32_t>{0, 1, 5, 4, 20, 21, 25, 24}));
  EXPECT_NEAR(worst_cell(m), 1.0, 1e-12);
}

TEST(BoxGenerator, Hex8IsConforming) {
  const MeshSpec s = box(3, 4, 2);
  const Mesh m = generate_mesh(s);
  expect_conforming(
      m, test::hex_faces(m.regions[0]), [&](const Vec3& x) { return on_box_boundary(s, x); },
      2 * (3 * 4 + 4 * 2 + 3 * 2));
}

TEST(BoxGenerator, Tet4IsKuhnSplitConformingAndPositive) {
  const MeshSpec s = box(3, 4, 2, CellShape::Tet4);
  const Mesh m = generate_mesh(s);
  ASSERT_EQ(m.regions.size(), 1u);
  EXPECT_EQ(m.regions[0].shape, CellShape::Tet4);
  EXPECT_EQ(m.regions[0].nodes_per_cell, 4);
  EXPECT_EQ(m.num_nodes(), 4 * 5 * 3);
  EXPECT_EQ(m.regions[0].num_cells(), 6 * 3 * 4 * 2);
  EXPECT_GT(worst_cell(m), 0.0);
  EXPECT_NEAR(test::total_volume(m), 0.3 * 0.2 * 0.1, 1e-15);
  // Kuhn split: each of the first hexahedron's 6 tetrahedra contains its main diagonal, from
  // local node 0 (global 0) to local node 6 (global 1 + 4 + 20 = 25).
  for (int t = 0; t < 6; ++t) {
    const auto* tet = m.regions[0].connectivity.data() + 4 * t;
    EXPECT_TRUE(std::count(tet, tet + 4, 0) == 1 && std::count(tet, tet + 4, 25) == 1)
        << "tet " << t;
  }
  // Each boundary quad becomes two triangles.
  expect_conforming(
      m, test::tet_faces(m.regions[0]), [&](const Vec3& x) { return on_box_boundary(s, x); },
      2 * 2 * (3 * 4 + 4 * 2 + 3 * 2));
}

TEST(BoxGenerator, QuadraticCellsAreTheLinearOnesWithSharedMidEdgeNodes) {
  // Edges of the linear cell in the VTK order of the quadratic cell's mid-edge nodes.
  const std::vector<std::array<int, 2>> tet_edges = {{0, 1}, {1, 2}, {2, 0},
                                                     {0, 3}, {1, 3}, {2, 3}};
  const std::vector<std::array<int, 2>> hex_edges = {{0, 1}, {1, 2}, {2, 3}, {3, 0},
                                                     {4, 5}, {5, 6}, {6, 7}, {7, 4},
                                                     {0, 4}, {1, 5}, {2, 6}, {3, 7}};
  for (const auto& [linear, quadratic, edges] :
       {std::tuple{CellShape::Tet4, CellShape::Tet10, tet_edges},
        std::tuple{CellShape::Hex8, CellShape::Hex20, hex_edges}})
    for (const double distortion : {0.0, 0.2}) {
      SCOPED_TRACE(std::string(to_string(quadratic)) + ", distortion " +
                   std::to_string(distortion));
      MeshSpec sl = box(3, 4, 2, linear), sq = box(3, 4, 2, quadratic);
      sl.distortion = sq.distortion = distortion;
      const Mesh ml = generate_mesh(sl), mq = generate_mesh(sq);
      ASSERT_EQ(mq.regions.size(), 1u);
      const CellRegion& r = mq.regions[0];
      const int corners_per_cell = nodes_per_cell(linear);
      EXPECT_EQ(r.shape, quadratic);
      EXPECT_EQ(r.nodes_per_cell, corners_per_cell + static_cast<int>(edges.size()));
      ASSERT_EQ(r.num_cells(), ml.regions[0].num_cells());
      // The corner nodes are the linear mesh's, unchanged; one new node per distinct edge.
      const std::int64_t corners = ml.num_nodes();
      std::map<std::pair<std::int32_t, std::int32_t>, std::int32_t> mid_of_edge;
      for (std::int64_t c = 0; c < r.num_cells(); ++c) {
        const std::int32_t* q = r.connectivity.data() + r.nodes_per_cell * c;
        const std::int32_t* l = ml.regions[0].connectivity.data() + corners_per_cell * c;
        for (int a = 0; a < corners_per_cell; ++a) ASSERT_EQ(q[a], l[a]);
        for (std::size_t e = 0; e < edges.size(); ++e) {
          const std::int32_t a = q[edges[e][0]], b = q[edges[e][1]], m = q[corners_per_cell + e];
          ASSERT_GE(m, corners);
          const auto key = std::minmax(a, b);
          // Shared: every cell around the edge uses the same node.
          const auto [it, inserted] = mid_of_edge.emplace(key, m);
          ASSERT_EQ(it->second, m) << "edge " << a << "-" << b << " has two mid nodes";
          // Straight edges: exactly the midpoint.
          EXPECT_EQ((point(mq, m) - 0.5 * (point(mq, a) + point(mq, b))).norm(), 0.0);
        }
      }
      EXPECT_EQ(mq.num_nodes(), corners + static_cast<std::int64_t>(mid_of_edge.size()));
      for (std::int64_t n = 0; n < corners; ++n) ASSERT_EQ(point(mq, n), point(ml, n));
      // Mid-edge nodes of boundary edges lie exactly on the boundary (plane selectors find them).
      std::int64_t on_boundary = 0;
      for (std::int64_t n = corners; n < mq.num_nodes(); ++n)
        on_boundary += on_box_boundary(sq, point(mq, static_cast<std::int32_t>(n)));
      EXPECT_GT(on_boundary, 0);
    }
  // 3 x 4 x 2 hexahedra: 4 x 5 x 3 corners and, along x, y and z, 3 * 5 * 3, 4 * 4 * 3 and
  // 4 * 5 * 2 edges.
  const Mesh m20 = generate_mesh(box(3, 4, 2, CellShape::Hex20));
  const std::int64_t edges_x = 3 * 5 * 3, edges_y = 4 * 4 * 3, edges_z = 2 * 4 * 5;
  EXPECT_EQ(m20.num_nodes(), 4 * 5 * 3 + edges_x + edges_y + edges_z);
}

TEST(CylinderGenerator, CountsAndOuterNodesOnTheCircle) {
  const MeshSpec s = cylinder(16, 3, 5);
  const Mesh m = generate_mesh(s);
  const int core = 4 + 1;
  EXPECT_EQ(m.num_nodes(), (core * core + 3 * 16) * 6);
  EXPECT_EQ(m.regions[0].num_cells(), (4 * 4 + 3 * 16) * 5);
  int lateral = 0;
  for (std::int32_t n = 0; n < m.num_nodes(); ++n) {
    const double r = radial_distance(s, point(m, n));
    EXPECT_LE(r, s.radius * (1 + 1e-14));
    lateral += std::abs(r - s.radius) < 1e-14 * s.radius;
  }
  EXPECT_EQ(lateral, 16 * 6);
  const auto b = m.bounds();
  EXPECT_DOUBLE_EQ(b[0][2], s.origin[2]);
  EXPECT_DOUBLE_EQ(b[1][2], s.origin[2] + s.height);
  EXPECT_NEAR(b[0][0], s.origin[0] - s.radius, 1e-15);
  EXPECT_NEAR(b[1][1], s.origin[1] + s.radius, 1e-15);
}

TEST(CylinderGenerator, CellsAreWellShapedAtEveryResolution) {
  const std::pair<int, int> resolutions[] = {{4, 1},  {8, 1},  {8, 6},  {16, 1}, {16, 4},
                                             {32, 3}, {64, 8}, {12, 2}, {20, 10}};
  for (const auto& [nc, nr] : resolutions) {
    const Mesh m = generate_mesh(cylinder(nc, nr, 2));
    EXPECT_GT(worst_cell(m), 0.3) << nc << " x " << nr;
    const Mesh t = generate_mesh(cylinder(nc, nr, 2, CellShape::Tet4));
    EXPECT_GT(worst_cell(t), 0.0) << nc << " x " << nr;
  }
}

TEST(CylinderGenerator, VolumeIsTheInscribedPolygonPrismAndConverges) {
  // Straight-edged cells with outer nodes on the circle fill exactly the inscribed regular
  // polygon, so the volume is known in closed form; its error to pi r^2 h shrinks like 1/n^2.
  double previous_error = 1.0;
  for (int nc : {8, 16, 32, 64}) {
    const MeshSpec s = cylinder(nc, nc / 4, 3);
    const double polygon = nc / 2.0 * s.radius * s.radius * std::sin(2 * std::numbers::pi / nc);
    const double exact = std::numbers::pi * s.radius * s.radius * s.height;
    for (CellShape shape : {CellShape::Hex8, CellShape::Tet4}) {
      MeshSpec spec = s;
      spec.cells = shape;
      const double v = test::total_volume(generate_mesh(spec));
      EXPECT_NEAR(v, polygon * s.height, 1e-12 * exact) << nc;
    }
    const double error = 1 - polygon * s.height / exact;
    EXPECT_LT(error, previous_error) << nc;
    previous_error = error;
    if (nc == 16) {
      EXPECT_LT(error, 0.026);  // 2.55%: the 16-gon's own deficit
    }
    if (nc >= 32) {
      EXPECT_LT(error, 0.02);
    }
  }
}

TEST(CylinderGenerator, HexAndTetMeshesAreConforming) {
  const MeshSpec s = cylinder(16, 3, 2);
  const auto on_boundary = [&](const Vec3& x) { return on_cylinder_boundary(s, x); };
  // Boundary quads: two caps of (m^2 + n_r n_c) quads each, plus n_c n_a on the side.
  const std::int64_t quads = 2 * (4 * 4 + 3 * 16) + 16 * 2;
  const Mesh h = generate_mesh(s);
  expect_conforming(h, test::hex_faces(h.regions[0]), on_boundary, quads);

  MeshSpec ts = s;
  ts.cells = CellShape::Tet4;
  const Mesh t = generate_mesh(ts);
  EXPECT_EQ(t.regions[0].num_cells(), 6 * h.regions[0].num_cells());
  expect_conforming(t, test::tet_faces(t.regions[0]), on_boundary, 2 * quads);
}

// Distortion -----------------------------------------------------------------------------------

TEST(Distortion, BoxMovesOnlyInteriorNodesBoundedByCellSize) {
  MeshSpec s = box(4, 3, 5);
  const Mesh plain = generate_mesh(s);
  s.distortion = 0.2;
  const Mesh d = generate_mesh(s);
  ASSERT_EQ(d.num_nodes(), plain.num_nodes());
  EXPECT_EQ(d.regions[0].connectivity, plain.regions[0].connectivity);
  const double h = std::min({0.3 / 4, 0.2 / 3, 0.1 / 5});
  int interior = 0, moved = 0;
  double largest = 0;
  for (std::int32_t n = 0; n < d.num_nodes(); ++n) {
    const Vec3 x0 = point(plain, n), x = point(d, n);
    if (on_box_boundary(s, x0)) {
      EXPECT_EQ(x, x0) << "boundary node " << n << " moved";
      continue;
    }
    ++interior;
    moved += x != x0;
    largest = std::max(largest, (x - x0).norm());
  }
  EXPECT_EQ(interior, 3 * 2 * 4);
  EXPECT_EQ(moved, interior);
  EXPECT_LE(largest, 0.2 * h * (1 + 1e-12));
  EXPECT_GT(largest, 0.05 * h);  // the perturbation is not negligible
}

TEST(Distortion, CylinderKeepsLateralSurfaceAndCaps) {
  MeshSpec s = cylinder(16, 4, 4);
  const Mesh plain = generate_mesh(s);
  s.distortion = 0.2;
  const Mesh d = generate_mesh(s);
  int interior = 0, moved = 0;
  for (std::int32_t n = 0; n < d.num_nodes(); ++n) {
    const Vec3 x0 = point(plain, n), x = point(d, n);
    if (on_cylinder_boundary(s, x0)) {
      EXPECT_EQ(x, x0) << "boundary node " << n << " moved";
      continue;
    }
    ++interior;
    moved += x != x0;
    EXPECT_LT(radial_distance(s, x), s.radius);
  }
  EXPECT_EQ(interior, (5 * 5 + 3 * 16) * 3);
  EXPECT_GT(moved, interior * 9 / 10);
}

TEST(Distortion, CellsStayValidForManySeeds) {
  for (unsigned seed = 1; seed <= 6; ++seed)
    for (CellShape shape : {CellShape::Hex8, CellShape::Tet4}) {
      MeshSpec b = box(4, 4, 4, shape);
      b.distortion = 0.2;
      b.seed = seed;
      EXPECT_GT(worst_cell(generate_mesh(b)), 0.0) << "box seed " << seed;
      MeshSpec c = cylinder(16, 4, 3, shape);
      c.distortion = 0.2;
      c.seed = seed;
      EXPECT_GT(worst_cell(generate_mesh(c)), 0.0) << "cylinder seed " << seed;
    }
}

TEST(Distortion, LargestAllowedDistortionStillGivesValidCells) {
  // 0.299 is at the limit where random moves can invert cells; the generator must shorten them.
  for (unsigned seed = 1; seed <= 4; ++seed) {
    MeshSpec c = cylinder(8, 6, 3, CellShape::Tet4);
    c.distortion = 0.299;
    c.seed = seed;
    EXPECT_GT(worst_cell(generate_mesh(c)), 0.0) << seed;
    MeshSpec b = box(5, 2, 3);
    b.distortion = 0.299;
    b.seed = seed;
    EXPECT_GT(worst_cell(generate_mesh(b)), 0.0) << seed;
  }
}

TEST(Distortion, SameSeedSameMeshOtherSeedOtherMesh) {
  MeshSpec s = cylinder(12, 2, 3, CellShape::Tet4);
  s.distortion = 0.15;
  s.seed = 42;
  const Mesh a = generate_mesh(s);
  const Mesh b = generate_mesh(s);
  EXPECT_EQ(a.coords, b.coords);
  EXPECT_EQ(a.regions[0].connectivity, b.regions[0].connectivity);
  s.seed = 43;
  EXPECT_NE(generate_mesh(s).coords, a.coords);
}

TEST(Distortion, TetAndHexMeshesShareTheirNodes) {
  // The tetrahedra are cut from the distorted hexahedra's nodes, so switching cells keeps the
  // geometry (useful for comparing elements on one mesh).
  MeshSpec s = box(3, 3, 3);
  s.distortion = 0.1;
  const Mesh h = generate_mesh(s);
  s.cells = CellShape::Tet4;
  EXPECT_EQ(generate_mesh(s).coords, h.coords);
}

// Parameter errors -----------------------------------------------------------------------------

std::string error_of(const MeshSpec& s) {
  try {
    generate_mesh(s);
  } catch (const InputError& e) {
    EXPECT_EQ(e.where().line, 7);
    EXPECT_EQ(e.where().file, "case.yaml");
    return e.what();
  }
  return "";
}

TEST(GeneratorErrors, ImpossibleParametersAreInputErrors) {
  const SourceLocation where{"case.yaml", 7, 3};
  MeshSpec b = box(2, 2, 2);
  b.where = where;
  MeshSpec c = cylinder(16, 2, 2);
  c.where = where;

  MeshSpec s = b;
  s.size[1] = 0;
  EXPECT_TRUE(contains(error_of(s), "size.y")) << error_of(s);
  s = b;
  s.size[2] = -1;
  EXPECT_TRUE(contains(error_of(s), "size.z"));
  s = b;
  s.divisions[0] = 0;
  EXPECT_TRUE(contains(error_of(s), "divisions.x"));
  s = b;
  s.distortion = 0.3;
  EXPECT_TRUE(contains(error_of(s), "distortion")) << error_of(s);
  s = b;
  s.distortion = -0.1;
  EXPECT_TRUE(contains(error_of(s), "distortion"));
  s = b;
  s.cells = CellShape::Hex27;  // a shape no generator makes
  EXPECT_TRUE(contains(error_of(s), "hex27")) << error_of(s);
  s = b;
  s.generator = "cilinder";
  EXPECT_TRUE(contains(error_of(s), "did you mean 'cylinder'?")) << error_of(s);
  s = b;
  s.divisions = {5000, 5000, 5000};
  EXPECT_TRUE(contains(error_of(s), "32-bit")) << error_of(s);

  s = c;
  s.circumferential_divisions = 18;
  EXPECT_TRUE(contains(error_of(s), "multiple of 4")) << error_of(s);
  EXPECT_TRUE(contains(error_of(s), "try 20")) << error_of(s);
  s = c;
  s.circumferential_divisions = 0;
  EXPECT_TRUE(contains(error_of(s), "multiple of 4"));
  s = c;
  s.radius = 0;
  EXPECT_TRUE(contains(error_of(s), "radius"));
  s = c;
  s.height = -2;
  EXPECT_TRUE(contains(error_of(s), "height"));
  s = c;
  s.radial_divisions = 0;
  EXPECT_TRUE(contains(error_of(s), "radial_divisions"));
  s = c;
  s.axial_divisions = -1;
  EXPECT_TRUE(contains(error_of(s), "axial_divisions"));
}

TEST(GeneratorErrors, ThirtyTwoBitLimitCountsTheCellsOfTheShapeAskedFor) {
  // 650^3 hexahedra: 274,625,000 hex8 cells (2.2 G cell-node references: over 2^31 - 1). The
  // count once took six tetrahedra per hexahedron for hex8 too and refused boxes six times
  // smaller than the limit.
  MeshSpec s = box(650, 650, 650);
  s.where = {"case.yaml", 7, 3};
  s.cells = CellShape::Hex8;
  EXPECT_TRUE(contains(error_of(s),
                       "275894451 nodes and 274625000 hex8 cells (2197000000 "
                       "cell-node references), more than 32-bit ids can number"))
      << error_of(s);
  s.cells = CellShape::Tet4;
  EXPECT_TRUE(contains(error_of(s), "1647750000 tet4 cells")) << error_of(s);
  // A cylinder counts the same way: 16 x 8 section cells, 3,000,000 layers.
  MeshSpec c = cylinder(16, 8, 3000000);
  c.where = s.where;
  c.cells = CellShape::Hex8;
  EXPECT_TRUE(contains(error_of(c), " 432000000 hex8 cells")) << error_of(c);
}

TEST(RectangleGenerator, PlaneCellsCountsAreaAndCounterClockwiseOrder) {
  for (const CellShape shape : {CellShape::Tri3, CellShape::Quad4}) {
    MeshSpec s;
    s.generator = "rectangle";
    s.cells = shape;
    s.size = {0.3, 0.2, 0.0};
    s.origin = {-0.1, 0.5, 2.0};
    s.divisions = {6, 4, 0};
    const Mesh m = generate_mesh(s);
    EXPECT_EQ(m.dimension(), 2);
    EXPECT_EQ(m.num_nodes(), 7 * 5);
    ASSERT_EQ(m.regions.size(), 1u);
    const CellRegion& r = m.regions[0];
    EXPECT_EQ(r.shape, shape);
    EXPECT_EQ(r.num_cells(), shape == CellShape::Tri3 ? 48 : 24);
    double area = 0.0;
    for (std::int64_t c = 0; c < r.num_cells(); ++c) {
      double twice = 0.0;  // shoelace: positive when counter-clockwise seen from +z
      for (int a = 0; a < r.nodes_per_cell; ++a) {
        const Vec3 p = point(m, r.connectivity[c * r.nodes_per_cell + a]);
        const Vec3 q = point(m, r.connectivity[c * r.nodes_per_cell + (a + 1) % r.nodes_per_cell]);
        twice += p[0] * q[1] - q[0] * p[1];
      }
      EXPECT_GT(twice, 0.0) << "cell " << c;
      area += 0.5 * twice;
    }
    EXPECT_NEAR(area, 0.06, 1e-14);
    for (std::int64_t n = 0; n < m.num_nodes(); ++n) EXPECT_EQ(m.coords[3 * n + 2], 2.0);
    const auto box = m.bounds();
    EXPECT_DOUBLE_EQ(box[1][0], 0.2);
    EXPECT_DOUBLE_EQ(box[1][1], 0.7);
  }
}

TEST(RectangleGenerator, RefusesSolidCellsAndDistortion) {
  MeshSpec s;
  s.where = {"case.yaml", 7, 3};
  s.generator = "rectangle";
  s.cells = CellShape::Hex8;
  s.divisions = {2, 2, 0};
  EXPECT_TRUE(contains(error_of(s), "tri3 or quad4 cells, not hex8")) << error_of(s);
  s.cells = CellShape::Quad4;
  s.distortion = 0.1;
  EXPECT_TRUE(contains(error_of(s), "distortion applies to the box and cylinder")) << error_of(s);
}

}  // namespace
}  // namespace fem
