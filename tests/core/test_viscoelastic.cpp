// The viscoelastic law (materials/viscoelastic): the relaxation of a step strain against the
// Prony series, at the law and in `fem run` (one hexahedron in homogeneous simple shear,
// explicit and implicit dynamic, OpenMP and Kokkos), the exact integration of a ramp, the
// long-term response of static and dynamic-relaxation runs, its algorithmic tangent against
// central differences, and its parameter checks.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include <fem/case.hpp>

#define FEM_MATERIAL(Type)
#include "../../materials/viscoelastic/viscoelastic.hpp"
#include "support/run_fem.hpp"

namespace fem {
namespace {

using materials::MooneyRivlin;
using materials::Viscoelastic;
using D = Dual<double>;

// c10, c01, 1/D1 (K = 1e5 Pa), g_R, g1..g3, tau1..tau3: two terms.
const double kC10 = 350.0, kC01 = 150.0;
const std::vector<double> kParams = {kC10, kC01, 0.5e5, 0.5, 0.3, 0.2, 0.0, 0.01, 0.05, 1.0};

/// g(t) = g_R + sum g_i exp(-t/tau_i), the normalised relaxation modulus of kParams.
double relaxation(double t) {
  return 0.5 + 0.3 * std::exp(-t / 0.01) + 0.2 * std::exp(-t / 0.05);
}

Mat3<double> simple_shear(double gamma) {
  Mat3<double> F = Mat3<double>::identity();
  F.m[0][1] = gamma;
  return F;
}

double max_abs_difference(const Mat3<double>& a, const Mat3<double>& b) {
  double d = 0.0;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) d = std::max(d, std::abs(a.m[i][j] - b.m[i][j]));
  return d;
}

// ---- the law ------------------------------------------------------------------------------------

TEST(Viscoelastic, StepStrainRelaxesAsThePronySeries) {
  // A uniaxial stretch with lateral contraction, applied within one step of tau1 / 100, then
  // held: the isochoric stress relaxes by g(t) (t from the step's middle), the volumetric one
  // stays. Within 1 % of the instantaneous isochoric stress at every step.
  Mat3<double> F = Mat3<double>::identity();
  F.m[0][0] = 1.3;
  F.m[1][1] = F.m[2][2] = 0.9;
  const double J = det(F);
  const Mat3<double> p_iso = MooneyRivlin::deviatoric_stress<double>(kParams.data(), F, nullptr);
  const Mat3<double> p_vol =
      MooneyRivlin::volumetric_pressure<double>(kParams.data(), J) * cofactor(F);
  std::vector<double> state(Viscoelastic::num_state, 0.0);
  const double dt = 1e-4;
  double worst = 0.0;
  for (int n = 1; n <= 2000; ++n) {
    const Mat3<double> P = Viscoelastic::stress_step<double>(kParams.data(), F, state.data(), dt);
    const double t = (n - 0.5) * dt;
    const Mat3<double> expected = p_vol + relaxation(t) * p_iso;
    worst = std::max(worst, max_abs_difference(P, expected) / std::abs(p_iso.m[0][0]));
  }
  std::printf("[ viscoelastic ] step strain: largest difference %.2e of the isochoric stress\n",
              worst);
  EXPECT_LT(worst, 1e-3);
}

TEST(Viscoelastic, RampAndHoldIsIntegratedExactlyWhateverTheStep) {
  // Small strain (linear isochoric stress in time along a linear ramp): the closed form of a
  // ramp of duration tr and a hold, sigma(t) = G0 eps/tr int_0^min(t,tr) g(t - s) ds, is
  // reproduced with steps as long as tau1 / 2.
  const double eps = 1e-6, tr = 0.02, dt = 0.005;
  const auto integral_of_g = [](double a, double b) {  // int_a^b g(s) ds
    const auto G = [](double s) {
      return 0.5 * s - 0.3 * 0.01 * std::exp(-s / 0.01) - 0.2 * 0.05 * std::exp(-s / 0.05);
    };
    return G(b) - G(a);
  };
  std::vector<double> state(Viscoelastic::num_state, 0.0);
  const double shear_modulus = 2.0 * (kC10 + kC01);
  double worst = 0.0;
  for (int n = 1; n <= 40; ++n) {
    const double t = n * dt;
    const double gamma = eps * std::min(t, tr) / tr;
    const Mat3<double> P =
        Viscoelastic::stress_step<double>(kParams.data(), simple_shear(gamma), state.data(), dt);
    // sigma_12(t) = G0 (eps/tr) int_{max(0, t - tr)}^{t} g(s) ds
    const double expected = shear_modulus * eps / tr * integral_of_g(std::max(0.0, t - tr), t);
    worst = std::max(worst, std::abs(P.m[0][1] / expected - 1.0));
  }
  std::printf("[ viscoelastic ] ramp and hold, dt = tau1/2: largest relative difference %.2e\n",
              worst);
  EXPECT_LT(worst, 1e-5);
}

TEST(Viscoelastic, ZeroStepReEvaluatesAndInfiniteStepGivesTheLongTermResponse) {
  const Mat3<double> F = simple_shear(0.4);
  std::vector<double> state(Viscoelastic::num_state, 0.0);
  const Mat3<double> first =
      Viscoelastic::stress_step<double>(kParams.data(), F, state.data(), 1e-3);
  const std::vector<double> after = state;
  const Mat3<double> again =
      Viscoelastic::stress_step<double>(kParams.data(), F, state.data(), 0.0);
  EXPECT_LT(max_abs_difference(first, again), 1e-12 * std::abs(first.m[0][1]));
  EXPECT_EQ(state, after);
  const Mat3<double> relaxed = Viscoelastic::stress_step<double>(
      kParams.data(), F, state.data(), std::numeric_limits<double>::infinity());
  const Mat3<double> elastic = MooneyRivlin::stress<double>(kParams.data(), F, nullptr);
  EXPECT_NEAR(relaxed.m[0][1], 0.5 * elastic.m[0][1], 1e-12 * elastic.m[0][1]);
  for (double h : state) EXPECT_TRUE(std::isfinite(h));
  // The long-term energy: g_R times the isochoric energy (J = 1 in simple shear).
  EXPECT_NEAR(Viscoelastic::strain_energy<double>(kParams.data(), F, state.data()),
              0.5 * MooneyRivlin::strain_energy<double>(kParams.data(), F, nullptr), 1e-12);
}

TEST(Viscoelastic, AlgorithmicTangentMatchesCentralDifferences) {
  // After some history, at fixed h_n and dt: dP/dF from the dual numbers (as the element
  // kernels take it) against central differences of the stress, each from a copy of h_n.
  std::vector<double> history(Viscoelastic::num_state, 0.0);
  Mat3<double> F0 = Mat3<double>::identity();
  F0.m[0][0] = 1.1;
  F0.m[0][1] = 0.2;
  F0.m[2][1] = -0.05;
  Viscoelastic::stress_step<double>(kParams.data(), F0, history.data(), 0.004);
  Mat3<double> F = F0;
  F.m[0][0] = 1.15;
  F.m[1][2] = 0.07;
  F.m[2][2] = 0.97;
  const double dt = 0.003, h = 1e-6;
  const std::vector<D> pd(kParams.begin(), kParams.end());
  double worst = 0.0, scale = 0.0;
  for (int kl = 0; kl < 9; ++kl) {
    Mat3<D> Fd;
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) Fd.m[i][j] = D(F.m[i][j], 3 * i + j == kl ? 1.0 : 0.0);
    std::vector<D> sd(history.begin(), history.end());
    const Mat3<D> Pd = Viscoelastic::stress_step<D>(pd.data(), Fd, sd.data(), D(dt));
    Mat3<double> Fp = F, Fm = F;
    Fp.m[kl / 3][kl % 3] += h;
    Fm.m[kl / 3][kl % 3] -= h;
    std::vector<double> sp = history, sm = history;
    const Mat3<double> Pp = Viscoelastic::stress_step<double>(kParams.data(), Fp, sp.data(), dt);
    const Mat3<double> Pm = Viscoelastic::stress_step<double>(kParams.data(), Fm, sm.data(), dt);
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) {
        const double fd = (Pp.m[i][j] - Pm.m[i][j]) / (2.0 * h);
        worst = std::max(worst, std::abs(Pd.m[i][j].d - fd));
        scale = std::max(scale, std::abs(fd));
      }
  }
  std::printf("[ viscoelastic ] tangent vs central differences: %.2e of the largest entry\n",
              worst / scale);
  EXPECT_LT(worst, 1e-6 * scale);
  // It is the algorithmic tangent, not the instantaneous one: the history's step matters.
  std::vector<D> s0(history.begin(), history.end()), s1 = s0;
  Mat3<D> Fd;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) Fd.m[i][j] = D(F.m[i][j], i == 0 && j == 1 ? 1.0 : 0.0);
  const double short_step =
      Viscoelastic::stress_step<D>(pd.data(), Fd, s0.data(), D(0.0)).m[0][1].d;
  const double long_step = Viscoelastic::stress_step<D>(pd.data(), Fd, s1.data(), D(1.0)).m[0][1].d;
  EXPECT_GT(short_step, 1.5 * long_step);
}

