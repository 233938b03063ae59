#include "fem/parallel/partition.hpp"

#include <algorithm>
#include <limits>
#include <numeric>

#include "fem/error.hpp"
#include "fem/solver/explicit_system.hpp"
#include "pick.hpp"

#if FEM_WITH_MPI  // 1 or 0 from framework/CMakeLists.txt
#include <metis.h>
#endif

namespace fem::parallel {
namespace {

using detail::pick;

/// First global element index of each block (and the total at the end).
std::vector<std::int64_t> block_starts(const System& sys) {
  std::vector<std::int64_t> starts{0};
  for (const BlockSystem& b : sys.blocks) starts.push_back(starts.back() + b.num_elements);
  return starts;
}

/// The global element of a force slot.
std::int64_t slot_element(const System& sys, const std::vector<std::int64_t>& starts,
                          std::int64_t slot) {
  std::size_t b = sys.blocks.size() - 1;
  while (sys.blocks[b].force_offset > slot) --b;
  const BlockSystem& bs = sys.blocks[b];
  return starts[b] + (slot - bs.force_offset) / bs.nodes_per_element;
}

bool has_pressure_blocks(const System& sys) {
  return std::any_of(sys.blocks.begin(), sys.blocks.end(),
                     [](const BlockSystem& b) { return b.pressure_offset >= 0; });
}

}  // namespace

MeshPartition partition_elements(const System& sys, int parts) {
  const std::vector<std::int64_t> starts = block_starts(sys);
  const std::int64_t ne = starts.back();
  if (parts < 1) throw Error("a mesh is split into at least one part");
  if (parts > ne)
    throw Error("cannot split " + std::to_string(ne) + " elements into " + std::to_string(parts) +
                " parts\n  hint: run on fewer ranks");
  MeshPartition p;
  p.parts = parts;
  p.element_part.assign(static_cast<std::size_t>(ne), 0);
  // Work per element: its node-quadrature pairs, plus one node's worth for each contact node
  // (the contact projection is a per-node cost of the element's part).
  std::vector<std::int64_t> weight(static_cast<std::size_t>(ne));
  for (std::size_t b = 0; b < sys.blocks.size(); ++b) {
    const BlockSystem& bs = sys.blocks[b];
    for (std::int64_t e = 0; e < bs.num_elements; ++e) {
      std::int64_t w = static_cast<std::int64_t>(bs.nodes_per_element) * bs.quadrature_points;
      if (!sys.contact_mask.empty())
        for (int a = 0; a < bs.nodes_per_element; ++a)
          w += sys.contact_mask[bs.connectivity[e * bs.nodes_per_element + a]] != 0
                   ? bs.quadrature_points
                   : 0;
      weight[starts[b] + e] = w;
    }
  }
  if (parts > 1) {
#if FEM_WITH_MPI
    if (sys.num_force_slots > std::numeric_limits<idx_t>::max() ||
        sys.num_nodes > std::numeric_limits<idx_t>::max())
      throw Error("the mesh is too large for this METIS build's 32-bit indices");
    std::vector<idx_t> eptr{0}, eind, vwgt;
    eind.reserve(static_cast<std::size_t>(sys.num_force_slots));
    for (const BlockSystem& bs : sys.blocks)
      for (std::int64_t e = 0; e < bs.num_elements; ++e) {
        for (int a = 0; a < bs.nodes_per_element; ++a)
          eind.push_back(bs.connectivity[e * bs.nodes_per_element + a]);
        eptr.push_back(static_cast<idx_t>(eind.size()));
      }
    for (const std::int64_t w : weight) vwgt.push_back(static_cast<idx_t>(w));
    idx_t num_elements = static_cast<idx_t>(ne), num_nodes = static_cast<idx_t>(sys.num_nodes);
    // Neighbours share a face: 3 nodes at least (triangles; quadrilateral faces share 4); the
    // cells of a plane mesh (z = const, which no valid solid mesh is) share an edge of 2.
    bool plane = sys.num_nodes > 0;
    for (std::int64_t n = 1; plane && n < sys.num_nodes; ++n)
      plane = sys.coordinates[3 * n + 2] == sys.coordinates[2];
    idx_t ncommon = plane ? 2 : 3, nparts = parts, objval = 0;
    idx_t options[METIS_NOPTIONS];
    METIS_SetDefaultOptions(options);
    options[METIS_OPTION_SEED] = 16;  // the same partition on every process and every run
    std::vector<idx_t> epart(static_cast<std::size_t>(ne)),
        npart(static_cast<std::size_t>(sys.num_nodes));
    const int status = METIS_PartMeshDual(&num_elements, &num_nodes, eptr.data(), eind.data(),
                                          vwgt.data(), nullptr, &ncommon, &nparts, nullptr, options,
                                          &objval, epart.data(), npart.data());
    if (status != METIS_OK)
      throw Error("METIS could not partition the mesh into " + std::to_string(parts) +
                  " parts (status " + std::to_string(status) + ")");
    std::copy(epart.begin(), epart.end(), p.element_part.begin());
    p.edge_cut = objval;
#else
    throw Error(
        "this fem was built without METIS: it cannot split a mesh\n  hint: install "
        "libmetis-dev and libopenmpi-dev and build again");
#endif
  }
  // Owners and quality.
  p.node_owner.assign(static_cast<std::size_t>(sys.num_nodes), 0);
  for (std::int64_t n = 0; n < sys.num_nodes; ++n) {
    const std::int64_t begin = sys.incidence_offsets[n], end = sys.incidence_offsets[n + 1];
    if (begin == end) continue;
    const std::int32_t owner =
        p.element_part[slot_element(sys, starts, sys.incidence_slots[begin])];
    p.node_owner[n] = owner;
    for (std::int64_t j = begin + 1; j < end; ++j)
      if (p.element_part[slot_element(sys, starts, sys.incidence_slots[j])] != owner) {
        ++p.shared_nodes;
        break;
      }
  }
  std::vector<double> part_weight(static_cast<std::size_t>(parts), 0.0);
  for (std::int64_t e = 0; e < ne; ++e)
    part_weight[p.element_part[e]] += static_cast<double>(weight[e]);
  const double total = std::accumulate(part_weight.begin(), part_weight.end(), 0.0);
  p.imbalance = *std::max_element(part_weight.begin(), part_weight.end()) / (total / parts);
  return p;
}

LocalPart local_part(const System& sys, const MeshPartition& partition, int rank) {
  const std::vector<std::int64_t> starts = block_starts(sys);
  const std::size_t nn = static_cast<std::size_t>(sys.num_nodes);
  LocalPart part;
  part.rank = rank;
  std::vector<std::uint8_t> in_part(static_cast<std::size_t>(starts.back()), 0);
  const auto owned = [&](std::int32_t n) { return partition.node_owner[n] == rank; };
  for (std::size_t b = 0; b < sys.blocks.size(); ++b) {
    const BlockSystem& bs = sys.blocks[b];
    const int npe = bs.nodes_per_element;
    for (std::int64_t e = 0; e < bs.num_elements; ++e) {
      const std::int32_t* conn = bs.connectivity.data() + e * npe;
      in_part[starts[b] + e] =
          partition.element_part[starts[b] + e] == rank || std::any_of(conn, conn + npe, owned);
    }
  }
  std::vector<std::uint8_t> node_in(nn, 0);
  const auto mark_nodes = [&] {
    for (std::size_t b = 0; b < sys.blocks.size(); ++b) {
      const BlockSystem& bs = sys.blocks[b];
      for (std::int64_t e = 0; e < bs.num_elements; ++e)
        if (in_part[starts[b] + e])
          for (int a = 0; a < bs.nodes_per_element; ++a)
            node_in[bs.connectivity[e * bs.nodes_per_element + a]] = 1;
    }
  };
  mark_nodes();
  if (has_pressure_blocks(sys)) {
    // The nodal pressure of every node of the part's elements averages over all the ANP
    // elements around it: add those (their own nodes become ghosts of the outer ring).
    for (std::size_t b = 0; b < sys.blocks.size(); ++b) {
      const BlockSystem& bs = sys.blocks[b];
      if (bs.pressure_offset < 0) continue;
      for (std::int64_t e = 0; e < bs.num_elements; ++e) {
        const std::int32_t* conn = bs.connectivity.data() + e * 4;
        if (std::any_of(conn, conn + 4, [&](std::int32_t n) { return node_in[n] != 0; }))
          in_part[starts[b] + e] = 1;
      }
    }
    mark_nodes();
  }
  std::vector<std::vector<std::int32_t>> by_owner(static_cast<std::size_t>(partition.parts));
  for (std::size_t n = 0; n < nn; ++n) {
    if (!node_in[n]) continue;
    const auto local = static_cast<std::int32_t>(part.nodes.size());
    part.nodes.push_back(static_cast<std::int32_t>(n));
    const bool ghost = partition.node_owner[n] != rank;
    part.ghost.push_back(ghost ? 1 : 0);
    if (ghost) by_owner[partition.node_owner[n]].push_back(local);
  }
  for (int r = 0; r < partition.parts; ++r)
    if (!by_owner[r].empty()) {
      part.neighbours.push_back(r);
      part.receive_nodes.push_back(std::move(by_owner[r]));
      part.send_nodes.emplace_back();
    }
  part.elements.resize(sys.blocks.size());
  part.owned_elements.resize(sys.blocks.size());
  for (std::size_t b = 0; b < sys.blocks.size(); ++b)
    for (std::int64_t e = 0; e < sys.blocks[b].num_elements; ++e) {
      if (!in_part[starts[b] + e]) continue;
      if (partition.element_part[starts[b] + e] == rank)
        part.owned_elements[b].push_back(static_cast<std::int64_t>(part.elements[b].size()));
      part.elements[b].push_back(e);
    }
  return part;
}

std::int32_t LocalPart::local_node(std::int32_t n) const {
  const auto it = std::lower_bound(nodes.begin(), nodes.end(), n);
  return it != nodes.end() && *it == n ? static_cast<std::int32_t>(it - nodes.begin()) : -1;
}

std::vector<HaloRequest> halo_requests(const LocalPart& part) {
  std::vector<HaloRequest> requests;
  for (std::size_t i = 0; i < part.neighbours.size(); ++i)
    for (const std::int32_t local : part.receive_nodes[i])
      requests.push_back({part.neighbours[i], part.nodes[local]});
  return requests;
}

void add_send_lists(LocalPart& part, const std::vector<HaloRequest>& requests,
                    const std::vector<std::size_t>& request_counts) {
  std::size_t first = 0;
  for (std::size_t r = 0; r < request_counts.size(); ++r) {
    const std::size_t end = first + request_counts[r];
    std::vector<std::int32_t> send;
    for (std::size_t k = first; k < end; ++k) {
      if (requests[k].owner != part.rank) continue;
      const std::int32_t local = part.local_node(requests[k].node);
      if (local < 0)
        throw Error("halo: part " + std::to_string(r) + " asks part " + std::to_string(part.rank) +
                    " for node " + std::to_string(requests[k].node) + ", which it does not hold");
      send.push_back(local);
    }
    first = end;
    if (send.empty()) continue;
    const int rank = static_cast<int>(r);
    auto at = std::lower_bound(part.neighbours.begin(), part.neighbours.end(), rank);
    const auto i = at - part.neighbours.begin();
    if (at == part.neighbours.end() || *at != rank) {
      part.neighbours.insert(at, rank);
      part.receive_nodes.insert(part.receive_nodes.begin() + i, std::vector<std::int32_t>{});
      part.send_nodes.insert(part.send_nodes.begin() + i, std::move(send));
    } else {
      part.send_nodes[static_cast<std::size_t>(i)] = std::move(send);
    }
  }
}

LocalPart distribute(const System& system, const MeshPartition& partition, Communicator& comm) {
  LocalPart part = local_part(system, partition, comm.rank());
  std::vector<std::size_t> counts;
  const std::vector<HaloRequest> all = comm.all_gather(halo_requests(part), &counts);
  add_send_lists(part, all, counts);
  return part;
}

void order_halo_elements_first(const System& sys, LocalPart& part) {
  if (has_pressure_blocks(sys)) return;
  std::vector<std::uint8_t> sent(static_cast<std::size_t>(sys.num_nodes), 0);
  for (const std::vector<std::int32_t>& list : part.send_nodes)
    for (const std::int32_t local : list) sent[part.nodes[local]] = 1;
  part.halo_elements.assign(sys.blocks.size(), 0);
  for (std::size_t b = 0; b < sys.blocks.size(); ++b) {
    const BlockSystem& bs = sys.blocks[b];
    std::vector<std::int64_t>& elements = part.elements[b];
    const auto touches_sent = [&](std::int64_t e) {
      const std::int32_t* conn = bs.connectivity.data() + e * bs.nodes_per_element;
      return std::any_of(conn, conn + bs.nodes_per_element,
                         [&](std::int32_t n) { return sent[n] != 0; });
    };
    std::vector<std::int64_t> order(elements.size());  // old positions, in the new order
    std::iota(order.begin(), order.end(), std::int64_t{0});
    const auto interior = std::stable_partition(
        order.begin(), order.end(), [&](std::int64_t p) { return touches_sent(elements[p]); });
    part.halo_elements[b] = interior - order.begin();
    std::vector<std::int64_t> reordered(elements.size()), position(elements.size());
    for (std::size_t i = 0; i < order.size(); ++i) {
      reordered[i] = elements[order[i]];
      position[order[i]] = static_cast<std::int64_t>(i);
    }
    // Owned positions were ascending in position, so in element; mapped, they stay so.
    for (std::int64_t& p : part.owned_elements[b]) p = position[p];
    elements = std::move(reordered);
  }
}

System restrict_system(const System& g, const LocalPart& part) {
  System s;
  const std::vector<std::int32_t>& nodes = part.nodes;
  s.num_nodes = static_cast<std::int64_t>(nodes.size());
  s.lumped_mass = pick(g.lumped_mass, nodes, 1);
  s.iteration_mass = pick(g.iteration_mass, nodes, 1);
  s.contact_mask = pick(g.contact_mask, nodes, 1);
  s.coordinates = pick(g.coordinates, nodes, 3);
  s.prescribed_amplitude = pick(g.prescribed_amplitude, nodes, 3);
  s.prescribed_value = pick(g.prescribed_value, nodes, 3);
  s.load_amplitude = pick(g.load_amplitude, nodes, 3);
  s.load_value = pick(g.load_value, nodes, 3);
  s.initial_displacement = pick(g.initial_displacement, nodes, 3);
  s.initial_previous_displacement = pick(g.initial_previous_displacement, nodes, 3);
  s.ghost = part.ghost;
  s.gravity = g.gravity;
  s.gravity_amplitude = g.gravity_amplitude;
  s.amplitudes = g.amplitudes;
  s.time_step = g.time_step;
  s.mass_damping = g.mass_damping;
  s.deterministic = g.deterministic;
  s.surfaces = g.surfaces;
  std::vector<std::int32_t> to_local(static_cast<std::size_t>(g.num_nodes), -1);
  for (std::size_t i = 0; i < nodes.size(); ++i) to_local[nodes[i]] = static_cast<std::int32_t>(i);
  std::int64_t slots = 0;
  for (std::size_t b = 0; b < g.blocks.size(); ++b) {
    const BlockSystem& gb = g.blocks[b];
    const std::vector<std::int64_t>& elements = part.elements[b];
    const auto npe = static_cast<std::size_t>(gb.nodes_per_element);
    const auto nqp = static_cast<std::size_t>(gb.quadrature_points);
    BlockSystem bs;
    bs.name = gb.name;
    bs.family = gb.family;
    bs.nodes_per_element = gb.nodes_per_element;
    bs.quadrature_points = gb.quadrature_points;
    bs.num_elements = static_cast<std::int64_t>(elements.size());
    bs.connectivity = pick(gb.connectivity, elements, npe);
    for (std::int32_t& n : bs.connectivity) n = to_local[n];
    bs.shape_gradients = pick(gb.shape_gradients, elements, nqp * npe * 3);
    bs.quadrature_volumes = pick(gb.quadrature_volumes, elements, nqp);
    bs.hourglass_vectors = pick(gb.hourglass_vectors, elements, 12);
    bs.hourglass_base = gb.hourglass_base;
    bs.hourglass_stiffness = pick(gb.hourglass_stiffness, elements, 1);
    bs.material = gb.material;
    bs.material_params = gb.material_params;
    bs.force_offset = slots;
    bs.pressure_offset = gb.pressure_offset;  // renumbered by build_pressure_incidence
    bs.halo_elements = part.halo_elements.empty() ? -1 : part.halo_elements[b];
    slots += bs.num_elements * gb.nodes_per_element;
    s.blocks.push_back(std::move(bs));
  }
  s.num_force_slots = slots;
  build_force_incidence(s);
  if (!part.halo_elements.empty()) {
    // Slot order is the part's element order: sum each node's slots in their global order.
    std::vector<std::int64_t> global_slot(static_cast<std::size_t>(slots));
    for (std::size_t b = 0; b < g.blocks.size(); ++b) {
      const BlockSystem& bs = s.blocks[b];
      const std::int64_t npe = bs.nodes_per_element;
      for (std::int64_t e = 0; e < bs.num_elements; ++e)
        for (std::int64_t a = 0; a < npe; ++a)
          global_slot[bs.force_offset + e * npe + a] =
              g.blocks[b].force_offset + part.elements[b][e] * npe + a;
    }
    for (std::int64_t n = 0; n < s.num_nodes; ++n)
      std::sort(s.incidence_slots.begin() + s.incidence_offsets[n],
                s.incidence_slots.begin() + s.incidence_offsets[n + 1],
                [&](std::int64_t x, std::int64_t y) { return global_slot[x] < global_slot[y]; });
  }
  build_pressure_incidence(s);
  return s;
}

}  // namespace fem::parallel
