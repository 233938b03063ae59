#include "model_hexahedra.hpp"

namespace fem::voxel {

ModelHexahedra model_hexahedra(const Model& model) {
  ModelHexahedra h;
  for (std::size_t b = 0; b < model.blocks.size(); ++b) {
    const ModelBlock& mb = model.blocks[b];
    if (mb.region->shape != CellShape::Hex8 || mb.element->num_nodes != 8)
      return {{}, {}, static_cast<std::int32_t>(b)};
    h.cells.insert(h.cells.end(), mb.connectivity.begin(), mb.connectivity.end());
    h.block.insert(h.block.end(), static_cast<std::size_t>(mb.num_elements()),
                   static_cast<std::int32_t>(b));
  }
  return h;
}

}  // namespace fem::voxel
