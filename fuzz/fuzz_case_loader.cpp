// The YAML case loader: the input is a case file's text, parsed and validated as `fem check`
// does (parse_case: YAML, key checks, schema, references). A mesh file the case names is looked
// up relative to an empty scratch folder (the mesh readers have their own harnesses).
#include <cstddef>
#include <cstdint>
#include <string>

#include "fem/case.hpp"
#include "fuzz_support.hpp"

namespace {

/// The case names a file in an empty scratch folder, so that relative paths in it (mesh.file,
/// plugin_paths) lead nowhere.
const std::string& case_file() {
  static const std::string file = (fem::fuzz::scratch_dir() / "fuzz.yaml").string();
  return file;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  fem::fuzz::expect_fem_errors([&] { (void)fem::parse_case(text, case_file()); });
  return 0;
}
