// Serendipity hexahedron with reduced 2x2x2 Gauss integration (Abaqus C3D20R). A single element
// has spurious zero-energy modes; they are not communicable, so a mesh of two or more elements in
// each direction has none (docs/case-reference.md, blocks).
#include <fem/plugin.hpp>

#include "hex20_reference.hpp"

namespace {
[[maybe_unused]] const fem::ElementData* data() {
  static const fem::elements::Hex20Tables tables(2);
  static const fem::ElementData d =
      tables.describe("hex20r", "quadratic (serendipity) hexahedron, 2x2x2 Gauss integration");
  return &d;
}
}  // namespace

FEM_DEFINE_PLUGIN_ENTRY(FEM_PLUGIN_ELEMENT, "hex20r", FEM_PLUGIN_VERSION, "", data())
