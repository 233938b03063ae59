// The elastodynamic solver on plane-strain meshes (tri3, quad4: 2 dofs a node, 2x2 blocks):
// wave speeds, the 3D solver on a slab held in z, the explicit TLED solver it must reproduce,
// and what plane models refuse.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "waves/explicit_comparison.hpp"

namespace fem::test {
namespace {

/// A plane strip [0, length] x [0, h] of `cells` squares along x (split into triangles for tri3),
/// held in y for P waves ("p") or in x for S waves ("s"), with the column's sets.
struct Strip {
  std::string cells = "quad4";
  double length = 2.0;
  int divisions = 400;
  int across = 1;          ///< divisions along y
  std::string hold = "y";  ///< components fixed everywhere (x for S waves, "" for none)
  std::string solver = "{type: elastodynamic, end_time: 4.0e-4}";
  std::string sets, conditions, extra;
  std::string output = "{vtk: false}";
  [[nodiscard]] std::string yaml() const {
    const double h = length / divisions;
    const std::string held = hold.empty() ? "" : "  - {set: all, fixed: [" + hold + "]}";
    return fmt::format(
        R"(
name: strip
backend: openmp
precision: double
mesh: {{generator: rectangle, cells: {cells}, size: [{length}, {width}], divisions: [{n}, {across}]}}
materials:
  steel: {{type: linear_elastic, density: {rho}, youngs_modulus: {E}, poisson_ratio: {nu}}}
blocks:
  - {{name: strip, element: {cells}, material: steel}}
node_sets:
  all: {{box: {{min: [-1, -1, -1], max: [{far}, 1, 1]}}}}
  left: {{plane: {{point: [0, 0, 0], normal: [1, 0, 0]}}}}
  right: {{plane: {{point: [{length}, 0, 0], normal: [1, 0, 0]}}}}
{sets}
boundary_conditions:
{held}
{conditions}
solver: {solver}
output: {output}
{extra}
)",
        fmt::arg("cells", cells), fmt::arg("length", length), fmt::arg("width", h * across),
        fmt::arg("n", divisions), fmt::arg("across", across), fmt::arg("rho", kDensity),
        fmt::arg("E", kYoung), fmt::arg("nu", kPoisson), fmt::arg("far", 2.0 * length + 1.0),
        fmt::arg("sets", sets), fmt::arg("held", held), fmt::arg("conditions", conditions),
        fmt::arg("solver", solver), fmt::arg("output", output), fmt::arg("extra", extra));
  }
};

/// The wave-speed pulse in a 2 m strip of 400 squares.
double plane_speed(const std::string& cells, const std::string& wave) {
  Strip s;
  s.cells = cells;
  s.hold = wave == "p" ? "y" : "x";
  add_speed_pulse(s, wave);
  return pulse_speed(s.yaml(), wave);
}

TEST(WavePlane, PAndSWavesTravelAtThePlaneStrainSpeedsOnQuadsAndTriangles) {
  for (const std::string cells : {"quad4", "tri3"}) {
    const double p = plane_speed(cells, "p"), s = plane_speed(cells, "s");
    EXPECT_NEAR(p / p_speed(), 1.0, 0.005) << cells << ": P " << p << " m/s, theory " << p_speed();
    EXPECT_NEAR(s / s_speed(), 1.0, 0.005) << cells << ": S " << s << " m/s, theory " << s_speed();
  }
}

/// A plate 40 x 20 mm driven by a tone burst of force at one node, as a quad4 plane model and as
/// a hex8 slab 2 m thick held in z: with half the slab's thickness per node layer the two have
/// the same masses, stiffness rows and forces per node, so the traces agree to round-off.
TEST(WavePlane, QuadrilateralsAreTheSolidSlabHeldInZ) {
  const auto yaml = [](bool plane) {
    return fmt::format(
        R"(
name: plate
backend: openmp
precision: double
mesh: {mesh}
materials:
  steel: {{type: linear_elastic, density: 7800, youngs_modulus: 2.0e11, poisson_ratio: 0.3}}
blocks:
  - {{name: plate, element: {element}, material: steel}}
node_sets:
  all: {{box: {{min: [-1, -1, -5], max: [1, 1, 5]}}}}
  source: {{box: {{min: [0.0099, 0.0199, -5], max: [0.0101, 0.0201, 5]}}}}
  probe: {{box: {{min: [0.0299, -0.0001, -5], max: [0.0301, 0.0001, 5]}}}}
amplitudes:
  burst: {{type: tone_burst, frequency: 1.0e6, cycles: 3}}
loads:
  - {{set: source, force: [300, -1000, 0], amplitude: burst}}
{conditions}
solver: {{type: elastodynamic, end_time: 6.0e-6, time_step: 2.0e-9}}
output: {{vtk: false, receivers: [{{set: probe}}, {{set: source, quantities: [velocity]}}]}}
)",
        fmt::arg("mesh", plane ? "{generator: rectangle, cells: quad4, size: "
                                 "[0.04, 0.02], divisions: [80, 40]}"
                               : "{generator: box, cells: hex8, size: [0.04, "
                                 "0.02, 2.0], divisions: [80, 40, 1]}"),
        fmt::arg("element", plane ? "quad4" : "hex8"),
        // A plane model has no z to hold.
        fmt::arg("conditions", plane ? "" : "boundary_conditions:\n  - {set: all, fixed: [z]}"));
  };
  WaveRun plane = wave_model(yaml(true)), solid = wave_model(yaml(false));
  const WaveRunReport p = run_waves(plane), s = run_waves(solid);
  EXPECT_EQ(p.dofs, 2 * plane.model.mesh.num_nodes()) << "a plane model steps x and y only";
  ASSERT_EQ(p.steps, 3000);
  ASSERT_EQ(s.steps, 3000);
  for (std::size_t r = 0; r < 2; ++r) {
    // The slab's receivers hold the front and back node of the plane's one: [sample][node][3].
    const std::size_t samples = p.trace_times[r].size();
    ASSERT_EQ(s.trace_times[r].size(), samples);
    std::vector<double> front(3 * samples), back(3 * samples);
    for (std::size_t k = 0; k < samples; ++k)
      for (int i = 0; i < 3; ++i) {
        front[3 * k + i] = s.traces[r][6 * k + i];
        back[3 * k + i] = s.traces[r][6 * k + 3 + i];
      }
    ASSERT_EQ(p.traces[r].size(), front.size());
    for (const auto& other : {front, back}) {
      const Deviation d = deviation(p.traces[r], other);
      EXPECT_GT(d.peak, 0.0);
      EXPECT_LT(d.difference, 1e-11 * d.peak) << "receiver " << r;
    }
  }
}

