#include "fem/solver/system_fingerprint.hpp"

namespace fem {
namespace {

void add_block(Fingerprint& h, const BlockSystem& b) {
  h.add(b.name);
  h.add(b.family);
  h.add(b.nodes_per_element);
  h.add(b.quadrature_points);
  h.add(b.num_elements);
  h.add(b.connectivity);
  h.add(b.shape_gradients);
  h.add(b.quadrature_volumes);
  h.add(b.hourglass_vectors);
  h.add(b.hourglass_base);
  h.add(b.hourglass_stiffness);
  h.add(
      std::string(b.material && b.material->host.description ? b.material->host.description : ""));
  h.add(b.material_params);
  h.add(b.force_offset);
  h.add(b.pressure_offset);
}

void add_surface(Fingerprint& h, const RigidSurface& s) {
  h.add(s.name);
  h.add(s.kind);
  h.add(s.point);
  h.add(s.normal);
  h.add(s.radius);
  h.add(s.side);
  h.add(s.translation);
  h.add(s.amplitude);
  h.add(s.mesh.vertices);
  h.add(s.mesh.triangles);
}

}  // namespace

void add_amplitude(Fingerprint& h, const Amplitude& a) {
  h.add(a.kind);
  h.add(a.start);
  h.add(a.end);
  h.add(a.num_points);
  for (int i = 0; i < a.num_points; ++i) {
    h.add(a.time[i]);
    h.add(a.value[i]);
  }
}

std::uint64_t fingerprint(const System& s) {
  Fingerprint h;
  h.add(s.num_nodes);
  h.add(s.lumped_mass);
  h.add<std::uint64_t>(s.blocks.size());
  for (const BlockSystem& b : s.blocks) add_block(h, b);
  h.add(s.num_force_slots);
  h.add(s.incidence_offsets);
  h.add(s.incidence_slots);
  h.add(s.num_pressure_elements);
  h.add(s.pressure_incidence_offsets);
  h.add(s.pressure_incidence_elements);
  h.add(s.pressure_inverse_volume);
  h.add(s.prescribed_amplitude);
  h.add(s.prescribed_value);
  h.add(s.load_amplitude);
  h.add(s.load_value);
  h.add<std::uint64_t>(s.follower_pressures.size());
  for (const PressureSurface& p : s.follower_pressures) {
    h.add(p.pressure);
    h.add(p.amplitude);
    h.add<std::uint64_t>(p.faces.size());
    for (const PressureFace& f : p.faces)
      for (int i = 0; i < f.num_nodes; ++i) h.add(f.nodes[static_cast<std::size_t>(i)]);
  }
  for (const double g : s.gravity) h.add(g);
  h.add(s.gravity_amplitude);
  h.add<std::uint64_t>(s.amplitudes.size());
  for (const Amplitude& a : s.amplitudes) add_amplitude(h, a);
  h.add(s.initial_displacement);
  h.add(s.initial_previous_displacement);
  h.add(s.mass_damping);
  h.add(s.iteration_mass);
  h.add(s.coordinates);
  h.add<std::uint64_t>(s.surfaces.size());
  for (const RigidSurface& surf : s.surfaces) add_surface(h, surf);
  h.add(s.contact_mask);
  return h.value();
}

}  // namespace fem
