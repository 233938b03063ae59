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

/// Squares split along alternating diagonals: interior nodes alternate between 4 and 8 cells
/// around them. Grouped by valence in windows of 32, each window lists its nodes of fewer cells
/// first, keeps every node inside its window, and is a permutation.
TEST(NodeOrdering, ValenceGroupsKeepNodesInTheirWindow) {
  Mesh mesh;
  const int n = 16;  // squares a side
  for (int j = 0; j <= n; ++j)
    for (int i = 0; i <= n; ++i) mesh.coords.insert(mesh.coords.end(), {1.0 * i, 1.0 * j, 0.0});
  CellRegion r;
  r.name = "domain";
  r.shape = CellShape::Tri3;
  r.nodes_per_cell = 3;
  const auto id = [](int i, int j) { return static_cast<std::int32_t>(i + (n + 1) * j); };
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) {
      const std::int32_t a = id(i, j), b = id(i + 1, j), c = id(i + 1, j + 1), d = id(i, j + 1);
      if ((i + j) % 2 == 0)
        r.connectivity.insert(r.connectivity.end(), {a, b, c, a, c, d});
      else
        r.connectivity.insert(r.connectivity.end(), {a, b, d, b, c, d});
    }
  mesh.regions.push_back(r);
  std::vector<int> cells_at(static_cast<std::size_t>(mesh.num_nodes()), 0);
  for (const std::int32_t v : r.connectivity) ++cells_at[static_cast<std::size_t>(v)];
  const std::vector<std::int32_t> order = group_nodes_by_valence(mesh, 32);
  std::vector<std::int32_t> sorted = order;
  std::sort(sorted.begin(), sorted.end());
  std::vector<std::int32_t> identity(sorted.size());
  std::iota(identity.begin(), identity.end(), 0);
  EXPECT_EQ(sorted, identity);
  int changes = 0;  // valence changes along the new order: few once grouped
  for (std::size_t k = 0; k < order.size(); ++k) {
    EXPECT_EQ(order[k] / 32, static_cast<std::int32_t>(k / 32)) << "node left its window";
    if (k % 32 != 0) {
      EXPECT_LE(cells_at[static_cast<std::size_t>(order[k - 1])],
                cells_at[static_cast<std::size_t>(order[k])]);
      changes += cells_at[static_cast<std::size_t>(order[k - 1])] !=
                 cells_at[static_cast<std::size_t>(order[k])];
    }
  }
  int input_changes = 0;
  for (std::size_t k = 1; k < order.size(); ++k) input_changes += cells_at[k - 1] != cells_at[k];
  EXPECT_LT(4 * changes, input_changes) << changes << " against " << input_changes;
}

}  // namespace
}  // namespace fem
