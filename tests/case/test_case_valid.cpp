// Valid cases parse into the values they state, and into the documented defaults otherwise.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <unistd.h>

#include <fem/case.hpp>

#include "case/case_test_support.hpp"

namespace fem::test {
namespace {

namespace fs = std::filesystem;

const std::string kFull = R"(name: full_case
backend: cuda
precision: single
plugin_paths: [../my_plugins, /opt/fem/plugins]
mesh:
  generator: box
  cells: tet4
  size: [0.1, 0.05, 0.02]
  origin: [1, 2, 3]
  divisions: 7
  distortion: 0.1
  seed: 42
materials:
  brain:
    type: neo_hookean
    density: 1040
    shear_modulus: 1000
    bulk_modulus: 50000
  skull: {type: linear_elastic, youngs_modulus: 1.0e9, poisson_ratio: 0.3}
blocks:
  - name: tissue
    region: domain
    element: tet4
    material: brain
    hourglass_coefficient: 0.1
  - {element: tet4, material: skull}
node_sets:
  bottom: {plane: {point: [0, 0, 0], normal: [0, 0, 1]}, tolerance: 1e-9}
  ball: {sphere: {center: [0.01, 0.02, 0.03], radius: 0.01}}
  region: {box: {min: [0, 0, 0], max: [0.1, 0.05, 0.01]}}
  every: {all: true}
  some: {ids: [0, 5, 7]}
  both: {union: [bottom, ball, from_a_mesh_file]}
amplitudes:
  load: {type: smooth_step, start: 1}
  ramp: {type: linear, start: 0, end: 0.5}
  tab: {type: tabular, points: [[0, 0], [1, 1], [2, 0.5]]}
  one: {type: constant}
boundary_conditions:
  - {set: bottom, fixed: all}
  - set: region
    fixed: [x, y]
    displacement: {z: -0.01}
    amplitude: load
  - {set: both, displacement: {x: 0.002}, amplitude: {type: linear, start: 0, end: 2}}
loads:
  - {set: some, force: [0, 0, -1.5], amplitude: ramp}
gravity: {acceleration: [0, 0, -9.81], amplitude: tab}
initial_conditions:
  - {set: every, velocity: [0, 0, 0.1]}
solver:
  type: explicit
  end_time: 5.0
  time_step: 1.0e-5
  safety_factor: 0.5
  mass_damping: 2.5
  assembly: atomic
output:
  directory: out/cube
  every_time: 0.25
  vtk: false
  fields: [displacement, von_mises]
  histories:
    - {set: ball, quantities: [velocity], every_steps: 10}
    - {name: bottom_force, set: bottom, every_time: 0.5}
)";

using Arr = std::array<double, 3>;

TEST(CaseValid, TopLevelAndMesh) {
  const CaseSpec c = parse_case(kFull, "cases/full.yaml");
  EXPECT_EQ(c.file, "cases/full.yaml");
  EXPECT_EQ(c.name, "full_case");
  EXPECT_EQ(c.backend, "cuda");
  EXPECT_EQ(c.precision, Precision::Single);
  // Relative plugin paths are taken from the case file's folder; absolute ones are kept.
  ASSERT_EQ(c.plugin_paths.size(), 2u);
  EXPECT_EQ(fs::path(c.plugin_paths[0].path), fs::absolute("my_plugins").lexically_normal());
  EXPECT_EQ(c.plugin_paths[1].path, "/opt/fem/plugins");
  // Each entry keeps where it is written, for the message when it cannot be used.
  EXPECT_EQ(c.plugin_paths[1].where.str(), "cases/full.yaml:4:31");

  EXPECT_EQ(c.mesh.generator, "box");
  EXPECT_EQ(c.mesh.cells, CellShape::Tet4);
  EXPECT_EQ(c.mesh.size, (Arr{0.1, 0.05, 0.02}));
  EXPECT_EQ(c.mesh.origin, (Arr{1, 2, 3}));
  EXPECT_EQ(c.mesh.divisions, (std::array<int, 3>{7, 7, 7}));
  EXPECT_DOUBLE_EQ(c.mesh.distortion, 0.1);
  EXPECT_EQ(c.mesh.seed, 42u);
  EXPECT_EQ(c.mesh.where.line, 5);
}

TEST(CaseValid, MaterialsAndBlocks) {
  const CaseSpec c = parse_case(kFull, "case.yaml");
  ASSERT_EQ(c.materials.size(), 2u);
  const MaterialSpec& brain = c.materials.at("brain");
  EXPECT_EQ(brain.name, "brain");
  EXPECT_EQ(brain.type, "neo_hookean");
  EXPECT_DOUBLE_EQ(brain.density, 1040);
  EXPECT_EQ(brain.file, "case.yaml");
  EXPECT_EQ(brain.where.line, 14);
  // The plugin's parameters stay in the node, with their marks.
  ASSERT_TRUE(brain.node.IsMap());
  EXPECT_EQ(brain.node["shear_modulus"].as<double>(), 1000);
  EXPECT_EQ(brain.node["bulk_modulus"].Mark().line + 1, 18);
  const MaterialSpec& skull = c.materials.at("skull");
  EXPECT_DOUBLE_EQ(skull.density, 1000.0);  // default
  EXPECT_EQ(skull.node["youngs_modulus"].as<double>(), 1.0e9);

  ASSERT_EQ(c.blocks.size(), 2u);
  EXPECT_EQ(c.blocks[0].name, "tissue");
  EXPECT_EQ(c.blocks[0].region, "domain");
  EXPECT_EQ(c.blocks[0].element, "tet4");
  EXPECT_EQ(c.blocks[0].material, "brain");
  EXPECT_DOUBLE_EQ(c.blocks[0].hourglass_coefficient, 0.1);
  EXPECT_EQ(c.blocks[0].where.line, 21);
  EXPECT_EQ(c.blocks[1].name, "block1");  // default: position in the list
  EXPECT_EQ(c.blocks[1].region, "domain");
  EXPECT_EQ(c.blocks[1].material, "skull");
  EXPECT_DOUBLE_EQ(c.blocks[1].hourglass_coefficient, 0.05);
}

TEST(CaseValid, NodeSetsInFileOrder) {
  const CaseSpec c = parse_case(kFull, "case.yaml");
  ASSERT_EQ(c.node_sets.size(), 6u);
  const auto& s = c.node_sets;
  EXPECT_EQ(s[0].name, "bottom");
  EXPECT_EQ(s[0].kind, NodeSetSpec::Kind::Plane);
  EXPECT_EQ(s[0].point, (Arr{0, 0, 0}));
  EXPECT_EQ(s[0].vector, (Arr{0, 0, 1}));
  EXPECT_DOUBLE_EQ(s[0].tolerance, 1e-9);
  EXPECT_EQ(s[0].where.line, 28);
  EXPECT_EQ(s[1].kind, NodeSetSpec::Kind::Sphere);
  EXPECT_EQ(s[1].point, (Arr{0.01, 0.02, 0.03}));
  EXPECT_DOUBLE_EQ(s[1].radius, 0.01);
  EXPECT_LT(s[1].tolerance, 0.0);  // default: derived from the mesh size
  EXPECT_EQ(s[2].kind, NodeSetSpec::Kind::Box);
  EXPECT_EQ(s[2].point, (Arr{0, 0, 0}));
  EXPECT_EQ(s[2].vector, (Arr{0.1, 0.05, 0.01}));
  EXPECT_EQ(s[3].kind, NodeSetSpec::Kind::All);
  EXPECT_EQ(s[4].kind, NodeSetSpec::Kind::Ids);
  EXPECT_EQ(s[4].ids, (std::vector<std::int32_t>{0, 5, 7}));
  EXPECT_EQ(s[5].kind, NodeSetSpec::Kind::Union);
  // A name that may come from a mesh file is not an error here.
  EXPECT_EQ(s[5].sets, (std::vector<std::string>{"bottom", "ball", "from_a_mesh_file"}));
}

TEST(CaseValid, AmplitudesIncludingInlineAndOpenEnded) {
  const CaseSpec c = parse_case(kFull, "case.yaml");
  ASSERT_EQ(c.amplitudes.size(), 6u);  // constant + 4 named + 1 inline
  EXPECT_EQ(c.amplitudes.at("constant").curve.kind, AmplitudeKind::Constant);
  const Amplitude& load = c.amplitudes.at("load").curve;
  EXPECT_EQ(load.kind, AmplitudeKind::SmoothStep);
  EXPECT_DOUBLE_EQ(load.start, 1.0);
  EXPECT_DOUBLE_EQ(load.end, 5.0);  // no end: the solver's end_time
  const Amplitude& ramp = c.amplitudes.at("ramp").curve;
  EXPECT_EQ(ramp.kind, AmplitudeKind::Linear);
  EXPECT_DOUBLE_EQ(ramp.end, 0.5);
  const Amplitude& tab = c.amplitudes.at("tab").curve;
  EXPECT_EQ(tab.kind, AmplitudeKind::Tabular);
  ASSERT_EQ(tab.num_points, 3);
  EXPECT_DOUBLE_EQ(tab.time[2], 2.0);
  EXPECT_DOUBLE_EQ(tab.value[2], 0.5);
  EXPECT_DOUBLE_EQ(evaluate(tab, 1.5), 0.75);
  EXPECT_EQ(c.amplitudes.at("one").curve.kind, AmplitudeKind::Constant);
  const std::string inline_name = "boundary_conditions[2].amplitude";
  ASSERT_TRUE(c.amplitudes.count(inline_name));
  EXPECT_EQ(c.amplitudes.at(inline_name).curve.kind, AmplitudeKind::Linear);
  EXPECT_DOUBLE_EQ(c.amplitudes.at(inline_name).curve.end, 2.0);
  EXPECT_EQ(c.amplitudes.at(inline_name).where.line, 45);
}

TEST(CaseValid, ConditionsAndLoads) {
  const CaseSpec c = parse_case(kFull, "case.yaml");
  ASSERT_EQ(c.boundary_conditions.size(), 3u);
  const auto& bc = c.boundary_conditions;
  EXPECT_EQ(bc[0].set, "bottom");
  EXPECT_EQ(bc[0].constrained, (std::array<bool, 3>{true, true, true}));
  EXPECT_EQ(bc[0].value, (Arr{0, 0, 0}));
  EXPECT_EQ(bc[0].amplitude, "constant");
  EXPECT_EQ(bc[1].set, "region");
  EXPECT_EQ(bc[1].constrained, (std::array<bool, 3>{true, true, true}));
  EXPECT_EQ(bc[1].value, (Arr{0, 0, -0.01}));
  EXPECT_EQ(bc[1].amplitude, "load");
  EXPECT_EQ(bc[1].where.line, 41);
  EXPECT_EQ(bc[2].constrained, (std::array<bool, 3>{true, false, false}));
  EXPECT_EQ(bc[2].value, (Arr{0.002, 0, 0}));
  EXPECT_EQ(bc[2].amplitude, "boundary_conditions[2].amplitude");

  ASSERT_EQ(c.loads.size(), 1u);
  EXPECT_EQ(c.loads[0].set, "some");
  EXPECT_EQ(c.loads[0].force, (Arr{0, 0, -1.5}));
  EXPECT_EQ(c.loads[0].amplitude, "ramp");
  ASSERT_TRUE(c.gravity.has_value());
  EXPECT_EQ(c.gravity->acceleration, (Arr{0, 0, -9.81}));
  EXPECT_EQ(c.gravity->amplitude, "tab");
  ASSERT_EQ(c.initial_velocities.size(), 1u);
  EXPECT_EQ(c.initial_velocities[0].set, "every");
  EXPECT_EQ(c.initial_velocities[0].velocity, (Arr{0, 0, 0.1}));
}

TEST(CaseValid, SolverAndOutput) {
  const CaseSpec c = parse_case(kFull, "case.yaml");
  EXPECT_EQ(c.solver.type, SolverType::Explicit);
  EXPECT_DOUBLE_EQ(c.solver.end_time, 5.0);
  EXPECT_DOUBLE_EQ(c.solver.time_step, 1.0e-5);
  EXPECT_DOUBLE_EQ(c.solver.safety_factor, 0.5);
  EXPECT_DOUBLE_EQ(c.solver.mass_damping, 2.5);
  EXPECT_EQ(c.solver.assembly, "atomic");
  EXPECT_EQ(c.output.directory, "out/cube");
  EXPECT_EQ(c.output.every_steps, 0);
  EXPECT_DOUBLE_EQ(c.output.every_time, 0.25);
  EXPECT_FALSE(c.output.vtk);
  EXPECT_EQ(c.output.fields, (std::vector<std::string>{"displacement", "von_mises"}));
  ASSERT_EQ(c.output.histories.size(), 2u);
  const HistorySpec& h0 = c.output.histories[0];
  EXPECT_EQ(h0.name, "ball");  // default: the set name
  EXPECT_EQ(h0.set, "ball");
  EXPECT_EQ(h0.quantities, (std::vector<std::string>{"velocity"}));
  EXPECT_EQ(h0.every_steps, 10);
  const HistorySpec& h1 = c.output.histories[1];
  EXPECT_EQ(h1.name, "bottom_force");
  EXPECT_EQ(h1.quantities, (std::vector<std::string>{"displacement", "reaction_force"}));
  EXPECT_EQ(h1.every_steps, 0);
  EXPECT_DOUBLE_EQ(h1.every_time, 0.5);
}

TEST(CaseValid, ARegionHistoryRecordsStressAndStrainByDefault) {
  const CaseSpec c = parse_case(R"(mesh: {}
materials: {m: {type: neo_hookean}}
blocks: [{element: hex8, material: m}]
solver: {type: static, end_time: 1}
output:
  histories:
    - {region: domain}
    - {name: peak, region: domain, quantities: [von_mises, strain_energy], every_steps: 2}
)",
                                "case.yaml");
  ASSERT_EQ(c.output.histories.size(), 2u);
  const HistorySpec& h0 = c.output.histories[0];
  EXPECT_TRUE(h0.of_elements());
  EXPECT_EQ(h0.name, "domain");
  EXPECT_TRUE(h0.set.empty());
  EXPECT_EQ(h0.quantities, (std::vector<std::string>{"cauchy_stress", "green_lagrange_strain"}));
  const HistorySpec& h1 = c.output.histories[1];
  EXPECT_EQ(h1.name, "peak");
  EXPECT_EQ(h1.quantities, (std::vector<std::string>{"von_mises", "strain_energy"}));
  EXPECT_EQ(h1.every_steps, 2);
}

