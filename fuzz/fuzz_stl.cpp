// The STL reader of rigid contact surfaces: the input is an ASCII or binary STL file's bytes,
// read into a triangle mesh with normals and its search grid.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fem/contact/triangle_mesh.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string bytes(reinterpret_cast<const char*>(data), size);
  fem::fuzz::expect_fem_errors([&] { (void)fem::read_stl_bytes(bytes, "fuzz.stl", 0.001); });
  return 0;
}
