// The `fem` program end to end: run, check, plugins, overrides, exit codes and files.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include <fem/mesh/readers.hpp>
#include <fem/output/vtk_series.hpp>
#include <fem/plugin.hpp>

#include "support/run_fem.hpp"

namespace {
namespace fs = std::filesystem;

using Result = fem::test::FemResult;
Result fem(const std::string& args) {
  return fem::test::run_fem(args);
}

const std::string kCase = std::string(FEM_TEST_DATA_DIR) + "/small_cube.yaml";

std::string temp_dir(const std::string& name) {
  return fem::test::fresh_temp_dir("fem_cli_test", name);
}

std::string read(const std::string& path) {
  return fem::test::read_text(path);
}

TEST(Cli, RunWritesSeriesHistoriesAndSummary) {
  const std::string out = temp_dir("run");
  const Result r = fem("run " + kCase + " --output " + out);
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("element-steps/s"), std::string::npos) << r.output;
  EXPECT_TRUE(fs::exists(out + "/summary.json"));
  EXPECT_TRUE(fs::exists(out + "/top.csv"));
  EXPECT_TRUE(fs::exists(out + "/energy.csv"));
  const std::string summary = read(out + "/summary.json");
  EXPECT_NE(summary.find("\"completed\""), std::string::npos) << summary;
  EXPECT_NE(summary.find("element_steps_per_s"), std::string::npos) << summary;
  // The top face ends 10 mm down: last row of top.csv, displacement_z column.
  const std::string csv = read(out + "/top.csv");
  const std::string last = csv.substr(csv.rfind('\n', csv.size() - 2) + 1);
  std::stringstream row(last);
  std::string cell;
  std::vector<double> values;
  while (std::getline(row, cell, ',')) values.push_back(std::stod(cell));
  ASSERT_EQ(values.size(), 8u) << last;  // time, step, displacement xyz, reaction xyz
  EXPECT_NEAR(values[0], 0.5, 1e-9);
  EXPECT_NEAR(values[4], -0.01, 1e-9);
  EXPECT_LT(values[7], 0.0);  // compressive reaction on the top face
  if (fem::vtk_output_available()) {
    EXPECT_TRUE(fs::exists(out + "/small_cube.pvd"));
  }
  fs::remove_all(out);
}

TEST(Cli, FramesCarryTheNamedSetsAndReadBackAsAMesh) {
  if (!fem::vtk_output_available()) GTEST_SKIP() << "built without VTK";
  const std::string out = temp_dir("sets");
  ASSERT_EQ(fem("run " + kCase + " -q --output " + out).code, 0);
  // VTK's reader finds 0/1 arrays per node set and per block's region in every frame.
  const fem::VtuContents frame = fem::read_vtu(out + "/small_cube_000003.vtu");
  ASSERT_EQ(frame.mesh.point_sets.size(), 2u);
  EXPECT_EQ(frame.mesh.point_sets[0].name, "bottom");
  EXPECT_EQ(frame.mesh.point_sets[1].name, "top");
  ASSERT_EQ(frame.mesh.cell_sets.size(), 1u);
  EXPECT_EQ(frame.mesh.cell_sets[0].name, "domain");
  EXPECT_EQ(
      std::count(frame.mesh.cell_sets[0].flags.begin(), frame.mesh.cell_sets[0].flags.end(), 1),
      27);
  // The top nodes are those at z = 0.05: 16 of the 4 x 4 x 4.
  const auto& top = frame.mesh.point_sets[1].flags;
  EXPECT_EQ(std::count(top.begin(), top.end(), 1), 16);
  for (std::size_t p = 0; p < top.size(); ++p)
    EXPECT_EQ(top[p] == 1, std::abs(frame.mesh.points[3 * p + 2] - 0.05) < 1e-12) << p;
  // fem reads a result file as a mesh: its node sets and regions are the case's.
  const fem::Mesh mesh = fem::read_mesh(out + "/small_cube_000003.vtu");
  EXPECT_EQ(mesh.node_sets.at("top").size(), 16u);
  EXPECT_EQ(mesh.node_sets.at("bottom").size(), 16u);
  ASSERT_EQ(mesh.regions.size(), 1u);
  EXPECT_EQ(mesh.regions[0].name, "domain");
  EXPECT_EQ(mesh.regions[0].num_cells(), 27);
  // output.sets: false leaves them out.
  const std::string bare = temp_dir("nosets");
  ASSERT_EQ(fem("run " + kCase + " -q --set output.sets=false --output " + bare).code, 0);
  const fem::VtuContents plain = fem::read_vtu(bare + "/small_cube_000003.vtu");
  EXPECT_TRUE(plain.mesh.point_sets.empty());
  EXPECT_TRUE(plain.mesh.cell_sets.empty());
  EXPECT_EQ(plain.point_fields.size(), frame.point_fields.size());
  fs::remove_all(out);
  fs::remove_all(bare);
}

