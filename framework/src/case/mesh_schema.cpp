// mesh: the built-in generators (box, cylinder) and their parameters.
#include <algorithm>
#include <climits>

#include "case_schema.hpp"

namespace fem::case_io {

namespace {

const std::vector<std::string> kCommonKeys = {"generator", "cells", "origin", "distortion", "seed"};
const std::vector<std::string> kBoxKeys = {"size", "divisions"};
const std::vector<std::string> kCylinderKeys = {"radius", "height", "radial_divisions",
                                                "circumferential_divisions", "axial_divisions"};

bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

/// A key of the other generator is a likely slip (a box edited into a cylinder or back); saying
/// which generator it belongs to is more useful than "unknown key".
void reject_other_generator_keys(const Mapping& m, const std::string& generator) {
  const bool box = generator == "box";
  const std::vector<std::string>& foreign = box ? kCylinderKeys : kBoxKeys;
  const std::vector<std::string>& own = box ? kBoxKeys : kCylinderKeys;
  for (const Value& e : m.entries())
    if (contains(foreign, e.name()))
      e.fail_at_key("'" + e.name() + "' does not apply to generator '" + generator + "'",
                    "a " + generator + " takes " + join(own) + " (and " + join(kCommonKeys) +
                        "); '" + e.name() +
                        "' belongs to generator: " + (box ? "cylinder" : "box"));
}

std::array<int, 3> read_divisions(const Value& v) {
  // One integer means the same count along x, y and z.
  if (v.is_scalar()) {
    const int n = as_int(v, 1);
    return {n, n, n};
  }
  if (!v.is_list())
    v.fail("'divisions' must be an integer or a list of 3 integers [nx, ny, nz], got " +
           v.describe());
  const std::vector<Value> items = three_items(v, "3 integers [nx, ny, nz] (or one integer)");
  return {as_int(items[0], 1), as_int(items[1], 1), as_int(items[2], 1)};
}

}  // namespace

void read_mesh(const Value& v, MeshSpec& mesh) {
  std::vector<std::string> keys = kCommonKeys;
  keys.insert(keys.end(), kBoxKeys.begin(), kBoxKeys.end());
  keys.insert(keys.end(), kCylinderKeys.begin(), kCylinderKeys.end());
  const Mapping m(v, keys);
  mesh.where = v.key_where();
  if (auto g = m.get("generator")) mesh.generator = as_choice(*g, {"box", "cylinder"});
  reject_other_generator_keys(m, mesh.generator);
  if (auto c = m.get("cells"))
    mesh.cells = as_choice(*c, {"hex8", "tet4"}) == "tet4" ? CellShape::Tet4 : CellShape::Hex8;
  if (auto o = m.get("origin")) mesh.origin = as_vector3(*o);

  if (mesh.generator == "box") {
    if (auto s = m.get("size")) {
      const std::vector<Value> items = three_items(*s, "3 lengths [x, y, z] in metres");
      for (std::size_t k = 0; k < 3; ++k) mesh.size[k] = positive(items[k]);
    }
    if (auto d = m.get("divisions")) mesh.divisions = read_divisions(*d);
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
