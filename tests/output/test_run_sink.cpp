// The solvers' RunSink: what a run sends is what it writes (frames, CSV tables, summary.json),
// and without write_files it sends the same and writes nothing.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "fem/error.hpp"
#include "fem/output/run_sink.hpp"
#include "fem/solver/explicit_solver.hpp"
#include "fem/solver/implicit_solver.hpp"
#include "output/scratch_dir.hpp"
#include "support/model_run.hpp"

namespace fem {
namespace {

using test::ScratchDir;

const char* const kCube = R"(
name: sink_cube
mesh: {generator: box, cells: hex8, size: [1, 1, 1], divisions: [2, 2, 2]}
materials: {m: {type: neo_hookean, density: 1000, youngs_modulus: 1.0e5, poisson_ratio: 0.3}}
blocks: [{name: b, element: hex8, material: m}]
node_sets:
  bottom: {plane: {point: [0, 0, 0], normal: [0, 0, 1]}}
  top: {plane: {point: [0, 0, 1], normal: [0, 0, 1]}}
amplitudes: {ramp: {type: linear, start: 0, end: 1}}
boundary_conditions:
  - {set: bottom, fixed: all}
  - {set: top, displacement: {z: -0.05}, amplitude: ramp}
solver: {type: explicit, end_time: 0.5}
output:
  every_steps: 2
  fields: [displacement, cauchy_stress]
  histories: [{name: top, set: top, quantities: [displacement, reaction_force], every_steps: 5}]
)";

std::size_t csv_rows(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::size_t n = 0;
  for (std::string line; std::getline(in, line);) ++n;
  return n - 1;  // the header
}

TEST(MemorySink, RefusesRowsOfUndeclaredTablesAndOfTheWrongWidth) {
  MemorySink sink;
  EXPECT_THROW(sink.row("energy", 0.0, 0, {1.0}), Error);
  sink.table("energy", {"kinetic", "strain"});
  EXPECT_THROW(sink.row("energy", 0.0, 0, {1.0}), Error);
  sink.row("energy", 0.5, 3, {1.0, 2.0});
  const MemoryTable& t = sink.tables().at("energy");
  EXPECT_EQ(t.step, std::vector<std::int64_t>{3});
  EXPECT_EQ(t.values, (std::vector<double>{1.0, 2.0}));
  EXPECT_EQ(sink.table_order(), std::vector<std::string>{"energy"});
}

TEST(RunSink, ExplicitRunSendsWhatItWritesAndWritesNothingWithoutFiles) {
  ScratchDir dir;
  test::ModelRun m = test::model_run(kCube);
  MemorySink with_files, alone;
  {
    ExplicitSolver solver(m.model, *m.backend, m.model.spec.backend);
    ExplicitRunOptions o;
    o.output_directory = (dir.path() / "out").string();
    o.sink = &with_files;
    solver.run(o);
  }
  {
    ExplicitSolver solver(m.model, *m.backend, m.model.spec.backend);
    ExplicitRunOptions o;
    o.output_directory = (dir.path() / "none").string();
    o.write_files = false;
    o.sink = &alone;
    solver.run(o);
  }
  EXPECT_FALSE(std::filesystem::exists(dir.path() / "none"));
  // The summary is the file's text; the tables have the CSV files' rows.
  EXPECT_EQ(with_files.summary(), test::read_text(dir / "out/summary.json"));
  EXPECT_NE(with_files.summary().find("\"status\": \"completed\""), std::string::npos);
  EXPECT_EQ(with_files.table_order(), (std::vector<std::string>{"top", "energy"}));
  for (const std::string& name : with_files.table_order())
    EXPECT_EQ(with_files.tables().at(name).time.size(),
              csv_rows(dir.path() / "out" / (name + ".csv")))
        << name;
  const std::size_t frames = with_files.frames().size();
  EXPECT_GE(frames, 3u);
  EXPECT_EQ(with_files.tables().at("energy").time.size(), frames);
  // Without files: the same frames and rows.
  ASSERT_EQ(alone.frames().size(), frames);
  for (std::size_t k = 0; k < frames; ++k) {
    ASSERT_EQ(alone.frames()[k].point_fields.size(), 1u);
    EXPECT_EQ(alone.frames()[k].point_fields[0].values,
              with_files.frames()[k].point_fields[0].values);
    EXPECT_EQ(alone.frames()[k].cell_fields[0].values,
              with_files.frames()[k].cell_fields[0].values);
  }
  EXPECT_EQ(alone.tables().at("top").values, with_files.tables().at("top").values);
  EXPECT_FALSE(alone.summary().empty());
}

TEST(RunSink, StaticRunSendsFramesConvergenceAndSummaryWithoutFiles) {
  ScratchDir dir;
  std::string yaml = kCube;
  const auto replace = [&yaml](const std::string& from, const std::string& to) {
    yaml.replace(yaml.find(from), from.size(), to);
  };
  replace("solver: {type: explicit, end_time: 0.5}", "solver: {type: static, increments: 2}");
  replace("every_steps: 2\n", "every_steps: 1\n");
  test::ModelRun m = test::model_run(yaml);
  MemorySink sink;
  ImplicitSolver solver(m.model, *m.backend, m.model.spec.backend);
  ImplicitRunOptions o;
  o.output_directory = (dir.path() / "none").string();
  o.write_files = false;
  o.sink = &sink;
  const ImplicitRunReport r = solver.run(o);
  EXPECT_FALSE(std::filesystem::exists(dir.path() / "none"));
  EXPECT_EQ(sink.frames().size(), static_cast<std::size_t>(r.increments) + 1);
  EXPECT_EQ(sink.tables().at("convergence").time.size(),
            static_cast<std::size_t>(r.newton_iterations));
  EXPECT_EQ(sink.table_order(), (std::vector<std::string>{"energy", "convergence", "top"}));
  EXPECT_NE(sink.summary().find("\"increments\": 2"), std::string::npos);
}

}  // namespace
}  // namespace fem