TEST(Cli, OverridesApplyWithoutEditingTheCase) {
  const std::string out = temp_dir("override");
  const Result r = fem("run " + kCase + " --output " + out +
                       " --precision single --end-time 0.1 --set solver.mass_damping=50 -q");
  ASSERT_EQ(r.code, 0) << r.output;
  const std::string summary = read(out + "/summary.json");
  EXPECT_NE(summary.find("\"single\""), std::string::npos) << summary;
  EXPECT_NE(summary.find("0.1"), std::string::npos) << summary;
  fs::remove_all(out);
}

TEST(Cli, DeviceOnABackendWithoutDevicesIsIgnoredWithAWarning) {
  // One case runs on every backend: `device` picks a GPU and means nothing to openmp.
  const std::string out = temp_dir("device");
  const Result r = fem("run " + kCase + " --output " + out + " --device 2 --end-time 0.05 -q");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("device 2 is ignored: backend 'openmp' runs on OpenMP"),
            std::string::npos)
      << r.output;
  EXPECT_TRUE(fs::exists(out + "/summary.json"));
  fs::remove_all(out);
}

TEST(Cli, CheckPrintsTheResolvedModelAndRunsNothing) {
  const std::string out = temp_dir("check");
  const Result r = fem("check " + kCase + " --output " + out);
  ASSERT_EQ(r.code, 0) << r.output;
  for (const char* word : {"64 nodes", "27 elements of hex8r", "neo_hookean", "bottom: 16 nodes",
                           "time step", "steps"})
    EXPECT_NE(r.output.find(word), std::string::npos) << word << "\n" << r.output;
  EXPECT_FALSE(fs::exists(out));
}

TEST(Cli, CheckSaysAPlaneModelIsPerMetreOfThicknessAndShowsItsLayers) {
  const std::string plane = std::string(FEM_SOURCE_DIR) + "/cases/wave_plane.yaml";
  const Result r =
      fem("check " + plane +
          " --set 'mesh.divisions=[60,30]' --set 'solver.absorbing_layers=[{set: left, "
          "thickness: 0.01, max_damping: 3.0e7, stiffness_reduction: 4}]'");
  ASSERT_EQ(r.code, 0) << r.output;
  for (const char* word : {"3600 tri3 cells", "plane strain: area 0.0018 m^2",
                           "kg per metre of thickness", "stiffness x exp(-4 (x/L)^3)"})
    EXPECT_NE(r.output.find(word), std::string::npos) << word << "\n" << r.output;
}

TEST(Cli, PluginsListsEveryKind) {
  const Result r = fem("plugins");
  ASSERT_EQ(r.code, 0) << r.output;
  for (const char* word : {"openmp", "OpenMP", "tet4", "hex8r", "neo_hookean", "backends: "})
    EXPECT_NE(r.output.find(word), std::string::npos) << word << "\n" << r.output;
  // Whether `import fem` is built by this build, for which Python and where it is, or why not
  // (configuring decides; a build of some targets only may not have made it yet).
  const std::size_t python = r.output.find("python module: ");
  ASSERT_NE(python, std::string::npos) << r.output;
  const std::string line = r.output.substr(python, r.output.find('\n', python) - python);
  if (line.find("python module: built for Python 3.") == 0) {
    EXPECT_NE(line.find("PYTHONPATH=" + std::string(FEM_BINARY_DIR) + "/python"), std::string::npos)
        << line;
  } else {
    EXPECT_EQ(line.find("python module: not built"), 0u) << line;
  }
}

