// contact: rigid surfaces (plane, sphere, triangulated STL) the mesh nodes must not penetrate,
// and for the implicit solvers deformable node-to-surface pairs and the penalty settings.
#include <filesystem>
#include <map>

#include "case_schema.hpp"

namespace fem::case_io {

namespace {

namespace fs = std::filesystem;

const std::vector<std::string> kTypes = {"plane", "sphere", "stl", "mesh", "deformable"};
const std::map<std::string, std::vector<std::string>> kTypeKeys = {
    {"plane", {"point", "normal", "displacement", "amplitude"}},
    {"sphere", {"center", "radius", "side", "displacement", "amplitude"}},
    {"stl", {"file", "scale", "side", "displacement", "amplitude"}},
    {"mesh", {"file", "group", "scale", "side", "displacement", "amplitude"}},
    {"deformable", {"surface"}}};

ContactSpec read_contact(const Value& item, std::size_t index, CaseSpec& spec) {
  const Mapping m(item, {"name", "type", "point", "normal", "center", "radius", "side", "file",
                         "group", "scale", "set", "displacement", "amplitude", "surface", "method",
                         "penalty", "penetration_tolerance", "max_augmentations"});
  ContactSpec c;
  c.where = item.where();
  c.name = "contact" + std::to_string(index);
  if (auto n = m.get("name")) c.name = non_empty_string(*n);
  c.type = as_choice(m.required("type", "plane, sphere, stl, mesh or deformable"), kTypes);
  // Keys of another surface type are errors that say which type they belong to.
  for (const auto& [type, keys] : kTypeKeys) {
    if (type == c.type) continue;
    for (const std::string& key : keys) {
      const auto& own = kTypeKeys.at(c.type);
      if (std::find(own.begin(), own.end(), key) != own.end()) continue;
      if (auto e = m.get(key))
        e->fail_at_key("'" + key + "' does not apply to a contact surface of type '" + c.type +
                       "'");
    }
  }
  if (c.type == "plane") {
    c.point = as_vector3(m.required("point", "a point of the plane, [x, y, z] in m"));
    const Value normal =
        m.required("normal", "the normal, pointing to the side where the body stays");
    c.normal = as_vector3(normal);
    if (c.normal[0] == 0.0 && c.normal[1] == 0.0 && c.normal[2] == 0.0)
      normal.fail("'normal' must not be the zero vector",
                  "give the direction from the plane towards the body, e.g. [0, 0, 1]");
  } else if (c.type == "sphere") {
    c.point = as_vector3(m.required("center", "the centre of the sphere, [x, y, z] in m"));
    c.radius = positive(m.required("radius", "the radius of the sphere in m"));
  } else if (c.type == "deformable") {
    c.set = read_set_ref(m.required("set", "the nodes that must not penetrate the surface"), spec,
                         "'" + item.path() + "'");
    c.surface =
        read_set_ref(m.required("surface",
                                "a node set: the mesh's boundary faces whose nodes all belong to "
                                "it are the surface"),
                     spec, "'" + item.path() + "'");
  } else {
    const bool stl = c.type == "stl";
    const Value file = m.required("file", stl ? "the path of an ASCII or binary .stl file"
                                              : "a mesh file (.msh, .inp, .vtu, .vtk)");
    const fs::path p = non_empty_string(file);
    const bool pseudo = spec.file.empty() || spec.file.front() == '<';
    const fs::path base =
        pseudo ? fs::current_path() : fs::absolute(fs::path(spec.file)).parent_path();
    c.file = (p.is_absolute() ? p : base / p).lexically_normal().string();
    c.file_where = file.where();
    std::error_code ec;
    if (!fs::is_regular_file(c.file, ec))
      file.fail("cannot open STL file '" + c.file +
                    "': " + (fs::exists(c.file, ec) ? "it is not a regular file" : "no such file"),
                "a relative path is taken relative to the folder of the case file");
    if (auto s = m.get("scale")) c.scale = positive(*s);
    if (!stl)
      c.group = non_empty_string(
          m.required("group",
                     "the file's surface group: a Gmsh physical surface, an Abaqus "
                     "element set of S3/CPS4 faces, or 'surface' in a VTK file"));
  }
  if (auto s = m.get("side")) c.side = as_choice(*s, {"outside", "inside"}) == "outside" ? 1 : -1;
  if (auto s = m.get("set"); s && c.type != "deformable")
    c.set = read_set_ref(*s, spec, "'" + item.path() + "'");
  if (auto x = m.get("method")) {
    c.method = as_choice(*x, {"penalty", "augmented_lagrangian"});
    c.method_where = x->key_where();
  }
  if (auto x = m.get("penalty")) {
    c.penalty = positive(*x);
    if (c.method_where.line == 0) c.method_where = x->key_where();
  }
  if (auto x = m.get("penetration_tolerance")) {
    c.penetration_tolerance = positive(*x);
    if (c.method != "augmented_lagrangian")
      x->fail_at_key("'penetration_tolerance' applies to method augmented_lagrangian",
                     "set 'method: augmented_lagrangian', or leave it out");
  }
  if (auto x = m.get("max_augmentations")) {
    c.max_augmentations = as_int(*x, 1);
    if (c.method != "augmented_lagrangian")
      x->fail_at_key("'max_augmentations' applies to method augmented_lagrangian");
  }
  if (auto d = m.get("displacement")) c.translation = as_vector3(*d);
  if (auto a = m.get("amplitude"))
    c.amplitude = read_amplitude_ref(*a, spec, "'" + item.path() + "'");
  return c;
}

}  // namespace

void read_contacts(const Value& v, CaseSpec& spec) {
  std::map<std::string, SourceLocation> names;
  const std::vector<Value> items = as_list(v);
  for (std::size_t i = 0; i < items.size(); ++i) {
    ContactSpec c = read_contact(items[i], i, spec);
    if (names.count(c.name))
      items[i].fail("contact name '" + c.name + "' is used twice",
                    "give each contact surface its own name");
    names[c.name] = c.where;
    spec.contacts.push_back(std::move(c));
  }
  if (spec.contacts.size() > static_cast<std::size_t>(kMaxSurfaces))
    v.fail("at most " + std::to_string(kMaxSurfaces) + " contact surfaces are supported, got " +
           std::to_string(spec.contacts.size()));
}

}  // namespace fem::case_io
