// Trilinear hexahedron with full 2x2x2 Gauss integration (no hourglass modes).
#include <cmath>

#include <fem/plugin.hpp>

#include "hex8_reference.hpp"

namespace {
[[maybe_unused]] const fem::ElementData* data() {
  const double g = 1.0 / std::sqrt(3.0);
  static const fem::elements::HexTables tables({{-g, -g, -g},
                                                {g, -g, -g},
                                                {g, g, -g},
                                                {-g, g, -g},
                                                {-g, -g, g},
                                                {g, -g, g},
                                                {g, g, g},
                                                {-g, g, g}},
                                               std::vector<double>(8, 1.0));
  static const fem::ElementData d = tables.describe(
      "hex8", "trilinear hexahedron, 2x2x2 Gauss integration", fem::Family::Isoparametric, 0);
  return &d;
}
}  // namespace

FEM_DEFINE_PLUGIN_ENTRY(FEM_PLUGIN_ELEMENT, "hex8", FEM_PLUGIN_VERSION, "", data())
