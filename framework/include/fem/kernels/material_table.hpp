// Host-side check every backend makes before it calls a material plugin's kernels.
#pragma once

#include <cstring>
#include <string>

#include "fem/backend.hpp"
#include "fem/error.hpp"
#include "fem/kernels/element_kernels.hpp"

namespace fem::kernels {

/// Block b's material kernel table, after checking that the material was compiled for `backend`
/// with this build's table layout and that the shared kernels can hold the element. Kernel
/// tables of two backends may have the same size, so the backend name is checked first.
template <class Table>
const Table& checked_material_kernels(const BlockSystem& b, const char* backend) {
  const char* built_for = b.material->backend;
  if (built_for == nullptr || std::strcmp(built_for, backend) != 0)
    throw PluginError("block '" + b.name + "': its material was built for backend '" +
                      (built_for ? built_for : "?") + "', not " + backend);
  const auto* table = static_cast<const Table*>(b.material->kernels);
  if (table == nullptr || table->struct_size != sizeof(Table))
    throw PluginError("block '" + b.name + "': the material plugin was built for a different " +
                      backend + " backend version; rebuild it against this fem");
  if (b.nodes_per_element > kMaxNodesPerElement)
    throw Error("block '" + b.name + "': elements with more than " +
                std::to_string(kMaxNodesPerElement) + " nodes are not supported");
  return *table;
}

/// A kernel-table entry for block b, or a clear refusal when the material was built without it
/// (the averaged-nodal-pressure family needs the material's volumetric split).
template <class Fn>
Fn required_kernel(Fn fn, const BlockSystem& b) {
  if (fn == nullptr)
    throw PluginError("block '" + b.name + "': its material has no kernels for the formulation " +
                      "family '" + to_string(b.family) + "'" +
                      (b.family == Family::AveragedNodalPressureTet
                           ? "; it needs a material with a volumetric/deviatoric split "
                             "(volumetric_pressure, volumetric_energy, deviatoric_stress)"
                           : ""));
  return fn;
}

}  // namespace fem::kernels
