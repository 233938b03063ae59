// Plane meshes (plane strain): a mesh file with no solid cells gives its 3-node triangles and
// 4-node quadrilaterals as the cells, in every format. The Gmsh files are written here in 2.2 and
// 4.1, ASCII and binary, from one small model: a 2 x 1 plate of one quadrilateral (physical
// surface 'left') and two triangles ('right', one of them listed clockwise), a physical curve
// 'bottom' and a physical point 'corner', and a geometry node off the plane that no cell uses.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <fem/error.hpp>
#include <fem/mesh/readers.hpp>
#include <fem/output/vtk_series.hpp>

#include "meshio/column_model.hpp"
#include "output/scratch_dir.hpp"

namespace fem::test {
namespace {

using Cell = std::vector<Point>;
using Cells = std::vector<Cell>;

struct GmshModel {
  struct Node {
    int id;
    double x, y, z;
  };
  struct Element {
    int id, type, dim, entity;
    std::vector<int> nodes;
  };
  std::vector<Node> nodes;
  std::vector<Element> elements;
  std::map<std::pair<int, int>, int> physical;       ///< entity (dim, tag) -> physical tag
  std::map<std::pair<int, int>, std::string> names;  ///< physical (dim, tag) -> name
};

/// The plate. Element 41 runs clockwise: (1,0), (1,1), (2,1).
GmshModel plate() {
  GmshModel m;
  m.nodes = {{1, 0, 0, 0}, {2, 1, 0, 0}, {3, 2, 0, 0}, {4, 0, 1, 0},
             {5, 1, 1, 0}, {6, 2, 1, 0}, {7, 5, 5, 3}};
  m.elements = {{10, 15, 0, 1, {3}},         {20, 1, 1, 1, {1, 2}},    {21, 1, 1, 1, {2, 3}},
                {30, 3, 2, 1, {1, 2, 5, 4}}, {40, 2, 2, 2, {2, 3, 6}}, {41, 2, 2, 2, {2, 5, 6}}};
  m.physical = {{{0, 1}, 4}, {{1, 1}, 3}, {{2, 1}, 1}, {{2, 2}, 2}};
  m.names = {{{0, 4}, "corner"}, {{1, 3}, "bottom"}, {{2, 1}, "left"}, {{2, 2}, "right"}};
  return m;
}

/// The plate as it must be read: the clockwise triangle turned, node 0 kept.
MeshByPoints plate_read() {
  MeshByPoints m;
  m.nodes = {{0, 0, 0}, {0, 1, 0}, {1, 0, 0}, {1, 1, 0}, {2, 0, 0}, {2, 1, 0}};
  m.regions["left"] = {CellShape::Quad4, Cells{Cell{{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}}}};
  m.regions["right"] = {CellShape::Tri3, Cells{Cell{{1, 0, 0}, {2, 0, 0}, {2, 1, 0}},
                                               Cell{{1, 0, 0}, {2, 1, 0}, {1, 1, 0}}}};
  m.node_sets["bottom"] = {{0, 0, 0}, {1, 0, 0}, {2, 0, 0}};
  m.node_sets["corner"] = {{2, 0, 0}};
  return m;
}

/// A Gmsh file and the line each node and element is read at (binary: its section's line).
struct GmshFile {
  std::string bytes;
  std::map<int, int> node_line, element_line;
};

/// Numbers in text or in binary, as the format's `int`, `size_t` and `double` fields.
class GmshOut {
 public:
  explicit GmshOut(bool binary) : binary_(binary) {}
  void text(const std::string& s) { out_ += s; }
  void i32(std::int32_t v) { put(v); }
  void size(std::uint64_t v) { put(v); }
  void real(double v) { put(v); }
  /// Ends a line of text; binary data runs on.
  void end() {
    if (!binary_) out_ += "\n";
  }
  /// Ends a section; binary data is followed by a newline, as Gmsh writes it.
  void close(const std::string& section) {
    if (binary_) out_ += "\n";
    out_ += "$End";
    out_ += section;
    out_ += "\n";
  }
  [[nodiscard]] int line() const {
    return 1 + static_cast<int>(std::count(out_.begin(), out_.end(), '\n'));
  }
  [[nodiscard]] bool binary() const { return binary_; }
  std::string& bytes() { return out_; }

