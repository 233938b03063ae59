// output.checkpoint: a cadence (every_steps or every_time, one of them) and how many to keep; bad
// values are reported at their line and column like every other key.
#include <gtest/gtest.h>

#include <string>

#include <fem/case.hpp>

#include "case/case_test_support.hpp"

namespace fem::test {
namespace {

const std::string kHead = R"(mesh: {}
materials: {brain: {type: neo_hookean}}
blocks: [{element: hex8r, material: brain}]
solver: {end_time: 1}
output:
)";

TEST(CheckpointKeys, CadenceAndKeepAreRead) {
  const CaseSpec a = parse_case(kHead + "  checkpoint: {every_time: 0.25, keep: 3}\n");
  ASSERT_TRUE(a.output.checkpoint.has_value());
  EXPECT_EQ(a.output.checkpoint->every_time, 0.25);
  EXPECT_EQ(a.output.checkpoint->every_steps, 0);
  EXPECT_EQ(a.output.checkpoint->keep, 3);
  const CaseSpec b = parse_case(kHead + "  checkpoint: {every_steps: 500}\n");
  EXPECT_EQ(b.output.checkpoint->every_steps, 500);
  EXPECT_EQ(b.output.checkpoint->keep, 2);
  EXPECT_FALSE(parse_case(kHead + "  every_steps: 10\n").output.checkpoint.has_value());
}

TEST(CheckpointKeys, BadValuesAreReportedWhereTheyAre) {
  const InputError none = case_error(kHead + "  checkpoint: {keep: 2}\n");
  EXPECT_EQ(none.where().line, 6);
  EXPECT_TRUE(mentions(none, "'output.checkpoint' needs 'every_steps' or 'every_time'"))
      << none.what();
  const InputError both = case_error(kHead + "  checkpoint: {every_steps: 5, every_time: 0.1}\n");
  EXPECT_EQ(both.where().line, 6);
  EXPECT_EQ(both.where().column, 32);
  EXPECT_TRUE(mentions(both, "in 'output.checkpoint', not both")) << both.what();
  const InputError keep = case_error(kHead + "  checkpoint: {every_steps: 5, keep: 0}\n");
  EXPECT_EQ(keep.where().line, 6);
  EXPECT_EQ(keep.where().column, 38);
  const InputError unknown = case_error(kHead + "  checkpoint: {every_step: 5}\n");
  EXPECT_TRUE(mentions(unknown, "did you mean 'every_steps'?")) << unknown.what();
}

}  // namespace
}  // namespace fem::test
