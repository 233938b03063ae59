// Every class of bad case is reported at the offending node (line AND column, 1-based) with a
// message that says what is wrong and what would be valid. Case texts start right after R"( so
// that the first line of the text is line 1.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>

#include <fem/case.hpp>
#include <fem/output/xdmf_series.hpp>

#include "case/case_test_support.hpp"

namespace fem::test {
namespace {

#define EXPECT_AT(e, l, c)                          \
  do {                                              \
    EXPECT_EQ((e).where().line, l) << (e).what();   \
    EXPECT_EQ((e).where().column, c) << (e).what(); \
  } while (0)
#define EXPECT_SAYS(e, text) EXPECT_TRUE(mentions(e, text)) << (e).what()

// ---- unknown keys -------------------------------------------------------------------------------

TEST(CaseErrors, UnknownTopLevelKeySuggestsTheClosest) {
  const InputError e = case_error(R"(mesh: {}
materials: {brain: {type: neo_hookean}}
blocks: [{element: hex8r, material: brain}]
solvr: {end_time: 1}
)");
  EXPECT_AT(e, 4, 1);
  EXPECT_EQ(e.where().file, "case.yaml");
  EXPECT_SAYS(e, "case.yaml:4:1: error: unknown key 'solvr' at the top level");
  EXPECT_SAYS(e, "did you mean 'solver'?");
  EXPECT_SAYS(
      e, "valid keys: name, backend, device, precision, plugin_paths, mesh, materials, blocks");
}

TEST(CaseErrors, DeviceIsAGpuNumberFromZero) {
  for (const char* device : {"-1", "gpu1", "[0, 1]", "1.5"}) {
    const InputError e = case_error(std::string("device: ") + device + R"(
mesh: {}
materials: {brain: {type: neo_hookean}}
blocks: [{element: hex8r, material: brain}]
solver: {end_time: 1}
)");
    EXPECT_AT(e, 1, 9);
    EXPECT_SAYS(e, "'device'");
  }
}

TEST(CaseErrors, FrameCompressionIsOneOfTheNamedOnes) {
  const InputError e = case_error(R"(mesh: {}
materials: {brain: {type: neo_hookean}}
blocks: [{element: hex8r, material: brain}]
solver: {end_time: 1}
output: {compression: gzip}
)");
  EXPECT_AT(e, 5, 23);
  EXPECT_SAYS(e, "zlib");
  EXPECT_SAYS(e, "lz4");
}

TEST(CaseErrors, TheXdmfSeriesIsNotWrittenInTheBackground) {
  if (!xdmf_output_available()) GTEST_SKIP() << "fem built without HDF5: xdmf itself is refused";
  const InputError e = case_error(R"(mesh: {}
materials: {brain: {type: neo_hookean}}
blocks: [{element: hex8r, material: brain}]
solver: {end_time: 1}
output: {xdmf: true, background: true}
)");
  EXPECT_AT(e, 5, 34);
  EXPECT_SAYS(e, "HDF5");
}

TEST(CaseErrors, UnknownNestedKeyNamesItsSectionAndValidKeys) {
  const InputError e = case_error(R"(mesh: {}
materials: {brain: {type: neo_hookean}}
blocks: [{element: hex8r, material: brain}]
solver:
  end_time: 1
  safety_facter: 0.5
)");
  EXPECT_AT(e, 6, 3);
  EXPECT_SAYS(e, "unknown key 'safety_facter' in 'solver'");
  EXPECT_SAYS(e,
              "did you mean 'safety_factor'? valid keys: type, end_time, time_step, "
              "safety_factor, mass_damping, assembly");
}

TEST(CaseErrors, UnknownKeyDeepInsideANodeSet) {
  const InputError e = case_error(R"(mesh: {}
materials: {brain: {type: neo_hookean}}
blocks: [{element: hex8r, material: brain}]
node_sets:
  bottom: {plane: {point: [0, 0, 0], normall: [0, 0, 1]}}
)");
  EXPECT_AT(e, 5, 38);
  EXPECT_SAYS(e, "unknown key 'normall' in 'node_sets.bottom.plane'");
  EXPECT_SAYS(e, "did you mean 'normal'?");
}

TEST(CaseErrors, UnknownKeyInAListItemNamesTheItem) {
  const InputError e = case_error(R"(mesh: {}
materials: {brain: {type: neo_hookean}}
blocks: [{element: hex8r, materail: brain}]
)");
  EXPECT_AT(e, 3, 27);
  EXPECT_SAYS(e, "unknown key 'materail' in 'blocks[0]'");
  EXPECT_SAYS(e, "did you mean 'material'?");
}

TEST(CaseErrors, KeyOfTheOtherGeneratorSaysWhereItBelongs) {
  const InputError e = case_error(R"(mesh: {generator: box, radius: 0.02}
)");
  EXPECT_AT(e, 1, 24);
  EXPECT_SAYS(e, "'radius' does not apply to generator 'box'");
  EXPECT_SAYS(e, "generator: cylinder");
}

// ---- wrong types --------------------------------------------------------------------------------

TEST(CaseErrors, WordWhereANumberIsExpected) {
  const InputError e = case_error(R"(mesh: {}
materials: {brain: {type: neo_hookean}}
blocks: [{element: hex8r, material: brain}]
solver:
  end_time: five
)");
  EXPECT_AT(e, 5, 13);
  EXPECT_EQ(e.message(), "'end_time' must be a number, got 'five'");
}

TEST(CaseErrors, NumberWithAUnitGetsAnSIHint) {
  const InputError e = case_error(R"(mesh: {}
materials: {brain: {type: neo_hookean}}
blocks: [{element: hex8r, material: brain}]
solver: {end_time: 5 s}
)");
  EXPECT_AT(e, 4, 20);
  EXPECT_SAYS(e, "'end_time' must be a number, got '5 s'");
  EXPECT_SAYS(e, "SI units");
}

TEST(CaseErrors, InfinityIsNotANumberHere) {
  const InputError e = case_error(R"(mesh: {}
materials: {brain: {type: neo_hookean}}
blocks: [{element: hex8r, material: brain}]
solver: {end_time: .inf}
)");
  EXPECT_AT(e, 4, 20);
  EXPECT_SAYS(e, "only finite numbers");
}

TEST(CaseErrors, ScalarWhereAMappingIsExpected) {
  const InputError e = case_error(R"(mesh: box
)");
  EXPECT_AT(e, 1, 7);
  EXPECT_SAYS(e, "'mesh' must be a mapping (key: value pairs), got 'box'");
}

TEST(CaseErrors, ScalarWhereAListIsExpected) {
  const InputError e = case_error(R"(mesh: {}
materials: {brain: {type: neo_hookean}}
blocks: tissue
)");
  EXPECT_AT(e, 3, 9);
  EXPECT_SAYS(e, "'blocks' must be a list, got 'tissue'");
}

TEST(CaseErrors, VectorWithTwoComponents) {
  const InputError e = case_error(R"(mesh: {size: [0.05, 0.05]}
)");
  EXPECT_AT(e, 1, 14);
  EXPECT_SAYS(e, "'size' must be a list of 3 lengths [x, y, z] in metres, got 2 items");
}

TEST(CaseErrors, FractionWhereAnIntegerIsExpected) {
  const InputError e = case_error(R"(mesh: {divisions: [4, 2.5, 4]}
)");
  EXPECT_AT(e, 1, 23);
  EXPECT_SAYS(e, "'divisions[1]' must be an integer, got '2.5'");
}

TEST(CaseErrors, BadChoiceSuggestsTheClosest) {
  const InputError e = case_error(R"(precision: dobule
)");
  EXPECT_AT(e, 1, 12);
  EXPECT_SAYS(e, "'precision' must be single or double, got 'dobule'");
  EXPECT_SAYS(e, "did you mean 'double'?");
}

TEST(CaseErrors, BadBooleanSaysTrueOrFalse) {
  const InputError e = case_error(R"(mesh: {}
materials: {brain: {type: neo_hookean}}
blocks: [{element: hex8r, material: brain}]
solver: {end_time: 1}
output:
  vtk: maybe
)");
  EXPECT_AT(e, 6, 8);
  EXPECT_SAYS(e, "'vtk' must be true or false, got 'maybe'");
}

TEST(CaseErrors, UnknownOutputFieldListsTheValidOnes) {
  const InputError e = case_error(R"(mesh: {}
materials: {brain: {type: neo_hookean}}
blocks: [{element: hex8r, material: brain}]
solver: {end_time: 1}
output: {fields: [displacement, von_mieses]}
)");
  EXPECT_AT(e, 5, 33);
  EXPECT_SAYS(e,
              "'fields[1]' must be one of displacement, velocity, green_lagrange_strain, "
              "cauchy_stress, von_mises, block_id, got 'von_mieses'");
  EXPECT_SAYS(e, "did you mean 'von_mises'?");
}

TEST(CaseErrors, StaticSolvesHaveNoVelocityToWrite) {
  // A static solution has no time: velocity would have been left out of the frames silently.
  const InputError field = case_error(R"(mesh: {}
materials: {brain: {type: neo_hookean}}
blocks: [{element: hex8r, material: brain}]
solver: {type: static, end_time: 1}
output: {fields: [displacement, velocity]}
)");
  EXPECT_AT(field, 5, 33);
  EXPECT_SAYS(field, "output field 'velocity' is not computed by solver type static");
  const InputError history = case_error(R"(mesh: {}
materials: {brain: {type: neo_hookean}}
blocks: [{element: hex8r, material: brain}]
node_sets: {top: {plane: {point: [0, 0, 1], normal: [0, 0, 1]}}}
solver: {type: static, end_time: 1}
output: {histories: [{set: top, quantities: [displacement, velocity]}]}
)");
  EXPECT_AT(history, 6, 22);
  EXPECT_SAYS(history, "history 'top': velocity is not computed by solver type static");
}

TEST(CaseErrors, UnknownSolverType) {
  const InputError e = case_error(R"(mesh: {}
materials: {brain: {type: neo_hookean}}
blocks: [{element: hex8r, material: brain}]
solver: {type: implicit, end_time: 1}
)");
  EXPECT_AT(e, 4, 16);
  EXPECT_SAYS(e,
              "'type' must be one of explicit, dynamic_relaxation, static, implicit_dynamic, "
              "elastodynamic, corotational, got 'implicit'");
}

TEST(CaseErrors, IncrementsOfImplicitDynamicsAreOnlyTheCutbackSettings) {
  const InputError count = case_error(R"(mesh: {}
materials: {brain: {type: neo_hookean}}
blocks: [{element: hex8r, material: brain}]
solver: {type: implicit_dynamic, end_time: 1, time_step: 0.1, increments: 10}
)");
  EXPECT_AT(count, 4, 75);
  EXPECT_SAYS(count, "a count of increments does not apply to solver type implicit_dynamic");
  const InputError initial = case_error(R"(mesh: {}
materials: {brain: {type: neo_hookean}}
blocks: [{element: hex8r, material: brain}]
solver: {type: implicit_dynamic, end_time: 1, time_step: 0.1, increments: {initial: 0.5}}
)");
  EXPECT_SAYS(initial, "initial");
  EXPECT_SAYS(initial, "minimum, growth, cutback, easy_iterations");
}

TEST(CaseErrors, AliasThatContainsItselfIsRefusedNotACrash) {
  const InputError e = case_error("a: &x [1, *x]\n");
  EXPECT_AT(e, 1, 4);  // yaml-cpp gives an alias the position of its anchor; the path names it
  EXPECT_SAYS(e, "a YAML alias in 'a[1]' refers to a list or mapping that contains it");
}

TEST(CaseErrors, NestedAliasesAreCheckedOnce) {
  // "Billion laughs": 10 levels of 9 aliases each, 9^10 leaves if every alias were followed
  // (the key check did, for minutes); each anchored list is checked once, then the unknown key
  // is refused.
  std::string yaml = "mesh: {}\nunknown:\n  l0: &l0 [x, x, x, x, x, x, x, x, x]\n";
  for (int i = 1; i <= 10; ++i) {
    const std::string prev = "*l" + std::to_string(i - 1);
    yaml += "  l" + std::to_string(i) + ": &l" + std::to_string(i) + " [" + prev;
    for (int k = 1; k < 9; ++k) yaml += ", " + prev;
    yaml += "]\n";
  }
  const InputError e = case_error(yaml);
  EXPECT_SAYS(e, "unknown key 'unknown'");
}

TEST(CaseErrors, CaseFileLargerThanTheLimitIsRefusedBeforeParsing) {
  // A valid case but for its size: an id list of 2.1 M entries (4.2 MB). Parsed, it would be
  // accepted (the ids are checked against the mesh later).
  std::string yaml = R"(mesh: {}
materials: {brain: {type: neo_hookean}}
blocks: [{element: hex8r, material: brain}]
solver: {end_time: 1}
node_sets:
  many: {ids: [0)";
  const std::size_t limit = std::size_t{4} << 20;
  yaml.append(limit, ',');
  for (std::size_t i = yaml.size() - limit + 1; i < yaml.size(); i += 2) yaml[i] = '0';
  yaml += "0]}\n";
  const InputError e = case_error(yaml);
  EXPECT_EQ(e.where().file, "case.yaml");
  EXPECT_SAYS(e, "the case file is larger than the 4.0 MiB a case file may have");
  EXPECT_SAYS(e, "large data belongs in the mesh file");

  // From a file: refused from its size, before it is read.
  const std::string path = ::testing::TempDir() + "/fem_oversized_case.yaml";
  std::ofstream(path) << yaml;
  try {
    load_case(path);
    ADD_FAILURE() << "an oversized case file was accepted";
  } catch (const InputError& file_error) {
    EXPECT_EQ(file_error.where().file, path);
    EXPECT_SAYS(file_error, std::to_string(yaml.size()) + " bytes)");
  }
  std::remove(path.c_str());
}

TEST(CaseErrors, MaterialThatIsNotAMapping) {
  const InputError e = case_error(R"(mesh: {}
materials: {brain: neo_hookean}
)");
  EXPECT_AT(e, 2, 20);
  EXPECT_SAYS(e, "material 'brain' must be a mapping with at least 'type', got 'neo_hookean'");
}

TEST(CaseErrors, FixedWrittenAsAScalarComponent) {
  const InputError e = case_error(R"(mesh: {}
materials: {brain: {type: neo_hookean}}
blocks: [{element: hex8r, material: brain}]
node_sets: {bottom: {all: true}}
boundary_conditions:
  - set: bottom
    fixed: z
)");
  EXPECT_AT(e, 7, 12);
  EXPECT_SAYS(e, "'fixed' must be a list of components such as [x, z], or all, got 'z'");
  EXPECT_SAYS(e, "write fixed: [z]");
}

TEST(CaseErrors, TopLevelListIsNotACase) {
  const InputError e = case_error(R"(- mesh: {}
- solver: {}
)");
  EXPECT_AT(e, 1, 1);
  EXPECT_SAYS(e, "a case file must be a mapping of sections");
}

// ---- missing keys -------------------------------------------------------------------------------

TEST(CaseErrors, MissingRequiredKeyPointsAtItsSection) {
  const InputError e = case_error(R"(mesh: {}
materials: {brain: {type: neo_hookean}}
blocks: [{element: hex8r, material: brain}]
solver:
  safety_factor: 0.5
)");
  EXPECT_AT(e, 4, 1);
  EXPECT_EQ(e.message(), "missing required key 'end_time' in 'solver'");
}

TEST(CaseErrors, MissingRequiredKeyInAListItemPointsAtTheItem) {
  const InputError e = case_error(R"(mesh: {}
materials: {brain: {type: neo_hookean}}
blocks: [{material: brain}]
)");
  EXPECT_AT(e, 3, 10);
  EXPECT_SAYS(e, "missing required key 'element' in 'blocks[0]'");
}

TEST(CaseErrors, MissingRequiredSection) {
  const InputError e = case_error(R"(mesh: {}
materials: {brain: {type: neo_hookean}}
blocks: [{element: hex8r, material: brain}]
)");
  EXPECT_AT(e, 1, 1);
  EXPECT_SAYS(e, "missing required top-level key 'solver'");
}

TEST(CaseErrors, CylinderNeedsItsRadius) {
  const InputError e = case_error(R"(mesh: {generator: cylinder, height: 0.05}
)");
  EXPECT_AT(e, 1, 1);
  EXPECT_SAYS(e, "missing required key 'radius' in 'mesh'");
  EXPECT_SAYS(e, "a cylinder needs radius and height");
}

TEST(CaseErrors, EmptyFile) {
  const InputError e = case_error("# nothing here\n");
  EXPECT_AT(e, 1, 1);
  EXPECT_SAYS(e, "the case file is empty");
}

// ---- undefined references -----------------------------------------------------------------------

TEST(CaseErrors, UndefinedMaterialSuggestsTheDefinedOnes) {
  const InputError e = case_error(R"(mesh: {}
materials:
  brain: {type: neo_hookean}
blocks:
  - name: tissue
    element: hex8r
    material: brian
)");
  EXPECT_AT(e, 7, 15);
  EXPECT_EQ(e.message(), "block 'tissue' uses material 'brian', which is not defined");
  EXPECT_SAYS(e, "hint: did you mean 'brain'? defined materials: brain");
}

TEST(CaseErrors, UndefinedNodeSetSuggestsTheDefinedOnes) {
  const InputError e = case_error(R"(mesh: {}
materials: {brain: {type: neo_hookean}}
blocks: [{element: hex8r, material: brain}]
node_sets:
  top: {plane: {point: [0, 0, 0.05], normal: [0, 0, 1]}}
  bottom: {plane: {point: [0, 0, 0], normal: [0, 0, 1]}}
boundary_conditions:
  - {set: tpo, fixed: all}
)");
  EXPECT_AT(e, 8, 11);
  EXPECT_SAYS(e, "'boundary_conditions[0]' uses node set 'tpo', which is not defined");
  EXPECT_SAYS(e, "did you mean 'top'? defined node sets: top, bottom");
}

TEST(CaseErrors, UndefinedNodeSetWhenThereAreNone) {
  const InputError e = case_error(R"(mesh: {}
materials: {brain: {type: neo_hookean}}
blocks: [{element: hex8r, material: brain}]
loads: [{set: top, force: [0, 0, 1]}]
)");
  EXPECT_AT(e, 4, 15);
  EXPECT_SAYS(e, "'loads[0]' uses node set 'top', which is not defined");
  EXPECT_SAYS(e, "no node sets are defined");
}

TEST(CaseErrors, UndefinedAmplitudeSuggestsTheDefinedOnes) {
  const InputError e = case_error(R"(mesh: {}
materials: {brain: {type: neo_hookean}}
blocks: [{element: hex8r, material: brain}]
node_sets: {top: {all: true}}
amplitudes:
  load: {type: linear, end: 1}
boundary_conditions:
  - {set: top, displacement: {z: -0.01}, amplitude: laod}
)");
  EXPECT_AT(e, 8, 53);
  EXPECT_SAYS(e, "'boundary_conditions[0]' uses amplitude 'laod', which is not defined");
  EXPECT_SAYS(e, "did you mean 'load'? defined amplitudes: constant, load");
}

// ---- non-physical values ------------------------------------------------------------------------

TEST(CaseErrors, NegativeDensity) {
  const InputError e = case_error(R"(mesh: {}
materials:
  brain:
    type: neo_hookean
    density: -3
)");
  EXPECT_AT(e, 5, 14);
  EXPECT_EQ(e.message(), "'density' must be > 0, got -3");
}

TEST(CaseErrors, SafetyFactorAboveOne) {
  const InputError e = case_error(R"(mesh: {}
materials: {brain: {type: neo_hookean}}
blocks: [{element: hex8r, material: brain}]
solver:
  end_time: 1
  safety_factor: 1.5
)");
  EXPECT_AT(e, 6, 18);
  EXPECT_EQ(e.message(), "'safety_factor' must be in (0, 1], got 1.5");
}

TEST(CaseErrors, ZeroDivisions) {
  const InputError e = case_error(R"(mesh:
  divisions: 0
)");
  EXPECT_AT(e, 2, 14);
  EXPECT_SAYS(e, "'divisions' must be >= 1, got 0");
}

TEST(CaseErrors, DistortionAtItsLimit) {
  const InputError e = case_error(R"(mesh: {distortion: 0.3}
)");
  EXPECT_AT(e, 1, 20);
  EXPECT_SAYS(e, "'distortion' must be in [0, 0.3), got 0.3");
}

TEST(CaseErrors, CircumferentialDivisionsNotAMultipleOfFour) {
  const InputError e = case_error(R"(mesh:
  generator: cylinder
  radius: 0.02
  height: 0.05
  circumferential_divisions: 10
)");
  EXPECT_AT(e, 5, 30);
  EXPECT_SAYS(e, "'circumferential_divisions' must be a multiple of 4, got 10");
}

TEST(CaseErrors, ZeroPlaneNormal) {
  const InputError e = case_error(R"(mesh: {}
materials: {brain: {type: neo_hookean}}
blocks: [{element: hex8r, material: brain}]
node_sets:
  bottom:
    plane: {point: [0, 0, 0], normal: [0, 0, 0]}
)");
  EXPECT_AT(e, 6, 39);
  EXPECT_SAYS(e, "'normal' must not be the zero vector");
}

TEST(CaseErrors, BoxMaxBelowMin) {
  const InputError e = case_error(R"(mesh: {}
materials: {brain: {type: neo_hookean}}
blocks: [{element: hex8r, material: brain}]
node_sets:
  region:
    box:
      min: [0, 0, 0.02]
      max: [1, 1, 0.01]
)");
  EXPECT_AT(e, 8, 12);
  EXPECT_SAYS(e, "box 'max' is below 'min' in z: 0.01 < 0.02");
}

// ---- inconsistent entries -----------------------------------------------------------------------

TEST(CaseErrors, BothEveryStepsAndEveryTime) {
  const InputError e = case_error(R"(mesh: {}
materials: {brain: {type: neo_hookean}}
blocks: [{element: hex8r, material: brain}]
solver: {end_time: 1}
output:
  every_steps: 10
  every_time: 0.5
)");
  EXPECT_AT(e, 7, 3);
  EXPECT_SAYS(e, "give either 'every_steps' or 'every_time' in 'output', not both");
}

TEST(CaseErrors, BothCadencesInAHistoryReportTheLaterKey) {
  const InputError e = case_error(R"(mesh: {}
materials: {brain: {type: neo_hookean}}
blocks: [{element: hex8r, material: brain}]
node_sets: {top: {all: true}}
solver: {end_time: 1}
output:
  histories:
    - {set: top, every_time: 0.1, every_steps: 3}
)");
  EXPECT_AT(e, 8, 35);
  EXPECT_SAYS(e, "in 'output.histories[0]', not both");
}

TEST(CaseErrors, NodeSetWithTwoSelectors) {
  const InputError e = case_error(R"(mesh: {}
materials: {brain: {type: neo_hookean}}
blocks: [{element: hex8r, material: brain}]
node_sets:
  both: {plane: {point: [0,0,0], normal: [0,0,1]}, all: true}
)");
  EXPECT_AT(e, 5, 52);
  EXPECT_SAYS(e, "node set 'both' has two selectors, 'plane' and 'all'");
}

TEST(CaseErrors, NodeSetWithoutSelector) {
  const InputError e = case_error(R"(mesh: {}
materials: {brain: {type: neo_hookean}}
blocks: [{element: hex8r, material: brain}]
node_sets:
  empty: {tolerance: 1e-6}
)");
  EXPECT_AT(e, 5, 3);
  EXPECT_SAYS(e, "node set 'empty' has no selector");
  EXPECT_SAYS(e, "plane, sphere, box, all, ids, union");
}

TEST(CaseErrors, ToleranceOnAnIdSelector) {
  const InputError e = case_error(R"(mesh: {}
materials: {brain: {type: neo_hookean}}
blocks: [{element: hex8r, material: brain}]
node_sets:
  s: {ids: [1], tolerance: 0.1}
)");
  EXPECT_AT(e, 5, 17);
  EXPECT_SAYS(e, "'tolerance' does not apply to the 'ids' selector");
}

TEST(CaseErrors, ComponentBothFixedAndDisplaced) {
  const InputError e = case_error(R"(mesh: {}
materials: {brain: {type: neo_hookean}}
blocks: [{element: hex8r, material: brain}]
node_sets: {top: {all: true}}
boundary_conditions:
  - {set: top, fixed: [z], displacement: {z: -0.01}}
)");
  EXPECT_AT(e, 6, 43);
  EXPECT_SAYS(e, "component z of 'boundary_conditions[0]' is both fixed and displaced");
}

TEST(CaseErrors, BoundaryConditionThatPrescribesNothing) {
  const InputError e = case_error(R"(mesh: {}
materials: {brain: {type: neo_hookean}}
blocks: [{element: hex8r, material: brain}]
node_sets: {top: {all: true}}
boundary_conditions:
  - set: top
    amplitude: constant
)");
  EXPECT_AT(e, 6, 5);
  EXPECT_SAYS(e, "prescribes nothing");
}

TEST(CaseErrors, TabularTimesMustIncrease) {
  const InputError e = case_error(R"(mesh: {}
materials: {brain: {type: neo_hookean}}
blocks: [{element: hex8r, material: brain}]
amplitudes:
  tab: {type: tabular, points: [[0, 0], [1, 1], [1, 2], [1, 3]]}
)");
  EXPECT_AT(e, 5, 58);
  EXPECT_SAYS(e, "times in 'points' must increase: 1 follows 1");
  EXPECT_SAYS(e, "a time may appear twice in a row (a jump), not more");
}

TEST(CaseErrors, SolverStepsEndOneAfterTheOther) {
  const std::string head = R"(mesh: {}
materials: {brain: {type: neo_hookean}}
blocks: [{element: hex8r, material: brain}]
)";
  const InputError e = case_error(
      head + "solver: {type: static, steps: [{end_time: 1}, {end_time: 1, increments: 2}]}\n");
  EXPECT_AT(e, 4, 58);
  EXPECT_SAYS(e, "step end_time 1 is not after the previous step's end (1)");
  const InputError end = case_error(
      head + "solver: {type: static, end_time: 3, steps: [{end_time: 1}, {end_time: 2}]}\n");
  EXPECT_AT(end, 4, 34);
  EXPECT_SAYS(end, "end_time 3 is not the last step's end_time 2");
  const InputError explicit_steps =
      case_error(head + "solver: {type: explicit, end_time: 1, steps: [{end_time: 1}]}\n");
  EXPECT_SAYS(explicit_steps, "steps");
}

TEST(CaseErrors, StaticStepsOfADynamicAnalysis) {
  const std::string head = R"(mesh: {}
materials: {brain: {type: neo_hookean, density: 1000}}
blocks: [{element: hex8r, material: brain}]
)";
  const InputError time_step = case_error(
      head +
      "solver: {type: implicit_dynamic, time_step: 0.1, steps: [{type: static, end_time: "
      "1, time_step: 0.1}, {end_time: 2}]}\n");
  EXPECT_AT(time_step, 4, 86);
  EXPECT_SAYS(time_step, "a static step has no time_step");
  const InputError dynamic_in_static =
      case_error(head +
                 "solver: {type: static, steps: [{end_time: 1}, {type: implicit_dynamic, end_time: "
                 "2}]}\n");
  EXPECT_AT(dynamic_in_static, 4, 54);
  EXPECT_SAYS(dynamic_in_static, "a static analysis has no dynamic steps");
  EXPECT_SAYS(dynamic_in_static, "give solver type implicit_dynamic");
  const InputError all_static = case_error(
      head +
      "solver: {type: implicit_dynamic, time_step: 0.1, steps: [{type: static, end_time: "
      "1}]}\n");
  EXPECT_SAYS(all_static, "every step is static");
  const InputError velocity = case_error(head + R"(node_sets: {all: {all: true}}
initial_conditions: [{set: all, velocity: [1, 0, 0]}]
solver: {type: implicit_dynamic, time_step: 0.1, steps: [{type: static, end_time: 1},
                                                          {end_time: 2}]}
)");
  EXPECT_AT(velocity, 5, 22);
  EXPECT_SAYS(velocity, "initial velocities with a first step that is static");
}

TEST(CaseErrors, KeyThatDoesNotApplyToTheAmplitudeType) {
  const InputError e = case_error(R"(mesh: {}
materials: {brain: {type: neo_hookean}}
blocks: [{element: hex8r, material: brain}]
amplitudes:
  step:
    type: linear
    points: [[0, 0], [1, 1]]
)");
  EXPECT_AT(e, 7, 5);
  EXPECT_SAYS(e, "'points' does not apply to a linear amplitude");
}

TEST(CaseErrors, OpenEndedAmplitudeThatStartsAfterTheRun) {
  const InputError e = case_error(R"(mesh: {}
materials: {brain: {type: neo_hookean}}
blocks: [{element: hex8r, material: brain}]
amplitudes:
  late: {type: linear, start: 2}
solver: {end_time: 1}
)");
  EXPECT_AT(e, 5, 3);
  EXPECT_SAYS(e, "amplitude 'late' starts at 2 s, but its end defaults to solver.end_time = 1 s");
}

TEST(CaseErrors, InlineAmplitudeIsCheckedLikeANamedOne) {
  const InputError e = case_error(R"(mesh: {}
materials: {brain: {type: neo_hookean}}
blocks: [{element: hex8r, material: brain}]
node_sets: {top: {all: true}}
loads:
  - set: top
    force: [0, 0, 1]
    amplitude: {type: linear, start: 1, end: 0.5}
)");
  EXPECT_AT(e, 8, 46);
  EXPECT_SAYS(e, "'end' must be after 'start' (1), got 0.5");
}

TEST(CaseErrors, ConstantCannotBeRedefined) {
  const InputError e = case_error(R"(mesh: {}
materials: {brain: {type: neo_hookean}}
blocks: [{element: hex8r, material: brain}]
amplitudes:
  constant: {type: linear}
)");
  EXPECT_AT(e, 5, 3);
  EXPECT_SAYS(e, "'constant' is a built-in amplitude");
}

TEST(CaseErrors, DuplicateBlockName) {
  const InputError e = case_error(R"(mesh: {}
materials: {brain: {type: neo_hookean}}
blocks:
  - {name: a, element: hex8r, material: brain}
  - {name: a, element: hex8r, material: brain}
)");
  EXPECT_AT(e, 5, 12);
  EXPECT_SAYS(e, "block name 'a' is used twice");
  EXPECT_SAYS(e, "case.yaml:4:");
}

TEST(CaseErrors, DuplicateHistoryName) {
  const InputError e = case_error(R"(mesh: {}
materials: {brain: {type: neo_hookean}}
blocks: [{element: hex8r, material: brain}]
node_sets: {top: {all: true}}
solver: {end_time: 1}
output:
  histories:
    - {set: top}
    - {set: top, quantities: [velocity]}
)");
  EXPECT_AT(e, 9, 7);
  EXPECT_SAYS(e, "history name 'top' is used twice");
}

TEST(CaseErrors, AHistoryNeedsASetOrARegionButNotBoth) {
  const std::string head = R"(mesh: {}
materials: {brain: {type: neo_hookean}}
blocks: [{element: hex8r, material: brain}]
node_sets: {top: {all: true}}
solver: {end_time: 1}
output:
  histories:
)";
  InputError e = case_error(head + "    - {set: top, region: domain}\n");
  EXPECT_AT(e, 8, 7);
  EXPECT_SAYS(e, "needs either 'set' or 'region'");
  e = case_error(head + "    - {name: x}\n");
  EXPECT_SAYS(e, "needs either 'set' or 'region'");
}