 private:
  bool binary_;
  std::string out_;

  template <class T>
  void put(T v) {
    if (binary_) {
      char b[sizeof(T)];
      std::memcpy(b, &v, sizeof(T));
      out_.append(b, sizeof(T));
    } else {
      std::ostringstream s;
      s.precision(17);
      s << v << ' ';
      out_ += s.str();
    }
  }
};

int physical_of(const GmshModel& m, int dim, int entity) {
  const auto it = m.physical.find({dim, entity});
  return it == m.physical.end() ? 0 : it->second;
}

void write_header(GmshOut& o, const GmshModel& m, const char* version) {
  o.text(std::string("$MeshFormat\n") + version + (o.binary() ? " 1 8\n" : " 0 8\n"));
  if (o.binary()) {
    o.i32(1);
    o.text("\n");
  }
  o.text("$EndMeshFormat\n$PhysicalNames\n" + std::to_string(m.names.size()) + "\n");
  for (const auto& [key, name] : m.names)
    o.text(std::to_string(key.first) + " " + std::to_string(key.second) + " \"" + name + "\"\n");
  o.text("$EndPhysicalNames\n");
}

/// Format 2.2: nodes and elements with their physical and elementary tags.
void write_gmsh22(GmshOut& o, const GmshModel& m, GmshFile& f) {
  o.text("$Nodes\n" + std::to_string(m.nodes.size()) + "\n");
  const int nodes_line = o.line() - 2;
  for (const GmshModel::Node& n : m.nodes) {
    f.node_line[n.id] = o.binary() ? nodes_line : o.line();
    o.i32(n.id);
    o.real(n.x);
    o.real(n.y);
    o.real(n.z);
    o.end();
  }
  o.close("Nodes");
  o.text("$Elements\n" + std::to_string(m.elements.size()) + "\n");
  const int elements_line = o.line() - 2;
  for (const GmshModel::Element& e : m.elements) {
    f.element_line[e.id] = o.binary() ? elements_line : o.line();
    if (o.binary()) {  // a block of one element: type, count, number of tags
      o.i32(e.type);
      o.i32(1);
      o.i32(2);
      o.i32(e.id);
    } else {
      o.i32(e.id);
      o.i32(e.type);
      o.i32(2);
    }
    o.i32(physical_of(m, e.dim, e.entity));
    o.i32(e.entity);
    for (const int n : e.nodes) o.i32(n);
    o.end();
  }
  o.close("Elements");
}

/// Format 4.1: entities with their physical tags, one node block, one element block per element.
void write_gmsh41(GmshOut& o, const GmshModel& m, GmshFile& f) {
  std::map<std::pair<int, int>, int> entities;  // (dim, tag) -> physical
  for (const GmshModel::Element& e : m.elements)
    entities[{e.dim, e.entity}] = physical_of(m, e.dim, e.entity);
  o.text("$Entities\n");
  for (int dim = 0; dim < 4; ++dim) {
    std::uint64_t count = 0;
    for (const auto& [key, physical] : entities) count += key.first == dim ? 1 : 0;
    o.size(count);
  }
  o.end();
  for (const auto& [key, physical] : entities) {
    o.i32(key.second);
    for (int k = 0; k < (key.first == 0 ? 3 : 6); ++k) o.real(0.0);
    o.size(physical ? 1 : 0);
    if (physical) o.i32(physical);
    if (key.first > 0) o.size(0);  // no bounding entities
    o.end();
  }
  o.close("Entities");
  o.text("$Nodes\n");
  const int nodes_line = o.line() - 1;
  o.size(1);
  o.size(m.nodes.size());
  o.size(1);
  o.size(m.nodes.size());
  o.end();
  o.i32(2);
  o.i32(1);
  o.i32(0);
  o.size(m.nodes.size());
  o.end();
  for (const GmshModel::Node& n : m.nodes) {
    f.node_line[n.id] = o.binary() ? nodes_line : o.line();
    o.size(static_cast<std::uint64_t>(n.id));
    o.end();
  }
  for (const GmshModel::Node& n : m.nodes) {
    o.real(n.x);
    o.real(n.y);
    o.real(n.z);
    o.end();
  }
  o.close("Nodes");
  o.text("$Elements\n");
  const int elements_line = o.line() - 1;
  o.size(m.elements.size());
  o.size(m.elements.size());
  o.size(1);
  o.size(100);
  o.end();
  for (const GmshModel::Element& e : m.elements) {
    o.i32(e.dim);
    o.i32(e.entity);
    o.i32(e.type);
    o.size(1);
    o.end();
    f.element_line[e.id] = o.binary() ? elements_line : o.line();
    o.size(static_cast<std::uint64_t>(e.id));
    for (const int n : e.nodes) o.size(static_cast<std::uint64_t>(n));
    o.end();
  }
  o.close("Elements");
}

enum class Gmsh { v22_ascii, v22_binary, v41_ascii, v41_binary };

GmshFile write_gmsh(const GmshModel& m, Gmsh format) {
  const bool binary = format == Gmsh::v22_binary || format == Gmsh::v41_binary;
  const bool v2 = format == Gmsh::v22_ascii || format == Gmsh::v22_binary;
  GmshOut o(binary);
  GmshFile f;
  write_header(o, m, v2 ? "2.2" : "4.1");
  v2 ? write_gmsh22(o, m, f) : write_gmsh41(o, m, f);
  f.bytes = std::move(o.bytes());
  return f;
}

class PlaneFiles : public ::testing::Test {
 protected:
  ScratchDir dir;

