// What the loader says about plugins built out of tree: their versions, and each way one can be
// unusable (another plugin ABI, a name registered twice, no build for the backend asked for).
#include <gtest/gtest.h>

#include <filesystem>

#include "runner.hpp"

namespace plugins_test {
namespace {

namespace fs = std::filesystem;

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

TEST(Loader, PluginsCarryTheirVersionAndTheSdkAbi) {
  for (const auto& [kind, name, backend] :
       {std::tuple<std::string, std::string, std::string>{"element", "hex8_gauss3", ""},
        {"material", "hgo_fibre", "openmp"},
        {"material", "template_material", "openmp"}}) {
    const fem::PluginInfo* p = registry().find(kind, name, backend);
    ASSERT_NE(p, nullptr) << name;
    EXPECT_EQ(p->version, "1.0.0") << name;  // project(... VERSION 1.0.0) of its folder
    EXPECT_EQ(p->descriptor->abi_version, FEM_PLUGIN_ABI_VERSION) << name;
    EXPECT_TRUE(contains(p->file, FEM_PLUGINS_BINARY_DIR)) << p->file;
  }
}

TEST(Loader, AnotherPluginAbiIsRefusedWithTheFileAndHowToRebuild) {
  const std::string file =
      std::string(FEM_PLUGINS_TEST_DIR) + "/old_abi/hex8_gauss3_old_abi.element.so";
  try {
    (void)fem::load_plugin_file(file);
    FAIL() << "loaded";
  } catch (const fem::PluginError& e) {
    const std::string msg = e.what();
    EXPECT_TRUE(contains(msg, file)) << msg;
    EXPECT_TRUE(contains(msg, "ABI 0")) << msg;
    EXPECT_TRUE(contains(msg, "rebuild")) << msg;
    EXPECT_TRUE(contains(msg, "fem_DIR")) << msg;
  }
}

TEST(Loader, TheSameMaterialInstalledTwiceIsRefusedWithBothFiles) {
  const fs::path twin = fs::path(FEM_PLUGINS_TEST_DIR) / "twin";
  fs::create_directories(twin);
  const fs::path original = fs::path(FEM_PLUGINS_BINARY_DIR) / "hgo_fibre.openmp.so";
  fs::copy_file(original, twin / "hgo_fibre.openmp.so", fs::copy_options::overwrite_existing);
  const fem::PluginRegistry both({FEM_PLUGINS_BINARY_DIR, twin.string()});
  try {
    (void)both.material("hgo_fibre", "openmp");
    FAIL() << "found one of two";
  } catch (const fem::PluginError& e) {
    const std::string msg = e.what();
    EXPECT_TRUE(contains(msg, original.string())) << msg;
    EXPECT_TRUE(contains(msg, (twin / "hgo_fibre.openmp.so").string())) << msg;
    EXPECT_TRUE(contains(msg, "remove one")) << msg;
  }
}

TEST(Loader, AMaterialWithoutABuildForTheBackendSaysWhichBuildsExist) {
  const std::string dir = std::string(FEM_PLUGINS_TEST_DIR) + "/openmp_only";
  const fem::PluginRegistry r({dir});
  const fem::PluginInfo* only = r.find("material", "openmp_only", "openmp");
  ASSERT_NE(only, nullptr);
  EXPECT_EQ(only->version, "0.3.1");  // fem_add_material(... VERSION 0.3.1), over project()'s
  for (const char* backend : {"cuda", "kokkos"}) {
    const std::string yaml =
        "backend: " + std::string(backend) +
        "\nmesh: {generator: box, divisions: 1}\n"
        "materials:\n  m: {type: openmp_only, youngs_modulus: 1000, poisson_ratio: 0.3}\n"
        "blocks: [{element: hex8, material: m}]\nsolver: {end_time: 1}\n";
    try {
      (void)fem::build_model(fem::parse_case(yaml, "case.yaml"), r);
      FAIL() << backend;
    } catch (const fem::InputError& e) {
      const std::string msg = e.what();
      EXPECT_TRUE(contains(msg, "case.yaml:4:")) << msg;
      EXPECT_TRUE(contains(msg, "no build for backend '" + std::string(backend) + "'")) << msg;
      EXPECT_TRUE(contains(msg, "built for: openmp")) << msg;
      EXPECT_TRUE(contains(msg, "openmp_only.openmp.so")) << msg;
      EXPECT_TRUE(contains(msg, "rebuild")) << msg;
    }
  }
}

}  // namespace
}  // namespace plugins_test
