// The XDMF + HDF5 series (output.xdmf, issue 23): the HDF5 file read back with HDF5's own C API,
// and the .xdmf checked so that every data item it names exists with the dimensions it declares.
// tests/python/test_xdmf_output.py reads whole runs' series with meshio, an independent reader.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "fem/error.hpp"
#include "fem/output/xdmf_series.hpp"
#include "output/rank_of_two.hpp"
#include "output/scratch_dir.hpp"
#include "output/vtk_test_data.hpp"

#if FEM_WITH_HDF5
#include "support/hdf5_dataset.hpp"
#endif

namespace fem {
namespace {

namespace fs = std::filesystem;
using test::expect_same_values;
using test::frame_of;
using test::hex_and_tet;
using test::make_frame;
using test::piece_of;
using test::RankOfTwo;
using test::read_text;
using test::ScratchDir;

TEST(XdmfSeries, AvailableWithHdf5Only) {
  EXPECT_EQ(xdmf_output_available(), FEM_WITH_HDF5 != 0);
  if (xdmf_output_available()) return;
  const ScratchDir dir;
  try {
    XdmfSeriesWriter writer(dir.path().string(), "x", hex_and_tet());
    FAIL() << "a build without HDF5 wrote an XDMF series";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("libhdf5-dev"), std::string::npos) << e.what();
  }
}

#if FEM_WITH_HDF5

using test::Dataset;
using test::has_link;
using test::read_dataset;

/// The frame times the .xdmf lists, after checking that every DataItem it holds names a dataset
/// of the HDF5 file beside it with the declared dimensions.
std::vector<double> check_xdmf(const std::string& path) {
  const std::string xml = read_text(path);
  EXPECT_NE(xml.find("<Xdmf Version=\"3.0\">"), std::string::npos) << xml;
  EXPECT_NE(xml.find("CollectionType=\"Temporal\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("</Xdmf>"), std::string::npos) << xml;
  const std::regex item(
      R"re(<DataItem Dimensions="([^"]*)"[^>]*Format="HDF">([^:<]*):([^<]*)</DataItem>)re");
  int items = 0;
  for (auto it = std::sregex_iterator(xml.begin(), xml.end(), item); it != std::sregex_iterator();
       ++it, ++items) {
    const std::string file = (fs::path(path).parent_path() / (*it)[2].str()).string();
    const Dataset<double> d = read_dataset<double>(file, (*it)[3].str());
    std::string dims;
    for (const hsize_t k : d.dims) {
      if (!dims.empty()) dims += ' ';
      dims += std::to_string(k);
    }
    EXPECT_EQ(dims, (*it)[1].str()) << (*it)[0].str();
  }
  EXPECT_GT(items, 0) << xml;
  std::vector<double> times;
  const std::regex time(R"re(<Time Value="([^"]*)"/>)re");
  for (auto it = std::sregex_iterator(xml.begin(), xml.end(), time); it != std::sregex_iterator();
       ++it)
    times.push_back(std::stod((*it)[1].str()));
  return times;
}

OutputMesh with_sets(OutputMesh mesh) {
  mesh.point_sets = {{"top & <apex>", {0, 0, 0, 0, 1, 1, 1, 1, 1}}};
  mesh.cell_sets = {{"tet", {0, 1}}};
  return mesh;
}

TEST(XdmfSeries, HoldsTheMeshAndEveryFrameBitForBit) {
  const ScratchDir dir;
  const OutputMesh mesh = with_sets(hex_and_tet());
  std::vector<OutputFrame> frames;
  {
    XdmfSeriesWriter writer(dir.path().string(), "series", mesh);
    for (int k = 0; k < 3; ++k) {
      frames.push_back(make_frame(k, 0.1 * k + 1.0 / 3.0));
      writer.write(frames.back());
    }
    EXPECT_EQ(writer.frames_written(), 3);
    EXPECT_EQ(writer.next_index(), 3);
    EXPECT_EQ(writer.xdmf_path(), dir.path().string() + "/series.xdmf");
  }
  const std::string h5 = dir.path().string() + "/series.h5";
  expect_same_values(mesh.points, read_dataset<double>(h5, "/mesh/points").values, "points");
  // A hexahedron and a tetrahedron: a Mixed topology of XDMF codes 9 and 6.
  EXPECT_EQ(read_dataset<std::int64_t>(h5, "/mesh/topology").values,
            (std::vector<std::int64_t>{9, 0, 1, 2, 3, 4, 5, 6, 7, 6, 4, 5, 7, 8}));
  EXPECT_EQ(read_dataset<std::uint8_t>(h5, "/mesh/node_sets/0").values, mesh.point_sets[0].flags);
  EXPECT_EQ(read_dataset<std::uint8_t>(h5, "/mesh/cell_sets/0").values, mesh.cell_sets[0].flags);
  for (int k = 0; k < 3; ++k) {
    const std::string group = "/frames/00000" + std::to_string(k) + "/";
    for (const Field& f : frames[k].point_fields)
      expect_same_values(f.values, read_dataset<double>(h5, group + f.name).values, f.name);
    for (const Field& f : frames[k].cell_fields)
      expect_same_values(f.values, read_dataset<double>(h5, group + f.name).values, f.name);
  }
  const std::vector<double> times = check_xdmf(dir.path().string() + "/series.xdmf");
  ASSERT_EQ(times.size(), 3u);
  for (int k = 0; k < 3; ++k) EXPECT_EQ(times[k], frames[k].time);
  const std::string xml = read_text(dir.path().string() + "/series.xdmf");
  // Set names are escaped; the symmetric tensors are not declared as XDMF's Tensor6, whose
  // component order is not fem's.
  EXPECT_NE(xml.find("Name=\"node_set:top &amp; &lt;apex&gt;\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("Name=\"region:tet\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("TopologyType=\"Mixed\" NumberOfElements=\"2\""), std::string::npos) << xml;
  EXPECT_EQ(xml.find("Tensor6"), std::string::npos) << xml;
  EXPECT_FALSE(fs::exists(h5 + ".new"));
}

TEST(XdmfSeries, OneCellTypeIsAUniformTopology) {
  const ScratchDir dir;
  OutputMesh mesh = hex_and_tet();
  mesh.cell_types = {test::kVtkTetra};
  mesh.offsets = {0, 4};
  mesh.connectivity = {4, 5, 7, 8};
  {
    XdmfSeriesWriter writer(dir.path().string(), "tet", mesh);
    OutputFrame frame = make_frame(0, 0.0);
    frame.cell_fields = {test::make_field("von_mises", 1, 1, 0, 3)};
    writer.write(frame);
  }
  const Dataset<std::int64_t> topology =
      read_dataset<std::int64_t>(dir.path().string() + "/tet.h5", "/mesh/topology");
  EXPECT_EQ(topology.dims, (std::vector<hsize_t>{1, 4}));
  EXPECT_EQ(topology.values, (std::vector<std::int64_t>{4, 5, 7, 8}));
  check_xdmf(dir.path().string() + "/tet.xdmf");
  EXPECT_NE(read_text(dir.path().string() + "/tet.xdmf")
                .find("TopologyType=\"Tetrahedron\" NumberOfElements=\"1\" NodesPerElement=\"4\""),
            std::string::npos);
}

TEST(XdmfSeries, RefusesACellTypeXdmfDoesNotKnowAndAFieldOfTheWrongSize) {
  const ScratchDir dir;
  OutputMesh mesh = hex_and_tet();
  mesh.cell_types[1] = 42;
  try {
    XdmfSeriesWriter writer(dir.path().string(), "odd", mesh);
    FAIL() << "a cell of VTK type 42 was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("cell 1 has VTK cell type 42"), std::string::npos)
        << e.what();
  }
  XdmfSeriesWriter writer(dir.path().string(), "short", hex_and_tet());
  OutputFrame frame = make_frame(0, 0.0);
  frame.point_fields[0].values.pop_back();
  try {
    writer.write(frame);
    FAIL() << "a field one value short was written";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("'displacement' has 26 values, not 9 x 3"),
              std::string::npos)
        << e.what();
  }
}

TEST(XdmfSeries, LeavesThePreviousRunsFileUntilItsFirstFrame) {
  const ScratchDir dir;
  const std::string h5 = dir.path().string() + "/run.h5";
  std::ofstream(h5) << "the previous run's file";
  { XdmfSeriesWriter writer(dir.path().string(), "run", hex_and_tet()); }
  EXPECT_EQ(read_text(h5), "the previous run's file");
  EXPECT_FALSE(fs::exists(h5 + ".new"));
  {
    XdmfSeriesWriter writer(dir.path().string(), "run", hex_and_tet());
    writer.write(make_frame(0, 0.0));
  }
  EXPECT_EQ(read_dataset<double>(h5, "/frames/000000/displacement").values.size(), 27u);
}

TEST(XdmfSeries, ARestartKeepsTheFramesBeforeItsCheckpointAndReplacesTheRest) {
  const ScratchDir dir;
  const std::string h5 = dir.path().string() + "/run.h5";
  {
    XdmfSeriesWriter writer(dir.path().string(), "run", hex_and_tet());
    for (int k = 0; k < 4; ++k) writer.write(make_frame(k, k));
  }
  const OutputFrame again = make_frame(7, 2.0);
  {
    XdmfSeriesWriter writer(dir.path().string(), "run", hex_and_tet());
    writer.resume(2);
    EXPECT_EQ(writer.frames_written(), 2);
    EXPECT_EQ(writer.next_index(), 2);
    writer.write(again);
  }
  EXPECT_TRUE(has_link(h5, "/frames/000001"));
  EXPECT_FALSE(has_link(h5, "/frames/000003"));
  expect_same_values(make_frame(1, 1).point_fields[0].values,
                     read_dataset<double>(h5, "/frames/000001/displacement").values, "frame 1");
  expect_same_values(again.point_fields[0].values,
                     read_dataset<double>(h5, "/frames/000002/displacement").values, "frame 2");
  EXPECT_EQ(check_xdmf(dir.path().string() + "/run.xdmf"), (std::vector<double>{0.0, 1.0, 2.0}));
  // The fields of the kept frames are listed in the order they were written.
  const std::string xml = read_text(dir.path().string() + "/run.xdmf");
  EXPECT_LT(xml.find("Name=\"stress\""), xml.find("Name=\"von_mises\"")) << xml;
}

TEST(XdmfSeries, ARestartWithoutItsFileStartsANewOne) {
  const ScratchDir dir;
  {
    XdmfSeriesWriter writer(dir.path().string(), "run", hex_and_tet());
    writer.resume(5);
    writer.write(make_frame(5, 0.5));
  }
  EXPECT_TRUE(has_link(dir.path().string() + "/run.h5", "/frames/000005"));
  EXPECT_EQ(check_xdmf(dir.path().string() + "/run.xdmf"), (std::vector<double>{0.5}));
}

// Rank 1 is played first and records what it contributes to every collective call; rank 0
// then gets those as the other rank's contributions, so its index describes both pieces.
TEST(XdmfSeries, EveryRankWritesItsPieceAndRankZeroTheIndex) {
  const ScratchDir dir;
  const OutputMesh whole = with_sets(hex_and_tet());
  const std::vector<OutputMesh> pieces = {piece_of(whole, {0}), piece_of(whole, {1})};
  const std::vector<OutputFrame> frames = {make_frame(0, 0.0), make_frame(1, 0.25)};
  std::vector<std::string> rank1_said;
  {
    RankOfTwo comm(1);
    comm.other = [&](const std::string& mine) {
      rank1_said.push_back(mine);
      return mine;
    };
    XdmfSeriesWriter writer(dir.path().string(), "split", pieces[1], SeriesPiece{&comm});
    for (const OutputFrame& f : frames) writer.write(frame_of(f, pieces[1]));
  }
  {
    RankOfTwo comm(0);
    std::size_t next = 0;
    comm.other = [&](const std::string& /*mine*/) { return rank1_said.at(next++); };
    XdmfSeriesWriter writer(dir.path().string(), "split", pieces[0], SeriesPiece{&comm});
    for (const OutputFrame& f : frames) writer.write(frame_of(f, pieces[0]));
    EXPECT_EQ(next, rank1_said.size());
  }
  EXPECT_FALSE(fs::exists(dir.path().string() + "/split.h5"));
  for (int r = 0; r < 2; ++r) {
    const std::string h5 = dir.path().string() + "/split_" + std::to_string(r) + ".h5";
    EXPECT_EQ(read_dataset<std::int64_t>(h5, "/mesh/GlobalNodeId").values, pieces[r].point_ids);
    EXPECT_EQ(read_dataset<std::int64_t>(h5, "/mesh/GlobalElementId").values, pieces[r].cell_ids);
    const OutputFrame expected = frame_of(frames[1], pieces[r]);
    expect_same_values(expected.cell_fields[0].values,
                       read_dataset<double>(h5, "/frames/000001/stress").values, h5);
  }
  EXPECT_EQ(check_xdmf(dir.path().string() + "/split.xdmf"), (std::vector<double>{0.0, 0.25}));
  const std::string xml = read_text(dir.path().string() + "/split.xdmf");
  EXPECT_NE(xml.find("CollectionType=\"Spatial\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("split_1.h5:/frames/000001/stress"), std::string::npos) << xml;
  // The piece of rank 1 is a lone tetrahedron: a uniform topology, beside rank 0's hexahedron.
  EXPECT_NE(xml.find("TopologyType=\"Tetrahedron\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("TopologyType=\"Hexahedron\""), std::string::npos) << xml;
}

#endif

}  // namespace
}  // namespace fem
