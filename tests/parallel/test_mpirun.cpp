// `mpirun -np N fem run CASE` on 1-4 ranks (oversubscribed on CI's two cores): the files a
// deterministic run writes are the single-process run's, byte for byte, on openmp and Kokkos,
// and on CUDA with the halo GPU to GPU or through the host; a failed step on any rank stops
// every rank with one message and exit code 3.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <limits>
#include <map>

#include <fem/export/calculix_results.hpp>
#include <fem/output/vtk_series.hpp>
#include <fem/parallel/communicator.hpp>

#include "support/backend_here.hpp"
#include "support/history_csv.hpp"
#include "support/run_fem.hpp"

#if FEM_WITH_HDF5
#include "support/hdf5_dataset.hpp"
#endif

namespace {

namespace fs = std::filesystem;
using fem::test::FemResult;

const std::string kFem = std::string(FEM_BINARY_DIR) + "/bin/fem";

/// Why mpirun tests cannot run here, or "".
std::string mpirun_missing() {
  if (!fem::parallel::mpi_built()) return "this fem was built without MPI and METIS";
  if (fem::test::run_shell("command -v mpirun").code != 0) return "no mpirun on the PATH";
  return "";
}

/// fem under mpirun with `ranks` processes (one OpenMP thread each, shared memory transport,
/// more ranks than cores allowed, as root in containers), bounded in time.
/// `env`: more variables for every rank ("FEM_HALO=host").
FemResult mpirun(int ranks, const std::string& args, const std::string& env = "") {
  return fem::test::run_shell(
      env +
      " OMP_NUM_THREADS=1 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 "
      "timeout 120 mpirun --oversubscribe --mca btl self,vader -np " +
      std::to_string(ranks) + " " + kFem + " " + args);
}

std::string read_bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

bool same(const std::vector<fem::Field>& a, const std::vector<fem::Field>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (a[i].name != b[i].name || a[i].components != b[i].components || a[i].values != b[i].values)
      return false;
  return true;
}

/// Whether a one-process frame (.vtu) and the pieces of a partitioned one (.pvtu), read with
/// VTK's readers and put in the global numbering, hold the same mesh and the same bits.
bool same_frame(const fs::path& vtu, const fs::path& pvtu) {
  if (!fs::exists(pvtu)) return false;
  const fem::VtuContents one = fem::read_vtu(vtu.string());
  const fem::VtuContents all = fem::in_global_numbering(fem::read_vtu(pvtu.string()));
  return one.mesh.points == all.mesh.points && one.mesh.cell_types == all.mesh.cell_types &&
         one.mesh.offsets == all.mesh.offsets && one.mesh.connectivity == all.mesh.connectivity &&
         same(one.point_fields, all.point_fields) && same(one.cell_fields, all.cell_fields);
}

/// The files of the one-process output `a` that the run in `b` lacks or has other bytes of,
/// except summary.json (timings); each .vtu frame of `a` is compared with the .pvtu pieces of
/// `b` through VTK's readers, and the series index (.pvd, which lists those) is not compared.
std::vector<std::string> differing_files(const fs::path& a, const fs::path& b) {
  std::vector<std::string> out;
  for (const auto& entry : fs::directory_iterator(a)) {
    const fs::path name = entry.path().filename();
    if (name == "summary.json" || name.extension() == ".pvd") continue;
    const bool differs =
        name.extension() == ".vtu"
            ? !same_frame(entry.path(), b / fs::path(name).replace_extension(".pvtu"))
            : !fs::exists(b / name) || read_bytes(entry.path()) != read_bytes(b / name);
    if (differs) out.push_back(name.string());
  }
  return out;
}

/// The largest difference between two history files of the same shape, each number's relative
/// to the largest magnitude of its quantity in `a` (the components _x, _y, _z of a vector share
/// one, so that a component that is round-off noise is measured against the vector); infinity
/// where their shapes differ.
double largest_difference(const fs::path& a, const fs::path& b) {
  const fem::test::HistoryCsv x = fem::test::read_history_csv(a.string());
  const fem::test::HistoryCsv y = fem::test::read_history_csv(b.string());
  constexpr double kShapesDiffer = std::numeric_limits<double>::infinity();
  if (x.rows.empty() || x.rows.size() != y.rows.size() || x.names != y.names) return kShapesDiffer;
  const auto quantity = [](std::string name) {
    const std::size_t n = name.size();
    if (n > 2 && name[n - 2] == '_' &&
        (name[n - 1] == 'x' || name[n - 1] == 'y' || name[n - 1] == 'z'))
      name.resize(n - 2);
    return name;
  };
  const std::vector<std::string>& names = x.names;
  std::map<std::string, double> scale;
  for (const auto& row : x.rows) {
    if (row.size() != names.size()) return kShapesDiffer;
    for (std::size_t j = 0; j < row.size(); ++j) {
      double& s = scale[quantity(names[j])];
      s = std::max(s, std::abs(row[j]));
    }
  }
  double largest = 0.0;
  for (std::size_t i = 0; i < x.rows.size(); ++i) {
    if (y.rows[i].size() != names.size()) return kShapesDiffer;
    for (std::size_t j = 0; j < names.size(); ++j)
      if (const double s = scale[quantity(names[j])]; s > 0.0)
        largest = std::max(largest, std::abs(x.rows[i][j] - y.rows[i][j]) / s);
  }
  return largest;
}

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += x + " ";
  return s;
}