// ---- parameters ---------------------------------------------------------------------------------

std::vector<double> parse(const std::string& yaml) {
  const CaseSpec spec = parse_case("mesh: {}\nmaterials: {m: {type: viscoelastic, " + yaml +
                                       "}}\nblocks: [{element: hex8, material: m}]\n"
                                       "solver: {end_time: 1}\n",
                                   "case.yaml");
  const MaterialSpec& ms = spec.materials.at("m");
  ParamReader in(ms.node, ms.file, "material 'm'", ms.reserved_keys);
  std::vector<double> p(Viscoelastic::num_params);
  Viscoelastic::parse(in, p.data());
  in.finish();
  return p;
}

std::string parse_error(const std::string& yaml) {
  try {
    parse(yaml);
  } catch (const InputError& e) {
    return e.what();
  }
  ADD_FAILURE() << "accepted: " << yaml;
  return {};
}

#define EXPECT_MENTIONS(text, part) \
  EXPECT_NE(std::string(text).find(part), std::string::npos) << (text)

TEST(Viscoelastic, ParametersAreReadInAbaqusConventions) {
  EXPECT_EQ(parse("c10: 350, c01: 150, bulk_modulus: 1e5, g1: 0.3, tau1: 0.01, g2: 0.2, "
                  "tau2: 0.05"),
            kParams);
  const std::vector<double> one = parse("c10: 100, d1: 0.001, g1: 0.25, tau1: 2, k1: 0");
  EXPECT_DOUBLE_EQ(one[Viscoelastic::kGR], 0.75);
  EXPECT_MENTIONS(parse_error("c10: 100, d1: 0.001"), "no Prony term");
  EXPECT_MENTIONS(parse_error("c10: 100, d1: 0.001, g1: 0.3"), "needs both g1 and tau1");
  EXPECT_MENTIONS(parse_error("c10: 100, d1: 0.001, g2: 0.3, tau2: 1"),
                  "without the terms before it");
  EXPECT_MENTIONS(parse_error("c10: 100, d1: 0.001, g1: 0.6, tau1: 1, g2: 0.4, tau2: 2"),
                  "g_R = 1 - sum g_i must be > 0");
  EXPECT_MENTIONS(parse_error("c10: 100, d1: 0.001, g1: 0.3, tau1: 0"), "tau1");
  EXPECT_MENTIONS(parse_error("c10: 100, d1: 0.001, g1: 0.3, tau1: 1, k1: 0.2"), "bulk relaxation");
  EXPECT_MENTIONS(parse_error("c10: 100, d1: 0.001, g1: 0.3, tau1: 1, k1: 0.2"), "case.yaml:2:");
}

