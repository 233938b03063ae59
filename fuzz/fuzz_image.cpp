// Segmented label images through VTK's image readers (framework/src/mesh/voxel_image.cpp), the
// header checks fem makes before them, and the lattice built from the samples. The input's first
// bytes choose the format as a user's file would by its extension: '<' a .vti (VTK XML image
// data), "NRRD" an attached .nrrd, anything else a single-file MetaImage .mha (its header, then
// ElementDataFile = LOCAL and the samples).
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#include "fem/mesh/voxels.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::size_t first = 0;
  while (first < size &&
         (data[first] == ' ' || data[first] == '\n' || data[first] == '\r' || data[first] == '\t'))
    ++first;
  const char* name = "fuzz.mha";
  if (first < size && data[first] == '<')
    name = "fuzz.vti";
  else if (size - first >= 4 && std::memcmp(data + first, "NRRD", 4) == 0)
    name = "fuzz.nrrd";
  const std::string path = fem::fuzz::write_scratch(name, data, size);
  fem::fuzz::expect_fem_errors([&] {
    const fem::VoxelLattice lattice = fem::read_label_image(path, fem::SourceLocation{});
    (void)fem::label_counts(lattice);
  });
  return 0;
}