class Mpirun : public testing::Test {
 protected:
  void SetUp() override {
    if (const std::string why = mpirun_missing(); !why.empty()) GTEST_SKIP() << why;
  }
  /// Runs `args` on one process and on 2, 3 and 4 ranks; expects the same files from each,
  /// except those listed in `may_differ`. `inspect` looks at the one-process run's folder.
  void expect_same_files_on_any_rank_count(
      const std::string& name, const std::string& args,
      const std::vector<std::string>& may_differ = {},
      const std::function<void(const fs::path&)>& inspect = {}) {
    const fs::path base = fs::temp_directory_path() / ("fem_mpirun_" + name);
    fs::remove_all(base);
    const FemResult one =
        fem::test::run_fem(args + " -q --output " + (base / "1").string(), "OMP_NUM_THREADS=1");
    ASSERT_EQ(one.code, 0) << one.output;
    for (const int ranks : {2, 3, 4}) {
      const fs::path dir = base / std::to_string(ranks);
      const FemResult r = mpirun(ranks, args + " -q --output " + dir.string());
      ASSERT_EQ(r.code, 0) << r.output;
      EXPECT_NE(r.output.find(std::to_string(ranks) + " ranks"), std::string::npos) << r.output;
      std::vector<std::string> diff = differing_files(base / "1", dir);
      std::erase_if(diff, [&](const std::string& f) {
        return std::find(may_differ.begin(), may_differ.end(), f) != may_differ.end();
      });
      EXPECT_TRUE(diff.empty()) << ranks << " ranks: " << joined(diff);
    }
    if (inspect) inspect(base / "1");
    fs::remove_all(base);
  }
};

const std::string kCube = std::string(FEM_SOURCE_DIR) +
                          "/cases/cube_compression.yaml --set mesh.divisions=6 --end-time 0.6 "
                          "--set output.every_time=0.2 --set solver.assembly=deterministic";

TEST_F(Mpirun, CubeOnOpenmpWritesTheSameBytesOnOneToFourRanks) {
  expect_same_files_on_any_rank_count("cube_openmp", "run " + kCube + " --backend openmp");
}

TEST_F(Mpirun, CubeOnKokkosWritesTheSameBytesOnOneToFourRanks) {
  if (fem::test::run_fem("plugins").output.find("kokkos") == std::string::npos)
    GTEST_SKIP() << "this fem was built without the Kokkos backend";
  expect_same_files_on_any_rank_count("cube_kokkos", "run " + kCube + " --backend kokkos");
}

