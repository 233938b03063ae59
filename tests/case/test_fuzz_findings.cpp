// Case-loader inputs that the fuzzers (fuzz/fuzz_case_loader.cpp, fuzz/fuzz_overrides.cpp) found
// to crash or hang fem; each is now an ordinary error or an ordinary case. docs/fuzzing.md.
#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include <fem/case.hpp>

#include "case/case_test_support.hpp"

namespace fem::test {
namespace {

// A minimal valid case.
const std::string kCase = R"(mesh: {generator: box, divisions: [2, 2, 2]}
materials: {m: {type: neo_hookean, youngs_modulus: 1000, poisson_ratio: 0.3}}
blocks: [{name: b, element: hex8, material: m}]
solver: {end_time: 0.1}
)";

TEST(FuzzFindings, MappingKeysAreCheckedWithoutDanglingReferences) {
  // The key checker bound a reference to the key inside the proxy yaml-cpp's iterator returns,
  // which dies with the statement (AddressSanitizer: stack-use-after-scope, on every case with a
  // mapping; plain builds read the dead stack slot by luck). Duplicate keys are still found.
  const InputError e = case_error(kCase + "solver: {end_time: 0.2}\n");
  EXPECT_EQ(e.where().line, 5) << e.what();
  EXPECT_TRUE(mentions(e, "duplicate key 'solver'")) << e.what();
  EXPECT_NO_THROW(
      (void)parse_case(kCase + "name: &n cube\n", "case.yaml", {{"solver.end_time", "0.5"}}));
}

TEST(FuzzFindings, YamlThatStallsTheParserIsRefused) {
  // yaml-cpp 0.7's LoadAll() found an empty document at the same place forever on these bytes,
  // allocating until the memory ran out; fem check never returned.
  for (const std::string& text :
       {std::string("[a]:T\n,\n"), std::string("{a}:T\n,"), kCase + "name: x\n[a]:T\n,\n"}) {
    const auto start = std::chrono::steady_clock::now();
    const InputError e = case_error(text);
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
    EXPECT_TRUE(mentions(e, "invalid YAML")) << e.what();
    EXPECT_GT(e.where().line, 0) << e.what();
  }
  // Several documents keep their own message.
  EXPECT_TRUE(mentions(case_error(kCase + "---\na: 1\n"), "holds 2 YAML documents"));
}

}  // namespace
}  // namespace fem::test
