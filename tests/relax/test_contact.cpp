// Rigid contact (seed 003, section 3.6): no node ends inside the surface, and the contact force
// balances the load (or the support reaction) at equilibrium.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include <fem/contact/triangle_mesh.hpp>

#include "support/backend.hpp"
#include "support/case_runner.hpp"

namespace fem::test {
namespace {

// A 2 cm block of soft neo-Hookean tissue resting on z = 0; the top face is held laterally.
const std::string kBlock = R"(
mesh: {generator: box, size: [0.02, 0.02, 0.02], origin: [-0.01, -0.01, 0], divisions: 4}
materials:
  tissue: {type: neo_hookean, density: 1000, youngs_modulus: 3000, poisson_ratio: 0.4}
blocks: [{element: hex8r, material: tissue}]
node_sets:
  bottom: {plane: {point: [0, 0, 0], normal: [0, 0, 1]}}
  top: {plane: {point: [0, 0, 0.02], normal: [0, 0, 1]}}
solver: {type: dynamic_relaxation, tolerance: 1.0e-8, force_tolerance: 1.0e-4}
)";

TEST(Contact, BlockPressedOnAPlaneCarriesTheLoad) {
  // The top is pushed down by nodal forces; the plane under the block holds it.
  PreparedRun run = prepare(kBlock + R"(
boundary_conditions: [{set: top, fixed: [x, y]}]
loads: [{set: top, force: [0, 0, -0.004]}]
contact: [{name: floor, type: plane, point: [0, 0, 0], normal: [0, 0, 1], set: bottom}]
)",
                            on_backend());
  const ExplicitRunReport r = run_in_memory(run);
  ASSERT_TRUE(r.relaxation.converged);
  const double load = 0.004 * static_cast<double>(run.model.mesh.node_sets.at("top").size());
  ASSERT_EQ(r.contact_force.size(), 1u);
  EXPECT_NEAR(r.contact_force[0][2] / load, 1.0, 0.01) << r.contact_force[0][2] << " N";
  EXPECT_NEAR(r.contact_force[0][0], 0.0, 1e-6 * load);  // frictionless: normal force only
  // No node below the plane, and the block really is compressed.
  const auto u = displacement(run);
  double min_z = 1.0, top_uz = 0.0;
  for (std::int64_t n = 0; n < run.model.mesh.num_nodes(); ++n)
    min_z = std::min(min_z, run.model.mesh.node(n)[2] + u[3 * n + 2]);
  for (const std::int32_t n : run.model.mesh.node_sets.at("top")) top_uz = u[3 * n + 2];
  EXPECT_GT(min_z, -1e-9);
  EXPECT_LT(top_uz, -1e-4);
}

TEST(Contact, BlockPressedOnASphereBalancesTheSupport) {
  // The top is moved down 2 mm onto a ball of radius 1 cm touching the bottom face's centre;
  // every boundary node is a contact node.
  PreparedRun run = prepare(kBlock + R"(
boundary_conditions: [{set: top, displacement: {x: 0, y: 0, z: -0.002}}]
contact: [{name: ball, type: sphere, center: [0, 0, -0.01], radius: 0.01}]
)",
                            on_backend());
  const ExplicitRunReport r = run_in_memory(run);
  ASSERT_TRUE(r.relaxation.converged);
  const auto support = support_reaction(run, "top");
  EXPECT_GT(r.contact_force[0][2], 0.01);  // the ball pushes up
  EXPECT_NEAR(r.contact_force[0][2] / -support[2], 1.0, 0.01)
      << r.contact_force[0][2] << " vs support " << support[2];
  const auto u = displacement(run);
  double min_distance = 1.0;
  for (std::int64_t n = 0; n < run.model.mesh.num_nodes(); ++n) {
    const auto x = run.model.mesh.node(n);
    const double d = std::hypot(x[0] + u[3 * n], x[1] + u[3 * n + 1], x[2] + u[3 * n + 2] + 0.01);
    min_distance = std::min(min_distance, d);
  }
  EXPECT_GT(min_distance, 0.01 * (1 - 1e-6));  // nothing inside the ball
  EXPECT_LT(min_distance, 0.01 * (1 + 1e-3));  // and it is in contact
}

/// An STL box [-h, h]^2 x [z0, z1] (12 triangles, outward), written ASCII or binary.
void write_box_stl(const std::string& path, double h, double z0, double z1, bool binary) {
  const double c[8][3] = {{-h, -h, z0}, {h, -h, z0}, {h, h, z0}, {-h, h, z0},
                          {-h, -h, z1}, {h, -h, z1}, {h, h, z1}, {-h, h, z1}};
  const int tris[12][3] = {{0, 2, 1}, {0, 3, 2}, {4, 5, 6}, {4, 6, 7}, {0, 1, 5}, {0, 5, 4},
                           {1, 2, 6}, {1, 6, 5}, {2, 3, 7}, {2, 7, 6}, {3, 0, 4}, {3, 4, 7}};
  std::ofstream out(path, std::ios::binary);
  if (binary) {
    out << std::string(80, ' ');
    const std::uint32_t count = 12;
    out.write(reinterpret_cast<const char*>(&count), 4);
    for (const auto& t : tris) {
      const float zero[3] = {0, 0, 0};
      out.write(reinterpret_cast<const char*>(zero), 12);
      for (const int v : t)
        for (int k = 0; k < 3; ++k) {
          const auto x = static_cast<float>(c[v][k]);
          out.write(reinterpret_cast<const char*>(&x), 4);
        }
      out.write("\0\0", 2);
    }
  } else {
    out << "solid box\n";
    for (const auto& t : tris) {
      out << " facet normal 0 0 0\n  outer loop\n";
      for (const int v : t)
        out << "   vertex " << c[v][0] << ' ' << c[v][1] << ' ' << c[v][2] << '\n';
      out << "  endloop\n endfacet\n";
    }
    out << "endsolid box\n";
  }
}