// A follower pressure on the top instead of the prescribed displacement: the host sets the top
// nodes' loads before every step from their displacement, which every rank count gathers to the
// same bits (fem/solver/follower_pressure_problem.hpp).
TEST_F(Mpirun, CubeUnderAFollowerPressureWritesTheSameBytesOnOneToFourRanks) {
  expect_same_files_on_any_rank_count(
      "cube_pressure", "run " + kCube +
                           " --backend openmp --set 'boundary_conditions=[{set: bottom, fixed: "
                           "all}]' --set 'loads=[{set: top, pressure: 3000, amplitude: loading}]'");
}

// With a history of the region's elements too: their values are gathered across the ranks
// before the means are taken, so the row is the single process's. The node history's tables in
// CalculiX's layout (output.calculix_dat) come from the gathered samples as well.
TEST_F(Mpirun, CubeInDoublePrecisionWritesTheSameBytesOnOneToFourRanks) {
  expect_same_files_on_any_rank_count(
      "cube_double",
      "run " + kCube +
          " --precision double --set 'output.histories=[{name: top, set: top, "
          "every_steps: 20}, {name: body, region: domain, quantities: "
          "[cauchy_stress, von_mises, strain_energy], every_steps: 20}]' "
          "--set output.calculix_dat=true",
      {}, [](const fs::path& one) {
        const auto body = fem::test::read_history_csv((one / "body.csv").string());
        EXPECT_EQ(body.names.size(), 10u);  // time, step, 6 stresses, von Mises, energy
        EXPECT_GE(body.rows.size(), 3u);
        std::size_t tables = 0;
        for (const auto& entry : fs::directory_iterator(one))
          if (entry.path().extension() == ".dat")
            tables += fem::read_calculix_dat(entry.path().string()).size();
        EXPECT_GE(tables, 2 * (body.rows.size() - 1));  // displacement and force per sample
      });
}

// Dynamic relaxation with contact: the displacement and histories are the same bytes; the
// norms of convergence.csv and the contact totals are sums over nodes that each rank adds up
// for its own nodes before they are added across ranks, which rounds differently in the last
// bits (docs/parallel.md, Determinism).
TEST_F(Mpirun, BrainShiftRelaxationWritesTheSameFieldsOnOneToFourRanks) {
  expect_same_files_on_any_rank_count(
      "brain_shift", "run " + std::string(FEM_SOURCE_DIR) + "/cases/brain_shift.yaml",
      {"convergence.csv", "contact.csv"});
}

#if FEM_WITH_HDF5
// output.xdmf on two ranks: each rank's HDF5 file holds its piece of every frame, the same
// values as its .vtu piece, and rank 0's index names both files.
TEST_F(Mpirun, TheXdmfSeriesOnTwoRanksHoldsEachRanksPieceOfTheVtkFrames) {
  if (!fem::vtk_output_available()) GTEST_SKIP() << "this fem was built without VTK";
  const fs::path dir = fs::temp_directory_path() / "fem_mpirun_xdmf";
  fs::remove_all(dir);
  const FemResult r =
      mpirun(2, "run " + kCube + " -q --set output.xdmf=true --output " + dir.string());
  ASSERT_EQ(r.code, 0) << r.output;
  std::ifstream index(dir / "cube_compression.xdmf");
  const std::string xml((std::istreambuf_iterator<char>(index)), std::istreambuf_iterator<char>());
  EXPECT_NE(xml.find("cube_compression_1.h5:/frames/000003/displacement"), std::string::npos)
      << xml;
  EXPECT_FALSE(fs::exists(dir / "cube_compression.h5"));
  for (const std::string rank : {"0", "1"}) {
    const std::string h5 = (dir / ("cube_compression_" + rank + ".h5")).string();
    for (const std::string frame : {"000000", "000003"}) {
      const std::string stem = "cube_compression_" + frame;
      const fem::VtuContents piece =
          fem::read_vtu((dir / stem / (stem + "_" + rank + ".vtu")).string());
      EXPECT_EQ(piece.mesh.point_ids,
                fem::test::read_dataset<std::int64_t>(h5, "/mesh/GlobalNodeId").values);
      for (const auto* fields : {&piece.point_fields, &piece.cell_fields})
        for (const fem::Field& f : *fields)
          EXPECT_EQ(f.values,
                    fem::test::read_dataset<double>(h5, "/frames/" + frame + "/" + f.name).values)
              << h5 << " frame " << frame << " " << f.name;
    }
  }
  fs::remove_all(dir);
}
#endif

