// The averaged-nodal-pressure tetrahedron (tet4_anp, the improved ANP of seed 003): free of the
// volumetric locking of tet4 for a nearly incompressible block, and its nodal pressure shared
// across material interfaces. The patch test, energy conservation and single/double agreement
// cover it with every other element (support/element_types.hpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <map>
#include <numbers>
#include <utility>

#include "support/backend.hpp"
#include "support/case_runner.hpp"
#include "support/column_mesh.hpp"

namespace fem::test {
namespace {

constexpr double kWidth = 0.02, kHeight = 0.04, kPress = 0.004;  // 10 % compression

/// A 2:1 neo-Hookean block (nu = 0.49) clamped at its base and pressed down 10 % at its top,
/// which is free to move sideways: the clamped base forces a non-uniform, nearly isochoric
/// deformation (barrelling) that linear tetrahedra cannot follow without changing volume.
std::string block_case(const std::string& mesh, const std::string& blocks,
                       const std::string& materials) {
  return "mesh: " + mesh + R"(
materials:
)" + materials +
         R"(
blocks: )" +
         blocks + R"(
node_sets:
  bottom: {plane: {point: [0, 0, 0], normal: [0, 0, 1]}}
  top: {plane: {point: [0, 0, 0.04], normal: [0, 0, 1]}}
amplitudes:
  load: {type: smooth_step, start: 0, end: 1.0}
boundary_conditions:
  - {set: bottom, fixed: all}
  - {set: top, displacement: {z: -0.004}, amplitude: load}
solver: {end_time: 1.5, mass_damping: 30}
)";
}

/// The generated 0.02 x 0.02 x 0.04 box, nx x nx x 2nx cells.
std::string box_mesh(const std::string& cells, int nx) {
  const std::string d = std::to_string(nx), dz = std::to_string(2 * nx);
  return "{generator: box, cells: " + cells + ", size: [0.02, 0.02, 0.04], divisions: [" + d +
         ", " + d + ", " + dz + "]}";
}

const std::string kTissue =
    "  tissue: {type: neo_hookean, density: 1000, youngs_modulus: 3000, poisson_ratio: 0.49}";

/// Vertical force the top plate needs (N, positive in compression) at rest, by dynamic
/// relaxation (the static equilibrium itself, no leftover motion).
double press_force(const std::string& element, const std::string& cells, int nx, double nu) {
  std::string yaml =
      block_case(box_mesh(cells, nx), "[{element: " + element + ", material: tissue}]", kTissue);
  const std::string nu_key = "poisson_ratio: 0.49",
                    solver_key = "solver: {end_time: 1.5, mass_damping: 30}";
  yaml.replace(yaml.find(nu_key), nu_key.size(), "poisson_ratio: " + std::to_string(nu));
  yaml.replace(yaml.find(solver_key), solver_key.size(),
               "solver: {type: dynamic_relaxation, tolerance: 1.0e-10, force_tolerance: 1.0e-7}");
  PreparedRun run = prepare(yaml, on_backend({{"precision", "double"}}));
  run_in_memory(run);
  return -support_reaction(run, "top")[2];
}

