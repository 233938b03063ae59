// Element histories of a region (output.histories with `region`): the reference-volume means of
// the elements' stress and strain, the largest von Mises stress and the strain energy, recorded
// by the implicit and the explicit solvers.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "fem/output/run_sink.hpp"
#include "fem/solver/explicit_solver.hpp"
#include "fem/solver/implicit_solver.hpp"
#include "support/model_run.hpp"

namespace fem {
namespace {

/// A unit cube of neo-Hookean material on rollers (x = 0, y = 0 and z = 0 held normal to
/// themselves) stretched 10 % along z by its top face: a homogeneous deformation, which
/// trilinear hexahedra represent exactly.
const char* const kStretchedCube = R"(
mesh: {generator: box, cells: hex8, size: [1, 1, 1], divisions: [2, 2, 2]}
materials: {m: {type: neo_hookean, density: 1000, youngs_modulus: 1.0e5, poisson_ratio: 0.3}}
blocks: [{name: b, element: hex8, material: m}]
node_sets:
  left: {plane: {point: [0, 0, 0], normal: [1, 0, 0]}}
  front: {plane: {point: [0, 0, 0], normal: [0, 1, 0]}}
  bottom: {plane: {point: [0, 0, 0], normal: [0, 0, 1]}}
  right: {plane: {point: [1, 0, 0], normal: [1, 0, 0]}}
  back: {plane: {point: [0, 1, 0], normal: [0, 1, 0]}}
  top: {plane: {point: [0, 0, 1], normal: [0, 0, 1]}}
amplitudes: {ramp: {type: linear, start: 0, end: 1}}
boundary_conditions:
  - {set: left, fixed: [x]}
  - {set: front, fixed: [y]}
  - {set: bottom, fixed: [z]}
  - {set: top, displacement: {z: 0.1}, amplitude: ramp}
solver: {type: static, end_time: 1, increments: 4,
         newton: {residual_tolerance: 1.0e-12}}
output:
  every_steps: 1
  histories:
    - {name: body, region: domain, quantities: [cauchy_stress, green_lagrange_strain, von_mises,
                                                 strain_energy]}
    - {name: top, set: top, quantities: [reaction_force]}
    - {name: right, set: right, quantities: [displacement]}
    - {name: back, set: back, quantities: [displacement]}
)";

/// Column `name` of a table's row `row`.
double cell(const MemoryTable& t, std::size_t row, const std::string& name) {
  const auto it = std::find(t.columns.begin(), t.columns.end(), name);
  EXPECT_NE(it, t.columns.end()) << name;
  return t.values[row * t.columns.size() + static_cast<std::size_t>(it - t.columns.begin())];
}

TEST(RegionHistory, StaticStretchGivesTheHomogeneousStressStrainAndEnergy) {
  test::ModelRun m = test::model_run(kStretchedCube);
  MemorySink sink;
  ImplicitSolver solver(m.model, *m.backend, m.model.spec.backend);
  ImplicitRunOptions o;
  o.write_files = false;
  o.sink = &sink;
  solver.run(o);
  const MemoryTable& body = sink.tables().at("body");
  EXPECT_EQ(body.columns,
            (std::vector<std::string>{"cauchy_stress_xx", "cauchy_stress_yy", "cauchy_stress_zz",
                                      "cauchy_stress_xy", "cauchy_stress_yz", "cauchy_stress_xz",
                                      "green_lagrange_strain_xx", "green_lagrange_strain_yy",
                                      "green_lagrange_strain_zz", "green_lagrange_strain_xy",
                                      "green_lagrange_strain_yz", "green_lagrange_strain_xz",
                                      "von_mises_max", "strain_energy"}));
  const MemoryTable& top = sink.tables().at("top");
  const MemoryTable& right = sink.tables().at("right");
  const MemoryTable& back = sink.tables().at("back");
  const MemoryTable& energy = sink.tables().at("energy");
  ASSERT_EQ(body.time.size(), 5u);  // the initial state and four increments
  for (std::size_t k = 1; k < body.time.size(); ++k) {
    SCOPED_TRACE("increment " + std::to_string(k));
    const double stretch = 1.0 + 0.1 * body.time[k];
    const double szz = cell(body, k, "cauchy_stress_zz");
    EXPECT_GT(szz, 0.0);
    // E_zz follows from the prescribed stretch; uniaxial stress leaves the sides free.
    EXPECT_NEAR(cell(body, k, "green_lagrange_strain_zz"), 0.5 * (stretch * stretch - 1.0), 1e-12);
    for (const char* c : {"cauchy_stress_xx", "cauchy_stress_yy", "cauchy_stress_xy",
                          "cauchy_stress_yz", "cauchy_stress_xz"})
      EXPECT_NEAR(cell(body, k, c), 0.0, 1e-9 * szz) << c;
    // The lateral strain is the sides' motion: E_xx = ((1 + u_x)^2 - 1) / 2.
    const double lx = 1.0 + cell(right, k, "displacement_x");
    const double ly = 1.0 + cell(back, k, "displacement_y");
    EXPECT_NEAR(cell(body, k, "green_lagrange_strain_xx"), 0.5 * (lx * lx - 1.0), 1e-12);
    EXPECT_NEAR(cell(body, k, "green_lagrange_strain_yy"), 0.5 * (ly * ly - 1.0), 1e-12);
    // The stress times the current cross-section is the force on the top.
    EXPECT_NEAR(szz * lx * ly, std::abs(cell(top, k, "reaction_force_z")), 1e-9 * szz);
    // Uniaxial: von Mises is the axial stress; one region holds all the strain energy.
    EXPECT_NEAR(cell(body, k, "von_mises_max"), szz, 1e-9 * szz);
    EXPECT_NEAR(cell(body, k, "strain_energy"), cell(energy, k, "strain"),
                1e-12 * cell(energy, k, "strain"));
  }
}

TEST(RegionHistory, ExplicitRowsAreTheMeansOfTheFramesCells) {
  std::string yaml = kStretchedCube;
  const std::string from =
      "solver: {type: static, end_time: 1, increments: 4,\n         newton: {residual_tolerance: "
      "1.0e-12}}";
  yaml.replace(yaml.find(from), from.size(), "solver: {type: explicit, end_time: 1}");
  const std::string every = "every_steps: 1\n";
  yaml.replace(yaml.find(every), every.size(),
               "every_steps: 3\n  fields: [cauchy_stress, green_lagrange_strain, von_mises]\n");
  yaml.replace(yaml.find("    - {name: body, region: domain,"), 0,
               "    - {name: fast, region: "
               "domain, every_steps: 3}\n");
  test::ModelRun m = test::model_run(yaml);
  MemorySink sink;
  ExplicitSolver solver(m.model, *m.backend, m.model.spec.backend);
  ExplicitRunOptions o;
  o.write_files = false;
  o.sink = &sink;
  solver.run(o);
  const MemoryTable& fast = sink.tables().at("fast");
  std::size_t compared = 0;
  for (const OutputFrame& f : sink.frames()) {
    const auto row = std::find(fast.step.begin(), fast.step.end(), f.step);
    if (row == fast.step.end()) continue;
    const std::size_t k = static_cast<std::size_t>(row - fast.step.begin());
    for (const Field& field : f.cell_fields) {
      if (field.name == "von_mises") continue;
      // Equal cubes: the reference-volume mean is the plain mean of the cells.
      const std::size_t cells = field.values.size() / 6;
      for (int c = 0; c < 6; ++c) {
        double mean = 0.0, scale = 0.0;
        for (std::size_t e = 0; e < cells; ++e) {
          mean += field.values[6 * e + static_cast<std::size_t>(c)];
          scale = std::max(scale, std::abs(field.values[6 * e + static_cast<std::size_t>(c)]));
        }
        mean /= static_cast<double>(cells);
        static const char* const kSuffix[] = {"_xx", "_yy", "_zz", "_xy", "_yz", "_xz"};
        EXPECT_NEAR(cell(fast, k, field.name + kSuffix[c]), mean, 1e-12 * scale + 1e-300)
            << field.name << kSuffix[c] << " at step " << f.step;
      }
    }
    ++compared;
  }
  EXPECT_GE(compared, 3u) << [&] {
    std::ostringstream steps;
    steps << "frames at";
    for (const OutputFrame& f : sink.frames()) steps << ' ' << f.step;
    steps << "; rows at";
    for (const std::int64_t k : fast.step) steps << ' ' << k;
    return steps.str();
  }();
  // The run's last step is sampled too, as every history's.
  EXPECT_EQ(sink.tables().at("body").step.back(), sink.frames().back().step);
  const MemoryTable& body = sink.tables().at("body");
  const OutputFrame& last = sink.frames().back();
  for (const Field& field : last.cell_fields) {
    if (field.name != "von_mises") continue;
    EXPECT_EQ(cell(body, body.step.size() - 1, "von_mises_max"),
              *std::max_element(field.values.begin(), field.values.end()));
  }
}

}  // namespace
}  // namespace fem