  std::string write(const std::string& name, const std::string& bytes) {
    std::ofstream(dir / name, std::ios::binary) << bytes;
    return dir / name;
  }

  /// Reads `path`, expecting an InputError at `file`:`line` whose message contains `what` and
  /// whose hint contains `hint`.
  static void expect_error(const std::string& path, int line, const std::string& what,
                           const std::string& hint = "") {
    try {
      (void)read_mesh(path);
      ADD_FAILURE() << path << " was read without error; expected: " << what;
    } catch (const InputError& e) {
      EXPECT_EQ(e.where().file, path) << e.what();
      EXPECT_EQ(e.where().line, line) << e.what();
      EXPECT_NE(e.message().find(what), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(hint), std::string::npos) << e.what();
    }
  }
};

class PlaneGmsh : public PlaneFiles, public ::testing::WithParamInterface<Gmsh> {};

TEST_P(PlaneGmsh, SurfacesAreTheCellsCurvesAndPointsTheNodeSets) {
  const std::string path = write("plate.msh", write_gmsh(plate(), GetParam()).bytes);
  ::testing::internal::CaptureStdout();
  const Mesh mesh = read_mesh(path);
  const std::string log = ::testing::internal::GetCapturedStdout();
  EXPECT_EQ(mesh.dimension(), 2);
  // The off-plane geometry node 7 is no cell's: dropped, not checked.
  EXPECT_EQ(mesh.num_nodes(), 6);
  EXPECT_EQ(by_points(mesh), plate_read());
  EXPECT_NE(log.find("plate.msh: 1 of 3 plane cells ran clockwise (seen from +z) and were turned "
                     "counter-clockwise"),
            std::string::npos)
      << log;
}

TEST_P(PlaneGmsh, NodeOffThePlaneIsAnErrorAtItsLine) {
  GmshModel m = plate();
  m.nodes[4].z = 0.5;  // node 5, of the quadrilateral and a triangle
  const GmshFile f = write_gmsh(m, GetParam());
  expect_error(write("off.msh", f.bytes), f.node_line.at(5),
               "node 5 of the plane mesh has z = 0.5, off its plane z = 0 (that of node 1)",
               "fem reads plane meshes (a file of triangles or quadrilaterals and no tetrahedra or "
               "hexahedra) in the xy-plane, z = const");
}

TEST_P(PlaneGmsh, ZeroAreaCellIsAnErrorAtItsLine) {
  GmshModel m = plate();
  m.elements.back().nodes = {1, 2, 3};  // three nodes on y = 0
  const GmshFile f = write_gmsh(m, GetParam());
  expect_error(write("flat.msh", f.bytes), f.element_line.at(41),
               "element 41 (tri3) is degenerate: its area is zero");
}

std::string format_name(const ::testing::TestParamInfo<Gmsh>& info) {
  const char* const names[] = {"v22_ascii", "v22_binary", "v41_ascii", "v41_binary"};
  return names[static_cast<int>(info.param)];
}

INSTANTIATE_TEST_SUITE_P(Formats, PlaneGmsh,
                         ::testing::Values(Gmsh::v22_ascii, Gmsh::v22_binary, Gmsh::v41_ascii,
                                           Gmsh::v41_binary),
                         format_name);

TEST_F(PlaneFiles, GmshWithoutCellsSaysWhatIsRead) {
  GmshModel m = plate();
  m.elements.resize(3);  // the point and the two lines
  expect_error(write("lines.msh", write_gmsh(m, Gmsh::v41_ascii).bytes), 0,
               "the mesh file has no cells", "in 2D (gmsh -2) for a plane mesh");
}

TEST_F(PlaneFiles, SolidsWinOverPlaneCells) {
  // A tetrahedron next to triangles and quadrilaterals: those are faces, as they always were.
  GmshModel m = plate();
  m.nodes.push_back({8, 0, 0, 1});
  m.elements.push_back({50, 4, 3, 1, {1, 2, 4, 8}});
  const Mesh mesh = read_mesh(write("tet.msh", write_gmsh(m, Gmsh::v22_ascii).bytes));
  EXPECT_EQ(mesh.dimension(), 3);
  MeshByPoints expected;
  expected.nodes = {{0, 0, 0}, {0, 0, 1}, {0, 1, 0}, {1, 0, 0}};
  expected.regions["domain"] = {CellShape::Tet4,
                                Cells{Cell{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}}}};
  // Groups of faces are node sets, less the nodes no solid uses.
  expected.node_sets["bottom"] = {{0, 0, 0}, {1, 0, 0}};
  expected.node_sets["corner"] = Cell{};
  expected.node_sets["left"] = {{0, 0, 0}, {0, 1, 0}, {1, 0, 0}};
  expected.node_sets["right"] = {{1, 0, 0}};
  EXPECT_EQ(by_points(mesh), expected);
}

TEST_F(PlaneFiles, AbaqusPlaneElementsAreCellsInTheirElementSets) {
  // The plate in the plane z = 2.5, with the plane-strain and plane-stress names, one element
  // set of both shapes, an ungrouped triangle, and 2D truss elements for a boundary.
  const std::string deck = R"(*NODE
1, 0., 0., 2.5
2, 1., 0., 2.5
3, 2., 0., 2.5
4, 0., 1., 2.5
5, 1., 1., 2.5
6, 2., 1., 2.5
7, 3., 0., 2.5
*ELEMENT, TYPE=CPE4R, ELSET=Plate
30, 1, 2, 5, 4
*ELEMENT, TYPE=CPS3, ELSET=Plate
40, 2, 3, 6
41, 2, 5, 6
*ELEMENT, TYPE=CPE3
50, 3, 7, 6
*ELEMENT, TYPE=T2D2, ELSET=bottom
60, 1, 2
61, 2, 3
*NSET, NSET=corner
3
)";
  const Mesh mesh = read_mesh(write("plate.inp", deck));
  EXPECT_EQ(mesh.dimension(), 2);
  MeshByPoints expected;
  expected.nodes = {{0, 0, 2.5}, {0, 1, 2.5}, {1, 0, 2.5}, {1, 1, 2.5},
                    {2, 0, 2.5}, {2, 1, 2.5}, {3, 0, 2.5}};
  expected.regions["plate/quad4"] = {
      CellShape::Quad4, Cells{Cell{{0, 0, 2.5}, {1, 0, 2.5}, {1, 1, 2.5}, {0, 1, 2.5}}}};
  expected.regions["plate/tri3"] = {CellShape::Tri3,
                                    Cells{Cell{{1, 0, 2.5}, {2, 0, 2.5}, {2, 1, 2.5}},
                                          Cell{{1, 0, 2.5}, {2, 1, 2.5}, {1, 1, 2.5}}}};
  expected.regions["domain"] = {CellShape::Tri3,
                                Cells{Cell{{2, 0, 2.5}, {3, 0, 2.5}, {2, 1, 2.5}}}};
  expected.node_sets["bottom"] = {{0, 0, 2.5}, {1, 0, 2.5}, {2, 0, 2.5}};
  expected.node_sets["corner"] = {{2, 0, 2.5}};
  EXPECT_EQ(by_points(mesh), expected);

