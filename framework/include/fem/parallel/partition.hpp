// Domain decomposition of a System: METIS splits the elements into parts, each node gets one
// owner, and each part becomes a System of its own (its elements, the ghost elements its owned
// nodes need, and the ghost nodes the halo exchange keeps current).
//
// Owned nodes sum their element forces over all their elements, in the global order: the ghost
// elements are computed redundantly so that no force crosses a process boundary, which makes a
// deterministic run give the same bits on any number of processes (docs/parallel.md).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "fem/backend.hpp"
#include "fem/parallel/communicator.hpp"

namespace fem::parallel {

/// Which part each element and node belongs to.
struct MeshPartition {
  int parts = 1;
  /// Per element, in block order (element e of block b is blocks' offset + e).
  std::vector<std::int32_t> element_part;
  /// Per node: the part of the first element (in block order) the node belongs to.
  std::vector<std::int32_t> node_owner;
  // Quality, reported in the log and summary.json.
  double imbalance = 1.0;         ///< largest part's element weight / mean part weight
  std::int64_t edge_cut = 0;      ///< METIS's objective: dual-graph edges between parts
  std::int64_t shared_nodes = 0;  ///< nodes whose elements lie in more than one part
};

/// Splits the elements of `system` into `parts` with METIS (a multilevel k-way partition of the
/// dual graph, elements neighbours when they share a face), weighting each element by its
/// work: nodes x quadrature points, plus its contact nodes. Deterministic: the same system and
/// part count give the same partition on every process.
MeshPartition partition_elements(const System& system, int parts);

/// One part of a partitioned System, in the global numbering it came from.
struct LocalPart {
  int rank = 0;
  /// Global ids of the part's nodes, ascending (its owned nodes and its ghost nodes).
  std::vector<std::int32_t> nodes;
  std::vector<std::uint8_t> ghost;  ///< per part node: owned by another part
  /// Per block: the block-local indices of the part's elements, ascending; after
  /// order_halo_elements_first, the first halo_elements[b] of them (ascending), then the rest
  /// (ascending).
  std::vector<std::vector<std::int64_t>> elements;
  /// Per block: positions in elements[b] of the elements this part owns (reports results for),
  /// in ascending element order.
  std::vector<std::vector<std::int64_t>> owned_elements;
  /// Per block: how many elements come first because they touch a node of the send lists
  /// (order_halo_elements_first); empty while the elements are ascending.
  std::vector<std::int64_t> halo_elements;
  /// Halo: for each neighbour rank, the part nodes (part-local ids) it receives from there, and
  /// the owned part nodes it sends there; both ascending in global id.
  std::vector<int> neighbours;
  std::vector<std::vector<std::int32_t>> receive_nodes, send_nodes;

  /// The part-local id of global node `n`, or -1 when the part does not hold it.
  [[nodiscard]] std::int32_t local_node(std::int32_t n) const;
};

/// The elements part `rank` computes: those it owns and every element touching one of its
/// owned nodes (one ghost layer), and where averaged-nodal-pressure tetrahedra are, the ANP
/// elements around the nodes of those (their nodal pressures need them); its receive lists.
/// The send lists come from link_halo.
LocalPart local_part(const System& system, const MeshPartition& partition, int rank);

/// A ghost node a part receives: (owner rank, global node id).
struct HaloRequest {
  std::int32_t owner = 0;
  std::int32_t node = 0;
};
/// The part's requests, in receive-list order.
std::vector<HaloRequest> halo_requests(const LocalPart& part);
/// Fills part.send_nodes (and adds neighbours that only receive) from the requests of every
/// part, concatenated in rank order; request_counts[r] is part r's count.
void add_send_lists(LocalPart& part, const std::vector<HaloRequest>& requests,
                    const std::vector<std::size_t>& request_counts);

/// Partition, part and halo of this process, for a run on `comm` (every rank calls it).
LocalPart distribute(const System& system, const MeshPartition& partition, Communicator& comm);

/// Puts first, in each block of `part` (which has its send lists), the elements that touch a
/// node another part receives: a backend can then compute them and those nodes first and send
/// the halo while it computes the rest (docs/parallel.md, "Overlap"). Each group stays
/// ascending and owned_elements follows. Leaves a part alone where the system has averaged-
/// nodal-pressure blocks, whose nodal pressures need every element of a node before any force.
void order_halo_elements_first(const System& system, LocalPart& part);

/// The System of one part: the global system restricted to the part's nodes and elements
/// (element data copied, not recomputed, so that every number is the global one), with the
/// ghost nodes marked. Each node's force slots are gathered in the global order whatever the
/// part's element order, so that a deterministic run gives the same bits on any number of parts.
System restrict_system(const System& global, const LocalPart& part);

}  // namespace fem::parallel
