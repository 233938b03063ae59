#include <gtest/gtest.h>

#include <array>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "fem/error.hpp"
#include "fem/output/vtk_series.hpp"
#include "output/scratch_dir.hpp"
#include "output/vtk_test_data.hpp"

namespace fem {
namespace {

namespace fs = std::filesystem;
using test::expect_same_fields;
using test::expect_same_mesh;
using test::find_field;
using test::hex_and_tet;
using test::make_field;
using test::make_frame;
using test::parse_pvd;
using test::PvdEntry;
using test::ScratchDir;

/// "run_000002.vtu" for frame 2. (Built by appending: GCC 12 warns falsely on "lit" + string.)
std::string frame_file(int frame) {
  std::string name = "run_00000";
  name += std::to_string(frame);
  name += ".vtu";
  return name;
}

class VtkSeriesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!vtk_output_available()) GTEST_SKIP() << "fem built without VTK";
  }
  ScratchDir dir_;
};

TEST_F(VtkSeriesTest, ThreeFramesReadBackExactly) {
  const std::vector<double> times = {0.0, 0.1, 0.1 + 0.2};
  VtkSeriesWriter writer(dir_ / "series", "run", hex_and_tet());
  std::vector<OutputFrame> frames;
  for (int i = 0; i < 3; ++i) {
    frames.push_back(make_frame(i, times[static_cast<std::size_t>(i)]));
    const std::string path = writer.write(frames.back());
    EXPECT_EQ(fs::path(path).filename().string(), frame_file(i));
    EXPECT_EQ(writer.frames_written(), i + 1);
  }

  for (int i = 0; i < 3; ++i) {
    SCOPED_TRACE(frame_file(i));
    const VtuContents vtu = read_vtu((dir_.path() / "series" / frame_file(i)).string());
    expect_same_mesh(hex_and_tet(), vtu.mesh);
    expect_same_fields(frames[static_cast<std::size_t>(i)].point_fields, vtu.point_fields);
    expect_same_fields(frames[static_cast<std::size_t>(i)].cell_fields, vtu.cell_fields);
  }

  EXPECT_EQ(writer.pvd_path(), dir_ / "series/run.pvd");
  writer.flush();  // three frames within a second: the .pvd lists the last ones once flushed
  const std::vector<PvdEntry> entries = parse_pvd(writer.pvd_path());
  ASSERT_EQ(entries.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(entries[i].time, times[i]) << "pvd entry " << i;  // exact: ParaView matches times
    EXPECT_EQ(entries[i].file, frame_file(static_cast<int>(i)));
  }
}

TEST_F(VtkSeriesTest, QuadraticCellsReadBackWithTheirMidEdgeNodes) {
  // VTK_QUADRATIC_TETRA (24): 4 corners, then the mid-edge nodes of 0-1, 1-2, 2-0, 0-3, 1-3, 2-3.
  // VTK_QUADRATIC_HEXAHEDRON (25): 8 corners, then those of 0-1, 1-2, 2-3, 3-0, 4-5, 5-6, 6-7,
  // 7-4, 0-4, 1-5, 2-6, 3-7.
  struct Cell {
    std::uint8_t type;
    std::vector<std::array<double, 3>> corners;
    std::vector<std::array<int, 2>> edges;
  };
  const Cell cells[] = {{24,
                         {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0.1, 0.2, 1.0 / 3.0}},
                         {{0, 1}, {1, 2}, {2, 0}, {0, 3}, {1, 3}, {2, 3}}},
                        {25,
                         {{0, 0, 0},
                          {1, 0, 0},
                          {1, 1, 0},
                          {0, 1, 0},
                          {0, 0, 1},
                          {1, 0, 1},
                          {1, 1, 1},
                          {0.1, 0.9, 1.2}},
                         {{0, 1},
                          {1, 2},
                          {2, 3},
                          {3, 0},
                          {4, 5},
                          {5, 6},
                          {6, 7},
                          {7, 4},
                          {0, 4},
                          {1, 5},
                          {2, 6},
                          {3, 7}}}};
  for (const Cell& cell : cells) {
    SCOPED_TRACE("VTK cell type " + std::to_string(cell.type));
    OutputMesh mesh;
    for (const auto& c : cell.corners) mesh.points.insert(mesh.points.end(), c.begin(), c.end());
    for (const auto& e : cell.edges)
      for (int k = 0; k < 3; ++k)
        mesh.points.push_back(0.5 * (cell.corners[e[0]][k] + cell.corners[e[1]][k]));
    const auto nodes = static_cast<std::int64_t>(mesh.points.size() / 3);
    mesh.cell_types = {cell.type};
    mesh.offsets = {0, nodes};
    for (std::int64_t n = 0; n < nodes; ++n) mesh.connectivity.push_back(n);
    VtkSeriesWriter writer((dir_.path() / std::to_string(cell.type)).string(), "quad", mesh);
    OutputFrame frame;
    frame.point_fields = {make_field("displacement", 3, nodes, 0, 0)};
    frame.cell_fields = {make_field("von_mises", 1, 1, 0, 3)};
    const VtuContents vtu = read_vtu(writer.write(frame));
    expect_same_mesh(mesh, vtu.mesh);
    expect_same_fields(frame.point_fields, vtu.point_fields);
  }
}