/// The plane wave solver against the explicit TLED solver running the same tri3 mesh with a
/// linear-elastic material (its z motion stays zero: plane strain), 10,000 steps in double. The
/// TLED update forms 2 u_n - u_{n-1}, which rounds by about 1e-16 of u every step; each such
/// error persists as a velocity, so they add up to about 1e-16 N^1.5 / sqrt(3) = 6e-11 of the
/// displacement after N = 10,000 steps (measured: 8.6e-11 here; 6.6e-11 on quad4; 4.9e-13 on
/// the 3D column, whose rounding is kinder). The bound is that size, not a tolerance for a
/// different stiffness: a stiffness off by 1e-10 would shift this run's phase by 2e-8.
TEST(WavePlane, ReproducesTheExplicitSolverOnTriangles) {
  Strip s;
  s.cells = "tri3";
  s.length = 0.2;
  s.divisions = 40;
  s.across = 10;
  s.hold.clear();
  const double dt = 2.0e-8;
  s.conditions = "  - {set: right, fixed: [x, y]}";
  // Shear as well as compression: the load pushes the free end obliquely.
  s.extra = R"(
amplitudes:
  burst: {type: tone_burst, frequency: 2.0e5, cycles: 3}
loads:
  - {set: left, force: [1000, 600, 0], amplitude: burst}
)";
  const SolverComparison c = compare_with_explicit(
      [&](const std::string& solver, const std::string& output) {
        s.solver = solver;
        s.output = output;
        return s.yaml();
      },
      dt, 10000, "{set: all, every_steps: 10}");
  ASSERT_EQ(c.wave_steps, 10000);
  const std::vector<double>& u = c.explicit_displacement;
  for (std::size_t n = 0; n < u.size() / 3; ++n) ASSERT_EQ(u[3 * n + 2], 0.0) << "node " << n;
  const double diff = c.difference, scale = c.scale;
  EXPECT_GT(scale, 1e-12);
  EXPECT_LT(diff, 2e-10 * scale) << "max difference " << diff << " of " << scale;
  RecordProperty("relative_difference", fmt::format("{:.3g}", diff / scale));
}

TEST(WavePlane, APlaneModelRefusesZComponentsAndSolidElements) {
  Strip s;
  s.conditions = "  - {set: left, displacement: {x: 1.0e-6, z: 1.0e-6}, amplitude: pulse}";
  s.extra = "amplitudes:\n  pulse: {type: gaussian, centre: 6.0e-5, width: 1.0e-5}";
  const std::string z = wave_refusal(s.yaml());
  EXPECT_NE(z.find("<test>:"), std::string::npos) << z;
  EXPECT_NE(z.find("the prescribed displacement of set 'left' has a z component"),
            std::string::npos)
      << z;
  s.conditions.clear();
  s.extra =
      "amplitudes:\n  pulse: {type: gaussian, centre: 6.0e-5, width: 1.0e-5}\n"
      "loads:\n  - {set: left, force: [1, 0, 2], amplitude: pulse}";
  EXPECT_NE(wave_refusal(s.yaml()).find("the load on set 'left' has a z component"),
            std::string::npos);
  s.extra.clear();
  s.solver = "{type: elastodynamic, end_time: 1.0e-4}";
  std::string hex = s.yaml();
  hex.replace(hex.find("element: quad4"), 14, "element: hex8");
  EXPECT_NE(
      wave_refusal(hex).find("element 'hex8' needs hex8 cells, but region 'domain' has quad4"),
      std::string::npos)
      << wave_refusal(hex);
  std::string three = s.yaml();
  three.replace(three.find("divisions: [400, 1]"), 19, "divisions: [400, 1, 1]");
  ASSERT_NE(three.find("[400, 1, 1]"), std::string::npos);
  EXPECT_NE(wave_refusal(three).find("2 integers [nx, ny]"), std::string::npos)
      << wave_refusal(three);
}

}  // namespace
}  // namespace fem::test
