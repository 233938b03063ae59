#include "fem/model.hpp"

#include <algorithm>

#include "../core/host_loops.hpp"
#include "fem/mesh/generators.hpp"
#include "fem/mesh/ordering.hpp"
#include "fem/mesh/regions.hpp"
#include "fem/mesh/selectors.hpp"
#include "fem/param_reader.hpp"
#include "wall_clock.hpp"

namespace fem {

std::int64_t Model::num_elements() const {
  std::int64_t n = 0;
  for (const ModelBlock& b : blocks) n += b.num_elements();
  return n;
}

namespace {

const CellRegion* find_region(const Mesh& mesh, const std::string& name) {
  for (const CellRegion& r : mesh.regions)
    if (r.name == name) return &r;
  return nullptr;
}

/// Two blocks taking the same cells would count their stiffness and mass twice. Regions of a
/// mesh file overlap where a cell is in two of its groups (a group of the whole brain beside
/// groups of its parts, say).
void check_blocks_do_not_overlap(const Model& model) {
  for (std::size_t j = 1; j < model.blocks.size(); ++j)
    for (std::size_t i = 0; i < j; ++i) {
      const BlockSpec& a = *model.blocks[i].spec;
      const BlockSpec& b = *model.blocks[j].spec;
      const std::int64_t shared =
          shared_cells(*find_region(model.mesh, a.region), *find_region(model.mesh, b.region));
      if (shared > 0)
        throw InputError(b.where,
                         "blocks '" + a.name + "' and '" + b.name + "' both take " +
                             std::to_string(shared) + " cells (regions '" + a.region + "' and '" +
                             b.region + "')",
                         "give every cell to one block: regions of a mesh file overlap where a "
                         "cell is in two of its groups");
    }
}

/// Refuses element/material pairs that the element's formulation family cannot run.
void check_family(const BlockSpec& bs, const ElementData& element, const MaterialSpec& ms,
                  const MaterialApi& material) {
  if (element.family != Family::AveragedNodalPressureTet) return;
  if (element.num_nodes != 4 || element.num_quadrature_points != 1)
    throw PluginError("element '" + bs.element + "' declares the family '" +
                      to_string(element.family) + "', which needs 4 nodes and 1 quadrature " +
                      "point, but has " + std::to_string(element.num_nodes) + " and " +
                      std::to_string(element.num_quadrature_points));
  if (!material.host.volumetric_split)
    throw InputError(bs.where,
                     "block '" + bs.name + "': element '" + bs.element +
                         "' (averaged nodal pressure) needs a material with a volumetric/"
                         "deviatoric split, but material '" +
                         ms.name + "' (type '" + ms.type + "') has none",
                     "use a material that has it (neo_hookean, linear_elastic) or the element "
                     "tet4; a material plugin gains it by defining volumetric_pressure, "
                     "volumetric_energy and deviatoric_stress (fem/material.hpp)");
}

/// A plane-strain model (tri3, quad4 cells; the readers and the generator put them in one plane
/// z = const): moved in x and y only (the system setup holds every z dof at zero).
void check_plane_model(const Model& model) {
  const CaseSpec& spec = model.spec;
  const auto refuse_z = [](const SourceLocation& where, const std::string& what) {
    throw InputError(where,
                     what + " has a z component, and a plane-strain model moves in x and y only",
                     "give only x and y components (the z motion is zero by plane strain)");
  };
  for (const NodalLoadSpec& l : spec.loads)
    if (l.force[2] != 0.0) refuse_z(l.where, "the load on set '" + l.set + "'");
  for (const BoundaryConditionSpec& c : spec.boundary_conditions)
    if (c.constrained[2] && c.value[2] != 0.0)
      refuse_z(c.where, "the prescribed displacement of set '" + c.set + "'");
  if (spec.gravity && spec.gravity->acceleration[2] != 0.0)
    refuse_z(spec.gravity->where, "gravity");
  for (const InitialVelocitySpec& v : spec.initial_velocities)
    if (v.velocity[2] != 0.0) refuse_z(v.where, "the initial velocity of set '" + v.set + "'");
  if (!spec.contacts.empty())
    throw InputError(spec.contacts.front().where,
                     "contact is not available on plane (tri3/quad4) meshes",
                     "mesh the body in 3D to use contact");
}

}  // namespace

std::vector<std::int32_t> to_element_order(const CellRegion& region, const ElementData& element) {
  std::vector<std::int32_t> conn;
  if (element.vtk_node_order == nullptr) {
    detail::copy_in_parallel(region.connectivity, conn);
    return conn;
  }
  const int npe = element.num_nodes;
  conn.resize(region.connectivity.size());
  const std::int64_t cells = region.num_cells();
#pragma omp parallel for schedule(static) if (cells >= detail::kParallelHostLoopMinimum)
  for (std::int64_t e = 0; e < cells; ++e)
    for (int i = 0; i < npe; ++i)
      conn[e * npe + element.vtk_node_order[i]] = region.connectivity[e * npe + i];
  return conn;
}

Model build_model(const CaseSpec& spec, const PluginRegistry& plugins) {
  PhaseLog phases("model");
  Model model;
  model.spec = spec;
  model.mesh = generate_mesh(model.spec.mesh);
  phases.done("mesh (generated or read)");
  // Sets are resolved in the input numbering (explicit node ids refer to it), then renumbered.
  resolve_node_sets(model.spec.node_sets, model.mesh);
  phases.done("node sets");
  const std::string& ordering = model.spec.solver.node_ordering;
  const bool generated = model.spec.mesh.file.empty();
  // The wave step's rows are stored in slices padded to their longest row: rows of one length
  // together waste no bytes (docs/waves.md, "Node ordering"). 256 nodes = 8 CUDA slices.
  const bool group = model.spec.solver.type == SolverType::Elastodynamic &&
                     (ordering == "auto" || ordering == "rcm");
  apply_node_ordering(model.mesh,
                      ordering == "auto" ? (generated ? NodeOrdering::Input : NodeOrdering::Rcm)
                                         : parse_node_ordering(ordering),
                      group ? 256 : 0);
  phases.done("node ordering");

  std::int64_t first = 0;
  for (const BlockSpec& bs : model.spec.blocks) {
    ModelBlock b;
    b.spec = &bs;
    const CellRegion* region = find_region(model.mesh, bs.region);
    if (region == nullptr) {
      std::vector<std::string> names;
      for (const CellRegion& r : model.mesh.regions) names.push_back(r.name);
      std::string hint = did_you_mean(bs.region, names.data(), names.data() + names.size());
      std::string list;
      for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
      throw InputError(bs.where,
                       "block '" + bs.name + "' refers to mesh region '" + bs.region +
                           "', which the mesh does not have",
                       (hint.empty() ? "" : hint + " ") + "mesh regions: " + list);
    }
    b.element = &plugins.element(bs.element, bs.where);
    if (b.element->cell_shape != static_cast<std::int32_t>(region->shape))
      throw InputError(bs.where,
                       "block '" + bs.name + "': element '" + bs.element + "' needs " +
                           to_string(static_cast<CellShape>(b.element->cell_shape)) +
                           " cells, but region '" + region->name + "' has " +
                           to_string(region->shape) + " cells",
                       "choose an element for " + std::string(to_string(region->shape)) +
                           " cells (see `fem plugins`) or change mesh.cells");
    b.material_spec = &model.spec.materials.at(bs.material);
    const MaterialSpec& ms = *b.material_spec;
    b.material = &plugins.material(ms.type, model.spec.backend, ms.where);
    b.params.assign(static_cast<std::size_t>(b.material->host.num_params), 0.0);
    ParamReader reader(ms.node, ms.file, "material '" + ms.name + "' (" + ms.type + ")",
                       ms.reserved_keys);
    if (ms.translated_lines) reader.set_translated_lines(ms.translated_lines);
    b.material->host.parse(reader, b.params.data());
    reader.finish();
    check_family(bs, *b.element, ms, *b.material);
    b.region = region;
    b.connectivity = to_element_order(*region, *b.element);
    b.first_element = first;
    first += b.num_elements();
    model.blocks.push_back(std::move(b));
  }
  check_blocks_do_not_overlap(model);
  if (model.mesh.dimension() == 2) check_plane_model(model);
  phases.done("blocks");
  return model;
}

std::string element_label(const Model& model, const ModelBlock& b, std::int64_t e) {
  // Nodes by their input ids (what `ids:` takes), and by the file's own numbers where it has
  // others (sparse Gmsh tags, Abaqus node numbers), so that either finds them.
  std::string label =
      "element " + std::to_string(b.region->origin(e).id) + " (block '" + b.spec->name + "', nodes";
  std::string in_file = "; in the file";
  bool relabelled = false;
  const int npe = b.element->num_nodes;
  for (int a = 0; a < npe; ++a) {
    const std::int32_t n = b.connectivity[e * npe + a];
    const std::int64_t input_id = model.mesh.input_node_id(n),
                       file_label = model.mesh.node_label(n);
    label += ' ' + std::to_string(input_id);
    in_file += ' ' + std::to_string(file_label);
    relabelled = relabelled || file_label != input_id;
  }
  return label + (relabelled ? in_file : std::string()) + ')';
}

SourceLocation element_location(const Model& model, const ModelBlock& b, std::int64_t e) {
  const CellOrigin origin = b.region->origin(e);
  if (origin.file < 0) return model.spec.mesh.where;
  return {model.mesh.source_files[static_cast<std::size_t>(origin.file)], origin.line, 0};
}

OutputMesh output_mesh(const Model& model) {
  OutputMesh out;
  out.points = model.mesh.coords;
  out.offsets.push_back(0);
  for (const ModelBlock& b : model.blocks) {
    const int npe = b.element->num_nodes;
    for (std::int64_t e = 0; e < b.num_elements(); ++e) {
      out.cell_types.push_back(static_cast<std::uint8_t>(b.element->vtk_cell_type));
      for (int i = 0; i < npe; ++i) {
        const int local = b.element->vtk_node_order ? b.element->vtk_node_order[i] : i;
        out.connectivity.push_back(b.connectivity[e * npe + local]);
      }
      out.offsets.push_back(static_cast<std::int64_t>(out.connectivity.size()));
    }
  }
  if (!model.spec.output.sets) return out;
  for (const auto& [name, nodes] : model.mesh.node_sets) {
    NamedFlags set{name, std::vector<std::uint8_t>(out.points.size() / 3, 0)};
    for (const std::int32_t n : nodes) set.flags[static_cast<std::size_t>(n)] = 1;
    out.point_sets.push_back(std::move(set));
  }
  // The cells are the blocks' in order; a region two blocks take (one per element type) is one
  // set.
  std::int64_t first = 0;
  for (const ModelBlock& b : model.blocks) {
    const std::string& name = b.region->name;
    auto it = std::find_if(out.cell_sets.begin(), out.cell_sets.end(),
                           [&](const NamedFlags& s) { return s.name == name; });
    if (it == out.cell_sets.end()) {
      out.cell_sets.push_back({name, std::vector<std::uint8_t>(out.cell_types.size(), 0)});
      it = out.cell_sets.end() - 1;
    }
    std::fill_n(it->flags.begin() + first, b.num_elements(), std::uint8_t{1});
    first += b.num_elements();
  }
  return out;
}

}  // namespace fem