TEST_F(VtkSeriesTest, VtuCarriesTimeValueForParaView) {
  VtkSeriesWriter writer(dir_.path().string(), "run", hex_and_tet());
  const std::string path = writer.write(make_frame(0, 0.25));
  const std::string xml = test::read_text(path);
  EXPECT_NE(xml.find("<FieldData>"), std::string::npos);
  EXPECT_NE(xml.find("Name=\"TimeValue\""), std::string::npos);
  // The time array is field data, not one more point or cell field.
  const VtuContents vtu = read_vtu(path);
  EXPECT_EQ(find_field(vtu.point_fields, "TimeValue"), nullptr);
  EXPECT_EQ(find_field(vtu.cell_fields, "TimeValue"), nullptr);
}

// The .pvd is rewritten with a frame at most once a second (a rewrite costs the whole index:
// every frame would make a run of 100,000 frames quadratic), by flush(), and by the destructor;
// whatever it lists is complete on disk.
TEST_F(VtkSeriesTest, PvdListsOnlyCompleteFramesAndCatchesUpWithinASecond) {
  std::string pvd;
  {
    VtkSeriesWriter writer(dir_.path().string(), "run", hex_and_tet());
    pvd = writer.pvd_path();
    writer.write(make_frame(0, 0.5));  // the first frame: listed at once
    std::vector<PvdEntry> entries = parse_pvd(pvd);
    ASSERT_EQ(entries.size(), 1u);
    EXPECT_EQ(entries[0].time, 0.5);
    EXPECT_EQ(entries[0].file, "run_000000.vtu");
    EXPECT_FALSE(fs::exists(pvd + ".tmp")) << "temporary index left behind";
    EXPECT_NO_THROW(read_vtu(dir_ / entries[0].file));

    writer.write(make_frame(1, 0.75));  // within the second: on disk, listed later
    EXPECT_TRUE(fs::exists(dir_ / "run_000001.vtu"));
    EXPECT_EQ(parse_pvd(pvd).size(), 1u);
    writer.flush();
    entries = parse_pvd(pvd);
    ASSERT_EQ(entries.size(), 2u);
    EXPECT_EQ(entries[1].time, 0.75);
    EXPECT_EQ(entries[1].file, "run_000001.vtu");

    std::this_thread::sleep_for(std::chrono::milliseconds(1100));
    writer.write(make_frame(2, 1.0));  // a second after the last rewrite: listed at once
    EXPECT_EQ(parse_pvd(pvd).size(), 3u);
    writer.write(make_frame(3, 1.25));
    EXPECT_EQ(parse_pvd(pvd).size(), 3u);
  }
  // The destructor lists the rest.
  const std::vector<PvdEntry> entries = parse_pvd(pvd);
  ASSERT_EQ(entries.size(), 4u);
  for (const PvdEntry& e : entries) EXPECT_NO_THROW(read_vtu(dir_ / e.file)) << e.file;
}

TEST_F(VtkSeriesTest, WriteSingleIsNotPartOfTheSeries) {
  VtkSeriesWriter writer(dir_.path().string(), "run", hex_and_tet());
  writer.write(make_frame(0, 0.0));
  const OutputFrame last = make_frame(1, 0.125);
  const std::string path = writer.write_single(last, "run_last_good.vtu");
  EXPECT_EQ(path, dir_ / "run_last_good.vtu");
  EXPECT_EQ(writer.frames_written(), 1);

  const std::vector<PvdEntry> entries = parse_pvd(writer.pvd_path());
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries[0].file, "run_000000.vtu");
  EXPECT_EQ(test::read_text(writer.pvd_path()).find("last_good"), std::string::npos);

  const VtuContents vtu = read_vtu(path);
  expect_same_mesh(hex_and_tet(), vtu.mesh);
  expect_same_fields(last.point_fields, vtu.point_fields);
  expect_same_fields(last.cell_fields, vtu.cell_fields);

  // The series goes on where it was.
  EXPECT_EQ(fs::path(writer.write(make_frame(2, 0.25))).filename().string(), "run_000001.vtu");
}