TEST(AveragedNodalPressure, RemovesTheVolumetricLockingOfTet4) {
  // Converged hex8 references of this block (docs/architecture.md): one-point hexahedra on
  // 12x12x24 cubes, 0.1403 N at nu = 0.49 and 0.1415 N at nu = 0.499 (24x24x48 and Richardson
  // extrapolation of hex8r and of fully integrated hex8 agree within 0.2 % at 0.49).
  struct Case {
    double nu, reference;
  };
  const Case cases[2] = {{0.49, 0.14031}, {0.499, 0.14152}};
  double tet4_excess[2], anp_excess[2];
  for (int i = 0; i < 2; ++i) {
    const double tet4 = press_force("tet4", "tet4", 3, cases[i].nu);
    const double anp = press_force("tet4_anp", "tet4", 3, cases[i].nu);
    tet4_excess[i] = tet4 / cases[i].reference - 1;
    anp_excess[i] = anp / cases[i].reference - 1;
    std::printf(
        "[ anp ] nu %.3f press force: reference %.5f N, tet4 %.5f N (%+.1f %%), "
        "tet4_anp %.5f N (%+.1f %%)\n",
        cases[i].nu, cases[i].reference, tet4, 100 * tet4_excess[i], anp, 100 * anp_excess[i]);
  }
  // The hex8r on the same 3x3x6 nodes is within 1 % of the converged reference at nu = 0.49.
  EXPECT_NEAR(press_force("hex8r", "hex8", 3, 0.49) / cases[0].reference, 1.0, 0.01);
  // Plain tet4 locks: more than 10 % too stiff at nu = 0.49 (measured +16.9 %), and its excess
  // grows with the bulk modulus (+35.8 % at nu = 0.499).
  EXPECT_GT(tet4_excess[0], 0.10) << "plain tet4 should lock here (more than 10 % too stiff)";
  EXPECT_GT(tet4_excess[1], 1.8 * tet4_excess[0]);
  // tet4_anp does not lock: its excess (+5.3 %, +5.9 %) hardly moves from nu = 0.49 to 0.499 (kappa
  // x 10.2). What it keeps is the constant-strain tetrahedron's discretisation error at the
  // clamped base edges: it halves with the element size (+2.2 % on 6x6x12) and is +0.9 % at nu =
  // 0.3. The issue's 2 % and tet4's 10 % are not met on one mesh of this block: see
  // docs/architecture.md.
  EXPECT_LT(std::abs(anp_excess[0]), 0.06);
  EXPECT_LT(anp_excess[0], 0.35 * tet4_excess[0]);
  EXPECT_LT(anp_excess[1] - anp_excess[0], 0.01);
}

/// The smooth indentation below: the side of its cube (m) and the peak pressure p0 (Pa).
constexpr double kBump = 0.02, kBumpPressure = 500.0;

double bump_strip(int i, double h) {  // integral of (1 + cos(pi x / W)) / 2 over the node's strip
  const double a = std::max(0.0, (i - 0.5) * h), b = std::min(kBump, (i + 0.5) * h);
  const auto F = [](double x) {
    return x / 2 + kBump / (2 * std::numbers::pi) * std::sin(std::numbers::pi * x / kBump);
  };
  return F(b) - F(a);
}

