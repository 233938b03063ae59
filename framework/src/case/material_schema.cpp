// materials: and blocks: -- what each group of cells is made of and computed with.
#include <algorithm>
#include <map>

#include "case_schema.hpp"

namespace fem::case_io {

void read_materials(const Value& v, CaseSpec& spec) {
  // Material names are the user's; the parameters are the plugin's, which checks them later
  // through ParamReader. Only the keys the framework itself uses are read here.
  const Mapping m(v, {});
  if (m.entries().empty())
    v.fail_at_key("'materials' must define at least one material",
                  "for example: materials: {tissue: {type: neo_hookean, youngs_modulus: 3000, "
                  "poisson_ratio: 0.45}}");
  for (const Value& e : m.entries()) {
    if (!e.is_map())
      e.fail(
          "material '" + e.name() + "' must be a mapping with at least 'type', got " + e.describe(),
          "for example: " + e.name() + ": {type: neo_hookean, youngs_modulus: 3000, ...}");
    const Mapping params(e, {});
    MaterialSpec ms;
    ms.where = e.key_where();
    ms.name = e.name();
    ms.type = non_empty_string(params.required("type", "the material plugin, e.g. neo_hookean"));
    if (auto d = params.get("density")) ms.density = positive(*d);
    // The node shares the document's memory, so it (and its marks) lives as long as the spec.
    ms.node = e.node();
    ms.file = v.origin().file;
    ms.translated_lines = v.origin().lines;
    spec.materials[ms.name] = ms;
  }
}

namespace {

/// The block's region must be one the mesh has; a group of several cell shapes is split into
/// '<name>/<shape>' regions, which the message names.
void check_region(const BlockSpec& b, const Value& at, const MeshSpec& mesh) {
  const std::vector<std::string> names = mesh_region_names(mesh);
  if (std::find(names.begin(), names.end(), b.region) != names.end()) return;
  std::vector<std::string> parts;
  for (const std::string& n : names)
    if (n.rfind(b.region + "/", 0) == 0) parts.push_back(n);
  const std::string what = "block '" + b.name + "' uses mesh region '" + b.region + "', which " +
                           (!mesh.image.empty() ? "the image does not have"
                            : mesh.file_mesh    ? "the mesh file does not have"
                                                : "is not defined");
  if (!parts.empty())
    at.fail(what, "'" + b.region +
                      "' holds cells of several shapes and a block runs one element "
                      "type: give one block per shape, with region " +
                      join(parts, " or "));
  std::string hint = suggestion(b.region, names, "mesh regions");
  if (!mesh.image.empty())
    hint += "; an image has a region label_<n> per label (mesh.labels, if given, keeps some)";
  else if (mesh.file_mesh && b.region == "domain")
    hint += "; a block of a mesh file names its region (region: <physical group or element set>)";
  if (!mesh.file_mesh) hint += "; a generated mesh has the one region 'domain'";
  at.fail(what, hint);
}

/// A segmented image's labels are its tissues: a label no block runs would silently drop from
/// the model (a tumour missing from the organ), so it must be given a block or left out on
/// purpose with mesh.labels.
void require_every_label_used(const Value& blocks, const CaseSpec& spec) {
  std::vector<std::string> unused;
  for (const CellRegion& r : spec.mesh.file_mesh->regions)
    if (std::none_of(spec.blocks.begin(), spec.blocks.end(),
                     [&](const BlockSpec& b) { return b.region == r.name; }))
      unused.push_back(r.name + " (" + std::to_string(r.num_cells()) + " voxels)");
  if (unused.empty()) return;
  blocks.fail_at_key(
      "the image's " + join(unused) + (unused.size() == 1 ? " has" : " have") +
          " no block, so no material",
      "add a block for each, e.g. {region: " + unused.front().substr(0, unused.front().find(' ')) +
          ", element: hex8r, material: ...}, or keep only the labels you model "
          "with mesh.labels: [...]");
}

}  // namespace

void read_blocks(const Value& v, CaseSpec& spec) {
  const std::vector<Value> items = as_list(v);
  if (items.empty())
    v.fail_at_key("'blocks' must list at least one block",
                  "for example: blocks: [{element: hex8r, material: tissue}]");
  std::vector<std::string> materials;
  for (const auto& [name, ms] : spec.materials) materials.push_back(name);
  std::map<std::string, SourceLocation> names;
  for (std::size_t i = 0; i < items.size(); ++i) {
    const Mapping m(items[i], {"name", "region", "element", "material", "hourglass_coefficient"});
    BlockSpec b;
    b.where = items[i].where();
    b.name = "block" + std::to_string(i);
    const std::optional<Value> name = m.get("name");
    if (name) b.name = non_empty_string(*name);
    const auto [first, inserted] = names.emplace(b.name, b.where);
    if (!inserted)
      (name ? *name : items[i])
          .fail("block name '" + b.name + "' is used twice",
                "the first is at " + first->second.str() + "; block names must be unique");
    const std::optional<Value> region = m.get("region");
    if (region) b.region = non_empty_string(*region);
    check_region(b, region ? *region : items[i], spec.mesh);
    b.element = non_empty_string(m.required("element", "the element plugin, e.g. hex8r or tet4"));
    const Value material = m.required("material");
    b.material = non_empty_string(material);
    if (!spec.materials.count(b.material))
      material.fail(
          "block '" + b.name + "' uses material '" + b.material + "', which is not defined",
          suggestion(b.material, materials, "materials"));
    if (auto h = m.get("hourglass_coefficient")) b.hourglass_coefficient = non_negative(*h);
    spec.blocks.push_back(b);
  }
  if (!spec.mesh.image.empty()) require_every_label_used(v, spec);
}

}  // namespace fem::case_io
