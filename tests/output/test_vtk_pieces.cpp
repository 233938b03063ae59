// A partitioned series (issue 16): every rank writes its piece, rank 0 the .pvtu and the .pvd.
// MPI cannot run inside a test, so each rank's writer runs here in turn with a communicator that
// plays rank 0 or 1 of two and answers every collective as if the other rank had done the same.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "fem/error.hpp"
#include "fem/output/vtk_series.hpp"
#include "fem/parallel/communicator.hpp"
#include "output/rank_of_two.hpp"
#include "output/scratch_dir.hpp"
#include "output/vtk_test_data.hpp"

namespace fem {
namespace {

namespace fs = std::filesystem;
using test::expect_same_fields;
using test::expect_same_mesh;
using test::frame_of;
using test::hex_and_tet;
using test::make_frame;
using test::parse_pvd;
using test::piece_of;
using test::RankOfTwo;
using test::ScratchDir;

/// `b`'s tuples after `a`'s, as VTK's parallel reader appends pieces.
std::vector<Field> append(std::vector<Field> a, const std::vector<Field>& b) {
  for (std::size_t k = 0; k < a.size(); ++k) {
    a[k].values.insert(a[k].values.end(), b[k].values.begin(), b[k].values.end());
  }
  return a;
}

VtuContents union_of(const OutputMesh& a, const OutputFrame& fa, const OutputMesh& b,
                     const OutputFrame& fb) {
  VtuContents u{a, append(fa.point_fields, fb.point_fields),
                append(fa.cell_fields, fb.cell_fields)};
  const auto shift = static_cast<std::int64_t>(a.points.size() / 3);
  const std::int64_t base = a.offsets.back();
  u.mesh.points.insert(u.mesh.points.end(), b.points.begin(), b.points.end());
  u.mesh.cell_types.insert(u.mesh.cell_types.end(), b.cell_types.begin(), b.cell_types.end());
  for (std::size_t c = 1; c < b.offsets.size(); ++c) u.mesh.offsets.push_back(base + b.offsets[c]);
  for (const std::int64_t p : b.connectivity) u.mesh.connectivity.push_back(shift + p);
  u.mesh.point_ids.insert(u.mesh.point_ids.end(), b.point_ids.begin(), b.point_ids.end());
  u.mesh.cell_ids.insert(u.mesh.cell_ids.end(), b.cell_ids.begin(), b.cell_ids.end());
  return u;
}

class VtkPiecesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!vtk_output_available()) GTEST_SKIP() << "fem built without VTK";
  }
  /// Rank 0 owns the tetrahedron (cell 1), rank 1 the hexahedron: the pieces' order is not the
  /// global one, and points 4, 5 and 7 are in both.
  [[nodiscard]] std::unique_ptr<VtkSeriesWriter> writer(int rank) {
    return std::make_unique<VtkSeriesWriter>(dir_.path().string(), "run", pieces_[rank],
                                             SeriesPiece{&ranks_[rank]});
  }
  /// Frame `index` of the whole mesh written as two pieces, rank 1 first.
  std::string write_both(VtkSeriesWriter& w0, VtkSeriesWriter& w1, const OutputFrame& whole) {
    const std::string from1 = w1.write(frame_of(whole, pieces_[1]));
    const std::string from0 = w0.write(frame_of(whole, pieces_[0]));
    EXPECT_EQ(from0, from1);
    return from0;
  }

  ScratchDir dir_;
  RankOfTwo ranks_[2] = {RankOfTwo(0), RankOfTwo(1)};
  OutputMesh pieces_[2] = {piece_of(hex_and_tet(), {1}), piece_of(hex_and_tet(), {0})};
};