/// A smooth indentation without singularities: the quarter (x, y >= 0) of a 0.04 x 0.04 x 0.02
/// neo-Hookean block (nu = 0.49) whose four sides and base are on rollers (symmetry planes: the
/// solution continues smoothly across them, so no corner or edge is singular), pressed at its top
/// by p(x, y) = p0 (1 + cos(pi x / W)) (1 + cos(pi y / W)) / 4, p0 = 500 Pa, W = 0.02 m (a smooth
/// bump centred on the corner x = y = 0, zero on the far sides). The roller box confines the
/// volume, so the material under the bump must flow sideways and up, nearly isochorically.
/// The top nodes carry the load integrated over their tributary squares (one node set each).
/// Returns the load-weighted mean top displacement sum(f_i u_i) / sum(f_i) (m, downwards), the
/// compliance over the total force, by dynamic relaxation.
double indentation(const std::string& element, const std::string& cells, int n) {
  const double h = kBump / n, e = 1e-4 * h;
  const std::string d = std::to_string(n), W = "0.02";
  std::string sets, loads;
  char line[256];
  for (int i = 0; i <= n; ++i)
    for (int j = 0; j <= n; ++j) {
      std::snprintf(line, sizeof line,
                    "  p%d_%d: {box: {min: [%.9g, %.9g, %.9g], max: [%.9g, %.9g, %.9g]}}\n", i, j,
                    i * h - e, j * h - e, kBump - e, i * h + e, j * h + e, kBump + e);
      sets += line;
      std::snprintf(line, sizeof line, "  - {set: p%d_%d, force: [0, 0, %.12g]}\n", i, j,
                    -kBumpPressure * bump_strip(i, h) * bump_strip(j, h));
      loads += line;
    }
  const std::string yaml = "mesh: {generator: box, cells: " + cells + ", size: [" + W + ", " + W +
                           ", " + W + "], divisions: [" + d + ", " + d + ", " + d +
                           "]}\nmaterials:\n" + kTissue + "\nblocks: [{element: " + element +
                           R"(, material: tissue}]
node_sets:
  bottom: {plane: {point: [0, 0, 0], normal: [0, 0, 1]}}
  x0: {plane: {point: [0, 0, 0], normal: [1, 0, 0]}}
  x1: {plane: {point: [0.02, 0, 0], normal: [1, 0, 0]}}
  y0: {plane: {point: [0, 0, 0], normal: [0, 1, 0]}}
  y1: {plane: {point: [0, 0.02, 0], normal: [0, 1, 0]}}
)" + sets + R"(boundary_conditions:
  - {set: bottom, fixed: [z]}
  - {set: x0, fixed: [x]}
  - {set: x1, fixed: [x]}
  - {set: y0, fixed: [y]}
  - {set: y1, fixed: [y]}
loads:
)" + loads + R"(solver: {type: dynamic_relaxation, tolerance: 1.0e-10, force_tolerance: 1.0e-7}
)";
  PreparedRun run = prepare(yaml, on_backend({{"precision", "double"}}));
  run_in_memory(run);
  const std::vector<double> u = displacement(run);
  const Mesh& mesh = run.model.mesh;
  double work = 0.0, force = 0.0;
  int loaded = 0;
  for (std::int64_t a = 0; a < mesh.num_nodes(); ++a) {
    const double* x = mesh.coords.data() + 3 * a;
    if (std::abs(x[2] - kBump) > e) continue;
    const double f = kBumpPressure * bump_strip(static_cast<int>(std::lround(x[0] / h)), h) *
                     bump_strip(static_cast<int>(std::lround(x[1] / h)), h);
    work += f * -u[3 * a + 2];
    force += f;
    ++loaded;
  }
  EXPECT_EQ(loaded, (n + 1) * (n + 1));
  EXPECT_NEAR(force, kBumpPressure * kBump * kBump / 4, 1e-9);
  return work / force;
}

TEST(AveragedNodalPressure, SmoothIndentationWithinTwoPercentWhereTet4Locks) {
  // The issue's pair on one mesh, where no singularity adds discretisation error of its own
  // (docs/architecture.md, "Without singularities"). Converged hex8 reference: hex8r on 8^3 to
  // 32^3 cubes converges as h^2 to 0.52496 mm (Richardson from 12^3/24^3, 16^3/24^3, 24^3/32^3).
  // Measured on 14^3: tet4 0.44949 mm (16.8 % too stiff), tet4_anp 0.51761 mm (-1.4 %).
  const double reference = 0.52496e-3;
  const double tet4 = indentation("tet4", "tet4", 14);
  const double anp = indentation("tet4_anp", "tet4", 14);
  const double tet4_stiffer = reference / tet4 - 1, anp_error = anp / reference - 1;
  std::printf(
      "[ anp ] smooth indentation, 14x14x14 cubes: reference %.5f mm, tet4 %.5f mm (%.1f %% too "
      "stiff), tet4_anp %.5f mm (%+.1f %%)\n",
      1e3 * reference, 1e3 * tet4, 100 * tet4_stiffer, 1e3 * anp, 100 * anp_error);
  EXPECT_GT(tet4_stiffer, 0.10) << "plain tet4 should lock here (more than 10 % too stiff)";
  EXPECT_LT(std::abs(anp_error), 0.02) << "tet4_anp should be within 2 % of the hex8 reference";
}

/// The block of block_case() as a mesh file of two tetrahedral layers (3 x 3 x 3 cubes each),
/// each its own block: `lower` (z < H/2) and `upper`.
PreparedRun prepare_two_layers(const std::string& materials, const std::string& lower,
                               const std::string& upper, const std::string& element) {
  const std::string blocks =
      "[{name: lower, region: lower, element: " + element + ", material: " + lower +
      "}, {name: upper, region: upper, element: " + element + ", material: " + upper + "}]";
  const std::string mesh = "{file: " + write_column(3, kWidth / 3, false) + "}";
  return prepare(block_case(mesh, blocks, materials), on_backend({{"precision", "double"}}));
}

