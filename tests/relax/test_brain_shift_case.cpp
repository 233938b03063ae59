// The shipped mixed-mesh brain-shift case (cases/brain_shift_mixed.yaml) as it stands: hexahedra,
// ANP and linear tetrahedra, a prescribed craniotomy displacement and frictionless contact with a
// triangulated skull, solved by dynamic relaxation.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include <fem/contact/rigid_surface.hpp>

#include "support/backend.hpp"
#include "support/case_runner.hpp"

namespace fem::test {
namespace {

TEST(BrainShiftCase, ConvergesInsideTheSkullWithTheForcesInBalance) {
  PreparedRun run =
      prepare_file(std::string(FEM_SOURCE_DIR) + "/cases/brain_shift_mixed.yaml", on_backend());
  const Mesh& mesh = run.model.mesh;
  ASSERT_EQ(run.model.blocks.size(), 4u);
  const ExplicitRunReport r = run_in_memory(run);
  ASSERT_TRUE(r.relaxation.converged);
  EXPECT_LT(r.steps, 2000);  // 780 measured: it stops by itself, well before max_iterations
  const auto u = displacement(run);

  // The craniotomy's centre ring moved as prescribed (8.2 mm), in all three components.
  for (const std::int32_t n : mesh.node_sets.at("exposed_1")) {
    EXPECT_NEAR(u[3 * n + 0], 0.00197, 1e-7) << "node " << n;
    EXPECT_NEAR(u[3 * n + 2], -0.00787, 1e-7) << "node " << n;
  }

  // No surface node outside the skull: projecting the final positions onto the skull moves
  // none by more than single-precision rounding of coordinates ~0.08 m.
  const RigidSurface& skull = run.solver->setup().system.surfaces.at(0);
  ASSERT_EQ(skull.kind, SurfaceKind::Triangles);
  const TriangleMesh& m = skull.mesh;
  const contact::TriangleView<double> view{m.vertices.data(),
                                           m.triangles.data(),
                                           m.face_normals.data(),
                                           m.edge_normals.data(),
                                           m.vertex_normals.data(),
                                           {m.grid_origin[0], m.grid_origin[1], m.grid_origin[2]},
                                           m.cell_size,
                                           {m.grid_dims[0], m.grid_dims[1], m.grid_dims[2]},
                                           m.cell_offsets.data(),
                                           m.cell_triangles.data()};
  double worst = 0.0, largest = 0.0;
  int near_skull = 0;
  for (const std::int32_t n : mesh.node_sets.at("surface")) {
    double x[3], moved[3];
    for (int i = 0; i < 3; ++i) x[i] = moved[i] = mesh.node(n)[i] + u[3 * n + i];
    contact::project_triangles(view, skull.side, moved);
    worst = std::max(worst, std::hypot(moved[0] - x[0], moved[1] - x[1], moved[2] - x[2]));
    largest = std::max(largest, std::hypot(u[3 * n], u[3 * n + 1], u[3 * n + 2]));
    // Within 0.1 mm of the skull's ellipsoid (semi-axes 81, 66, 56 mm): pressed against it.
    const double e = std::hypot(x[0] / 0.081, x[1] / 0.066, x[2] / 0.056);
    if (e > 1.0 - 0.1 / 81) ++near_skull;
  }
  EXPECT_LT(worst, 1e-6) << "m of penetration";
  EXPECT_NEAR(largest, 0.0082, 0.0002);  // the prescribed peak is the largest displacement
  // The run's report (summary.json's result.max_displacement_m) has it over all nodes.
  EXPECT_GE(r.max_displacement, largest - 1e-12);
  EXPECT_NEAR(r.max_displacement, 0.0082, 0.0002);
  EXPECT_GT(near_skull, 10) << "the brain does not reach the skull";

  // Equilibrium of the whole brain (no loads, no gravity): the internal forces sum to zero, so
  // the skull's force on the free nodes and the internal forces at the held base and at the
  // displaced patch (support_reaction) add up to zero, to the force tolerance.
  const auto base = support_reaction(run, "base");
  const auto exposed = support_reaction(run, "exposed");
  const auto& skull_force = r.contact_force.at(0);
  const double scale = std::hypot(exposed[0], exposed[1], exposed[2]);
  EXPECT_GT(std::hypot(skull_force[0], skull_force[1], skull_force[2]), 0.05 * scale);
  for (int i = 0; i < 3; ++i)
    EXPECT_NEAR(skull_force[i] + base[i] + exposed[i], 0.0, 0.02 * scale)
        << "component " << i << ": skull " << skull_force[i] << ", base " << base[i] << ", exposed "
        << exposed[i];
}

}  // namespace
}  // namespace fem::test
