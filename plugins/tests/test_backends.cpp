// The cases of plugins/cases on every backend that can run here, against the OpenMP reference,
// in the precision each case asks for and in double.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>

#include "runner.hpp"

namespace plugins_test {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> case_files() {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(fs::path(FEM_PLUGINS_SOURCE_DIR) / "cases"))
    if (e.path().extension() == ".yaml") out.push_back(e.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<double> final_displacement(const std::string& file,
                                       const std::vector<fem::CaseOverride>& overrides) {
  auto r = prepare(fem::load_case(file, overrides));
  run(*r);
  return r->displacement();
}

TEST(Backends, EveryCaseRunsAndDeforms) {
  const std::vector<std::string> files = case_files();
  ASSERT_GE(files.size(), 2u);
  for (const std::string& file : files) {
    const std::vector<double> u = final_displacement(file, {{"backend", "openmp"}});
    double umax = 0;
    for (double v : u) {
      ASSERT_TRUE(std::isfinite(v)) << file;
      umax = std::max(umax, std::abs(v));
    }
    EXPECT_GT(umax, 1e-4) << file;
  }
}

TEST(Backends, PluginCasesAgreeWithOpenMP) {
  std::vector<std::string> others;
  for (const std::string& b : usable_backends())
    if (b != "openmp") others.push_back(b);
  if (others.empty()) GTEST_SKIP() << "only the openmp backend can run here: nothing to compare";
  for (const std::string& file : case_files())
    for (const char* precision : {"", "double"}) {
      std::vector<fem::CaseOverride> base;
      if (*precision) base.push_back({"precision", precision});
      auto on = [&](const std::string& b) {
        std::vector<fem::CaseOverride> o = base;
        o.push_back({"backend", b});
        return o;
      };
      const std::vector<double> ref = final_displacement(file, on("openmp"));
      double scale = 0;
      for (double v : ref) scale = std::max(scale, std::abs(v));
      for (const std::string& b : others) {
        const std::vector<double> u = final_displacement(file, on(b));
        ASSERT_EQ(u.size(), ref.size());
        double diff = 0;
        for (std::size_t i = 0; i < u.size(); ++i) diff = std::max(diff, std::abs(u[i] - ref[i]));
        const std::string what = fs::path(file).filename().string() + " " + b + " vs openmp" +
                                 (*precision ? std::string(" (double)") : std::string(""));
        std::printf("%s: max |du| / max |u| = %.3e\n", what.c_str(), diff / scale);
        // The material's exp is arithmetic and no backend contracts into FMAs: round-off only.
        EXPECT_LE(diff, 1e-5 * scale) << what;
      }
    }
}

}  // namespace
}  // namespace plugins_test