TEST(CaseErrors, ARegionHistoryNamesABlockRegionAndElementQuantities) {
  const std::string head = R"(mesh: {}
materials: {brain: {type: neo_hookean}}
blocks: [{element: hex8r, material: brain}]
solver: {end_time: 1}
output:
  histories:
)";
  InputError e = case_error(head + "    - {region: domian}\n");
  EXPECT_AT(e, 7, 16);
  EXPECT_SAYS(e, "history region 'domian' is not the region of any block");
  EXPECT_SAYS(e, "did you mean 'domain'");
  e = case_error(head + "    - {region: domain, quantities: [displacement]}\n");
  EXPECT_SAYS(e, "cauchy_stress");
}

// ---- YAML itself --------------------------------------------------------------------------------

TEST(CaseErrors, YamlSyntaxErrorHasLineAndColumn) {
  const InputError e = case_error(R"(mesh: {}
solver:
  end_time: 1: 2
)");
  EXPECT_AT(e, 3, 14);
  EXPECT_SAYS(e, "case.yaml:3:14: error: invalid YAML");
}

TEST(CaseErrors, BadIndentationIsASyntaxErrorOnItsLine) {
  const InputError e = case_error(R"(mesh: {}
solver:
  end_time: 1
 mass_damping: 2
)");
  EXPECT_EQ(e.where().line, 4) << e.what();
  EXPECT_SAYS(e, "invalid YAML");
}

