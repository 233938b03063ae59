// docs/case-reference.md stays true: its complete example is a valid case that uses every
// top-level section.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include <fem/case.hpp>

namespace fem::test {
namespace {

std::string complete_example() {
  std::ifstream f(FEM_SOURCE_DIR "/docs/case-reference.md");
  std::stringstream s;
  s << f.rdbuf();
  const std::string doc = s.str();
  const std::string marker = "<!-- complete-example -->\n```yaml\n";
  const auto begin = doc.find(marker);
  if (begin == std::string::npos) return {};
  const auto start = begin + marker.size();
  return doc.substr(start, doc.find("```", start) - start);
}

TEST(CaseReference, CompleteExampleIsValidAndComplete) {
  const std::string yaml = complete_example();
  ASSERT_FALSE(yaml.empty()) << "the marked example is missing from docs/case-reference.md";
  const CaseSpec c = parse_case(yaml, FEM_SOURCE_DIR "/docs/example.yaml");
  EXPECT_EQ(c.name, "cube_compression");
  EXPECT_EQ(c.mesh.divisions, (std::array<int, 3>{15, 15, 15}));
  EXPECT_EQ(c.blocks.size(), 1u);
  EXPECT_EQ(c.node_sets.size(), 7u);
  EXPECT_EQ(c.amplitudes.size(), 4u);
  EXPECT_DOUBLE_EQ(c.amplitudes.at("ramp").curve.end, 5.0);
  EXPECT_EQ(c.boundary_conditions.size(), 3u);
  EXPECT_EQ(c.loads.size(), 1u);
  EXPECT_TRUE(c.gravity.has_value());
  EXPECT_EQ(c.initial_velocities.size(), 1u);
  ASSERT_EQ(c.contacts.size(), 2u);
  EXPECT_EQ(c.contacts[1].side, 1);
  EXPECT_EQ(c.contacts[1].set, "top");
  ASSERT_EQ(c.output.histories.size(), 3u);
  EXPECT_EQ(c.output.histories[1].name, "watched");
  EXPECT_EQ(c.output.histories[2].region, "domain");
  ASSERT_EQ(c.plugin_paths.size(), 1u);
  EXPECT_EQ(c.plugin_paths[0].path, FEM_SOURCE_DIR "/docs/plugins");

  for (const char* key : {"name:", "backend:", "precision:", "plugin_paths:", "mesh:", "materials:",
                          "blocks:", "node_sets:", "amplitudes:", "boundary_conditions:", "loads:",
                          "gravity:", "initial_conditions:", "contact:", "solver:", "output:"})
    EXPECT_NE(("\n" + yaml).find(std::string("\n") + key), std::string::npos)
        << key << " is missing from the complete example";
}

}  // namespace
}  // namespace fem::test
