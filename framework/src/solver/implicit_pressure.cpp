// Follower pressure in the implicit solvers (implicit_pressure.hpp).
#include "implicit_pressure.hpp"

#include <algorithm>
#include <map>
#include <utility>

#include "fem/amplitude.hpp"

namespace fem {

namespace {

/// Whether the load stiffness of the surface is symmetric: the surface is closed, or the nodes of
/// its rim (the edges of one face only, mid-edge nodes too) are held in every direction. Then the
/// boundary terms that make the load stiffness skew vanish (the work of the pressure is a
/// potential: p times the enclosed volume).
bool load_stiffness_is_symmetric(const PressureSurface& s, const System& system) {
  // Each edge of the faces (by its corners), with its nodes and how many faces share it: the
  // edges of one face only form the rim. A plane mesh's faces are the cells' edges (2 nodes),
  // whose rim is the end nodes of the loaded lines: each such node stands for itself.
  struct Edge {
    int faces = 0;
    std::vector<std::int32_t> nodes;
  };
  std::map<std::pair<std::int32_t, std::int32_t>, Edge> edges;
  for (const PressureFace& f : s.faces) {
    if (f.num_nodes == 2) {
      for (int k = 0; k < 2; ++k) {
        Edge& end = edges[{f.nodes[k], f.nodes[k]}];
        if (++end.faces == 1) end.nodes = {f.nodes[k]};
      }
      continue;
    }
    const int corners = f.num_nodes == 6 ? 3 : f.num_nodes == 8 ? 4 : f.num_nodes;
    for (int k = 0; k < corners; ++k) {
      const std::int32_t a = f.nodes[k], b = f.nodes[(k + 1) % corners];
      Edge& edge = edges[std::minmax(a, b)];
      if (++edge.faces > 1) continue;
      edge.nodes = {a, b};
      if (f.num_nodes > corners) edge.nodes.push_back(f.nodes[corners + k]);
    }
  }
  const auto held = [&](std::int32_t n) {
    for (int i = 0; i < 3; ++i)
      if (system.prescribed_amplitude[3 * static_cast<std::size_t>(n) + i] < 0) return false;
    return true;
  };
  for (const auto& [corners, edge] : edges)
    if (edge.faces == 1)
      for (const std::int32_t n : edge.nodes)
        if (!held(n)) return false;
  return true;
}

}  // namespace

FollowerPressureOperator::FollowerPressureOperator(NonlinearOperator& inner, const System& system,
                                                   bool nonsymmetric_tangent)
    : OperatorDecorator(inner, system), system_(system) {
  for (const PressureSurface& s : system.follower_pressures) {
    symmetric_.push_back(load_stiffness_is_symmetric(s, system));
    nonsymmetric_ = nonsymmetric_ || (nonsymmetric_tangent && !symmetric_.back());
  }
}

std::vector<double> FollowerPressureOperator::forces_at(double t,
                                                        const std::vector<double>& u) const {
  std::vector<double> forces(system_.coordinates.size(), 0.0);
  for (const PressureSurface& s : system_.follower_pressures)
    add_pressure_forces(s, s.pressure * evaluate(system_.amplitudes[s.amplitude], t),
                        system_.coordinates, u.empty() ? nullptr : u.data(), forces);
  return forces;
}

ElementCheck FollowerPressureOperator::do_internal_forces(const Vector& u, Vector& f) {
  forward_settings();
  const ElementCheck check = inner_.internal_forces(u, f);
  if (!check.ok()) return check;
  algebra().download(u, u_host_);
  forces_ = forces_at(time_, u_host_);
  if (!scratch_) scratch_ = algebra().vector(size());
  algebra().upload(forces_, *scratch_);
  algebra().axpby(-1.0, *scratch_, 1.0, f);  // the pressure is an applied force: f_int - f_p
  return check;
}

ElementCheck FollowerPressureOperator::do_linearize(const Vector& u) {
  forward_settings();
  const ElementCheck check = inner_.linearize(u);
  if (!check.ok()) return check;
  // The load stiffness over free dofs: symmetrised where it is symmetric (it is so up to
  // round-off there), whole on open surfaces where the tangent may be non-symmetric, and left
  // out of open surfaces otherwise.
  const auto included = [&](std::size_t i) { return symmetric_[i] || nonsymmetric_; };
  bool any = false;
  for (std::size_t i = 0; i < symmetric_.size(); ++i) any = any || included(i);
  if (!any) return check;
  algebra().download(u, u_host_);
  const auto free = [&](std::int64_t d) { return system_.prescribed_amplitude[d] < 0; };
  std::vector<TangentEntry> entries;
  for (std::size_t i = 0; i < system_.follower_pressures.size(); ++i) {
    if (!included(i)) continue;
    const bool symmetrise = symmetric_[i];
    const PressureSurface& s = system_.follower_pressures[i];
    add_pressure_stiffness(s, s.pressure * evaluate(system_.amplitudes[s.amplitude], time_),
                           system_.coordinates, u_host_.data(),
                           [&](std::int64_t row, std::int64_t col, double value) {
                             if (!free(row) || !free(col)) return;
                             if (!symmetrise) {
                               entries.push_back({row, col, value});
                               return;
                             }
                             entries.push_back({row, col, 0.5 * value});
                             entries.push_back({col, row, 0.5 * value});
                           });
  }
  load_stiffness_.set(algebra(), size(), std::move(entries));
  return check;
}

void FollowerPressureOperator::do_apply(const Vector& v, Vector& y) {
  forward_settings();
  inner_.apply(v, y);
  load_stiffness_.add_apply(algebra(), v, y, shift_stiffness());
}

void FollowerPressureOperator::do_diagonal(Vector& d) {
  forward_settings();
  inner_.diagonal(d);
  load_stiffness_.add_diagonal(algebra(), d, shift_stiffness());
}

void FollowerPressureOperator::do_block_diagonal(Vector& blocks) {
  forward_settings();
  inner_.block_diagonal(blocks);
  load_stiffness_.add_block_diagonal(algebra(), blocks, shift_stiffness());
}

void FollowerPressureOperator::do_assemble(CsrMatrix& a) {
  forward_settings();
  inner_.assemble(a);
  load_stiffness_.add_assembled(a, shift_stiffness());
}

}  // namespace fem