TEST(CaseValid, DeviceNamesTheGpuAndWhereItWasGiven) {
  const CaseSpec c = parse_case(R"(backend: cuda
device: 1
mesh: {}
materials: {m: {type: linear_elastic}}
blocks: [{element: hex8r, material: m}]
solver: {end_time: 2}
)",
                                "case.yaml");
  EXPECT_EQ(c.device, 1);
  // Kept for the message when the backend cannot run on that device.
  EXPECT_EQ(c.device_where.str(), "case.yaml:2:9");
}

TEST(CaseValid, MinimalCaseGetsTheDefaults) {
  const CaseSpec c = parse_case(R"(mesh: {}
materials: {m: {type: linear_elastic}}
blocks: [{element: hex8r, material: m}]
solver: {end_time: 2}
)",
                                "runs/my_case.yaml");
  EXPECT_EQ(c.name, "my_case");  // the file stem
  EXPECT_EQ(c.backend, "openmp");
  EXPECT_EQ(c.device, -1);  // the backend's choice
  EXPECT_EQ(c.precision, Precision::Double);
  EXPECT_TRUE(c.plugin_paths.empty());
  EXPECT_EQ(c.mesh.generator, "box");
  EXPECT_EQ(c.mesh.cells, CellShape::Hex8);
  EXPECT_EQ(c.mesh.divisions, (std::array<int, 3>{5, 5, 5}));
  EXPECT_EQ(c.blocks[0].name, "block0");
  EXPECT_EQ(c.amplitudes.size(), 1u);  // only the implicit "constant"
  EXPECT_TRUE(c.amplitudes.count("constant"));
  EXPECT_TRUE(c.node_sets.empty());
  EXPECT_TRUE(c.boundary_conditions.empty());
  EXPECT_FALSE(c.gravity.has_value());
  EXPECT_EQ(c.solver.type, SolverType::Explicit);
  EXPECT_DOUBLE_EQ(c.solver.time_step, 0.0);  // auto
  EXPECT_DOUBLE_EQ(c.solver.safety_factor, 0.8);
  EXPECT_DOUBLE_EQ(c.solver.mass_damping, 0.0);
  EXPECT_EQ(c.solver.assembly, "deterministic");
  EXPECT_EQ(c.output.directory, "my_case_results");
  EXPECT_EQ(c.output.every_steps, 0);
  EXPECT_DOUBLE_EQ(c.output.every_time, 0.0);
  EXPECT_TRUE(c.output.vtk);
  EXPECT_EQ(c.output.fields.size(), 6u);
  EXPECT_TRUE(c.output.histories.empty());
  EXPECT_EQ(c.output.compression, VtkCompression::Zlib);
  EXPECT_FALSE(c.output.background.has_value());  // decided by the backend
}

