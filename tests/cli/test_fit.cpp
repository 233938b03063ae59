// `fem fit`: the least-squares core (apps/fem/least_squares.cpp), the curves (fit_curve.cpp) and
// the command end to end on a neo-Hookean cube whose curve fem generated itself.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include <fem/error.hpp>

#include "fit.hpp"
#include "least_squares.hpp"
#include "support/run_fem.hpp"

namespace fem::cli {
namespace {

const std::string kCase = std::string(FEM_TEST_DATA_DIR) + "/small_cube.yaml";

#define EXPECT_HAS(text, part) EXPECT_NE((text).find(part), std::string::npos) << (text)

TEST(LeastSquares, RecoversTwoParametersOfAnExponentialFromHalfOff) {
  // y = a exp(-t / b), a = 3, b = 0.7, with a small deterministic disturbance.
  std::vector<double> t, y;
  for (int i = 0; i < 30; ++i) {
    t.push_back(0.1 * i);
    y.push_back(3.0 * std::exp(-t.back() / 0.7) + 1e-4 * std::sin(7.0 * i));
  }
  int calls = 0;
  const ResidualFunction f = [&](const std::vector<double>& p, std::vector<double>& r) {
    ++calls;
    for (std::size_t i = 0; i < t.size(); ++i) r[i] = p[0] * std::exp(-t[i] / p[1]) - y[i];
    return true;
  };
  const LeastSquaresResult fit = fit_positive_parameters(f, {4.5, 0.35}, t.size(), 200);
  EXPECT_TRUE(fit.converged) << fit.stop_reason;
  EXPECT_NEAR(fit.parameters[0], 3.0, 3e-4);
  EXPECT_NEAR(fit.parameters[1], 0.7, 3e-4);
  EXPECT_EQ(fit.evaluations, calls);
  EXPECT_LT(fit.rms, 1e-4);
  // The standard errors are those of the disturbance's size: the truth lies within 4 of them.
  for (int i = 0; i < 2; ++i) {
    EXPECT_GT(fit.standard_errors[i], 0.0);
    EXPECT_LT(fit.standard_errors[i], 1e-3);
  }
  EXPECT_LT(std::abs(fit.parameters[0] - 3.0), 4 * fit.standard_errors[0]);
  EXPECT_LT(std::abs(fit.parameters[1] - 0.7), 4 * fit.standard_errors[1]);
}

TEST(LeastSquares, FailedEvaluationsAreSteppedBackFromAndTheLimitHolds) {
  // The model fails for p > 2; the optimum (p = 1.9) lies close to that edge.
  const ResidualFunction f = [](const std::vector<double>& p, std::vector<double>& r) {
    if (p[0] > 2.0) return false;
    r[0] = p[0] - 1.9;
    r[1] = 2.0 * (p[0] - 1.9);
    return true;
  };
  const LeastSquaresResult fit = fit_positive_parameters(f, {1.0}, 2, 100);
  EXPECT_NEAR(fit.parameters[0], 1.9, 1e-6);
  const LeastSquaresResult capped = fit_positive_parameters(f, {1.0}, 2, 3);
  EXPECT_FALSE(capped.converged);
  EXPECT_LE(capped.evaluations, 3 + 2);  // the limit, then the report's Jacobian
}

TEST(LeastSquares, ParametersACurveCannotSeparateHaveNoStandardError) {
  // Only the product p0 p1 enters: any split fits.
  const ResidualFunction f = [](const std::vector<double>& p, std::vector<double>& r) {
    for (int i = 0; i < 5; ++i) r[i] = p[0] * p[1] * i - 6.0 * i;
    return true;
  };
  const LeastSquaresResult fit = fit_positive_parameters(f, {1.0, 1.0}, 5, 100);
  EXPECT_NEAR(fit.parameters[0] * fit.parameters[1], 6.0, 1e-6);
  EXPECT_TRUE(std::isnan(fit.standard_errors[0]));
}

TEST(FitCurve, InterpolatesAlongMonotoneHistoriesAndSaysWhyNot) {
  std::vector<double> out;
  // Decreasing x (a displacement going down), held at its start.
  EXPECT_EQ(interpolate({0, 0, -1, -2}, {5, 0, 10, 30}, {-0.5, -1.5, 0}, out), "");
  EXPECT_DOUBLE_EQ(out[0], 5.0);
  EXPECT_DOUBLE_EQ(out[1], 20.0);
  EXPECT_DOUBLE_EQ(out[2], 0.0);  // the later of the repeated x = 0
  EXPECT_HAS(interpolate({0, 1, 0.5}, {0, 1, 2}, {0.2}, out), "not monotone");
  EXPECT_HAS(interpolate({0, 1}, {0, 1}, {1.5}, out), "outside the run's range [0, 1]");
  EXPECT_HAS(interpolate({1, 1}, {0, 1}, {1}, out), "does not change");
}

TEST(FitCurve, DataFilesTakeAHeaderCommentsAndSeparators) {
  const std::string dir = fem::test::fresh_temp_dir("fem_fit_test", "curve");
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/d.csv")
      << "displacement,force\n# measured\n0,0\n-0.001; 0.9\n-0.002\t1.8\n";
  const Curve c = read_curve(dir + "/d.csv");
  EXPECT_EQ(c.x, (std::vector<double>{0, -0.001, -0.002}));
  EXPECT_EQ(c.y, (std::vector<double>{0, 0.9, 1.8}));
  std::ofstream(dir + "/bad.csv") << "x,y\n0,0\n1,oops\n";
  try {
    (void)read_curve(dir + "/bad.csv");
    ADD_FAILURE() << "read";
  } catch (const InputError& e) {
    EXPECT_HAS(std::string(e.what()), "bad.csv:3:1: error: '1,oops' is not two numbers");
  }
}

TEST(Fit, RecoversTheNeoHookeanModulusOfACurveFemGenerated) {
  const std::string dir = fem::test::fresh_temp_dir("fem_fit_test", "cube");
  // The "measurement": the cube with E = 3000 Pa, reaction force against the top's displacement.
  const auto truth = fem::test::run_fem("run " + kCase +
                                        " --quiet --set output.vtk=false --set "
                                        "materials.brain.youngs_modulus=3000 --output " +
                                        dir + "/truth");
  ASSERT_EQ(truth.code, 0) << truth.output;
  std::stringstream top(fem::test::read_text(dir + "/truth/top.csv"));
  std::string line;
  std::getline(top, line);  // time,step,displacement_x,..._z,reaction_force_x,..._z
  std::ofstream data(dir + "/measured.csv");
  data << "displacement_z,reaction_force_z\n";
  int points = 0;
  while (std::getline(top, line)) {
    std::vector<std::string> cells;
    std::stringstream row(line);
    for (std::string cell; std::getline(row, cell, ',');) cells.push_back(cell);
    if (points++ % 3 == 1) data << cells[4] << ',' << cells[7] << '\n';  // every third row
  }
  data.close();
  // From 50 % off.
  const auto r = fem::test::run_fem("fit " + kCase +
                                    " --param materials.brain.youngs_modulus=4500 --data " + dir +
                                    "/measured.csv --x top.displacement_z --y top.reaction_force_z "
                                    "--max-runs 40 --output " +
                                    dir + "/fit");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_HAS(r.output, "fem fit: converged");
  const nlohmann::json fit = nlohmann::json::parse(fem::test::read_text(dir + "/fit/fit.json"));
  const double e = fit["parameters"]["materials.brain.youngs_modulus"]["value"].get<double>();
  EXPECT_NEAR(e, 3000.0, 30.0);  // the 1 %
  EXPECT_NEAR(e, 3000.0, 0.01);  // in fact: the curve is fem's own
  EXPECT_LT(fit["evaluations"].get<int>(), 40);
  EXPECT_TRUE(fit["converged"].get<bool>());
}

TEST(Fit, AStartThatCannotRunStopsTheFitWithItsReason) {
  const std::string dir = fem::test::fresh_temp_dir("fem_fit_test", "bad");
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/d.csv") << "0,0\n-0.005,-1\n-0.01,-2\n";
  const auto typo =
      fem::test::run_fem("fit " + kCase + " --param materials.brain.youngs_modulos=3000 --data " +
                         dir + "/d.csv --x top.displacement_z --y top.reaction_force_z");
  EXPECT_EQ(typo.code, 2) << typo.output;
  EXPECT_HAS(typo.output, "youngs_modulos");
  const auto column = fem::test::run_fem(
      "fit " + kCase + " --param materials.brain.youngs_modulus=3000 --data " + dir +
      "/d.csv --x top.displacement_z --y top.reaction --output " + dir + "/fit");
  EXPECT_EQ(column.code, 2) << column.output;
  EXPECT_HAS(column.output, "top.csv has no column 'reaction'");
  const auto negative =
      fem::test::run_fem("fit " + kCase + " --param materials.brain.youngs_modulus=-3 --data " +
                         dir + "/d.csv --x top.displacement_z --y top.reaction");
  EXPECT_EQ(negative.code, 2) << negative.output;
  EXPECT_HAS(negative.output, "start > 0");
}

}  // namespace
}  // namespace fem::cli