TEST_F(VtkPiecesTest, FramesReadBackAsTheUnionOfThePiecesAndAsTheOneProcessFile) {
  auto w0 = writer(0);
  auto w1 = writer(1);
  VtkSeriesWriter alone(dir_ / "alone", "run", hex_and_tet());
  for (int i = 0; i < 2; ++i) {
    SCOPED_TRACE("frame " + std::to_string(i));
    const OutputFrame whole = make_frame(i, 0.5 * i);
    const std::string pvtu = write_both(*w0, *w1, whole);
    const std::string stem = "run_00000" + std::to_string(i);
    EXPECT_EQ(pvtu, dir_ / (stem + ".pvtu"));
    for (const char* rank : {"0", "1"}) {
      EXPECT_TRUE(fs::is_regular_file(dir_ / (stem + "/" + stem + "_" + rank + ".vtu"))) << rank;
    }

    const VtuContents read = read_vtu(pvtu);
    const VtuContents expected =
        union_of(pieces_[0], frame_of(whole, pieces_[0]), pieces_[1], frame_of(whole, pieces_[1]));
    expect_same_mesh(expected.mesh, read.mesh);
    expect_same_fields(expected.point_fields, read.point_fields);
    expect_same_fields(expected.cell_fields, read.cell_fields);

    // The issue's check: in the global numbering, bit for bit the one-process run's file.
    const VtuContents one_process = read_vtu(alone.write(whole));
    const VtuContents global = in_global_numbering(read);
    expect_same_mesh(one_process.mesh, global.mesh);
    expect_same_fields(one_process.point_fields, global.point_fields);
    expect_same_fields(one_process.cell_fields, global.cell_fields);
  }
  // Every rank knows the series; the .pvd lists the .pvtu files by name.
  EXPECT_EQ(w0->frames().size(), 2u);
  EXPECT_EQ(w1->frames().size(), 2u);
  EXPECT_EQ(w0->next_index(), w1->next_index());
  EXPECT_EQ(w0->pvd_path(), w1->pvd_path());
  w0->flush();  // both frames within a second: the .pvd lists the second once flushed
  const std::vector<test::PvdEntry> entries = parse_pvd(w0->pvd_path());
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries[1].file, "run_000001.pvtu");
  EXPECT_EQ(entries[1].time, 0.5);
  EXPECT_EQ(w1->frames()[1].file, "run_000001.pvtu");
}

TEST_F(VtkPiecesTest, PvtuListsThePiecesAndTheirArrays) {
  auto w0 = writer(0);
  auto w1 = writer(1);
  const std::string pvtu = write_both(*w0, *w1, make_frame(0, 0.0));
  EXPECT_EQ(test::read_text(pvtu), R"(<?xml version="1.0"?>
<VTKFile type="PUnstructuredGrid" version="1.0" byte_order="LittleEndian" header_type="UInt64">
  <PUnstructuredGrid GhostLevel="0">
    <PPointData GlobalIds="GlobalNodeId">
      <PDataArray type="Float64" Name="displacement" NumberOfComponents="3"/>
      <PDataArray type="Int64" IdType="1" Name="GlobalNodeId" NumberOfComponents="1"/>
    </PPointData>
    <PCellData GlobalIds="GlobalElementId">
      <PDataArray type="Float64" Name="stress" NumberOfComponents="6"/>
      <PDataArray type="Float64" Name="von_mises" NumberOfComponents="1"/>
      <PDataArray type="Int64" IdType="1" Name="GlobalElementId" NumberOfComponents="1"/>
    </PCellData>
    <PPoints>
      <PDataArray type="Float64" Name="Points" NumberOfComponents="3"/>
    </PPoints>
    <Piece Source="run_000000/run_000000_0.vtu"/>
    <Piece Source="run_000000/run_000000_1.vtu"/>
  </PUnstructuredGrid>
</VTKFile>
)");
  // The pieces declare the ids as the .pvtu does (VTK's writer chooses the type there).
  const std::string file = test::read_text(dir_ / "run_000000/run_000000_1.vtu");
  const std::string header = file.substr(0, file.find("<AppendedData"));
  EXPECT_NE(header.find("<PointData GlobalIds=\"GlobalNodeId\">"), std::string::npos) << header;
  EXPECT_NE(header.find("type=\"Int64\" IdType=\"1\" Name=\"GlobalElementId\""), std::string::npos)
      << header;
}