// ---- fem run ------------------------------------------------------------------------------------

/// The rows (time, reaction_force_x) of history `name` of a run's output folder.
std::vector<std::pair<double, double>> reaction_rows(const std::string& path) {
  std::ifstream in(path);
  std::string header, line;
  std::getline(in, header);
  int time_col = -1, force_col = -1, c = 0;
  std::stringstream names(header);
  for (std::string name; std::getline(names, name, ','); ++c) {
    if (name == "time") time_col = c;
    if (name == "reaction_force_x") force_col = c;
  }
  std::vector<std::pair<double, double>> rows;
  while (std::getline(in, line)) {
    std::stringstream values(line);
    double t = 0.0, f = 0.0;
    c = 0;
    for (std::string v; std::getline(values, v, ','); ++c) {
      if (c == time_col) t = std::stod(v);
      if (c == force_col) f = std::stod(v);
    }
    rows.emplace_back(t, f);
  }
  return rows;
}

const double kSize = 0.01, kGamma = 0.3, kRamp = 5e-4;

/// One hexahedron in homogeneous simple shear (every node prescribed: u_x = gamma y), sheared
/// over kRamp and held, run by `fem run` with `solver` on `backend`; the top face's x reaction.
std::vector<std::pair<double, double>> shear_run(const std::string& label,
                                                 const std::string& solver,
                                                 const std::string& backend) {
  const std::string dir = test::fresh_temp_dir("viscoelastic", label + "_" + backend);
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/case.yaml") << "backend: " << backend << R"(
mesh: {generator: box, cells: hex8, size: [0.01, 0.01, 0.01], divisions: [1, 1, 1]}
materials:
  m: {type: viscoelastic, density: 1000, c10: 350, c01: 150, bulk_modulus: 1.0e5,
      g1: 0.3, tau1: 0.01, g2: 0.2, tau2: 0.05}
blocks: [{element: hex8, material: m}]
node_sets:
  bottom: {plane: {point: [0, 0, 0], normal: [0, 1, 0]}}
  top: {plane: {point: [0, 0.01, 0], normal: [0, 1, 0]}}
amplitudes: {ramp: {type: linear, start: 0, end: 5.0e-4}}
boundary_conditions:
  - {set: bottom, fixed: [x, y, z]}
  - {set: top, fixed: [y, z]}
  - {set: top, displacement: {x: 0.003}, amplitude: ramp}
solver: )" << solver << R"(
output:
  every_steps: 100000
  histories: [{name: top, set: top, quantities: [reaction_force], every_steps: 1}]
)";
  const test::FemResult r = test::run_fem("run " + dir + "/case.yaml -q --output " + dir + "/out");
  EXPECT_EQ(r.code, 0) << r.output;
  return reaction_rows(dir + "/out/top.csv");
}