TEST(Cli, PluginsShowVersionsAbisAndWhereBackendsRun) {
  // The old-ABI fixture on the path: refused, listed with its ABI and this fem's.
  const std::string abi_dir = std::string(FEM_BINARY_DIR) + "/tests/plugin_fixtures/abi";
  const Result r = fem("plugins --path " + abi_dir);
  ASSERT_EQ(r.code, 0) << r.output;
  const std::string abi = "ABI " + std::to_string(FEM_PLUGIN_ABI_VERSION);
  // First line: fem's version and the plugin ABI it loads.
  ASSERT_EQ(r.output.rfind("fem ", 0), 0u) << r.output;
  const std::string first = r.output.substr(0, r.output.find('\n'));
  const std::string version = first.substr(4, first.find(',') - 4);
  EXPECT_EQ(first, "fem " + version + ", plugin " + abi) << first;
  // Every built-in plugin's line: its own version (fem's), the ABI it was built against, its file.
  std::stringstream lines(r.output);
  std::string line;
  int listed = 0;
  while (std::getline(lines, line))
    if (line.find("/lib/fem/plugins/") != std::string::npos) {
      EXPECT_NE(line.find(" " + version + " "), std::string::npos) << line;
      EXPECT_NE(line.find(" " + abi + "  "), std::string::npos) << line;
      ++listed;
    }
  EXPECT_GE(listed, 8) << r.output;  // openmp, 4 elements, 3 materials at least
  // The execution space of each backend that runs here.
  EXPECT_NE(r.output.find("openmp.backend.so  [OpenMP, "), std::string::npos) << r.output;
  if (fs::exists(std::string(FEM_BINARY_DIR) + "/lib/fem/plugins/kokkos.backend.so")) {
    // Its space and Kokkos version, or (a device build on a machine without the device) why not.
    EXPECT_TRUE(r.output.find("kokkos.backend.so  [Kokkos ") != std::string::npos ||
                r.output.find("kokkos.backend.so  [unavailable: ") != std::string::npos)
        << r.output;
  }
  const std::size_t problems = r.output.find("problems:\n");
  ASSERT_NE(problems, std::string::npos) << r.output;
  const std::string refused = r.output.substr(problems);
  EXPECT_NE(refused.find("wrong_abi.so"), std::string::npos) << refused;
  EXPECT_NE(refused.find("ABI " + std::to_string(FEM_PLUGIN_ABI_VERSION + 998)), std::string::npos)
      << refused;
  EXPECT_NE(refused.find("this fem uses " + abi), std::string::npos) << refused;
  EXPECT_NE(refused.find("rebuild"), std::string::npos) << refused;
}

TEST(Cli, BadCaseExitsWithTwoAndALocatedMessage) {
  const std::string bad = temp_dir("bad") + ".yaml";
  std::ofstream(bad) << read(kCase) << "solver: {end_time: 1.0, safty_factor: 0.5}\n";
  const Result r = fem("run " + bad);
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find(bad + ":"), std::string::npos) << r.output;
  fs::remove(bad);
}

TEST(Cli, FailedSolveExitsWithThreeAndKeepsOutput) {
  const std::string out = temp_dir("crush");
  const Result r =
      fem("run " + kCase + " --output " + out +
          " --set boundary_conditions.1.displacement.z=-0.08 --set amplitudes.loading.end=0.1");
  EXPECT_EQ(r.code, 3) << r.output;
  EXPECT_NE(r.output.find("inverted"), std::string::npos) << r.output;
  EXPECT_TRUE(fs::exists(out + "/summary.json"));
  EXPECT_NE(read(out + "/summary.json").find("\"failed\""), std::string::npos);
  if (fem::vtk_output_available()) {
    EXPECT_TRUE(fs::exists(out + "/small_cube_last_good.vtu"));
    EXPECT_TRUE(fs::exists(out + "/small_cube.pvd"));
  }
  fs::remove_all(out);
}

