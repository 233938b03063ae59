// A case resolved against its plugins: the mesh with its node sets, and each block's element
// type, material plugin and validated parameters. Built by build_model(); nothing runs yet.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "fem/case.hpp"
#include "fem/element.hpp"
#include "fem/material.hpp"
#include "fem/mesh.hpp"
#include "fem/output/frame.hpp"
#include "fem/plugin_registry.hpp"

namespace fem {

struct ModelBlock {
  const BlockSpec* spec = nullptr;
  const MaterialSpec* material_spec = nullptr;
  const ElementData* element = nullptr;
  const MaterialApi* material = nullptr;
  std::vector<double> params;              ///< validated by the material plugin
  const CellRegion* region = nullptr;      ///< the mesh cells the block takes, in the same order
  std::vector<std::int32_t> connectivity;  ///< element node order
  std::int64_t first_element = 0;          ///< global id of the block's first element
  [[nodiscard]] std::int64_t num_elements() const {
    return static_cast<std::int64_t>(connectivity.size()) / element->num_nodes;
  }
};

/// Blocks point into `spec`, so a Model moves but never copies.
struct Model {
  Model() = default;
  Model(const Model&) = delete;
  Model& operator=(const Model&) = delete;
  Model(Model&&) = default;
  Model& operator=(Model&&) = default;

  CaseSpec spec;
  Mesh mesh;
  std::vector<ModelBlock> blocks;
  [[nodiscard]] std::int64_t num_elements() const;
};

/// Generates the mesh, resolves node sets, looks up element and material plugins for the case's
/// backend and validates material parameters. Throws InputError / PluginError.
Model build_model(const CaseSpec& spec, const PluginRegistry& plugins);

/// A region's cells in the element's node order (mesh cells come in VTK node order; the element
/// may number its nodes differently): a ModelBlock's connectivity.
std::vector<std::int32_t> to_element_order(const CellRegion& region, const ElementData& element);

/// Element e of block b as the user knows it: "element <id> (block '<name>', nodes ...)" with
/// the mesh file's element id (a generator's cell number) and the nodes' input ids (the file's
/// order, as `ids:` takes them), whatever numbering the run uses.
std::string element_label(const Model& model, const ModelBlock& b, std::int64_t e);
/// Where element e of block b is defined: its line of the mesh file (the file alone where the
/// reader keeps no line: binary or VTK data), or the case's mesh key for a generated mesh.
SourceLocation element_location(const Model& model, const ModelBlock& b, std::int64_t e);

/// The reference mesh in VTK terms (cells of all blocks, block by block).
OutputMesh output_mesh(const Model& model);

}  // namespace fem