TEST(AveragedNodalPressure, EqualMaterialsAcrossAnInterfaceActAsOne) {
  // Two materials with the same constants in two blocks: the improved ANP averages the nodal
  // pressure over all elements around a node, whatever their material, so the interface leaves
  // no trace. (Averaging per material, as the original ANP does, would double the constraints
  // at the interface nodes and stiffen the block.)
  const std::string materials =
      kTissue +
      "\n  same: {type: neo_hookean, density: 1000, youngs_modulus: 3000, poisson_ratio: 0.49}";
  PreparedRun one =
      prepare(block_case("{file: " + write_column(3, kWidth / 3, false) + "}",
                         "[{region: all, element: tet4_anp, material: tissue}]", kTissue),
              on_backend({{"precision", "double"}}));
  run_in_memory(one);
  PreparedRun two = prepare_two_layers(materials, "tissue", "same", "tet4_anp");
  ASSERT_EQ(two.model.blocks[0].num_elements(), two.model.blocks[1].num_elements());
  run_in_memory(two);
  const std::vector<double> u1 = displacement(one), u2 = displacement(two);
  double diff = 0.0, scale = 0.0;
  for (std::size_t i = 0; i < u1.size(); ++i) {
    diff = std::max(diff, std::abs(u1[i] - u2[i]));
    scale = std::max(scale, std::abs(u1[i]));
  }
  EXPECT_GT(scale, 0.9 * kPress);
  EXPECT_LT(diff, 1e-9 * scale);
}

/// Mean |jump| of the element pressure (tr sigma / 3) between face neighbours, across the
/// interface of the two blocks and inside them, relative to the mean |pressure|.
struct PressureJumps {
  double interface = 0.0, interior = 0.0;
};

PressureJumps pressure_jumps(PreparedRun& run) {
  std::vector<BlockResults> results;
  run.solver->problem().element_results(displacement(run), results);
  std::map<std::array<std::int32_t, 3>, std::pair<int, double>> faces;  // face -> block, p
  double interface = 0.0, interior = 0.0, scale = 0.0;
  int n_interface = 0, n_interior = 0, n_elements = 0;
  for (int b = 0; b < 2; ++b) {
    const ModelBlock& block = run.model.blocks[b];
    for (std::int64_t e = 0; e < block.num_elements(); ++e) {
      const double* s = results[b].cauchy_stress.data() + 6 * e;
      const double p = (s[0] + s[1] + s[2]) / 3.0;
      scale += std::abs(p);
      ++n_elements;
      const std::int32_t* c = block.connectivity.data() + 4 * e;
      for (int skip = 0; skip < 4; ++skip) {
        std::array<std::int32_t, 3> face;
        for (int a = 0, k = 0; a < 4; ++a)
          if (a != skip) face[k++] = c[a];
        std::sort(face.begin(), face.end());
        const auto [it, inserted] = faces.emplace(face, std::make_pair(b, p));
        if (inserted) continue;
        const double jump = std::abs(it->second.second - p);
        if (it->second.first != b) {
          interface += jump;
          ++n_interface;
        } else {
          interior += jump;
          ++n_interior;
        }
      }
    }
  }
  scale /= n_elements;
  return {interface / n_interface / scale, interior / n_interior / scale};
}

TEST(AveragedNodalPressure, SoftStiffInterfaceHasContinuousPressure) {
  // A soft layer on a stiff one (moduli 10x apart, both nu = 0.49). The nodal pressure is one
  // value per node for both materials (seed 003: constant over the nodal volume), so two
  // elements that share an interface face share three of the four nodal pressures they
  // average: the pressure crosses the interface as smoothly as it varies inside either layer.
  // Plain tet4's element-wise pressures jump there.
  const std::string materials =
      "  soft: {type: neo_hookean, density: 1000, youngs_modulus: 3000, poisson_ratio: 0.49}\n"
      "  stiff: {type: neo_hookean, density: 1000, youngs_modulus: 30000, poisson_ratio: 0.49}";
  PreparedRun anp = prepare_two_layers(materials, "stiff", "soft", "tet4_anp");
  run_in_memory(anp);
  const PressureJumps jumps = pressure_jumps(anp);
  PreparedRun plain = prepare_two_layers(materials, "stiff", "soft", "tet4");
  run_in_memory(plain);
  const PressureJumps plain_jumps = pressure_jumps(plain);
  std::printf(
      "[ anp ] pressure jump between face neighbours / mean |p|: tet4_anp interface %.3f, "
      "interior %.3f; tet4 interface %.3f, interior %.3f\n",
      jumps.interface, jumps.interior, plain_jumps.interface, plain_jumps.interior);
  EXPECT_LT(jumps.interface, 2.0 * jumps.interior);          // measured 1.6x; tet4: 3.1x
  EXPECT_LT(jumps.interface, 0.25 * plain_jumps.interface);  // measured 0.14x
}

