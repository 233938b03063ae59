// --set overrides edit the YAML tree before validation: values change, new keys can be created,
// and an overridden value is checked (and located on the command line) like any other.
#include <gtest/gtest.h>

#include <fem/case.hpp>
#include <fem/param_reader.hpp>

#include "case/case_test_support.hpp"

namespace fem::test {
namespace {

const std::string kCase = R"(name: cube
mesh: {divisions: 3}
materials:
  brain: {type: neo_hookean, youngs_modulus: 3000, poisson_ratio: 0.45}
  soft: {type: neo_hookean, youngs_modulus: 1000, poisson_ratio: 0.45}
blocks:
  - {name: tissue, element: hex8r, material: brain}
node_sets:
  top: {plane: {point: [0, 0, 0.05], normal: [0, 0, 1]}}
amplitudes:
  load: {type: linear}
boundary_conditions:
  - {set: top, displacement: {z: -0.01}, amplitude: load}
solver:
  end_time: 5
output:
)";

CaseSpec with(const std::vector<CaseOverride>& overrides) {
  return parse_case(kCase, "case.yaml", overrides);
}

TEST(Overrides, ReplaceScalarsInMappingsAndListItems) {
  const CaseSpec c = with({{"solver.end_time", "0.5"},
                           {"blocks.0.material", "soft"},
                           {"backend", "cuda"},
                           {"precision", "single"}});
  EXPECT_DOUBLE_EQ(c.solver.end_time, 0.5);
  EXPECT_EQ(c.blocks[0].material, "soft");
  EXPECT_EQ(c.backend, "cuda");
  EXPECT_EQ(c.precision, Precision::Single);
  // The open-ended amplitude follows the overridden end time.
  EXPECT_DOUBLE_EQ(c.amplitudes.at("load").curve.end, 0.5);
}

TEST(Overrides, ValueIsParsedAsYaml) {
  const CaseSpec c =
      with({{"mesh.divisions", "[2, 3, 4]"}, {"boundary_conditions.0.displacement", "{x: 0.001}"}});
  EXPECT_EQ(c.mesh.divisions, (std::array<int, 3>{2, 3, 4}));
  EXPECT_EQ(c.boundary_conditions[0].constrained, (std::array<bool, 3>{true, false, false}));
  EXPECT_DOUBLE_EQ(c.boundary_conditions[0].value[0], 0.001);
}

TEST(Overrides, CreateMissingKeysAndSections) {
  const CaseSpec c = with({{"output.every_steps", "10"},               // into an empty section
                           {"solver.mass_damping", "3"},               // new key in a section
                           {"gravity.acceleration", "[0, 0, -9.81]"},  // a whole new section
                           {"materials.brain.density", "1040"}});
  EXPECT_EQ(c.output.every_steps, 10);
  EXPECT_DOUBLE_EQ(c.solver.mass_damping, 3.0);
  ASSERT_TRUE(c.gravity.has_value());
  EXPECT_DOUBLE_EQ(c.gravity->acceleration[2], -9.81);
  EXPECT_DOUBLE_EQ(c.materials.at("brain").density, 1040.0);
}

TEST(Overrides, LaterOverridesWin) {
  const CaseSpec c = with({{"solver.end_time", "2"}, {"solver.end_time", "3"}});
  EXPECT_DOUBLE_EQ(c.solver.end_time, 3.0);
}

TEST(Overrides, InvalidOverriddenValueIsReportedAtTheCommandLine) {
  const InputError e = case_error(kCase, {{"solver.end_time", "abc"}});
  EXPECT_EQ(e.where().file, "<command line>: --set solver.end_time=abc");
  EXPECT_EQ(e.where().line, 0);
  EXPECT_EQ(e.message(), "'end_time' must be a number, got 'abc'");
}

TEST(Overrides, ErrorInsideAnOverriddenSubtreeIsReportedAtTheCommandLine) {
  const InputError e = case_error(kCase, {{"solver", "{end_time: 1, safety_factor: 2}"}});
  EXPECT_EQ(e.where().file, "<command line>: --set solver={end_time: 1, safety_factor: 2}");
  EXPECT_TRUE(mentions(e, "'safety_factor' must be in (0, 1], got 2")) << e.what();
}

TEST(Overrides, UnknownKeyCreatedByAnOverride) {
  const InputError e = case_error(kCase, {{"solver.end_tme", "1"}});
  EXPECT_EQ(e.where().file, "<command line>: --set solver.end_tme=1");
  EXPECT_TRUE(mentions(e, "unknown key 'end_tme' in 'solver'")) << e.what();
  EXPECT_TRUE(mentions(e, "did you mean 'end_time'?")) << e.what();
}

TEST(Overrides, UndefinedReferenceSetOnTheCommandLine) {
  const InputError e = case_error(kCase, {{"blocks.0.material", "brian"}});
  EXPECT_EQ(e.where().file, "<command line>: --set blocks.0.material=brian");
  EXPECT_TRUE(mentions(e, "block 'tissue' uses material 'brian'")) << e.what();
}

TEST(Overrides, ErrorsOutsideTheOverrideKeepTheirFileLocation) {
  // Overriding one key of a section must not move the locations of its other keys.
  const InputError e = case_error(kCase + "  vtk: perhaps\n", {{"output.every_steps", "5"}});
  EXPECT_EQ(e.where().file, "case.yaml");
  EXPECT_EQ(e.where().line, 17);
  EXPECT_EQ(e.where().column, 8);
}

TEST(Overrides, IndexPastTheEndOfAList) {
  const InputError e = case_error(kCase, {{"blocks.3.material", "soft"}});
  EXPECT_EQ(e.where().file, "<command line>");
  EXPECT_TRUE(mentions(e, "cannot apply --set blocks.3.material=soft")) << e.what();
  EXPECT_TRUE(mentions(e, "'blocks' has 1 item, so index 3 is past its end")) << e.what();
}

TEST(Overrides, IndexIntoAScalar) {
  const InputError e = case_error(kCase, {{"solver.end_time.value", "1"}});
  EXPECT_EQ(e.where().file, "<command line>");
  EXPECT_TRUE(mentions(e, "'solver.end_time' is the value '5', so it has no 'value'")) << e.what();
}

TEST(Overrides, NameWhereAListIndexIsExpected) {
  const InputError e = case_error(kCase, {{"blocks.tissue.material", "soft"}});
  EXPECT_EQ(e.where().file, "<command line>");
  EXPECT_TRUE(mentions(e, "'blocks' is a list, and 'tissue' is not an item index")) << e.what();
}

TEST(Overrides, EmptyPathPart) {
  const InputError e = case_error(kCase, {{"solver..end_time", "1"}});
  EXPECT_EQ(e.where().file, "<command line>");
  EXPECT_TRUE(mentions(e, "the key path has an empty part")) << e.what();
}

TEST(Overrides, ValueThatIsNotYaml) {
  const InputError e = case_error(kCase, {{"mesh.size", "[1, 2"}});
  EXPECT_EQ(e.where().file, "<command line>");
  EXPECT_TRUE(mentions(e, "the value is not valid YAML")) << e.what();
}

TEST(Overrides, DuplicateKeyInsideTheValue) {
  const InputError e = case_error(kCase, {{"solver", "{end_time: 1, end_time: 2}"}});
  EXPECT_EQ(e.where().file, "<command line>: --set solver={end_time: 1, end_time: 2}");
  EXPECT_TRUE(mentions(e, "duplicate key 'end_time' in 'solver'")) << e.what();
}

TEST(Overrides, MaterialParameterFromTheCommandLineIsLocatedThere) {
  const CaseSpec c = with({{"materials.brain.poisson_ratio", "0.5"}});
  const MaterialSpec& ms = c.materials.at("brain");
  ParamReader in(ms.node, ms.file, "material 'brain' (neo_hookean)", ms.reserved_keys);
  const double nu = in.number("poisson_ratio");
  EXPECT_DOUBLE_EQ(nu, 0.5);
  try {
    in.require_range("poisson_ratio", nu, 0.0, 0.5, true, false);
    FAIL() << "0.5 was accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.where().file, "<command line>");
    EXPECT_TRUE(mentions(e, "'poisson_ratio' must be in [0, 0.5), got 0.5")) << e.what();
  }
  // The untouched parameter keeps its place in the file.
  EXPECT_EQ(in.location("youngs_modulus").line, 4);
}

}  // namespace
}  // namespace fem::test
