// mesh: a mesh file, a segmented image, or the built-in generators (box, cylinder, rectangle,
// voxels) and their parameters.
#include <algorithm>
#include <climits>
#include <cstdint>
#include <limits>
#include <map>

#include "case_schema.hpp"
#include "fem/mesh/readers.hpp"
#include "fem/mesh/voxels.hpp"

namespace fem::case_io {

namespace {

const std::vector<std::string> kFileKeys = {"file", "scale"};
const std::vector<std::string> kImageKeys = {"image", "scale", "downsample", "background",
                                             "labels"};
const std::vector<std::string> kCommonKeys = {"generator", "cells", "origin", "distortion", "seed"};
const std::vector<std::string> kBoxKeys = {"size", "divisions"};
const std::vector<std::string> kCylinderKeys = {"radius", "height", "radial_divisions",
                                                "circumferential_divisions", "axial_divisions"};
const std::vector<std::string> kVoxelKeys = {"shape", "size", "divisions"};

bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

const std::vector<std::string>& generator_keys(const std::string& generator) {
  if (generator == "cylinder") return kCylinderKeys;
  if (generator == "voxels") return kVoxelKeys;
  return kBoxKeys;  // box and rectangle alike
}

/// "box, rectangle or voxels": the generators that take `key`.
std::string generators_taking(const std::string& key) {
  std::vector<std::string> names;
  if (contains(kBoxKeys, key)) names = {"box", "rectangle"};
  if (contains(kCylinderKeys, key)) names.push_back("cylinder");
  if (contains(kVoxelKeys, key)) names.push_back("voxels");
  const std::string last = names.back();
  names.pop_back();
  return names.empty() ? last : join(names) + " or " + last;
}

/// A key of another generator is a likely slip (a box edited into a cylinder or back); saying
/// which generator it belongs to is more useful than "unknown key".
void reject_other_generator_keys(const Mapping& m, const std::string& generator) {
  const std::vector<std::string>& own = generator_keys(generator);
  for (const Value& e : m.entries())
    if (!contains(own, e.name()) &&
        (contains(kBoxKeys, e.name()) || contains(kCylinderKeys, e.name()) ||
         contains(kVoxelKeys, e.name())))
      e.fail_at_key("'" + e.name() + "' does not apply to generator '" + generator + "'",
                    "a " + generator + " takes " + join(own) + " (and " + join(kCommonKeys) +
                        "); '" + e.name() +
                        "' belongs to generator: " + generators_taking(e.name()));
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

std::int32_t as_label(const Value& v) {
  const std::int64_t n = as_integer(v);
  if (n < std::numeric_limits<std::int32_t>::min() || n > std::numeric_limits<std::int32_t>::max())
    v.fail(v.quoted() + " is not a 32-bit label, got " + v.text(),
           "labels of a segmented image are integers in [-2^31, 2^31 - 1]");
  return static_cast<std::int32_t>(n);
}

/// "1 (5120 voxels), 3 (212 voxels)" for messages.
std::string describe_labels(const std::map<std::int32_t, std::int64_t>& counts) {
  std::vector<std::string> parts;
  for (const auto& [label, n] : counts)
    parts.push_back(std::to_string(label) + " (" + std::to_string(n) +
                    (n == 1 ? " voxel)" : " voxels)"));
  return join(parts);
}

/// `mesh: {image: ..., scale, downsample, background, labels}`: the image is read and meshed now,
/// like a mesh file, so that blocks are checked against its label_<n> regions.
void read_image_mesh(const Mapping& m, MeshSpec& mesh) {
  for (const Value& e : m.entries())
    if (!contains(kImageKeys, e.name()))
      e.fail_at_key("'" + e.name() + "' does not apply to an image",
                    "a mesh from a segmented image takes " + join(kImageKeys) +
                        "; generator keys (" + join(kCommonKeys) +
                        ", ...) describe a generated mesh");
  const Value image = *m.get("image");
  mesh.image = existing_file(image, "image",
                             "the path is relative to the case file's folder; fem reads " +
                                 std::string(label_image_formats()));
  if (auto s = m.get("scale")) mesh.scale = positive(*s);
  const std::optional<Value> factor = m.get("downsample");
  if (factor) {
    const std::int64_t f = as_integer(*factor);
    if (f < 1 || f > 1024)
      factor->fail("'downsample' must be an integer from 1 to 1024, got " + factor->text(),
                   "downsample: 2 makes each block of 2 x 2 x 2 voxels one voxel; 1 keeps the "
                   "image's voxels");
    mesh.downsample = static_cast<int>(f);
  }
  if (auto b = m.get("background")) mesh.background = as_label(*b);
  std::vector<Value> label_items;
  if (auto l = m.get("labels")) {
    label_items = l->is_scalar() ? std::vector<Value>{*l} : as_list(*l);
    if (label_items.empty())
      l->fail_at_key("'labels' lists no label",
                     "remove it to keep every label but the background, or list labels to keep");
    for (const Value& item : label_items) {
      const std::int32_t label = as_label(item);
      if (label == mesh.background)
        item.fail("label " + item.text() + " is the background",
                  "the background's voxels make no cells; set mesh.background to the label of "
                  "empty voxels");
      if (std::find(mesh.labels.begin(), mesh.labels.end(), label) != mesh.labels.end())
        item.fail("label " + item.text() + " is listed twice", "list each label once");
      mesh.labels.push_back(label);
    }
  }

  VoxelLattice lattice = read_label_image(mesh.image, image.where());
  lattice.background = mesh.background;
  const std::map<std::int32_t, std::int64_t> counts = label_counts(lattice);
  if (counts.empty())
    image.fail("image '" + mesh.image + "' has no foreground: every voxel holds the background " +
                   std::to_string(mesh.background),
               "set mesh.background to the label of the empty voxels, or check the segmentation");
  for (std::size_t i = 0; i < mesh.labels.size(); ++i)
    if (counts.count(mesh.labels[i]) == 0)
      label_items[i].fail(
          "label " + std::to_string(mesh.labels[i]) + " is not in image '" + mesh.image + "'",
          "the image's labels: " + describe_labels(counts) + "; background " +
              std::to_string(mesh.background));
  if (!mesh.labels.empty()) keep_labels(lattice, mesh.labels);
  if (mesh.downsample > 1) {
    lattice = downsample(lattice, mesh.downsample);
    const std::map<std::int32_t, std::int64_t> kept = label_counts(lattice);
    const std::string hint = "a block of " + std::to_string(mesh.downsample) +
                             "^3 voxels is foreground when at least half of it is; lower "
                             "downsample";
    // The labels kept are the ones to name; a listed label that vanished is the precise story.
    for (std::int32_t label : mesh.labels)
      if (kept.count(label) == 0)
        factor->fail("label " + std::to_string(label) + " has no voxel left after downsample " +
                         std::to_string(mesh.downsample) + " (it had " +
                         std::to_string(counts.at(label)) + ")",
                     hint);
    if (kept.empty())
      factor->fail("no voxel is left after downsample " + std::to_string(mesh.downsample) +
                       " (the image's labels: " + describe_labels(counts) + ")",
                   hint);
  }
  for (int d = 0; d < 3; ++d) {
    lattice.origin[d] *= mesh.scale;
    lattice.spacing[d] *= mesh.scale;
  }
  try {
    mesh.file_mesh = std::make_shared<const Mesh>(voxel_mesh(lattice));
  } catch (const Error& e) {  // more cells than 32-bit ids number
    image.fail(e.what(), "downsample the image (mesh.downsample)");
  }
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
    if (any.has("file") && any.has("image"))
      any.get("image")->fail_at_key("a mesh comes from a file or from an image, not both",
                                    "remove mesh.file or mesh.image");
    if (any.has("file")) {
      mesh.where = v.key_where();
      read_mesh_file(any, mesh);
      return;
    }
    if (any.has("image")) {
      mesh.where = v.key_where();
      read_image_mesh(any, mesh);
      return;
    }
    if (auto s = any.get("scale"))
      s->fail_at_key("'scale' applies to a mesh file or an image only",
                     "give mesh.file or mesh.image, or give the generator's sizes in metres");
    for (const char* key : {"downsample", "background", "labels"})
      if (auto k = any.get(key))
        k->fail_at_key("'" + k->name() + "' applies to a segmented image only",
                       "give mesh.image (a .vti, .mhd or .nrrd file of labels), or remove it");
  }
  std::vector<std::string> keys = kCommonKeys;
  keys.insert(keys.end(), kBoxKeys.begin(), kBoxKeys.end());
  keys.insert(keys.end(), kCylinderKeys.begin(), kCylinderKeys.end());
  keys.push_back("shape");
  keys.insert(keys.end(), kFileKeys.begin(), kFileKeys.end());
  const Mapping m(v, keys);
  mesh.where = v.key_where();
  if (auto g = m.get("generator"))
    mesh.generator = as_choice(*g, {"box", "cylinder", "rectangle", "voxels"});
  reject_other_generator_keys(m, mesh.generator);
  const bool voxels = mesh.generator == "voxels";
  if (voxels) {
    // A structured solver finds the lattice again from the nodes: nothing may move them.
    for (const char* key : {"distortion", "seed"})
      if (auto k = m.get(key))
        k->fail_at_key("'" + k->name() + "' does not apply to generator 'voxels'",
                       "voxel nodes stay exactly on their lattice; remove it");
    if (auto s = m.get("shape")) mesh.shape = as_choice(*s, voxel_shape_names());
  }
  const bool plane = mesh.generator == "rectangle";
  if (plane) {
    mesh.cells = CellShape::Tri3;
    mesh.size[2] = 0.0;
    mesh.divisions = {10, 10, 0};
  }
  if (auto c = m.get("cells")) {
    const std::string cells = plane    ? as_choice(*c, {"tri3", "quad4"})
                              : voxels ? as_choice(*c, {"hex8"})
                                       : as_choice(*c, {"hex8", "hex20", "tet4", "tet10"});
    mesh.cells = cells == "tet4"    ? CellShape::Tet4
                 : cells == "hex20" ? CellShape::Hex20
                 : cells == "tet10" ? CellShape::Tet10
                 : cells == "tri3"  ? CellShape::Tri3
                 : cells == "quad4" ? CellShape::Quad4
                                    : CellShape::Hex8;
  }
  if (auto o = m.get("origin")) mesh.origin = as_vector3(*o);

  if (mesh.generator == "box" || plane || voxels) {
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