std::vector<std::string> cpu_backends() {
  std::vector<std::string> out;
  for (const std::string backend : {"openmp", "kokkos"})
    if (std::filesystem::exists(std::string(FEM_BINARY_DIR) + "/lib/fem/plugins/" + backend +
                                ".backend.so"))
      out.push_back(backend);
  return out;
}

/// Simple shear of Mooney-Rivlin at J = 1: sigma_12 = P_12 = 2 (c10 + c01) gamma, exactly; the
/// viscous law scales it by g(t).
double instantaneous_reaction() {
  return 2.0 * (kC10 + kC01) * kGamma * kSize * kSize;
}

TEST(Viscoelastic, FemRunRelaxesAsThePronySeriesExplicitAndImplicitDynamic) {
  const struct {
    std::string label, solver;
    bool skip_last;  // explicit: the last sample's pass has not advanced the history yet
  } runs[] = {
      {"explicit", "{type: explicit, end_time: 0.1, time_step: 5.0e-4}", true},
      {"implicit_dynamic",
       "{type: implicit_dynamic, end_time: 0.1, time_step: 5.0e-4, linear: {solver: direct}}",
       false},
  };
  const double r0 = instantaneous_reaction();
  for (const auto& run : runs)
    for (const std::string& backend : cpu_backends()) {
      const auto rows = shear_run(run.label, run.solver, backend);
      ASSERT_GT(rows.size(), 150u) << run.label;
      double worst = 0.0;
      std::size_t compared = 0;
      for (std::size_t k = 0; k + (run.skip_last ? 1 : 0) < rows.size(); ++k) {
        const auto [t, f] = rows[k];
        if (t < kRamp * (1.0 + 1e-9)) continue;  // the ramp
        // A linear ramp of the stress over [0, kRamp] is a step at its middle to O((kRamp/tau)^2).
        worst = std::max(worst, std::abs(f - r0 * relaxation(t - 0.5 * kRamp)) / r0);
        ++compared;
      }
      std::printf(
          "[ viscoelastic ] %s on %s: %zu samples, largest difference %.2e of the "
          "instantaneous reaction (relaxed to %.3f of it)\n",
          run.label.c_str(), backend.c_str(), compared, worst, rows.back().second / r0);
      EXPECT_GT(compared, 150u);
      EXPECT_LT(worst, 1e-2) << run.label << " on " << backend;
    }
}

TEST(Viscoelastic, StaticAndDynamicRelaxationGiveTheLongTermResponse) {
  const double relaxed = 0.5 * instantaneous_reaction();
  for (const std::string& backend : cpu_backends())
    for (const auto& [label, solver] :
         {std::pair<std::string, std::string>{"static",
                                              "{type: static, end_time: 1, linear: {solver: "
                                              "direct}}"},
          std::pair<std::string, std::string>{"relaxation",
                                              "{type: dynamic_relaxation, end_time: 1}"}}) {
      const auto rows = shear_run(label, solver, backend);
      ASSERT_FALSE(rows.empty());
      // Static: Newton to round-off. Dynamic relaxation stops at its own tolerance (measured
      // 1.3e-6 of the reaction), still far from the instantaneous reaction, twice as large.
      const double bound = label == "static" ? 1e-9 : 1e-5;
      std::printf("[ viscoelastic ] %s on %s: reaction %.3e of the long-term one\n", label.c_str(),
                  backend.c_str(), rows.back().second / relaxed - 1.0);
      EXPECT_NEAR(rows.back().second, relaxed, bound * relaxed) << solver << " on " << backend;
    }
}

}  // namespace
}  // namespace fem
