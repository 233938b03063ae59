// Each class of bad mesh file gets its own message, at the file and line where it is (binary
// Gmsh data: the section's line and the byte offset). The files are the column of
// tests/meshio/data with one thing broken.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

#include <fem/error.hpp>
#include <fem/mesh/readers.hpp>
#include <fem/output/vtk_series.hpp>

#include "output/scratch_dir.hpp"

namespace fem::test {
namespace {

const std::string kData = FEM_SOURCE_DIR "/tests/meshio/data/";

/// `text` with `from` replaced by `to` (which must occur).
std::string edit(std::string text, const std::string& from, const std::string& to) {
  const std::size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << "test file lacks '" << from << "'";
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

/// 1-based line of the first occurrence of `needle` in `text`.
int line_of(const std::string& text, const std::string& needle) {
  const std::size_t at = text.find(needle);
  return 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<long>(at), '\n'));
}

class Malformed : public ::testing::Test {
 protected:
  ScratchDir dir;

  std::string write(const std::string& name, const std::string& text) {
    std::ofstream(dir / name, std::ios::binary) << text;
    return dir / name;
  }

  /// Reads `path`, expecting an InputError at `file_name`:`line` whose message contains `what`.
  void expect_error(const std::string& path, const std::string& file_name, int line,
                    const std::string& what) {
    try {
      (void)read_mesh(path);
      ADD_FAILURE() << path << " was read without error; expected: " << what;
    } catch (const InputError& e) {
      EXPECT_EQ(std::filesystem::path(e.where().file).filename().string(), file_name) << e.what();
      EXPECT_EQ(e.where().line, line) << e.what();
      EXPECT_NE(e.message().find(what), std::string::npos) << e.what();
    }
  }
};

const std::string kMsh41 = read_text(kData + "column_41.msh");
const std::string kMsh22 = read_text(kData + "column_22.msh");
const std::string kInp = read_text(kData + "column.inp");
const std::string kInpNodes = read_text(kData + "column_nodes.inp");

TEST_F(Malformed, GmshUnsupportedElementType) {
  const std::string t = edit(kMsh41, "3 1 5 1\n100 1 2 3 4 5 6 7 8", "3 1 6 1\n100 1 2 3 5 6 7");
  expect_error(write("m.msh", t), "m.msh", line_of(t, "100 1 2 3 5"),
               "element 100 is a 6-node prism (Gmsh type 6), which fem does not support");
  const std::string u = edit(kMsh41, "3 1 5 1", "3 1 99 1");
  expect_error(write("u.msh", u), "u.msh", line_of(u, "3 1 99 1"), "unknown Gmsh element type 99");
}

TEST_F(Malformed, GmshDanglingNode) {
  const std::string t = edit(kMsh41, "201 5 6 7 22", "201 5 6 7 77");
  expect_error(write("m.msh", t), "m.msh", line_of(t, "201 5"),
               "element 201 refers to node 77, which the file does not define");
  const std::string v2 = edit(kMsh22, "5 4 2 2 2 5 6 7 11", "5 4 2 2 2 5 6 7 13");
  expect_error(write("v2.msh", v2), "v2.msh", line_of(v2, "5 4 2 2 2 5 6 7 13"),
               "element 5 refers to node 13");
}

TEST_F(Malformed, GmshDuplicateIds) {
  const std::string n = edit(kMsh41, "20\n21\n", "2\n21\n");
  expect_error(write("n.msh", n), "n.msh", line_of(n, "2\n21\n"), "node 2 is defined twice");
  const std::string e = edit(kMsh41, "202 5 7 8 22", "201 5 7 8 22");
  expect_error(write("e.msh", e), "e.msh", line_of(e, "201 5 7 8"), "element 201 is defined twice");
}

TEST_F(Malformed, GmshTruncated) {
  const std::string t = kMsh41.substr(0, kMsh41.find("0 10 20\n$EndNodes"));
  expect_error(write("t.msh", t), "t.msh", line_of(kMsh41, "0 10 20\n$EndNodes"),
               "the file ends inside the $Nodes section");
  const std::string no_elements = kMsh41.substr(0, kMsh41.find("$Elements"));
  expect_error(write("ne.msh", no_elements), "ne.msh", line_of(kMsh41, "$Elements"),
               "the file has no $Elements section");
}

TEST_F(Malformed, GmshBinaryTruncatedAndDamaged) {
  const std::string bin = read_text(kData + "column_41_bin.msh");
  const std::string cut = bin.substr(0, bin.size() - 200);  // inside $Elements
  try {
    (void)read_mesh(write("cut.msh", cut));
    ADD_FAILURE() << "truncated binary file read";
  } catch (const InputError& e) {
    EXPECT_NE(e.message().find("the file ends inside the $Elements section"), std::string::npos)
        << e.what();
  }
  // The check integer after $MeshFormat is neither 1 nor 1 byte-swapped.
  std::string damaged = bin;
  damaged[bin.find("1 8\n") + 4] = 7;
  damaged[bin.find("1 8\n") + 5] = 7;
  expect_error(write("d.msh", damaged), "d.msh", 1, "the binary check value");
}

TEST_F(Malformed, GmshByteSwappedBinaryIsRead) {
  // A big-endian writer: every number of the binary 2.2 file byte-swapped, the text kept.
  const std::string bin = read_text(kData + "column_22_bin.msh");
  std::string swapped = bin;
  const auto swap_at = [&](std::size_t at, int size) {
    std::reverse(swapped.begin() + static_cast<long>(at),
                 swapped.begin() + static_cast<long>(at) + size);
  };
  std::size_t p = bin.find("2.2 1 8\n") + 8;
  swap_at(p, 4);
  p = bin.find("$Nodes\n12\n") + 10;
  for (int n = 0; n < 12; ++n, p += 28) {
    swap_at(p, 4);
    for (int k = 0; k < 3; ++k) swap_at(p + 4 + 8 * k, 8);
  }
  p = bin.find("$Elements\n18\n") + 13;
  for (int done = 0; done < 18;) {
    const auto word = [&](std::size_t at) {
      std::int32_t v;
      std::memcpy(&v, bin.data() + at, 4);
      return v;
    };
    const int type = word(p), count = word(p + 4), tags = word(p + 8);
    const int nodes = type == 15 ? 1 : type == 2 ? 3 : type == 3 ? 4 : type == 4 ? 4 : 8;
    for (int k = 0; k < 3; ++k) swap_at(p + 4 * k, 4);
    p += 12;
    for (int i = 0; i < count * (1 + tags + nodes); ++i, p += 4) swap_at(p, 4);
    done += count;
  }
  EXPECT_EQ(read_mesh(write("be.msh", swapped)).num_nodes(), 12);
}

TEST_F(Malformed, GmshUnknownVersion) {
  const std::string t = edit(kMsh41, "4.1 0 8", "4.0 0 8");
  expect_error(write("v.msh", t), "v.msh", 2, "unsupported Gmsh format version 4.0");
  expect_error(write("x.msh", "hello\n"), "x.msh", 1, "not a Gmsh mesh file");
}

TEST_F(Malformed, GmshInvertedElement) {
  const std::string t = edit(kMsh41, "201 5 6 7 22", "201 6 5 7 22");
  expect_error(write("i.msh", t), "i.msh", line_of(t, "201 6 5"),
               "element 201 (tet4) is inverted or degenerate");
}

TEST_F(Malformed, AbaqusUnsupportedElementType) {
  write("column_nodes.inp", kInpNodes);
  const std::string t = edit(kInp, "TYPE=C3D8R", "TYPE=C3D15");
  expect_error(write("a.inp", t), "a.inp", line_of(t, "C3D15"),
               "element type C3D15 is not supported");
}

TEST_F(Malformed, AbaqusDanglingNodeAndSetMember) {
  write("column_nodes.inp", kInpNodes);
  const std::string t = edit(kInp, "202, 5, 7, 8, 22", "202, 5, 7, 8, 77");
  expect_error(write("a.inp", t), "a.inp", line_of(t, "202, 5"),
               "element 202 refers to node 77, which the file does not define");
  const std::string s = edit(kInp, "core, SHELL", "core, SHELL, 999");
  expect_error(write("s.inp", s), "s.inp", line_of(s, "999"),
               "element set 'solid' contains element 999, which the file does not define");
  const std::string n = edit(kInp, "20, 21, 22,", "20, 21, 22, 55,");
  expect_error(write("n.inp", n), "n.inp", line_of(n, "55"),
               "node set 'top' contains node 55, which the file does not define");
}

TEST_F(Malformed, AbaqusDuplicateNodeInIncludedFile) {
  write("column_nodes.inp", edit(kInpNodes, "99, 50.", "7, 50."));
  expect_error(write("a.inp", kInp), "column_nodes.inp", line_of(kInpNodes, "99, 50."),
               "node 7 is defined twice");
}

TEST_F(Malformed, AbaqusMissingInclude) {
  expect_error(write("a.inp", kInp), "a.inp", line_of(kInp, "*Include"), "*INCLUDE file");
}

TEST_F(Malformed, AbaqusMovedInstance) {
  write("column_nodes.inp", kInpNodes);
  const std::string t = kInp + "*Assembly, name=A\n*Instance, name=I, part=P\n 5., 0., 0.\n";
  expect_error(write("a.inp", t), "a.inp", line_of(t, " 5., 0., 0."),
               "*INSTANCE with a translation or rotation is not supported");
  // In place (no data lines), an instance is fine.
  EXPECT_EQ(read_mesh(write("b.inp", kInp + "*Assembly, name=A\n*Instance, name=I, part=P\n"
                                            "*End Instance\n*End Assembly\n"))
                .num_nodes(),
            12);
}

TEST_F(Malformed, AbaqusTruncatedElement) {
  write("column_nodes.inp", kInpNodes);
  const std::string t = edit(kInp, " 5, 6, 7, 8\n", " 5, 6, 7\n");
  expect_error(write("a.inp", t), "a.inp", line_of(t, "100, 1"),
               "element 100 of type C3D8R lists 7 nodes; C3D8R has 8");
}

TEST_F(Malformed, VtkUnsupportedCellAndDamagedFile) {
  if (!vtk_output_available()) GTEST_SKIP() << "built without VTK";
  const std::string vtk = read_text(kData + "column.vtk");
  const std::string wedge = edit(vtk, "CELL_TYPES 9\n12\n", "CELL_TYPES 9\n13\n");
  expect_error(write("w.vtk", wedge), "w.vtk", 0, "cell 0 has VTK cell type 13");
  const std::string vtu = read_text(kData + "column.vtu");
  expect_error(write("t.vtu", vtu.substr(0, vtu.size() / 2)), "t.vtu", 0,
               "not a readable VTK unstructured grid");
}

TEST_F(Malformed, MissingFileAndUnknownFormat) {
  expect_error(dir / "none.msh", "none.msh", 0,
               "mesh file '" + (dir / "none.msh") + "' does not exist");
  expect_error(write("s.stl", "solid\n"), "s.stl", 0, "unknown mesh file format '.stl'");
}

}  // namespace
}  // namespace fem::test
