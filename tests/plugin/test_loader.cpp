// Every way a plugin can be unusable gets its own clear message.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include <fem/plugin_registry.hpp>

namespace fem {
namespace {

const std::string kFixtures = std::string(FEM_BINARY_DIR) + "/tests/plugin_fixtures";

std::string load_error(const std::string& path) {
  try {
    load_plugin_file(path);
  } catch (const PluginError& e) {
    return e.what();
  }
  return "";
}

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

TEST(PluginLoader, BuiltInPluginsAreFound) {
  const PluginRegistry registry;
  EXPECT_NE(registry.find("backend", "openmp"), nullptr);
  for (const char* e : {"tet4", "hex8", "hex8r"})
    EXPECT_NE(registry.find("element", e), nullptr) << e;
  for (const char* m : {"linear_elastic", "saint_venant_kirchhoff", "neo_hookean"})
    EXPECT_NE(registry.find("material", m, "openmp"), nullptr) << m;
  EXPECT_TRUE(registry.problems().empty());
}

TEST(PluginLoader, AbiMismatchIsRefusedWithRebuildHint) {
  const std::string msg = load_error(kFixtures + "/abi/wrong_abi.so");
  EXPECT_TRUE(contains(msg, "wrong_abi.so")) << msg;
  EXPECT_TRUE(contains(msg, "ABI " + std::to_string(FEM_PLUGIN_ABI_VERSION + 998))) << msg;
  EXPECT_TRUE(contains(msg, "rebuild")) << msg;
}

TEST(PluginLoader, MissingEntryPointIsRefused) {
  const std::string msg = load_error(kFixtures + "/no_entry/no_entry.so");
  EXPECT_TRUE(contains(msg, "not a fem plugin")) << msg;
  EXPECT_TRUE(contains(msg, FEM_PLUGIN_ENTRY_SYMBOL)) << msg;
}

TEST(PluginLoader, NonLibraryFileIsRefused) {
  const std::string msg = load_error(kFixtures + "/garbage/not_a_library.so");
  EXPECT_TRUE(contains(msg, "cannot load plugin")) << msg;
  EXPECT_TRUE(contains(msg, "not_a_library.so")) << msg;
}

TEST(PluginLoader, BrokenFilesInSearchPathAreListedAsProblems) {
  const PluginRegistry registry({kFixtures + "/abi", kFixtures + "/garbage"});
  ASSERT_EQ(registry.problems().size(), 2u);
  // Asking for something unknown lists what could not be loaded.
  try {
    (void)registry.element("future_element", {"case.yaml", 4, 7});
    FAIL();
  } catch (const InputError& e) {
    const std::string msg = e.what();
    EXPECT_TRUE(contains(msg, "case.yaml:4:7")) << msg;
    EXPECT_TRUE(contains(msg, "could not be used")) << msg;
    EXPECT_TRUE(contains(msg, "wrong_abi.so")) << msg;
  }
}

TEST(PluginLoader, MaterialWithoutBuildForBackendNamesTheFix) {
  const PluginRegistry registry({kFixtures + "/other_backend"});
  try {
    (void)registry.material("lonely", "openmp", {"case.yaml", 9, 11});
    FAIL();
  } catch (const InputError& e) {
    const std::string msg = e.what();
    EXPECT_TRUE(contains(msg, "case.yaml:9:11")) << msg;
    EXPECT_TRUE(contains(msg, "no build for backend 'openmp'")) << msg;
    EXPECT_TRUE(contains(msg, "imaginary")) << msg;
    EXPECT_TRUE(contains(msg, "rebuild")) << msg;
  }
}

TEST(PluginLoader, DuplicateNamesAreRefusedWithBothFiles) {
  const PluginRegistry registry({kFixtures + "/twin_a", kFixtures + "/twin_b"});
  try {
    (void)registry.element("twin");
    FAIL();
  } catch (const PluginError& e) {
    const std::string msg = e.what();
    EXPECT_TRUE(contains(msg, "twin_a.so")) << msg;
    EXPECT_TRUE(contains(msg, "twin_b.so")) << msg;
  }
}

TEST(PluginLoader, UnknownNamesGetDidYouMean) {
  const PluginRegistry registry;
  try {
    (void)registry.element("hex8rr", {"case.yaml", 3, 5});
    FAIL();
  } catch (const InputError& e) {
    EXPECT_TRUE(contains(e.what(), "did you mean 'hex8r'")) << e.what();
  }
}

TEST(PluginLoader, PluginPathEnvironmentIsSearched) {
  ::setenv("FEM_PLUGIN_PATH", (kFixtures + "/other_backend").c_str(), 1);
  const PluginRegistry registry;
  ::unsetenv("FEM_PLUGIN_PATH");
  EXPECT_NE(registry.find("material", "lonely", "imaginary"), nullptr);
}

}  // namespace
}  // namespace fem
