// The domain decomposition on a small mixed mesh (hex8r, ANP and plain tetrahedra, a contact
// surface): every element owned once, every node owned once, ghost layers complete, halo lists
// symmetric, and each part's System holding the global numbers of its owned nodes; the order
// that puts the halo's elements first (overlap) keeps every node's sum in the global order.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

#include <fem/parallel/communicator.hpp>
#include <fem/parallel/partition.hpp>

#include "support/case_runner.hpp"

namespace {

using namespace fem;
using namespace fem::parallel;

const System& mixed_system() {
  static test::PreparedRun run =
      test::prepare_file(std::string(FEM_SOURCE_DIR) + "/cases/brain_shift_mixed.yaml");
  return run.solver->setup().system;
}

/// Every part of a partition, with its send lists, as the ranks of a run would build them.
std::vector<LocalPart> all_parts(const System& sys, const MeshPartition& p) {
  std::vector<LocalPart> parts;
  std::vector<HaloRequest> requests;
  std::vector<std::size_t> counts;
  for (int r = 0; r < p.parts; ++r) {
    parts.push_back(local_part(sys, p, r));
    const std::vector<HaloRequest> mine = halo_requests(parts.back());
    requests.insert(requests.end(), mine.begin(), mine.end());
    counts.push_back(mine.size());
  }
  for (LocalPart& part : parts) add_send_lists(part, requests, counts);
  return parts;
}

class Partition : public testing::TestWithParam<int> {
 protected:
  void SetUp() override {
    if (!mpi_built()) GTEST_SKIP() << "this fem was built without MPI and METIS";
  }
};

TEST_P(Partition, OwnsEveryElementAndNodeOnceAndIsTheSameEveryTime) {
  const System& sys = mixed_system();
  const int parts = GetParam();
  const MeshPartition p = partition_elements(sys, parts);
  EXPECT_EQ(p.element_part, partition_elements(sys, parts).element_part);  // deterministic
  std::set<int> used(p.element_part.begin(), p.element_part.end());
  EXPECT_EQ(static_cast<int>(used.size()), parts) << "a part without elements";
  EXPECT_LT(p.imbalance, 1.2);
  const std::vector<LocalPart> local = all_parts(sys, p);
  std::vector<int> element_owners(p.element_part.size(), 0), node_owners(sys.num_nodes, 0);
  for (const LocalPart& part : local) {
    std::int64_t first = 0;
    for (std::size_t b = 0; b < sys.blocks.size(); ++b) {
      for (const std::int64_t k : part.owned_elements[b]) {
        const std::int64_t e = part.elements[b][k];
        EXPECT_EQ(p.element_part[first + e], part.rank);
        ++element_owners[first + e];
      }
      first += sys.blocks[b].num_elements;
    }
    for (std::size_t i = 0; i < part.nodes.size(); ++i)
      if (!part.ghost[i]) {
        EXPECT_EQ(p.node_owner[part.nodes[i]], part.rank);
        ++node_owners[part.nodes[i]];
      }
  }
  EXPECT_TRUE(
      std::all_of(element_owners.begin(), element_owners.end(), [](int n) { return n == 1; }));
  EXPECT_TRUE(std::all_of(node_owners.begin(), node_owners.end(), [](int n) { return n == 1; }));
}

TEST_P(Partition, GhostLayersHoldEveryElementAnOwnedNodeOrANodalPressureNeeds) {
  const System& sys = mixed_system();
  const MeshPartition p = partition_elements(sys, GetParam());
  for (const LocalPart& part : all_parts(sys, p)) {
    const std::set<std::int32_t> held(part.nodes.begin(), part.nodes.end());
    // The nodes of the elements whose forces reach an owned node: their nodal pressures must be
    // complete.
    std::set<std::int32_t> pressure_nodes;
    for (const BlockSystem& bs : sys.blocks)
      for (std::int64_t e = 0; e < bs.num_elements; ++e) {
        const std::int32_t* conn = bs.connectivity.data() + e * bs.nodes_per_element;
        if (std::any_of(conn, conn + bs.nodes_per_element,
                        [&](std::int32_t n) { return p.node_owner[n] == part.rank; }))
          pressure_nodes.insert(conn, conn + bs.nodes_per_element);
      }
    for (std::size_t b = 0; b < sys.blocks.size(); ++b) {
      const BlockSystem& bs = sys.blocks[b];
      const std::set<std::int64_t> in(part.elements[b].begin(), part.elements[b].end());
      for (std::int64_t e = 0; e < bs.num_elements; ++e) {
        const std::int32_t* conn = bs.connectivity.data() + e * bs.nodes_per_element;
        const auto touches = [&](auto pred) {
          return std::any_of(conn, conn + bs.nodes_per_element, pred);
        };
        if (touches([&](std::int32_t n) { return p.node_owner[n] == part.rank; })) {
          EXPECT_TRUE(in.contains(e)) << "element " << e << " of block " << bs.name
                                      << " touches an owned node of part " << part.rank;
        }
        if (bs.pressure_offset >= 0 &&
            touches([&](std::int32_t n) { return pressure_nodes.contains(n); })) {
          EXPECT_TRUE(in.contains(e)) << "ANP element " << e << " of block " << bs.name
                                      << " averages into a node part " << part.rank << " needs";
        }
        if (in.contains(e)) {
          EXPECT_TRUE(!touches([&](std::int32_t n) { return !held.contains(n); }))
              << "part " << part.rank << " lacks a node of its element " << e;
        }
      }
    }
  }
}

TEST_P(Partition, HaloListsAreSymmetricAndCoverEveryGhostOnce) {
  const System& sys = mixed_system();
  const MeshPartition p = partition_elements(sys, GetParam());
  const std::vector<LocalPart> parts = all_parts(sys, p);
  const auto list = [](const LocalPart& part, int other, bool send) {
    std::vector<std::int32_t> global;
    const auto it = std::find(part.neighbours.begin(), part.neighbours.end(), other);
    if (it == part.neighbours.end()) return global;
    const auto i = static_cast<std::size_t>(it - part.neighbours.begin());
    for (const std::int32_t local : send ? part.send_nodes[i] : part.receive_nodes[i])
      global.push_back(part.nodes[local]);
    return global;
  };
  for (const LocalPart& a : parts) {
    std::map<std::int32_t, int> received;
    for (const LocalPart& b : parts) {
      if (a.rank == b.rank) continue;
      EXPECT_EQ(list(a, b.rank, true), list(b, a.rank, false)) << a.rank << " -> " << b.rank;
      for (const std::int32_t n : list(a, b.rank, false)) {
        EXPECT_EQ(p.node_owner[n], b.rank);
        ++received[n];
      }
    }
    for (std::size_t i = 0; i < a.nodes.size(); ++i)
      EXPECT_EQ(received[a.nodes[i]], a.ghost[i] ? 1 : 0) << "node " << a.nodes[i];
  }
}

/// The System of `part`: each owned node gathers the same element-node slots, in global terms,
/// in the same order as the global system does (and has the same mass).
void expect_global_gather_order(const System& sys, const LocalPart& part) {
  const System s = restrict_system(sys, part);
  ASSERT_EQ(s.ghost, part.ghost);
  // A slot's element in global terms: (block, global block-local index, corner).
  const auto global_slot = [&](const System& in, std::int64_t slot, bool local) {
    std::size_t b = 0;
    while (b + 1 < in.blocks.size() && in.blocks[b + 1].force_offset <= slot) ++b;
    const BlockSystem& bs = in.blocks[b];
    const std::int64_t e = (slot - bs.force_offset) / bs.nodes_per_element;
    return std::array<std::int64_t, 3>{static_cast<std::int64_t>(b),
                                       local ? part.elements[b][e] : e,
                                       (slot - bs.force_offset) % bs.nodes_per_element};
  };
  for (std::size_t i = 0; i < part.nodes.size(); ++i) {
    if (part.ghost[i]) continue;
    const std::int32_t g = part.nodes[i];
    ASSERT_EQ(s.incidence_offsets[i + 1] - s.incidence_offsets[i],
              sys.incidence_offsets[g + 1] - sys.incidence_offsets[g]);
    for (std::int64_t k = 0; k < s.incidence_offsets[i + 1] - s.incidence_offsets[i]; ++k)
      EXPECT_EQ(global_slot(s, s.incidence_slots[s.incidence_offsets[i] + k], true),
                global_slot(sys, sys.incidence_slots[sys.incidence_offsets[g] + k], false));
    EXPECT_EQ(s.lumped_mass[i], sys.lumped_mass[g]);
    if (!sys.pressure_inverse_volume.empty()) {
      EXPECT_EQ(s.pressure_inverse_volume[i], sys.pressure_inverse_volume[g]) << "node " << g;
    }
  }
  for (std::size_t b = 0; b < s.blocks.size(); ++b)
    EXPECT_EQ(s.blocks[b].halo_elements, part.halo_elements.empty() ? -1 : part.halo_elements[b]);
}

TEST_P(Partition, APartsSystemGathersEachOwnedNodeFromTheSameElementsInTheSameOrder) {
  const System& sys = mixed_system();
  const MeshPartition p = partition_elements(sys, GetParam());
  for (const LocalPart& part : all_parts(sys, p)) expect_global_gather_order(sys, part);
}

/// Hexahedra and plain tetrahedra (no averaged nodal pressure).
const System& hex_tet_system() {
  static test::PreparedRun run =
      test::prepare_file(std::string(FEM_SOURCE_DIR) + "/cases/mixed_ellipsoid.yaml");
  return run.solver->setup().system;
}

TEST_P(Partition, TheElementsTheHaloNeedsComeFirstAndEveryNodeStillSumsInTheGlobalOrder) {
  const System& sys = hex_tet_system();
  const MeshPartition p = partition_elements(sys, GetParam());
  for (const LocalPart& part : all_parts(sys, p)) {
    LocalPart ordered = part;
    order_halo_elements_first(sys, ordered);
    ASSERT_EQ(ordered.halo_elements.size(), sys.blocks.size());
    std::set<std::int32_t> sent;
    for (const auto& list : part.send_nodes)
      for (const std::int32_t local : list) sent.insert(part.nodes[local]);
    std::int64_t halo_total = 0;
    for (std::size_t b = 0; b < sys.blocks.size(); ++b) {
      const BlockSystem& bs = sys.blocks[b];
      const std::vector<std::int64_t>& e = ordered.elements[b];
      const auto halo = static_cast<std::size_t>(ordered.halo_elements[b]);
      halo_total += ordered.halo_elements[b];
      ASSERT_LE(halo, e.size());
      std::vector<std::int64_t> same = e;
      std::sort(same.begin(), same.end());
      EXPECT_EQ(same, part.elements[b]) << "block " << b << ": not the same elements";
      EXPECT_TRUE(std::is_sorted(e.begin(), e.begin() + static_cast<std::ptrdiff_t>(halo)));
      EXPECT_TRUE(std::is_sorted(e.begin() + static_cast<std::ptrdiff_t>(halo), e.end()));
      for (std::size_t k = 0; k < e.size(); ++k) {
        const std::int32_t* conn = bs.connectivity.data() + e[k] * bs.nodes_per_element;
        const bool touches = std::any_of(conn, conn + bs.nodes_per_element,
                                         [&](std::int32_t n) { return sent.count(n) > 0; });
        EXPECT_EQ(touches, k < halo) << "block " << b << ", element " << e[k];
      }
      // The same owned elements, still listed in ascending element order.
      ASSERT_EQ(ordered.owned_elements[b].size(), part.owned_elements[b].size());
      for (std::size_t k = 0; k < part.owned_elements[b].size(); ++k)
        EXPECT_EQ(e[ordered.owned_elements[b][k]], part.elements[b][part.owned_elements[b][k]]);
    }
    if (GetParam() > 1) {
      EXPECT_GT(halo_total, 0) << "part " << part.rank << " sends nothing";
    }
    expect_global_gather_order(sys, ordered);
  }
}

TEST_P(Partition, PartsWithAveragedNodalPressureKeepTheirOrder) {
  const System& sys = mixed_system();
  for (const LocalPart& part : all_parts(sys, partition_elements(sys, GetParam()))) {
    LocalPart ordered = part;
    order_halo_elements_first(sys, ordered);
    EXPECT_TRUE(ordered.halo_elements.empty());
    EXPECT_EQ(ordered.elements, part.elements);
  }
}

INSTANTIATE_TEST_SUITE_P(Parts, Partition, testing::Values(1, 2, 3, 4, 7));

// Plane cells (plane strain, z = const) are neighbours across an edge of 2 nodes: METIS must be
// told so, or it sees no neighbours at all and scatters the cells over the parts.
TEST(Partition, APlaneMeshIsSplitIntoCompactParts) {
  if (!mpi_built()) GTEST_SKIP() << "this fem was built without MPI and METIS";
  static test::PreparedRun run = test::prepare(R"(
name: plane
backend: openmp
mesh: {generator: rectangle, cells: tri3, size: [0.06, 0.03], divisions: [40, 20]}
materials: {steel: {type: linear_elastic, density: 7850, p_wave_speed: 5900, s_wave_speed: 3200}}
blocks: [{name: plate, element: tri3, material: steel}]
solver: {type: explicit, end_time: 1.0e-6}
)");
  const System& sys = run.solver->setup().system;
  const MeshPartition p = partition_elements(sys, 4);
  EXPECT_GT(p.edge_cut, 0) << "METIS saw no neighbouring cells";
  // Four compact parts of a 40 x 20 grid share a few cuts' worth of nodes, not most of them.
  EXPECT_LT(p.shared_nodes, sys.num_nodes / 8) << "of " << sys.num_nodes << " nodes";
  EXPECT_LT(p.imbalance, 1.1);
}

TEST(Partition, MorePartsThanElementsIsRefusedWithAHint) {
  if (!mpi_built()) GTEST_SKIP() << "this fem was built without MPI and METIS";
  const System& sys = mixed_system();
  try {
    (void)partition_elements(sys, 1000000);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("hint: run on fewer ranks"), std::string::npos)
        << e.what();
  }
}

}  // namespace
