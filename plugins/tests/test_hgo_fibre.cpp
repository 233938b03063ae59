// hgo_fibre: its exp, the law against a closed form, the reduction to the built-in neo-Hookean,
// the stable time step, and its parameter messages.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <cmath>
#include <limits>

#include "../hgo_fibre/hgo_fibre.hpp"
#include "runner.hpp"

namespace plugins_test {
namespace {

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

TEST(HgoFibre, ArithmeticExpIsWithinTwoUlpOfTheLibrary) {
  double worst_d = 0, worst_f = 0;
  for (double x = -60; x <= 60; x += 0.00731) {
    const double ref = std::exp(x);
    worst_d = std::max(worst_d, std::abs(hgo::exp_arithmetic(x) - ref) / ref);
    const float xf = static_cast<float>(x);
    if (std::abs(xf) < 80) {
      const double reff = std::exp(static_cast<double>(xf));
      worst_f = std::max(worst_f, std::abs(hgo::exp_arithmetic(xf) - reff) / reff);
    }
  }
  EXPECT_LT(worst_d, 2 * std::numeric_limits<double>::epsilon()) << worst_d;
  EXPECT_LT(worst_f, 2 * std::numeric_limits<float>::epsilon()) << worst_f;
  EXPECT_EQ(hgo::exp_arithmetic(0.0), 1.0);
  EXPECT_TRUE(std::isinf(hgo::exp_arithmetic(1000.0)));
  EXPECT_EQ(hgo::exp_arithmetic(-1000.0), 0.0);
}

std::string block_case(const std::string& material, const std::string& element = "hex8",
                       const std::string& cells = "hex8") {
  return "mesh: {generator: box, cells: " + cells +
         ", size: [0.01, 0.01, 0.01], divisions: 2}\n"
         "materials:\n  m: " +
         material + "\nblocks: [{element: " + element +
         ", material: m}]\n"
         "node_sets:\n"
         "  bottom: {plane: {point: [0, 0, 0], normal: [0, 0, 1]}}\n"
         "  top: {plane: {point: [0, 0, 0.01], normal: [0, 0, 1]}}\n"
         "boundary_conditions:\n"
         "  - {set: bottom, fixed: all}\n"
         "  - {set: top, displacement: {x: 0.002, y: 0.001, z: 0.0015}, amplitude: {type: "
         "smooth_step}}\n"
         "solver: {end_time: 0.05, mass_damping: 50}\n";
}

const std::string kNeoHookean = "{type: neo_hookean, shear_modulus: 2000, bulk_modulus: 40000}";
std::string hgo(const std::string& k1, const std::string& extra = "") {
  return "{type: hgo_fibre, shear_modulus: 2000, bulk_modulus: 40000, k1: " + k1 +
         ", k2: 3, fibre_direction: [1, 1, 2]" + extra + "}";
}

TEST(HgoFibre, WithoutFibreStiffnessItIsTheBuiltInNeoHookean) {
  // Stretched along the fibres (I4 > 1), so the fibre branch is taken; with k1 = 0 it adds
  // nothing, and the same arithmetic as neo_hookean gives the same bits.
  for (const char* precision : {"double", "single"}) {
    for (const auto& [element, cells] :
         {std::pair<std::string, std::string>{"hex8", "hex8"}, {"tet10", "tet10"}}) {
      SCOPED_TRACE(std::string(precision) + " " + element);
      auto nh = prepare(block_case(kNeoHookean, element, cells), {{"precision", precision}});
      auto fib = prepare(block_case(hgo("0"), element, cells), {{"precision", precision}});
      const auto rn = run(*nh), rf = run(*fib);
      EXPECT_EQ(rn.time_step, rf.time_step);
      ASSERT_EQ(rn.steps, rf.steps);
      const auto un = nh->displacement(), uf = fib->displacement();
      ASSERT_EQ(un.size(), uf.size());
      double umax = 0;
      for (std::size_t i = 0; i < un.size(); ++i) {
        ASSERT_EQ(un[i], uf[i]) << "dof " << i;
        umax = std::max(umax, std::abs(un[i]));
      }
      EXPECT_GT(umax, 1e-3);  // it really deformed
      // And with fibres the answer differs.
      auto stiff = prepare(block_case(hgo("20000"), element, cells), {{"precision", precision}});
      run(*stiff);
      const auto us = stiff->displacement();
      double diff = 0;
      for (std::size_t i = 0; i < un.size(); ++i) diff = std::max(diff, std::abs(us[i] - un[i]));
      EXPECT_GT(diff, 1e-5);
    }
  }
}

/// Cauchy stress of the law in closed form (Eigen, std::exp), for a homogeneous F.
Eigen::Matrix3d expected_cauchy(const Eigen::Matrix3d& F, double mu, double kappa, double k1,
                                double k2, Eigen::Vector3d a) {
  a.normalize();
  const Eigen::Matrix3d C = F.transpose() * F, Ci = C.inverse();
  const double J = F.determinant(), I4 = a.dot(C * a);
  Eigen::Matrix3d S =
      mu * std::pow(J, -2.0 / 3.0) * (Eigen::Matrix3d::Identity() - C.trace() / 3.0 * Ci) +
      kappa * J * (J - 1) * Ci;
  if (I4 > 1) S += 2 * k1 * (I4 - 1) * std::exp(k2 * (I4 - 1) * (I4 - 1)) * a * a.transpose();
  return F * S * F.transpose() / J;
}

TEST(HgoFibre, StressMatchesTheClosedFormAndFibresCarryNoCompression) {
  const double mu = 2000, kappa = 40000, k1 = 5000, k2 = 3;
  const Eigen::Vector3d a(1, 1, 2);
  Eigen::Matrix3d stretch, squeeze;
  stretch << 1.08, 0.03, 0.01, -0.02, 1.05, 0.02, 0.01, 0.0, 1.12;  // I4 > 1
  squeeze << 0.9, 0.02, 0.0, 0.01, 0.93, -0.01, 0.0, 0.02, 0.92;    // I4 < 1
  for (const Eigen::Matrix3d& F : {stretch, squeeze}) {
    const double I4 = a.normalized().dot(F.transpose() * F * a.normalized());
    SCOPED_TRACE("I4 = " + std::to_string(I4));
    auto r = prepare(block_case(hgo("5000")));
    std::vector<double> u;
    for (std::int64_t i = 0; i < r->model.mesh.num_nodes(); ++i) {
      const Eigen::Vector3d X(r->model.mesh.coords[3 * i], r->model.mesh.coords[3 * i + 1],
                              r->model.mesh.coords[3 * i + 2]);
      const Eigen::Vector3d x = F * X;
      for (int k = 0; k < 3; ++k) u.push_back(x[k] - X[k]);
    }
    std::vector<fem::BlockResults> results;
    r->problem().element_results(u, results);
    const Eigen::Matrix3d s = expected_cauchy(F, mu, kappa, k1, k2, a);
    const double expected[6] = {s(0, 0), s(1, 1), s(2, 2), s(0, 1), s(1, 2), s(0, 2)};
    const auto& got = results.at(0).cauchy_stress;
    for (std::size_t e = 0; e < got.size() / 6; ++e)
      for (int c = 0; c < 6; ++c)
        ASSERT_NEAR(got[6 * e + c], expected[c], 1e-9 * s.cwiseAbs().maxCoeff())
            << "element " << e << " component " << c;
    // Under compression along the fibres the law is the matrix alone.
    if (I4 < 1) {
      const Eigen::Matrix3d m = expected_cauchy(F, mu, kappa, 0, k2, a);
      EXPECT_NEAR(got[0], m(0, 0), 1e-9 * m.cwiseAbs().maxCoeff());
    }
  }
}

TEST(HgoFibre, StableTimeStepAccountsForTheFibres) {
  auto nh = prepare(block_case(hgo("0")));
  auto fib = prepare(block_case(hgo("20000", ", max_fibre_stretch: 1.15")));
  const double dt0 = nh->solver->setup().critical_time_step;
  const double dt1 = fib->solver->setup().critical_time_step;
  // c^2 grows from kappa + 4/3 mu to that plus the fibre modulus at the largest stretch.
  const double m0 = 40000 + 4.0 / 3.0 * 2000, lambda = 1.15, d = lambda * lambda - 1;
  const double mf = 2 * 20000 * d * std::exp(3 * d * d) +
                    4 * lambda * lambda * 20000 * std::exp(3 * d * d) * (1 + 2 * 3 * d * d);
  EXPECT_NEAR(dt1 / dt0, std::sqrt(m0 / (m0 + mf)), 1e-12);
  EXPECT_LT(dt1, 0.6 * dt0);
}

/// The mean x displacement of the nodes at x = x_end, y in [y0, y0 + 0.01].
double tip_ux(const Run& r, const std::vector<double>& u, double y0) {
  const std::vector<double>& X = r.model.mesh.coords;
  double sum = 0;
  int n = 0;
  for (std::size_t i = 0; i < X.size() / 3; ++i)
    if (std::abs(X[3 * i] - 0.04) < 1e-9 && X[3 * i + 1] > y0 - 1e-9 &&
        X[3 * i + 1] < y0 + 0.01 + 1e-9) {
      sum += u[3 * i];
      ++n;
    }
  EXPECT_EQ(n, 9);
  return sum / n;
}

TEST(HgoFibre, PerBlockFibreDirectionEachBlockMovesAsAloneWithItsDirection) {
  // plugins/cases/fibre_two_blocks.yaml: two separate bars (regions fibres_x, fibres_y of a mesh
  // file), materials 'along' (fibres along x) and 'across' (along y), both pulled along x.
  const std::string file = std::string(FEM_PLUGINS_SOURCE_DIR) + "/cases/fibre_two_blocks.yaml";
  auto both = prepare(fem::load_case(file));
  ASSERT_EQ(both->model.blocks.size(), 2u);
  EXPECT_NE(both->model.blocks[0].params, both->model.blocks[1].params);
  run(*both);
  const std::vector<double> u = both->displacement();
  const std::vector<double>& X = both->model.mesh.coords;

  struct Bar {
    const char* material;
    double y0;
  };
  double tip[2] = {0, 0};
  int b = 0;
  for (const Bar& bar : {Bar{"along", 0.0}, Bar{"across", 0.02}}) {
    SCOPED_TRACE(bar.material);
    tip[b++] = tip_ux(*both, u, bar.y0);
    // The same bar alone, generated, with the same material, load and solver.
    auto alone = prepare(fem::load_case(
        file, {{"mesh", "{generator: box, cells: hex8, origin: [0, " + std::to_string(bar.y0) +
                            ", 0], size: [0.04, 0.01, 0.01], divisions: [8, 2, 2]}"},
               {"blocks", "[{element: hex8, material: " + std::string(bar.material) + "}]"},
               {"node_sets",
                "{fixed_end: {plane: {point: [0, 0, 0], normal: [1, 0, 0]}}, "
                "pulled_end: {plane: {point: [0.04, 0, 0], normal: [1, 0, 0]}}}"},
               {"output.histories", "[]"}}));
    run(*alone);
    const std::vector<double> ua = alone->displacement();
    const std::vector<double>& Xa = alone->model.mesh.coords;
    double umax = 0, diff = 0;
    for (std::size_t i = 0; i < Xa.size() / 3; ++i) {
      std::size_t j = 0;  // the same point in the two-block mesh
      while (j < X.size() / 3 && (std::abs(X[3 * j] - Xa[3 * i]) > 1e-12 ||
                                  std::abs(X[3 * j + 1] - Xa[3 * i + 1]) > 1e-12 ||
                                  std::abs(X[3 * j + 2] - Xa[3 * i + 2]) > 1e-12))
        ++j;
      ASSERT_LT(j, X.size() / 3) << "point " << i << " of the bar alone";
      for (int k = 0; k < 3; ++k) {
        umax = std::max(umax, std::abs(ua[3 * i + k]));
        diff = std::max(diff, std::abs(ua[3 * i + k] - u[3 * j + k]));
      }
    }
    EXPECT_GT(umax, 5e-4);
    // Only the order of summation differs (the file mesh is renumbered): round-off.
    EXPECT_LE(diff, 1e-10 * umax);
    EXPECT_NEAR(tip_ux(*alone, ua, bar.y0), tip[b - 1], 1e-10 * umax);
  }
  // The bar pulled along its fibres is the stiffer one, by far.
  EXPECT_GT(tip[0], 1e-4);
  EXPECT_LT(tip[0], 0.5 * tip[1]) << "along x: " << tip[0] << ", across: " << tip[1];
}

std::string error_of(const std::string& material) {
  try {
    (void)prepare(block_case(material));
  } catch (const fem::InputError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(HgoFibre, BadParametersAreReportedWithFileLineAndColumn) {
  // The material mapping starts on line 3, column 6 of the case text. Each message must point at
  // the first occurrence of `at` in the parameters (the offending key or value), or at the
  // mapping itself for a missing key (`at` empty).
  const std::string base = "type: hgo_fibre, shear_modulus: 2000, bulk_modulus: 40000";
  struct Bad {
    std::string params, at, what;
  };
  const Bad cases[] = {
      {"k1: 1, k2: 3, fibre_direction: [1, 0, 0], k3: 1", "k3", "unknown parameter 'k3'"},
      {"k1: 1, fibre_direction: [1, 0, 0]", "", "missing required parameter 'k2'"},
      {"k2: 3, fibre_direction: [1, 0, 0]", "", "missing required parameter 'k1'"},
      {"k1: 1, k2: 3", "", "missing required parameter 'fibre_direction'"},
      {"k1: stiff, k2: 3, fibre_direction: [1, 0, 0]", "stiff", "'k1' must be a number"},
      {"k1: [1, 2], k2: 3, fibre_direction: [1, 0, 0]", "[1, 2]", "'k1' must be a number"},
      {"k1: 1, k2: 3, fibre_direction: 1", "1}", "'fibre_direction' must be a list of 3"},
      {"k1: 1, k2: 0, fibre_direction: [1, 0, 0]", "0, fibre", "'k2' must be > 0"},
      {"k1: 1, k2: -2, fibre_direction: [1, 0, 0]", "-2", "'k2' must be > 0"},
      {"k1: -1, k2: 3, fibre_direction: [1, 0, 0]", "-1", "'k1'"},
      {"k1: 1, k2: 3, fibre_direction: [0, 0, 0]", "[0, 0, 0]", "non-zero"},
      {"k1: 1, k2: 3, fibre_direction: [1, 0]", "[1, 0]", "list of 3 numbers"},
      {"k1: 1, k2: 3, fibre_direction: [1, x, 0]", "x", "must be a number"},
      {"k1: 1, k2: 3, fibre_direction: [1, 0, 0], max_fibre_stretch: 0.9", "0.9",
       "max_fibre_stretch"},
  };
  for (const Bad& b : cases) {
    const std::string material = "{" + base + ", " + b.params + "}";
    const std::size_t column = b.at.empty() ? 6 : 6 + material.find(b.at);
    const std::string msg = error_of(material);
    const std::string where =
        "<test>:3:" + std::to_string(column) + ": error: material 'm' (hgo_fibre): ";
    EXPECT_TRUE(contains(msg, where)) << b.params << "\n" << msg << "\nexpected at " << where;
    EXPECT_TRUE(contains(msg, b.what)) << b.params << "\n" << msg;
  }
  // A misspelt key gets a did-you-mean.
  const std::string msg = error_of("{" + base + ", k1: 1, k2: 3, fibre_directon: [1, 0, 0]}");
  EXPECT_TRUE(contains(msg, "fibre_direction")) << msg;
}

}  // namespace
}  // namespace plugins_test
