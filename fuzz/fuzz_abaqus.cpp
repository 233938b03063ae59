// The Abaqus .inp reader: the input is a deck. A line `**FUZZ-INCLUDE` splits it: what follows
// is written to part.inp beside it, which the deck can *INCLUDE (INPUT=part.inp), and which may
// include itself or main.inp.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fem/contact/triangle_mesh.hpp"
#include "fuzz_support.hpp"
#include "mesh/parsers.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string deck(reinterpret_cast<const char*>(data), size);
  std::string part;
  const std::string marker = "**FUZZ-INCLUDE\n";
  if (const std::size_t m = deck.find(marker); m != std::string::npos) {
    part = deck.substr(m + marker.size());
    deck.erase(m);
  }
  fem::fuzz::write_scratch("part.inp", reinterpret_cast<const std::uint8_t*>(part.data()),
                           part.size());
  const std::string main_path = fem::fuzz::write_scratch(
      "main.inp", reinterpret_cast<const std::uint8_t*>(deck.data()), deck.size());
  fem::fuzz::expect_fem_errors([&] {
    fem::detail::MeshBuilder b = fem::detail::parse_abaqus_bytes(main_path, deck);
    for (const char* group : {"top", "skull", "surface"}) {
      fem::fuzz::expect_fem_errors(
          [&] { (void)fem::triangle_mesh_from_soup(b.surface_soup(group), main_path); });
    }
    (void)b.finish();
  });
  return 0;
}