  // The same deck with node 6 off the plane: named at its line.
  const std::string off =
      std::string(deck).replace(deck.find("6, 2., 1., 2.5"), 14, "6, 2., 1., 3");
  expect_error(write("off.inp", off), 7,
               "node 6 of the plane mesh has z = 3, off its plane z = 2.5");
}

TEST_F(PlaneFiles, AbaqusPlaneElementsNextToSolidsAreNodeSets) {
  // Gmsh's .inp export writes a solid's boundary as CPS3 sets (tests/meshio/data/column_gmsh.inp).
  const std::string deck = R"(*NODE
1, 0, 0, 0
2, 1, 0, 0
3, 0, 1, 0
4, 0, 0, 1
5, 9, 9, 9
*ELEMENT, TYPE=C3D4, ELSET=solid
1, 1, 2, 3, 4
*ELEMENT, TYPE=CPS3, ELSET=base
2, 1, 3, 2
*ELEMENT, TYPE=CPS4
3, 1, 2, 5, 3
)";
  const Mesh mesh = read_mesh(write("tet.inp", deck));
  ASSERT_EQ(mesh.regions.size(), 1u);
  EXPECT_EQ(mesh.regions[0].name, "solid");
  EXPECT_EQ(mesh.num_nodes(), 4);
  EXPECT_EQ(mesh.node_sets.at("base"), (std::vector<std::int32_t>{0, 1, 2}));
}

