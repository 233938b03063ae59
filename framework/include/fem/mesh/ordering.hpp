// Node and cell numbering for memory locality.
//
// The element pass gathers the displacements of each element's nodes and (atomic assembly)
// scatters forces back to them: when elements that run side by side share nodes that sit close
// in memory, those accesses hit the same cache lines. Reverse Cuthill-McKee keeps the node
// numbers of every cell close together (a small bandwidth); sorting each region's cells by their
// smallest node then makes consecutive elements touch neighbouring nodes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "fem/mesh.hpp"

namespace fem {

enum class NodeOrdering {
  Input,    ///< as the generator or the file numbered them
  Rcm,      ///< reverse Cuthill-McKee, cells sorted by their smallest node
  Shuffled  ///< nodes in a fixed pseudo-random order, cells as input: a worst case to measure by
};

NodeOrdering parse_node_ordering(const std::string& name);
const char* to_string(NodeOrdering ordering);

/// Reverse Cuthill-McKee order of the nodes of the cells of `mesh`, as new_to_old: position i
/// holds the input id of the node that gets id i. Nodes in no cell go last, in input order.
/// Starts each connected component at a pseudo-peripheral node (George and Liu).
std::vector<std::int32_t> reverse_cuthill_mckee(const Mesh& mesh);

/// The largest difference between two node ids of one cell.
std::int64_t node_bandwidth(const Mesh& mesh);

/// Renumbers nodes (coordinates, cells, node sets) by new_to_old and, with sort_cells, sorts every
/// region's cells by their smallest node id (stable, so equal keys keep their order).
void renumber_nodes(Mesh& mesh, const std::vector<std::int32_t>& new_to_old, bool sort_cells);

/// `order` (new_to_old; empty: the mesh's own order) regrouped so that, within each run of
/// `window` consecutive positions, nodes in fewer cells come first (stable). A node-based sparse
/// product that stores rows in slices padded to their longest row (the CUDA wave step's sliced
/// ELL, 32 rows a slice) then finds rows of one length together: on meshes whose node valence
/// alternates (a grid of squares split along alternating diagonals: 4 and 8 neighbours) the
/// padding falls from a third of the matrix to nearly none, while every node stays within
/// `window` of its place.
std::vector<std::int32_t> group_nodes_by_valence(const Mesh& mesh, std::int32_t window,
                                                 std::vector<std::int32_t> order = {});

/// Applies `ordering` to the mesh (Input leaves the numbering as it is), then, with
/// valence_window > 0, groups the nodes by valence in windows of that many: one renumbering.
void apply_node_ordering(Mesh& mesh, NodeOrdering ordering, std::int32_t valence_window = 0);

}  // namespace fem