TEST(AveragedNodalPressure, MixedMeshPatchTestAcrossTheHexInterface) {
  // tet4_anp over hex8r, sharing the nodes of their interface. A node there averages the
  // pressure of its ANP elements only (the hexahedra keep their own): under a linear field,
  // every interior node, on the interface too, must stay in equilibrium to round-off.
  const int n = 3;
  const double h = 0.01;
  const std::string yaml = "mesh: {file: " + write_column(n, h, true) + R"(}
materials:
  m: {type: linear_elastic, density: 1000, youngs_modulus: 1000, poisson_ratio: 0.45}
blocks:
  - {name: hexahedra, region: lower, element: hex8r, material: m}
  - {name: tetrahedra, region: upper, element: tet4_anp, material: m}
solver: {end_time: 1.0}
)";
  PreparedRun run = prepare(yaml, on_backend({{"precision", "double"}}));
  ASSERT_EQ(run.model.blocks[1].num_elements(), 6 * n * n * n);
  const Mesh& mesh = run.model.mesh;
  const std::int64_t nn = mesh.num_nodes();
  std::vector<double> u(3 * nn), f;
  const double A[3][3] = {{1e-3, 2e-3, -1e-3}, {0.5e-3, -2e-3, 1.5e-3}, {-1e-3, 0.7e-3, 3e-3}};
  for (std::int64_t i = 0; i < nn; ++i)
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 3; ++c) u[3 * i + r] += A[r][c] * mesh.coords[3 * i + c];
  run.solver->problem().internal_forces(u, f);
  double interior = 0.0, boundary = 0.0;
  int interface_nodes = 0;
  for (std::int64_t i = 0; i < nn; ++i) {
    const double* x = mesh.coords.data() + 3 * i;
    const bool inside = x[0] > 1e-9 && x[0] < n * h - 1e-9 && x[1] > 1e-9 && x[1] < n * h - 1e-9 &&
                        x[2] > 1e-9 && x[2] < 2 * n * h - 1e-9;
    const double norm = std::hypot(f[3 * i], f[3 * i + 1], f[3 * i + 2]);
    (inside ? interior : boundary) = std::max(inside ? interior : boundary, norm);
    interface_nodes += inside && std::abs(x[2] - n * h) < 1e-9;
  }
  EXPECT_EQ(interface_nodes, (n - 1) * (n - 1));
  ASSERT_GT(boundary, 0.0);
  EXPECT_LT(interior, 1e-10 * boundary);
}

TEST(AveragedNodalPressure, MaterialWithoutVolumetricSplitIsRefused) {
  const std::string yaml = block_case(box_mesh("tet4", 1), "[{element: tet4_anp, material: svk}]",
                                      "  svk: {type: saint_venant_kirchhoff, density: 1000, "
                                      "youngs_modulus: 3000, poisson_ratio: 0.3}");
  const PluginRegistry plugins;
  try {
    build_model(parse_case(yaml, "<test>", on_backend()), plugins);
    FAIL() << "tet4_anp with a material without volumetric split was accepted";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("'svk'"), std::string::npos) << what;
    EXPECT_NE(what.find("saint_venant_kirchhoff"), std::string::npos) << what;
    EXPECT_NE(what.find("volumetric"), std::string::npos) << what;
    EXPECT_NE(what.find("tet4_anp"), std::string::npos) << what;
  }
}

}  // namespace
}  // namespace fem::test
