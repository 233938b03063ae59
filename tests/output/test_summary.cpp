#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "fem/error.hpp"
#include "fem/output/summary.hpp"
#include "output/scratch_dir.hpp"

namespace fem {
namespace {

using test::ScratchDir;

TEST(RunSummary, NestedKeysRoundTrip) {
  ScratchDir dir;
  RunSummary summary;
  summary.set("case", "cube.yaml");
  summary.set("completed", true);
  summary.set("steps", std::int64_t{1234567890123});
  summary.set("timing.element_pass_s", 0.1 + 0.2);
  summary.set("timing.total_s", 12.5);
  summary.set("timing.detail.output_s", 1.0 / 3.0);
  summary.set("backend.threads", 16);   // plain int
  summary.set("timing.total_s", 13.0);  // replaces, keeps its place
  const std::string path = dir / "summary.json";
  summary.write(path);
  EXPECT_FALSE(std::filesystem::exists(path + ".tmp")) << "temporary file left behind";

  const std::string text = test::read_text(path);
  EXPECT_NE(text.find("\n  \"timing\": {\n"), std::string::npos) << "not pretty-printed:\n" << text;
  const nlohmann::json j = nlohmann::json::parse(text);
  EXPECT_EQ(j.at("case"), "cube.yaml");
  EXPECT_EQ(j.at("completed"), true);
  ASSERT_TRUE(j.at("steps").is_number_integer());
  EXPECT_EQ(j.at("steps").get<std::int64_t>(), 1234567890123);
  ASSERT_TRUE(j.at("timing").is_object());
  EXPECT_EQ(j.at("timing").at("element_pass_s").get<double>(), 0.1 + 0.2);
  EXPECT_EQ(j.at("timing").at("total_s").get<double>(), 13.0);
  EXPECT_EQ(j.at("timing").at("detail").at("output_s").get<double>(), 1.0 / 3.0);
  ASSERT_TRUE(j.at("backend").at("threads").is_number_integer());
  EXPECT_EQ(j.at("backend").at("threads").get<int>(), 16);
  EXPECT_EQ(j.size(), 5u);
  EXPECT_EQ(j.at("timing").size(), 3u);

  // Keys keep the order they were first set in.
  EXPECT_LT(text.find("\"case\""), text.find("\"completed\""));
  EXPECT_LT(text.find("\"element_pass_s\""), text.find("\"total_s\""));
}

TEST(RunSummary, ConflictingOrMalformedKeysAreErrors) {
  RunSummary summary;
  summary.set("a", 1.0);
  summary.set("b.c", 2.0);
  EXPECT_THROW(summary.set("a.x", 1.0), Error);  // "a" is a value, not an object
  EXPECT_THROW(summary.set("b", 1.0), Error);    // would discard b.c
  EXPECT_THROW(summary.set("", 1.0), Error);
  EXPECT_THROW(summary.set("b..c", 1.0), Error);
  EXPECT_THROW(summary.set("b.", 1.0), Error);
  EXPECT_THROW(summary.set(".b", 1.0), Error);

  // Rejected keys leave nothing behind.
  ScratchDir dir;
  summary.write(dir / "s.json");
  const nlohmann::json j = nlohmann::json::parse(test::read_text(dir / "s.json"));
  EXPECT_EQ(j, nlohmann::json::parse(R"({"a": 1.0, "b": {"c": 2.0}})"));
}

TEST(RunSummary, RewriteReplacesTheFile) {
  ScratchDir dir;
  RunSummary summary;
  summary.set("status", "running");
  summary.write(dir / "s.json");
  summary.set("status", "done");
  summary.write(dir / "s.json");
  EXPECT_EQ(nlohmann::json::parse(test::read_text(dir / "s.json")).at("status"), "done");
}

TEST(RunSummary, UnwritablePathIsAnErrorWithThePath) {
  ScratchDir dir;
  RunSummary summary;
  summary.set("x", 1.0);
  const std::string path = dir / "missing_folder/s.json";
  try {
    summary.write(path);
    FAIL() << "expected fem::Error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace fem
