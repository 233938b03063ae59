// `fem bench` end to end on the CPU backends: files, agreement check, unavailable backends, and
// the CalculiX peer on a small cube.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "bench/bench_support.hpp"
#include "support/run_fem.hpp"

namespace {
namespace fs = std::filesystem;
using fem::test::run_fem;
using nlohmann::json;

const std::string kCube = std::string(FEM_TEST_DATA_DIR) + "/small_cube.yaml";
const std::string kCalculixCube = std::string(FEM_TEST_DATA_DIR) + "/calculix_cube.yaml";
const std::string kFast = " --steps 20 --repeats 2 --warmup 5";

using fem::test::bench::backend_list;
using fem::test::bench::BenchCalculix;
using fem::test::bench::read_json;
using fem::test::bench::run_of;
using fem::test::bench::second_cpu_backend;
using fem::test::bench::temp_dir;

TEST(Bench, CpuBackendsWriteJsonCsvAndPlotsAndAgree) {
  const std::string out = temp_dir("files");
  const auto r = run_fem("bench " + kCube + " --backends " + backend_list() +
                         ",cuda --precision single,double" + kFast + " --output " + out);
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_TRUE(fs::exists(out + "/bench.csv"));
  EXPECT_TRUE(fs::exists(out + "/throughput.png")) << r.output;
  const json j = read_json(out + "/bench.json");
  EXPECT_TRUE(j["agree"].get<bool>());
  for (const std::string p : {"single", "double"}) {
    const json* ref = run_of(j, "openmp", p);
    ASSERT_NE(ref, nullptr) << p;
    EXPECT_EQ((*ref)["status"], "ok");
    EXPECT_EQ((*ref)["agreement"], "reference");
    EXPECT_EQ((*ref)["elements"], 27);
    EXPECT_EQ((*ref)["total_steps"], 5 + 2 * 20);
    EXPECT_GT((*ref)["element_steps_per_s"].get<double>(), 0.0);
    EXPECT_GT((*ref)["effective_gb_per_s"].get<double>(), 0.0);
    EXPECT_GT((*ref)["host_peak_bytes"].get<double>(), 0.0);
    EXPECT_GT((*ref)["backend_memory_bytes"].get<double>(), 0.0);
    EXPECT_LE((*ref)["min_step_s"].get<double>(), (*ref)["median_step_s"].get<double>());
    EXPECT_FALSE(ref->contains("newton_iterations")) << "implicit columns only on implicit rows";
    const json* other = run_of(j, second_cpu_backend(), p);
    ASSERT_NE(other, nullptr);
    EXPECT_EQ((*other)["agreement"], "ok") << other->dump();
    EXPECT_LE((*other)["max_deviation"].get<double>(), (*other)["tolerance"].get<double>());
    EXPECT_GT((*other)["backend_memory_bytes"].get<double>(), 0.0)
        << "every backend says what it holds";
  }
  // Bytes per element-step: single moves less than double.
  EXPECT_LT((*run_of(j, "openmp", "single"))["bytes_per_element_step"].get<double>(),
            (*run_of(j, "openmp", "double"))["bytes_per_element_step"].get<double>());
  // Without a GPU (or without the CUDA build) cuda is listed with its reason, not dropped.
  const json* cuda = run_of(j, "cuda", "single");
  ASSERT_NE(cuda, nullptr);
  if ((*cuda)["status"] != "ok") {
    EXPECT_EQ((*cuda)["status"], "unavailable");
    EXPECT_FALSE((*cuda)["reason"].get<std::string>().empty());
    EXPECT_NE(r.output.find("cuda       single unavailable: "), std::string::npos) << r.output;
  }
  fs::remove_all(out);
}

TEST(Bench, UnknownBackendIsListedAsUnavailable) {
  const std::string out = temp_dir("unknown");
  const auto r = run_fem("bench " + kCube + " --backends openmp,warp_drive --precision double" +
                         kFast + " --no-plots --output " + out);
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("warp_drive double unavailable: not built"), std::string::npos)
      << r.output;
  EXPECT_FALSE(fs::exists(out + "/throughput.png"));  // --no-plots
  fs::remove_all(out);
}