TEST_F(VtkPiecesTest, OnlyRankZeroWritesTheIndexFiles) {
  auto w1 = writer(1);
  EXPECT_EQ(w1->write(frame_of(make_frame(0, 0.0), pieces_[1])), dir_ / "run_000000.pvtu");
  EXPECT_TRUE(fs::exists(dir_ / "run_000000/run_000000_1.vtu"));
  EXPECT_FALSE(fs::exists(dir_ / "run_000000.pvtu"));
  EXPECT_FALSE(fs::exists(w1->pvd_path()));
  EXPECT_EQ(w1->frames_written(), 1);
}

TEST_F(VtkPiecesTest, AFailureOnAnotherRankFailsHereAndRemovesThisPiece) {
  auto w0 = writer(0);
  const OutputFrame frame = frame_of(make_frame(0, 0.0), pieces_[0]);
  // Rank 1 reports a failed write where rank 0 reports success (an empty text).
  ranks_[0].other = [](const std::string& mine) {
    return mine.empty() ? std::string("cannot write 'x_1.vtu': No space left on device") : mine;
  };
  try {
    w0->write(frame);
    FAIL() << "expected fem::Error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "cannot write 'x_1.vtu': No space left on device (rank 1 of 2)");
  }
  EXPECT_FALSE(fs::exists(dir_ / "run_000000/run_000000_0.vtu"));
  EXPECT_FALSE(fs::exists(dir_ / "run_000000.pvtu"));
  EXPECT_FALSE(fs::exists(w0->pvd_path()));
  EXPECT_EQ(w0->frames_written(), 0);

  // Once the other rank writes again, the series goes on with the same number.
  ranks_[0].other = [](const std::string& mine) { return mine; };
  EXPECT_EQ(w0->write(frame), dir_ / "run_000000.pvtu");
  EXPECT_EQ(parse_pvd(w0->pvd_path()).size(), 1u);
}

TEST_F(VtkPiecesTest, AFailureHereIsReportedWithThisRank) {
  auto w1 = writer(1);
  OutputFrame bad = frame_of(make_frame(0, 0.0), pieces_[1]);
  bad.point_fields[0].values.pop_back();
  try {
    w1->write(bad);
    FAIL() << "expected fem::Error";
  } catch (const Error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("displacement"), std::string::npos) << what;
    // Both ranks failed (the fake's rank 0 repeats rank 1): the first one is named.
    EXPECT_NE(what.find("(rank 0 of 2; 1 other rank(s) failed too)"), std::string::npos) << what;
  }
  EXPECT_FALSE(fs::exists(dir_ / "run_000000/run_000000_1.vtu"));
}

TEST_F(VtkPiecesTest, RanksWithOtherFieldsAreRefusedBeforeWriting) {
  auto w0 = writer(0);
  ranks_[0].other = [](const std::string& mine) {
    return mine.starts_with("<?xml") ? mine + "<!-- another field -->" : mine;
  };
  try {
    w0->write(frame_of(make_frame(0, 0.0), pieces_[0]));
    FAIL() << "expected fem::Error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "the ranks' output fields differ: rank 1's are not rank 0's");
  }
  EXPECT_FALSE(fs::exists(dir_ / "run_000000"));
}

TEST_F(VtkPiecesTest, WriteSingleWritesAPvtuOutsideTheSeries) {
  auto w0 = writer(0);
  auto w1 = writer(1);
  write_both(*w0, *w1, make_frame(0, 0.0));
  const OutputFrame last = make_frame(1, 0.25);
  w1->write_single(frame_of(last, pieces_[1]), "run_last_good.vtu");
  const std::string path = w0->write_single(frame_of(last, pieces_[0]), "run_last_good.vtu");
  EXPECT_EQ(path, dir_ / "run_last_good.pvtu");
  EXPECT_TRUE(fs::exists(dir_ / "run_last_good/run_last_good_1.vtu"));
  EXPECT_EQ(parse_pvd(w0->pvd_path()).size(), 1u);
  const VtuContents global = in_global_numbering(read_vtu(path));
  expect_same_mesh(hex_and_tet(), global.mesh);
  expect_same_fields(last.point_fields, global.point_fields);
}

