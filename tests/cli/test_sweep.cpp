// `fem sweep`: the plan of runs (apps/fem/sweep_plan.cpp) and the command end to end.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <fem/error.hpp>

#include "support/run_fem.hpp"
#include "sweep_plan.hpp"

namespace fem::cli {
namespace {

namespace fs = std::filesystem;

const std::string kCase = std::string(FEM_TEST_DATA_DIR) + "/small_cube.yaml";

std::string error_of(const std::vector<std::string>& sets, int samples = 0) {
  try {
    std::vector<SweepParameter> parameters;
    for (const std::string& s : sets) parameters.push_back(parse_sweep_parameter(s));
    (void)sweep_runs(parameters, samples, 1);
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

#define EXPECT_HAS(text, part) EXPECT_NE((text).find(part), std::string::npos) << (text)

TEST(SweepPlan, ValuesSplitAtTopLevelCommasOnly) {
  EXPECT_EQ(split_sweep_values("1, 2,3"), (std::vector<std::string>{"1", "2", "3"}));
  EXPECT_EQ(split_sweep_values("[1, 2],[3, 4]"), (std::vector<std::string>{"[1, 2]", "[3, 4]"}));
  EXPECT_EQ(split_sweep_values("{a: 1, b: 2}, 'x,y', \"p,q\""),
            (std::vector<std::string>{"{a: 1, b: 2}", "'x,y'", "\"p,q\""}));
}

TEST(SweepPlan, ProductVariesTheLastParameterFastest) {
  const std::vector<SweepParameter> p = {parse_sweep_parameter("a=1,2"),
                                         parse_sweep_parameter("b.c=x,y,z")};
  const auto runs = sweep_runs(p, 0, 1);
  ASSERT_EQ(runs.size(), 6u);
  EXPECT_EQ(runs[0], (std::vector<std::string>{"a=1", "b.c=x"}));
  EXPECT_EQ(runs[1], (std::vector<std::string>{"a=1", "b.c=y"}));
  EXPECT_EQ(runs[5], (std::vector<std::string>{"a=2", "b.c=z"}));
}

TEST(SweepPlan, SamplesAreDrawnReproduciblyWithinTheirDistributions) {
  const std::vector<SweepParameter> p = {
      parse_sweep_parameter("u=uniform(2, 3)"), parse_sweep_parameter("n=normal(10, 0.5)"),
      parse_sweep_parameter("l=lognormal(0, 0.25)"), parse_sweep_parameter("c=a,b")};
  const auto runs = sweep_runs(p, 200, 7);
  ASSERT_EQ(runs.size(), 200u);
  EXPECT_EQ(runs, sweep_runs(p, 200, 7));  // the same seed, the same runs
  EXPECT_NE(runs, sweep_runs(p, 200, 8));
  double mean_n = 0.0;
  std::set<std::string> choices;
  for (const auto& run : runs) {
    ASSERT_EQ(run.size(), 4u);
    const double u = std::stod(run[0].substr(2));
    EXPECT_GE(u, 2.0);
    EXPECT_LT(u, 3.0);
    mean_n += std::stod(run[1].substr(2)) / 200.0;
    EXPECT_GT(std::stod(run[2].substr(2)), 0.0);
    choices.insert(run[3]);
  }
  EXPECT_NEAR(mean_n, 10.0, 0.2);  // 4 standard errors of the mean
  EXPECT_EQ(choices, (std::set<std::string>{"c=a", "c=b"}));
}

TEST(SweepPlan, BadParametersAreRefusedAtTheCommandLine) {
  EXPECT_HAS(error_of({"novalue"}), "<command line>: error: --set 'novalue' is not of the form");
  EXPECT_HAS(error_of({"a=1,,2"}), "an empty value in the list");
  EXPECT_HAS(error_of({"a=1", "a=2"}), "--set a is given twice");
  EXPECT_HAS(error_of({"a=uniform(1, 2)"}), "distributions need --samples N");
  EXPECT_HAS(error_of({"a=uniform(2, 1)"}, 5), "uniform needs low < high");
  EXPECT_HAS(error_of({"a=normal(1)"}, 5), "normal takes two numbers");
  EXPECT_HAS(error_of({"a=normal(1, x)"}, 5), "'x' is not a number");
  EXPECT_HAS(error_of({"a=lognormal(1, 0)"}, 5), "the spread must be > 0");
}

/// The cells of sweep.csv by column name, one map per row.
std::vector<std::map<std::string, std::string>> read_table(const std::string& path) {
  std::stringstream in(fem::test::read_text(path));
  std::string line;
  std::getline(in, line);
  std::vector<std::string> names;
  for (std::stringstream s(line); std::getline(s, line, ',');) names.push_back(line);
  std::vector<std::map<std::string, std::string>> rows;
  while (std::getline(in, line)) {
    std::map<std::string, std::string> row;
    std::size_t column = 0;
    std::string cell;
    bool quoted = false;
    for (const char c : line + ",") {
      if (c == '"') {
        quoted = !quoted;
      } else if (c == ',' && !quoted) {
        if (column < names.size()) row[names[column]] = cell;
        ++column;
        cell.clear();
      } else {
        cell += c;
      }
    }
    rows.push_back(row);
  }
  return rows;
}

/// The last value of `column` in a history CSV.
std::string last_of(const std::string& csv_path, const std::string& column) {
  std::stringstream in(fem::test::read_text(csv_path));
  std::string header, line, last;
  std::getline(in, header);
  while (std::getline(in, line))
    if (!line.empty()) last = line;
  std::vector<std::string> names, values;
  for (std::stringstream s(header); std::getline(s, line, ',');) names.push_back(line);
  for (std::stringstream s(last); std::getline(s, line, ',');) values.push_back(line);
  for (std::size_t i = 0; i < names.size() && i < values.size(); ++i)
    if (names[i] == column) return values[i];
  return "missing";
}

TEST(Sweep, SixRunsMatchSeparateRunsAndAFailedOneIsRecorded) {
  const std::string dir = fem::test::fresh_temp_dir("fem_sweep_test", "product");
  // 3 moduli (one invalid) x 2 dampings = 6 runs, two at once.
  const auto r = fem::test::run_fem(
      "sweep " + kCase +
      " --set materials.brain.youngs_modulus=3000,6000,-5 --set solver.mass_damping=5,20"
      " --history top.reaction_force_z --fix output.vtk=false --jobs 2 --output " +
      dir + "/sweep");
  EXPECT_EQ(r.code, 2) << r.output;  // the first failed run's exit code: bad input
  EXPECT_HAS(r.output, "4 of 6 runs completed");
  const auto rows = read_table(dir + "/sweep/sweep.csv");
  ASSERT_EQ(rows.size(), 6u);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto& row = rows[i];
    const std::string modulus = row.at("materials.brain.youngs_modulus");
    const std::string damping = row.at("solver.mass_damping");
    EXPECT_EQ(modulus, i < 2 ? "3000" : i < 4 ? "6000" : "-5");
    EXPECT_EQ(damping, i % 2 == 0 ? "5" : "20");
    if (modulus == "-5") {
      EXPECT_EQ(row.at("status"), "bad input");
      EXPECT_EQ(row.at("exit_code"), "2");
      EXPECT_HAS(row.at("error"), "'youngs_modulus' must be > 0");
      continue;
    }
    EXPECT_EQ(row.at("status"), "completed");
    EXPECT_EQ(row.count("summary.status"), 0u);  // status has its own column
    EXPECT_EQ(row.at("summary.model.elements"), "27");
    // The same overrides in a run of their own give the same reaction, to the last digit.
    const std::string own = dir + "/own" + std::to_string(i);
    const auto single = fem::test::run_fem(
        "run " + kCase + " --quiet --set output.vtk=false --set materials.brain.youngs_modulus=" +
        modulus + " --set solver.mass_damping=" + damping + " --output " + own);
    ASSERT_EQ(single.code, 0) << single.output;
    EXPECT_EQ(row.at("top.reaction_force_z"), last_of(own + "/top.csv", "reaction_force_z"));
    EXPECT_TRUE(fs::exists(dir + "/sweep/run_00" + std::to_string(i) + "/summary.json"));
  }
  // Stiffer, larger reaction; the JSON holds the same runs.
  EXPECT_LT(std::stod(rows[2].at("top.reaction_force_z")),
            1.5 * std::stod(rows[0].at("top.reaction_force_z")));
  const std::string json = fem::test::read_text(dir + "/sweep/sweep.json");
  EXPECT_HAS(json, "\"status\": \"bad input\"");
  EXPECT_HAS(json, "\"top.reaction_force_z\"");
}

TEST(Sweep, AMisspeltKeyStopsTheSweepBeforeAnyRun) {
  const std::string dir = fem::test::fresh_temp_dir("fem_sweep_test", "typo");
  const auto r = fem::test::run_fem(
      "sweep " + kCase + " --set materials.brain.youngs_modulos=1,2 --output " + dir + "/sweep");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_HAS(r.output, "youngs_modulos");
  EXPECT_FALSE(fs::exists(dir + "/sweep/run_000"));
}

TEST(Sweep, DryRunPrintsTheRunsCommandLines) {
  const auto r =
      fem::test::run_fem("sweep " + kCase +
                         " --set 'mesh.divisions=[2, 2, 2],[3, 3, 3]' --samples 3 "
                         "--set 'solver.mass_damping=uniform(1,2)' --dry-run --output x");
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_HAS(r.output, "--output x/run_002 --set 'mesh.divisions=[");
  EXPECT_EQ(r.output.find("run_003"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace fem::cli
