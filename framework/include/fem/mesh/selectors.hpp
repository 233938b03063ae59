// Node-set selectors: which mesh nodes a NodeSetSpec picks.
#pragma once

#include <cstdint>
#include <vector>

#include "fem/case.hpp"
#include "fem/mesh.hpp"

namespace fem {

/// Resolves every set of the case (geometric selectors, explicit ids, unions by name, and sets the
/// mesh already carries) into mesh.node_sets. An empty selection, an id out of range, an unknown
/// or circular union member is an InputError at the set's location.
void resolve_node_sets(const std::vector<NodeSetSpec>& specs, Mesh& mesh);

/// The nodes one selector picks (sorted, unique). Unions read `mesh.node_sets`.
std::vector<std::int32_t> select_nodes(const NodeSetSpec& spec, const Mesh& mesh);

}  // namespace fem
