// The pressure part of a system: each `loads:` pressure's boundary faces, and its forces on the
// reference surface into the per-dof loads (dead) or kept for the implicit solvers (follower).
#include <spdlog/spdlog.h>

#include <algorithm>
#include <vector>

#include "fem/solver/explicit_system.hpp"

namespace fem {

namespace {

PressureFace face_nodes(const Model& model, const BoundaryFace& b) {
  const ModelBlock& block = model.blocks[static_cast<std::size_t>(b.block)];
  const ElementData& el = *block.element;
  const std::int32_t* conn = block.connectivity.data() + b.element * el.num_nodes;
  PressureFace face;
  const int first = el.face_offsets[b.face];
  face.num_nodes = el.face_offsets[b.face + 1] - first;
  for (int i = 0; i < face.num_nodes; ++i) face.nodes[i] = conn[el.face_nodes[first + i]];
  return face;
}

}  // namespace

std::vector<FaceInSet> boundary_faces_in_set(const Model& model,
                                             const std::vector<BoundaryFace>& boundary,
                                             const std::vector<std::int32_t>& nodes) {
  std::vector<std::uint8_t> in_set(static_cast<std::size_t>(model.mesh.num_nodes()), 0);
  for (const std::int32_t n : nodes) in_set[static_cast<std::size_t>(n)] = 1;
  std::vector<FaceInSet> faces;
  for (const BoundaryFace& b : boundary) {
    const PressureFace face = face_nodes(model, b);
    if (std::all_of(face.nodes.begin(), face.nodes.begin() + face.num_nodes,
                    [&](std::int32_t n) { return in_set[static_cast<std::size_t>(n)] != 0; }))
      faces.push_back({b, face});
  }
  return faces;
}

void setup_pressures(const Model& model, System& sys, const AmplitudeResolver& amplitude) {
  if (model.spec.pressure_loads.empty()) return;
  const std::vector<BoundaryFace> boundary = boundary_faces(model);
  for (const PressureLoadSpec& p : model.spec.pressure_loads) {
    PressureSurface surface;
    surface.set = p.set;
    for (const FaceInSet& f :
         boundary_faces_in_set(model, boundary, model.mesh.node_sets.at(p.set)))
      surface.faces.push_back(f.face);
    if (surface.faces.empty())
      throw InputError(p.where,
                       "set '" + p.set +
                           "' holds no face of the mesh boundary, so the pressure on it has "
                           "nothing to act on",
                       "a pressure acts on the boundary faces all of whose nodes are in the set "
                       "(corners and mid-edge nodes): give the set every node of the loaded "
                       "surface");
    const auto [index, scale] = amplitude(p.amplitude, p.where);
    surface.amplitude = index;
    surface.pressure = p.pressure * scale;
    surface.follower = p.follower;
    const double area = pressure_surface_area(surface, sys.coordinates, nullptr);
    spdlog::info("pressure {} Pa on set '{}': {} faces, {:.6g} m{} ({})", p.pressure, p.set,
                 surface.faces.size(), area, model.mesh.dimension() == 2 ? " per metre" : "²",
                 p.follower ? "follower: on the deformed surface" : "on the reference surface");
    if (p.follower) {
      sys.follower_pressures.push_back(std::move(surface));
      continue;
    }
    std::vector<double> forces(sys.coordinates.size(), 0.0);
    add_pressure_forces(surface, surface.pressure, sys.coordinates, nullptr, forces);
    for (std::size_t d = 0; d < forces.size(); ++d)
      if (forces[d] != 0.0)
        add_dof_load(model, sys, static_cast<std::int64_t>(d), index, forces[d], p.where);
  }
}

}  // namespace fem