TEST_F(Mpirun, ARestartOnThreeRanksEndsWithTheBytesOfAnUninterruptedRunOnOne) {
  const fs::path base = fs::temp_directory_path() / "fem_mpirun_restart";
  fs::remove_all(base);
  const std::string args =
      "run " + kCube + " -q --set 'output.checkpoint={every_time: 0.2, keep: 5}' --output ";
  const FemResult one = fem::test::run_fem(args + (base / "1").string(), "OMP_NUM_THREADS=1");
  ASSERT_EQ(one.code, 0) << one.output;
  const fs::path dir = base / "3";
  ASSERT_EQ(mpirun(3, args + dir.string()).code, 0);
  // Continue from the first checkpoint: the steps after it run again, on three ranks.
  std::vector<fs::path> checkpoints;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == ".checkpoint") checkpoints.push_back(e.path());
  ASSERT_GE(checkpoints.size(), 2U);
  std::sort(checkpoints.begin(), checkpoints.end());
  const FemResult r = mpirun(3, args + dir.string() + " --restart " + checkpoints.front().string());
  ASSERT_EQ(r.code, 0) << r.output;
  for (const char* f : {"energy.csv", "top.csv", "corner.csv"})
    EXPECT_EQ(read_bytes(base / "1" / f), read_bytes(dir / f)) << f;
  fs::remove_all(base);
}

TEST_F(Mpirun, ACheckpointThatDoesNotFitIsRefusedOnceWithExitCode2) {
  const fs::path dir = fs::temp_directory_path() / "fem_mpirun_refused";
  fs::remove_all(dir);
  const std::string args =
      "run " + kCube + " -q --set 'output.checkpoint={every_time: 0.2}' --output " + dir.string();
  ASSERT_EQ(mpirun(2, args).code, 0);
  std::string checkpoint;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == ".checkpoint") checkpoint = e.path().string();
  ASSERT_FALSE(checkpoint.empty());
  // Another mesh: every rank refuses the checkpoint; rank 0 says so, once.
  const FemResult r = mpirun(2, args + " --set mesh.divisions=5 --restart " + checkpoint);
  EXPECT_EQ(r.code, 2) << r.output;
  const std::size_t first = r.output.find("cannot restart from");
  ASSERT_NE(first, std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("cannot restart from", first + 1), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("rank "), std::string::npos) << r.output;
  fs::remove_all(dir);
}