TEST(Contact, StlPlatformMatchesTheAnalyticPlane) {
  // The plane test again with the floor as the top face of an STL slab (ASCII and binary).
  const auto dir = std::filesystem::temp_directory_path() / "fem_test_contact_stl";
  std::filesystem::create_directories(dir);
  for (const bool binary : {false, true}) {
    const std::string path = (dir / (binary ? "slab_bin.stl" : "slab_ascii.stl")).string();
    write_box_stl(path, 0.03, -0.01, 0.0, binary);
    PreparedRun run = prepare(kBlock + R"(
boundary_conditions: [{set: top, fixed: [x, y]}]
loads: [{set: top, force: [0, 0, -0.004]}]
contact: [{name: slab, type: stl, file: )" +
                                  path + R"(, set: bottom}]
)",
                              on_backend());
    const ExplicitRunReport r = run_in_memory(run);
    ASSERT_TRUE(r.relaxation.converged) << (binary ? "binary" : "ascii");
    const double load = 0.004 * static_cast<double>(run.model.mesh.node_sets.at("top").size());
    EXPECT_NEAR(r.contact_force[0][2] / load, 1.0, 0.01) << (binary ? "binary" : "ascii");
    const auto u = displacement(run);
    for (const std::int32_t n : run.model.mesh.node_sets.at("bottom"))
      EXPECT_GT(u[3 * n + 2], -1e-7) << "node " << n;
  }
}

TEST(Contact, MeshFileSurfaceGroupMatchesTheAnalyticPlane) {
  // The floor as the physical surface "floor" of a Gmsh file (two triangles, normal +z).
  const auto dir = std::filesystem::temp_directory_path() / "fem_test_contact_stl";
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "floor.msh").string();
  std::ofstream(path) << R"($MeshFormat
2.2 0 8
$EndMeshFormat
$PhysicalNames
1
2 1 "floor"
$EndPhysicalNames
$Nodes
4
1 -0.03 -0.03 0
2 0.03 -0.03 0
3 0.03 0.03 0
4 -0.03 0.03 0
$EndNodes
$Elements
2
1 2 2 1 1 1 2 3
2 2 2 1 1 1 3 4
$EndElements
)";
  PreparedRun run = prepare(kBlock + R"(
boundary_conditions: [{set: top, fixed: [x, y]}]
loads: [{set: top, force: [0, 0, -0.004]}]
contact: [{name: floor, type: mesh, file: )" +
                                path + R"(, group: floor, set: bottom}]
)",
                            on_backend());
  const ExplicitRunReport r = run_in_memory(run);
  ASSERT_TRUE(r.relaxation.converged);
  const double load = 0.004 * static_cast<double>(run.model.mesh.node_sets.at("top").size());
  EXPECT_NEAR(r.contact_force[0][2] / load, 1.0, 0.01);
  const auto u = displacement(run);
  for (const std::int32_t n : run.model.mesh.node_sets.at("bottom"))
    EXPECT_GT(u[3 * n + 2], -1e-7) << "node " << n;
}

TEST(Contact, StlReaderReportsMalformedFiles) {
  const auto dir = std::filesystem::temp_directory_path() / "fem_test_contact_stl";
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "bad.stl").string();
  std::ofstream(path) << "solid bad\n facet normal 0 0 1\n  outer loop\n   vertex 0 0\n";
  try {
    read_stl(path);
    FAIL() << "accepted a malformed STL file";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(path + ":4:"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("a vertex needs three finite numbers"), std::string::npos)
        << e.what();
  }
  std::ofstream(path) << "neither ascii nor binary";
  EXPECT_THROW(read_stl(path), InputError);
}

TEST(Contact, ExplicitRunAgainstAMovingPlane) {
  // The explicit solver with the same contact: a plane moves up 2 mm into a block fixed at its
  // top; damped to rest, the plane's force equals the support reaction.
  PreparedRun run = prepare(R"(
mesh: {generator: box, size: [0.02, 0.02, 0.02], origin: [-0.01, -0.01, 0], divisions: 3}
materials:
  tissue: {type: neo_hookean, density: 1000, youngs_modulus: 3000, poisson_ratio: 0.4}
blocks: [{element: hex8r, material: tissue}]
node_sets:
  top: {plane: {point: [0, 0, 0.02], normal: [0, 0, 1]}}
  bottom: {plane: {point: [0, 0, 0], normal: [0, 0, 1]}}
boundary_conditions: [{set: top, fixed: all}]
contact:
  - {name: piston, type: plane, point: [0, 0, 0], normal: [0, 0, 1], set: bottom,
     displacement: [0, 0, 0.002], amplitude: {type: smooth_step, end: 0.3}}
solver: {end_time: 0.6, mass_damping: 150}
)",
                            on_backend());
  const ExplicitRunReport r = run_in_memory(run);
  const auto support = support_reaction(run, "top");
  EXPECT_GT(r.contact_force[0][2], 0.01);
  EXPECT_NEAR(r.contact_force[0][2] / -support[2], 1.0, 0.02)
      << r.contact_force[0][2] << " vs " << support[2];
  const auto u = displacement(run);
  for (const std::int32_t n : run.model.mesh.node_sets.at("bottom"))
    EXPECT_NEAR(u[3 * n + 2], 0.002, 1e-9) << "node " << n;  // on the moved plane
}

}  // namespace
}  // namespace fem::test