TEST(CaseErrors, DuplicateKeyReportsTheSecondOccurrence) {
  const InputError e = case_error(R"(mesh: {}
materials: {brain: {type: neo_hookean}}
blocks: [{element: hex8r, material: brain}]
solver:
  end_time: 1
  mass_damping: 2
  end_time: 2
)");
  EXPECT_AT(e, 7, 3);
  EXPECT_SAYS(e, "duplicate key 'end_time' in 'solver'");
  EXPECT_SAYS(e, "already given at line 5");
}

TEST(CaseErrors, DuplicateKeyInsideMaterialParameters) {
  // The plugin only ever sees one of the two, so the framework must catch it.
  const InputError e = case_error(R"(mesh: {}
materials:
  brain: {type: neo_hookean, youngs_modulus: 1, youngs_modulus: 2}
)");
  EXPECT_AT(e, 3, 49);
  EXPECT_SAYS(e, "duplicate key 'youngs_modulus' in 'materials.brain'");
}

TEST(CaseErrors, MergeKeysAreRefusedAliasesWork) {
  const std::string head = R"(mesh: {}
materials:
  brain: &tissue {type: neo_hookean, youngs_modulus: 3000}
  copy: *tissue
)";
  EXPECT_EQ(parse_case(head + "blocks: [{element: hex8r, material: copy}]\nsolver: {end_time: 1}\n")
                .materials.at("copy")
                .type,
            "neo_hookean");
  const InputError e = case_error(head + R"(  merged:
    <<: *tissue
    density: 1100
)");
  EXPECT_AT(e, 6, 5);
  EXPECT_SAYS(e, "YAML merge keys ('<<') are not supported in 'materials.merged'");
}

