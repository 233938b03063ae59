// Node-set selectors on a 2 x 2 x 2 unit box: node (i, j, k) has id i + 3 j + 9 k and sits at
// (i, j, k) / 2, so every expected set can be written down by hand.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include <fem/mesh/generators.hpp>
#include <fem/mesh/selectors.hpp>

namespace fem {
namespace {

using Ids = std::vector<std::int32_t>;
using Kind = NodeSetSpec::Kind;

Mesh unit_box(double scale = 1.0) {
  MeshSpec s;
  s.size = {scale, scale, scale};
  s.divisions = {2, 2, 2};
  return generate_mesh(s);
}

NodeSetSpec set(const std::string& name, Kind kind, int line = 10) {
  NodeSetSpec s;
  s.where = {"case.yaml", line, 5};
  s.name = name;
  s.kind = kind;
  return s;
}

NodeSetSpec plane(const std::string& name, std::array<double, 3> p, std::array<double, 3> n) {
  NodeSetSpec s = set(name, Kind::Plane);
  s.point = p;
  s.vector = n;
  return s;
}

NodeSetSpec union_of(const std::string& name, std::vector<std::string> members, int line = 10) {
  NodeSetSpec s = set(name, Kind::Union, line);
  s.sets = std::move(members);
  return s;
}

/// Ids of the grid nodes (i, j, k) for which pred holds.
template <class Pred>
Ids grid_ids(Pred pred) {
  Ids ids;
  for (int k = 0; k < 3; ++k)
    for (int j = 0; j < 3; ++j)
      for (int i = 0; i < 3; ++i)
        if (pred(i, j, k)) ids.push_back(i + 3 * j + 9 * k);
  std::sort(ids.begin(), ids.end());
  return ids;
}

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

/// The InputError a call throws (its line must be `line`), or "" if it does not throw.
template <class F>
std::string error_of(F f, int line) {
  try {
    f();
  } catch (const InputError& e) {
    EXPECT_EQ(e.where().line, line) << e.what();
    EXPECT_EQ(e.where().file, "case.yaml");
    return e.what();
  }
  ADD_FAILURE() << "no InputError";
  return "";
}

TEST(Selectors, All) {
  EXPECT_EQ(select_nodes(set("all", Kind::All), unit_box()),
            grid_ids([](int, int, int) { return true; }));
}

TEST(Selectors, AxisPlanes) {
  const Mesh m = unit_box();
  EXPECT_EQ(select_nodes(plane("x0", {0, 0, 0}, {1, 0, 0}), m),
            (Ids{0, 3, 6, 9, 12, 15, 18, 21, 24}));
  // The normal need not be unit length nor point outwards.
  EXPECT_EQ(select_nodes(plane("top", {0.3, 0.7, 1}, {0, 0, -2}), m),
            (Ids{18, 19, 20, 21, 22, 23, 24, 25, 26}));
  EXPECT_EQ(select_nodes(plane("mid_y", {0, 0.5, 0}, {0, 1e-3, 0}), m),
            grid_ids([](int, int j, int) { return j == 1; }));
}

TEST(Selectors, ObliquePlane) {
  // x + y + z = 1 passes through the nodes with i + j + k = 2.
  const Mesh m = unit_box();
  const Ids expected = grid_ids([](int i, int j, int k) { return i + j + k == 2; });
  EXPECT_EQ(expected, (Ids{2, 4, 6, 10, 12, 18}));
  EXPECT_EQ(select_nodes(plane("diag", {1, 0, 0}, {1, 1, 1}), m), expected);
}

TEST(Selectors, BoxIncludesItsFaces) {
  NodeSetSpec b = set("corner", Kind::Box);
  b.point = {0.5, -1, -1};   // min: x = 0.5 lies exactly on the box's face
  b.vector = {2, 0.6, 0.5};  // max: z = 0.5 likewise
  EXPECT_EQ(select_nodes(b, unit_box()),
            grid_ids([](int i, int j, int k) { return i >= 1 && j <= 1 && k <= 1; }));
}

TEST(Selectors, SphereIncludesItsSurface) {
  NodeSetSpec s = set("ball", Kind::Sphere);
  s.point = {0.5, 0.5, 0.5};
  s.radius = 0.5;  // the six face centres are at exactly 0.5, the edge midpoints at 0.707
  EXPECT_EQ(select_nodes(s, unit_box()), (Ids{4, 10, 12, 13, 14, 16, 22}));
  s.radius = 0;  // only the centre
  EXPECT_EQ(select_nodes(s, unit_box()), (Ids{13}));
}

TEST(Selectors, IdsAreSortedAndUnique) {
  NodeSetSpec s = set("picked", Kind::Ids);
  s.ids = {26, 5, 3, 5, 0};
  EXPECT_EQ(select_nodes(s, unit_box()), (Ids{0, 3, 5, 26}));
}

TEST(Selectors, DefaultToleranceScalesWithTheMesh) {
  // Default: 1e-6 of the bounding-box diagonal (sqrt(3) for the unit box: 1.7e-6).
  const Mesh m = unit_box();
  EXPECT_EQ(select_nodes(plane("near", {1 + 1.5e-6, 0, 0}, {1, 0, 0}), m).size(), 9u);
  EXPECT_THROW(select_nodes(plane("far", {1 + 2e-6, 0, 0}, {1, 0, 0}), m), InputError);
  // The same relative offset on a box a thousand times larger is still within tolerance.
  const Mesh big = unit_box(1000);
  EXPECT_EQ(select_nodes(plane("near", {1000 + 1.5e-3, 0, 0}, {1, 0, 0}), big).size(), 9u);
}

TEST(Selectors, ExplicitTolerance) {
  const Mesh m = unit_box();
  NodeSetSpec p = plane("loose", {0.51, 0, 0}, {1, 0, 0});
  EXPECT_THROW(select_nodes(p, m), InputError);
  p.tolerance = 0.02;
  EXPECT_EQ(select_nodes(p, m), grid_ids([](int i, int, int) { return i == 1; }));
  // A wide tolerance picks two layers.
  p.point = {0.25, 0, 0};
  p.tolerance = 0.25;
  EXPECT_EQ(select_nodes(p, m), grid_ids([](int i, int, int) { return i <= 1; }));
  // Tolerance widens boxes and spheres too.
  NodeSetSpec b = set("box", Kind::Box);
  b.point = {0.51, 0.51, 0.51};
  b.vector = {0.55, 0.55, 0.55};
  EXPECT_THROW(select_nodes(b, m), InputError);
  b.tolerance = 0.02;
  EXPECT_EQ(select_nodes(b, m), (Ids{13}));
  NodeSetSpec s = set("ball", Kind::Sphere);
  s.point = {0, 0, 0};
  s.radius = 0.45;
  EXPECT_EQ(select_nodes(s, m), (Ids{0}));
  s.tolerance = 0.1;
  EXPECT_EQ(select_nodes(s, m), (Ids{0, 1, 3, 9}));
}

TEST(ResolveNodeSets, UnionMayReferToLaterSetsAndMeshSets) {
  Mesh m = unit_box();
  m.node_sets["from_file"] = {13};
  const std::vector<NodeSetSpec> specs = {
      union_of("ends", {"left", "right", "from_file"}),
      plane("left", {0, 0, 0}, {1, 0, 0}),
      union_of("nested", {"ends", "bottom"}),  // a union of a union
      plane("right", {1, 0, 0}, {1, 0, 0}),
      plane("bottom", {0, 0, 0}, {0, 0, 1}),
  };
  resolve_node_sets(specs, m);
  EXPECT_EQ(m.node_sets.size(), 6u);
  EXPECT_EQ(m.node_sets.at("left"), grid_ids([](int i, int, int) { return i == 0; }));
  EXPECT_EQ(m.node_sets.at("right"), grid_ids([](int i, int, int) { return i == 2; }));
  EXPECT_EQ(m.node_sets.at("ends"),
            grid_ids([](int i, int j, int k) { return i != 1 || (j == 1 && k == 1); }));
  EXPECT_EQ(m.node_sets.at("nested"),
            grid_ids([](int i, int j, int k) { return i != 1 || k == 0 || (j == 1 && k == 1); }));
  EXPECT_EQ(m.node_sets.at("from_file"), (Ids{13}));
}

TEST(ResolveNodeSets, EmptySelectionShowsTheBoundingBox) {
  Mesh m = unit_box();
  const std::string msg = error_of(
      [&] {
        resolve_node_sets({plane("fixed", {0, 0, -0.5}, {0, 0, 1})}, m);
      },
      10);
  EXPECT_TRUE(contains(msg, "'fixed'")) << msg;
  EXPECT_TRUE(contains(msg, "selects no nodes")) << msg;
  EXPECT_TRUE(contains(msg, "on the plane through (0, 0, -0.5) with normal (0, 0, 1)")) << msg;
  EXPECT_TRUE(contains(msg, "(0, 0, 0) to (1, 1, 1)")) << msg;
}

TEST(ResolveNodeSets, BadIdNamesTheIdAndTheNodeCount) {
  Mesh m = unit_box();
  NodeSetSpec s = set("picked", Kind::Ids, 12);
  s.ids = {1, 27};
  const std::string msg = error_of([&] { resolve_node_sets({s}, m); }, 12);
  EXPECT_TRUE(contains(msg, "node id 27")) << msg;
  EXPECT_TRUE(contains(msg, "27 nodes")) << msg;
  s.ids = {-1};
  EXPECT_TRUE(contains(error_of([&] { resolve_node_sets({s}, m); }, 12), "node id -1"));
}

TEST(ResolveNodeSets, UnknownUnionMemberSuggestsTheClosestName) {
  Mesh m = unit_box();
  m.node_sets["from_file"] = {13};
  const std::vector<NodeSetSpec> specs = {plane("left", {0, 0, 0}, {1, 0, 0}),
                                          union_of("both", {"left", "rihgt"}, 14),
                                          plane("right", {1, 0, 0}, {1, 0, 0})};
  // Only a misspelling away from a set defined later: suggested.
  const std::string msg = error_of([&] { resolve_node_sets(specs, m); }, 14);
  EXPECT_TRUE(contains(msg, "union with 'rihgt', but no node set has that name")) << msg;
  EXPECT_TRUE(contains(msg, "did you mean 'right'?")) << msg;
  EXPECT_TRUE(contains(msg, "from_file")) << msg;  // the list of known sets includes the mesh's

  Mesh fresh = unit_box();
  std::vector<NodeSetSpec> unrelated = specs;
  unrelated[1].sets = {"left", "somewhere_else"};
  const std::string msg2 = error_of([&] { resolve_node_sets(unrelated, fresh); }, 14);
  EXPECT_FALSE(contains(msg2, "did you mean")) << msg2;
  EXPECT_TRUE(contains(msg2, "left, right")) << msg2;
}

TEST(ResolveNodeSets, CircularUnionsAreRefused) {
  Mesh m = unit_box();
  const std::vector<NodeSetSpec> specs = {plane("left", {0, 0, 0}, {1, 0, 0}),
                                          union_of("a", {"left", "b"}, 20),
                                          union_of("b", {"c"}, 21), union_of("c", {"a"}, 22)};
  const std::string msg = error_of([&] { resolve_node_sets(specs, m); }, 20);
  EXPECT_TRUE(contains(msg, "circular")) << msg;
  EXPECT_TRUE(contains(msg, "a -> b -> c -> a")) << msg;

  Mesh m2 = unit_box();
  const std::string self =
      error_of([&] { resolve_node_sets({union_of("me", {"me"}, 30)}, m2); }, 30);
  EXPECT_TRUE(contains(self, "me -> me")) << self;
}

TEST(ResolveNodeSets, NameDefinedTwiceIsRefused) {
  Mesh m = unit_box();
  m.node_sets["left"] = {0};
  std::string msg = error_of(
      [&] {
        resolve_node_sets({plane("left", {0, 0, 0}, {1, 0, 0})}, m);
      },
      10);
  EXPECT_TRUE(contains(msg, "node set 'left' is defined twice")) << msg;

  Mesh m2 = unit_box();
  NodeSetSpec second = plane("x", {1, 0, 0}, {1, 0, 0});
  second.where.line = 11;
  msg = error_of([&] { resolve_node_sets({plane("x", {0, 0, 0}, {1, 0, 0}), second}, m2); }, 11);
  EXPECT_TRUE(contains(msg, "node set 'x' is defined twice")) << msg;
}

TEST(ResolveNodeSets, DegenerateGeometryIsRefused) {
  const Mesh m = unit_box();
  EXPECT_TRUE(contains(error_of(
                           [&] {
                             select_nodes(plane("p", {0, 0, 0}, {0, 0, 0}), m);
                           },
                           10),
                       "normal is zero"));
  NodeSetSpec b = set("b", Kind::Box);
  b.point = {1, 0, 0};
  b.vector = {0, 1, 1};
  EXPECT_TRUE(contains(error_of([&] { select_nodes(b, m); }, 10), "box min"));
  NodeSetSpec s = set("s", Kind::Sphere);
  s.radius = -1;
  EXPECT_TRUE(contains(error_of([&] { select_nodes(s, m); }, 10), "negative"));
}

}  // namespace
}  // namespace fem
