// The VTK mesh reader through the VTK library: the input is a .vtu file (XML, when it starts
// with '<') or a legacy .vtk file, written to a scratch file since VTK's readers take a path.
// Both are checked by fem before VTK reads them (framework/src/mesh/vtu_check.cpp,
// vtk_legacy_check.cpp; docs/fuzzing.md).
#include <cstddef>
#include <cstdint>
#include <string>

#include "fem/mesh/readers.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::size_t first = 0;
  while (first < size &&
         (data[first] == ' ' || data[first] == '\n' || data[first] == '\r' || data[first] == '\t'))
    ++first;
  const bool xml = first < size && data[first] == '<';
  const std::string path = fem::fuzz::write_scratch(xml ? "fuzz.vtu" : "fuzz.vtk", data, size);
  fem::fuzz::expect_fem_errors([&] { (void)fem::read_vtk_mesh(path); });
  return 0;
}