TEST(Bench, PerturbedBackendFailsTheAgreementCheck) {
  const std::string out = temp_dir("perturbed");
  const std::string label = second_cpu_backend();
  const auto r = run_fem("bench " + kCube + " --backends " + backend_list() +
                             " --precision single,double" + kFast + " --no-plots --output " + out,
                         "FEM_BENCH_TEST_PERTURB=" + label + "=1e-4");
  EXPECT_EQ(r.code, 4) << r.output;
  EXPECT_NE(r.output.find("DISAGREES"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("FEM_BENCH_TEST_PERTURB"), std::string::npos) << r.output;
  const json j = read_json(out + "/bench.json");
  EXPECT_FALSE(j["agree"].get<bool>());
  for (const std::string p : {"single", "double"}) {
    const json* other = run_of(j, label, p);
    ASSERT_NE(other, nullptr);
    EXPECT_EQ((*other)["agreement"], "DISAGREES");
    EXPECT_NEAR((*other)["max_deviation"].get<double>(), 1e-4, 2e-5);
  }
  // Below the tolerance the same hook passes: the check is a threshold, not a tripwire.
  const auto small = run_fem("bench " + kCube + " --backends " + backend_list() +
                                 " --precision double" + kFast + " --no-plots --output " + out,
                             "FEM_BENCH_TEST_PERTURB=" + label + "=1e-12");
  EXPECT_EQ(small.code, 0) << small.output;
  fs::remove_all(out);
}

TEST(Bench, SizeSweepDrawsAScalingCurve) {
  const std::string out = temp_dir("sizes");
  const auto r = run_fem("bench " + kCube + " --backends openmp --precision single --sizes 2,3" +
                         kFast + " --output " + out);
  ASSERT_EQ(r.code, 0) << r.output;
  const json j = read_json(out + "/bench.json");
  ASSERT_EQ(j["runs"].size(), 2u);
  EXPECT_EQ(j["runs"][0]["elements"], 8);
  EXPECT_EQ(j["runs"][1]["elements"], 27);
  EXPECT_TRUE(fs::exists(out + "/scaling.png")) << r.output;
  fs::remove_all(out);
}

TEST(Bench, BadOptionsGiveOneClearError) {
  const auto r = run_fem("bench " + kCube + " --backends openmp --set mesh.divisions=two");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("divisions"), std::string::npos) << r.output;
}

/// The exported deck solved by CalculiX (static, NLGEOM) against fem's explicit run: the corner
/// node's displacement over the whole loading within 0.5 %.
void expect_calculix_agrees(const std::string& name, const std::string& sets) {
  const std::string out = temp_dir(name);
  const auto r = run_fem("bench " + kCalculixCube + sets +
                         " --backends openmp --precision double --steps 5 --repeats 1 --warmup 0"
                         " --no-plots --peer calculix --output " +
                         out);
  ASSERT_EQ(r.code, 0) << r.output;
  const json j = read_json(out + "/bench.json");
  ASSERT_EQ(j["peers"].size(), 1u);
  const json& peer = j["peers"][0];
  ASSERT_EQ(peer["status"], "ok") << peer.dump(1);
  EXPECT_EQ(peer["levels"].size(), 20u);
  EXPECT_LE(peer["max_deviation"].get<double>(), 0.005) << peer.dump(1);
  // What is computed apart from what is prescribed: the corner's z is the top face's prescribed
  // motion, x and y are free (the bulge).
  EXPECT_EQ(peer["prescribed_components"], json::array({false, false, true})) << peer.dump(1);
  EXPECT_LE(peer["free_deviation"].get<double>(), 0.005) << peer.dump(1);
  // The deck samples the smooth step the case prescribes: 1e-7 apart.
  EXPECT_LE(peer["prescribed_deviation"].get<double>(), 1e-6) << peer.dump(1);
  EXPECT_NE(r.output.find("free components deviate"), std::string::npos) << r.output;
  EXPECT_GT(peer["peer_wall_s"].get<double>(), 0.0);
  // The final state is the top face 10 mm down; the corner moves outwards.
  const json& last = peer["levels"].back();
  EXPECT_NEAR(last["peer"][2].get<double>(), -0.01, 1e-9);
  EXPECT_GT(last["fem"][0].get<double>(), 1e-3);
  EXPECT_NE(r.output.find("peer calculix"), std::string::npos) << r.output;
  fs::remove_all(out);
}