TEST(CaseErrors, SeveralYamlDocuments) {
  const InputError e = case_error(R"(mesh: {}
---
solver: {end_time: 1}
)");
  EXPECT_EQ(e.where().line, 3) << e.what();
  EXPECT_SAYS(e, "holds 2 YAML documents");
}

TEST(CaseErrors, MissingFileNamesThePath) {
  try {
    load_case("/nonexistent/folder/case.yaml");
    FAIL() << "a missing file was accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.where().file, "/nonexistent/folder/case.yaml");
    EXPECT_SAYS(e,
                "cannot open case file '/nonexistent/folder/case.yaml': No such file or "
                "directory");
  }
}

TEST(CaseErrors, DirectoryInsteadOfAFile) {
  try {
    load_case(FEM_TEST_DATA_DIR);
    FAIL() << "a directory was accepted";
  } catch (const InputError& e) {
    EXPECT_SAYS(e, "it is a directory");
  }
}

TEST(CaseErrors, LoadCaseReportsTheFilePath) {
  try {
    load_case(FEM_SOURCE_DIR "/tests/case/data/bad_density.yaml");
    FAIL() << "a bad case was accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.where().file, FEM_SOURCE_DIR "/tests/case/data/bad_density.yaml");
    EXPECT_EQ(e.where().line, 6);
    EXPECT_EQ(e.where().column, 14);
    EXPECT_SAYS(e, "'density' must be > 0, got 0");
  }
}

}  // namespace
}  // namespace fem::test
