// mesh: a mesh file, or the built-in generators (box, cylinder, rectangle) and their parameters.
#include <algorithm>
#include <climits>

#include "case_schema.hpp"
#include "fem/mesh/readers.hpp"

namespace fem::case_io {

namespace {

const std::vector<std::string> kFileKeys = {"file", "scale"};
const std::vector<std::string> kCommonKeys = {"generator", "cells", "origin", "distortion", "seed"};
const std::vector<std::string> kBoxKeys = {"size", "divisions"};
const std::vector<std::string> kCylinderKeys = {"radius", "height", "radial_divisions",
                                                "circumferential_divisions", "axial_divisions"};

bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

const std::vector<std::string>& generator_keys(const std::string& generator) {
  return generator == "cylinder" ? kCylinderKeys : kBoxKeys;  // box and rectangle alike
}

/// A key of another generator is a likely slip (a box edited into a cylinder or back); saying
/// which generator it belongs to is more useful than "unknown key".
void reject_other_generator_keys(const Mapping& m, const std::string& generator) {
  const std::vector<std::string>& own = generator_keys(generator);
  for (const Value& e : m.entries())
    if (!contains(own, e.name()) &&
        (contains(kBoxKeys, e.name()) || contains(kCylinderKeys, e.name())))
      e.fail_at_key("'" + e.name() + "' does not apply to generator '" + generator + "'",
                    "a " + generator + " takes " + join(own) + " (and " + join(kCommonKeys) +
                        "); '" + e.name() + "' belongs to generator: " +
                        (contains(kBoxKeys, e.name()) ? "box or rectangle" : "cylinder"));
}

std::array<int, 3> read_divisions(const Value& v, int axes) {
  // One integer means the same count along every axis.
  if (v.is_scalar()) {
    const int n = as_int(v, 1);
    return {n, n, axes == 3 ? n : 0};
  }
  const std::string what = axes == 3 ? "3 integers [nx, ny, nz] (or one integer)"
                                     : "2 integers [nx, ny] (or one integer)";
  if (!v.is_list())
    v.fail("'divisions' must be an integer or a list of " + what + ", got " + v.describe());
  const std::vector<Value> items = list_items(v, static_cast<std::size_t>(axes), what);
  return {as_int(items[0], 1), as_int(items[1], 1), axes == 3 ? as_int(items[2], 1) : 0};
}

/// `mesh: {file: ..., scale: ...}`: the file is read now, so that the rest of the case can be
/// checked against its regions and node sets.
void read_mesh_file(const Mapping& m, MeshSpec& mesh) {
  for (const Value& e : m.entries())
    if (!contains(kFileKeys, e.name()))
      e.fail_at_key("'" + e.name() + "' does not apply to a mesh file",
                    "a mesh read from a file takes only file and scale; generator keys (" +
                        join(kCommonKeys) + ", ...) describe a generated mesh");
  mesh.file = existing_file(*m.get("file"), "mesh file",
                            "the path is relative to the case file's folder; fem reads " +
                                std::string(mesh_file_formats()));
  if (auto s = m.get("scale")) mesh.scale = positive(*s);
  Mesh read = fem::read_mesh(mesh.file);
  if (mesh.scale != 1.0)
    for (double& x : read.coords) x *= mesh.scale;
  mesh.file_mesh = std::make_shared<const Mesh>(std::move(read));
}

}  // namespace

std::vector<std::string> mesh_region_names(const MeshSpec& mesh) {
  if (!mesh.file_mesh) return {"domain"};
  std::vector<std::string> names;
  for (const CellRegion& r : mesh.file_mesh->regions) names.push_back(r.name);
  return names;
}

std::vector<std::string> mesh_node_set_names(const MeshSpec& mesh) {
  std::vector<std::string> names;
  if (mesh.file_mesh)
    for (const auto& [name, ids] : mesh.file_mesh->node_sets) names.push_back(name);
  return names;
}

void read_mesh(const Value& v, MeshSpec& mesh) {
  if (v.is_map()) {
    const Mapping any(v, {});
    if (any.has("file")) {
      mesh.where = v.key_where();
      read_mesh_file(any, mesh);
      return;
    }
    if (auto s = any.get("scale"))
      s->fail_at_key("'scale' applies to a mesh file only",
                     "give mesh.file, or give the generator's sizes in metres");
  }
  std::vector<std::string> keys = kCommonKeys;
  keys.insert(keys.end(), kBoxKeys.begin(), kBoxKeys.end());
  keys.insert(keys.end(), kCylinderKeys.begin(), kCylinderKeys.end());
  keys.insert(keys.end(), kFileKeys.begin(), kFileKeys.end());
  const Mapping m(v, keys);
  mesh.where = v.key_where();
  if (auto g = m.get("generator")) mesh.generator = as_choice(*g, {"box", "cylinder", "rectangle"});
  reject_other_generator_keys(m, mesh.generator);
  const bool plane = mesh.generator == "rectangle";
  if (plane) {
    mesh.cells = CellShape::Tri3;
    mesh.size[2] = 0.0;
    mesh.divisions = {10, 10, 0};
  }
  if (auto c = m.get("cells")) {
    const std::string cells =
        plane ? as_choice(*c, {"tri3", "quad4"}) : as_choice(*c, {"hex8", "tet4", "tet10"});
    mesh.cells = cells == "tet4"    ? CellShape::Tet4
                 : cells == "tet10" ? CellShape::Tet10
                 : cells == "tri3"  ? CellShape::Tri3
                 : cells == "quad4" ? CellShape::Quad4
                                    : CellShape::Hex8;
  }
  if (auto o = m.get("origin")) mesh.origin = as_vector3(*o);

  if (mesh.generator == "box" || plane) {
    const int axes = plane ? 2 : 3;
    if (auto s = m.get("size")) {
      const std::vector<Value> items =
          list_items(*s, static_cast<std::size_t>(axes),
                     plane ? "2 lengths [x, y] in metres" : "3 lengths [x, y, z] in metres");
      for (int k = 0; k < axes; ++k) mesh.size[k] = positive(items[k]);
    }
    if (auto d = m.get("divisions")) mesh.divisions = read_divisions(*d, axes);
  } else {
    const std::string needs = "a cylinder needs radius and height (metres)";
    mesh.radius = positive(m.required("radius", needs));
    mesh.height = positive(m.required("height", needs));
    if (auto r = m.get("radial_divisions")) mesh.radial_divisions = as_int(*r, 1);
    if (auto c = m.get("circumferential_divisions")) {
      mesh.circumferential_divisions = as_int(*c, 4);
      if (mesh.circumferential_divisions % 4 != 0)
        c->fail("'circumferential_divisions' must be a multiple of 4, got " + c->text(),
                "the cross-section is built from four quadrants of equal cells");
    }
    if (auto a = m.get("axial_divisions")) mesh.axial_divisions = as_int(*a, 1);
  }

  if (auto d = m.get("distortion")) mesh.distortion = in_range(*d, 0.0, 0.3, true, false);
  if (auto s = m.get("seed")) {
    const std::int64_t seed = as_integer(*s);
    if (seed < 0 || seed > static_cast<std::int64_t>(UINT_MAX))
      s->fail("'seed' must be an integer in [0, " + std::to_string(UINT_MAX) + "], got " +
              s->text());
    mesh.seed = static_cast<unsigned>(seed);
  }
}

}  // namespace fem::case_io
