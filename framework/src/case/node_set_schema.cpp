// node_sets: named selections of nodes, each by exactly one selector.
#include <cstdint>
#include <limits>

#include "case_schema.hpp"

namespace fem::case_io {

namespace {

const std::vector<std::string> kSelectors = {"plane", "sphere", "box", "all", "ids", "union"};

void read_plane(const Value& v, NodeSetSpec& s) {
  const Mapping m(v, {"point", "normal"});
  s.kind = NodeSetSpec::Kind::Plane;
  s.point = as_vector3(m.required("point", "a plane is {point: [x, y, z], normal: [nx, ny, nz]}"));
  const Value normal = m.required("normal", "a plane is {point: [x, y, z], normal: [nx, ny, nz]}");
  s.vector = as_vector3(normal);
  if (s.vector[0] == 0.0 && s.vector[1] == 0.0 && s.vector[2] == 0.0)
    normal.fail("'normal' must not be the zero vector",
                "give a direction perpendicular to the plane, e.g. [0, 0, 1]");
}

void read_sphere(const Value& v, NodeSetSpec& s) {
  const Mapping m(v, {"center", "radius"});
  s.kind = NodeSetSpec::Kind::Sphere;
  const std::string form = "a sphere is {center: [x, y, z], radius: r}";
  s.point = as_vector3(m.required("center", form));
  // Radius 0 is allowed: with the tolerance it picks the node at a point.
  s.radius = non_negative(m.required("radius", form));
}

void read_box(const Value& v, NodeSetSpec& s) {
  const Mapping m(v, {"min", "max"});
  s.kind = NodeSetSpec::Kind::Box;
  const std::string form = "a box is {min: [x, y, z], max: [x, y, z]}";
  s.point = as_vector3(m.required("min", form));
  const Value max = m.required("max", form);
  s.vector = as_vector3(max);
  for (int k = 0; k < 3; ++k)
    if (s.vector[k] < s.point[k])
      max.fail(std::string("box 'max' is below 'min' in ") + "xyz"[k] + ": " +
                   format_number(s.vector[k]) + " < " + format_number(s.point[k]),
               "min holds the smallest coordinates, max the largest");
}

void read_ids(const Value& v, NodeSetSpec& s) {
  s.kind = NodeSetSpec::Kind::Ids;
  if (!v.is_null() && !v.is_list()) (void)as_list(v);  // throws: not a list
  const YAML::Node& list = v.node();
  if (v.is_null() || list.size() == 0) v.fail("'ids' must list at least one node id");
  // Id lists can be long: read the YAML items directly and build a Value (with its path and
  // location strings, some 500 bytes) only for an item that is wrong.
  s.ids.reserve(list.size());
  for (std::size_t i = 0; i < list.size(); ++i) {
    const YAML::Node& node = list[i];
    std::int64_t id = -1;
    const bool integer = node.IsScalar() && parse_integer(node.Scalar(), id);
    if (!integer || id < 0 || id > std::numeric_limits<std::int32_t>::max()) {
      const Value item = v.item(i, node);
      (void)as_integer(item);  // throws for anything that is not an integer
      item.fail(item.quoted() + " must be a node id >= 0, got " + item.text(),
                "node ids are 0-based");
    }
    s.ids.push_back(static_cast<std::int32_t>(id));
  }
}

void read_union(const Value& v, NodeSetSpec& s) {
  // Members may be sets of a mesh file, known only once the mesh is read: resolve_node_sets()
  // checks the names then.
  s.kind = NodeSetSpec::Kind::Union;
  const std::vector<Value> items = as_list(v);
  if (items.empty()) v.fail("'union' must list at least one node set name");
  for (const Value& item : items) s.sets.push_back(non_empty_string(item));
}

NodeSetSpec read_node_set(const Value& e) {
  std::vector<std::string> keys = kSelectors;
  keys.push_back("tolerance");
  const Mapping m(e, keys);
  NodeSetSpec s;
  s.where = e.key_where();
  s.name = e.name();
  const Value* selector = nullptr;
  for (const Value& entry : m.entries()) {
    if (entry.name() == "tolerance") continue;
    if (selector)
      entry.fail_at_key("node set '" + s.name + "' has two selectors, '" + selector->name() +
                            "' and '" + entry.name() + "'",
                        "give exactly one of " + join(kSelectors) +
                            "; to combine selections, define each as its own set and add "
                            "{union: [a, b]}");
    selector = &entry;
  }
  if (!selector)
    e.fail_at_key("node set '" + s.name + "' has no selector",
                  "give exactly one of " + join(kSelectors) +
                      ", e.g. {plane: {point: [0, 0, 0], normal: [0, 0, 1]}}");
  const std::string& kind = selector->name();
  if (kind == "plane") read_plane(*selector, s);
  if (kind == "sphere") read_sphere(*selector, s);
  if (kind == "box") read_box(*selector, s);
  if (kind == "ids") read_ids(*selector, s);
  if (kind == "union") read_union(*selector, s);
  if (kind == "all") {
    s.kind = NodeSetSpec::Kind::All;
    if (!as_bool(*selector))
      selector->fail("'all' can only be true", "remove the node set if it is not needed");
  }
  if (auto t = m.get("tolerance")) {
    if (kind != "plane" && kind != "sphere" && kind != "box")
      t->fail_at_key("'tolerance' does not apply to the '" + kind + "' selector",
                     "it is the distance tolerance of plane, sphere and box selectors");
    s.tolerance = positive(*t);
  }
  return s;
}

}  // namespace

void read_node_sets(const Value& v, CaseSpec& spec) {
  const Mapping m(v, {});
  for (const Value& e : m.entries()) spec.node_sets.push_back(read_node_set(e));
}

}  // namespace fem::case_io