TEST(CaseValid, FrameCompressionAndBackgroundWriting) {
  const CaseSpec c = parse_case(R"(mesh: {}
materials: {brain: {type: neo_hookean}}
blocks: [{element: hex8r, material: brain}]
solver: {end_time: 1}
output: {compression: lz4, background: false}
)",
                                "case.yaml");
  EXPECT_EQ(c.output.compression, VtkCompression::Lz4);
  ASSERT_TRUE(c.output.background.has_value());
  EXPECT_FALSE(*c.output.background);
}

TEST(CaseValid, CylinderAndExplicitAutoTimeStep) {
  const CaseSpec c = parse_case(R"(mesh:
  generator: cylinder
  radius: 0.02
  height: 0.05
  radial_divisions: 3
  circumferential_divisions: 12
  axial_divisions: 6
materials: {m: {type: linear_elastic}}
blocks: [{element: hex8r, material: m}]
solver: {end_time: 1, time_step: auto}
output: {every_steps: 7}
)");
  EXPECT_EQ(c.name, "case");  // text without a file name
  EXPECT_EQ(c.mesh.generator, "cylinder");
  EXPECT_DOUBLE_EQ(c.mesh.radius, 0.02);
  EXPECT_DOUBLE_EQ(c.mesh.height, 0.05);
  EXPECT_EQ(c.mesh.radial_divisions, 3);
  EXPECT_EQ(c.mesh.circumferential_divisions, 12);
  EXPECT_EQ(c.mesh.axial_divisions, 6);
  EXPECT_DOUBLE_EQ(c.solver.time_step, 0.0);
  EXPECT_EQ(c.output.every_steps, 7);
}

