// FrameSeries writing in the background (output.background) and the .vtu compressions
// (output.compression): the same files as on the caller's thread, failures surfacing at the next
// call, and every compression reading back to the same values.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "fem/error.hpp"
#include "fem/output/frame_series.hpp"
#include "fem/output/vtk_series.hpp"
#include "fem/solver/run_output.hpp"
#include "output/scratch_dir.hpp"
#include "output/vtk_test_data.hpp"
#include "support/backend_here.hpp"

namespace fem {
namespace {

namespace fs = std::filesystem;
using test::expect_same_fields;
using test::hex_and_tet;
using test::make_frame;
using test::parse_pvd;
using test::ScratchDir;

std::string bytes_of(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::unique_ptr<FrameSeries> vtk_series(const fs::path& directory, FrameWriting writing,
                                        VtkCompression compression = VtkCompression::Zlib) {
  return std::make_unique<FrameSeries>(
      std::make_unique<VtkSeriesWriter>(directory.string(), "run", hex_and_tet(), SeriesPiece{},
                                        compression),
      nullptr, writing);
}

class FrameSeriesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!vtk_output_available()) GTEST_SKIP() << "fem built without VTK";
  }
  ScratchDir dir_;
};

TEST_F(FrameSeriesTest, BackgroundWritesTheSameFilesAsTheCaller) {
  constexpr int kFrames = 5;
  for (const FrameWriting writing : {FrameWriting::OnCaller, FrameWriting::Background}) {
    const auto series =
        vtk_series(dir_ / (writing == FrameWriting::OnCaller ? "caller" : "background"), writing);
    EXPECT_EQ(series->writing(), writing);
    for (int i = 0; i < kFrames; ++i) {
      series->write(make_frame(i, 0.1 * i));
      EXPECT_EQ(series->frames_written(), i + 1);  // handed over, perhaps still being written
    }
    series->flush();
    EXPECT_EQ(series->frames().size(), static_cast<std::size_t>(kFrames));
    EXPECT_EQ(series->next_index(), kFrames);
  }
  for (int i = 0; i < kFrames; ++i) {
    const std::string name = "run_00000" + std::to_string(i) + ".vtu";
    const std::string on_caller = bytes_of(dir_.path() / "caller" / name);
    ASSERT_FALSE(on_caller.empty()) << name;
    EXPECT_EQ(bytes_of(dir_.path() / "background" / name), on_caller) << name;
  }
  EXPECT_EQ(bytes_of(dir_.path() / "background/run.pvd"), bytes_of(dir_.path() / "caller/run.pvd"));
  EXPECT_EQ(parse_pvd(dir_ / "background/run.pvd").size(), static_cast<std::size_t>(kFrames));
}

TEST_F(FrameSeriesTest, ABackgroundFailureSurfacesAtTheNextCallAndTheFramesBeforeItStay) {
  const auto series = vtk_series(dir_.path(), FrameWriting::Background);
  // A folder where frame 1's file goes: its write fails on the writing thread.
  fs::create_directories(dir_.path() / "run_000001.vtu");
  series->write(make_frame(0, 0.0));
  series->write(make_frame(1, 0.1));  // returns: the failure is not known yet
  try {
    series->write(make_frame(2, 0.2));
    FAIL() << "the failed frame 1 was not reported";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("run_000001.vtu"), std::string::npos) << e.what();
  }
  const VtuContents first = read_vtu((dir_.path() / "run_000000.vtu").string());
  expect_same_fields(make_frame(0, 0.0).point_fields, first.point_fields);
  // Reported once: the series goes on, the next frame taking the failed one's number (the
  // writer removed what blocked it, as it removes a partial file).
  series->write(make_frame(2, 0.2));
  series->flush();
  const std::vector<SeriesFrame> frames = series->frames();
  ASSERT_EQ(frames.size(), 2u);
  EXPECT_EQ(frames[1].time, 0.2);
  EXPECT_EQ(frames[1].file, "run_000001.vtu");
  EXPECT_TRUE(fs::is_regular_file(dir_.path() / "run_000001.vtu"));
}

TEST_F(FrameSeriesTest, DestroyingASeriesWithAFailedFrameInFlightDoesNotThrow) {
  fs::create_directories(dir_.path() / "run_000000.vtu");
  EXPECT_NO_THROW({
    const auto series = vtk_series(dir_.path(), FrameWriting::Background);
    series->write(make_frame(0, 0.0));
  });
}

TEST_F(FrameSeriesTest, EveryCompressionReadsBackExactly) {
  const struct {
    VtkCompression compression;
    const char* compressor;  // what the file's header names, empty for none
  } kinds[] = {{VtkCompression::Zlib, "vtkZLibDataCompressor"},
               {VtkCompression::Lz4, "vtkLZ4DataCompressor"},
               {VtkCompression::None, ""}};
  for (const auto& kind : kinds) {
    const fs::path folder = dir_ / ("c" + std::to_string(static_cast<int>(kind.compression)));
    const auto series = vtk_series(folder, FrameWriting::OnCaller, kind.compression);
    const OutputFrame frame = make_frame(3, 0.5);
    series->write(frame);
    const std::string file = (folder / "run_000000.vtu").string();
    const std::string text = bytes_of(file);
    if (*kind.compressor)
      EXPECT_NE(text.find(kind.compressor), std::string::npos) << file;
    else
      EXPECT_EQ(text.find("compressor="), std::string::npos) << file;
    const VtuContents back = read_vtu(file);
    expect_same_fields(frame.point_fields, back.point_fields);
    expect_same_fields(frame.cell_fields, back.cell_fields);
  }
}

TEST(FrameWriting, BackgroundWhereTheBackendRunsOnADeviceAndOneProcessWritesNoHdf5) {
  OutputSpec output;
  EXPECT_EQ(frame_writing(output, nullptr, false), FrameWriting::OnCaller);  // no device known
  output.background = true;
  EXPECT_EQ(frame_writing(output, nullptr, false), FrameWriting::Background);
  EXPECT_EQ(frame_writing(output, nullptr, true), FrameWriting::OnCaller);  // several ranks
  output.xdmf = true;
  EXPECT_EQ(frame_writing(output, nullptr, false), FrameWriting::OnCaller);  // HDF5
  output.xdmf = false;
  output.background = false;
  EXPECT_EQ(frame_writing(output, nullptr, false), FrameWriting::OnCaller);
}

TEST(FrameWriting, TheOpenMpBackendWritesOnTheCallerAndAGpuBackendInTheBackground) {
  const PluginRegistry plugins;
  std::string why;
  const OutputSpec output;
  const auto openmp = test::backend_here(plugins, "openmp", why);
  ASSERT_NE(openmp, nullptr) << why;
  EXPECT_EQ(frame_writing(output, openmp.get(), false), FrameWriting::OnCaller);
  const auto cuda = test::backend_here(plugins, "cuda", why);
  if (!cuda) GTEST_SKIP() << "no GPU backend here: " << why;
  EXPECT_EQ(frame_writing(output, cuda.get(), false), FrameWriting::Background);
}

}  // namespace
}  // namespace fem
