// --set overrides: the input is override lines `key.path=value` as `fem run --set` takes them
// (split at the first '=', as the command line does), applied to a small valid case and then
// validated. An input with a line `#--set` holds its own case text above that line.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "fem/case.hpp"
#include "fuzz_support.hpp"

namespace {

// tests/data/small_cube.yaml with a contact surface and a tabular amplitude, so that overrides
// can reach every section.
const char* const kBaseCase = R"(name: small_cube
backend: openmp
precision: double
mesh: {generator: box, cells: hex8, size: [0.05, 0.05, 0.05], divisions: [3, 3, 3]}
materials:
  brain: {type: neo_hookean, density: 1000, youngs_modulus: 3000, poisson_ratio: 0.49}
blocks: [{name: cube, element: hex8r, material: brain}]
node_sets:
  bottom: {plane: {point: [0, 0, 0], normal: [0, 0, 1]}}
  top: {plane: {point: [0, 0, 0.05], normal: [0, 0, 1]}}
  corner: {ids: [0, 1]}
amplitudes:
  loading: {type: smooth_step, start: 0.0, end: 0.5}
  table: {type: tabular, points: [[0, 0], [0.5, 1]]}
boundary_conditions:
  - {set: bottom, fixed: [z]}
  - {set: top, displacement: {z: -0.01}, amplitude: loading}
solver: {end_time: 0.5, mass_damping: 5}
output:
  every_steps: 50
  histories: [{name: top, set: top, quantities: [displacement, reaction_force], every_steps: 10}]
)";

}  // namespace

namespace {

/// The case names a file in an empty scratch folder, so that relative paths in it (mesh.file,
/// plugin_paths) lead nowhere.
const std::string& case_file() {
  static const std::string file = (fem::fuzz::scratch_dir() / "fuzz.yaml").string();
  return file;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  std::string base = kBaseCase;
  const std::string marker = "#--set\n";
  if (const std::size_t m = text.find(marker); m != std::string::npos) {
    base = text.substr(0, m);
    text.erase(0, m + marker.size());
  }
  std::vector<fem::CaseOverride> overrides;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    const std::string line = text.substr(start, end - start);
    start = end + 1;
    // As apps/fem/case_options.cpp: a --set without '=' or with an empty key is refused there.
    const std::size_t eq = line.find('=');
    if (eq == std::string::npos || eq == 0) continue;
    overrides.push_back({line.substr(0, eq), line.substr(eq + 1)});
  }
  fem::fuzz::expect_fem_errors([&] { (void)fem::parse_case(base, case_file(), overrides); });
  return 0;
}