TEST_F(VtkSeriesTest, DirectoryUnderARegularFileIsAnError) {
  const std::string blocker = dir_ / "not_a_dir";
  std::ofstream(blocker) << "x";
  const std::string wanted = blocker + "/out";
  try {
    VtkSeriesWriter writer(wanted, "run", hex_and_tet());
    FAIL() << "expected fem::Error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(wanted), std::string::npos) << e.what();
  }
  try {
    VtkSeriesWriter writer(blocker, "run", hex_and_tet());
    FAIL() << "expected fem::Error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(blocker), std::string::npos) << e.what();
  }
}

TEST_F(VtkSeriesTest, UnwritableFileIsAnErrorWithPathAndReason) {
  VtkSeriesWriter writer(dir_.path().string(), "run", hex_and_tet());
  const std::string bad = dir_ / "no_such_folder/x.vtu";
  try {
    writer.write_single(make_frame(0, 0.0), "no_such_folder/x.vtu");
    FAIL() << "expected fem::Error";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(bad), std::string::npos) << what;
    EXPECT_GT(what.size(), bad.size() + 20) << "no reason given: " << what;
  }
}

TEST_F(VtkSeriesTest, WrongFieldSizeIsRejectedAndWriterStaysUsable) {
  VtkSeriesWriter writer(dir_.path().string(), "run", hex_and_tet());
  OutputFrame bad = make_frame(0, 0.0);
  bad.cell_fields[0].values.pop_back();
  try {
    writer.write(bad);
    FAIL() << "expected fem::Error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("stress"), std::string::npos) << e.what();
  }
  EXPECT_EQ(writer.frames_written(), 0);
  EXPECT_FALSE(fs::exists(writer.pvd_path()));

  const OutputFrame good = make_frame(1, 1.0);
  const VtuContents vtu = read_vtu(writer.write(good));
  expect_same_fields(good.point_fields, vtu.point_fields);
  expect_same_fields(good.cell_fields, vtu.cell_fields);
}

TEST_F(VtkSeriesTest, InconsistentMeshIsRejected) {
  OutputMesh mesh = hex_and_tet();
  mesh.connectivity.back() = 9;  // only nodes 0..8 exist
  EXPECT_THROW(VtkSeriesWriter(dir_.path().string(), "run", mesh), Error);
  mesh = hex_and_tet();
  mesh.offsets = {0, 8};  // two cell types, one cell's worth of offsets
  EXPECT_THROW(VtkSeriesWriter(dir_.path().string(), "run", mesh), Error);
}

TEST_F(VtkSeriesTest, ReadingMissingOrCorruptFilesIsAnInputErrorWithThePath) {
  const auto expect_input_error = [](const std::string& path) {
    try {
      read_vtu(path);
      ADD_FAILURE() << "expected fem::InputError for " << path;
    } catch (const InputError& e) {
      EXPECT_EQ(e.where().file, path);
      EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
    }
  };
  expect_input_error(dir_ / "missing.vtu");

  const std::string garbage = dir_ / "garbage.vtu";
  std::ofstream(garbage) << "this is not XML at all";
  expect_input_error(garbage);

  // Files cut short, as a crash during a write would leave them: in the XML header and in the
  // appended binary data.
  VtkSeriesWriter writer(dir_.path().string(), "run", hex_and_tet());
  const std::string full = test::read_text(writer.write(make_frame(0, 0.0)));
  const std::size_t binary_start = full.find("<AppendedData");
  ASSERT_NE(binary_start, std::string::npos);
  for (const std::size_t length : {binary_start / 2, (binary_start + full.size()) / 2}) {
    const std::string truncated = dir_ / ("truncated_" + std::to_string(length) + ".vtu");
    std::ofstream(truncated, std::ios::binary) << full.substr(0, length);
    expect_input_error(truncated);
  }
}

TEST(VtkAvailability, ConstructorExplainsMissingVtk) {
  if (vtk_output_available()) GTEST_SKIP() << "fem built with VTK";
  try {
    VtkSeriesWriter writer(".", "run", OutputMesh{});
    FAIL() << "expected fem::Error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("FEM_WITH_VTK=OFF"), std::string::npos) << e.what();
  }
  EXPECT_THROW(read_vtu("x.vtu"), Error);
}

}  // namespace
}  // namespace fem