TEST_F(PlaneFiles, VtkTrianglesAndQuadsAreTheCellsOfAGridWithoutSolids) {
  if (!vtk_output_available()) GTEST_SKIP() << "built without VTK";
  // The plate again (points 0-5), with a line, region ids and a node-set array.
  const std::string vtk = R"(# vtk DataFile Version 4.2
plate
ASCII
DATASET UNSTRUCTURED_GRID
POINTS 6 double
0 0 0
1 0 0
2 0 0
0 1 0
1 1 0
2 1 0
CELLS 4 16
4 0 1 4 3
3 1 2 5
3 1 4 5
2 0 1
CELL_TYPES 4
9
5
5
3
CELL_DATA 4
SCALARS region int 1
LOOKUP_TABLE default
7 8 8 0
POINT_DATA 6
SCALARS node_set:bottom int 1
LOOKUP_TABLE default
1 1 1 0 0 0
)";
  ::testing::internal::CaptureStdout();
  const Mesh mesh = read_mesh(write("plate.vtk", vtk));
  const std::string log = ::testing::internal::GetCapturedStdout();
  MeshByPoints expected = plate_read();
  expected.regions["7"] = expected.regions.at("left");
  expected.regions["8"] = expected.regions.at("right");
  expected.regions.erase("left");
  expected.regions.erase("right");
  expected.node_sets.erase("corner");
  EXPECT_EQ(by_points(mesh), expected);
  EXPECT_NE(log.find("1 of 3 plane cells ran clockwise"), std::string::npos) << log;
}

}  // namespace
}  // namespace fem::test