TEST_F(Mpirun, AnInvertedElementOnAnyRankStopsEveryRankWithOneMessageAndExitCode3) {
  // A time step far above the critical one: elements invert within a few steps, on whichever
  // ranks hold them.
  const FemResult r = mpirun(3, "run " + kCube + " --set solver.time_step=0.05 --output " +
                                    (fs::temp_directory_path() / "fem_mpirun_fail").string());
  EXPECT_EQ(r.code, 3) << r.output;
  const std::size_t first = r.output.find("inverted: det F");
  ASSERT_NE(first, std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("inverted: det F", first + 1), std::string::npos) << "said twice\n"
                                                                            << r.output;
  const std::size_t warning = r.output.find("exceeds the critical estimate");
  EXPECT_EQ(r.output.find("exceeds the critical estimate", warning + 1), std::string::npos)
      << "a warning of every rank\n"
      << r.output;
  EXPECT_EQ(r.output.find("fem: stopping"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("rank "), std::string::npos) << "a collective error names no rank\n"
                                                       << r.output;
  if (fem::vtk_output_available()) {
    EXPECT_TRUE(fs::exists(fs::temp_directory_path() / "fem_mpirun_fail" / "cube_compression.pvd"))
        << "the frames written before stay";
  }
  fs::remove_all(fs::temp_directory_path() / "fem_mpirun_fail");
}

// Waves (seed 002): each rank steps the rows of its nodes and receives its ghosts' values after
// every step; a row sums over the same columns in the same order on any number of ranks, so the
// frames (VTK pieces) and the receiver traces are the one-process bytes.
TEST_F(Mpirun, PlaneWavesWriteTheSameBytesOnOneToFourRanks) {
  expect_same_files_on_any_rank_count(
      "waves_plane", "run " + std::string(FEM_SOURCE_DIR) +
                         "/cases/wave_plane.yaml --set 'mesh.divisions=[48,24]' --set "
                         "output.receiver_formats=[csv] --backend openmp");
}

TEST_F(Mpirun, WavesInABlockWriteTheSameBytesOnOneToFourRanksWithStressesInDouble) {
  expect_same_files_on_any_rank_count(
      "waves_block",
      "run " + std::string(FEM_SOURCE_DIR) +
          "/cases/wave_block.yaml --set 'mesh.divisions=[24,24,5]' --set "
          "output.receiver_formats=[csv] --set precision=double --set "
          "'output.fields=[displacement,velocity,cauchy_stress]' --end-time 2e-5 --backend openmp");
}

TEST_F(Mpirun, WavesOnKokkosWriteTheSameBytesOnOneToFourRanks) {
  if (fem::test::run_fem("plugins").output.find("kokkos") == std::string::npos)
    GTEST_SKIP() << "this fem was built without the Kokkos backend";
  expect_same_files_on_any_rank_count(
      "waves_kokkos", "run " + std::string(FEM_SOURCE_DIR) +
                          "/cases/wave_plane.yaml --set 'mesh.divisions=[48,24]' --set "
                          "output.receiver_formats=[csv] --backend kokkos");
}

TEST_F(Mpirun, AnImplicitCaseOnSeveralRanksIsRefusedOnceWithAHint) {
  const FemResult r = mpirun(2, "run " + std::string(FEM_SOURCE_DIR) +
                                    "/cases/cube_barrelling_static.yaml --output " +
                                    (fs::temp_directory_path() / "fem_mpirun_static").string());
  EXPECT_EQ(r.code, 2) << r.output;
  const std::string text = "runs on one process, and this run has MPI";
  const std::size_t first = r.output.find(text);
  ASSERT_NE(first, std::string::npos) << r.output;
  EXPECT_EQ(r.output.find(text, first + 1), std::string::npos) << "said twice\n" << r.output;
  EXPECT_NE(r.output.find("hint: run it without mpirun"), std::string::npos) << r.output;
}

TEST_F(Mpirun, BenchTimesThePartitionedRunAndRecordsTheRanks) {
  const fs::path dir = fs::temp_directory_path() / "fem_mpirun_bench";
  fs::remove_all(dir);
  const FemResult r = mpirun(2, "bench " + std::string(FEM_SOURCE_DIR) +
                                    "/cases/cube_compression.yaml --backends openmp --precision "
                                    "single --steps 20 --repeats 2 --no-plots --output " +
                                    dir.string());
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("2 ranks"), std::string::npos) << r.output;
  const std::string json = read_bytes(dir / "bench.json");
  EXPECT_NE(json.find("MPI"), std::string::npos) << json;
  std::size_t tables = 0;  // rank 0 prints the table once
  for (std::size_t at = r.output.find("elem-st/s"); at != std::string::npos;
       at = r.output.find("elem-st/s", at + 1))
    ++tables;
  EXPECT_EQ(tables, 1U) << r.output;
  fs::remove_all(dir);
}

TEST_F(Mpirun, BenchTimesAWaveCaseOnTwoRanks) {
  const fs::path dir = fs::temp_directory_path() / "fem_mpirun_bench_waves";
  fs::remove_all(dir);
  const FemResult r = mpirun(2, "bench " + std::string(FEM_SOURCE_DIR) +
                                    "/cases/wave_plane.yaml --set 'mesh.divisions=[96,48]' "
                                    "--backends openmp --precision single --steps 20 --repeats 2 "
                                    "--no-plots --output " +
                                    dir.string());
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("2 ranks"), std::string::npos) << r.output;
  EXPECT_NE(read_bytes(dir / "bench.json").find("MPI"), std::string::npos);
  fs::remove_all(dir);
}