TEST(Cli, EveryShippedCaseIsValid) {
  int cases = 0;
  for (const auto& entry : fs::directory_iterator(std::string(FEM_SOURCE_DIR) + "/cases")) {
    if (entry.path().extension() != ".yaml") continue;
    ++cases;
    const Result r = fem("check " + entry.path().string());
    EXPECT_EQ(r.code, 0) << entry.path() << "\n" << r.output;
  }
  EXPECT_GE(cases, 2);
}

TEST(Cli, BadMeshFileExitsWithTwoAndNamesTheLine) {
  // The shipped mixed case, with one node reference of its mesh broken.
  const std::string dir = temp_dir("bad_mesh");
  fs::create_directories(dir + "/meshes");
  std::string mesh = read(std::string(FEM_SOURCE_DIR) + "/cases/meshes/mixed_ellipsoid.msh");
  const std::size_t first_tet = mesh.find("\n3 2 4 2688\n") + 13;
  const std::size_t end_of_line = mesh.find('\n', first_tet);
  mesh.replace(mesh.rfind(' ', end_of_line) + 1, end_of_line - mesh.rfind(' ', end_of_line) - 1,
               "9999");
  std::ofstream(dir + "/meshes/mixed_ellipsoid.msh") << mesh;
  fs::copy_file(std::string(FEM_SOURCE_DIR) + "/cases/mixed_ellipsoid.yaml", dir + "/case.yaml");
  const int line = 1 + static_cast<int>(std::count(mesh.begin(), mesh.begin() + first_tet, '\n'));
  const Result r = fem("check " + dir + "/case.yaml");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("mixed_ellipsoid.msh:" + std::to_string(line) + ": error: element "),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("refers to node 9999"), std::string::npos) << r.output;
  fs::remove_all(dir);
}

/// The last row of a CSV file written by fem, by column name.
std::map<std::string, double> last_row(const std::string& path) {
  std::ifstream in(path);
  std::string header, line, last;
  std::getline(in, header);
  while (std::getline(in, line))
    if (!line.empty()) last = line;
  std::map<std::string, double> row;
  std::stringstream names(header), values(last);
  std::string name, value;
  while (std::getline(names, name, ',') && std::getline(values, value, ','))
    row[name] = std::stod(value);
  return row;
}

/// The number after `"key": ` in a summary.json (keys searched for are unique in the file).
double summary_number(const std::string& summary, const std::string& key) {
  const std::string quoted = "\"" + key + "\": ";
  const std::size_t at = summary.find(quoted);
  if (at == std::string::npos) {
    ADD_FAILURE() << key << " not in:\n" << summary;
    return std::nan("");
  }
  return std::stod(summary.substr(at + quoted.size()));
}

/// Runs a shipped case of cases/ into a fresh folder; returns the folder.
std::string run_shipped_case(const std::string& name) {
  const std::string out = temp_dir(name);
  const Result r =
      fem("run " + std::string(FEM_SOURCE_DIR) + "/cases/" + name + ".yaml -q --output " + out);
  EXPECT_EQ(r.code, 0) << name << "\n" << r.output;
  const std::string summary = read(out + "/summary.json");
  EXPECT_NE(summary.find("\"status\": \"completed\""), std::string::npos) << summary;
  return out;
}