TEST(CaseValid, EmptySectionsCountAsEmpty) {
  const CaseSpec c = parse_case(R"(mesh:
materials: {m: {type: t}}
blocks: [{element: e, material: m}]
node_sets:
boundary_conditions:
solver: {end_time: 1}
output:
)");
  EXPECT_TRUE(c.node_sets.empty());
  EXPECT_TRUE(c.boundary_conditions.empty());
  EXPECT_EQ(c.output.directory, "case_results");
}

TEST(CaseValid, RepositoryCasesLoad) {
  const CaseSpec cube = load_case(FEM_SOURCE_DIR "/cases/cube_compression.yaml");
  EXPECT_EQ(cube.name, "cube_compression");
  EXPECT_EQ(cube.precision, Precision::Single);
  EXPECT_EQ(cube.mesh.divisions, (std::array<int, 3>{15, 15, 15}));
  EXPECT_EQ(cube.output.histories.size(), 2u);
  const CaseSpec small = load_case(FEM_TEST_DATA_DIR "/small_cube.yaml");
  EXPECT_EQ(small.name, "small_cube");
  EXPECT_DOUBLE_EQ(small.solver.mass_damping, 5.0);
}

TEST(CaseValid, LoadCaseResolvesPluginPathsFromTheCaseFolder) {
  const fs::path dir = fs::temp_directory_path() / ("fem_case_test_" + std::to_string(::getpid()));
  fs::create_directories(dir / "cases");
  const fs::path file = dir / "cases" / "plugged.yaml";
  std::ofstream(file) << R"(plugin_paths: [../plugins, sub]
mesh: {}
materials: {m: {type: t}}
blocks: [{element: e, material: m}]
solver: {end_time: 1}
)";
  const CaseSpec c = load_case(file.string());
  fs::remove_all(dir);
  EXPECT_EQ(c.name, "plugged");
  EXPECT_EQ(c.file, file.string());
  ASSERT_EQ(c.plugin_paths.size(), 2u);
  EXPECT_EQ(fs::path(c.plugin_paths[0].path), dir / "plugins");
  EXPECT_EQ(fs::path(c.plugin_paths[1].path), dir / "cases" / "sub");
}

TEST(CaseValid, MaterialNodeOutlivesTheParse) {
  // The spec is copied into models and kept while the plugins parse: the node must stay valid.
  MaterialSpec kept;
  {
    const CaseSpec c = parse_case(R"(mesh: {}
materials:
  m: {type: t, youngs_modulus: 3000}
blocks: [{element: e, material: m}]
solver: {end_time: 1}
)");
    kept = c.materials.at("m");
  }
  EXPECT_EQ(kept.node["youngs_modulus"].as<double>(), 3000.0);
  EXPECT_EQ(kept.node["youngs_modulus"].Mark().line + 1, 3);
}

}  // namespace
}  // namespace fem::test