TEST_F(Mpirun, ACommandLineThatDoesNotParseIsSaidOnce) {
  const FemResult r = mpirun(2, "run --no-such-flag");
  EXPECT_NE(r.code, 0) << r.output;
  const std::size_t first = r.output.find("Run with --help");
  ASSERT_NE(first, std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("Run with --help", first + 1), std::string::npos) << r.output;
}

TEST_F(Mpirun, CubeOnCudaWritesTheSameBytesWithItsHaloGpuToGpuOverlappedOrNotAndThroughTheHost) {
  // Two ranks: on a machine with one GPU they share it (CUDA IPC maps memory within one device
  // too), on one with several each takes its own. Both assemblies: the overlapped step splits
  // the element pass and the node pass in two, and atomic assembly clears its node forces once.
  FEM_SKIP_WITHOUT_BACKEND("cuda");
  const fs::path base = fs::temp_directory_path() / "fem_mpirun_cuda_halo";
  for (const std::string assembly : {"deterministic", "atomic"}) {
    fs::remove_all(base);
    const std::string args = kCube + " --backend cuda --set output.vtk=false -q --set " +
                             "solver.assembly=" + assembly + " --output ";
    const FemResult one = fem::test::run_fem("run " + args + (base / "1").string());
    ASSERT_EQ(one.code, 0) << one.output;
    struct Way {
      std::string name, environment, path;
    };
    for (const Way& way :
         {Way{"overlapped", "FEM_HALO=device", "GPU to GPU (CUDA IPC), beside the interior"},
          Way{"sequential", "FEM_HALO=device FEM_HALO_OVERLAP=off", "GPU to GPU (CUDA IPC)\""},
          Way{"host", "FEM_HALO=host", "host memory (MPI)"}}) {
      const fs::path dir = base / way.name;
      const FemResult r = mpirun(2, "run " + args + dir.string(), way.environment);
      ASSERT_EQ(r.code, 0) << way.name << "\n" << r.output;
      const std::string summary = read_bytes(dir / "summary.json");
      EXPECT_NE(summary.find(way.path), std::string::npos) << way.name << "\n" << summary;
      if (assembly == "deterministic") {
        EXPECT_TRUE(differing_files(base / "1", dir).empty())
            << way.name << ": " << joined(differing_files(base / "1", dir));
      } else {  // the sums' order varies: the same run to round-off
        EXPECT_LT(largest_difference(base / "1" / "top.csv", dir / "top.csv"), 1e-4) << way.name;
      }
    }
  }
  fs::remove_all(base);
}

TEST_F(Mpirun, AHaloGpuToGpuWhereTheBackendHasNoneIsRefusedOnceWithAHint) {
  const std::string run = "run " + kCube + " --backend openmp --output " +
                          (fs::temp_directory_path() / "fem_mpirun_halo").string();
  for (const std::string value : {"device", "nvlink"}) {
    const FemResult r = mpirun(2, run, "FEM_HALO=" + value);
    EXPECT_EQ(r.code, 2) << r.output;
    const std::size_t first = r.output.find("FEM_HALO (environment): error: '" + value + "'");
    ASSERT_NE(first, std::string::npos) << r.output;
    EXPECT_EQ(r.output.find("FEM_HALO (environment)", first + 1), std::string::npos)
        << "said twice\n"
        << r.output;
    EXPECT_NE(r.output.find("hint: "), std::string::npos) << r.output;
  }
  const FemResult host = mpirun(2, run, "FEM_HALO=host");
  EXPECT_EQ(host.code, 0) << host.output;
  fs::remove_all(fs::temp_directory_path() / "fem_mpirun_halo");
}

TEST_F(Mpirun, PluginsSaysThisIsAnMpiBuildAndHowManyRanksRun) {
  const FemResult r = mpirun(2, "plugins");
  EXPECT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("parallel: MPI"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("2 ranks"), std::string::npos) << r.output;
}

}  // namespace