TEST(Cli, ShippedImplicitCasesRunToPhysicallySensibleAnswers) {
  // cases/cube_barrelling_static.yaml: the clamped 6^3 hex8 cube pressed 20 % statically. The top
  // reaction is compressive (the support pushes the top face down: -z) and of the order of
  // E A strain = 3000 Pa x 2.5e-3 m^2 x 0.2 = 1.5 N, raised by the clamping and the
  // near-incompressibility; dynamic relaxation gives -3.4945456583 N on this mesh. The mid-height
  // side bulges outwards (+x on the face x = 50 mm).
  const std::string statics = run_shipped_case("cube_barrelling_static");
  const auto top = last_row(statics + "/top.csv");
  EXPECT_DOUBLE_EQ(top.at("time"), 1.0);
  EXPECT_NEAR(top.at("displacement_z"), -0.01, 1e-12);
  const double reaction = top.at("reaction_force_z");
  EXPECT_NEAR(reaction, -3.4945456583, 1e-6);
  const double bulge = last_row(statics + "/side_middle.csv").at("displacement_x");
  EXPECT_GT(bulge, 2e-3) << "the mid-height side must bulge outwards by millimetres";
  EXPECT_LT(bulge, 8e-3);
  const std::string s = read(statics + "/summary.json");
  EXPECT_GE(summary_number(s, "increments"), 3) << "automatic increments from 10 % of the load";
  EXPECT_EQ(summary_number(s, "cutbacks"), 0);
  EXPECT_TRUE(fs::exists(statics + "/convergence.csv"));

  // cases/cube_implicit_dynamic.yaml: the same cube loaded slowly (smooth step over 5 s) in
  // Newmark steps many times the explicit critical step; it ends at rest in the static state.
  const std::string dynamic = run_shipped_case("cube_implicit_dynamic");
  const std::string d = read(dynamic + "/summary.json");
  EXPECT_NE(d.find("\"integrator\": \"newmark\""), std::string::npos) << d;
  EXPECT_GT(summary_number(d, "time_step_s") / summary_number(d, "critical_time_step_s"), 20.0);
  EXPECT_EQ(summary_number(d, "increments"), 100);
  const auto dynamic_top = last_row(dynamic + "/top.csv");
  EXPECT_NEAR(dynamic_top.at("reaction_force_z"), reaction, 1e-5 * std::abs(reaction));
  const auto energy = last_row(dynamic + "/energy.csv");
  EXPECT_LT(energy.at("kinetic"), 1e-9 * energy.at("strain"));

  // cases/indentation_contact_static.yaml: a rigid sphere pressed 3 mm into a block on a clamped
  // base. The sphere pushes the block down (-z), the base reaction balances it, and the force is
  // of the order of Hertz's half-space value (0.117 N; the thin clamped block is stiffer).
  const std::string contact = run_shipped_case("indentation_contact_static");
  const auto ball = last_row(contact + "/contact.csv");
  const double force = ball.at("ball_z");
  EXPECT_LT(force, -0.08);
  EXPECT_GT(force, -0.5);
  EXPECT_GT(ball.at("ball_active"), 4);
  EXPECT_LE(ball.at("ball_penetration"), 1e-5) << "augmented Lagrangian: below its tolerance";
  EXPECT_NEAR(last_row(contact + "/base.csv").at("reaction_force_z"), -force, 1e-6 * -force);
  for (const std::string& dir : {statics, dynamic, contact}) fs::remove_all(dir);
}

TEST(Cli, CaseReferenceImplicitExampleRuns) {
  // docs/case-reference.md's annotated static example (every implicit key) is a case that runs.
  const std::string doc = read(std::string(FEM_SOURCE_DIR) + "/docs/case-reference.md");
  const std::string marker = "<!-- implicit-example -->\n```yaml\n";
  const std::size_t begin = doc.find(marker);
  ASSERT_NE(begin, std::string::npos) << "the implicit example is missing";
  const std::size_t start = begin + marker.size();
  const std::string dir = temp_dir("implicit_example");
  fs::create_directories(dir);
  std::ofstream(dir + "/example.yaml") << doc.substr(start, doc.find("```", start) - start);
  const Result r = fem("run " + dir + "/example.yaml -q --output " + dir + "/out");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(read(dir + "/out/summary.json").find("\"preconditioner\": \"multigrid"),
            std::string::npos);
  fs::remove_all(dir);
}

TEST(Cli, HelpIsAvailableEverywhere) {
  for (const char* cmd : {"--help", "run --help", "check --help", "plugins --help"}) {
    const Result r = fem(cmd);
    EXPECT_EQ(r.code, 0) << cmd << "\n" << r.output;
    EXPECT_NE(r.output.find("Usage"), std::string::npos) << cmd;
  }
}

}  // namespace
