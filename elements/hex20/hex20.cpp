// Serendipity hexahedron with full 3x3x3 Gauss integration (Abaqus C3D20).
#include <fem/plugin.hpp>

#include "hex20_reference.hpp"

namespace {
[[maybe_unused]] const fem::ElementData* data() {
  static const fem::elements::Hex20Tables tables(3);
  static const fem::ElementData d =
      tables.describe("hex20", "quadratic (serendipity) hexahedron, 3x3x3 Gauss integration");
  return &d;
}
}  // namespace

FEM_DEFINE_PLUGIN_ENTRY(FEM_PLUGIN_ELEMENT, "hex20", FEM_PLUGIN_VERSION, "", data())
