// Node ordering: reverse Cuthill-McKee gives a valid permutation with a small bandwidth, and
// renumbering keeps the mesh the same mesh (coordinates, cells and node sets move together).
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <set>

#include <fem/mesh/generators.hpp>
#include <fem/mesh/ordering.hpp>

namespace fem {
namespace {

Mesh box_mesh(CellShape cells, int n) {
  MeshSpec s;
  s.generator = "box";
  s.cells = cells;
  s.size = {1.0, 2.0, 0.5};
  s.divisions = {n, n + 2, n - 1};
  return generate_mesh(s);
}

bool is_permutation_of_nodes(const std::vector<std::int32_t>& order, std::int64_t nn) {
  std::vector<std::int32_t> sorted(order);
  std::sort(sorted.begin(), sorted.end());
  std::vector<std::int32_t> iota(static_cast<std::size_t>(nn));
  std::iota(iota.begin(), iota.end(), 0);
  return sorted == iota;
}

/// Every cell as the set of its node coordinates, so that two numberings can be compared.
std::multiset<std::vector<double>> cells_by_coordinates(const Mesh& mesh) {
  std::multiset<std::vector<double>> cells;
  for (const CellRegion& r : mesh.regions)
    for (std::int64_t c = 0; c < r.num_cells(); ++c) {
      std::vector<double> x;
      for (int a = 0; a < r.nodes_per_cell; ++a)
        for (int k = 0; k < 3; ++k)
          x.push_back(mesh.coords[3 * r.connectivity[c * r.nodes_per_cell + a] + k]);
      cells.insert(x);
    }
  return cells;
}

TEST(NodeOrdering, RcmIsAPermutationThatUndoesAShuffle) {
  for (const CellShape shape : {CellShape::Hex8, CellShape::Tet4}) {
    const Mesh lexicographic = box_mesh(shape, 12);
    Mesh mesh = box_mesh(shape, 12);
    apply_node_ordering(mesh, NodeOrdering::Shuffled);
    const std::int64_t shuffled = node_bandwidth(mesh);
    const std::vector<std::int32_t> order = reverse_cuthill_mckee(mesh);
    ASSERT_TRUE(is_permutation_of_nodes(order, mesh.num_nodes()));
    renumber_nodes(mesh, order, true);
    // The generator numbers a box layer by layer (bandwidth ~ one layer of nodes); RCM
    // levels run diagonally, so it must come back to within a small factor of that.
    EXPECT_LT(node_bandwidth(mesh), shuffled / 4) << to_string(shape);
    EXPECT_LE(node_bandwidth(mesh), 3 * node_bandwidth(lexicographic)) << to_string(shape);
  }
}

TEST(NodeOrdering, RenumberingKeepsCellsCoordinatesAndSets) {
  Mesh mesh = box_mesh(CellShape::Tet4, 5);
  const auto before = cells_by_coordinates(mesh);
  // A node set, by coordinates: the nodes of the face z = 0.
  std::vector<std::int32_t> bottom;
  for (std::int32_t n = 0; n < mesh.num_nodes(); ++n)
    if (mesh.coords[3 * n + 2] == 0.0) bottom.push_back(n);
  mesh.node_sets["bottom"] = bottom;
  apply_node_ordering(mesh, NodeOrdering::Rcm);
  EXPECT_EQ(cells_by_coordinates(mesh), before);
  const auto& renumbered = mesh.node_sets.at("bottom");
  EXPECT_EQ(renumbered.size(), bottom.size());
  EXPECT_TRUE(std::is_sorted(renumbered.begin(), renumbered.end()));
  for (const std::int32_t n : renumbered) EXPECT_EQ(mesh.coords[3 * n + 2], 0.0);
}

TEST(NodeOrdering, RcmSortsCellsByTheirSmallestNode) {
  Mesh mesh = box_mesh(CellShape::Hex8, 6);
  apply_node_ordering(mesh, NodeOrdering::Shuffled);
  apply_node_ordering(mesh, NodeOrdering::Rcm);
  const CellRegion& r = mesh.regions.at(0);
  std::int32_t previous = -1;
  for (std::int64_t c = 0; c < r.num_cells(); ++c) {
    const auto first = r.connectivity.begin() + c * r.nodes_per_cell;
    const std::int32_t key = *std::min_element(first, first + r.nodes_per_cell);
    EXPECT_LE(previous, key) << "cell " << c;
    previous = key;
  }
}

TEST(NodeOrdering, NamesRoundTrip) {
  for (const NodeOrdering o : {NodeOrdering::Input, NodeOrdering::Rcm, NodeOrdering::Shuffled})
    EXPECT_EQ(parse_node_ordering(to_string(o)), o);
  EXPECT_THROW(parse_node_ordering("metis"), std::invalid_argument);
}

}  // namespace
}  // namespace fem
