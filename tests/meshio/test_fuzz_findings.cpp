// Mesh, image and surface files that the fuzzers (fuzz/fuzz_gmsh.cpp, fuzz_abaqus.cpp,
// fuzz_vtk.cpp, fuzz_image.cpp, fuzz_stl.cpp) or their review showed to exhaust memory or time,
// overflow, or read out of bounds; each is now refused with a message before the work.
// docs/fuzzing.md.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <limits>
#include <string>

#include <fem/contact/triangle_mesh.hpp>
#include <fem/error.hpp>
#include <fem/mesh/readers.hpp>
#include <fem/mesh/voxels.hpp>
#include <fem/output/vtk_series.hpp>

#include "output/scratch_dir.hpp"

#ifdef FEM_WITH_VTK
#include <vtkNew.h>
#include <vtkUnstructuredGrid.h>
#include <vtkUnstructuredGridWriter.h>
#include <vtkXMLUnstructuredGridReader.h>
#endif

namespace fem::test {
namespace {

const std::string kData = FEM_SOURCE_DIR "/tests/meshio/data/";

std::string edit(std::string text, const std::string& from, const std::string& to) {
  const std::size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << "test file lacks '" << from << "'";
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

class FuzzFindings : public ::testing::Test {
 protected:
  ScratchDir dir;

  std::string write(const std::string& name, const std::string& bytes) {
    std::ofstream(dir / name, std::ios::binary) << bytes;
    return dir / name;
  }

  /// The message of the InputError reading `path` raises (quickly), or a failure.
  std::string error_of(const std::string& path) {
    const auto start = std::chrono::steady_clock::now();
    try {
      (void)read_mesh(path);
      ADD_FAILURE() << path << " was read without error";
    } catch (const InputError& e) {
      EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
      return e.what();
    }
    return {};
  }
};

#define EXPECT_HAS(text, part) EXPECT_NE((text).find(part), std::string::npos) << (text)

TEST_F(FuzzFindings, GmshCountsBeyondTheFileAreRefusedBeforeSizingAnything) {
  // A node block announcing 10^15 nodes: the reader reserved the tags first (std::length_error
  // or gigabytes), now the count is compared with the bytes left.
  const std::string msh41 = read_text(kData + "column_41.msh");
  EXPECT_HAS(error_of(write("n.msh", edit(msh41, "3 1 0 9\n", "3 1 0 1000000000000000\n"))),
             "$Nodes announces 1000000000000000 nodes in a block, more than the rest of the file");
  // Gmsh 2.2 ASCII: an element with -1 (or 10^12) tags.
  const std::string msh22 = read_text(kData + "column_22.msh");
  for (const char* tags : {"-1", "1000000000000"}) {
    const std::string t =
        edit(msh22, "\n1 15 2 21 1 11\n", std::string("\n1 15 ") + tags + " 21 1 11\n");
    EXPECT_HAS(error_of(write("t.msh", t)), "tags of an element");
  }
  // Gmsh 2.2 binary: an element block header with 2^30 tags per element.
  std::string bin = read_text(kData + "column_22_bin.msh");
  const std::size_t at = bin.find("$Elements\n18\n") + std::strlen("$Elements\n18\n");
  const std::int32_t tags = 1 << 30;
  std::memcpy(&bin[at + 8], &tags, 4);
  EXPECT_HAS(error_of(write("b.msh", bin)), "tags of each element");
}

TEST_F(FuzzFindings, AbaqusGenerateRangesAreBoundedAndDoNotOverflow) {
  const std::string nodes = read_text(kData + "column_nodes.inp");
  std::string deck = read_text(kData + "column.inp");
  deck = edit(deck, "*Include, input=column_nodes.inp", nodes);
  // 10^18 ids from one line: generated one by one before (memory), now refused.
  const std::string huge = edit(deck, "*Nset, nset=bottom, generate\n1, 4, 1",
                                "*Nset, nset=bottom, generate\n1, 1000000000000000000, 1");
  EXPECT_HAS(error_of(write("g.inp", huge)),
             "GENERATE range 1 to 1000000000000000000 by 1 names 1000000000000000000 ids, more "
             "than the deck's");
  // Near the end of int64: `id += step` overflowed (undefined behaviour) instead of stopping.
  const std::string top = edit(deck, "*Nset, nset=bottom, generate\n1, 4, 1",
                               "*Nset, nset=bottom, generate\n9223372036854775806, "
                               "9223372036854775807, 5");
  EXPECT_HAS(error_of(write("o.inp", top)), "node set 'bottom' contains node 9223372036854775806");
}

TEST_F(FuzzFindings, AbaqusSetsNamingEachOtherAreExpandedOnce) {
  // 40 sets, each naming the next twice: 2^40 paths to the last one; each set is now expanded
  // once per set that names it.
  std::string deck = read_text(kData + "column.inp");
  deck = edit(deck, "*Include, input=column_nodes.inp", read_text(kData + "column_nodes.inp"));
  for (int i = 0; i < 40; ++i)
    deck += "*NSET, NSET=s" + std::to_string(i) + "\ns" + std::to_string(i + 1) + ", s" +
            std::to_string(i + 1) + "\n";
  deck += "*NSET, NSET=s40\n1, 2\n";
  const auto start = std::chrono::steady_clock::now();
  const Mesh mesh = read_mesh(write("sets.inp", deck));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  EXPECT_EQ(mesh.node_sets.at("s0").size(), 2U);
  // A set that names itself through another is still refused.
  EXPECT_HAS(error_of(write("loop.inp", deck + "*NSET, NSET=s40\ns0\n")),
             "node set 's0' contains itself");
}

TEST_F(FuzzFindings, AbaqusIncludeCirclesAreRefusedAtOnce) {
  // A file that includes itself twice was read 2^16 times before the depth limit stopped it.
  write("part.inp", "*INCLUDE, INPUT=part.inp\n*INCLUDE, INPUT=part.inp\n");
  const std::string main = write("main.inp", "*INCLUDE, INPUT=part.inp\n");
  const std::string e = error_of(main);
  EXPECT_HAS(e, "part.inp:1: error: *INCLUDE file");
  EXPECT_HAS(e, "includes itself");
}

TEST_F(FuzzFindings, VtkArraysMustMatchTheGridAndRegionIdsFitAnInteger) {
  const std::string vtk = read_text(kData + "column.vtk");
  // One region id array (no region: flags), with an id no integer holds: the cast to int64 was
  // undefined behaviour.
  std::string ids = edit(vtk, "SCALARS region:core int 1", "SCALARS block_id double 1");
  ids = edit(ids, "SCALARS region:shell int", "SCALARS other_a int");
  ids = edit(ids, "SCALARS region:solid int", "SCALARS other_b int");
  ids = edit(ids, "1 0 0 0 0 0 0 0 0\nSCALARS other_a", "1e300 0 0 0 0 0 0 0 0\nSCALARS other_a");
  EXPECT_HAS(error_of(write("ids.vtk", ids)), "cell array 'block_id' holds");
}

TEST_F(FuzzFindings, VtuSizesAreCheckedBeforeVtkAllocates) {
  if (!vtk_output_available()) GTEST_SKIP() << "built without VTK";
  const std::string vtu = read_text(kData + "column.vtu");
  // Two cell arrays of one name: VTK 9.1's reader dereferenced a null array (SEGV).
  EXPECT_HAS(error_of(write("dup.vtu", edit(vtu, "region:shell", "region:solid"))),
             "dup.vtu:13:9: error: CellData names two arrays 'region:solid'");
  // NumberOfComponents negative (std::length_error through VTK: abort), blank (an uninitialised
  // int: a hang or a huge allocation) or huge (out of memory).
  const std::string top = R"(Name="node_set:top" NumberOfComponents="1")";
  for (const char* components : {"-1", " ", "x1"})
    EXPECT_HAS(
        error_of(write("c.vtu", edit(vtu, top,
                                     std::string(R"(Name="node_set:top" NumberOfComponents=")") +
                                         components + "\""))),
        "c.vtu:7:9: error: DataArray NumberOfComponents=\"" + std::string(components) +
            "\" is not a non-negative integer");
  EXPECT_HAS(
      error_of(write("c.vtu", edit(vtu, top, R"(Name="node_set:top" NumberOfComponents="0")"))),
      "an array has at least one component");
  EXPECT_HAS(
      error_of(
          write("c.vtu", edit(vtu, top, R"(Name="node_set:top" NumberOfComponents="2000000000")"))),
      "c.vtu:7:9: error: NumberOfComponents=\"2000000000\" announces 2000000000 values, more "
      "than the");
  // Piece counts: negative (VTK wrote past an array), more than the file holds (memory or time),
  // more than 32-bit ids.
  const std::string piece = R"(NumberOfPoints="12" NumberOfCells="9")";
  EXPECT_HAS(
      error_of(write("p.vtu", edit(vtu, piece, R"(NumberOfPoints="12" NumberOfCells="-1")"))),
      "p.vtu:4:5: error: Piece NumberOfCells=\"-1\" is not a non-negative integer");
  EXPECT_HAS(error_of(write("p.vtu",
                            edit(vtu, piece, R"(NumberOfPoints="12" NumberOfCells="2000000000")"))),
             "NumberOfCells=\"2000000000\" announces 2000000000 values, more than the");
  EXPECT_HAS(error_of(write("p.vtu",
                            edit(vtu, piece, R"(NumberOfPoints="4000000000" NumberOfCells="9")"))),
             "more than fem's 32-bit ids can number");
  EXPECT_HAS(
      error_of(write("p.vtu", edit(vtu, piece, R"(NumberOfPoints="1000" NumberOfCells="9")"))),
      "p.vtu:16:9: error: point array 'Points' announces 3 x 1000 values, more than the");
}

// A .vti of cell labels without point data whose labels VTK cannot read ("1float0", or a file
// whose root names another type): VTK 9.1's reader dereferenced null (SEGV) looking for the
// PointData element to name in its message.
TEST_F(FuzzFindings, ImageCellArraysVtkCannotReadAreReportedNotACrash) {
  if (!vtk_output_available()) GTEST_SKIP() << "built without VTK";
  const std::string known = FEM_SOURCE_DIR "/fuzz/known/";
  for (const std::string name :
       {"vti_cell_array_without_point_data.vti", "vti_cell_array_of_a_mistyped_file.vti"}) {
    try {
      (void)read_label_image(known + name, SourceLocation{"case.yaml", 3, 10});
      ADD_FAILURE() << name << " was read";
    } catch (const InputError& e) {
      EXPECT_HAS(std::string(e.what()),
                 "case.yaml:3:10: error: cannot read image '" + known + name);
    }
  }
  // The first file with its labels readable is an image of 10 x 3 x 2 cells.
  const std::string text = read_text(known + "vti_cell_array_without_point_data.vti");
  const VoxelLattice lattice =
      read_label_image(write("fine.vti", edit(text, "1float0", "1 1 0 0")), SourceLocation{});
  EXPECT_EQ(lattice.dims, (std::array<std::int64_t, 3>{10, 3, 2}));
}

// A NRRD header with zero bytes in it: VTK 9.1's header reader looped forever.
TEST_F(FuzzFindings, NrrdHeadersWithZeroBytesAreRefusedBeforeVtkReadsThem) {
  if (!vtk_output_available()) GTEST_SKIP() << "built without VTK";
  const auto start = std::chrono::steady_clock::now();
  try {
    (void)read_label_image(FEM_SOURCE_DIR "/fuzz/known/nrrd_zero_byte_in_header.nrrd",
                           SourceLocation{"case.yaml", 2, 8});
    ADD_FAILURE() << "the image was read";
  } catch (const InputError& e) {
    EXPECT_HAS(std::string(e.what()), "case.yaml:2:8: error: NRRD file");
    EXPECT_HAS(std::string(e.what()), "has a zero byte in its header (byte 97)");
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
}

// Image headers VTK 9.1 trusted: a NRRD "space dimension" other than 3 made its reader write
// past an array (SEGV), and a "data file" in a .nrrd (data attached) made it allocate 3 GB;
// MetaImage headers with an ElementDataFile left empty (the name on the next line), a zero DimSize,
// binary bytes or a data file name with '%' (a pattern of files to MetaIO) overflowed a MetaIO
// buffer or threw std::length_error through VTK (an abort); a .vti extent running backwards made
// VTK's XML reader copy overlapping memory.
TEST_F(FuzzFindings, ImageHeadersAreCheckedBeforeVtkReadsThem) {
  if (!vtk_output_available()) GTEST_SKIP() << "built without VTK";
  const std::string known = FEM_SOURCE_DIR "/fuzz/known/";
  const std::pair<const char*, const char*> cases[] = {
      {"nrrd_space_dimension_6.nrrd", "has space dimension '6', not 3"},
      {"nrrd_data_file_in_attached_file.nrrd", "names a data file ('n: (:::"},
      {"mha_empty_data_file_overflow.mha", "names its data as a list or pattern of files"},
      {"mha_empty_data_file_length_error.mha", "has a zero byte in its header"},
      {"mha_data_file_pattern.mha", "names its data as a list or pattern of files ('LOC%L')"},
      {"vti_backward_whole_extent.vti", "has a WholeExtent that runs backwards"}};
  for (const auto& [name, says] : cases) {
    try {
      (void)read_label_image(known + name, SourceLocation{"case.yaml", 2, 8});
      ADD_FAILURE() << name << " was read";
    } catch (const InputError& e) {
      EXPECT_HAS(std::string(e.what()), says);
    }
  }
  // Line by line: a NRRD field NRRD does not define, or given twice; a zero MetaImage size.
  const std::string nrrd =
      std::string("NRRD0004\ntype: uint8\ndimension: 3\nsizes: 10 3 2\n") + "encoding: raw\n";
  const auto error_of_image = [&](const std::string& file, const std::string& text) {
    try {
      (void)read_label_image(write(file, text), SourceLocation{});
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("read");
  };
  EXPECT_HAS(error_of_image("a.nrrd", nrrd + "colour: red\n\n" + std::string(60, '\1')),
             "has an unknown field 'colour'");
  EXPECT_HAS(error_of_image("b.nrrd", nrrd + "sizes: 10 3 2\n\n" + std::string(60, '\1')),
             "gives the field 'sizes' twice");
  EXPECT_HAS(error_of_image("c.nrrd",
                            nrrd + "space directions: (1,0,0) (0,1,0)\n\n" + std::string(60, '\1')),
             "not three vectors (x,y,z)");
  EXPECT_HAS(error_of_image("list.nhdr", nrrd + "data file: LIST\n"),
             "names its data as a list or pattern of files ('LIST')");
  EXPECT_HAS(error_of_image("pattern.nhdr", nrrd + "data file: slice%03d.raw 1 2 1\n"),
             "names its data as a list or pattern of files ('slice%03d.raw 1 2 1')");
  const std::string vti = read_text(known + "vti_cell_array_without_point_data.vti");
  EXPECT_HAS(
      error_of_image("outside.vti", edit(vti, "<Piece Extent=\"0 10", "<Piece Extent=\"0 11")),
      "has a Piece whose Extent is not within the WholeExtent");
  EXPECT_HAS(error_of_image("e.mha",
                            "ObjectType = Image\nNDims = 3\nDimSize = 10 3 2\n"
                            "ElementType = MET_UCHAR\nElementDataFile = \nLOCAL\n"),
             "names no data file (ElementDataFile is empty)");
  EXPECT_HAS(error_of_image("d.mha",
                            "ObjectType = Image\nNDims = 3\nDimSize = 10 0 2\n"
                            "ElementType = MET_UCHAR\nElementDataFile = LOCAL\n"),
             "has DimSize '10 0 2', not 3 positive integers");
}

TEST_F(FuzzFindings, LegacyVtkSectionsMustHoldWhatTheyAnnounce) {
  if (!vtk_output_available()) GTEST_SKIP() << "built without VTK";
  // POINTS announcing twice the points given: VTK's reader wrote past its arrays (SEGV).
  EXPECT_HAS(error_of(write("known.vtk",
                            read_text(FEM_SOURCE_DIR "/fuzz/known/vtk_legacy_cells_count.vtk"))),
             "known.vtk:5:1: error: POINTS announces 72 values, but 'CELLSCELLS' (line 18) comes "
             "after 36");
  const std::string vtk = read_text(kData + "column.vtk");
  EXPECT_HAS(error_of(write("c.vtk", edit(vtk, "CELLS 9 46", "CELLS 9 45"))),
             "c.vtk:18:1: error: CELLS announces 45 values, but more follow");
  EXPECT_HAS(error_of(write("c.vtk", edit(vtk, "CELLS 9 46", "CELLS 10 46"))),
             "CELLS announces 10 cells in 46 integers, but cell 9 does not fit in them");
  EXPECT_HAS(error_of(write("c.vtk", edit(vtk, "4 4 5 6 10", "4 4 5 6 99"))),
             "a cell names point 99, but the file has 12 points (0 to 11)");
  EXPECT_HAS(error_of(write("c.vtk", edit(vtk, "CELL_TYPES 9", "CELL_TYPES 8"))),
             "CELL_TYPES announces 8 types for 9 cells");
  EXPECT_HAS(error_of(write("c.vtk", edit(vtk, "POINTS 12 double", "POINTS 99999999 double"))),
             "POINTS announces 99999999 items, more than the");
  EXPECT_HAS(error_of(write("c.vtk", edit(vtk, "CELL_TYPES", "CELL_TIPES"))),
             "unknown section 'CELL_TIPES'");
}

TEST_F(FuzzFindings, LegacyFilesVtkWritesPassTheCheck) {
  if (!vtk_output_available()) GTEST_SKIP() << "built without VTK";
#ifdef FEM_WITH_VTK
  // VTK 9.1 writes version 5.1: OFFSETS and CONNECTIVITY, METADATA after arrays; ASCII and
  // BINARY (big-endian) alike must read as the .vtu they came from.
  vtkNew<vtkXMLUnstructuredGridReader> in;
  in->SetFileName((kData + "column.vtu").c_str());
  in->Update();
  const Mesh reference = read_mesh(kData + "column.vtu");
  for (const bool binary : {false, true}) {
    SCOPED_TRACE(binary ? "binary" : "ascii");
    const std::string path = dir / (binary ? "b.vtk" : "a.vtk");
    vtkNew<vtkUnstructuredGridWriter> out;
    out->SetInputData(in->GetOutput());
    out->SetFileName(path.c_str());
    if (binary) out->SetFileTypeToBinary();
    ASSERT_EQ(out->Write(), 1);
    const Mesh back = read_mesh(path);
    EXPECT_EQ(back.num_nodes(), reference.num_nodes());
    EXPECT_EQ(back.node_sets, reference.node_sets);
    ASSERT_EQ(back.regions.size(), reference.regions.size());
    for (std::size_t r = 0; r < back.regions.size(); ++r) {
      EXPECT_EQ(back.regions[r].name, reference.regions[r].name);
      EXPECT_EQ(back.regions[r].connectivity, reference.regions[r].connectivity);
    }
    // The check read these files: cut short, each is refused by it, at a section.
    const std::string text = read_text(path);
    const std::string e = error_of(write("cut.vtk", text.substr(0, text.size() * 3 / 5)));
    EXPECT_EQ(e.find("not a readable VTK"), std::string::npos) << e;  // VTK's own message
    EXPECT_HAS(e, binary ? "bytes follow" : "cut.vtk:");
  }
#endif
}

TEST_F(FuzzFindings, StlCoordinatesMustBeFiniteAndBounded) {
  // Binary STL with a NaN vertex: the search grid turned NaN into cell indices (undefined
  // behaviour); ASCII coordinates of 1e300 overflowed the normals the same way.
  std::string bin(84 + 50, '\0');
  const std::uint32_t one = 1;
  std::memcpy(&bin[80], &one, 4);
  const float v[9] = {0, 0, 0, 1, 0, 0, 0, std::numeric_limits<float>::quiet_NaN(), 0};
  std::memcpy(&bin[84 + 12], v, sizeof v);
  try {
    (void)read_stl(write("nan.stl", bin));
    ADD_FAILURE() << "a NaN vertex was accepted";
  } catch (const InputError& e) {
    EXPECT_HAS(std::string(e.what()), "vertex 3 of triangle 1");
    EXPECT_HAS(std::string(e.what()), "not a finite number");
  }
  const std::string ascii =
      "solid big\n facet normal 0 0 1\n  outer loop\n   vertex 0 0 0\n   vertex 1e300 0 0\n"
      "   vertex 0 1e300 0\n  endloop\n endfacet\nendsolid big\n";
  EXPECT_THROW((void)read_stl(write("big.stl", ascii)), InputError);
  EXPECT_NO_THROW((void)read_stl(write("big.stl", ascii), 1e-250));
}

}  // namespace
}  // namespace fem::test