TEST_F(BenchCalculix, Hex8rCubeAgreesWithCalculix) {
  expect_calculix_agrees("hex8r", "");
}

TEST_F(BenchCalculix, Tet4CubeAgreesWithCalculix) {
  expect_calculix_agrees("tet4",
                         " --set mesh.cells=tet4 --set blocks.0.element=tet4 --set "
                         "mesh.divisions=2");
}

TEST_F(BenchCalculix, WithSizesThePeerRunsTheSmallest) {
  // A static implicit solve grows much faster with the mesh than the explicit run: with --sizes
  // the peer compares the smallest size, and says which.
  const std::string out = temp_dir("sizes");
  const auto r = run_fem("bench " + kCalculixCube +
                         " --sizes 3,2 --backends openmp --precision double --steps 5 --repeats 1"
                         " --warmup 0 --no-plots --peer calculix --output " +
                         out);
  ASSERT_EQ(r.code, 0) << r.output;
  const json peer = read_json(out + "/bench.json")["peers"][0];
  EXPECT_EQ(peer["size"], 2) << peer.dump(1);
  std::ifstream deck(peer["deck"].get<std::string>());
  int elements = 0;
  bool in_elements = false;
  for (std::string line; std::getline(deck, line);) {
    if (line.starts_with("*"))
      in_elements = line.starts_with("*ELEMENT");
    else if (in_elements)
      ++elements;
  }
  EXPECT_EQ(elements, 2 * 2 * 2) << "the deck holds the 2x2x2 mesh";
  EXPECT_NE(r.output.find("(corner, size 2)"), std::string::npos) << r.output;
  fs::remove_all(out);
}

TEST_F(BenchCalculix, PeerDisagreementBeyondToleranceFails) {
  // A deliberately impossible tolerance: the command must report it and exit 4.
  const std::string out = temp_dir("strict");
  const auto r = run_fem("bench " + kCalculixCube +
                         " --set mesh.divisions=2 --backends openmp --precision double --steps 5"
                         " --repeats 1 --no-plots --peer calculix --peer-tolerance 1e-12"
                         " --output " +
                         out);
  EXPECT_EQ(r.code, 4) << r.output;
  EXPECT_NE(r.output.find("DISAGREES"), std::string::npos) << r.output;
  fs::remove_all(out);
}

// A CalculiX run that stops before the end of the step (its increment limit, a failed increment)
// is not compared: a stand-in ccx prints the corner only half way through.
TEST_F(BenchCalculix, TruncatedPeerRunIsRefused) {
  const std::string out = temp_dir("truncated");
  fs::create_directories(out);
  const std::string fake = out + "/ccx";
  {
    std::ofstream script(fake);
    script << "#!/bin/sh\n"
              "{ echo ' displacements (vx,vy,vz) for set CORNER and time  0.5000000E+00'; echo;\n"
              "  i=1; while [ $i -le 200 ]; do echo \"  $i 0 0 0\"; i=$((i+1)); done; }"
              " > \"$2.dat\"\n";
  }
  fs::permissions(fake, fs::perms::owner_all);
  const auto r = run_fem("bench " + kCalculixCube +
                             " --set mesh.divisions=2 --backends openmp --precision double "
                             "--steps 5 --repeats 1 --no-plots --peer calculix --output " +
                             out + "/bench",
                         "FEM_CCX=" + fake);
  EXPECT_NE(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("before the end of the step"), std::string::npos) << r.output;
  fs::remove_all(out);
}

}  // namespace
