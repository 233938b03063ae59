// The contact part of an explicit system: surfaces, contact nodes, reference coordinates.
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "fem/contact/triangle_mesh.hpp"
#include "fem/mesh/readers.hpp"
#include "fem/solver/explicit_system.hpp"

namespace fem {

std::vector<BoundaryFace> boundary_faces(const Model& model) {
  // A face on the boundary belongs to one element only: sort every face's corner nodes into a
  // key, then keep the faces whose key occurs once.
  constexpr std::int32_t none = std::numeric_limits<std::int32_t>::max();
  struct Keyed {
    std::array<std::int32_t, 4> key;
    BoundaryFace face;
  };
  std::vector<Keyed> faces;
  for (std::size_t bi = 0; bi < model.blocks.size(); ++bi) {
    const ModelBlock& b = model.blocks[bi];
    const ElementData& el = *b.element;
    for (std::int64_t e = 0; e < b.num_elements(); ++e) {
      const std::int32_t* conn = b.connectivity.data() + e * el.num_nodes;
      for (int f = 0; f < el.num_faces; ++f) {
        // Corner nodes identify a face (the first up to 4: mid-side nodes follow them).
        Keyed k{{none, none, none, none},
                {{none, none, none, none}, 0, static_cast<std::int32_t>(bi), e, f}};
        const int size = el.face_offsets[f + 1] - el.face_offsets[f];
        k.face.corners = size <= 4 ? size : (size == 6 ? 3 : 4);
        for (int i = 0; i < k.face.corners; ++i)
          k.key[i] = k.face.nodes[i] = conn[el.face_nodes[el.face_offsets[f] + i]];
        std::sort(k.key.begin(), k.key.end());
        faces.push_back(k);
      }
    }
  }
  std::sort(faces.begin(), faces.end(),
            [](const Keyed& a, const Keyed& b) { return a.key < b.key; });
  std::vector<BoundaryFace> boundary;
  for (std::size_t i = 0; i < faces.size();) {
    std::size_t j = i + 1;
    while (j < faces.size() && faces[j].key == faces[i].key) ++j;
    if (j - i == 1) boundary.push_back(faces[i].face);
    i = j;
  }
  return boundary;
}

std::vector<std::int32_t> boundary_nodes(const Model& model) {
  std::vector<std::int32_t> nodes;
  for (const BoundaryFace& f : boundary_faces(model))
    nodes.insert(nodes.end(), f.nodes.begin(), f.nodes.begin() + f.corners);
  std::sort(nodes.begin(), nodes.end());
  nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
  return nodes;
}

void setup_contact(const Model& model, System& sys, const AmplitudeResolver& amplitude) {
  const CaseSpec& spec = model.spec;
  if (spec.contacts.empty()) return;
  sys.contact_mask.assign(static_cast<std::size_t>(sys.num_nodes), 0);
  std::vector<std::int32_t> boundary;
  for (const ContactSpec& c : spec.contacts) {
    if (c.type == "deformable") continue;  // the implicit solvers' (implicit_contact.cpp)
    const std::size_t s = sys.surfaces.size();
    RigidSurface surf;
    surf.name = c.name;
    surf.side = c.side;
    for (int i = 0; i < 3; ++i) surf.point[i] = c.point[i];
    if (c.type == "plane") {
      surf.kind = SurfaceKind::Plane;
      const double len = std::sqrt(c.normal[0] * c.normal[0] + c.normal[1] * c.normal[1] +
                                   c.normal[2] * c.normal[2]);
      for (int i = 0; i < 3; ++i) surf.normal[i] = c.normal[i] / len;
    } else if (c.type == "sphere") {
      surf.kind = SurfaceKind::Sphere;
      surf.radius = c.radius;
    } else if (c.type == "stl") {
      surf.kind = SurfaceKind::Triangles;
      surf.mesh = read_stl(c.file, c.scale);
    } else {
      surf.kind = SurfaceKind::Triangles;
      std::vector<double> soup = read_surface_triangles(c.file, c.group);
      for (double& x : soup) x *= c.scale;
      surf.mesh = triangle_mesh_from_soup(soup, c.file + " (group '" + c.group + "')");
    }
    const auto [amp, scale] = amplitude(c.amplitude, c.where);
    if (c.translation != std::array<double, 3>{0, 0, 0}) {
      surf.amplitude = amp;
      for (int i = 0; i < 3; ++i) surf.translation[i] = c.translation[i] * scale;
    }
    // Contact nodes: the set, or the mesh boundary; never a node with a prescribed component
    // (its motion is given, the surface cannot push it).
    if (c.set.empty() && boundary.empty()) boundary = boundary_nodes(model);
    const std::vector<std::int32_t>& nodes =
        c.set.empty() ? boundary : model.mesh.node_sets.at(c.set);
    for (const std::int32_t n : nodes) {
      bool prescribed = false;
      for (int i = 0; i < 3; ++i) prescribed |= sys.prescribed_amplitude[3 * n + i] >= 0;
      if (!prescribed) sys.contact_mask[n] |= static_cast<std::uint8_t>(1u << s);
    }
    sys.surfaces.push_back(std::move(surf));
  }
}

}  // namespace fem
