// Trilinear hexahedron with one-point (centroid) integration and Flanagan-Belytschko hourglass
// control in the total Lagrangian form used by TLED (Joldes, Wittek & Miller 2008).
#include <fem/plugin.hpp>

#include "hex8_reference.hpp"

namespace {
[[maybe_unused]] const fem::ElementData* data() {
  static const fem::elements::HexTables tables({{0.0, 0.0, 0.0}}, {8.0});
  static const fem::ElementData d =
      tables.describe("hex8r", "trilinear hexahedron, 1-point with hourglass control",
                      fem::Family::Hex8Hourglass, 4);
  return &d;
}
}  // namespace

FEM_DEFINE_PLUGIN_ENTRY(FEM_PLUGIN_ELEMENT, "hex8r", FEM_PLUGIN_VERSION, "", data())
