// Every mesh-file format read into the same model: the column of tests/meshio/data (one
// hexahedron, six tetrahedra, three node sets) written as Gmsh 4.1 and 2.2, ASCII and binary (the
// binary and 2.2 files written by Gmsh 4.8 from column_41.msh), Abaqus with *INCLUDE, .vtu and
// legacy .vtk.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <numeric>
#include <set>
#include <string>

#include <fem/error.hpp>
#include <fem/mesh/readers.hpp>
#include <fem/output/vtk_series.hpp>

#include "meshio/column_model.hpp"
#include "output/scratch_dir.hpp"
#include "support/case_runner.hpp"

#include <fem/solver/explicit_system.hpp>

namespace fem::test {
namespace {

const std::string kData = FEM_SOURCE_DIR "/tests/meshio/data/";

const char* const kFiles[] = {"column_41.msh",     "column_41_bin.msh", "column_22.msh",
                              "column_22_bin.msh", "column.inp",        "column.vtu",
                              "column.vtk"};

bool needs_vtk(const std::string& file) {
  return file.ends_with(".vtu") || file.ends_with(".vtk");
}

class EveryFormat : public ::testing::TestWithParam<const char*> {};

TEST_P(EveryFormat, ReadsTheSameModel) {
  const std::string file = GetParam();
  if (needs_vtk(file) && !vtk_output_available()) {
    // Without VTK the reader must say so rather than fail obscurely.
    try {
      (void)read_mesh(kData + file);
      FAIL() << "read without VTK";
    } catch (const InputError& e) {
      EXPECT_NE(e.message().find("without VTK"), std::string::npos) << e.what();
    }
    GTEST_SKIP() << "built without VTK: " << file << " cannot be read";
  }
  Mesh mesh = read_mesh(kData + file);
  if (file.ends_with(".inp")) {
    // *NODE, NSET=all_nodes: every node, less the unused one.
    EXPECT_EQ(mesh.node_sets["all_nodes"].size(), 12u);
    mesh.node_sets.erase("all_nodes");
  }
  // The unused node of the Gmsh 4.1 and Abaqus files (tag 99) is dropped.
  EXPECT_EQ(mesh.num_nodes(), 12);
  EXPECT_EQ(by_points(mesh), by_points(column_mesh())) << file;
  // Dense ids follow the file's node order.
  EXPECT_EQ(mesh.node(0), (Point{0, 0, 0}));
  EXPECT_EQ(mesh.node(8), (Point{0, 0, 20}));
}

TEST(AbaqusFromGmsh, ElementSetsOfSurfacesAreNodeSets) {
  // Gmsh's own .inp export of column_41.msh: physical groups as *ELSET (surfaces as sets of CPS3
  // and CPS4 elements, which become node sets), entities as ELSET= of each *ELEMENT; Gmsh leaves
  // the point group 'tip' out.
  Mesh mesh = read_mesh(kData + "column_gmsh.inp");
  MeshByPoints read = by_points(mesh);
  for (const char* entity : {"volume1", "volume2"}) EXPECT_EQ(read.regions.erase(entity), 1u);
  for (const char* entity : {"surface1", "surface2"}) EXPECT_EQ(read.node_sets.erase(entity), 1u);
  MeshByPoints expected = by_points(column_mesh());
  expected.node_sets.erase("tip");
  EXPECT_EQ(read, expected);
}

/// The triangles of a soup as sorted lists of sorted vertices, for comparing across formats.
std::vector<std::vector<Point>> triangles(const std::vector<double>& soup) {
  std::vector<std::vector<Point>> out;
  for (std::size_t t = 0; t + 9 <= soup.size(); t += 9) {
    std::vector<Point> tri;
    for (int v = 0; v < 3; ++v)
      tri.push_back({soup[t + 3 * v], soup[t + 3 * v + 1], soup[t + 3 * v + 2]});
    std::sort(tri.begin(), tri.end());
    out.push_back(tri);
  }
  std::sort(out.begin(), out.end());
  return out;
}

TEST(SurfaceTriangles, SurfaceGroupsOfGmshAndAbaqusFiles) {
  // 'top' is two triangles, 'bottom' one quadrilateral, split along its diagonal 0-2.
  const std::vector<std::vector<Point>> top = {{{0, 0, 20}, {0, 10, 20}, {10, 10, 20}},
                                               {{0, 0, 20}, {10, 0, 20}, {10, 10, 20}}};
  const std::vector<std::vector<Point>> bottom = {{{0, 0, 0}, {0, 10, 0}, {10, 10, 0}},
                                                  {{0, 0, 0}, {10, 0, 0}, {10, 10, 0}}};
  for (const char* file : {"column_41.msh", "column_22_bin.msh", "column_gmsh.inp"}) {
    EXPECT_EQ(triangles(read_surface_triangles(kData + file, "top")), top) << file;
    EXPECT_EQ(triangles(read_surface_triangles(kData + file, "bottom")), bottom) << file;
  }
  try {
    (void)read_surface_triangles(kData + "column_41.msh", "tops");
    FAIL() << "unknown surface accepted";
  } catch (const InputError& e) {
    EXPECT_NE(e.message().find("no surface group 'tops'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("did you mean 'top'?"), std::string::npos) << e.what();
  }
  if (!vtk_output_available()) GTEST_SKIP() << "built without VTK: .vtu surfaces not read";
  EXPECT_EQ(triangles(read_surface_triangles(kData + "column.vtu", "surface")), bottom);
}

/// Displacement of a short run of the column, keyed by reference position.
std::map<Point, Point> run_column(const std::string& file) {
  const std::string yaml = "mesh: {file: " + kData + file + R"(, scale: 0.001}
materials:
  soft: {type: neo_hookean, density: 1000, youngs_modulus: 3000, poisson_ratio: 0.3}
  stiff: {type: neo_hookean, density: 1000, youngs_modulus: 9000, poisson_ratio: 0.3}
blocks:
  - {name: core, region: core, element: hex8r, material: stiff}
  - {name: shell, region: shell, element: tet4, material: soft}
boundary_conditions:
  - {set: bottom, fixed: all}
  - {set: top, displacement: {z: -0.001}}
loads:
  - {set: tip, force: [0.001, 0, 0]}
solver: {end_time: 0.05}
)";
  PreparedRun run = prepare(yaml);
  run_in_memory(run);
  const std::vector<double> u = displacement(run);
  std::map<Point, Point> by_position;
  for (std::int64_t n = 0; n < run.model.mesh.num_nodes(); ++n)
    by_position[run.model.mesh.node(n)] = {u[3 * n], u[3 * n + 1], u[3 * n + 2]};
  return by_position;
}

TEST_P(EveryFormat, GivesTheSameResultWhenRun) {
  const std::string file = GetParam();
  if (needs_vtk(file) && !vtk_output_available()) GTEST_SKIP() << "built without VTK";
  const std::map<Point, Point> reference = run_column("column_41.msh");
  const std::map<Point, Point> result = run_column(file);
  ASSERT_EQ(result.size(), reference.size());
  double largest = 0;
  for (const auto& [x, u] : reference) largest = std::max(largest, std::hypot(u[0], u[1], u[2]));
  ASSERT_GT(largest, 1e-4);  // the run moved something
  for (const auto& [x, u] : reference) {
    ASSERT_TRUE(result.count(x)) << "no node at the position of a reference node";
    for (int k = 0; k < 3; ++k) EXPECT_NEAR(result.at(x)[k], u[k], 1e-12 * largest) << file;
  }
}

INSTANTIATE_TEST_SUITE_P(MeshFiles, EveryFormat, ::testing::ValuesIn(kFiles),
                         [](const auto& param_info) {
                           std::string name = param_info.param;
                           for (char& c : name)
                             if (c == '.') c = '_';
                           return name;
                         });

TEST(MeshFileCase, ScaleTurnsFileUnitsIntoMetres) {
  const CaseSpec spec = load_case(kData + "column.yaml");
  ASSERT_TRUE(spec.mesh.file_mesh);
  const auto b = spec.mesh.file_mesh->bounds();
  EXPECT_DOUBLE_EQ(b[1][2], 0.02);
  EXPECT_DOUBLE_EQ(b[1][0], 0.01);
}

TEST(MeshFileCase, ShippedMixedCaseRunsWithBothElementTypes) {
  // tests/meshio/data/column.yaml names its mesh relative to itself.
  PluginRegistry plugins;
  Model model = build_model(load_case(kData + "column.yaml"), plugins);
  ASSERT_EQ(model.blocks.size(), 2u);
  EXPECT_EQ(model.blocks[0].element->cell_shape, static_cast<std::int32_t>(CellShape::Hex8));
  EXPECT_EQ(model.blocks[1].element->cell_shape, static_cast<std::int32_t>(CellShape::Tet4));
  // The two blocks share the four nodes of the interface (z = 10 mm).
  std::set<std::int32_t> hex_nodes(model.blocks[0].connectivity.begin(),
                                   model.blocks[0].connectivity.end());
  int shared = 0;
  for (const std::int32_t n : std::set<std::int32_t>(model.blocks[1].connectivity.begin(),
                                                     model.blocks[1].connectivity.end()))
    shared += static_cast<int>(hex_nodes.count(n));
  EXPECT_EQ(shared, 4);
  // Lumped masses of both blocks add up to the whole column (1000 kg/m^3 x 2 cm^3), the interface
  // nodes getting mass from both sides.
  const ExplicitSetup setup = setup_explicit(model);
  EXPECT_NEAR(setup.total_volume, 2e-6, 1e-18);
  EXPECT_NEAR(setup.total_mass, 2e-3, 1e-15);
  const std::vector<double>& mass = setup.system.lumped_mass;
  EXPECT_NEAR(std::accumulate(mass.begin(), mass.end(), 0.0), 2e-3, 1e-15);
}

TEST(MeshFileCase, MixedOutputReadsBackAsTheSameBlocks) {
  // The .vtu frames of a mixed run hold hexahedra and tetrahedra; read back as a mesh, their
  // region:<name> arrays (output.sets) give one region per block, named as the case's.
  if (!vtk_output_available()) GTEST_SKIP() << "built without VTK";
  ScratchDir dir;
  PreparedRun run = prepare(read_text(kData + "column.yaml"),
                            {{"mesh.file", kData + "column_41.msh"}, {"solver.end_time", "0.01"}});
  ExplicitRunOptions options;
  options.output_directory = dir.path().string();
  run.solver->run(options);
  std::string frame;
  for (const auto& entry : std::filesystem::directory_iterator(dir.path()))
    if (entry.path().extension() == ".vtu") frame = entry.path().string();
  ASSERT_FALSE(frame.empty());
  const Mesh back = read_mesh(frame);
  ASSERT_EQ(back.regions.size(), 2u);
  EXPECT_EQ(back.regions[0].name, "core");
  EXPECT_EQ(back.regions[0].shape, CellShape::Hex8);
  EXPECT_EQ(back.regions[0].num_cells(), 1);
  EXPECT_EQ(back.regions[1].name, "shell");
  EXPECT_EQ(back.regions[1].shape, CellShape::Tet4);
  EXPECT_EQ(back.regions[1].num_cells(), 6);
  EXPECT_EQ(back.num_nodes(), 12);
}

TEST(QuadraticTetrahedra, GmshAndAbaqusGiveVtkOrder) {
  // One 10-node tetrahedron: corners 1-4, then the midpoints of edges (0,1), (1,2), (0,2),
  // (0,3), then (2,3) and (1,3) in Gmsh's order and (1,3), (2,3) in Abaqus' (and VTK's).
  ScratchDir dir;
  const std::string nodes[] = {"0 0 0", "2 0 0", "0 2 0", "0 0 2", "1 0 0",
                               "1 1 0", "0 1 0", "0 0 1", "0 1 1", "1 0 1"};
  std::string msh = "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n10\n";
  for (int n = 0; n < 10; ++n) msh += std::to_string(n + 1) + " " + nodes[n] + "\n";
  msh += "$EndNodes\n$Elements\n1\n7 11 2 0 0 1 2 3 4 5 6 7 8 9 10\n$EndElements\n";
  std::ofstream(dir / "t.msh") << msh;
  std::string inp = "*NODE\n";
  const std::string abaqus_order[] = {"0 0 0", "2 0 0", "0 2 0", "0 0 2", "1 0 0",
                                      "1 1 0", "0 1 0", "0 0 1", "1 0 1", "0 1 1"};
  for (int n = 0; n < 10; ++n) {
    std::string xyz = abaqus_order[n];
    std::replace(xyz.begin(), xyz.end(), ' ', ',');
    inp += std::to_string(n + 1) + ", " + xyz + "\n";
  }
  inp += "*ELEMENT, TYPE=C3D10\n7, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10\n";
  std::ofstream(dir / "t.inp") << inp;
  for (const std::string file : {"t.msh", "t.inp"}) {
    const Mesh m = read_mesh(dir / file);
    ASSERT_EQ(m.regions.size(), 1u) << file;
    EXPECT_EQ(m.regions[0].name, "domain");
    ASSERT_EQ(m.regions[0].shape, CellShape::Tet10) << file;
    // VTK: node 8 is the midpoint of edge (1,3), node 9 of edge (2,3).
    EXPECT_EQ(m.node(m.regions[0].connectivity[8]), (Point{1, 0, 1})) << file;
    EXPECT_EQ(m.node(m.regions[0].connectivity[9]), (Point{0, 1, 1})) << file;
  }
}

TEST(QuadraticHexahedra, GmshAndVtkGiveVtkOrder) {
  // One 20-node hexahedron on [0, 2]^3: corners in VTK order, then the edges' midpoints, in
  // Gmsh's order of edges in the .msh file and in VTK's in the .vtk file.
  ScratchDir dir;
  const int corner[8][3] = {{0, 0, 0}, {2, 0, 0}, {2, 2, 0}, {0, 2, 0},
                            {0, 0, 2}, {2, 0, 2}, {2, 2, 2}, {0, 2, 2}};
  const int gmsh_edges[12][2] = {{0, 1}, {0, 3}, {0, 4}, {1, 2}, {1, 5}, {2, 3},
                                 {2, 6}, {3, 7}, {4, 5}, {4, 7}, {5, 6}, {6, 7}};
  const int vtk_edges[12][2] = {{0, 1}, {1, 2}, {2, 3}, {3, 0}, {4, 5}, {5, 6},
                                {6, 7}, {7, 4}, {0, 4}, {1, 5}, {2, 6}, {3, 7}};
  const auto xyz = [&](const int(*edges)[2], int n) {
    std::string out;
    for (int k = 0; k < 3; ++k)
      out += " " +
             std::to_string(n < 8 ? corner[n][k]
                                  : (corner[edges[n - 8][0]][k] + corner[edges[n - 8][1]][k]) / 2);
    return out;
  };
  std::string msh = "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$Nodes\n20\n";
  for (int n = 0; n < 20; ++n) msh += std::to_string(n + 1) + xyz(gmsh_edges, n) + "\n";
  msh += "$EndNodes\n$Elements\n1\n7 17 2 0 0";
  for (int n = 1; n <= 20; ++n) msh += " " + std::to_string(n);
  msh += "\n$EndElements\n";
  std::ofstream(dir / "h.msh") << msh;
  std::string vtk =
      "# vtk DataFile Version 3.0\nhex20\nASCII\nDATASET UNSTRUCTURED_GRID\n"
      "POINTS 20 double\n";
  for (int n = 0; n < 20; ++n) vtk += xyz(vtk_edges, n).substr(1) + "\n";
  vtk += "CELLS 1 21\n20";
  for (int n = 0; n < 20; ++n) vtk += " " + std::to_string(n);
  vtk += "\nCELL_TYPES 1\n25\n";
  std::ofstream(dir / "h.vtk") << vtk;
  for (const std::string file : {"h.msh", "h.vtk"}) {
    if (needs_vtk(file) && !vtk_output_available()) continue;
    const Mesh m = read_mesh(dir / file);
    ASSERT_EQ(m.regions.size(), 1u) << file;
    ASSERT_EQ(m.regions[0].shape, CellShape::Hex20) << file;
    const std::int32_t* c = m.regions[0].connectivity.data();
    for (int e = 0; e < 12; ++e) {
      const Point a = m.node(c[vtk_edges[e][0]]), b = m.node(c[vtk_edges[e][1]]);
      EXPECT_EQ(m.node(c[8 + e]), (Point{(a[0] + b[0]) / 2, (a[1] + b[1]) / 2, (a[2] + b[2]) / 2}))
          << file << ": node " << 8 + e << " is not the middle of VTK edge " << e;
    }
  }
}

std::string error_of(const std::string& yaml) {
  try {
    (void)parse_case(yaml, "<test>");
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

std::string column_case(const std::string& mesh, const std::string& blocks,
                        const std::string& rest = "") {
  return "mesh: " + mesh + R"(
materials:
  soft: {type: neo_hookean, youngs_modulus: 3000, poisson_ratio: 0.3}
blocks:
)" + blocks +
         rest + "\nsolver: {end_time: 0.01}\n";
}

const std::string kColumn = "{file: " + kData + "column_41.msh}";

TEST(MeshFileCase, UnknownRegionGetsDidYouMeanAtTheCaseLine) {
  const std::string e =
      error_of(column_case(kColumn, "  - {region: cores, element: hex8r, material: soft}"));
  EXPECT_NE(e.find("<test>:5:14: error: block 'block0' uses mesh region 'cores'"),
            std::string::npos)
      << e;
  EXPECT_NE(e.find("did you mean 'core'?"), std::string::npos) << e;
}

TEST(MeshFileCase, GroupOfTwoShapesNamesItsParts) {
  const std::string e =
      error_of(column_case(kColumn, "  - {region: solid, element: hex8r, material: soft}"));
  EXPECT_NE(e.find("'solid' holds cells of several shapes"), std::string::npos) << e;
  EXPECT_NE(e.find("solid/hex8 or solid/tet4"), std::string::npos) << e;
}

TEST(MeshFileCase, DefaultRegionOfAFileMeshIsExplained) {
  const std::string e = error_of(column_case(kColumn, "  - {element: hex8r, material: soft}"));
  EXPECT_NE(e.find("a block of a mesh file names its region"), std::string::npos) << e;
}

TEST(MeshFileCase, FileNodeSetsAreUsableInConditionsAndUnions) {
  const std::string blocks =
      "  - {region: core, element: hex8r, material: soft}\n"
      "  - {region: shell, element: tet4, material: soft}\n";
  const std::string rest = R"(node_sets:
  ends: {union: [bottom, top]}
boundary_conditions:
  - {set: bottom, fixed: all}
  - {set: tip, fixed: [x]}
output:
  histories: [{name: tip, set: tip}]
)";
  PluginRegistry plugins;
  const Model model =
      build_model(parse_case(column_case(kColumn, blocks, rest), "<test>"), plugins);
  EXPECT_EQ(model.mesh.node_sets.at("ends").size(), 8u);
  const std::string e = error_of(
      column_case(kColumn, blocks, "boundary_conditions:\n  - {set: botom, fixed: all}\n"));
  EXPECT_NE(e.find("did you mean 'bottom'?"), std::string::npos) << e;
}

TEST(MeshFileCase, BlocksOnOverlappingRegionsAreRefused) {
  // 'solid/hex8' holds the cell of 'core': two blocks would count it twice.
  const std::string yaml =
      column_case(kColumn,
                  "  - {name: a, region: core, element: hex8r, material: soft}\n"
                  "  - {name: b, region: shell, element: tet4, material: soft}\n"
                  "  - {name: c, region: solid/hex8, element: hex8, material: soft}\n");
  PluginRegistry plugins;
  try {
    (void)build_model(parse_case(yaml, "<test>"), plugins);
    FAIL() << "overlapping blocks accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.where().line, 7) << e.what();
    EXPECT_NE(e.message().find("blocks 'a' and 'c' both take 1 cells"), std::string::npos)
        << e.what();
  }
}

TEST(MeshFileCase, MissingFileIsReportedAtTheCaseKey) {
  const std::string e =
      error_of(column_case("{file: no/such.msh}", "  - {element: hex8r, material: soft}"));
  EXPECT_NE(e.find("<test>:1:14: error: mesh file 'no/such.msh' does not exist"), std::string::npos)
      << e;
}

TEST(MeshFileCase, GeneratorKeysDoNotApplyToAFile) {
  const std::string e = error_of(column_case("{file: " + kData + "column_41.msh, divisions: 4}",
                                             "  - {region: core, element: hex8r, material: soft}"));
  EXPECT_NE(e.find("'divisions' does not apply to a mesh file"), std::string::npos) << e;
  const std::string s = error_of(
      column_case("{generator: box, scale: 0.001}", "  - {element: hex8r, material: soft}"));
  EXPECT_NE(s.find("'scale' applies to a mesh file or an image only"), std::string::npos) << s;
}

}  // namespace
}  // namespace fem::test
