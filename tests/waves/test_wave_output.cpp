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
#include <hdf5.h>
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
/// A whole dataset of doubles.
std::vector<double> read_doubles(hid_t file, const std::string& path, std::vector<hsize_t>& dims) {
  const hid_t d = H5Dopen2(file, path.c_str(), H5P_DEFAULT);
  EXPECT_GE(d, 0) << path;
  const hid_t space = H5Dget_space(d);
  dims.assign(static_cast<std::size_t>(H5Sget_simple_extent_ndims(space)), 0);
  H5Sget_simple_extent_dims(space, dims.data(), nullptr);
  hsize_t count = 1;
  for (const hsize_t x : dims) count *= x;
  std::vector<double> out(count);
  H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, out.data());
  H5Sclose(space);
  H5Dclose(d);
  return out;
}

TEST(WaveOutput, Hdf5TracesHoldTheSamplesOfTheRun) {
  ASSERT_TRUE(hdf5_output_available());
  fs::path dir;
  const WaveRunReport r = run_with_files("hdf5", dir);
  const hid_t file = H5Fopen((dir / "receivers.h5").c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  ASSERT_GE(file, 0);
  std::vector<hsize_t> dims;
  const std::vector<double> time = read_doubles(file, "/probe/time", dims);
  ASSERT_EQ(dims.size(), 1u);
  EXPECT_EQ(time, r.trace_times[0]);
  const std::vector<double> u = read_doubles(file, "/probe/displacement", dims);
  ASSERT_EQ(dims.size(), 3u);
  EXPECT_EQ(dims[0], time.size());
  EXPECT_EQ(dims[1], 4u);  // nodes
  EXPECT_EQ(dims[2], 3u);
  const std::vector<double> v = read_doubles(file, "/probe/velocity", dims);
  // The report keeps [sample][quantity][node][3]; the file one dataset per quantity.
  for (std::size_t s = 0; s < time.size(); ++s)
    for (std::size_t k = 0; k < 12; ++k) {
      EXPECT_EQ(u[12 * s + k], r.traces[0][24 * s + k]);
      EXPECT_EQ(v[12 * s + k], r.traces[0][24 * s + 12 + k]);
    }
  const std::vector<double> xyz = read_doubles(file, "/tip/coordinates", dims);
  ASSERT_EQ(xyz.size(), 3u);
  EXPECT_DOUBLE_EQ(xyz[0], 0.5);
  H5Fclose(file);
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
