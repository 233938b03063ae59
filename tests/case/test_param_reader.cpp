// ParamReader: what a material plugin sees of its mapping, with messages as precise as the
// loader's. Materials are parsed from a real case so that the nodes carry real marks.
#include <gtest/gtest.h>

#include <fem/case.hpp>
#include <fem/materials/isotropic.hpp>
#include <fem/param_reader.hpp>

#include "case/case_test_support.hpp"

namespace fem::test {
namespace {

const std::string kCase = R"(mesh: {}
materials:
  brain:
    type: neo_hookean
    density: 1000
    youngs_modulus: 3000
    poisson_ratio: 0.5
    fibre: [1, 0, 0]
    short: [1, 0]
    label: soft
    empty:
  typo: {type: neo_hookean, youngs_modulos: 3000, poisson_ratio: 0.3}
  minimal: {type: linear_elastic}
blocks: [{element: hex8r, material: brain}]
solver: {end_time: 1}
)";

class ParamReaderTest : public ::testing::Test {
 protected:
  ParamReaderTest() : spec_(parse_case(kCase, "case.yaml")) {}

  std::unique_ptr<ParamReader> reader(const std::string& material) {
    const MaterialSpec& ms = spec_.materials.at(material);
    return std::make_unique<ParamReader>(
        ms.node, ms.file, "material '" + ms.name + "' (" + ms.type + ")", ms.reserved_keys);
  }

  template <class F>
  InputError error_of(F&& f) {
    try {
      f();
    } catch (const InputError& e) {
      return e;
    }
    ADD_FAILURE() << "no error was raised";
    return InputError({}, "<no error>");
  }

  CaseSpec spec_;
};

TEST_F(ParamReaderTest, ReadsNumbersVectorsAndDefaults) {
  auto in = reader("brain");
  EXPECT_TRUE(in->has("youngs_modulus"));
  EXPECT_FALSE(in->has("bulk_modulus"));
  EXPECT_DOUBLE_EQ(in->number("youngs_modulus"), 3000.0);
  EXPECT_DOUBLE_EQ(in->number("viscosity", 0.25), 0.25);    // absent: the default
  EXPECT_DOUBLE_EQ(in->number("poisson_ratio", 0.3), 0.5);  // present: the value
  EXPECT_EQ(in->vector3("fibre"), (std::vector<double>{1, 0, 0}));
  const SourceLocation at = in->location("poisson_ratio");
  EXPECT_EQ(at.file, "case.yaml");
  EXPECT_EQ(at.line, 7);
  EXPECT_EQ(at.column, 20);
}

TEST_F(ParamReaderTest, RangeMessageHasOwnerValueAndPosition) {
  auto in = reader("brain");
  const double nu = in->number("poisson_ratio");
  const InputError e =
      error_of([&] { in->require_range("poisson_ratio", nu, 0.0, 0.5, true, false); });
  EXPECT_EQ(std::string(e.what()),
            "case.yaml:7:20: error: material 'brain' (neo_hookean): 'poisson_ratio' must be in "
            "[0, 0.5), got 0.5");
}

TEST_F(ParamReaderTest, PositiveCheckOfADerivedValueQuotesThatValue) {
  auto in = reader("brain");
  const InputError e = error_of([&] { in->require_positive("youngs_modulus", -1.5); });
  EXPECT_EQ(e.where().line, 6);
  EXPECT_EQ(e.message(), "material 'brain' (neo_hookean): 'youngs_modulus' must be > 0, got -1.5");
}

TEST_F(ParamReaderTest, MissingRequiredPointsAtTheMaterial) {
  auto in = reader("brain");
  const InputError e = error_of([&] { (void)in->number("shear_modulus"); });
  EXPECT_EQ(e.where().line, 4);  // the mapping starts at its first key
  EXPECT_TRUE(mentions(e,
                       "material 'brain' (neo_hookean): missing required parameter "
                       "'shear_modulus'"))
      << e.what();
}

TEST_F(ParamReaderTest, WrongTypes) {
  auto in = reader("brain");
  InputError e = error_of([&] { (void)in->number("label"); });
  EXPECT_EQ(e.where().line, 10);
  EXPECT_EQ(e.where().column, 12);
  EXPECT_TRUE(mentions(e, "'label' must be a number, got 'soft'")) << e.what();
  e = error_of([&] { (void)in->vector3("short"); });
  EXPECT_EQ(e.where().line, 9);
  EXPECT_TRUE(mentions(e, "'short' must be a list of 3 numbers [x, y, z], got 2 items"))
      << e.what();
  e = error_of([&] { (void)in->number("fibre"); });
  EXPECT_TRUE(mentions(e, "'fibre' must be a number, got a list")) << e.what();
  // An empty value is located at its key: the mark of the (absent) value is on the next line.
  e = error_of([&] { (void)in->number("empty"); });
  EXPECT_EQ(e.where().line, 11);
  EXPECT_EQ(e.where().column, 5);
  EXPECT_TRUE(mentions(e, "'empty' must be a number, got nothing")) << e.what();
}

TEST_F(ParamReaderTest, FinishRejectsKeysNobodyAskedFor) {
  auto in = reader("typo");
  EXPECT_FALSE(in->has("youngs_modulus"));
  (void)in->number("poisson_ratio");
  const InputError e = error_of([&] { in->finish(); });
  EXPECT_EQ(e.where().line, 12);
  EXPECT_EQ(e.where().column, 29);
  EXPECT_TRUE(mentions(e, "material 'typo' (neo_hookean): unknown parameter 'youngs_modulos'"))
      << e.what();
  EXPECT_TRUE(mentions(e, "did you mean 'youngs_modulus'?")) << e.what();
}

TEST_F(ParamReaderTest, ReservedKeysAreNotUnknown) {
  auto in = reader("minimal");  // only `type`, which the framework consumed
  EXPECT_NO_THROW(in->finish());
}

TEST_F(ParamReaderTest, FailAndFailHere) {
  auto in = reader("brain");
  InputError e = error_of([&] { in->fail("fibre", "'fibre' must have unit length", "normalise"); });
  EXPECT_EQ(e.where().line, 8);
  EXPECT_EQ(e.where().column, 12);
  EXPECT_TRUE(mentions(e, "material 'brain' (neo_hookean): 'fibre' must have unit length"))
      << e.what();
  EXPECT_TRUE(mentions(e, "hint: normalise")) << e.what();
  e = error_of([&] { in->fail("absent", "needs it"); });
  EXPECT_EQ(e.where().line, 4);  // absent key: the mapping
  e = error_of([&] { in->fail_here("constants are ambiguous"); });
  EXPECT_EQ(e.where().line, 4);
  EXPECT_EQ(e.where().column, 5);
}

TEST_F(ParamReaderTest, IsotropicConstantsThroughTheRealHelper) {
  auto in = reader("typo");
  // youngs_modulos is not youngs_modulus: only poisson_ratio of the E/nu pair is there.
  const InputError e = error_of([&] { (void)read_isotropic_constants(*in); });
  EXPECT_TRUE(mentions(e, "missing required parameter 'youngs_modulus'")) << e.what();

  auto brain = reader("brain");
  const InputError nu = error_of([&] { (void)read_isotropic_constants(*brain); });
  EXPECT_EQ(nu.where().line, 7);
  EXPECT_TRUE(mentions(nu, "'poisson_ratio' must be in (-1, 0.5), got 0.5")) << nu.what();
}

}  // namespace
}  // namespace fem::test
