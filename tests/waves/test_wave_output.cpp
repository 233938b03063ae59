// What a wave run writes: receiver traces as CSV and HDF5 with the samples the solver kept in
// memory, and summary.json; and the whole run on the Kokkos backend against OpenMP.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <fem/output/receiver_traces.hpp>

#include "support/backend_here.hpp"
#include "waves/wave_cases.hpp"

#if FEM_WITH_HDF5
#include "support/hdf5_dataset.hpp"
#endif

namespace fem::test {
namespace {

namespace fs = std::filesystem;

Column driven_column(const std::string& formats) {
  Column c;
  c.length = 0.5;
  c.cells = 50;
  c.sets = "  probe: {plane: {point: [0.25, 0, 0], normal: [1, 0, 0]}}";
  c.extra =
      "amplitudes:\n  burst: {type: tone_burst, frequency: 1.0e5, cycles: 3}\n"
      "loads:\n  - {set: left, force: [100, 0, 0], amplitude: burst}";
  c.solver = "{type: elastodynamic, end_time: 1.0e-4}";
  c.output =
      "{vtk: false, receivers: [{set: probe, quantities: [displacement, velocity], "
      "every_steps: 3}, {name: tip, point: [0.5, 0, 0]}], receiver_formats: [" +
      formats + "]}";
  return c;
}

/// Runs driven_column(format) with its files in a fresh folder `dir`, keeping the traces.
WaveRunReport run_with_files(const std::string& format, fs::path& dir) {
  WaveRun run = wave_model(driven_column(format).yaml());
  WaveSolver solver(run.model, *run.backend, "openmp");
  WaveRunOptions options;
  options.keep_traces = true;
  dir = fs::temp_directory_path() / ("fem_waves_" + format);
  fs::remove_all(dir);
  options.output_directory = dir.string();
  return solver.run(options);
}

TEST(WaveOutput, CsvTracesHoldTheSamplesOfTheRun) {
  fs::path dir;
  const WaveRunReport r = run_with_files("csv", dir);
  ASSERT_TRUE(fs::exists(dir / "probe.csv"));
  ASSERT_TRUE(fs::exists(dir / "tip.csv"));
  ASSERT_TRUE(fs::exists(dir / "summary.json"));
  std::ifstream in(dir / "probe.csv");
  std::string header;
  std::getline(in, header);
  // 4 nodes in the plane, displacement then velocity, 3 components each.
  EXPECT_EQ(std::count(header.begin(), header.end(), ','), 2 + 24 - 1);
  EXPECT_EQ(header.rfind("time,step,u", 0), 0u) << header;
  std::size_t rows = 0;
  double largest = 0.0, largest_kept = 0.0;
  for (std::string line; std::getline(in, line); ++rows) {
    std::stringstream ss(line);
    std::string cell;
    for (int k = 0; std::getline(ss, cell, ','); ++k)
      if (k >= 2) largest = std::max(largest, std::abs(std::stod(cell)));
  }
  for (const double x : r.traces[0]) largest_kept = std::max(largest_kept, std::abs(x));
  EXPECT_EQ(rows, r.trace_times[0].size());
  EXPECT_EQ(rows, static_cast<std::size_t>(r.steps / 3 + 1));  // steps 0, 3, 6, ...
  EXPECT_GT(largest, 0.0);
  EXPECT_NEAR(largest, largest_kept, 1e-12 * largest_kept);
  fs::remove_all(dir);
}

#if FEM_WITH_HDF5
TEST(WaveOutput, Hdf5TracesHoldTheSamplesOfTheRun) {
  ASSERT_TRUE(hdf5_output_available());
  fs::path dir;
  const WaveRunReport r = run_with_files("hdf5", dir);
  const std::string file = (dir / "receivers.h5").string();
  ASSERT_TRUE(test::has_link(file, "/probe"));
  const test::Dataset<double> time = test::read_dataset<double>(file, "/probe/time");
  ASSERT_EQ(time.dims.size(), 1u);
  EXPECT_EQ(time.values, r.trace_times[0]);
  const test::Dataset<double> displacement =
      test::read_dataset<double>(file, "/probe/displacement");
  ASSERT_EQ(displacement.dims.size(), 3u);
  EXPECT_EQ(displacement.dims[0], time.values.size());
  EXPECT_EQ(displacement.dims[1], 4u);  // nodes
  EXPECT_EQ(displacement.dims[2], 3u);
  const std::vector<double>& u = displacement.values;
  const std::vector<double> v = test::read_dataset<double>(file, "/probe/velocity").values;
  // The report keeps [sample][quantity][node][3]; the file one dataset per quantity.
  for (std::size_t s = 0; s < time.values.size(); ++s)
    for (std::size_t k = 0; k < 12; ++k) {
      EXPECT_EQ(u[12 * s + k], r.traces[0][24 * s + k]);
      EXPECT_EQ(v[12 * s + k], r.traces[0][24 * s + 12 + k]);
    }
  const std::vector<double> xyz = test::read_dataset<double>(file, "/tip/coordinates").values;
  ASSERT_EQ(xyz.size(), 3u);
  EXPECT_DOUBLE_EQ(xyz[0], 0.5);
  fs::remove_all(dir);
}
#endif

TEST(WaveOutput, KokkosRunsTheSameTracesAsOpenMp) {
  const auto traces = [](const std::string& backend, const std::string& precision) {
    Column c = driven_column("csv");
    c.backend = backend;
    c.precision = precision;
    WaveRun run = wave_model(c.yaml());
    return run_waves(run).traces[0];
  };
  FEM_SKIP_WITHOUT_BACKEND("kokkos");
  for (const std::string precision : {"double", "single"}) {
    const std::vector<double> a = traces("openmp", precision), b = traces("kokkos", precision);
    ASSERT_EQ(a.size(), b.size());
    const Deviation d = deviation(b, a);
    EXPECT_GT(d.peak, 0.0);
    EXPECT_LE(d.difference, (precision == "double" ? 1e-13 : 1e-6) * d.peak) << precision;
  }
}

}  // namespace
}  // namespace fem::test
