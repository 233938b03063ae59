// A case's plugin_paths names plugins the case wants: an entry that is missing, empty or holds a
// plugin that cannot be loaded stops `fem check` and `fem run` with an error at the entry (file,
// line, column), the loader's reason and the fix, exit code 2, instead of a later "unknown
// element type" that hides why.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <fem/case.hpp>
#include <fem/plugin_registry.hpp>

#include "output/scratch_dir.hpp"
#include "support/run_fem.hpp"

namespace fem::test {
namespace {

const std::string kFixtures = std::string(FEM_BINARY_DIR) + "/tests/plugin_fixtures";

/// A case whose block uses an element that only the plugin_paths entry could provide; the entry
/// is on line 2, its value at column 16.
std::string write_case(const ScratchDir& dir, const std::string& plugin_path) {
  std::ofstream(dir / "case.yaml") << "name: plugged\nplugin_paths: [" << plugin_path << R"(]
mesh: {generator: box, cells: tet4, size: [1, 1, 1], divisions: [1, 1, 1]}
materials:
  m: {type: neo_hookean, density: 1000, youngs_modulus: 3000, poisson_ratio: 0.45}
blocks: [{element: future_element, material: m}]
solver: {end_time: 0.01}
)";
  return dir / "case.yaml";
}

struct BrokenPath {
  std::string name, path, reason, hint;
};

class CasePluginPath : public ::testing::TestWithParam<BrokenPath> {};

TEST_P(CasePluginPath, FailureIsAnErrorAtTheEntry) {
  const BrokenPath& broken = GetParam();
  ScratchDir dir;
  const std::string file = write_case(dir, broken.path);
  const CaseSpec spec = load_case(file);
  ASSERT_EQ(spec.plugin_paths.size(), 1u);
  try {
    const PluginRegistry registry(spec.plugin_paths);
    ADD_FAILURE() << "plugin path " << broken.path << " was accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.where().str(), file + ":2:16") << e.what();
    EXPECT_NE(e.message().find(broken.reason), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("hint: " + broken.hint), std::string::npos) << e.what();
  }
  // The command line says the same and exits with 2 (bad input), for check and run alike.
  for (const char* command : {"check", "run"}) {
    const FemResult r = run_fem(std::string(command) + " " + file + " --output " + (dir / "out"));
    EXPECT_EQ(r.code, 2) << r.output;
    EXPECT_NE(r.output.find(file + ":2:16: error: "), std::string::npos) << r.output;
    EXPECT_NE(r.output.find(broken.reason), std::string::npos) << r.output;
    EXPECT_EQ(r.output.find("unknown element type"), std::string::npos) << r.output;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Failures, CasePluginPath,
    ::testing::Values(
        BrokenPath{
            "wrong_abi", kFixtures + "/abi",
            "was built against fem plugin ABI " + std::to_string(FEM_PLUGIN_ABI_VERSION + 998),
            "rebuild the plugin against this fem"},
        BrokenPath{"missing_symbol", kFixtures + "/unresolved",
                   "undefined symbol: fem_fixture_symbol_nobody_defines",
                   "check that it was built for this machine"},
        BrokenPath{"not_a_library", kFixtures + "/garbage", "cannot load plugin",
                   "check that it was built for this machine"},
        BrokenPath{"no_entry_point", kFixtures + "/no_entry", "exports no 'fem_plugin_descriptor'",
                   "define it with FEM_DEFINE_PLUGIN_ENTRY"},
        BrokenPath{"missing_folder", kFixtures + "/no_such_folder", "does not exist",
                   "plugin_paths lists folders"},
        BrokenPath{"empty_folder", kFixtures, "holds no plugin files", "build the plugins"}),
    [](const ::testing::TestParamInfo<BrokenPath>& param) { return param.param.name; });

TEST(CasePluginPath, UsablePluginFileOrFolderIsLoaded) {
  ScratchDir dir;
  for (const std::string& path :
       {kFixtures + "/other_backend", kFixtures + "/other_backend/lonely.so"}) {
    SCOPED_TRACE(path);
    const CaseSpec spec = load_case(write_case(dir, path));
    const PluginRegistry registry(spec.plugin_paths);
    EXPECT_NE(registry.find("material", "lonely", "imaginary"), nullptr);
  }
}

}  // namespace
}  // namespace fem::test
