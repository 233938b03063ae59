// The VTK mesh reader through the VTK library: the input is a .vtu file (XML, when it starts
// with '<') or a legacy .vtk file, written to a scratch file since VTK's readers take a path.
//
// Legacy files are tried only with FEM_FUZZ_VTK_LEGACY=1: Debian's VTK 9.1 legacy reader writes
// past its arrays when a CELLS header's counts disagree with the data that follows
// (fuzz/known/vtk_legacy_cells_count.vtk, docs/fuzzing.md); until fem checks those counts
// itself, anything else fuzz_vtk finds would hide behind that crash.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "fem/mesh/readers.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::size_t first = 0;
  while (first < size &&
         (data[first] == ' ' || data[first] == '\n' || data[first] == '\r' || data[first] == '\t'))
    ++first;
  const bool xml = first < size && data[first] == '<';
  static const bool legacy = [] {
    const char* v = std::getenv("FEM_FUZZ_VTK_LEGACY");
    return v != nullptr && std::string(v) == "1";
  }();
  if (!xml && !legacy) return 0;
  const std::string path = fem::fuzz::write_scratch(xml ? "fuzz.vtu" : "fuzz.vtk", data, size);
  fem::fuzz::expect_fem_errors([&] { (void)fem::read_vtk_mesh(path); });
  return 0;
}
