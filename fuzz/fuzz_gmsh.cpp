// The Gmsh reader (2.2 and 4.1, ASCII and binary): the input is a .msh file's bytes, read into a
// Mesh (ids, groups, inverted cells) and, for a few group names, into a contact surface.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fem/contact/triangle_mesh.hpp"
#include "fuzz_support.hpp"
#include "mesh/parsers.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string bytes(reinterpret_cast<const char*>(data), size);
  fem::fuzz::expect_fem_errors([&] {
    fem::detail::MeshBuilder b = fem::detail::parse_gmsh_bytes("fuzz.msh", std::move(bytes));
    for (const char* group : {"top", "skull", "1", "2"}) {
      fem::fuzz::expect_fem_errors(
          [&] { (void)fem::triangle_mesh_from_soup(b.surface_soup(group), "fuzz.msh"); });
    }
    (void)b.finish();
  });
  return 0;
}