TEST_F(VtkPiecesTest, ResumeRewritesTheIndexOnRankZeroAndNumbersOnEveryRank) {
  auto w0 = writer(0);
  auto w1 = writer(1);
  write_both(*w0, *w1, make_frame(0, 0.0));
  write_both(*w0, *w1, make_frame(1, 0.5));
  w0->flush();
  const std::vector<SeriesFrame> kept = {w0->frames()[0]};

  auto r1 = writer(1);
  r1->resume(kept, 1);
  EXPECT_EQ(parse_pvd(r1->pvd_path()).size(), 2u) << "rank 1 rewrote the .pvd";
  auto r0 = writer(0);
  r0->resume(kept, 1);
  EXPECT_EQ(parse_pvd(r0->pvd_path()).size(), 1u);
  EXPECT_EQ(write_both(*r0, *r1, make_frame(2, 0.75)), dir_ / "run_000001.pvtu");
  r0->flush();
  const std::vector<test::PvdEntry> entries = parse_pvd(r0->pvd_path());
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries[1].time, 0.75);
  EXPECT_EQ(r1->frames().size(), 2u);
}

TEST_F(VtkPiecesTest, OneRankWritesTheSameBytesAsNoCommunicator) {
  const std::unique_ptr<parallel::Communicator> one = parallel::single_process();
  VtkSeriesWriter with(dir_ / "with", "run", hex_and_tet(), SeriesPiece{one.get()});
  VtkSeriesWriter without(dir_ / "without", "run", hex_and_tet());
  for (int i = 0; i < 2; ++i) {
    const OutputFrame frame = make_frame(i, 0.25 * i);
    EXPECT_EQ(test::read_text(with.write(frame)), test::read_text(without.write(frame)));
  }
  EXPECT_EQ(test::read_text(with.pvd_path()), test::read_text(without.pvd_path()));
  EXPECT_FALSE(fs::exists(dir_ / "with/run_000000.pvtu"));
}

TEST_F(VtkPiecesTest, GlobalIdsRoundTripAsIdsNotFields) {
  OutputMesh mesh = hex_and_tet();
  mesh.point_ids = {10, 11, 12, 13, 14, 15, 16, 17, 18};
  mesh.cell_ids = {7, 3};
  VtkSeriesWriter w(dir_.path().string(), "run", mesh);
  const OutputFrame frame = make_frame(0, 0.0);
  const VtuContents read = read_vtu(w.write(frame));
  expect_same_mesh(mesh, read.mesh);
  expect_same_fields(frame.point_fields, read.point_fields);
  expect_same_fields(frame.cell_fields, read.cell_fields);

  OutputFrame clash = frame;
  clash.point_fields.push_back(test::make_field("GlobalNodeId", 1, 9, 0, 0));
  EXPECT_THROW(w.write(clash), Error);
  mesh.cell_ids.pop_back();
  EXPECT_THROW(VtkSeriesWriter(dir_.path().string(), "bad", mesh), Error);
}

TEST_F(VtkPiecesTest, PiecesThatDisagreeAboutASharedPointAreNotMatched) {
  VtuContents pieces{piece_of(hex_and_tet(), {1}), {}, {}};
  const VtuContents other{piece_of(hex_and_tet(), {0}), {}, {}};
  pieces = union_of(pieces.mesh, {}, other.mesh, {});
  EXPECT_NO_THROW(in_global_numbering(pieces));
  pieces.mesh.points[0] = -pieces.mesh.points[0];  // point 4's x: 0.0 in one piece, -0.0 in one
  EXPECT_THROW(in_global_numbering(pieces), Error);
  pieces.mesh.point_ids.clear();
  EXPECT_THROW(in_global_numbering(pieces), Error);
}

TEST_F(VtkPiecesTest, PvtuWithAMissingPieceIsAnInputError) {
  auto w0 = writer(0);
  // Rank 1's writer never ran: its piece is missing.
  const std::string pvtu = w0->write(frame_of(make_frame(0, 0.0), pieces_[0]));
  try {
    read_vtu(pvtu);
    FAIL() << "expected fem::InputError";
  } catch (const InputError& e) {
    EXPECT_EQ(e.where().file, pvtu);
    EXPECT_NE(std::string(e.what()).find("piece 1"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace fem
